//! Accounts this instance checked a moment ago, so that a client's burst of requests (read
//! the legal actions, then act) asks the database once instead of once per request.
//!
//! A check is reused for at most the configured time. A revocation made through this
//! instance forgets the account at once; one made through another instance sharing the
//! database takes effect here when the reused check expires.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{AuthUser, SignedToken};

/// More accounts than this are not remembered: the oldest half is forgotten first.
const MOST_ACCOUNTS: usize = 100_000;

/// The generation of a forgotten account: no token carries it.
const FORGOTTEN: i32 = i32::MIN;

struct Checked {
    generation: i32,
    name: String,
    at: Instant,
}

pub struct RecentChecks {
    reuse_for: Duration,
    accounts: Mutex<HashMap<String, Checked>>,
}

impl RecentChecks {
    /// Reuses a check for `reuse_for` (zero: never).
    pub fn new(reuse_for: Duration) -> RecentChecks {
        RecentChecks {
            reuse_for,
            accounts: Mutex::new(HashMap::new()),
        }
    }

    fn accounts(&self) -> std::sync::MutexGuard<'_, HashMap<String, Checked>> {
        self.accounts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The account of `token` if the database confirmed its generation less than the reuse
    /// time ago.
    pub fn confirmed(&self, token: &SignedToken) -> Option<AuthUser> {
        let accounts = self.accounts();
        let checked = accounts.get(&token.user.account_id)?;
        (checked.generation == token.generation && checked.at.elapsed() < self.reuse_for).then(
            || AuthUser {
                account_id: token.user.account_id.clone(),
                name: checked.name.clone(),
                token_generation: token.generation,
            },
        )
    }

    /// The database confirmed `user` at `generation` in a check that began at `asked_at`.
    pub fn remember(&self, user: &AuthUser, generation: i32, asked_at: Instant) {
        if self.reuse_for.is_zero() {
            return;
        }
        let mut accounts = self.accounts();
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
        self.accounts().insert(
            account_id.to_owned(),
            Checked {
                generation: FORGOTTEN,
                name: String::new(),
                at: Instant::now(),
            },
        );
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
        }
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
}
