//! Account names: which names an account may have, and the account a name names.

use crate::error::ApiError;
use crate::store;

/// Whether `name` is one an account may have: 1 to 32 letters, digits, `_`, `-`, `.`.
pub fn is_valid_name(name: &str) -> bool {
    (1..=32).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn account_not_found(name: &str) -> ApiError {
    ApiError::not_found("account_not_found", format!("there is no account {name:?}"))
}

/// The account called `name` (any case); a name no account could have is not looked up.
pub fn find_account(
    conn: &mut store::DbConnection,
    name: &str,
) -> Result<store::Account, ApiError> {
    if !is_valid_name(name) {
        return Err(account_not_found(name));
    }
    store::find_account_by_name(conn, name)?.ok_or_else(|| account_not_found(name))
}
