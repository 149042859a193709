//! Blocks between accounts, reports, accounts' standing (role, chat mute, suspension) and
//! the moderators' audit log.

use diesel::prelude::*;

use super::schema::{accounts, blocks, game_invitations, games, moderation_log, reports};
use super::{on_backend, DbConnection, GameStatus, StoreError};

/// What an account may do beyond playing, and what it may not any more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountStanding {
    pub moderator: bool,
    /// Writes no chat until then.
    pub chat_muted_until: Option<i64>,
    /// Suspended since then: no sign-in.
    pub suspended_at: Option<i64>,
}

/// The standing of account `account_id`, if there is one.
pub fn standing_of(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<Option<AccountStanding>, StoreError> {
    let row: Option<(String, Option<i64>, Option<i64>)> = accounts::table
        .find(account_id)
        .select((
            accounts::role,
            accounts::chat_muted_until,
            accounts::suspended_at,
        ))
        .first(conn)
        .optional()?;
    Ok(
        row.map(|(role, chat_muted_until, suspended_at)| AccountStanding {
            moderator: role == "moderator",
            chat_muted_until,
            suspended_at,
        }),
    )
}

/// Makes the account a moderator, or a player again.
pub fn set_moderator(
    conn: &mut DbConnection,
    account_id: &str,
    moderator: bool,
) -> Result<(), StoreError> {
    diesel::update(accounts::table.find(account_id))
        .set(accounts::role.eq(if moderator { "moderator" } else { "player" }))
        .execute(conn)?;
    Ok(())
}

/// Mutes the account's chat until `until` (`None`: lifts a mute).
pub fn set_chat_muted_until(
    conn: &mut DbConnection,
    account_id: &str,
    until: Option<i64>,
) -> Result<(), StoreError> {
    diesel::update(accounts::table.find(account_id))
        .set(accounts::chat_muted_until.eq(until))
        .execute(conn)?;
    Ok(())
}

/// Suspends the account from `since` (`None`: lifts a suspension).
pub fn set_suspended(
    conn: &mut DbConnection,
    account_id: &str,
    since: Option<i64>,
) -> Result<(), StoreError> {
    diesel::update(accounts::table.find(account_id))
        .set(accounts::suspended_at.eq(since))
        .execute(conn)?;
    Ok(())
}

/// `account_id` blocks `blocked_id`; false when it did already. The invitations standing
/// between the two (to each other's open games) are declined with it.
pub fn block(
    conn: &mut DbConnection,
    account_id: &str,
    blocked_id: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let insert = diesel::insert_into(blocks::table)
        .values((
            blocks::account_id.eq(account_id),
            blocks::blocked_id.eq(blocked_id),
            blocks::created_at.eq(now),
        ))
        .on_conflict_do_nothing();
    let inserted = on_backend!(&mut *conn, |c| insert.execute(c))?;
    for (creator, invitee) in [(account_id, blocked_id), (blocked_id, account_id)] {
        let open_games_of_creator = games::table
            .filter(games::created_by.eq(creator.to_owned()))
            .filter(games::status.eq(GameStatus::Open.as_str()))
            .select(games::id);
        diesel::update(
            game_invitations::table
                .filter(game_invitations::account_id.eq(invitee))
                .filter(game_invitations::declined_at.is_null())
                .filter(game_invitations::game_id.eq_any(open_games_of_creator)),
        )
        .set(game_invitations::declined_at.eq(now))
        .execute(conn)?;
    }
    Ok(inserted == 1)
}

/// `account_id` no longer blocks `blocked_id`; false when it did not.
pub fn unblock(
    conn: &mut DbConnection,
    account_id: &str,
    blocked_id: &str,
) -> Result<bool, StoreError> {
    Ok(diesel::delete(blocks::table.find((account_id, blocked_id))).execute(conn)? == 1)
}

/// An account someone blocked, with when.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    pub account_id: String,
    pub name: String,
    /// The name as the list is ordered by.
    pub name_key: String,
    pub since: i64,
}

/// The accounts `account_id` blocks, by name: at most `limit`, after the name key
/// `after_name_key`.
pub fn blocked_by(
    conn: &mut DbConnection,
    account_id: &str,
    after_name_key: Option<&str>,
    limit: i64,
) -> Result<Vec<Blocked>, StoreError> {
    let mut query = blocks::table
        .inner_join(accounts::table.on(accounts::id.eq(blocks::blocked_id)))
        .filter(blocks::account_id.eq(account_id))
        .into_boxed();
    if let Some(after) = after_name_key {
        query = query.filter(accounts::name_key.gt(after.to_owned()));
    }
    let rows: Vec<(String, String, String, i64)> = query
        .order(accounts::name_key.asc())
        .limit(limit)
        .select((
            blocks::blocked_id,
            accounts::name,
            accounts::name_key,
            blocks::created_at,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(account_id, name, name_key, since)| Blocked {
            account_id,
            name,
            name_key,
            since,
        })
        .collect())
}

