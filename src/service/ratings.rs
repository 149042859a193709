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
    pub changes: Vec<ShownChange>,
}

/// A rating change as a reader may see it.
pub struct ShownChange {
    pub change: RatingChange,
    /// The reader may learn which game it was (and its seat).
    pub named: bool,
}

/// The ratings of the account called `name` (any case), as `viewer` (an account id) reads
/// them: only the account itself sees which unlisted or private game changed them (the
/// change shows, the game is not named).
pub fn of_account(db: &Db, name: &str, viewer: &str) -> Result<AccountRatings, ApiError> {
    db.read(|conn| {
        let account = super::histories::find_account(conn, name)?;
        let own = account.id == viewer;
        Ok(AccountRatings {
            ratings: ratings::ratings_of(conn, &account.id)?,
            changes: ratings::changes_of(conn, &account.id, MOST_CHANGES)?
                .into_iter()
                .map(|change| ShownChange {
                    named: own || !change.private,
                    change,
                })
                .collect(),
            name: account.name,
        })
    })
}
