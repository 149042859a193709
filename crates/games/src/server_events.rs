//! What the server writes into a game's log beside the engine's events: clocks, resignations,
//! timeouts and bots taking over seats. They share the log (one table, one seq, one append
//! guard) so a game's history stays one ordered record, but engines never see them: the
//! server decides them from its clock, and folding them only needs the numbers they carry.
//!
//! The rules of play around the engine, as the server applies them:
//! - A seat that resigns or runs out of time has *forfeited*. It ranks last whatever its
//!   score (forfeited seats share the last place), and a bot plays it from then on so the
//!   others can finish.
//! - When at most one seat has not forfeited, the game ends at once: that seat wins (in a
//!   two-player game, a resignation or a timeout hands the other seat the win).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::bots::BotStrategy;
use crate::engine::{Outcome, Seat};
use crate::kit::ranking::competition_places;
use crate::kit::seats::colour;
use crate::time_control::DAY_MS;
pub use crate::time_control::{ClockTurn, ClockVersion, SeatClock, TimeControl};

/// The JSON shape version of [`ServerEvent`] payloads, stored with each: the newest one.
/// Version 2 added `seat_suspended` (and the forfeit reason `suspended`); every other event
/// reads alike in both, and is still written as version 1 (see
/// [`ServerEvent::schema_version`]), so that readers of version 1 read every game no
/// suspension touched.
pub const SCHEMA_VERSION: u32 = 2;
/// The oldest server event schema version this build reads.
pub const FIRST_SCHEMA_VERSION: u32 = 1;

impl TimeControl {
    /// The seat's clock after an append at `now`, and the events that say so. Seats that keep
    /// acting without their turn ending keep their deadline; a seat whose turn ended and
    /// who still acts starts again (days per move: a fresh deadline; time bank: the bank
    /// with its increment).
    pub fn advance(
        &self,
        seat: Seat,
        clock: SeatClock,
        turn: ClockTurn,
        now: i64,
    ) -> (SeatClock, Vec<ServerEvent>) {
        if !self.is_timed() {
            return (clock, Vec::new());
        }
        let running = turn.was_acting && clock.deadline_ms.is_some();
        // What the bank holds at `now`: charged for the time it ran, credited for an action.
        let mut bank = match clock.deadline_ms {
            Some(deadline) if running => (deadline - now).max(0),
            _ => clock.bank_ms,
        };
        if let TimeControl::TimeBank {
            increment_seconds,
            maximum_seconds,
            ..
        } = *self
        {
            if turn.turn_ended {
                bank = (bank + i64::from(increment_seconds) * 1000)
                    .min(i64::from(maximum_seconds) * 1000);
            }
        }
        // A turn that begins now (or begins again after the seat's own action) has the
        // whole of its time: a move's days, or the bank.
        let fresh_turn = turn.is_acting && (turn.turn_ended || !turn.was_acting);
        let allowed = match *self {
            TimeControl::DaysPerMove { days } if fresh_turn || !turn.was_acting => {
                i64::from(days) * DAY_MS
            }
            TimeControl::DaysPerMove { .. } if running => bank,
            // A days-per-move clock stopped by a vacation keeps its time left as its bank.
            TimeControl::DaysPerMove { .. } if clock.bank_ms > 0 => clock.bank_ms,
            TimeControl::DaysPerMove { days } => i64::from(days) * DAY_MS,
            _ => bank,
        };
        let mut events = Vec::new();
        if turn.paused {
            // On vacation: a running clock stops with what it has left, a turn that comes
            // keeps its whole time for the vacation's end.
            // Days per move keep the time left as the bank, at least 1 ms: a bank of 0
            // means no time kept (a whole move's days when the turn resumes).
            let kept = allowed.max(1);
            if running {
                events.push(ServerEvent::ClockStopped {
                    seat,
                    time_left_ms: match self {
                        TimeControl::TimeBank { .. } => bank,
                        _ => kept,
                    },
                });
            }
            let bank_ms = match self {
                TimeControl::TimeBank { .. } => bank,
                _ if turn.is_acting => kept,
                _ => 0,
            };
            return (
                SeatClock {
                    deadline_ms: None,
                    bank_ms,
                },
                events,
            );
        }
        let deadline = if turn.is_acting && (turn.turn_ended || !running) {
            events.push(ServerEvent::ClockStarted {
                seat,
                deadline_ms: now + allowed,
                time_left_ms: allowed,
            });
            Some(now + allowed)
        } else if turn.is_acting {
            clock.deadline_ms
        } else {
            if running {
                events.push(ServerEvent::ClockStopped {
                    seat,
                    time_left_ms: bank,
                });
            }
            None
        };
        let bank_ms = match self {
            TimeControl::TimeBank { .. } => bank,
            _ => 0,
        };
        (
            SeatClock {
                deadline_ms: deadline,
                bank_ms,
            },
            events,
        )
    }
}

