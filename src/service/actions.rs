//! Acting in a game: an action (or its preview) decided against the log as it stands, its
//! events appended under the seq guard, and the answer the actor gets.

use serde_json::Value;

use super::fold_cache::{Fold, FoldCache};
use super::play::{
    deadlines_after, deadlines_at, describe_appended, describe_log, require_started, seat_names,
    view_at, Accepted, DescribedEvent, FromLog, GameReads, ViewAt, ViewJson,
};
use super::{format_time, GameStatus, LoadedGame};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::engine::{Seat, Viewer};
use crate::games::server_events::{ForfeitReason, ServerEvent};
use crate::games::take_back::{TakeBackBarrier, Taker};
use crate::games::{rng_for, ActionError, RecordedEvent, Table};
use crate::store::{self, ActionRow, Append, Db, DbConnection, StoreError};

pub struct ActionRequest {
    pub expected_seq: i64,
    pub seat: Option<u8>,
    pub action: Value,
    pub idempotency_key: Option<String>,
    /// The request body as received, to tell a retry from a different request.
    pub body: Value,
}

/// Checks and applies one action: everything it appends is appended in one transaction
/// guarded by `expected_seq`, or nothing is.
///
/// The action is checked and its events decided before the write transaction, which holds
/// only the append: SQLite's one writer is not kept waiting on the engine, and since the
/// append is guarded by the seq the decision was made at, a game that moved on in between
/// refuses it as it would have refused the request.
pub fn act(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    request: &ActionRequest,
    now: i64,
) -> Result<Accepted, ApiError> {
    let decided = match db
        .read_without_transaction(|conn| decide_action(conn, cache, game_id, user, request, now))?
    {
        Decision::Answered(accepted) => return Ok(*accepted),
        Decision::Append(decided) => *decided,
    };
    let seq = match db.append(&decided.append) {
        Ok(seq) => seq,
        // A retry racing its own first attempt loses the guard to it, which has committed
        // by then (the guard waited for it); the retry returns the winner's result, not a
        // conflict.
        Err(StoreError::StaleSeq { current }) => {
            return db.read_without_transaction(|conn| {
                match first_attempt(conn, game_id, user, request)? {
                    Some(first) => {
                        replay_result(conn, &decided.game, &first, request, decided.seat)
                    }
                    None => Err(ApiError::stale_seq(current)),
                }
            })
        }
        Err(other) => return Err(other.into()),
    };
    accepted(cache, decided, seq)
}

/// The answer to the `decided` action, committed at `seq`.
pub(super) fn accepted(
    cache: &FoldCache,
    decided: Decided,
    seq: i64,
) -> Result<Accepted, ApiError> {
    let Decided {
        game,
        seat,
        table,
        append,
        described,
    } = decided;
    let events = describe_appended(&append, described)?;
    Ok(appended(cache, game, &append, seq, table, seat, events))
}

/// The answer to `append`, committed at `seq` for `seat`: its `events` as described, and
/// the seat's view of `table`, the fold after it, which the cache keeps from now on.
pub(super) fn appended(
    cache: &FoldCache,
    game: LoadedGame,
    append: &Append,
    seq: i64,
    table: Box<dyn Table>,
    seat: Seat,
    events: Vec<DescribedEvent>,
) -> Accepted {
    let viewer = Viewer::Seat(seat);
    let deadlines = deadlines_after(&game, append);
    let mut after = game;
    after.game.current_seq = seq;
    after.game.status = append.status;
    // Only now is the append committed, so only now may its fold be kept, with the actor's
    // view written from it.
    let fold = Fold::new(seq, table);
    cache.put(&after.game.id, after.game.rules_version, &fold);
    let view = ViewJson::cached(cache, &after, &fold, viewer);
    Accepted {
        seq,
        events,
        view: view_at(&after, fold.table.as_ref(), seq, viewer, deadlines, view),
        appended: true,
    }
}

/// What a request to act comes to before anything is written.
enum Decision {
    /// An earlier attempt with the same idempotency key already appended: its result.
    Answered(Box<Accepted>),
    Append(Box<Decided>),
}

/// An action checked and decided: what to append, and the state after it.
pub(super) struct Decided {
    game: LoadedGame,
    seat: Seat,
    /// The fold after the new events.
    table: Box<dyn Table>,
    pub(super) append: Append,
    /// The new engine events as the actor sees them.
    described: Vec<(Value, String)>,
}

fn decide_action(
    conn: &mut DbConnection,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    request: &ActionRequest,
    now: i64,
) -> Result<Decision, ApiError> {
    let game = LoadedGame::load_for(conn, game_id, user)?;
    let seat = acting_seat(&game, user, request)?;
    if let Some(first) = first_attempt(conn, game_id, user, request)? {
        let replayed = replay_result(conn, &game, &first, request, seat)?;
        return Ok(Decision::Answered(Box::new(replayed)));
    }
    let decided =
        decide_first_attempt(&mut FromLog { conn, cache }, game, seat, user, request, now)?;
    Ok(Decision::Append(Box::new(decided)))
}

