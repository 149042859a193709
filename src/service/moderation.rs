//! Reports and moderation. Any account reports another account or one of its chat
//! messages, with a reason. Moderators (an account role an operator grants with `turnpost
//! grant-moderator`) list the reports, hide chat messages, mute an account's chat for a
//! while, and suspend an account: its sign-in is refused, every token it holds is revoked,
//! its open games are cancelled or left, and its seats in running games are forfeited (a
//! bot plays on where the game goes on). Every moderator's action, and every grant, goes
//! into an audit log with who did it and why.

use super::account_names::find_account;
use super::fold_cache::FoldCache;
use super::free_text::{self, Lines};
use super::LoadedGame;
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::store::moderation::{
    self as stored, LogEntry, LoggedEntry, NewReport, Report, ReportState,
};
use crate::store::{self, CancelReason, Db, DbConnection, GameStatus};

/// The longest reason, in characters.
pub const MOST_REASON_CHARACTERS: usize = 1_000;
/// The longest mute, in days.
pub const MOST_MUTE_DAYS: u32 = 365;
const DAY_MS: i64 = 24 * 60 * 60 * 1_000;

/// What a report is about: an account, and perhaps one of its chat messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reported {
    /// The account, by name.
    pub account: String,
    /// A chat message of the account's, by game and id, in a game the reporter may read.
    pub message: Option<(String, i64)>,
}

fn checked_reason(reason: &str) -> Result<String, ApiError> {
    free_text::checked(reason, Lines::Many, MOST_REASON_CHARACTERS)
        .map_err(|refusal| refusal.problem("invalid_reason", "a reason"))
}

/// Files the caller's report.
pub fn report(
    db: &Db,
    user: &AuthUser,
    reported: &Reported,
    reason: &str,
    now: i64,
) -> Result<i64, ApiError> {
    let reason = checked_reason(reason)?;
    db.write(|conn| {
        let account_id = find_account(conn, &reported.account)?.id;
        let message = match &reported.message {
            Some((game_id, message_id)) => {
                LoadedGame::load_for(conn, game_id, user)?;
                // Another account's message reads as absent: the report names its author.
                let message = store::chat::find_message(conn, game_id, *message_id)?
                    .filter(|message| message.account_id == account_id)
                    .ok_or_else(|| message_not_found(game_id, &message_id.to_string()))?;
                Some((game_id.clone(), *message_id, message.body))
            }
            None => None,
        };
        if account_id == user.account_id {
            return Err(ApiError::conflict(
                "cannot_report_yourself",
                "you cannot report yourself or your own message",
            ));
        }
        Ok(stored::insert_report(
            conn,
            &NewReport {
                reporter_id: user.account_id.clone(),
                account_id,
                message,
                reason,
                created_at: now,
            },
        )?)
    })
}

/// 404 `report_not_found`.
pub fn report_not_found(report_id: &str) -> ApiError {
    ApiError::not_found(
        "report_not_found",
        format!("no open report has the id {report_id}"),
    )
}

/// 404 `message_not_found`.
pub fn message_not_found(game_id: &str, message_id: &str) -> ApiError {
    ApiError::not_found(
        "message_not_found",
        format!("game {game_id}'s chat has no message {message_id}"),
    )
}

/// Refuses a caller who is not a moderator (403 `not_a_moderator`).
fn require_moderator(conn: &mut DbConnection, user: &AuthUser) -> Result<(), ApiError> {
    match stored::standing_of(conn, &user.account_id)? {
        Some(standing) if standing.moderator => Ok(()),
        _ => Err(ApiError::forbidden(
            "not_a_moderator",
            "only moderators may do this",
        )),
    }
}

/// Reports for a moderator: those in `state`, about the account called `account` when
/// given, after report `after`, oldest first.
pub fn reports(
    db: &Db,
    user: &AuthUser,
    state: ReportState,
    account: Option<&str>,
    after: i64,
    limit: i64,
) -> Result<Vec<Report>, ApiError> {
    db.read(|conn| {
        require_moderator(conn, user)?;
        let account_id = account
            .map(|name| find_account(conn, name).map(|account| account.id))
            .transpose()?;
        Ok(stored::reports(
            conn,
            state,
            account_id.as_deref(),
            after,
            limit,
        )?)
    })
}

