//! Taking back one's own last action within one's turn.
//!
//! A take-back is a server event appended to the log ([`ServerEvent::ActionsTakenBack`]): the
//! log stays append-only and every earlier event stays where it was, but from that event on
//! the events `from_seq..=to_seq` no longer count, so the game is as it was after
//! `from_seq - 1`. Everything that folds a log (the server, exports, `turnpost verify`) goes
//! through [`TakeBackFold`], and the server and the replay judge a take-back with the same
//! [`check`].
//!
//! A seat may take back its last action while
//! - no other seat acted since, nobody forfeited and no bot took a seat over,
//! - the action revealed nothing hidden or random and did not pass the turn on (each engine
//!   sorts its events in [`crate::engine::Engine::take_back_barrier`]),
//! - the seat still has to act, with the same seats as before the action,
//! - and it has taken back fewer than [`TAKE_BACKS_PER_TURN`] actions this turn.
//!
//! Take-backs nest: after taking back its last action a seat may take back the one before.

use crate::engine::Seat;
use crate::server_events::ServerEvent;
use crate::{ReplayError, Table};

/// Why an action's events keep it from being taken back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TakeBackBarrier {
    /// It made something hidden or random known: a drawn tile or card, a roll, a shuffle.
    Reveals,
    /// It passed the turn on, or started what other seats answer (a bid, a round's end).
    EndsTurn,
}

/// At most this many take-backs by one seat since its turn began: an act and take-back loop
/// cannot grow a log without end.
pub const TAKE_BACKS_PER_TURN: usize = 20;

/// Why a take-back is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TakeBackRefusal {
    /// The seat has no action of its own that is the game's last.
    NothingToTakeBack,
    /// Since the action, another seat acted, forfeited or was taken over by a bot.
    OtherSeatActed,
    /// The action revealed something hidden or random.
    OutcomeRevealed,
    /// The action ended the seat's turn, or changed who has to act.
    TurnOver,
    /// The seat took back [`TAKE_BACKS_PER_TURN`] actions this turn already.
    TakeBackLimit,
}

impl TakeBackRefusal {
    /// The refusal's stable code.
    pub fn code(self) -> &'static str {
        match self {
            TakeBackRefusal::NothingToTakeBack => "nothing_to_take_back",
            TakeBackRefusal::OtherSeatActed => "other_seat_acted",
            TakeBackRefusal::OutcomeRevealed => "outcome_revealed",
            TakeBackRefusal::TurnOver => "turn_over",
            TakeBackRefusal::TakeBackLimit => "take_back_limit",
        }
    }

    /// What a player reads.
    pub fn message(self) -> String {
        match self {
            TakeBackRefusal::NothingToTakeBack => {
                "the game's last action is not yours: there is nothing to take back".to_owned()
            }
            TakeBackRefusal::OtherSeatActed => "something happened after your action (another \
                                                seat acted, forfeited or was taken over)"
                .to_owned(),
            TakeBackRefusal::OutcomeRevealed => {
                "your action revealed something hidden or random".to_owned()
            }
            TakeBackRefusal::TurnOver => {
                "your action ended your turn or changed who has to act".to_owned()
            }
            TakeBackRefusal::TakeBackLimit => {
                format!("you took back {TAKE_BACKS_PER_TURN} actions this turn already")
            }
        }
    }
}

/// An accepted action as the log's `actions` record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggedAction {
    pub first_seq: i64,
    pub last_seq: i64,
    pub seat: Seat,
}

/// What a take-back takes back: the events `from_seq..=to_seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TakeBack {
    pub from_seq: i64,
    pub to_seq: i64,
}

impl TakeBack {
    /// Whether the event at `seq` is one of those taken back.
    pub fn takes_back(self, seq: i64) -> bool {
        (self.from_seq..=self.to_seq).contains(&seq)
    }

    pub fn event(self, seat: Seat) -> ServerEvent {
        ServerEvent::ActionsTakenBack {
            seat,
            from_seq: self.from_seq,
            to_seq: self.to_seq,
        }
    }
}

/// The ranges the take-backs among `server_events` took back.
pub fn taken_back<'a>(
    server_events: impl IntoIterator<Item = &'a ServerEvent>,
) -> Vec<(Seat, TakeBack)> {
    server_events
        .into_iter()
        .filter_map(|event| match *event {
            ServerEvent::ActionsTakenBack {
                seat,
                from_seq,
                to_seq,
            } => Some((seat, TakeBack { from_seq, to_seq })),
            _ => None,
        })
        .collect()
}