/// `request`, the first attempt of its idempotency key, by `seat` decided: what to append.
pub(super) fn decide_first_attempt<R: GameReads>(
    reads: &mut R,
    game: LoadedGame,
    seat: Seat,
    user: &AuthUser,
    request: &ActionRequest,
    now: i64,
) -> Result<Decided, R::Error> {
    let (mut table, action, events) = decide_now(reads, &game, seat, request, now)?;
    let current_seq = game.game.current_seq;
    let action_row = ActionRow {
        game_id: game.game.id.clone(),
        first_seq: current_seq + 1,
        last_seq: current_seq + events.len() as i64,
        seat: i32::from(seat),
        account_id: Some(user.account_id.clone()),
        action: action.to_string(),
        idempotency_key: request.idempotency_key.clone(),
        request: request.body.to_string(),
        created_at: now,
        bot: None,
    };
    let (append, described) = game.append_described_after(
        table.as_mut(),
        events,
        Some(seat),
        &[],
        now,
        Some(action_row),
        Some(Viewer::Seat(seat)),
    )?;
    Ok(Decided {
        game,
        seat,
        table,
        append,
        described,
    })
}

/// An action tried without writing anything: what posting it would append and the acting
/// seat's view after it.
#[derive(Debug)]
pub struct Preview {
    pub view: ViewAt,
    /// The events posting the action would append (the engine's, then the server's: clocks,
    /// the game's end), as the acting seat would see them.
    pub events: Vec<DescribedEvent>,
    /// `false` when the preview stops before an event that would reveal something hidden or
    /// random (a draw, a roll): that is decided only when the action is posted, so the
    /// events and the view end just before it.
    pub complete: bool,
    /// The game's seat names, for a picture of the previewed board.
    pub seat_names: Vec<Option<String>>,
}

/// What posting `request` would do, checked exactly as [`act`] checks it (the same refusals)
/// but with nothing written, no idempotency key consulted, and nothing hidden or random
/// revealed.
pub fn preview(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    request: &ActionRequest,
    now: i64,
) -> Result<Preview, ApiError> {
    db.read_without_transaction(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        let seat = acting_seat(&game, user, request)?;
        let (mut table, _, mut events) =
            decide_now(&mut FromLog { conn, cache }, &game, seat, request, now)?;
        let current_seq = game.game.current_seq;
        let schema_version = game.rules.event_schema_version();
        let taker = Taker {
            seat,
            rules_version: game.game.rules_version,
        };
        let mut shown = 0;
        for event in &events {
            let barrier =
                game.rules
                    .take_back_barrier(&event.payload.to_string(), schema_version, taker)?;
            if barrier == Some(TakeBackBarrier::Reveals) {
                break;
            }
            shown += 1;
        }
        let complete = shown == events.len();
        events.truncate(shown);
        let viewer = Viewer::Seat(seat);
        let (append, described) = game.append_described_after(
            table.as_mut(),
            events,
            Some(seat),
            &[],
            now,
            None,
            Some(viewer),
        )?;
        let events = describe_appended(&append, described)?;
        let seq = current_seq + events.len() as i64;
        let deadlines = deadlines_after(&game, &append);
        let view = ViewJson::of(table.as_ref(), viewer);
        Ok(Preview {
            view: view_at(&game, table.as_ref(), seq, viewer, deadlines, view),
            events,
            complete,
            seat_names: seat_names(&game),
        })
    })
}

/// The state an action was decided on, the action as the engine reads it, and its events.
type DecidedNow = (Box<dyn Table>, Value, Vec<RecordedEvent>);

/// `request` by `seat` checked against the game now (running, at `expected_seq`, the seat
/// in play) and decided: the state it was decided on, the action as the engine reads it,
/// and its events. Posting and previewing refuse alike because both come through here.
fn decide_now<R: GameReads>(
    reads: &mut R,
    game: &LoadedGame,
    seat: Seat,
    request: &ActionRequest,
    now: i64,
) -> Result<DecidedNow, R::Error> {
    require_running(game)?;
    let current_seq = game.game.current_seq;
    if request.expected_seq != current_seq {
        return Err(ApiError::stale_seq(current_seq).into());
    }
    require_in_play(game, seat, now)?;
    let table = reads.table_at(game, current_seq)?;
    let (action, events) = decide(game, table.as_ref(), seat, &request.action)?;
    Ok((table, action, events))
}

/// Refuses a game that is not being played.
pub(super) fn require_running(game: &LoadedGame) -> Result<(), ApiError> {
    match game.game.status {
        GameStatus::Running => Ok(()),
        GameStatus::Finished => Err(ApiError::conflict("game_finished", "the game is over")),
        GameStatus::Cancelled => Err(ApiError::conflict(
            "game_cancelled",
            "the game was cancelled before it started",
        )),
        GameStatus::Abandoned => Err(ApiError::conflict(
            "game_abandoned",
            "every player agreed to abandon the game",
        )),
        GameStatus::Open => require_started(game),
    }
}

