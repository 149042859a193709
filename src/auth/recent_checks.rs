//! Accounts this instance checked a moment ago, so that a client's burst of requests (read
//! the legal actions, then act) asks the database once instead of once per request.
//!
//! A check is reused for at most the configured time. A revocation made through this
//! instance forgets the account (or the personal token) at once; one made through another
//! instance sharing the database takes effect here when the reused check expires.
//!
//! Sign-in tokens are remembered by account and generation; personal tokens by token id,
//! with the hash of their secret (a reused check still needs the right secret) and their
//! expiry.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::personal::PresentedToken;
use super::token::SignedToken;
use super::user::{AuthUser, Credential};

/// More accounts (or personal tokens) than this are not remembered: those whose reuse time
/// is over are forgotten first, then all.
const MOST_ACCOUNTS: usize = 100_000;

/// The generation of a forgotten account: no token carries it.
const FORGOTTEN: i32 = i32::MIN;

struct Checked {
    generation: i32,
    name: String,
    at: Instant,
}

/// A personal token the database confirmed.
struct CheckedPersonal {
    user: AuthUser,
    secret_hash: String,
    at: Instant,
}

#[derive(Default)]
struct Known {
    accounts: HashMap<String, Checked>,
    personal_tokens: HashMap<String, CheckedPersonal>,
    /// When something was last forgotten: a personal token's check that began before it
    /// may have read what was revoked, and is not kept.
    last_forgotten: Option<Instant>,
}

pub struct RecentChecks {
    reuse_for: Duration,
    known: Mutex<Known>,
}

