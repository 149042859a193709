//! Reading the ratings: a kind's leaderboard, an account's ratings and their history.

use crate::error::ApiError;
use crate::store::ratings::{self, RatingChange, StoredRating};
use crate::store::Db;

/// The most rating changes one answer lists.
pub const MOST_CHANGES: i64 = 100;

/// A page of the kind's leaderboard, best first.
pub fn leaderboard(
    db: &Db,
    kind: &str,
    limit: i64,
    offset: i64,
) -> Result<Vec<StoredRating>, ApiError> {
    Ok(db.read(|conn| ratings::leaderboard(conn, kind, limit, offset))?)
}

/// An account's ratings by kind and what its latest rated games did to them.
pub struct AccountRatings {
    pub name: String,
    pub ratings: Vec<StoredRating>,
    pub changes: Vec<RatingChange>,
}

/// The ratings of the account called `name` (any case).
pub fn of_account(db: &Db, name: &str) -> Result<AccountRatings, ApiError> {
    db.read(|conn| {
        let account = super::histories::find_account(conn, name)?;
        Ok(AccountRatings {
            ratings: ratings::ratings_of(conn, &account.id)?,
            changes: ratings::changes_of(conn, &account.id, MOST_CHANGES)?,
            name: account.name,
        })
    })
}
