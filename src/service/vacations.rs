//! Vacations: a player's clocks stand still in every game while they are away, within a
//! yearly allowance of days. The account says who is away until when; each running game
//! follows it at its next append, which writes `vacation_started` or `vacation_ended` with
//! the clock event it causes (see `LoadedGame::append_described_after`), so the log
//! explains every deadline. Starting or ending a vacation appends to each of the player's
//! games at once; the deadline task appends to any game still out of step (a vacation that
//! ran out, an instance that died in between) on every pass.

use super::fold_cache::FoldCache;
use super::{GameStatus, LoadedGame};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::store::vacations::{self, VacationState};
use crate::store::{self, Db, DbConnection, StoreError};

/// The most days one vacation the player starts may last.
pub const MOST_DAYS: i64 = 60;
/// How many games out of step one pass of the deadline task brings in line at most.
const GAMES_PER_PASS: i64 = 200;

/// The vacation days each account has per calendar year (UTC).
#[derive(Debug, Clone, Copy)]
pub struct Allowance {
    pub days_per_year: i64,
}

pub fn state(db: &Db, account_id: &str, now: i64) -> Result<VacationState, ApiError> {
    Ok(db.read(|conn| vacations::state(conn, account_id, now))?)
}

/// Starts a vacation of `days` days now, and stops the player's clocks in every game.
pub fn start(
    db: &Db,
    cache: &FoldCache,
    allowance: Allowance,
    user: &AuthUser,
    days: i64,
    now: i64,
) -> Result<VacationState, ApiError> {
    db.write(|conn| {
        let current = vacations::state(conn, &user.account_id, now)?;
        if current.until.is_some() {
            return Err(ApiError::conflict(
                "already_on_vacation",
                "you are on vacation already: end it first to start another",
            ));
        }
        let left = allowance.days_per_year - current.days_used;
        if days > left {
            return Err(ApiError::conflict(
                "no_vacation_days",
                format!("{left} vacation days are left this year"),
            ));
        }
        vacations::start(conn, &user.account_id, now, days, false)?;
        Ok(())
    })?;
    bring_in_step(db, cache, Some(&user.account_id), now);
    state(db, &user.account_id, now)
}

/// Ends the player's vacation now: the clocks run again on their turns, with the time they
/// had left.
pub fn end(
    db: &Db,
    cache: &FoldCache,
    user: &AuthUser,
    now: i64,
) -> Result<VacationState, ApiError> {
    db.write(|conn| {
        if vacations::state(conn, &user.account_id, now)?
            .until
            .is_none()
        {
            return Err(ApiError::conflict(
                "not_on_vacation",
                "you are not on vacation",
            ));
        }
        vacations::end(conn, &user.account_id, now)?;
        Ok(())
    })?;
    bring_in_step(db, cache, Some(&user.account_id), now);
    state(db, &user.account_id, now)
}

pub fn set_automatic(
    db: &Db,
    user: &AuthUser,
    automatic: bool,
    now: i64,
) -> Result<VacationState, ApiError> {
    db.write(|conn| {
        vacations::set_automatic(conn, &user.account_id, automatic)?;
        Ok(vacations::state(conn, &user.account_id, now)?)
    })
}

/// Starts a day of vacation for an account whose deadline passed, if it chose so and has a
/// day left; in the caller's transaction. Whether it did.
pub(super) fn start_automatic_day(
    conn: &mut DbConnection,
    allowance: Allowance,
    account_id: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let current = vacations::state(conn, account_id, now)?;
    if !current.automatic || current.until.is_some() || current.days_used >= allowance.days_per_year
    {
        return Ok(false);
    }
    vacations::start(conn, account_id, now, 1, true)?;
    Ok(true)
}

/// Appends to each running game (of `account_id`, or any) whose seats do not follow their
/// players' vacations, so they do; how many it appended to. A game that fails is left for
/// the next pass.
pub fn bring_in_step(db: &Db, cache: &FoldCache, account_id: Option<&str>, now: i64) -> usize {
    let games = match db.read_without_transaction(|conn| {
        vacations::games_out_of_step(conn, account_id, now, GAMES_PER_PASS)
    }) {
        Ok(games) => games,
        Err(error) => {
            tracing::warn!(%error, "looking for games out of step with vacations failed");
            return 0;
        }
    };
    let mut appended = 0;
    for game_id in games {
        match db.write(|conn| follow_vacations(conn, cache, &game_id, now)) {
            Ok(true) => appended += 1,
            Ok(false) => {}
            Err(error) => {
                tracing::warn!(%error, game_id, "bringing a game in step with vacations failed")
            }
        }
    }
    appended
}

/// Appends what the game's seats need to follow their players' vacations, if anything;
/// whether it did.
pub(super) fn follow_vacations(
    conn: &mut DbConnection,
    cache: &FoldCache,
    game_id: &str,
    now: i64,
) -> Result<bool, ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    if game.game.status != GameStatus::Running {
        return Ok(false);
    }
    // The deadline task reads its clock before its pass; a vacation started meanwhile must
    // stop the clocks with the time left when it started, not when the pass began.
    let players: Vec<&str> = game
        .seats
        .iter()
        .filter_map(|taken| taken.account_id.as_deref())
        .collect();
    let now = vacations::latest_change(conn, &players)?.map_or(now, |changed| now.max(changed));
    let mut table = game.table_at(conn, cache, game.game.current_seq)?;
    let append = game.append_after(table.as_mut(), Vec::new(), None, &[], now, None)?;
    if append.events.is_empty() {
        return Ok(false);
    }
    match store::append(conn, &append) {
        Ok(_) => Ok(true),
        // Another writer appended first; its append followed the vacations already.
        Err(StoreError::StaleSeq { .. }) => Ok(false),
        Err(other) => Err(other.into()),
    }
}
