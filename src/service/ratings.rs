//! Reading the ratings: a kind's leaderboard, an account's ratings and their history.

use crate::error::ApiError;
use crate::store::ratings::{self, LeaderboardPosition, RatingChange, StoredRating};
use crate::store::Db;

/// A page of the kind's leaderboard as `viewer` sees it (without the accounts it blocks or
/// that block it), best first, after `after` or skipping `offset`.
pub fn leaderboard(
    db: &Db,
    kind: &str,
    viewer: &str,
    limit: i64,
    offset: i64,
    after: Option<&LeaderboardPosition>,
) -> Result<Vec<(StoredRating, LeaderboardPosition)>, ApiError> {
    Ok(db.read(|conn| ratings::leaderboard(conn, kind, viewer, limit, offset, after))?)
}

/// The caller's rating in `kind` with its rank on the kind's leaderboard, if it is on it.
pub fn rank_of(
    db: &Db,
    kind: &str,
    account_id: &str,
) -> Result<Option<(StoredRating, i64)>, ApiError> {
    Ok(db.read(|conn| ratings::rank_of(conn, kind, account_id))?)
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
/// The history holds at most `limit` changes, older than the one counted `before_order`.
pub fn of_account(
    db: &Db,
    name: &str,
    viewer: &str,
    limit: i64,
    before_order: Option<i64>,
) -> Result<AccountRatings, ApiError> {
    db.read(|conn| {
        let account = super::account_names::find_account(conn, name)?;
        let own = account.id == viewer;
        Ok(AccountRatings {
            ratings: ratings::ratings_of(conn, &account.id)?,
            changes: ratings::changes_of(conn, &account.id, limit, before_order)?
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
