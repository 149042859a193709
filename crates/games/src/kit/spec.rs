//! Rule tests that read as specifications, in the decider style: *given* these events,
//! *when* this seat takes this action, *then* these events follow, or this rule refuses it.
//! Positions are built from events, never by editing state fields, so a test can only
//! describe a position the game can reach.
//!
//! ```ignore
//! Spec::<Tikal>::set_up(TikalOptions::default(), 2, 7)
//!     .given(vec![TikalEvent::TurnStarted { seat: 0, scoring: false }])
//!     .when(1, TikalAction::EndTurn)
//!     .then_rejected(SharedRule::NotYourTurn);
//! ```

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::engine::{Engine, RuleCode, RuleError, Seat};

/// A position described by its log.
pub struct Spec<E: Engine> {
    log: Vec<E::Event>,
    state: E::State,
}

impl<E: Engine> Spec<E> {
    /// A game under the newest rules, just set up with the opening events that `seed`
    /// shuffles.
    #[track_caller]
    pub fn set_up(options: E::Options, seats: u8, seed: u64) -> Self {
        Self::set_up_under(E::newest_rules_version(), options, seats, seed)
    }

    /// The same under an older rules version, to show that its games still play as before.
    #[track_caller]
    pub fn set_up_under(rules_version: u32, options: E::Options, seats: u8, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let events = E::setup(&options, seats, rules_version, None, &mut rng)
            .unwrap_or_else(|refusal| panic!("set-up refused: {refusal}"));
        Self::empty_under(rules_version, options, seats).given(events)
    }

    /// Nothing but the empty table under the newest rules; add the opening with
    /// [`Spec::given`].
    pub fn empty(options: E::Options, seats: u8) -> Self {
        Self::empty_under(E::newest_rules_version(), options, seats)
    }

    /// Nothing but the empty table under `rules_version`.
    #[track_caller]
    pub fn empty_under(rules_version: u32, options: E::Options, seats: u8) -> Self {
        assert!(
            E::plays_rules_version(rules_version),
            "{} has no rules version {rules_version}",
            E::NAME
        );
        Spec {
            log: Vec::new(),
            state: E::initial_state(&options, seats, rules_version),
        }
    }

    /// These events happened next.
    pub fn given(mut self, events: impl IntoIterator<Item = E::Event>) -> Self {
        for event in events {
            E::evolve(&mut self.state, &event);
            self.log.push(event);
        }
        self
    }

    /// These actions were taken next, and accepted.
    #[track_caller]
    pub fn given_actions(self, actions: impl IntoIterator<Item = (Seat, E::Action)>) -> Self {
        actions.into_iter().fold(self, |spec, (seat, action)| {
            spec.when(seat, action).accepted().0
        })
    }

    /// The position so far.
    pub fn state(&self) -> &E::State {
        &self.state
    }

    /// `seat` asks to take `action`. Randomness comes from a generator seeded with the
    /// length of the log, so a specification always sees the same draws.
    pub fn when(self, seat: Seat, action: E::Action) -> Decision<E> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.log.len() as u64);
        let result = E::decide(&self.state, seat, &action, &mut rng);
        Decision {
            before: self,
            seat,
            action,
            result,
        }
    }
}

/// What the engine decided, waiting for the test's expectation.
pub struct Decision<E: Engine> {
    before: Spec<E>,
    seat: Seat,
    action: E::Action,
    result: Result<Vec<E::Event>, RuleError>,
}

impl<E: Engine> Decision<E> {
    /// The action must be accepted with exactly `expected`; the position after it follows.
    #[track_caller]
    pub fn then_events(self, expected: impl IntoIterator<Item = E::Event>) -> Spec<E> {
        let expected: Vec<E::Event> = expected.into_iter().collect();
        let (after, events) = self.accepted();
        assert_eq!(events, expected, "events of the action");
        after
    }

    /// The action must be refused for `code`; returns the message for further checks.
    #[track_caller]
    pub fn then_rejected(self, code: impl RuleCode) -> String {
        match self.result {
            Ok(events) => panic!(
                "{:?} by seat {} was accepted with {events:?}, expected {}",
                self.action,
                self.seat,
                code.as_str()
            ),
            Err(refusal) => {
                assert_eq!(refusal.code, code.as_str(), "{}", refusal.message);
                assert!(
                    E::rule_codes()
                        .iter()
                        .any(|(listed, _)| *listed == refusal.code),
                    "{} is not among the codes {} declares",
                    refusal.code,
                    E::NAME
                );
                refusal.message
            }
        }
    }

    /// The action must be accepted; returns the position after it and its events.
    #[track_caller]
    pub fn accepted(self) -> (Spec<E>, Vec<E::Event>) {
        match self.result {
            Ok(events) => {
                let after = self.before.given(events.clone());
                (after, events)
            }
            Err(refusal) => panic!(
                "{:?} by seat {} was refused: {refusal}",
                self.action, self.seat
            ),
        }
    }
}
