//! Tests of the Eternal Palace engine: worked rules, errors, hidden information and random
//! playouts.

mod balance;
mod fuzz;
mod hidden;
mod leaks;
mod modules;
mod playouts;
mod rules_tests;
mod spec;
mod version2;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::action::Action;
use super::event::Event;
use super::state::{Phase, State};
use super::{EternalPalace, EternalPalaceOptions};
use crate::engine::{Engine, Seat};

/// A fresh game under the newest rules after the opening events.
pub fn start(seats: u8, privileges: bool, seed: u64) -> (State, Vec<Event>, ChaCha8Rng) {
    start_under(
        EternalPalace::newest_rules_version(),
        seats,
        privileges,
        seed,
    )
}

/// A fresh game under `rules_version` after the opening events.
pub fn start_under(
    rules_version: u32,
    seats: u8,
    privileges: bool,
    seed: u64,
) -> (State, Vec<Event>, ChaCha8Rng) {
    let options = EternalPalaceOptions::base(privileges);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let events =
        EternalPalace::setup(&options, seats, rules_version, None, &mut rng).expect("setup");
    let mut state = EternalPalace::initial_state(&options, seats, rules_version);
    for e in &events {
        EternalPalace::evolve(&mut state, e);
    }
    (state, events, rng)
}

/// Decides and applies an action that must be accepted.
pub fn act(state: &mut State, seat: Seat, action: Action, rng: &mut ChaCha8Rng) -> Vec<Event> {
    let events = EternalPalace::decide(state, seat, &action, rng)
        .unwrap_or_else(|e| panic!("{action:?} by {seat} refused: {e}"));
    for e in &events {
        EternalPalace::evolve(state, e);
    }
    events
}

/// The error code of an action that must be refused.
pub fn refused(state: &State, seat: Seat, action: Action) -> &'static str {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    match EternalPalace::decide(state, seat, &action, &mut rng) {
        Ok(events) => panic!("{action:?} by {seat} was accepted: {events:?}"),
        Err(e) => e.code,
    }
}

/// A state in the placement phase where `seat` places next and holds exactly `groups`.
/// Other seats hold no groups, so the round ends once `seat` has placed everything. To test
/// several visits at once the groups may hold more than the five dice a player owns.
pub fn placing(seats: u8, privileges: bool, seat: Seat, groups: Vec<Vec<u8>>) -> State {
    placing_under(
        EternalPalace::newest_rules_version(),
        seats,
        privileges,
        seat,
        groups,
    )
}

/// As [`placing`], under `rules_version`.
pub fn placing_under(
    rules_version: u32,
    seats: u8,
    privileges: bool,
    seat: Seat,
    groups: Vec<Vec<u8>>,
) -> State {
    let (mut state, _, _) = start_under(rules_version, seats, privileges, 7);
    state.phase = Phase::Placement;
    state.sealed = vec![None; seats as usize];
    for p in &mut state.players {
        p.groups.clear();
        p.placed.clear();
    }
    let p = &mut state.players[seat as usize];
    p.rolled = groups.iter().flatten().copied().collect();
    p.active_dice = p.rolled.len() as u8;
    p.palace_dice = 5u8.saturating_sub(p.active_dice);
    p.placed = vec![false; groups.len()];
    p.groups = groups;
    state.placer = Some(seat);
    state
}