/// Whether `seat` may take back its last action in a log that ends at `current_seq`, and
/// what that takes back. `actions` are the log's actions in order, `server_events` its
/// server events with their seqs, `barrier` the barrier of the engine event at a seq and
/// `seat_acts` whether the seat has to act now. The caller checks too that the seats to act
/// before the action are those to act now ([`TakeBackRefusal::TurnOver`] otherwise).
pub fn check(
    seat: Seat,
    current_seq: i64,
    seat_acts: bool,
    actions: &[LoggedAction],
    server_events: &[(i64, ServerEvent)],
    mut barrier: impl FnMut(i64) -> Result<Option<TakeBackBarrier>, ReplayError>,
) -> Result<Result<TakeBack, TakeBackRefusal>, ReplayError> {
    let ranges = taken_back(server_events.iter().map(|(_, event)| event));
    let counts = |seq: i64| !ranges.iter().any(|(_, range)| range.takes_back(seq));
    let mut standing = actions
        .iter()
        .rev()
        .filter(|action| counts(action.first_seq));
    let Some(last) = standing.next() else {
        return Ok(Err(TakeBackRefusal::NothingToTakeBack));
    };
    if last.seat != seat {
        return Ok(Err(TakeBackRefusal::NothingToTakeBack));
    }
    for (seq, event) in server_events {
        if *seq <= last.last_seq || !counts(*seq) {
            continue;
        }
        let harmless = match event {
            ServerEvent::ClockStarted { .. }
            | ServerEvent::ClockStopped { .. }
            | ServerEvent::VacationStarted { .. }
            | ServerEvent::VacationEnded { .. }
            | ServerEvent::AbandonVoted { .. }
            | ServerEvent::AbandonVoteWithdrawn { .. } => true,
            ServerEvent::ActionsTakenBack { seat: by, .. } => *by == seat,
            _ => false,
        };
        if !harmless {
            return Ok(Err(TakeBackRefusal::OtherSeatActed));
        }
    }
    let barriers = (last.first_seq..=last.last_seq)
        .map(&mut barrier)
        .collect::<Result<Vec<_>, _>>()?;
    if barriers.contains(&Some(TakeBackBarrier::Reveals)) {
        return Ok(Err(TakeBackRefusal::OutcomeRevealed));
    }
    if barriers.contains(&Some(TakeBackBarrier::EndsTurn)) || !seat_acts {
        return Ok(Err(TakeBackRefusal::TurnOver));
    }
    // The turn began after the last standing action that could not be taken back by this
    // seat: another seat's, or one with a barrier.
    let mut turn_began = 0;
    for action in standing {
        let fixed = action.seat != seat
            || (action.first_seq..=action.last_seq)
                .map(&mut barrier)
                .collect::<Result<Vec<_>, _>>()?
                .iter()
                .any(Option::is_some);
        if fixed {
            turn_began = action.last_seq;
            break;
        }
    }
    let taken_this_turn = ranges
        .iter()
        .filter(|(by, range)| *by == seat && range.from_seq > turn_began)
        .count();
    if taken_this_turn >= TAKE_BACKS_PER_TURN {
        return Ok(Err(TakeBackRefusal::TakeBackLimit));
    }
    Ok(Ok(TakeBack {
        from_seq: last.first_seq,
        to_seq: current_seq,
    }))
}

/// A fold of a log (or of a stretch of it) that honours its take-backs: the state is copied
/// just before each event a later take-back returns to, and put back at the take-back.
pub struct TakeBackFold {
    table: Box<dyn Table>,
    /// The seqs take-backs return to (the first seq of the action each takes back), with
    /// the state just before it once the fold has passed there.
    copies: Vec<(i64, Option<Box<dyn Table>>)>,
}

impl TakeBackFold {
    /// A fold that goes on from `table`, through a stretch whose take-backs return to
    /// `returns_to` (see [`taken_back`]).
    pub fn new(table: Box<dyn Table>, returns_to: impl IntoIterator<Item = i64>) -> Self {
        TakeBackFold {
            table,
            copies: returns_to.into_iter().map(|seq| (seq, None)).collect(),
        }
    }

    /// The state to fold the event at `seq` into: copied first if a take-back later in the
    /// stretch returns to just before it.
    pub fn before(&mut self, seq: i64) -> &mut dyn Table {
        for (returns_to, copy) in &mut self.copies {
            if *returns_to == seq && copy.is_none() {
                *copy = Some(self.table.clone_table());
            }
        }
        self.table.as_mut()
    }

