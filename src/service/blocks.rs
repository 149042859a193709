//! An account blocks another: nothing the blocked account sends reaches the blocker (no
//! invitation, rematch offer, chat message or mention), and neither joins the other's
//! invitation-only games. Blocking is silent towards the blocked account except where it
//! would otherwise wonder: inviting someone who blocks you, or whom you block, is refused.
//! A block also ends following between the two, and neither may follow the other while it
//! stands.

use super::account_names::find_account;
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::store::moderation::{self, Blocked};
use crate::store::{Db, DbConnection};

/// The caller blocks the account called `name`; whether it was not blocked before.
pub fn block(db: &Db, user: &AuthUser, name: &str, now: i64) -> Result<(Blocked, bool), ApiError> {
    db.write(|conn| {
        let blocked = find_account(conn, name)?;
        if blocked.id == user.account_id {
            return Err(ApiError::conflict(
                "cannot_block_yourself",
                "you cannot block yourself",
            ));
        }
        let new = moderation::block(conn, &user.account_id, &blocked.id, now)?;
        // A block ends following either way: the blocked account no longer sees the
        // blocker's games through it, and the blocker no longer lists the blocked.
        crate::store::follows::unfollow_both_ways(conn, &user.account_id, &blocked.id)?;
        let entry = moderation::blocked_by(conn, &user.account_id, None, i64::MAX)?
            .into_iter()
            .find(|entry| entry.account_id == blocked.id)
            .ok_or_else(|| ApiError::Internal("a block vanished".into()))?;
        Ok((entry, new))
    })
}

/// The caller no longer blocks the account called `name`; 404 `not_blocked` when it did
/// not.
pub fn unblock(db: &Db, user: &AuthUser, name: &str) -> Result<(), ApiError> {
    db.write(|conn| {
        let blocked = find_account(conn, name)?;
        if moderation::unblock(conn, &user.account_id, &blocked.id)? {
            Ok(())
        } else {
            Err(ApiError::not_found(
                "not_blocked",
                format!("you do not block {}", blocked.name),
            ))
        }
    })
}

/// A page of the accounts the caller blocks, by name: at most `limit` after the name key
/// `after_name_key`.
pub fn list(
    db: &Db,
    user: &AuthUser,
    after_name_key: Option<&str>,
    limit: i64,
) -> Result<Vec<Blocked>, ApiError> {
    Ok(db.read(|conn| moderation::blocked_by(conn, &user.account_id, after_name_key, limit))?)
}

/// Refuses an invitation between two accounts one of which blocks the other.
pub(super) fn check_invitable(
    conn: &mut DbConnection,
    inviter: &str,
    invitee: &str,
    invitee_name: &str,
) -> Result<(), ApiError> {
    if moderation::blocked_either_way(conn, inviter, invitee)? {
        return Err(ApiError::forbidden(
            "blocked",
            format!("you cannot invite {invitee_name}: one of you blocks the other"),
        ));
    }
    Ok(())
}