/// Why a seat left the game before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitReason {
    Resigned,
    TimedOut,
    /// A moderator suspended the seat's player.
    Suspended,
}

impl ForfeitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ForfeitReason::Resigned => "resigned",
            ForfeitReason::TimedOut => "timed_out",
            ForfeitReason::Suspended => "suspended",
        }
    }

    pub fn parse(text: &str) -> Option<ForfeitReason> {
        [
            ForfeitReason::Resigned,
            ForfeitReason::TimedOut,
            ForfeitReason::Suspended,
        ]
        .into_iter()
        .find(|reason| reason.as_str() == text)
    }
}

/// A seat that forfeited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Forfeit {
    pub seat: Seat,
    pub reason: ForfeitReason,
}

/// An event the server writes into a game's log (never the engine). Times are milliseconds
/// since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ServerEvent {
    /// `seat` has to act by `deadline_ms`; it has `time_left_ms` from now.
    /// Example: `{"type": "clock_started", "seat": 1, "deadline_ms": 1764151200000, "time_left_ms": 172800000}`
    ClockStarted {
        seat: Seat,
        deadline_ms: i64,
        #[schema(minimum = 0)]
        time_left_ms: i64,
    },
    /// `seat` no longer has to act; `time_left_ms` stays in its bank.
    /// Example: `{"type": "clock_stopped", "seat": 1, "time_left_ms": 86400000}`
    ClockStopped {
        seat: Seat,
        #[schema(minimum = 0)]
        time_left_ms: i64,
    },
    /// The player at `seat` resigned.
    /// Example: `{"type": "seat_resigned", "seat": 0}`
    SeatResigned { seat: Seat },
    /// `seat` did not act by `deadline_ms`.
    /// Example: `{"type": "seat_timed_out", "seat": 2, "deadline_ms": 1764151200000}`
    SeatTimedOut { seat: Seat, deadline_ms: i64 },
    /// A moderator suspended the player at `seat`: the seat leaves the game as if resigned
    /// (schema version 2).
    /// Example: `{"type": "seat_suspended", "seat": 1}`
    SeatSuspended { seat: Seat },
    /// A `bot` plays `seat` from now on.
    /// Example: `{"type": "seat_taken_over", "seat": 2, "bot": "playouts"}`
    SeatTakenOver { seat: Seat, bot: BotStrategy },
    /// At most one seat had not forfeited, so the game ended here with this standing.
    /// Example: `{"type": "game_ended_by_forfeit", "scores": [12, 30], "places": [1, 2]}`
    GameEndedByForfeit { scores: Vec<i32>, places: Vec<u8> },
    /// The player at `seat` votes to abandon the game; the vote stands until withdrawn.
    /// Example: `{"type": "abandon_voted", "seat": 0}`
    AbandonVoted { seat: Seat },
    /// The player at `seat` takes back their vote to abandon the game.
    /// Example: `{"type": "abandon_vote_withdrawn", "seat": 0}`
    AbandonVoteWithdrawn { seat: Seat },
    /// Every seat a person still plays voted to abandon: the game ended here without a
    /// result.
    /// Example: `{"type": "game_abandoned"}`
    GameAbandoned {},
    /// The player at `seat` is on vacation until `until_ms` (or until they end it): the
    /// seat's clock stands still, keeping the time it has left.
    /// Example: `{"type": "vacation_started", "seat": 1, "until_ms": 1764151200000}`
    VacationStarted { seat: Seat, until_ms: i64 },
    /// The vacation of the player at `seat` is over: its clock runs again on its turn.
    /// Example: `{"type": "vacation_ended", "seat": 1}`
    VacationEnded { seat: Seat },
    /// The player at `seat` took back their last action: the events `from_seq` to `to_seq`
    /// (the action, the clock events after it, and any take-back in between) no longer
    /// count, and the game is as it was after `from_seq - 1`. The clock events after this one
    /// put the seat's clock back as it was before the action. Clients fetch the view again.
    /// Example: `{"type": "actions_taken_back", "seat": 0, "from_seq": 41, "to_seq": 43}`
    ActionsTakenBack {
        seat: Seat,
        #[schema(minimum = 1)]
        from_seq: i64,
        #[schema(minimum = 1)]
        to_seq: i64,
    },
}