/// Whether either of the two accounts blocks the other.
pub fn blocked_either_way(conn: &mut DbConnection, a: &str, b: &str) -> Result<bool, StoreError> {
    let found: i64 = blocks::table
        .filter(
            blocks::account_id
                .eq(a)
                .and(blocks::blocked_id.eq(b))
                .or(blocks::account_id.eq(b).and(blocks::blocked_id.eq(a))),
        )
        .count()
        .get_result(conn)?;
    Ok(found > 0)
}

/// Which of `accounts` block `author`: they hear nothing of what it writes.
pub fn blocking(
    conn: &mut DbConnection,
    author: &str,
    accounts: &[String],
) -> Result<Vec<String>, StoreError> {
    if accounts.is_empty() {
        return Ok(Vec::new());
    }
    Ok(blocks::table
        .filter(blocks::blocked_id.eq(author))
        .filter(blocks::account_id.eq_any(accounts))
        .select(blocks::account_id)
        .load(conn)?)
}

/// Which of `accounts` `reader` blocks.
pub fn blocked_among(
    conn: &mut DbConnection,
    reader: &str,
    accounts: &[String],
) -> Result<Vec<String>, StoreError> {
    if accounts.is_empty() {
        return Ok(Vec::new());
    }
    Ok(blocks::table
        .filter(blocks::account_id.eq(reader))
        .filter(blocks::blocked_id.eq_any(accounts))
        .select(blocks::blocked_id)
        .load(conn)?)
}

/// A report to file.
#[derive(Debug, Clone)]
pub struct NewReport {
    pub reporter_id: String,
    pub account_id: String,
    /// The chat message reported: its game, id and text as it read.
    pub message: Option<(String, i64, String)>,
    pub reason: String,
    pub created_at: i64,
}

/// Files a report; its id.
pub fn insert_report(conn: &mut DbConnection, report: &NewReport) -> Result<i64, StoreError> {
    let (game_id, message_id, message_text) = match &report.message {
        Some((game, id, text)) => (Some(game.clone()), Some(*id), Some(text.clone())),
        None => (None, None, None),
    };
    let insert = diesel::insert_into(reports::table)
        .values((
            reports::reporter_id.eq(&report.reporter_id),
            reports::account_id.eq(&report.account_id),
            reports::game_id.eq(game_id),
            reports::message_id.eq(message_id),
            reports::message_text.eq(message_text),
            reports::reason.eq(&report.reason),
            reports::created_at.eq(report.created_at),
        ))
        .returning(reports::id);
    Ok(on_backend!(conn, |c| insert.get_result(c))?)
}

/// A report as moderators read it, with the names of the accounts it names.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub id: i64,
    pub reporter: (String, String),
    pub account: (String, String),
    pub game_id: Option<String>,
    pub message_id: Option<i64>,
    pub message_text: Option<String>,
    pub reason: String,
    pub created_at: i64,
    pub resolved_at: Option<i64>,
    pub resolved_by: Option<String>,
}

/// Which reports to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportState {
    Open,
    Resolved,
    All,
}

type ReportColumns = (
    i64,
    String,
    String,
    Option<String>,
    Option<i64>,
    Option<String>,
    String,
    i64,
    Option<i64>,
    Option<String>,
);

/// Reports after `after` (by id, oldest first), at most `limit`: those in `state`, about
/// `account_id` when given.
pub fn reports(
    conn: &mut DbConnection,
    state: ReportState,
    account_id: Option<&str>,
    after: i64,
    limit: i64,
) -> Result<Vec<Report>, StoreError> {
    let mut query = reports::table
        .filter(reports::id.gt(after))
        .select((
            reports::id,
            reports::reporter_id,
            reports::account_id,
            reports::game_id,
            reports::message_id,
            reports::message_text,
            reports::reason,
            reports::created_at,
            reports::resolved_at,
            reports::resolved_by,
        ))
        .into_boxed();
    query = match state {
        ReportState::Open => query.filter(reports::resolved_at.is_null()),
        ReportState::Resolved => query.filter(reports::resolved_at.is_not_null()),
        ReportState::All => query,
    };
    if let Some(account_id) = account_id {
        query = query.filter(reports::account_id.eq(account_id.to_owned()));
    }
    let rows: Vec<ReportColumns> = query.order(reports::id.asc()).limit(limit).load(conn)?;
    let mut ids: Vec<String> = rows
        .iter()
        .flat_map(|row| [row.1.clone(), row.2.clone()])
        .collect();
    ids.sort();
    ids.dedup();
    let names: std::collections::HashMap<String, String> = accounts::table
        .filter(accounts::id.eq_any(&ids))
        .select((accounts::id, accounts::name))
        .load::<(String, String)>(conn)?
        .into_iter()
        .collect();
    let named = |id: String| {
        let name = names.get(&id).cloned().unwrap_or_default();
        (id, name)
    };
    Ok(rows
        .into_iter()
        .map(
            |(
                id,
                reporter,
                account,
                game_id,
                message_id,
                message_text,
                reason,
                created_at,
                resolved_at,
                resolved_by,
            )| Report {
                id,
                reporter: named(reporter),
                account: named(account),
                game_id,
                message_id,
                message_text,
                reason,
                created_at,
                resolved_at,
                resolved_by,
            },
        )
        .collect())
}

