//! Random playouts: whole games driven only by `legal_actions`, checking at every step what
//! must hold for every game (someone can act until the game ends, every listed action is
//! accepted, events and states survive JSON, the fold of the log equals the live state, no
//! secret reaches a viewer who may not see it, the game ends), plus the game's own
//! invariants (material conserved, ...); and the checks of a game's samples of what a seat
//! cannot see ([`check_samples`]).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::engine::{Engine, Outcome, Seat, Viewer};

/// Picks the next action among the legal ones.
pub trait Strategy<E: Engine> {
    fn choose(
        &mut self,
        state: &E::State,
        seat: Seat,
        legal: &[E::Action],
        rng: &mut ChaCha8Rng,
    ) -> E::Action;
}

impl<E, F> Strategy<E> for F
where
    E: Engine,
    F: FnMut(&E::State, Seat, &[E::Action], &mut ChaCha8Rng) -> E::Action,
{
    fn choose(
        &mut self,
        state: &E::State,
        seat: Seat,
        legal: &[E::Action],
        rng: &mut ChaCha8Rng,
    ) -> E::Action {
        self(state, seat, legal, rng)
    }
}

/// A whole game played out.
#[derive(Debug)]
pub struct Finished<E: Engine> {
    pub state: E::State,
    pub log: Vec<E::Event>,
    /// Actions taken.
    pub actions: usize,
    pub outcome: Outcome,
}

/// How to play and check games of one kind at one table size.
pub struct Playout<E: Engine> {
    options: E::Options,
    seats: u8,
    rules_version: u32,
    max_actions: usize,
    fold_every: usize,
    leak_check_every: usize,
}

impl<E: Engine> Playout<E> {
    pub fn new(options: E::Options, seats: u8) -> Self {
        Playout {
            options,
            seats,
            rules_version: E::newest_rules_version(),
            max_actions: 20_000,
            fold_every: 64,
            leak_check_every: 0,
        }
    }

    /// Plays under an older rules version than the newest.
    pub fn rules_version(mut self, version: u32) -> Self {
        assert!(
            E::plays_rules_version(version),
            "{} has no rules version {version}",
            E::NAME
        );
        self.rules_version = version;
        self
    }

    /// A game that takes more actions than this fails the playout: it would not end.
    pub fn max_actions(mut self, actions: usize) -> Self {
        self.max_actions = actions;
        self
    }

    /// How often the whole log is folded from scratch and compared with the live state
    /// (and other seats are checked to have nothing to do); always at the end.
    pub fn fold_every(mut self, actions: usize) -> Self {
        self.fold_every = actions.max(1);
        self
    }

    /// How often every response a viewer could get is searched for secrets (0: never).
    pub fn leak_check_every(mut self, actions: usize) -> Self {
        self.leak_check_every = actions;
        self
    }

    /// Plays one game from `seed`, calling `invariants` on every position with the events
    /// that led to it (the opening, then each action's).
    #[track_caller]
    pub fn run(
        &self,
        seed: u64,
        mut strategy: impl Strategy<E>,
        mut invariants: impl FnMut(&E::State, &[E::Event]),
    ) -> Finished<E> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut log = E::setup(
            &self.options,
            self.seats,
            self.rules_version,
            None,
            &mut rng,
        )
        .unwrap_or_else(|refusal| panic!("seed {seed}: set-up refused: {refusal}"));
        let mut state = self.fold(&log);
        let mut actions = 0;
        let mut step_start = 0;
        loop {
            invariants(&state, &log[step_start..]);
            step_start = log.len();
            if actions % self.fold_every == 0 {
                self.check_fold(seed, &state, &log);
            }
            if self.leak_check_every > 0 && actions % self.leak_check_every == 0 {
                assert_no_leaks::<E>(&state, &log, self.seats);
            }
            if let Some(outcome) = E::outcome(&state) {
                assert!(
                    E::to_act(&state).is_empty(),
                    "seed {seed}: finished, yet seats must act"
                );
                self.check_fold(seed, &state, &log);
                self.check_outcome(seed, &outcome);
                return Finished {
                    state,
                    log,
                    actions,
                    outcome,
                };
            }
            assert!(
                actions < self.max_actions,
                "seed {seed}: no end after {actions} actions"
            );
            let to_act = E::to_act(&state);
            assert!(!to_act.is_empty(), "seed {seed}: running, but nobody acts");
            let seat = to_act[rng.gen_range(0..to_act.len())];
            let legal = E::legal_actions(&state, seat);
            assert!(
                !legal.is_empty(),
                "seed {seed}: seat {seat} must act but has no legal action"
            );
            let action = strategy.choose(&state, seat, &legal, &mut rng);
            let events = E::decide(&state, seat, &action, &mut rng).unwrap_or_else(|refusal| {
                panic!("seed {seed}: listed action {action:?} of seat {seat} refused: {refusal}")
            });
            for event in events {
                assert_round_trips(&event);
                E::evolve(&mut state, &event);
                log.push(event);
            }
            actions += 1;
        }
    }

    fn fold(&self, log: &[E::Event]) -> E::State {
        let mut state = E::initial_state(&self.options, self.seats, self.rules_version);
        for event in log {
            E::evolve(&mut state, event);
        }
        state
    }

    #[track_caller]
    fn check_fold(&self, seed: u64, state: &E::State, log: &[E::Event]) {
        assert!(
            self.fold(log) == *state,
            "seed {seed}: the fold of the log differs from the live state"
        );
        assert_round_trips(state);
        let to_act = E::to_act(state);
        for seat in (0..self.seats).filter(|seat| !to_act.contains(seat)) {
            assert!(
                E::legal_actions(state, seat).is_empty(),
                "seed {seed}: seat {seat} need not act but has legal actions"
            );
        }
    }

    #[track_caller]
    fn check_outcome(&self, seed: u64, outcome: &Outcome) {
        let seats = usize::from(self.seats);
        assert_eq!(outcome.scores.len(), seats, "seed {seed}: scores per seat");
        assert_eq!(outcome.places.len(), seats, "seed {seed}: places per seat");
        assert!(
            outcome.places.contains(&1),
            "seed {seed}: nobody won: {outcome:?}"
        );
        for (seat, &place) in outcome.places.iter().enumerate() {
            let better = outcome
                .places
                .iter()
                .filter(|&&other| other < place)
                .count();
            assert_eq!(
                usize::from(place),
                better + 1,
                "seed {seed}: seat {seat}'s place is not a competition rank: {outcome:?}"
            );
        }
    }
}

