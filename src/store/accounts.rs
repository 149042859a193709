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
}

/// Inserts a new account; [`StoreError::Duplicate`] when the name is taken (in any case).
pub fn insert_account(conn: &mut DbConnection, account: &Account) -> Result<(), StoreError> {
    diesel::insert_into(accounts::table)
        .values(account)
        .execute(conn)
        .map_err(StoreError::from_insert)?;
    Ok(())
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
