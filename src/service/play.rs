//! Reading a game as one viewer may see it, and acting in it.

use serde_json::Value;

use super::{format_time, LoadedGame, STATUS_FINISHED, STATUS_OPEN, STATUS_RUNNING};
use crate::api::models::{seat_from_stored, ActionAccepted, EventOut, ViewOut};
use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::games::engine::{Seat, Viewer};
use crate::games::{rng_for, ActionError, Table};
use crate::store::{self, ActionRow, DbConnection, StoreError, StoredEvent};

/// The redacted, described form of `events`, which must follow directly on `table`'s state;
/// `table` is advanced past them.
pub fn describe_events(
    table: &mut dyn Table,
    events: &[StoredEvent],
    viewer: Viewer,
) -> Result<Vec<EventOut>, ApiError> {
    let mut described = Vec::with_capacity(events.len());
    for event in events {
        let (payload, text) = table.redact(&event.payload, viewer)?;
        table.apply(&event.payload)?;
        described.push(EventOut {
            seq: event.seq,
            time: format_time(event.created_at),
            seat: seat_from_stored(event.seat),
            event_type: event.event_type.clone(),
            schema_version: u32::try_from(event.schema_version).unwrap_or_default(),
            payload,
            text,
        });
    }
    Ok(described)
}

pub fn view_out(game: &LoadedGame, table: &dyn Table, seq: i64, viewer: Viewer) -> ViewOut {
    ViewOut {
        game_id: game.row.id.clone(),
        kind: game.row.kind.clone(),
        seq,
        viewer_seat: match viewer {
            Viewer::Seat(seat) => Some(seat),
            _ => None,
        },
        to_act: table.to_act(),
        finished: table.outcome().is_some(),
        view: table.view(viewer),
    }
}

fn require_started(game: &LoadedGame) -> Result<(), ApiError> {
    if game.row.status == STATUS_OPEN {
        return Err(ApiError::conflict(
            "game_not_started",
            "the game starts when every seat is taken",
        ));
    }
    Ok(())
}

/// The view at `at` (default: now).
pub fn view(
    conn: &mut DbConnection,
    game_id: &str,
    user: &AuthUser,
    at: Option<i64>,
) -> Result<ViewOut, ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    require_started(&game)?;
    let seq = at.unwrap_or(game.row.current_seq);
    if !(0..=game.row.current_seq).contains(&seq) {
        return Err(ApiError::unprocessable(
            "seq_out_of_range",
            format!("`at` must be between 0 and {}", game.row.current_seq),
        ));
    }
    let table = game.fold(&game.load_events(conn, seq)?)?;
    Ok(view_out(&game, table.as_ref(), seq, game.viewer_for(user)))
}

pub struct LegalActions {
    pub seq: i64,
    pub seat: Option<Seat>,
    pub actions: Vec<Value>,
}

