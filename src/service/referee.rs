//! What happens in a game without a request: a deadline passes, a bot must move, an open
//! game waits too long. Each step is one guarded append like a player's action, so several
//! instances doing the same round never record anything twice: the second finds the game's
//! seq moved on and lets it be.

use serde_json::json;

use super::fold_cache::FoldCache;
use super::play::decide;
use super::{GameStatus, LoadedGame};
use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::games::bot_rng_for;
use crate::games::bots::choose_action;
use crate::games::server_events::{Forfeit, ForfeitReason};
use crate::store::{self, ActionRow, CancelReason, Db, DbConnection, StoreError};

/// How long after a deadline the timeout is recorded: a move sent just before the deadline
/// has this long to commit first.
pub const TIMEOUT_GRACE_MS: i64 = 2_000;

/// What one append outside a player's action did: the game's new seq, and whether it ended
/// the game.
pub struct Appended {
    pub seq: i64,
    pub finished: bool,
}

/// Appends the forfeit of `forfeiting` to the game as loaded, guarded by its seq; `None`
/// when another writer got there first.
fn append_forfeits(
    conn: &mut DbConnection,
    cache: &FoldCache,
    game: &LoadedGame,
    forfeiting: &[Forfeit],
    now: i64,
) -> Result<Option<Appended>, ApiError> {
    let mut table = game.state_at(conn, cache, game.game.current_seq)?;
    let append = game.append_after(table.as_mut(), Vec::new(), None, forfeiting, now, None)?;
    match store::append(conn, &append) {
        Ok(seq) => Ok(Some(Appended {
            seq,
            finished: append.status == GameStatus::Finished,
        })),
        Err(StoreError::StaleSeq { .. }) => Ok(None),
        Err(other) => Err(other.into()),
    }
}

/// The caller resigns their seat: in a two-player game the other seat wins at once; with
/// more players a bot plays the seat on and it ranks last.
pub fn resign(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    now: i64,
) -> Result<LoadedGame, ApiError> {
    db.write(|conn| {
        let game = LoadedGame::load(conn, game_id)?;
        let seat = game.seat_row_of(user).ok_or_else(|| {
            ApiError::forbidden("not_a_player", "only a seated player can resign")
        })?;
        match game.game.status {
            GameStatus::Running => {}
            GameStatus::Open => {
                return Err(ApiError::conflict(
                    "game_not_started",
                    "an open game is left, not resigned: POST /v1/games/{id}/leave",
                ))
            }
            GameStatus::Finished | GameStatus::Cancelled => {
                return Err(ApiError::conflict("game_finished", "the game is over"))
            }
        }
        if seat.forfeit.is_some() {
            return Err(ApiError::conflict(
                "seat_forfeited",
                "your seat has already left the game",
            ));
        }
        let forfeiting = [Forfeit {
            seat: seat.seat,
            reason: ForfeitReason::Resigned,
        }];
        append_forfeits(conn, cache, &game, &forfeiting, now)?
            .ok_or_else(|| ApiError::stale_seq(game.game.current_seq))?;
        LoadedGame::load(conn, game_id)
    })
}

/// Records, at `now`, the timeout of every seat of `game_id` whose deadline is at least
/// [`TIMEOUT_GRACE_MS`] past.
pub fn record_timeouts(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    now: i64,
) -> Result<Option<Appended>, ApiError> {
    let late_by = now - TIMEOUT_GRACE_MS;
    db.write(|conn| {
        let game = LoadedGame::load(conn, game_id)?;
        if game.game.status != GameStatus::Running {
            return Ok(None);
        }
        let late: Vec<Forfeit> = game
            .seats
            .iter()
            .filter(|taken| taken.bot.is_none() && taken.forfeit.is_none())
            .filter(|taken| {
                taken
                    .clock
                    .deadline_ms
                    .is_some_and(|deadline| deadline <= late_by)
            })
            .map(|taken| Forfeit {
                seat: taken.seat,
                reason: ForfeitReason::TimedOut,
            })
            .collect();
        if late.is_empty() {
            return Ok(None);
        }
        append_forfeits(conn, cache, &game, &late, now)
    })
}

/// Plays one move for the first bot that must act in `game_id`, if any. The bot thinks
/// outside any transaction; its move is appended only if the game has not moved since.
pub fn play_bot_move(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    now: impl Fn() -> i64,
) -> Result<Option<Appended>, ApiError> {
    let thinking = db.read(|conn| {
        let game = LoadedGame::load(conn, game_id)?;
        if game.game.status != GameStatus::Running {
            return Ok(None);
        }
        let Some(&(seat, bot)) = game.bots_to_act().first() else {
            return Ok(None);
        };
        let table = game.state_at(conn, cache, game.game.current_seq)?;
        Ok::<_, ApiError>(Some((game, table, seat, bot)))
    })?;
    let Some((game, table, seat, bot)) = thinking else {
        return Ok(None);
    };
    let seq = game.game.current_seq;
    let mut rng = bot_rng_for(game.game.seed, (seq + 1) as u64);
    let action = choose_action(bot, game.rules, table.as_ref(), seat, &mut rng);
    let now = now();
    let written = db.write(|conn| {
        let game = LoadedGame::load(conn, game_id)?;
        if game.game.current_seq != seq || game.game.status != GameStatus::Running {
            return Ok(None);
        }
        let mut table = game.state_at(conn, cache, seq)?;
        let (action, events) = decide(&game, table.as_ref(), seat, &action)?;
        let bot_name = bot.as_str();
        let row = ActionRow {
            game_id: game_id.to_owned(),
            first_seq: seq + 1,
            last_seq: seq + events.len() as i64,
            seat: i32::from(seat),
            account_id: None,
            action: action.to_string(),
            idempotency_key: None,
            request: json!({"bot": bot_name, "action": action}).to_string(),
            created_at: now,
            bot: Some(bot_name.to_owned()),
        };
        let append = game.append_after(table.as_mut(), events, Some(seat), &[], now, Some(row))?;
        match store::append(conn, &append) {
            Ok(new_seq) => Ok(Some((
                Appended {
                    seq: new_seq,
                    finished: append.status == GameStatus::Finished,
                },
                game.game,
                table,
            ))),
            Err(StoreError::StaleSeq { .. }) => Ok(None),
            Err(other) => Err(ApiError::from(other)),
        }
    })?;
    Ok(written.map(|(appended, game, table)| {
        cache.put(&game.id, game.rules_version, appended.seq, table.as_ref());
        appended
    }))
}

/// Cancels the open games created before `created_before`; returns their ids.
pub fn expire_open_games(db: &Db, created_before: i64, now: i64) -> Result<Vec<String>, ApiError> {
    let candidates = db.read(|conn| store::open_games_created_before(conn, created_before, 50))?;
    let mut expired = Vec::new();
    for id in candidates {
        let cancelled = db.write(|conn| {
            let cancelled = store::cancel_open_game(conn, &id, CancelReason::Expired, now)?;
            if cancelled {
                super::lobby::notify_cancelled(conn, &id, None, now)?;
            }
            Ok::<_, ApiError>(cancelled)
        })?;
        if cancelled {
            expired.push(id);
        }
    }
    Ok(expired)
}
