//! Personal tokens: each row holds a token's name, scopes, expiry and the hash of its
//! secret. Revoking one deletes its row; [`super::revoke_tokens`] deletes all of an
//! account's.

use diesel::prelude::*;

use super::schema::{accounts, personal_tokens};
use super::{Change, DbConnection, StoreError};

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = personal_tokens)]
pub struct PersonalToken {
    pub id: String,
    pub account_id: String,
    pub name: String,
    /// Scope names separated by spaces (see `auth::Scopes::to_stored`).
    pub scopes: String,
    /// Hex SHA-256 of the token's secret.
    pub secret_hash: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub last_used_at: Option<i64>,
}

/// A token with what authenticating a request needs of its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenWithAccount {
    pub token: PersonalToken,
    pub account_name: String,
    pub token_generation: i32,
    /// The day the account was last seen (see [`super::profiles::seen_on`]).
    pub last_seen_day: Option<i64>,
}

pub fn insert_personal_token(
    conn: &mut DbConnection,
    token: &PersonalToken,
) -> Result<(), StoreError> {
    diesel::insert_into(personal_tokens::table)
        .values(token)
        .execute(conn)
        .map_err(StoreError::from_insert)?;
    Ok(())
}

/// The account's tokens, oldest first.
pub fn personal_tokens_of(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<Vec<PersonalToken>, StoreError> {
    Ok(personal_tokens::table
        .filter(personal_tokens::account_id.eq(account_id))
        .order((personal_tokens::created_at, personal_tokens::id))
        .select(PersonalToken::as_select())
        .load(conn)?)
}

pub fn count_personal_tokens(conn: &mut DbConnection, account_id: &str) -> Result<i64, StoreError> {
    Ok(personal_tokens::table
        .filter(personal_tokens::account_id.eq(account_id))
        .count()
        .get_result(conn)?)
}

/// The token whose secret hashes to `secret_hash`, with its account's name and token
/// generation, in one statement. Looked up by the hash rather than by the id: a wrong
/// secret for a known id misses the index exactly as an unknown id does.
pub fn find_personal_token_by_secret(
    conn: &mut DbConnection,
    secret_hash: &str,
) -> Result<Option<TokenWithAccount>, StoreError> {
    let found = personal_tokens::table
        .inner_join(accounts::table)
        .filter(personal_tokens::secret_hash.eq(secret_hash))
        .select((
            PersonalToken::as_select(),
            accounts::name,
            accounts::token_generation,
            accounts::last_seen_day,
        ))
        .first::<(PersonalToken, String, i32, Option<i64>)>(conn)
        .optional()?;
    Ok(found.map(
        |(token, account_name, token_generation, last_seen_day)| TokenWithAccount {
            token,
            account_name,
            token_generation,
            last_seen_day,
        },
    ))
}

pub fn personal_token_exists(conn: &mut DbConnection, id: &str) -> Result<bool, StoreError> {
    Ok(diesel::select(diesel::dsl::exists(
        personal_tokens::table.filter(personal_tokens::id.eq(id)),
    ))
    .get_result(conn)?)
}

/// Deletes the account's token `id`; whether there was one. Followers opened with it hear
/// of it once the transaction commits.
pub fn delete_personal_token(
    conn: &mut DbConnection,
    account_id: &str,
    id: &str,
) -> Result<bool, StoreError> {
    let deleted = diesel::delete(
        personal_tokens::table
            .filter(personal_tokens::id.eq(id))
            .filter(personal_tokens::account_id.eq(account_id)),
    )
    .execute(conn)?;
    if deleted > 0 {
        super::changes::record(Change::PersonalTokenRevoked {
            account_id: account_id.to_owned(),
            token_id: id.to_owned(),
        });
    }
    Ok(deleted > 0)
}

/// Deletes every token of the account (with its token generation moving on, which tells
/// the followers).
pub(super) fn delete_personal_tokens_of(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<(), StoreError> {
    diesel::delete(personal_tokens::table.filter(personal_tokens::account_id.eq(account_id)))
        .execute(conn)?;
    Ok(())
}

/// Deletes the account's tokens that expired before `now`.
pub fn delete_expired_personal_tokens(
    conn: &mut DbConnection,
    account_id: &str,
    now: i64,
) -> Result<(), StoreError> {
    diesel::delete(
        personal_tokens::table
            .filter(personal_tokens::account_id.eq(account_id))
            .filter(personal_tokens::expires_at.le(now)),
    )
    .execute(conn)?;
    Ok(())
}

/// Notes that token `id` was used at `now`, unless that was already noted since
/// `noted_since` (so concurrent requests and instances write it once).
pub fn note_personal_token_used(
    conn: &mut DbConnection,
    id: &str,
    now: i64,
    noted_since: i64,
) -> Result<(), StoreError> {
    diesel::update(
        personal_tokens::table
            .filter(personal_tokens::id.eq(id))
            .filter(
                personal_tokens::last_used_at
                    .is_null()
                    .or(personal_tokens::last_used_at.lt(noted_since)),
            ),
    )
    .set(personal_tokens::last_used_at.eq(now))
    .execute(conn)?;
    Ok(())
}