    /// Folds the take-back at `seq` of the events from `from_seq` on: the state becomes the
    /// one before `from_seq` again. An error when the stretch began after `from_seq`.
    pub fn take_back(&mut self, seq: i64, from_seq: i64) -> Result<(), ReplayError> {
        let copy = self
            .copies
            .iter_mut()
            .find(|(returns_to, copy)| *returns_to == from_seq && copy.is_some())
            .and_then(|(_, copy)| copy.take())
            .ok_or_else(|| {
                ReplayError::Corrupt(format!(
                    "the take-back at seq {seq} returns to seq {from_seq}, which this fold \
                     did not pass"
                ))
            })?;
        self.table = copy;
        Ok(())
    }

    pub fn table(&self) -> &dyn Table {
        self.table.as_ref()
    }

    /// The state just before `from_seq`, if the fold passed there and kept it.
    pub fn copy_before(&self, from_seq: i64) -> Option<&dyn Table> {
        self.copies
            .iter()
            .find(|(returns_to, _)| *returns_to == from_seq)
            .and_then(|(_, copy)| copy.as_deref())
    }

    pub fn into_table(self) -> Box<dyn Table> {
        self.table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(first_seq: i64, last_seq: i64, seat: Seat) -> LoggedAction {
        LoggedAction {
            first_seq,
            last_seq,
            seat,
        }
    }

    fn clock(seat: Seat) -> ServerEvent {
        ServerEvent::ClockStarted {
            seat,
            deadline_ms: 1,
            time_left_ms: 1,
        }
    }

    fn plain(_: i64) -> Result<Option<TakeBackBarrier>, ReplayError> {
        Ok(None)
    }

    #[test]
    fn the_last_own_action_is_taken_back_with_the_clock_events_after_it() {
        let actions = [action(2, 3, 1), action(4, 5, 0)];
        let server = [(6, clock(0))];
        let checked = check(0, 6, true, &actions, &server, plain).unwrap();
        assert_eq!(
            checked,
            Ok(TakeBack {
                from_seq: 4,
                to_seq: 6
            })
        );
    }

    #[test]
    fn another_seats_action_or_forfeit_after_it_refuses() {
        let actions = [action(2, 3, 0), action(4, 5, 1)];
        assert_eq!(
            check(0, 5, true, &actions, &[], plain).unwrap(),
            Err(TakeBackRefusal::NothingToTakeBack)
        );
        let resigned = [(4, ServerEvent::SeatResigned { seat: 1 })];
        assert_eq!(
            check(0, 4, true, &actions[..1], &resigned, plain).unwrap(),
            Err(TakeBackRefusal::OtherSeatActed)
        );
        assert_eq!(
            check(0, 1, true, &[], &[], plain).unwrap(),
            Err(TakeBackRefusal::NothingToTakeBack)
        );
    }

    #[test]
    fn a_reveal_or_a_turn_change_refuses() {
        let actions = [action(2, 4, 0)];
        let reveals = |seq| Ok((seq == 3).then_some(TakeBackBarrier::Reveals));
        let ends = |seq| Ok((seq == 4).then_some(TakeBackBarrier::EndsTurn));
        assert_eq!(
            check(0, 4, true, &actions, &[], reveals).unwrap(),
            Err(TakeBackRefusal::OutcomeRevealed)
        );
        assert_eq!(
            check(0, 4, true, &actions, &[], ends).unwrap(),
            Err(TakeBackRefusal::TurnOver)
        );
        assert_eq!(
            check(0, 4, false, &actions, &[], plain).unwrap(),
            Err(TakeBackRefusal::TurnOver)
        );
    }

    #[test]
    fn take_backs_nest_and_skip_what_was_taken_back() {
        // Red acts at 2 and 3, takes 3 back at 4, acts at 5, takes it back at 6: the action
        // at 2 is now the last standing one.
        let actions = [action(2, 2, 0), action(3, 3, 0), action(5, 5, 0)];
        let server = [
            (
                4,
                TakeBack {
                    from_seq: 3,
                    to_seq: 3,
                }
                .event(0),
            ),
            (
                6,
                TakeBack {
                    from_seq: 5,
                    to_seq: 5,
                }
                .event(0),
            ),
        ];
        assert_eq!(
            check(0, 6, true, &actions, &server, plain).unwrap(),
            Ok(TakeBack {
                from_seq: 2,
                to_seq: 6
            })
        );
        // Another seat's take-back in between is something that happened.
        let theirs = [(
            4,
            TakeBack {
                from_seq: 3,
                to_seq: 3,
            }
            .event(1),
        )];
        let actions = [action(2, 2, 0), action(3, 3, 1)];
        assert_eq!(
            check(0, 4, true, &actions, &theirs, plain).unwrap(),
            Err(TakeBackRefusal::OtherSeatActed)
        );
    }

    #[test]
    fn a_turn_allows_a_bounded_number_of_take_backs() {
        // Blue ended its turn at 2 (a barrier); Red then acted and took back over and over.
        let mut actions = vec![action(2, 2, 1)];
        let mut server = Vec::new();
        let mut seq = 2;
        for _ in 0..TAKE_BACKS_PER_TURN {
            actions.push(action(seq + 1, seq + 1, 0));
            server.push((
                seq + 2,
                TakeBack {
                    from_seq: seq + 1,
                    to_seq: seq + 1,
                }
                .event(0),
            ));
            seq += 2;
        }
        actions.push(action(seq + 1, seq + 1, 0));
        let ended = |at| Ok((at == 2).then_some(TakeBackBarrier::EndsTurn));
        assert_eq!(
            check(0, seq + 1, true, &actions, &server, ended).unwrap(),
            Err(TakeBackRefusal::TakeBackLimit)
        );
        server.pop();
        actions.pop();
        assert!(check(0, seq - 1, true, &actions, &server, ended)
            .unwrap()
            .is_ok());
    }

    /// An rng that notes whether anything drew from it.
    struct Watched {
        inner: rand_chacha::ChaCha8Rng,
        drawn: bool,
    }

    impl rand::RngCore for Watched {
        fn next_u32(&mut self) -> u32 {
            self.drawn = true;
            self.inner.next_u32()
        }
        fn next_u64(&mut self) -> u64 {
            self.drawn = true;
            self.inner.next_u64()
        }
        fn fill_bytes(&mut self, dest: &mut [u8]) {
            self.drawn = true;
            self.inner.fill_bytes(dest)
        }
        fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
            self.drawn = true;
            self.inner.try_fill_bytes(dest)
        }
    }