impl ServerEvent {
    /// Whether an event of type `event_type` only starts or stops a clock, or a vacation
    /// that does: what an action's append writes after the engine's events (and nothing
    /// else does first but an append that only follows a vacation, which may then be taken
    /// for the end of the action's).
    pub fn is_clock_event(event_type: &str) -> bool {
        matches!(
            event_type,
            "clock_started" | "clock_stopped" | "vacation_started" | "vacation_ended"
        )
    }

    /// The schema version this event is written in: the first that has it.
    pub fn schema_version(&self) -> u32 {
        match self {
            ServerEvent::SeatSuspended { .. } => 2,
            _ => 1,
        }
    }

    /// The `type` tag, as stored in the log's `event_type`.
    pub fn event_type(&self) -> &'static str {
        match self {
            ServerEvent::ClockStarted { .. } => "clock_started",
            ServerEvent::ClockStopped { .. } => "clock_stopped",
            ServerEvent::SeatResigned { .. } => "seat_resigned",
            ServerEvent::SeatTimedOut { .. } => "seat_timed_out",
            ServerEvent::SeatSuspended { .. } => "seat_suspended",
            ServerEvent::SeatTakenOver { .. } => "seat_taken_over",
            ServerEvent::GameEndedByForfeit { .. } => "game_ended_by_forfeit",
            ServerEvent::AbandonVoted { .. } => "abandon_voted",
            ServerEvent::AbandonVoteWithdrawn { .. } => "abandon_vote_withdrawn",
            ServerEvent::GameAbandoned {} => "game_abandoned",
            ServerEvent::VacationStarted { .. } => "vacation_started",
            ServerEvent::VacationEnded { .. } => "vacation_ended",
            ServerEvent::ActionsTakenBack { .. } => "actions_taken_back",
        }
    }

    /// One line for people; `time` writes a timestamp.
    pub fn describe(&self, time: impl Fn(i64) -> String) -> String {
        match self {
            ServerEvent::ClockStarted {
                seat,
                deadline_ms,
                time_left_ms,
            } => format!(
                "{}'s clock runs: {} left, until {}",
                colour(*seat),
                duration_text(*time_left_ms),
                time(*deadline_ms)
            ),
            ServerEvent::ClockStopped { seat, time_left_ms } => format!(
                "{}'s clock stops with {} left",
                colour(*seat),
                duration_text(*time_left_ms)
            ),
            ServerEvent::SeatResigned { seat } => format!("{} resigns", colour(*seat)),
            ServerEvent::SeatTimedOut { seat, .. } => {
                format!("{} runs out of time", colour(*seat))
            }
            ServerEvent::SeatSuspended { seat } => format!(
                "{}'s player was suspended by a moderator and leaves the game",
                colour(*seat)
            ),
            ServerEvent::SeatTakenOver { seat, bot } => {
                format!("A {} bot plays {} from now on", bot.as_str(), colour(*seat))
            }
            ServerEvent::GameEndedByForfeit { scores, places } => {
                let standing = crate::kit::seats::describe_final_standing(scores, places);
                format!("Too few players remain; {}", lowercase_first(&standing))
            }
            ServerEvent::AbandonVoted { seat } => {
                format!("{} votes to abandon the game", colour(*seat))
            }
            ServerEvent::AbandonVoteWithdrawn { seat } => {
                format!("{} withdraws their vote to abandon the game", colour(*seat))
            }
            ServerEvent::GameAbandoned {} => {
                "Every player agreed: the game is abandoned without a result".to_owned()
            }
            ServerEvent::VacationStarted { seat, until_ms } => format!(
                "{} is on vacation until {}: their clock stands still",
                colour(*seat),
                time(*until_ms)
            ),
            ServerEvent::VacationEnded { seat } => {
                format!("{} is back from vacation", colour(*seat))
            }
            ServerEvent::ActionsTakenBack {
                seat,
                from_seq,
                to_seq,
            } => format!(
                "{} takes back their last action (seqs {from_seq} to {to_seq} no longer count)",
                colour(*seat)
            ),
        }
    }
}

