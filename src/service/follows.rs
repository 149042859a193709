//! Following: one account keeps another in its list (no consent needed, removed at will)
//! to see its open games, invite it in a click and watch its games first. Not between
//! accounts one of which blocks the other.

use super::account_names::find_account;
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::store::follows::{self, Followed, FollowedAccount};
use crate::store::moderation;
use crate::store::Db;

/// The caller follows the account called `name`, unless it follows `most` accounts
/// already; the entry and whether it is new.
pub fn follow(
    db: &Db,
    user: &AuthUser,
    name: &str,
    now: i64,
    most: u32,
) -> Result<(FollowedAccount, bool), ApiError> {
    db.write(|conn| {
        let followed = find_account(conn, name)?;
        if followed.id == user.account_id {
            return Err(ApiError::conflict(
                "cannot_follow_yourself",
                "you cannot follow yourself",
            ));
        }
        if moderation::blocked_either_way(conn, &user.account_id, &followed.id)? {
            return Err(ApiError::forbidden(
                "blocked",
                format!(
                    "you cannot follow {}: one of you blocks the other",
                    followed.name
                ),
            ));
        }
        let most = i32::try_from(most).unwrap_or(i32::MAX);
        let new = match follows::follow(conn, &user.account_id, &followed.id, now, most)? {
            Followed::Added => true,
            Followed::Already => false,
            Followed::QuotaFull => {
                return Err(ApiError::conflict(
                    "follow_quota",
                    format!(
                        "you already follow {most} accounts, as many as one account may; \
                         stop following one first"
                    ),
                ))
            }
        };
        let entry = follows::entry(conn, &user.account_id, &followed.id)?
            .ok_or_else(|| ApiError::Internal("a follow vanished".into()))?;
        Ok((entry, new))
    })
}

/// The caller no longer follows the account called `name`; 404 `not_following` when it
/// did not.
pub fn unfollow(db: &Db, user: &AuthUser, name: &str) -> Result<(), ApiError> {
    db.write(|conn| {
        let followed = find_account(conn, name)?;
        if follows::unfollow(conn, &user.account_id, &followed.id)? {
            Ok(())
        } else {
            Err(ApiError::not_found(
                "not_following",
                format!("you do not follow {}", followed.name),
            ))
        }
    })
}

/// A page of the accounts the caller follows, by name: at most `limit` after the name key
/// `after_name_key`.
pub fn list(
    db: &Db,
    user: &AuthUser,
    after_name_key: Option<&str>,
    limit: i64,
) -> Result<Vec<FollowedAccount>, ApiError> {
    Ok(db.read(|conn| follows::followed_by(conn, &user.account_id, after_name_key, limit))?)
}