/// Marks report `id` resolved by `moderator_id`; false when there is no such open report.
pub fn resolve_report(
    conn: &mut DbConnection,
    id: i64,
    moderator_id: &str,
    now: i64,
) -> Result<bool, StoreError> {
    Ok(diesel::update(
        reports::table
            .find(id)
            .filter(reports::resolved_at.is_null()),
    )
    .set((
        reports::resolved_at.eq(now),
        reports::resolved_by.eq(moderator_id),
    ))
    .execute(conn)?
        == 1)
}

/// What a moderator (or, with none, an operator) did, for the audit log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub moderator_id: Option<String>,
    pub action: String,
    pub account_id: Option<String>,
    pub game_id: Option<String>,
    pub message_id: Option<i64>,
    pub report_id: Option<i64>,
    pub reason: String,
    pub until: Option<i64>,
    pub created_at: i64,
}

/// Writes `entry` into the audit log; its id.
pub fn log(conn: &mut DbConnection, entry: &LogEntry) -> Result<i64, StoreError> {
    let insert = diesel::insert_into(moderation_log::table)
        .values((
            moderation_log::moderator_id.eq(&entry.moderator_id),
            moderation_log::action.eq(&entry.action),
            moderation_log::account_id.eq(&entry.account_id),
            moderation_log::game_id.eq(&entry.game_id),
            moderation_log::message_id.eq(entry.message_id),
            moderation_log::report_id.eq(entry.report_id),
            moderation_log::reason.eq(&entry.reason),
            moderation_log::until_at.eq(entry.until),
            moderation_log::created_at.eq(entry.created_at),
        ))
        .returning(moderation_log::id);
    Ok(on_backend!(conn, |c| insert.get_result(c))?)
}

type LogColumns = (
    i64,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<i64>,
    Option<i64>,
    String,
    Option<i64>,
    i64,
);

/// An entry of the audit log as read: its id, and the names of the moderator and of the
/// account it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedEntry {
    pub id: i64,
    pub entry: LogEntry,
    pub moderator_name: Option<String>,
    pub account_name: Option<String>,
}

/// The audit log after entry `after`, oldest first, at most `limit`.
pub fn log_after(
    conn: &mut DbConnection,
    after: i64,
    limit: i64,
) -> Result<Vec<LoggedEntry>, StoreError> {
    let rows: Vec<LogColumns> = moderation_log::table
        .filter(moderation_log::id.gt(after))
        .order(moderation_log::id.asc())
        .limit(limit)
        .select((
            moderation_log::id,
            moderation_log::moderator_id,
            moderation_log::action,
            moderation_log::account_id,
            moderation_log::game_id,
            moderation_log::message_id,
            moderation_log::report_id,
            moderation_log::reason,
            moderation_log::until_at,
            moderation_log::created_at,
        ))
        .load(conn)?;
    let mut ids: Vec<String> = rows
        .iter()
        .flat_map(|row| [row.1.clone(), row.3.clone()])
        .flatten()
        .collect();
    ids.sort();
    ids.dedup();
    let names: std::collections::HashMap<String, String> = accounts::table
        .filter(accounts::id.eq_any(&ids))
        .select((accounts::id, accounts::name))
        .load::<(String, String)>(conn)?
        .into_iter()
        .collect();
    Ok(rows
        .into_iter()
        .map(
            |(
                id,
                moderator_id,
                action,
                account_id,
                game_id,
                message_id,
                report_id,
                reason,
                until,
                created_at,
            )| {
                let moderator_name = moderator_id.as_ref().and_then(|id| names.get(id).cloned());
                let account_name = account_id.as_ref().and_then(|id| names.get(id).cloned());
                LoggedEntry {
                    id,
                    entry: LogEntry {
                        moderator_id,
                        action,
                        account_id,
                        game_id,
                        message_id,
                        report_id,
                        reason,
                        until,
                        created_at,
                    },
                    moderator_name,
                    account_name,
                }
            },
        )
        .collect())
}