/// RFC 3339 text (UTC) for a millisecond timestamp: how the server writes its event times
/// and the deadlines in its events' texts; empty for a time out of range.
pub fn format_time(millis: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .and_then(|moment| {
            moment
                .format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// "2 days 3 h", "5 h 12 min", "40 s": enough precision for a correspondence clock.
pub fn duration_text(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    let (days, hours, minutes) = (
        seconds / 86_400,
        seconds % 86_400 / 3600,
        seconds % 3600 / 60,
    );
    match (days, hours, minutes) {
        (0, 0, 0) => format!("{seconds} s"),
        (0, 0, _) => format!("{minutes} min"),
        (0, _, _) => format!("{hours} h {minutes} min"),
        (1, _, _) => format!("1 day {hours} h"),
        _ => format!("{days} days {hours} h"),
    }
}

/// A finished game's result as the server records it: the engine's scores with the places
/// of forfeited seats moved to the end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub scores: Vec<i32>,
    pub places: Vec<u8>,
    /// The seats that resigned or ran out of time, in seat order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forfeits: Vec<Forfeit>,
}

impl Standing {
    /// The standing of a game that ended by its rules: seats that forfeited rank last (and
    /// share that place), the others keep the order the engine gave them.
    pub fn after_play(outcome: &Outcome, forfeits: &[Forfeit]) -> Standing {
        Standing::ranking(outcome.scores.clone(), &outcome.places, forfeits)
    }

    /// The standing when forfeits end a game early: `scores` as they stand, the seat left
    /// (if any) first, the forfeited ones after it.
    pub fn by_forfeit(scores: Vec<i32>, forfeits: &[Forfeit]) -> Standing {
        let places = vec![1; scores.len()];
        Standing::ranking(scores, &places, forfeits)
    }

    fn ranking(scores: Vec<i32>, engine_places: &[u8], forfeits: &[Forfeit]) -> Standing {
        let forfeited = |seat: usize| forfeits.iter().any(|f| usize::from(f.seat) == seat);
        // Ranks by the engine's place among the seats still in; forfeited seats rank below.
        let keys: Vec<(bool, i32)> = engine_places
            .iter()
            .enumerate()
            .map(|(seat, place)| (!forfeited(seat), -i32::from(*place)))
            .collect();
        let mut forfeits = forfeits.to_vec();
        forfeits.sort_by_key(|forfeit| forfeit.seat);
        forfeits.dedup_by_key(|forfeit| forfeit.seat);
        Standing {
            scores,
            places: competition_places(&keys),
            forfeits,
        }
    }
}

/// Whether forfeits leave too few seats in play to go on.
pub fn too_few_remain(seat_count: u8, forfeits: &[Forfeit]) -> bool {
    let out = (0..seat_count)
        .filter(|seat| forfeits.iter().any(|f| f.seat == *seat))
        .count();
    usize::from(seat_count) - out <= 1
}

/// The server's side of a log, folded: who forfeited, which bots play, how it ended early.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerFold {
    pub forfeits: Vec<Forfeit>,
    pub bots: Vec<(Seat, BotStrategy)>,
    pub clocks: Vec<(Seat, SeatClock)>,
    pub ended: Option<Standing>,
    /// The seats whose vote to abandon stands, in the order they voted.
    pub abandon_votes: Vec<Seat>,
    /// Every seat a person played agreed to stop: the game ended without a result.
    pub abandoned: bool,
    /// The seats whose players are on vacation, and until when.
    pub vacations: Vec<(Seat, i64)>,
}

impl ServerFold {
    fn clock(&mut self, seat: Seat) -> &mut SeatClock {
        let index = match self.clocks.iter().position(|(taken, _)| *taken == seat) {
            Some(index) => index,
            None => {
                self.clocks.push((seat, SeatClock::default()));
                self.clocks.len() - 1
            }
        };
        &mut self.clocks[index].1
    }

    pub fn apply(&mut self, event: &ServerEvent) {
        match event {
            ServerEvent::ClockStarted {
                seat,
                deadline_ms,
                time_left_ms,
            } => {
                *self.clock(*seat) = SeatClock {
                    deadline_ms: Some(*deadline_ms),
                    bank_ms: *time_left_ms,
                }
            }
            ServerEvent::ClockStopped { seat, time_left_ms } => {
                *self.clock(*seat) = SeatClock {
                    deadline_ms: None,
                    bank_ms: *time_left_ms,
                }
            }
            ServerEvent::SeatResigned { seat } => self.forfeit(*seat, ForfeitReason::Resigned),
            ServerEvent::SeatTimedOut { seat, .. } => self.forfeit(*seat, ForfeitReason::TimedOut),
            ServerEvent::SeatSuspended { seat } => self.forfeit(*seat, ForfeitReason::Suspended),
            ServerEvent::SeatTakenOver { seat, bot } => {
                self.bots.retain(|(taken, _)| taken != seat);
                self.bots.push((*seat, *bot));
                *self.clock(*seat) = SeatClock::default();
            }
            ServerEvent::GameEndedByForfeit { scores, .. } => {
                self.ended = Some(Standing::by_forfeit(scores.clone(), &self.forfeits));
                self.clocks.clear();
            }
            ServerEvent::AbandonVoted { seat } => {
                if !self.abandon_votes.contains(seat) {
                    self.abandon_votes.push(*seat);
                }
            }
            ServerEvent::AbandonVoteWithdrawn { seat } => {
                self.abandon_votes.retain(|voter| voter != seat)
            }
            ServerEvent::GameAbandoned {} => {
                self.abandoned = true;
                self.clocks.clear();
            }
            ServerEvent::VacationStarted { seat, until_ms } => {
                self.vacations.retain(|(taken, _)| taken != seat);
                self.vacations.push((*seat, *until_ms));
            }
            ServerEvent::VacationEnded { seat } => {
                self.vacations.retain(|(taken, _)| taken != seat)
            }
            // The engine's state goes back; clocks go back through their own events.
            ServerEvent::ActionsTakenBack { .. } => {}
        }
    }

    fn forfeit(&mut self, seat: Seat, reason: ForfeitReason) {
        if !self.forfeits.iter().any(|f| f.seat == seat) {
            self.forfeits.push(Forfeit { seat, reason });
        }
    }

    /// The game's final standing, given the engine's outcome if it ended by its rules; none
    /// for an abandoned game.
    pub fn standing(&self, engine: Option<&Outcome>) -> Option<Standing> {
        if self.abandoned {
            return None;
        }
        self.ended
            .clone()
            .or_else(|| engine.map(|outcome| Standing::after_play(outcome, &self.forfeits)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_utc() {
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
    }

    const BANK: TimeControl = TimeControl::TimeBank {
        initial_seconds: 3600,
        increment_seconds: 600,
        maximum_seconds: 4000,
    };

    fn turn(was_acting: bool, is_acting: bool, turn_ended: bool) -> ClockTurn {
        ClockTurn {
            was_acting,
            is_acting,
            turn_ended,
            paused: false,
        }
    }

    fn paused(was_acting: bool, is_acting: bool, turn_ended: bool) -> ClockTurn {
        ClockTurn {
            paused: true,
            ..turn(was_acting, is_acting, turn_ended)
        }
    }

    /// The clock of a seat that plays `actions` actions in one turn, `gap` ms apart, the
    /// last one ending the turn, under `version`.
    fn one_turn(
        control: TimeControl,
        version: ClockVersion,
        actions: usize,
        gap: i64,
    ) -> SeatClock {
        let fresh = SeatClock {
            deadline_ms: None,
            bank_ms: control.initial_bank_ms(),
        };
        let (mut clock, _) = control.advance(0, fresh, turn(false, true, false), 0);
        for n in 1..=actions {
            let last = n == actions;
            let ended = version.turn_ended(true, !last, false);
            (clock, _) = control.advance(0, clock, turn(true, !last, ended), gap * n as i64);
        }
        clock
    }

    #[test]
    fn a_turn_of_many_actions_earns_one_increment_and_a_version_1_clock_one_per_action() {
        let bank = TimeControl::TimeBank {
            initial_seconds: 3600,
            increment_seconds: 600,
            maximum_seconds: 100_000,
        };
        // Four actions, a minute apart: four minutes spent, one increment earned.
        let per_turn = one_turn(bank, ClockVersion::PerTurn, 4, 60_000);
        assert_eq!(per_turn.deadline_ms, None);
        assert_eq!(per_turn.bank_ms, 3_600_000 - 240_000 + 600_000);
        let per_action = one_turn(bank, ClockVersion::PerAction, 4, 60_000);
        assert_eq!(per_action.bank_ms, 3_600_000 - 240_000 + 4 * 600_000);
    }

    #[test]
    fn days_per_move_give_a_turn_its_days_however_many_actions_it_has() {
        let control = TimeControl::DaysPerMove { days: 2 };
        let (started, _) = control.advance(1, SeatClock::default(), turn(false, true, false), 0);
        // An action a day into the turn that does not end it leaves the deadline alone...
        let ended = ClockVersion::PerTurn.turn_ended(true, true, false);
        let (kept, events) = control.advance(1, started, turn(true, true, ended), DAY_MS);
        assert_eq!(kept.deadline_ms, Some(2 * DAY_MS));
        assert!(events.is_empty());
        // ... while a version 1 clock started the two days again.
        let ended = ClockVersion::PerAction.turn_ended(true, true, false);
        let (again, _) = control.advance(1, started, turn(true, true, ended), DAY_MS);
        assert_eq!(again.deadline_ms, Some(3 * DAY_MS));
        // An action whose events end the turn, the seat acting again at once, starts the
        // next turn's days.
        let ended = ClockVersion::PerTurn.turn_ended(true, true, true);
        let (next, events) = control.advance(1, kept, turn(true, true, ended), DAY_MS + 5);
        assert_eq!(next.deadline_ms, Some(3 * DAY_MS + 5));
        assert_eq!(events.len(), 1);
    }

    #[test]
    fn clock_versions_read_back_from_their_numbers() {
        for version in [ClockVersion::PerAction, ClockVersion::PerTurn] {
            assert_eq!(ClockVersion::from_number(version.number()), Some(version));
        }
        assert_eq!(ClockVersion::from_number(3), None);
        assert_eq!(ClockVersion::NEWEST.number(), 2);
    }

    #[test]
    fn a_vacation_stops_a_running_move_clock_and_its_end_gives_back_the_time_left() {
        let control = TimeControl::DaysPerMove { days: 3 };
        let (started, _) = control.advance(1, SeatClock::default(), turn(false, true, false), 0);
        // A day in, the vacation starts: two days are kept.
        let (stopped, events) = control.advance(1, started, paused(true, true, false), DAY_MS);
        assert_eq!(stopped.deadline_ms, None);
        assert_eq!(stopped.bank_ms, 2 * DAY_MS);
        assert_eq!(
            events,
            [ServerEvent::ClockStopped {
                seat: 1,
                time_left_ms: 2 * DAY_MS
            }]
        );
        // Others act meanwhile: nothing changes.
        let (still, events) = control.advance(1, stopped, paused(true, true, false), 5 * DAY_MS);
        assert_eq!(still, stopped);
        assert!(events.is_empty());
        // Back ten days later: the two days run from then.
        let (resumed, events) = control.advance(1, still, turn(true, true, false), 10 * DAY_MS);
        assert_eq!(resumed.deadline_ms, Some(12 * DAY_MS));
        assert_eq!(resumed.bank_ms, 0);
        assert_eq!(
            events,
            [ServerEvent::ClockStarted {
                seat: 1,
                deadline_ms: 12 * DAY_MS,
                time_left_ms: 2 * DAY_MS
            }]
        );
    }

    #[test]
    fn a_turn_that_comes_during_a_vacation_keeps_its_whole_time_for_the_return() {
        let control = TimeControl::DaysPerMove { days: 2 };
        let (waiting, events) =
            control.advance(0, SeatClock::default(), paused(false, true, false), 0);
        assert_eq!(waiting.deadline_ms, None);
        assert_eq!(waiting.bank_ms, 2 * DAY_MS);
        assert!(events.is_empty());
        let (resumed, _) = control.advance(0, waiting, turn(true, true, false), 7 * DAY_MS);
        assert_eq!(resumed.deadline_ms, Some(9 * DAY_MS));
        // A bank stands still on vacation too, and runs on from where it stopped.
        let fresh = SeatClock {
            deadline_ms: None,
            bank_ms: BANK.initial_bank_ms(),
        };
        let (running, _) = BANK.advance(0, fresh, turn(false, true, false), 0);
        let (stopped, _) = BANK.advance(0, running, paused(true, true, false), 600_000);
        assert_eq!(stopped.bank_ms, 3_000_000);
        let (again, _) = BANK.advance(0, stopped, turn(true, true, false), 9 * DAY_MS);
        assert_eq!(again.deadline_ms, Some(9 * DAY_MS + 3_000_000));
    }

    #[test]
    fn a_bank_runs_down_while_acting_and_gains_the_increment_up_to_the_maximum() {
        let fresh = SeatClock {
            deadline_ms: None,
            bank_ms: BANK.initial_bank_ms(),
        };
        let (started, events) = BANK.advance(0, fresh, turn(false, true, false), 1_000);
        assert_eq!(started.deadline_ms, Some(1_000 + 3_600_000));
        assert_eq!(events.len(), 1);
        // Acts after 100 s and keeps acting: 3500 s + 600 s, capped at 4000 s.
        let (again, _) = BANK.advance(0, started, turn(true, true, true), 101_000);
        assert_eq!(again.deadline_ms, Some(101_000 + 4_000_000));
        // Acts after 1000 s more and stops: 3000 s + 600 s stay in the bank.
        let (stopped, events) = BANK.advance(0, again, turn(true, false, true), 1_101_000);
        assert_eq!(stopped.deadline_ms, None);
        assert_eq!(stopped.bank_ms, 3_600_000);
        assert_eq!(
            events,
            vec![ServerEvent::ClockStopped {
                seat: 0,
                time_left_ms: 3_600_000
            }]
        );
    }

    #[test]
    fn days_per_move_restarts_on_each_action_and_keeps_a_deadline_while_others_act() {
        let control = TimeControl::DaysPerMove { days: 2 };
        let (started, _) = control.advance(1, SeatClock::default(), turn(false, true, false), 0);
        assert_eq!(started.deadline_ms, Some(2 * DAY_MS));
        // Another seat acts in a simultaneous phase: the deadline stays.
        let (kept, events) = control.advance(1, started, turn(true, true, false), 5_000);
        assert_eq!(kept, started);
        assert!(events.is_empty());
        let (restarted, _) = control.advance(1, kept, turn(true, true, true), DAY_MS);
        assert_eq!(restarted.deadline_ms, Some(3 * DAY_MS));
    }

    #[test]
    fn without_a_time_control_nothing_is_written() {
        let (clock, events) =
            TimeControl::None.advance(0, SeatClock::default(), turn(false, true, false), 0);
        assert_eq!(clock, SeatClock::default());
        assert!(events.is_empty());
    }

    #[test]
    fn bounds_are_checked() {
        assert!(TimeControl::DaysPerMove { days: 0 }.check().is_err());
        assert!(TimeControl::DaysPerMove { days: 15 }.check().is_err());
        assert!(TimeControl::DaysPerMove { days: 14 }.check().is_ok());
        assert!(BANK.check().is_ok());
        // An initial bank above the maximum is allowed, and starts at the maximum.
        let above = TimeControl::TimeBank {
            initial_seconds: 3600,
            increment_seconds: 0,
            maximum_seconds: 60,
        };
        assert!(above.check().is_ok());
        assert_eq!(
            above.normalised(),
            TimeControl::TimeBank {
                initial_seconds: 60,
                increment_seconds: 0,
                maximum_seconds: 60,
            }
        );
        let tiny = TimeControl::TimeBank {
            initial_seconds: 60,
            increment_seconds: 0,
            maximum_seconds: 59,
        };
        assert!(tiny.check().is_err());
    }

    #[test]
    fn forfeited_seats_rank_last_whatever_their_score() {
        let outcome = Outcome {
            scores: vec![50, 40, 30],
            places: vec![1, 2, 3],
        };
        let forfeit = Forfeit {
            seat: 0,
            reason: ForfeitReason::Resigned,
        };
        let standing = Standing::after_play(&outcome, &[forfeit]);
        assert_eq!(standing.places, vec![3, 1, 2]);
        assert_eq!(standing.scores, vec![50, 40, 30]);
        assert_eq!(standing.forfeits, vec![forfeit]);
    }

    #[test]
    fn a_two_player_forfeit_leaves_the_other_seat_the_winner() {
        let forfeit = Forfeit {
            seat: 1,
            reason: ForfeitReason::TimedOut,
        };
        assert!(too_few_remain(2, &[forfeit]));
        assert!(!too_few_remain(3, &[forfeit]));
        let standing = Standing::by_forfeit(vec![3, 9], &[forfeit]);
        assert_eq!(standing.places, vec![1, 2]);
    }

    #[test]
    fn the_fold_of_server_events_keeps_forfeits_bots_and_clocks() {
        let mut fold = ServerFold::default();
        fold.apply(&ServerEvent::ClockStarted {
            seat: 2,
            deadline_ms: 10,
            time_left_ms: 10,
        });
        fold.apply(&ServerEvent::SeatTimedOut {
            seat: 2,
            deadline_ms: 10,
        });
        fold.apply(&ServerEvent::SeatTakenOver {
            seat: 2,
            bot: BotStrategy::Random,
        });
        assert_eq!(fold.bots, vec![(2, BotStrategy::Random)]);
        assert_eq!(fold.clocks, vec![(2, SeatClock::default())]);
        let outcome = Outcome {
            scores: vec![1, 2, 3],
            places: vec![3, 2, 1],
        };
        assert_eq!(fold.standing(Some(&outcome)).unwrap().places, vec![2, 1, 3]);
    }

    #[test]
    fn events_round_trip_and_name_their_type() {
        let events = [
            ServerEvent::SeatResigned { seat: 1 },
            ServerEvent::SeatSuspended { seat: 2 },
            ServerEvent::GameEndedByForfeit {
                scores: vec![1, 2],
                places: vec![1, 2],
            },
            ServerEvent::ActionsTakenBack {
                seat: 0,
                from_seq: 41,
                to_seq: 43,
            },
        ];
        for event in events.clone() {
            let json = serde_json::to_value(&event).unwrap();
            assert_eq!(json["type"], event.event_type());
            assert_eq!(serde_json::from_value::<ServerEvent>(json).unwrap(), event);
        }
        assert_eq!(
            events[3].describe(format_time),
            "Red takes back their last action (seqs 41 to 43 no longer count)"
        );
        assert_eq!(events[1].schema_version(), 2);
        assert_eq!(events[0].schema_version(), 1);
        assert_eq!(duration_text(90_061_000), "1 day 1 h");
        assert_eq!(duration_text(59_000), "59 s");
    }

    #[test]
    fn time_controls_read_back_and_refuse_fields_of_other_kinds() {
        for control in [
            TimeControl::None,
            TimeControl::DaysPerMove { days: 3 },
            TimeControl::TimeBank {
                initial_seconds: 600,
                increment_seconds: 10,
                maximum_seconds: 900,
            },
        ] {
            let json = serde_json::to_value(control).unwrap();
            assert_eq!(
                serde_json::from_value::<TimeControl>(json).unwrap(),
                control
            );
        }
        for closed in [
            serde_json::json!({"type": "none", "days": 3}),
            serde_json::json!({"type": "days_per_move", "days": 3, "extra": 1}),
            serde_json::json!({"type": "time_bank", "initial_seconds": 600,
                "increment_seconds": 10, "maximum_seconds": 900, "days": 2}),
        ] {
            assert!(
                serde_json::from_value::<TimeControl>(closed.clone()).is_err(),
                "{closed}"
            );
        }
    }
}