/// A moderator's action as the audit log records it.
struct Action<'a> {
    action: &'a str,
    account_id: Option<String>,
    game_id: Option<String>,
    message_id: Option<i64>,
    report_id: Option<i64>,
    until: Option<i64>,
}

impl Action<'_> {
    fn logged(
        self,
        conn: &mut DbConnection,
        moderator: Option<&AuthUser>,
        reason: String,
        now: i64,
    ) -> Result<i64, ApiError> {
        Ok(stored::log(
            conn,
            &LogEntry {
                moderator_id: moderator.map(|user| user.account_id.clone()),
                action: self.action.to_owned(),
                account_id: self.account_id,
                game_id: self.game_id,
                message_id: self.message_id,
                report_id: self.report_id,
                reason,
                until: self.until,
                created_at: now,
            },
        )?)
    }
}

fn on(action: &str) -> Action<'_> {
    Action {
        action,
        account_id: None,
        game_id: None,
        message_id: None,
        report_id: None,
        until: None,
    }
}

/// A moderator closes a report.
pub fn resolve(
    db: &Db,
    user: &AuthUser,
    report_id: i64,
    reason: &str,
    now: i64,
) -> Result<(), ApiError> {
    let reason = checked_reason(reason)?;
    db.write(|conn| {
        require_moderator(conn, user)?;
        if !stored::resolve_report(conn, report_id, &user.account_id, now)? {
            return Err(report_not_found(&report_id.to_string()));
        }
        Action {
            report_id: Some(report_id),
            ..on("resolve_report")
        }
        .logged(conn, Some(user), reason, now)?;
        Ok(())
    })
}

/// A moderator hides a chat message: a tombstone stays, saying so.
pub fn hide_message(
    db: &Db,
    user: &AuthUser,
    game_id: &str,
    message_id: i64,
    reason: &str,
    now: i64,
) -> Result<(), ApiError> {
    let reason = checked_reason(reason)?;
    db.write(|conn| {
        require_moderator(conn, user)?;
        let message = store::chat::find_message(conn, game_id, message_id)?
            .ok_or_else(|| message_not_found(game_id, &message_id.to_string()))?;
        store::chat::hide_message(conn, message_id, now)?;
        Action {
            account_id: Some(message.account_id),
            game_id: Some(game_id.to_owned()),
            message_id: Some(message_id),
            ..on("hide_message")
        }
        .logged(conn, Some(user), reason, now)?;
        Ok(())
    })
}

/// A moderator mutes the chat of the account called `name` for `days` days (`None`: lifts
/// a mute); until when.
pub fn mute(
    db: &Db,
    user: &AuthUser,
    name: &str,
    days: Option<u32>,
    reason: &str,
    now: i64,
) -> Result<Option<i64>, ApiError> {
    let reason = checked_reason(reason)?;
    if days.is_some_and(|days| !(1..=MOST_MUTE_DAYS).contains(&days)) {
        return Err(ApiError::unprocessable(
            "invalid_mute",
            format!("a mute lasts 1 to {MOST_MUTE_DAYS} days"),
        ));
    }
    let until = days.map(|days| now + i64::from(days) * DAY_MS);
    db.write(|conn| {
        require_moderator(conn, user)?;
        let account = find_account(conn, name)?;
        stored::set_chat_muted_until(conn, &account.id, until)?;
        Action {
            account_id: Some(account.id),
            until,
            ..on(if until.is_some() { "mute" } else { "unmute" })
        }
        .logged(conn, Some(user), reason, now)?;
        Ok(until)
    })
}

/// A moderator suspends the account called `name`: no sign-in, every token revoked, its
/// open games cancelled or left, its seats in running games forfeited.
pub fn suspend(
    db: &Db,
    cache: &FoldCache,
    user: &AuthUser,
    name: &str,
    reason: &str,
    now: i64,
) -> Result<(), ApiError> {
    let reason = checked_reason(reason)?;
    let account_id = db.write(|conn| {
        require_moderator(conn, user)?;
        let account = find_account(conn, name)?;
        if account.id == user.account_id {
            return Err(ApiError::conflict(
                "cannot_suspend_yourself",
                "a moderator cannot suspend their own account",
            ));
        }
        stored::set_suspended(conn, &account.id, Some(now))?;
        store::revoke_tokens(conn, &account.id, None)?;
        Action {
            account_id: Some(account.id.clone()),
            ..on("suspend")
        }
        .logged(conn, Some(user), reason, now)?;
        Ok::<_, ApiError>(account.id)
    })?;
    leave_every_game(db, cache, &account_id, now)
}