pub fn legal_actions(
    conn: &mut DbConnection,
    game_id: &str,
    user: &AuthUser,
    action_type: Option<&str>,
) -> Result<LegalActions, ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    let seat = game.seat_of(user);
    let seq = game.row.current_seq;
    let actions = match seat {
        Some(seat) if game.row.status == STATUS_RUNNING && game.to_act().contains(&seat) => {
            let table = game.fold(&game.load_events(conn, seq)?)?;
            let mut actions = table.legal_actions(seat);
            if let Some(wanted) = action_type {
                actions.retain(|action| action.get("type").and_then(Value::as_str) == Some(wanted));
            }
            actions
        }
        _ => Vec::new(),
    };
    Ok(LegalActions { seq, seat, actions })
}

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
pub fn act(
    conn: &mut DbConnection,
    game_id: &str,
    user: &AuthUser,
    request: &ActionRequest,
    now: i64,
) -> Result<ActionAccepted, ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    let seat = game.seat_of(user).ok_or_else(|| {
        ApiError::forbidden("not_a_player", "only a seated player can act in this game")
    })?;
    if let Some(claimed) = request.seat {
        if claimed != seat {
            return Err(ApiError::forbidden(
                "not_your_seat",
                format!("seat {claimed} is not yours; you sit at seat {seat}"),
            ));
        }
    }
    if let Some(key) = &request.idempotency_key {
        if let Some(first) = store::find_action_by_key(conn, game_id, &user.account_id, key)? {
            return replay_result(conn, &game, &first, request, seat);
        }
    }
    match game.row.status.as_str() {
        STATUS_RUNNING => {}
        STATUS_FINISHED => return Err(ApiError::conflict("game_finished", "the game is over")),
        _ => require_started(&game)?,
    }
    if request.expected_seq != game.row.current_seq {
        return Err(ApiError::stale_seq(game.row.current_seq));
    }
    let stored = game.load_events(conn, game.row.current_seq)?;
    let mut table = game.fold(&stored)?;
    if !table.to_act().contains(&seat) {
        return Err(ApiError::unprocessable(
            "not_your_turn",
            "your seat does not have to act now",
        ));
    }
    let mut rng = rng_for(game.seed()?, (game.row.current_seq + 1) as u64);
    let (action, events) = table
        .decide(seat, &request.action, &mut rng)
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
    let before = table.clone_table();
    let first_seq = game.row.current_seq + 1;
    let action_row = ActionRow {
        game_id: game_id.to_owned(),
        first_seq,
        last_seq: game.row.current_seq + events.len() as i64,
        seat: i32::from(seat),
        account_id: user.account_id.clone(),
        action: action.to_string(),
        idempotency_key: request.idempotency_key.clone(),
        request: request.body.to_string(),
        created_at: now,
    };
    let append = game.append_after(table.as_mut(), events, Some(seat), now, Some(action_row))?;
    let seq = match store::append(conn, &append) {
        Ok(seq) => seq,
        // A retry racing its own first attempt loses the optimistic lock to it; once the
        // winner has committed, the retry must return the winner's result, not a conflict.
        Err(StoreError::StaleSeq { current }) => {
            let winner = match &request.idempotency_key {
                Some(key) => store::find_action_by_key(conn, game_id, &user.account_id, key)?,
                None => None,
            };
            return match winner {
                Some(first) => replay_result(conn, &game, &first, request, seat),
                None => Err(ApiError::stale_seq(current)),
            };
        }
        Err(other) => return Err(other.into()),
    };
    let appended: Vec<StoredEvent> = append
        .events
        .iter()
        .enumerate()
        .map(|(offset, event)| StoredEvent {
            seq: first_seq + offset as i64,
            created_at: now,
            seat: event.seat,
            event_type: event.event_type.clone(),
            schema_version: event.schema_version,
            payload: event.payload.clone(),
        })
        .collect();
    let viewer = Viewer::Seat(seat);
    let mut replay = before;
    let events = describe_events(replay.as_mut(), &appended, viewer)?;
    Ok(ActionAccepted {
        seq,
        events,
        view: view_out(&game, table.as_ref(), seq, viewer),
    })
}

/// The result of the action first posted with this idempotency key, rebuilt from the log.
fn replay_result(
    conn: &mut DbConnection,
    game: &LoadedGame,
    first: &ActionRow,
    request: &ActionRequest,
    seat: Seat,
) -> Result<ActionAccepted, ApiError> {
    let first_body: Value = serde_json::from_str(&first.request)
        .map_err(|error| ApiError::Internal(format!("stored request is corrupt: {error}")))?;
    if first_body != request.body {
        return Err(ApiError::unprocessable(
            "idempotency_key_reused",
            "this Idempotency-Key was already used with a different request",
        ));
    }
    let events = game.load_events(conn, first.last_seq)?;
    let (before, appended) = events.split_at(
        events
            .iter()
            .position(|event| event.seq >= first.first_seq)
            .unwrap_or(events.len()),
    );
    let mut table = game.fold(before)?;
    let viewer = Viewer::Seat(seat);
    let described = describe_events(table.as_mut(), appended, viewer)?;
    Ok(ActionAccepted {
        seq: first.last_seq,
        events: described,
        view: view_out(game, table.as_ref(), first.last_seq, viewer),
    })
}

/// The log after `after`, as the caller may see it.
pub fn events(
    conn: &mut DbConnection,
    game_id: &str,
    user: &AuthUser,
    after: i64,
) -> Result<(i64, Vec<EventOut>), ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    let stored = game.load_events(conn, game.row.current_seq)?;
    let split = stored
        .iter()
        .position(|event| event.seq > after)
        .unwrap_or(stored.len());
    let (before, wanted) = stored.split_at(split);
    let mut table = game.fold(before)?;
    let described = describe_events(table.as_mut(), wanted, game.viewer_for(user))?;
    Ok((game.row.current_seq, described))
}

pub struct Export {
    pub game: LoadedGame,
    pub viewer: Viewer,
    pub events: Vec<EventOut>,
    pub actions: Option<Vec<ActionRow>>,
    pub seed: Option<String>,
}

/// The whole history: every secret once the game is finished, otherwise the caller's view.
pub fn export(conn: &mut DbConnection, game_id: &str, user: &AuthUser) -> Result<Export, ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    let finished = game.row.status == STATUS_FINISHED;
    let viewer = if finished {
        Viewer::Omniscient
    } else {
        game.viewer_for(user)
    };
    let stored = game.load_events(conn, game.row.current_seq)?;
    let mut table = game.empty_table()?;
    let events = describe_events(table.as_mut(), &stored, viewer)?;
    let (actions, seed) = if finished {
        (
            Some(store::load_actions(conn, game_id)?),
            Some(game.row.seed.clone()),
        )
    } else {
        (None, None)
    };
    Ok(Export {
        game,
        viewer,
        events,
        actions,
        seed,
    })
}
