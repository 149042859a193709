//! The JSON bodies the API sends and receives that more than one resource shares.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use crate::auth::AuthUser;
use crate::games::engine::Seat;
use crate::service::{format_time, LoadedGame};

/// An account as others see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AccountRef {
    pub id: String,
    pub name: String,
}

/// One seat at a game's table.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatInfo {
    /// 0-based seat index; seat 0 moves first.
    pub seat: u8,
    /// Who sits there; `null` while the seat is open.
    pub account: Option<AccountRef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Waiting for players to take the open seats.
    Open,
    /// Every seat is taken and the game is being played.
    Running,
    /// The game is over; its export reveals everything, the seed included.
    Finished,
}

impl GameStatus {
    pub fn parse(status: &str) -> GameStatus {
        match status {
            crate::service::STATUS_RUNNING => GameStatus::Running,
            crate::service::STATUS_FINISHED => GameStatus::Finished,
            _ => GameStatus::Open,
        }
    }
}

/// Scores and places once a game is finished.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameOutcome {
    /// Final score per seat, indexed by seat.
    pub scores: Vec<i32>,
    /// Place per seat (1 = winner), indexed by seat; tied seats share a place.
    pub places: Vec<u8>,
}

/// A game as listed and summarised.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameSummary {
    pub id: String,
    /// Game kind, e.g. `tikal`.
    pub kind: String,
    /// The rules version the game started with; it keeps replaying under it.
    pub rules_version: u32,
    /// The options chosen at creation, with defaults filled in.
    #[schema(value_type = Object)]
    pub options: Value,
    pub status: GameStatus,
    pub seat_count: u8,
    pub seats: Vec<SeatInfo>,
    /// Seq of the last event in the log (0 before the game starts). Send it back as
    /// `expected_seq` when acting.
    pub current_seq: i64,
    /// Seats that must act now (several during simultaneous phases).
    pub to_act: Vec<u8>,
    /// The caller's seat, if seated.
    pub your_seat: Option<u8>,
    /// Whether the caller's seat must act now.
    pub your_turn: bool,
    /// Present once the game is finished.
    pub outcome: Option<GameOutcome>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339: the last join or move.
    pub updated_at: String,
}

impl GameSummary {
    pub fn of(game: &LoadedGame, caller: &AuthUser) -> GameSummary {
        let seats = (0..game.seat_count())
            .map(|seat| SeatInfo {
                seat,
                account: game
                    .seats
                    .iter()
                    .find(|taken| taken.seat == i32::from(seat))
                    .map(|taken| AccountRef {
                        id: taken.account_id.clone(),
                        name: taken.account_name.clone(),
                    }),
            })
            .collect();
        let to_act = game.to_act();
        let your_seat = game.seat_of(caller);
        GameSummary {
            id: game.row.id.clone(),
            kind: game.row.kind.clone(),
            rules_version: u32::try_from(game.row.rules_version).unwrap_or_default(),
            options: game.options().unwrap_or(Value::Null),
            status: GameStatus::parse(&game.row.status),
            seat_count: game.seat_count(),
            seats,
            current_seq: game.row.current_seq,
            your_turn: your_seat.is_some_and(|seat| to_act.contains(&seat)),
            to_act,
            your_seat,
            outcome: game
                .row
                .outcome
                .as_deref()
                .and_then(|outcome| serde_json::from_str(outcome).ok()),
            created_at: format_time(game.row.created_at),
            updated_at: format_time(game.row.updated_at),
        }
    }
}

/// One event of a game's log, as the caller may see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EventOut {
    pub seq: i64,
    /// RFC 3339 time of the append.
    pub time: String,
    /// The seat whose action caused the event; `null` for the opening events.
    pub seat: Option<u8>,
    /// The event's type tag (also `payload.type`).
    #[serde(rename = "type")]
    pub event_type: String,
    /// Version of the payload's JSON shape.
    pub schema_version: u32,
    /// The typed event (see the `<Kind>Event` schemas), with hidden fields `null`.
    #[schema(value_type = Object)]
    pub payload: Value,
    /// One line for people, e.g. "Red uncovers the temple at C3 to 5".
    pub text: String,
}

/// The state of a game as the caller may see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ViewOut {
    pub game_id: String,
    pub kind: String,
    /// The seq this view shows the game at.
    pub seq: i64,
    /// The seat whose secrets this view includes; `null` for a spectator.
    pub viewer_seat: Option<u8>,
    /// Seats that must act at this seq.
    pub to_act: Vec<u8>,
    pub finished: bool,
    /// The game's own view (see the `<Kind>View` schemas).
    #[schema(value_type = Object)]
    pub view: Value,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ActionAccepted {
    /// The game's new seq.
    pub seq: i64,
    /// The events the action appended, as the caller may see them.
    pub events: Vec<EventOut>,
    /// The caller's view after the action.
    pub view: ViewOut,
}

/// Optional `Idempotency-Key` header.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IdempotencyHeader {
    /// Any string of 1 to 200 visible ASCII characters, unique per intended action. A retry
    /// with the same key and body returns the first result and appends nothing.
    #[param(rename = "Idempotency-Key")]
    pub idempotency_key: Option<String>,
}

pub fn seat_from_stored(seat: Option<i32>) -> Option<Seat> {
    seat.and_then(|seat| Seat::try_from(seat).ok())
}