/// A suspended account leaves its games: the open ones it created are cancelled, its seats
/// in others' open games freed, its seats in running games forfeited. Each game in a
/// transaction of its own, tried again when a move got there first.
fn leave_every_game(
    db: &Db,
    cache: &FoldCache,
    account_id: &str,
    now: i64,
) -> Result<(), ApiError> {
    let played = db.read(|conn| store::games_played_by(conn, account_id))?;
    for game in played {
        match game.status {
            GameStatus::Open => db.write(|conn| {
                let loaded = LoadedGame::load(conn, &game.game_id)?;
                if loaded.game.created_by == account_id {
                    if store::cancel_open_game(conn, &game.game_id, CancelReason::Suspended, now)? {
                        super::lobby::notify_cancelled(conn, &game.game_id, Some(account_id), now)?;
                    }
                } else if store::lock_open_game(conn, &game.game_id, now)? {
                    store::leave_seat(conn, &game.game_id, account_id)?;
                }
                Ok::<_, ApiError>(())
            })?,
            GameStatus::Running => {
                super::referee::forfeit_suspended(db, cache, &game.game_id, account_id, now)?
            }
            _ => {}
        }
    }
    Ok(())
}

/// A moderator lifts the suspension of the account called `name`; it signs in again (its
/// forfeited seats stay forfeited).
pub fn unsuspend(
    db: &Db,
    user: &AuthUser,
    name: &str,
    reason: &str,
    now: i64,
) -> Result<(), ApiError> {
    let reason = checked_reason(reason)?;
    db.write(|conn| {
        require_moderator(conn, user)?;
        let account = find_account(conn, name)?;
        stored::set_suspended(conn, &account.id, None)?;
        Action {
            account_id: Some(account.id),
            ..on("unsuspend")
        }
        .logged(conn, Some(user), reason, now)?;
        Ok(())
    })
}

/// The audit log for a moderator: entries after `after`, oldest first.
pub fn audit_log(
    db: &Db,
    user: &AuthUser,
    after: i64,
    limit: i64,
) -> Result<Vec<LoggedEntry>, ApiError> {
    db.read(|conn| {
        require_moderator(conn, user)?;
        Ok(stored::log_after(conn, after, limit)?)
    })
}

/// An operator makes the account called `name` a moderator (or, with `moderator` false, a
/// player again), from the command line; logged without a moderator.
pub fn grant(db: &Db, name: &str, moderator: bool, reason: &str, now: i64) -> Result<(), ApiError> {
    let reason = checked_reason(reason)?;
    db.write(|conn| {
        let account = find_account(conn, name)?;
        stored::set_moderator(conn, &account.id, moderator)?;
        Action {
            account_id: Some(account.id),
            ..on(if moderator {
                "grant_moderator"
            } else {
                "revoke_moderator"
            })
        }
        .logged(conn, None, reason, now)?;
        Ok(())
    })
}

/// Refuses a chat message from an account whose chat is muted (403 `chat_muted`).
pub(super) fn check_not_muted(
    conn: &mut DbConnection,
    account_id: &str,
    now: i64,
) -> Result<(), ApiError> {
    let muted_until =
        stored::standing_of(conn, account_id)?.and_then(|standing| standing.chat_muted_until);
    match muted_until {
        Some(until) if until > now => Err(ApiError::forbidden(
            "chat_muted",
            format!(
                "a moderator muted your chat until {}",
                super::format_time(until)
            ),
        )),
        _ => Ok(()),
    }
}

/// Refuses a sign-in to a suspended account (403 `account_suspended`).
pub(super) fn check_not_suspended(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<(), ApiError> {
    match stored::standing_of(conn, account_id)? {
        Some(standing) if standing.suspended_at.is_some() => Err(ApiError::forbidden(
            "account_suspended",
            "a moderator suspended this account",
        )),
        _ => Ok(()),
    }
}