    fn secrets(table: &dyn Table) -> Vec<(Option<Seat>, String)> {
        let mut secrets: Vec<_> = table
            .secrets()
            .into_iter()
            .map(|secret| (secret.owner, secret.needle))
            .collect();
        secrets.sort();
        secrets
    }

    /// Every engine's sorting of its events, tried over random games: an action none of
    /// whose events is a barrier, after which its seat still acts, drew nothing at random
    /// and left every secret where it was (nothing hidden came to light, nothing changed
    /// hands unseen), so taking it back gives nobody anything they could not see before.
    #[test]
    fn an_action_that_can_be_taken_back_reveals_nothing() {
        use rand::{Rng, SeedableRng};
        for rules in crate::all_games() {
            let options = rules.default_options();
            let version = rules.newest_rules_version();
            let mut plain = 0;
            for seed in 0..6u64 {
                let seats = *rules.player_counts().start() + (seed % 2) as u8;
                let seats = seats.min(*rules.player_counts().end());
                let mut table = rules.new_table(&options, seats, version).unwrap();
                let opening = rules
                    .setup(
                        &options,
                        seats,
                        version,
                        None,
                        &mut crate::rng_for([seed as u8; 32], 0),
                    )
                    .unwrap();
                for event in opening {
                    table
                        .apply(&event.payload.to_string(), rules.event_schema_version())
                        .unwrap();
                }
                let mut pick = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                for step in 0..400u64 {
                    let Some(&seat) = table.to_act().first() else {
                        break;
                    };
                    let legal = table.legal_actions(seat);
                    let action = &legal[pick.gen_range(0..legal.len())];
                    let mut rng = Watched {
                        inner: rand_chacha::ChaCha8Rng::seed_from_u64(seed * 1000 + step),
                        drawn: false,
                    };
                    let (_, events) = table.decide(seat, action, &mut rng).unwrap();
                    let before = secrets(table.as_ref());
                    let mut barrier = false;
                    for event in &events {
                        let payload = event.payload.to_string();
                        barrier |= rules
                            .take_back_barrier(&payload, rules.event_schema_version())
                            .unwrap()
                            .is_some();
                        table.apply(&payload, rules.event_schema_version()).unwrap();
                    }
                    if barrier || !table.to_act().contains(&seat) {
                        continue;
                    }
                    plain += 1;
                    let kind = rules.kind();
                    assert!(!rng.drawn, "{kind}: {action} drew at random");
                    assert_eq!(
                        secrets(table.as_ref()),
                        before,
                        "{kind}: {action} changed what is hidden"
                    );
                }
            }
            assert!(
                plain > 20,
                "{}: only {plain} actions could be taken back",
                rules.kind()
            );
        }
    }
}
