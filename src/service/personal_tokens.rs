//! Personal tokens an account creates for its scripts and bots: creating one (a name,
//! scopes and an expiry; the secret is handed out once), listing, revoking, and checking the
//! one a request presents.

use super::free_text::{self, Lines};
use super::{format_time, now_millis};
use crate::auth::personal::{self, PresentedToken};
use crate::auth::scopes::Scopes;
use crate::auth::user::{AuthUser, Credential, PersonalCredential};
use crate::error::ApiError;
use crate::store::personal_tokens::{self as stored, PersonalToken};
use crate::store::Db;

/// Personal tokens one account may have (expired ones that are still listed included).
pub const PERSONAL_TOKENS_PER_ACCOUNT: i64 = 50;
pub const DEFAULT_EXPIRY_DAYS: u32 = 90;
pub const MOST_EXPIRY_DAYS: u32 = 365;
pub const MOST_NAME_CHARS: usize = 64;
/// A token's `last_used_at` is written at most this often: a bot's every request would
/// otherwise be a write.
const NOTE_USE_EVERY_MS: i64 = 60_000;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// What a new token is asked to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToken {
    pub name: String,
    pub scopes: Scopes,
    pub expires_in_days: u32,
}

/// A token just created, with its text (shown this once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub stored: PersonalToken,
    pub token: String,
}

/// The new token's name as stored, once its name, scopes and expiry are checked.
fn validate(new: &NewToken) -> Result<String, ApiError> {
    let name = free_text::checked(&new.name, Lines::One, MOST_NAME_CHARS)
        .map_err(|refusal| refusal.problem("invalid_token_name", "a token's name"))?;
    if new.scopes.is_empty() {
        return Err(ApiError::unprocessable(
            "invalid_scopes",
            "give the token at least one scope",
        ));
    }
    if !(1..=MOST_EXPIRY_DAYS).contains(&new.expires_in_days) {
        return Err(ApiError::unprocessable(
            "invalid_expiry",
            format!("a token expires in 1 to {MOST_EXPIRY_DAYS} days"),
        ));
    }
    Ok(name)
}

/// Creates a personal token for the caller. A caller that is itself a personal token can
/// give the new one only scopes it has and an expiry no later than its own, so a token
/// cannot make a stronger or longer-lived copy of itself.
pub fn create(db: &Db, user: &AuthUser, new: NewToken) -> Result<Created, ApiError> {
    let name = validate(&new)?;
    let now = now_millis();
    let expires_at = now + i64::from(new.expires_in_days) * DAY_MS;
    if let Some(own) = user.personal_token() {
        let lacking = own.scopes.lacking(new.scopes);
        if !lacking.is_empty() {
            return Err(ApiError::forbidden(
                "missing_scope",
                format!(
                    "a personal token can only give a new token scopes it has itself; this one \
                     lacks: {lacking}"
                ),
            ));
        }
        if expires_at > own.expires_at {
            return Err(ApiError::unprocessable(
                "invalid_expiry",
                format!(
                    "a personal token cannot create one that outlives it: this one expires at {}",
                    format_time(own.expires_at)
                ),
            ));
        }
    }
    let generated = personal::generate();
    let token = PersonalToken {
        id: generated.id,
        account_id: user.account_id.clone(),
        name,
        scopes: new.scopes.to_stored(),
        secret_hash: generated.secret_hash,
        created_at: now,
        expires_at,
        last_used_at: None,
    };
    db.write(|conn| {
        crate::store::lock_account(conn, &user.account_id)?;
        // Expired tokens make room: they can never be used again.
        stored::delete_expired_personal_tokens(conn, &user.account_id, now)?;
        if stored::count_personal_tokens(conn, &user.account_id)? >= PERSONAL_TOKENS_PER_ACCOUNT {
            return Err(ApiError::conflict(
                "personal_token_quota",
                format!(
                    "an account has at most {PERSONAL_TOKENS_PER_ACCOUNT} personal tokens; \
                     revoke one first"
                ),
            ));
        }
        stored::insert_personal_token(conn, &token)?;
        Ok(())
    })?;
    Ok(Created {
        stored: token,
        token: generated.token,
    })
}