/// `value` survives a trip through JSON unchanged.
#[track_caller]
pub fn assert_round_trips<T>(value: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_string(value).expect("serialisable");
    let back: T = serde_json::from_str(&json)
        .unwrap_or_else(|error| panic!("{json} does not read back: {error}"));
    assert!(back == *value, "{json} reads back as {back:?}");
}

/// No secret of `state` appears in anything a seat or spectator may get: views, legal
/// actions, redacted events and their descriptions.
#[track_caller]
pub fn assert_no_leaks<E: Engine>(state: &E::State, log: &[E::Event], seats: u8) {
    let secrets = E::secrets(state);
    let full = serde_json::to_string(state).expect("serialisable");
    for secret in &secrets {
        assert!(
            full.contains(&secret.needle),
            "needle {} is not in the state, so it proves nothing",
            secret.needle
        );
    }
    let viewers = (0..seats).map(Viewer::Seat).chain([Viewer::Spectator]);
    for viewer in viewers {
        let mut seen = vec![serde_json::to_string(&E::view(state, viewer)).expect("view")];
        if let Viewer::Seat(seat) = viewer {
            for action in E::legal_actions(state, seat) {
                seen.push(serde_json::to_string(&action).expect("action"));
            }
        }
        for event in log {
            let redacted = E::redact(event, viewer);
            seen.push(serde_json::to_string(&redacted).expect("event"));
            seen.push(E::describe(state, &redacted));
        }
        for secret in &secrets {
            if secret
                .owner
                .is_some_and(|owner| viewer.sees_secrets_of(owner))
            {
                continue;
            }
            if let Some(text) = seen.iter().find(|text| text.contains(&secret.needle)) {
                panic!("{} reaches {viewer:?} in {text}", secret.needle);
            }
        }
    }
}

/// Checks [`Engine::sample_hidden`] at `state` for every seat: the seat's sample shows it the
/// same view and the same legal actions as `state`, holds the same `material` (the game's
/// cards or tiles, listed in any order), and is drawn deterministically from `seed`.
/// Returns each seat's sample, for the game's own checks of what was re-drawn.
#[track_caller]
pub fn check_samples<E: Engine>(
    state: &E::State,
    seats: u8,
    seed: u64,
    material: impl Fn(&E::State) -> Vec<String>,
) -> Vec<E::State> {
    let sorted = |state: &E::State| {
        let mut items = material(state);
        items.sort_unstable();
        items
    };
    let json = |value: &E::View| serde_json::to_value(value).expect("view");
    (0..seats)
        .map(|seat| {
            let sample = E::sample_hidden(state, seat, &mut ChaCha8Rng::seed_from_u64(seed));
            let viewer = Viewer::Seat(seat);
            assert_eq!(
                json(&E::view(&sample, viewer)),
                json(&E::view(state, viewer)),
                "seed {seed}: seat {seat} can tell its sample from the real state"
            );
            assert!(
                E::legal_actions(&sample, seat) == E::legal_actions(state, seat),
                "seed {seed}: seat {seat} may do otherwise in its sample"
            );
            assert_eq!(
                sorted(&sample),
                sorted(state),
                "seed {seed}: seat {seat}'s sample changed the material"
            );
            let again = E::sample_hidden(state, seat, &mut ChaCha8Rng::seed_from_u64(seed));
            assert!(
                again == sample,
                "seed {seed}: sampling is not deterministic"
            );
            sample
        })
        .collect()
}
