//! Registering accounts and signing in.

use super::account_names::is_valid_name;
use std::sync::Arc;

use super::{now_millis, random_id};
use crate::auth::password::Passwords;
use crate::auth::token::SignedToken;
use crate::auth::user::{AuthUser, Credential};
use crate::error::ApiError;
use crate::store::{self, Account, Db, StoreError};

/// A freshly registered account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    pub id: String,
    pub name: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// Checks a name and password against the account rules.
fn validate(name: &str, password: &str) -> Result<(), ApiError> {
    if !is_valid_name(name) {
        return Err(ApiError::unprocessable(
            "invalid_name",
            "a name has 1 to 32 characters: letters, digits, `_`, `-` and `.`",
        ));
    }
    validate_password(password)
}

fn validate_password(password: &str) -> Result<(), ApiError> {
    if !(8..=128).contains(&password.chars().count()) {
        return Err(ApiError::unprocessable(
            "invalid_password",
            "a password has 8 to 128 characters",
        ));
    }
    Ok(())
}

/// A signed-in account with the token generation its new tokens carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    pub user: AuthUser,
    pub token_generation: i32,
}

/// The account behind a well-signed token, if it still exists and has not revoked the
/// token's generation since.
pub fn authenticate(db: &Db, signed: SignedToken) -> Result<AuthUser, ApiError> {
    let account = db.read(|conn| store::find_account_by_id(conn, &signed.user.account_id))?;
    match account {
        None => Err(unknown_account()),
        Some(account) if account.token_generation != signed.generation => Err(
            ApiError::unauthorized("token_revoked", "this token was revoked; sign in again"),
        ),
        Some(account) => {
            note_seen(db, &account.id, account.last_seen_day);
            Ok(AuthUser {
                account_id: account.id,
                name: account.name,
                token_generation: account.token_generation,
                credential: Credential::SignIn,
            })
        }
    }
}

const DAY_MS: i64 = 86_400_000;

/// Notes the day an account's token was checked, for its page's "last seen": written once
/// a day at most, and only when the check went to the database (not on reused checks).
pub fn note_seen(db: &Db, account_id: &str, last_seen_day: Option<i64>) {
    let today = now_millis().div_euclid(DAY_MS);
    if last_seen_day.is_some_and(|day| day >= today) {
        return;
    }
    // Bookkeeping only: a busy database must not refuse the request for it.
    if let Err(error) = db.write(|conn| store::profiles::seen_on(conn, account_id, today)) {
        tracing::warn!(%error, account = %account_id, "could not note the day an account was seen");
    }
}

fn unknown_account() -> ApiError {
    ApiError::unauthorized(
        "unknown_account",
        "the token's account does not exist (any more); register again",
    )
}

/// Replaces the password after checking the current one; every token issued before is
/// revoked. Returns the generation of the tokens issued from now on. The hashes wait in
/// the account's turn.
pub async fn change_password(
    db: Arc<Db>,
    passwords: &Passwords,
    user: &AuthUser,
    current: String,
    new: String,
) -> Result<SignedIn, ApiError> {
    validate_password(&new)?;
    let id = user.account_id.clone();
    let reader = Arc::clone(&db);
    let account =
        actix_web::web::block(move || reader.read(|conn| store::find_account_by_id(conn, &id)))
            .await??
            .ok_or_else(unknown_account)?;
    let client = format!("account {}", user.account_id);
    if !passwords
        .verify(&client, current, Some(account.password_hash))
        .await?
    {
        return Err(ApiError::unauthorized(
            "invalid_credentials",
            "the current password is not right",
        ));
    }
    let hash = passwords.hash(&client, new).await?;
    let id = user.account_id.clone();
    let generation = actix_web::web::block(move || {
        db.write(|conn| store::revoke_tokens(conn, &id, Some(&hash)))
    })
    .await??
    .ok_or_else(unknown_account)?;
    Ok(SignedIn {
        // A fresh sign-in token, even when a personal token asked for the change.
        user: AuthUser {
            token_generation: generation,
            credential: Credential::SignIn,
            ..user.clone()
        },
        token_generation: generation,
    })
}

/// Revokes every token of the account ("sign out everywhere").
pub fn revoke_all_tokens(db: &Db, user: &AuthUser) -> Result<(), ApiError> {
    db.write(|conn| store::revoke_tokens(conn, &user.account_id, None))?
        .ok_or_else(unknown_account)?;
    Ok(())
}

/// Creates an account; names are unique regardless of case. The hash waits in `client`'s
/// turn (the address registering).
pub async fn register(
    db: Arc<Db>,
    passwords: &Passwords,
    client: &str,
    name: String,
    password: String,
) -> Result<Registered, ApiError> {
    validate(&name, &password)?;
    let account = Account {
        id: random_id(12),
        name_key: name.to_lowercase(),
        name,
        password_hash: passwords.hash(client, password).await?,
        created_at: now_millis(),
        token_generation: 0,
        last_seen_day: None,
    };
    let account = actix_web::web::block(move || {
        db.write(|conn| store::insert_account(conn, &account))
            .map(|()| account)
    })
    .await?
    .map_err(|error| match error {
        StoreError::Duplicate => {
            ApiError::conflict("name_taken", "that name is taken; pick another")
        }
        other => other.into(),
    })?;
    Ok(Registered {
        id: account.id,
        name: account.name,
        created_at: account.created_at,
    })
}

/// The account with this name and password. Every refusal takes one password hash, whether
/// the name exists or not, so the answer's timing does not tell which names are taken. The
/// hash waits in `client`'s turn (the address signing in).
pub async fn sign_in(
    db: Arc<Db>,
    passwords: &Passwords,
    client: &str,
    name: String,
    password: String,
) -> Result<SignedIn, ApiError> {
    let account = if is_valid_name(&name) {
        let reader = db.clone();
        actix_web::web::block(move || reader.read(|conn| store::find_account_by_name(conn, &name)))
            .await??
    } else {
        None
    };
    let stored = account
        .as_ref()
        .map(|account| account.password_hash.clone());
    let matches = passwords.verify(client, password, stored).await?;
    if let Some(account) = account.as_ref().filter(|_| matches) {
        // Told only to whoever knows the password: a guesser learns nothing of it.
        let (db, id) = (db.clone(), account.id.clone());
        actix_web::web::block(move || {
            db.read(|conn| super::moderation::check_not_suspended(conn, &id))
        })
        .await??;
    }
    match account {
        Some(account) if matches => Ok(SignedIn {
            user: AuthUser {
                account_id: account.id,
                name: account.name,
                token_generation: account.token_generation,
                credential: Credential::SignIn,
            },
            token_generation: account.token_generation,
        }),
        _ => Err(ApiError::unauthorized(
            "invalid_credentials",
            "no account has that name and password",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::validate;

    #[test]
    fn names_and_passwords_follow_the_account_rules() {
        assert!(validate("alice.b-2_c", "12345678").is_ok());
        for (name, password) in [
            ("", "12345678"),
            ("a b", "12345678"),
            (&"x".repeat(33), "12345678"),
            ("alice", "1234567"),
            ("alice", &"p".repeat(129)),
        ] {
            assert!(validate(name, password).is_err(), "{name:?} {password:?}");
        }
    }
}