impl RecentChecks {
    /// Reuses a check for `reuse_for` (zero: never).
    pub fn new(reuse_for: Duration) -> RecentChecks {
        RecentChecks {
            reuse_for,
            known: Mutex::new(Known::default()),
        }
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The account of `token` if the database confirmed its generation less than the reuse
    /// time ago.
    pub fn confirmed(&self, token: &SignedToken) -> Option<AuthUser> {
        let known = self.known();
        let checked = known.accounts.get(&token.user.account_id)?;
        (checked.generation == token.generation && checked.at.elapsed() < self.reuse_for).then(
            || AuthUser {
                account_id: token.user.account_id.clone(),
                name: checked.name.clone(),
                token_generation: token.generation,
                credential: Credential::SignIn,
            },
        )
    }

    /// The database confirmed `user` at `generation` in a check that began at `asked_at`.
    pub fn remember(&self, user: &AuthUser, generation: i32, asked_at: Instant) {
        if self.reuse_for.is_zero() {
            return;
        }
        let mut known = self.known();
        let accounts = &mut known.accounts;
        if accounts
            .get(&user.account_id)
            .is_some_and(|known| known.generation == FORGOTTEN && known.at >= asked_at)
        {
            // A revocation here may have committed after that check read the account.
            return;
        }
        if accounts.len() >= MOST_ACCOUNTS {
            let reuse_for = self.reuse_for;
            accounts.retain(|_, checked| checked.at.elapsed() < reuse_for);
            if accounts.len() >= MOST_ACCOUNTS {
                accounts.clear();
            }
        }
        accounts.insert(
            user.account_id.clone(),
            Checked {
                generation,
                name: user.name.clone(),
                at: Instant::now(),
            },
        );
    }

    /// The account's tokens were revoked: ask the database next time, and do not keep what
    /// a check that was under way reads.
    pub fn forget(&self, account_id: &str) {
        let mut known = self.known();
        let now = Instant::now();
        known.accounts.insert(
            account_id.to_owned(),
            Checked {
                generation: FORGOTTEN,
                name: String::new(),
                at: now,
            },
        );
        // Its personal tokens are deleted with the revocation.
        known
            .personal_tokens
            .retain(|_, checked| checked.user.account_id != account_id);
        known.last_forgotten = Some(now);
    }

    /// The user of personal token `token` if the database confirmed it with this secret
    /// less than the reuse time ago and it has not expired since (`now`: Unix milliseconds).
    pub fn confirmed_personal(&self, token: &PresentedToken, now: i64) -> Option<AuthUser> {
        let known = self.known();
        let checked = known.personal_tokens.get(&token.id)?;
        let unexpired = match &checked.user.credential {
            Credential::Personal(personal) => personal.expires_at > now,
            Credential::SignIn => false,
        };
        (unexpired && checked.at.elapsed() < self.reuse_for && token.matches(&checked.secret_hash))
            .then(|| checked.user.clone())
    }

    /// The database confirmed personal token `token` for `user` in a check that began at
    /// `asked_at`.
    pub fn remember_personal(&self, user: &AuthUser, token: &PresentedToken, asked_at: Instant) {
        if self.reuse_for.is_zero() {
            return;
        }
        let mut known = self.known();
        if known
            .last_forgotten
            .is_some_and(|forgotten| forgotten >= asked_at)
        {
            // A revocation here may have committed after that check read the token.
            return;
        }
        let tokens = &mut known.personal_tokens;
        if tokens.len() >= MOST_ACCOUNTS {
            let reuse_for = self.reuse_for;
            tokens.retain(|_, checked| checked.at.elapsed() < reuse_for);
            if tokens.len() >= MOST_ACCOUNTS {
                tokens.clear();
            }
        }
        tokens.insert(
            token.id.clone(),
            CheckedPersonal {
                user: user.clone(),
                secret_hash: token.secret_hash.clone(),
                at: Instant::now(),
            },
        );
    }

    /// Personal token `token_id` was revoked: ask the database next time.
    pub fn forget_personal(&self, token_id: &str) {
        let mut known = self.known();
        known.personal_tokens.remove(token_id);
        known.last_forgotten = Some(Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(generation: i32) -> SignedToken {
        SignedToken {
            user: AuthUser {
                account_id: "a1".to_owned(),
                name: String::new(),
                token_generation: generation,
                credential: Credential::SignIn,
            },
            generation,
        }
    }

    fn user() -> AuthUser {
        user_at(0)
    }

    /// The user as a token of `generation` signs in.
    fn user_at(generation: i32) -> AuthUser {
        AuthUser {
            account_id: "a1".to_owned(),
            name: "ada".to_owned(),
            token_generation: generation,
            credential: Credential::SignIn,
        }
    }

    /// A personal token of account `a1` and its user, expiring at `expires_at`.
    fn personal(expires_at: i64) -> (PresentedToken, AuthUser) {
        let generated = crate::auth::personal::generate();
        let presented = PresentedToken::parse(&generated.token).unwrap();
        let user = AuthUser {
            credential: Credential::Personal(crate::auth::user::PersonalCredential {
                token_id: generated.id,
                scopes: crate::auth::scopes::Scopes::of([crate::auth::scopes::Scope::GamesRead]),
                expires_at,
            }),
            ..user()
        };
        (presented, user)
    }

    #[test]
    fn a_check_is_reused_for_its_generation_until_forgotten() {
        let checks = RecentChecks::new(Duration::from_secs(60));
        assert_eq!(checks.confirmed(&token(3)), None, "never checked");
        checks.remember(&user(), 3, Instant::now());
        assert_eq!(checks.confirmed(&token(3)), Some(user_at(3)));
        assert_eq!(checks.confirmed(&token(2)), None, "an older generation");
        let asked_before_the_revocation = Instant::now();
        checks.forget("a1");
        assert_eq!(checks.confirmed(&token(3)), None, "revoked here");
        checks.remember(&user(), 3, asked_before_the_revocation);
        assert_eq!(
            checks.confirmed(&token(3)),
            None,
            "a check that read the account before the revocation is not kept"
        );
        checks.remember(&user(), 4, Instant::now());
        assert_eq!(checks.confirmed(&token(4)), Some(user_at(4)));
    }

    #[test]
    fn a_check_expires() {
        let checks = RecentChecks::new(Duration::from_millis(20));
        checks.remember(&user(), 1, Instant::now());
        assert!(checks.confirmed(&token(1)).is_some());
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(checks.confirmed(&token(1)), None);
    }

    #[test]
    fn no_reuse_time_remembers_nothing() {
        let checks = RecentChecks::new(Duration::ZERO);
        checks.remember(&user(), 1, Instant::now());
        assert_eq!(checks.confirmed(&token(1)), None);
    }

    #[test]
    fn a_personal_token_check_needs_its_secret_and_ends_with_its_expiry_or_revocation() {
        let checks = RecentChecks::new(Duration::from_secs(60));
        let (token, user) = personal(2_000);
        assert_eq!(
            checks.confirmed_personal(&token, 1_000),
            None,
            "never checked"
        );
        checks.remember_personal(&user, &token, Instant::now());
        assert_eq!(checks.confirmed_personal(&token, 1_000), Some(user.clone()));
        let wrong_secret = PresentedToken {
            secret_hash: personal(2_000).0.secret_hash,
            ..token.clone()
        };
        assert_eq!(checks.confirmed_personal(&wrong_secret, 1_000), None);
        assert_eq!(checks.confirmed_personal(&token, 2_000), None, "expired");
        let asked_before_the_revocation = Instant::now();
        checks.forget_personal(&token.id);
        assert_eq!(checks.confirmed_personal(&token, 1_000), None, "revoked");
        checks.remember_personal(&user, &token, asked_before_the_revocation);
        assert_eq!(
            checks.confirmed_personal(&token, 1_000),
            None,
            "a check that read the token before the revocation is not kept"
        );
        checks.remember_personal(&user, &token, Instant::now());
        assert!(checks.confirmed_personal(&token, 1_000).is_some());
        checks.forget("a1");
        assert_eq!(
            checks.confirmed_personal(&token, 1_000),
            None,
            "signing out everywhere revokes the account's personal tokens"
        );
    }
}
