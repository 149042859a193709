//! How long players may think: the time control a game is created with, the clock version
//! it is pinned to, and a seat's clock. The clock events they write into the log are
//! [`crate::server_events`]'s.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How long players may think, chosen when the game is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    deny_unknown_fields,
    from = "ClosedTimeControl"
)]
pub enum TimeControl {
    /// No limit: the game waits for its players as long as it takes.
    #[default]
    None,
    /// Every turn must be played within `days` days: a seat's deadline is set `days` days
    /// after its turn begins (with clock version 1, of games created before it: again
    /// after each of its actions).
    DaysPerMove {
        #[schema(minimum = 1, maximum = 14)]
        days: u8,
    },
    /// A bank of time per seat that runs down while the seat has to act: it starts at
    /// `initial_seconds`, gains `increment_seconds` when each turn of the seat ends (with
    /// clock version 1, of games created before it: after each of its actions), and
    /// never holds more than `maximum_seconds` (an `initial_seconds` above it starts the
    /// bank at `maximum_seconds`).
    TimeBank {
        #[schema(minimum = 60, maximum = 2_592_000)]
        initial_seconds: u32,
        #[schema(minimum = 0, maximum = 604_800)]
        increment_seconds: u32,
        #[schema(minimum = 60, maximum = 5_184_000)]
        maximum_seconds: u32,
    },
}

/// [`TimeControl`] as read: serde lets a unit variant of an internally tagged enum carry
/// any other fields (`{"type": "none", "days": 3}`), an empty struct variant it does not.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum ClosedTimeControl {
    None {},
    DaysPerMove {
        days: u8,
    },
    TimeBank {
        initial_seconds: u32,
        increment_seconds: u32,
        maximum_seconds: u32,
    },
}

impl From<ClosedTimeControl> for TimeControl {
    fn from(read: ClosedTimeControl) -> TimeControl {
        match read {
            ClosedTimeControl::None {} => TimeControl::None,
            ClosedTimeControl::DaysPerMove { days } => TimeControl::DaysPerMove { days },
            ClosedTimeControl::TimeBank {
                initial_seconds,
                increment_seconds,
                maximum_seconds,
            } => TimeControl::TimeBank {
                initial_seconds,
                increment_seconds,
                maximum_seconds,
            },
        }
    }
}

pub(crate) const DAY_MS: i64 = 24 * 3600 * 1000;

impl TimeControl {
    /// Refuses settings outside the documented bounds.
    pub fn check(&self) -> Result<(), String> {
        match *self {
            TimeControl::None => Ok(()),
            TimeControl::DaysPerMove { days } if (1..=14).contains(&days) => Ok(()),
            TimeControl::DaysPerMove { days } => {
                Err(format!("days per move must be 1 to 14, not {days}"))
            }
            TimeControl::TimeBank {
                initial_seconds,
                increment_seconds,
                maximum_seconds,
            } => {
                if !(60..=2_592_000).contains(&initial_seconds) {
                    return Err("initial_seconds must be 60 (a minute) to 2592000 (30 days)".into());
                }
                if increment_seconds > 604_800 {
                    return Err("increment_seconds must be at most 604800 (7 days)".into());
                }
                if !(60..=5_184_000).contains(&maximum_seconds) {
                    return Err("maximum_seconds must be 60 (a minute) to 5184000 (60 days)".into());
                }
                Ok(())
            }
        }
    }

    /// The settings as played: a bank never holds more than its maximum, from the start, so
    /// an initial bank above it is the maximum. (JSON Schema cannot compare two fields, so
    /// the server takes what the schema allows rather than refuse it.)
    pub fn normalised(self) -> TimeControl {
        match self {
            TimeControl::TimeBank {
                initial_seconds,
                increment_seconds,
                maximum_seconds,
            } => TimeControl::TimeBank {
                initial_seconds: initial_seconds.min(maximum_seconds),
                increment_seconds,
                maximum_seconds,
            },
            other => other,
        }
    }

    pub fn is_timed(&self) -> bool {
        !matches!(self, TimeControl::None)
    }

    /// The time a running clock gave its seat when it last started: the days of a move, or
    /// the bank it started with (which, while other seats act, [`Self::advance`] keeps as
    /// the time left); 0 without a time control.
    pub fn time_given_ms(&self, clock: SeatClock) -> i64 {
        match *self {
            TimeControl::None => 0,
            TimeControl::DaysPerMove { days } => i64::from(days) * DAY_MS,
            TimeControl::TimeBank { .. } => clock.bank_ms,
        }
    }

    /// A seat's bank when the game starts (0 without a bank).
    pub fn initial_bank_ms(&self) -> i64 {
        match *self {
            TimeControl::TimeBank {
                initial_seconds, ..
            } => i64::from(initial_seconds) * 1000,
            _ => 0,
        }
    }
}

/// How a game's clock counts, pinned when the game is created as its rules version is, so
/// that a game keeps the clock it was started with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClockVersion {
    /// Version 1: every action of a seat earns its increment and starts its days per move
    /// afresh (a turn of four actions earned four increments).
    PerAction,
    /// Version 2: a seat's increment, and its days per move, count its turns. A turn lasts
    /// from when the seat has to act until it no longer does, or until its own action's
    /// events say the turn is over (the engine's `TakeBackBarrier::EndsTurn`: a seat may
    /// start its next turn at once).
    #[default]
    PerTurn,
}

impl ClockVersion {
    pub const NEWEST: ClockVersion = ClockVersion::PerTurn;

    /// The stored (and wire) number.
    pub fn number(self) -> u32 {
        match self {
            ClockVersion::PerAction => 1,
            ClockVersion::PerTurn => 2,
        }
    }

    pub fn from_number(number: u32) -> Option<ClockVersion> {
        match number {
            1 => Some(ClockVersion::PerAction),
            2 => Some(ClockVersion::PerTurn),
            _ => None,
        }
    }

    /// Whether an append ends the seat's turn, as this version counts: `acted`, the append
    /// is the seat's own action; `is_acting`, the seat has to act after it; `ends_turn`,
    /// the action's events end a turn.
    pub fn turn_ended(self, acted: bool, is_acting: bool, ends_turn: bool) -> bool {
        match self {
            ClockVersion::PerAction => acted,
            ClockVersion::PerTurn => acted && (ends_turn || !is_acting),
        }
    }
}

/// A seat's clock as the server keeps it between appends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SeatClock {
    /// When the seat must have acted; `None` while its clock is stopped.
    pub deadline_ms: Option<i64>,
    /// What is left in its bank while stopped (time bank only).
    pub bank_ms: i64,
}

/// What changes a seat's clock at one append.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockTurn {
    /// It had to act before the append.
    pub was_acting: bool,
    /// It has to act after it.
    pub is_acting: bool,
    /// The append is its own action, and ends its turn (see [`ClockVersion::turn_ended`]):
    /// its clock is credited and starts afresh if it acts on.
    pub turn_ended: bool,
    /// Its player is on vacation: its clock stands still, keeping the time it has left.
    pub paused: bool,
}
