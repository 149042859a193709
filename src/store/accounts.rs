use diesel::prelude::*;

use super::schema::accounts;
use super::{DbConnection, StoreError};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = accounts)]
pub struct Account {
    pub id: String,
    pub name: String,
    pub name_key: String,
    pub password_hash: String,
    pub created_at: i64,
    /// Tokens issued before the last password change or "sign out everywhere" carry an
    /// older generation and are refused.
    pub token_generation: i32,
    /// The day (since 1970-01-01, UTC) a token of the account was last checked.
    pub last_seen_day: Option<i64>,
}

/// Inserts a new account; [`StoreError::Duplicate`] when the name is taken (in any case).
pub fn insert_account(conn: &mut DbConnection, account: &Account) -> Result<(), StoreError> {
    diesel::insert_into(accounts::table)
        .values(account)
        .execute(conn)
        .map_err(StoreError::from_insert)?;
    Ok(())
}

pub fn find_account_by_id(
    conn: &mut DbConnection,
    id: &str,
) -> Result<Option<Account>, StoreError> {
    Ok(accounts::table
        .find(id)
        .select(Account::as_select())
        .first(conn)
        .optional()?)
}

/// Holds the account's row until the transaction ends, so that checks of what the account
/// has (its webhooks, its personal tokens) and the write that adds one are not interleaved
/// with another request of the same account: without it, two requests at once on
/// PostgreSQL could both see room for the last one. SQLite transactions that write take the
/// database's write lock when they begin, so there is nothing more to hold.
pub fn lock_account(conn: &mut DbConnection, id: &str) -> Result<(), StoreError> {
    if let DbConnection::Postgresql(pg) = conn {
        accounts::table
            .find(id)
            .select(accounts::id)
            .for_update()
            .first::<String>(pg)
            .optional()?;
    }
    Ok(())
}

/// Replaces the password hash (when given) and moves the account to the next token
/// generation, which revokes every sign-in token issued so far, and deletes every personal
/// token of the account; returns the new generation, `None` when there is no such account.
pub fn revoke_tokens(
    conn: &mut DbConnection,
    id: &str,
    new_password_hash: Option<&str>,
) -> Result<Option<i32>, StoreError> {
    let bump = accounts::token_generation.eq(accounts::token_generation + 1);
    let target = accounts::table.find(id);
    let updated = match new_password_hash {
        Some(hash) => diesel::update(target)
            .set((bump, accounts::password_hash.eq(hash)))
            .execute(conn)?,
        None => diesel::update(target).set(bump).execute(conn)?,
    };
    if updated == 0 {
        return Ok(None);
    }
    super::personal_tokens::delete_personal_tokens_of(conn, id)?;
    let generation = accounts::table
        .find(id)
        .select(accounts::token_generation)
        .first(conn)?;
    super::changes::record(super::Change::Revoked {
        account_id: id.to_owned(),
        generation,
    });
    Ok(Some(generation))
}

/// The token generation of each of these accounts that exists.
pub fn token_generations(
    conn: &mut DbConnection,
    ids: &[String],
) -> Result<Vec<(String, i32)>, StoreError> {
    Ok(accounts::table
        .filter(accounts::id.eq_any(ids))
        .select((accounts::id, accounts::token_generation))
        .load(conn)?)
}

pub fn find_account_by_name(
    conn: &mut DbConnection,
    name: &str,
) -> Result<Option<Account>, StoreError> {
    Ok(accounts::table
        .filter(accounts::name_key.eq(name.to_lowercase()))
        .select(Account::as_select())
        .first(conn)
        .optional()?)
}