/// The caller's personal tokens, oldest first.
pub fn list(db: &Db, user: &AuthUser) -> Result<Vec<PersonalToken>, ApiError> {
    db.read_without_transaction(|conn| Ok(stored::personal_tokens_of(conn, &user.account_id)?))
}

/// Revokes the caller's token `id`; another account's is not found.
pub fn revoke(db: &Db, user: &AuthUser, id: &str) -> Result<(), ApiError> {
    if db.write(|conn| stored::delete_personal_token(conn, &user.account_id, id))? {
        Ok(())
    } else {
        Err(ApiError::not_found(
            "token_not_found",
            format!("you have no personal token {id:?}"),
        ))
    }
}

/// The account behind a personal token, if the token is stored with this secret and has
/// not expired. A token that is not stored (revoked, or never issued) and one with another
/// secret get the same answer, so the answer does not tell which ids exist.
pub fn authenticate(db: &Db, presented: &PresentedToken) -> Result<AuthUser, ApiError> {
    let now = now_millis();
    let found = db
        .read_without_transaction(|conn| {
            stored::find_personal_token_by_secret(conn, &presented.secret_hash)
        })?
        .filter(|found| presented.is_named(&found.token.id))
        .ok_or_else(|| {
            ApiError::unauthorized(
                "token_revoked",
                "this personal token was revoked, or never issued; create a new one",
            )
        })?;
    let token = found.token;
    if token.expires_at <= now {
        return Err(ApiError::unauthorized(
            "token_expired",
            format!(
                "this personal token expired at {}; create a new one",
                format_time(token.expires_at)
            ),
        ));
    }
    let noted_since = now - NOTE_USE_EVERY_MS;
    if token.last_used_at.is_none_or(|used| used < noted_since) {
        // Bookkeeping only: a busy database must not refuse the request for it.
        if let Err(error) =
            db.write(|conn| stored::note_personal_token_used(conn, &token.id, now, noted_since))
        {
            tracing::warn!(%error, token = %token.id, "could not note a personal token's use");
        }
    }
    super::accounts::note_seen(db, &token.account_id, found.last_seen_day);
    Ok(AuthUser {
        account_id: token.account_id,
        name: found.account_name,
        token_generation: found.token_generation,
        credential: Credential::Personal(PersonalCredential {
            scopes: Scopes::from_stored(&token.scopes),
            expires_at: token.expires_at,
            token_id: token.id,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::scopes::Scope;

    fn new_token(name: &str, scopes: &[Scope], days: u32) -> NewToken {
        NewToken {
            name: name.to_owned(),
            scopes: Scopes::of(scopes.iter().copied()),
            expires_in_days: days,
        }
    }

    fn code(result: Result<String, ApiError>) -> &'static str {
        match result {
            Err(ApiError::Unprocessable { code, .. }) => code,
            other => panic!("not a 422: {other:?}"),
        }
    }

    #[test]
    fn names_scopes_and_expiries_are_checked() {
        let read = [Scope::GamesRead];
        assert!(validate(&new_token("bot", &read, 1)).is_ok());
        assert!(validate(&new_token(&"é".repeat(64), &read, 365)).is_ok());
        assert_eq!(
            code(validate(&new_token("", &read, 90))),
            "invalid_token_name"
        );
        assert_eq!(
            code(validate(&new_token(&"x".repeat(65), &read, 90))),
            "invalid_token_name"
        );
        for name in ["a\nb", "\u{200B}", "x\u{202E}y", "tag\u{E0067}"] {
            assert_eq!(
                code(validate(&new_token(name, &read, 90))),
                "invalid_token_name"
            );
        }
        assert_eq!(
            validate(&new_token(" bot\n", &read, 90)).ok().as_deref(),
            Some("bot")
        );
        assert_eq!(code(validate(&new_token("bot", &[], 90))), "invalid_scopes");
        assert_eq!(
            code(validate(&new_token("bot", &read, 0))),
            "invalid_expiry"
        );
        assert_eq!(
            code(validate(&new_token("bot", &read, 366))),
            "invalid_expiry"
        );
    }
}