/// Refuses a seat a bot plays now, and a seat whose deadline has passed (the referee records
/// the timeout on its next round; a move that came before the deadline has won already).
pub(super) fn require_in_play(game: &LoadedGame, seat: Seat, now: i64) -> Result<(), ApiError> {
    let Some(taken) = game.seats.iter().find(|taken| taken.seat == seat) else {
        return Ok(());
    };
    if let Some(reason) = taken.forfeit {
        return Err(ApiError::conflict(
            "seat_forfeited",
            format!(
                "your seat {} and a bot plays it now",
                match reason {
                    ForfeitReason::Resigned => "resigned",
                    ForfeitReason::TimedOut => "ran out of time",
                    ForfeitReason::Suspended => "was suspended",
                }
            ),
        ));
    }
    if taken.bot.is_some() {
        return Err(ApiError::conflict("bot_seat", "a bot plays this seat"));
    }
    if let Some(deadline) = taken.clock.deadline_ms.filter(|deadline| *deadline <= now) {
        return Err(ApiError::conflict(
            "deadline_passed",
            format!(
                "your deadline was {}; the timeout is being recorded",
                format_time(deadline)
            ),
        ));
    }
    Ok(())
}

/// The caller's seat, which must be the one the request names, if it names one.
pub(super) fn acting_seat(
    game: &LoadedGame,
    user: &AuthUser,
    request: &ActionRequest,
) -> Result<Seat, ApiError> {
    let seat = game.seat_of(user).ok_or_else(|| {
        ApiError::forbidden("not_a_player", "only a seated player can act in this game")
    })?;
    match request.seat {
        Some(claimed) if claimed != seat => Err(ApiError::forbidden(
            "not_your_seat",
            format!("seat {claimed} is not yours; you sit at seat {seat}"),
        )),
        _ => Ok(seat),
    }
}

/// The action already stored under the request's idempotency key, if any.
fn first_attempt(
    conn: &mut DbConnection,
    game_id: &str,
    user: &AuthUser,
    request: &ActionRequest,
) -> Result<Option<ActionRow>, ApiError> {
    match &request.idempotency_key {
        Some(key) => Ok(store::find_action_by_key(
            conn,
            game_id,
            &user.account_id,
            key,
        )?),
        None => Ok(None),
    }
}

/// The engine's verdict on `action` by `seat` at the table's state: the action as the
/// engine reads it and the events it causes (at least one), or why not.
pub(super) fn decide(
    game: &LoadedGame,
    table: &dyn Table,
    seat: Seat,
    action: &Value,
) -> Result<(Value, Vec<RecordedEvent>), ApiError> {
    if !table.to_act().contains(&seat) {
        return Err(ApiError::conflict(
            "not_your_turn",
            "your seat does not have to act now",
        ));
    }
    let mut rng = rng_for(game.game.seed, (game.game.current_seq + 1) as u64);
    let (action, events) = table
        .decide(seat, action, &mut rng)
        .map_err(|error| match error {
            ActionError::Malformed(message) => ApiError::unprocessable(
                "malformed_action",
                format!("not a {} action: {message}", game.rules.name()),
            ),
            ActionError::Rule(rule) => rule.into(),
        })?;
    if events.is_empty() {
        return Err(ApiError::Internal(format!(
            "{} accepted an action without any event",
            game.rules.kind()
        )));
    }
    Ok((action, events))
}

/// The result of the action first posted with this idempotency key, rebuilt from the log.
fn replay_result(
    conn: &mut DbConnection,
    game: &LoadedGame,
    first: &ActionRow,
    request: &ActionRequest,
    seat: Seat,
) -> Result<Accepted, ApiError> {
    let first_body: Value = serde_json::from_str(&first.request)
        .map_err(|error| ApiError::Internal(format!("stored request is corrupt: {error}")))?;
    if first_body != request.body {
        return Err(ApiError::unprocessable(
            "idempotency_key_reused",
            "this Idempotency-Key was already used with a different request",
        ));
    }
    // Everything stored now: `game` may have been read before the first attempt committed.
    let events = game.load_events(conn, i64::MAX)?;
    let start = events
        .iter()
        .position(|event| event.seq >= first.first_seq)
        .unwrap_or(events.len());
    // The action's append went on past its own events with the clock events they caused;
    // the next append starts with an engine event or a forfeit, never a clock event.
    let end = events[start..]
        .iter()
        .position(|event| {
            event.seq > first.last_seq
                && !(event.is_server_event() && ServerEvent::is_clock_event(&event.event_type))
        })
        .map_or(events.len(), |offset| start + offset);
    let seq = events[..end]
        .last()
        .map_or(first.last_seq, |event| event.seq);
    let viewer = Viewer::Seat(seat);
    let (table, described) = describe_log(
        game.empty_table()?,
        &events[..end],
        first.first_seq - 1,
        viewer,
    )?;
    let deadlines = deadlines_at(conn, game, seq)?;
    let view = ViewJson::of(table.as_ref(), viewer);
    Ok(Accepted {
        seq,
        events: described,
        view: view_at(game, table.as_ref(), seq, viewer, deadlines, view),
        appended: false,
    })
}
