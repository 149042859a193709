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
//! - the action revealed nothing hidden or random, did not reach another seat (points,
//!   goods or a card for another seat, a prize claimed, a scoring round begun) and did not
//!   pass the turn on (each engine sorts its events in
//!   [`crate::engine::Engine::take_back_barrier_for`]),
//! - the seat still has to act, with the same seats as before the action,
//! - and it has taken back fewer than [`TAKE_BACKS_PER_TURN`] actions this turn.
//!
//! Take-backs nest: after taking back its last action a seat may take back the one before.

use crate::engine::Seat;
pub use crate::engine::{TakeBackBarrier, Taker};
use crate::server_events::ServerEvent;
use crate::{ReplayError, Table};

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
    /// The action reached another seat (see [`TakeBackBarrier::ReachesOthers`]).
    OthersAffected,
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
            TakeBackRefusal::OthersAffected => "others_affected",
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
            TakeBackRefusal::OthersAffected => "your action reached another seat (it scored or \
                                                 gave something to another seat, took \
                                                 something from one, claimed a prize or began \
                                                 a scoring round)"
                .to_owned(),
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
    if barriers.contains(&Some(TakeBackBarrier::ReachesOthers)) {
        return Ok(Err(TakeBackRefusal::OthersAffected));
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

    /// Each game's policy for actions that reach another seat, event by event: the barrier
    /// holds from the game's rules version that states it, for the seats it names, and
    /// games of earlier versions keep taking such actions back.
    #[test]
    fn what_reaches_another_seat_stays_from_each_games_policy_version() {
        use serde_json::json;
        let reaches = Some(TakeBackBarrier::ReachesOthers);
        // (kind, event, taker, the version before the policy, its barrier then, from the
        // policy's version on)
        let cases = [
            (
                "tikal",
                json!({"type": "treasure_exchanged", "seat": 0, "target": 1, "took": 2, "gave": 3}),
                0,
                1,
                None,
                reaches,
            ),
            (
                "tikal",
                json!({"type": "scoring_round_started", "number": 1, "trigger": 0, "order": [0, 1]}),
                0,
                1,
                None,
                reaches,
            ),
            (
                "java",
                json!({"type": "water_enclosed", "spaces": ["L6"], "scorer": 1, "points": 2}),
                0,
                3,
                None,
                reaches,
            ),
            (
                "java",
                json!({"type": "water_enclosed", "spaces": ["L6"], "scorer": 0, "points": 2}),
                0,
                3,
                None,
                None,
            ),
            (
                "java",
                json!({"type": "water_enclosed", "spaces": ["L6"], "scorer": null, "points": 2}),
                0,
                3,
                None,
                None,
            ),
            (
                "eternal_palace",
                json!({"type": "goods_changed", "seat": 2, "delta": {"fish": 1}, "reason": "diplomacy"}),
                1,
                5,
                None,
                reaches,
            ),
            (
                "eternal_palace",
                json!({"type": "goods_changed", "seat": 1, "delta": {"fish": 1}, "reason": "advisor"}),
                1,
                5,
                None,
                None,
            ),
            (
                "eternal_palace",
                json!({"type": "goods_changed", "seat": 0, "delta": {"fish": -1}, "reason": "demand_penalty"}),
                1,
                5,
                None,
                reaches,
            ),
            (
                "eternal_palace",
                json!({"type": "demand_settled", "card": "d01"}),
                1,
                5,
                None,
                reaches,
            ),
            (
                "eternal_palace",
                json!({"type": "composition_claimed", "seat": 1, "card": "c01"}),
                1,
                5,
                None,
                reaches,
            ),
            (
                "eternal_palace",
                json!({"type": "turn_passed", "next": 2}),
                1,
                5,
                Some(TakeBackBarrier::EndsTurn),
                Some(TakeBackBarrier::EndsTurn),
            ),
        ];
        for (kind, event, seat, before, then, now) in cases {
            let rules = crate::find_game_rules(kind).unwrap();
            let barrier = |rules_version| {
                rules
                    .take_back_barrier(
                        &event.to_string(),
                        rules.event_schema_version(),
                        Taker {
                            seat,
                            rules_version,
                        },
                    )
                    .unwrap()
            };
            assert_eq!(barrier(before), then, "{kind} version {before}: {event}");
            assert_eq!(
                barrier(before + 1),
                now,
                "{kind} version {}: {event}",
                before + 1
            );
            let policy_from = match kind {
                "tikal" => crate::tikal::REACHING_OTHERS_STAYS_FROM_VERSION,
                "java" => crate::java::REACHING_OTHERS_STAYS_FROM_VERSION,
                _ => crate::eternal_palace::REACHING_OTHERS_STAYS_FROM_VERSION,
            };
            assert_eq!(policy_from, before + 1, "{kind}");
        }
    }

    /// What each seat holds, as spectators see it: the view's `players` without the
    /// figures that only project the shared board onto a scoring now (Tikal's temple and
    /// treasure points, Eternal Palace's score if the game ended now, which majorities
    /// move).
    fn holdings(kind: &str, table: &dyn Table) -> Vec<serde_json::Value> {
        let projections: &[&str] = match kind {
            "tikal" => &["temple_points_now", "treasure_points_now"],
            "eternal_palace" => &["score"],
            _ => &[],
        };
        let view = table.view(crate::engine::Viewer::Spectator);
        let players = view["players"].as_array().cloned().unwrap_or_default();
        players
            .into_iter()
            .map(|mut player| {
                if let Some(fields) = player.as_object_mut() {
                    fields.retain(|field, _| !projections.contains(&field.as_str()));
                }
                player
            })
            .collect()
    }

    /// Every option of `rules` tried: none, each alone, each pair, with the list options
    /// (Eternal Palace's location tiles) given in full in every other set; only the sets
    /// the game accepts. Read from the options' schema, so a new option is tried unasked.
    fn option_sets(rules: &dyn crate::GameRules) -> Vec<serde_json::Value> {
        use serde_json::{json, Map, Value};
        let schema = serde_json::to_value(rules.options_schema()).unwrap();
        let named: Vec<(String, Value)> = rules
            .schemas("Options")
            .into_iter()
            .map(|(name, schema)| (name, serde_json::to_value(schema).unwrap()))
            .collect();
        let resolve = |schema: &Value| match schema["$ref"].as_str() {
            Some(reference) => {
                let name = reference.rsplit('/').next().unwrap_or_default();
                named
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, schema)| schema.clone())
                    .unwrap_or(Value::Null)
            }
            None => schema.clone(),
        };
        let properties = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let switches: Vec<&String> = properties
            .iter()
            .filter(|(_, property)| property["type"] == "boolean")
            .map(|(name, _)| name)
            .collect();
        let lists: Map<String, Value> = properties
            .iter()
            .filter_map(|(name, property)| {
                let values = resolve(&property["items"])["enum"].clone();
                values.is_array().then(|| (name.clone(), values))
            })
            .collect();
        let mut sets = vec![Map::new()];
        for (index, first) in switches.iter().enumerate() {
            sets.push(Map::from_iter([((*first).clone(), json!(true))]));
            for second in &switches[index + 1..] {
                sets.push(Map::from_iter([
                    ((*first).clone(), json!(true)),
                    ((*second).clone(), json!(true)),
                ]));
            }
        }
        let every = switches.len() + lists.len();
        let accepted: Vec<Value> = sets
            .into_iter()
            .enumerate()
            .map(|(index, mut set)| {
                if index % 2 == 1 {
                    set.extend(lists.clone());
                }
                Value::Object(set)
            })
            .filter(|set| {
                let seats = *rules.player_counts().start();
                let version = rules.newest_rules_version();
                let mut rng = crate::rng_for([0; 32], 0);
                rules.setup(set, seats, version, None, &mut rng).is_ok()
            })
            .collect();
        let tried = properties
            .keys()
            .filter(|name| accepted.iter().any(|set| set.get(name.as_str()).is_some()))
            .count();
        assert_eq!(tried, every, "{}: an option is never tried", rules.kind());
        accepted
    }

    /// Every engine's sorting of its events, tried over random games under every option: an
    /// action none of whose events is a barrier for its seat, after which that seat still
    /// acts, drew nothing at random, left every secret where it was (nothing hidden came to
    /// light, nothing changed hands unseen) and left what every other seat holds as it was
    /// (no points, goods or cards for or from another seat). So taking it back gives nobody
    /// anything they could not see before and takes nothing from another seat.
    #[test]
    fn an_action_that_can_be_taken_back_reveals_nothing_and_reaches_nobody_else() {
        use rand::{Rng, SeedableRng};
        for rules in crate::all_games() {
            let kind = rules.kind();
            let version = rules.newest_rules_version();
            let option_sets = option_sets(*rules);
            let seeds_per_set = (12 / option_sets.len() as u64).max(2);
            let mut plain = 0;
            for (set, options) in option_sets.iter().enumerate() {
                for seed in (set as u64 * seeds_per_set)..((set as u64 + 1) * seeds_per_set) {
                    let players = rules.player_counts();
                    let seats = (*players.start() + (seed % 3) as u8).min(*players.end());
                    let mut table = rules.new_table(options, seats, version).unwrap();
                    let opening = rules
                        .setup(
                            options,
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
                        let secrets_before = secrets(table.as_ref());
                        let holdings_before = holdings(kind, table.as_ref());
                        let taker = Taker {
                            seat,
                            rules_version: version,
                        };
                        let mut barrier = false;
                        for event in &events {
                            let payload = event.payload.to_string();
                            barrier |= rules
                                .take_back_barrier(&payload, rules.event_schema_version(), taker)
                                .unwrap()
                                .is_some();
                            table.apply(&payload, rules.event_schema_version()).unwrap();
                        }
                        if barrier || !table.to_act().contains(&seat) {
                            continue;
                        }
                        plain += 1;
                        assert!(!rng.drawn, "{kind} {options}: {action} drew at random");
                        assert_eq!(
                            secrets(table.as_ref()),
                            secrets_before,
                            "{kind} {options}: {action} changed what is hidden"
                        );
                        let holdings_after = holdings(kind, table.as_ref());
                        for (other, held) in holdings_after.iter().enumerate() {
                            if other != usize::from(seat) {
                                assert_eq!(
                                    held, &holdings_before[other],
                                    "{kind} {options}: {action} by seat {seat} reached seat \
                                     {other}"
                                );
                            }
                        }
                    }
                }
            }
            assert!(
                plain > 20,
                "{kind}: only {plain} actions could be taken back"
            );
        }
    }
}
