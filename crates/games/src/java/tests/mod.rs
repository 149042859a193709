//! Engine tests: worked examples from the rule text, one test per rule restriction,
//! hidden-information checks and random playouts.

mod audit;
mod examples;
mod hidden;
mod options;
mod playouts;
mod rule_checks;
mod spec;
mod versions;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::action::{CardSource, JavaAction, TileKind};
use super::data::{board, Symbol};
use super::event::{Card, JavaEvent};
use super::state::{HandCard, JavaState, Terrain};
use super::{Java, JavaOptions};
use crate::engine::{Engine, Seat};

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A game right after setup: seat 0 to play turn 1 with 6 AP.
pub fn game(seats: u8) -> JavaState {
    game_under(Java::newest_rules_version(), seats)
}

/// The same under an older rules version.
pub fn game_under(rules_version: u32, seats: u8) -> JavaState {
    game_with(&JavaOptions::default(), rules_version, seats)
}

/// The same with options.
pub fn game_with(options: &JavaOptions, rules_version: u32, seats: u8) -> JavaState {
    let mut state = Java::initial_state(options, seats, rules_version);
    for event in Java::setup(options, seats, rules_version, None, &mut rng(7)).unwrap() {
        Java::evolve(&mut state, &event);
    }
    state
}

pub fn idx(name: &str) -> usize {
    board()
        .index(name)
        .unwrap_or_else(|| panic!("no space {name}"))
}

/// Applies an action that must be legal; returns its events.
pub fn act(state: &mut JavaState, seat: Seat, action: JavaAction) -> Vec<JavaEvent> {
    let events = Java::decide(state, seat, &action, &mut rng(99))
        .unwrap_or_else(|e| panic!("{action:?} refused: {e}"));
    for event in &events {
        Java::evolve(state, event);
    }
    events
}

/// The rule code with which an action is refused.
pub fn refused(state: &JavaState, seat: Seat, action: JavaAction) -> &'static str {
    match Java::decide(state, seat, &action, &mut rng(99)) {
        Ok(events) => panic!("{action:?} was accepted: {events:?}"),
        Err(e) => e.code,
    }
}

/// The edge (0-5, clockwise from north-west) of space `a` that touches its neighbour `b`.
pub fn direction(a: &str, b: &str) -> u8 {
    let cells = &board().cells;
    cells[idx(a)]
        .hex
        .direction_to(cells[idx(b)].hex)
        .unwrap_or_else(|| panic!("{a} and {b} are not neighbours")) as u8
}

/// The place_tile action laying a tile with its village on `village` and rice on `rice`.
/// Entering a developer, its cost left for the engine to work out.
pub fn enter(to: &str) -> JavaAction {
    JavaAction::EnterDeveloper {
        to: to.into(),
        cost: None,
    }
}

/// Moving a developer, its cost left for the engine to work out.
pub fn mv(from: &str, to: &str) -> JavaAction {
    JavaAction::MoveDeveloper {
        from: from.into(),
        to: to.into(),
        cost: None,
    }
}

pub fn irrigate(space: &str) -> JavaAction {
    JavaAction::PlaceIrrigation {
        space: space.into(),
    }
}

pub fn festival(palace: &str, cards: &[&str]) -> JavaAction {
    JavaAction::HoldFestival {
        space: palace.into(),
        cards: cards.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn tile_action(kind: TileKind, village: &str, rice: &[&str]) -> JavaAction {
    let (space, rotation) = match kind {
        TileKind::ThreeSpace => {
            let (d0, d1) = (direction(village, rice[0]), direction(village, rice[1]));
            // Rice lies across edge `rotation` and the edge counter-clockwise of it.
            let o = if (d1 + 1) % 6 == d0 {
                d0
            } else {
                assert_eq!((d0 + 1) % 6, d1, "{village} {rice:?} is no triangle");
                d1
            };
            (village, o)
        }
        TileKind::TwoSpace => (village, direction(village, rice[0])),
        TileKind::OneSpaceRice => (rice[0], 0),
        TileKind::OneSpaceVillage => (village, 0),
    };
    JavaAction::PlaceTile {
        tile: kind,
        space: space.to_string(),
        rotation,
        cost: None,
    }
}

pub fn three(village: &str, rice_a: &str, rice_b: &str) -> JavaAction {
    tile_action(TileKind::ThreeSpace, village, &[rice_a, rice_b])
}

/// Puts a stack of `height` one-space tiles of `terrain` on `name` (scenario building).
pub fn lay(state: &mut JavaState, name: &str, height: u8, terrain: Terrain) {
    for _ in 0..height {
        let id = state.tile_sizes.len() as u16;
        state.tile_sizes.push(1);
        let space = &mut state.spaces[idx(name)];
        space.height += 1;
        space.terrain = Some(terrain);
        space.top_tile = Some(id);
    }
}

pub fn village(state: &mut JavaState, names: &[&str], height: u8) {
    for name in names {
        lay(state, name, height, Terrain::Village);
    }
}

pub fn rice(state: &mut JavaState, names: &[&str], height: u8) {
    for name in names {
        lay(state, name, height, Terrain::Rice);
    }
}

/// Stands a developer of `seat` (from the reserve) on `name`.
pub fn stand(state: &mut JavaState, seat: Seat, name: &str) {
    state.spaces[idx(name)].developer = Some(seat);
    state.players[seat as usize].developers -= 1;
}

pub fn card(id: &str, symbols: &[Symbol]) -> Card {
    Card {
        id: id.to_string(),
        symbols: symbols.to_vec(),
    }
}

/// Replaces a seat's hand (the replaced cards go to the discard pile, so cards stay
/// conserved).
pub fn give_hand(state: &mut JavaState, seat: Seat, cards: Vec<Card>) {
    let old = std::mem::take(&mut state.players[seat as usize].hand);
    state.discard.extend(old.into_iter().map(|h| h.card));
    state.players[seat as usize].hand = cards
        .into_iter()
        .map(|card| HandCard {
            card,
            public: false,
        })
        .collect();
}

pub fn score(state: &JavaState, seat: Seat) -> i32 {
    state.players[seat as usize].score
}

pub fn buy(source: CardSource) -> JavaAction {
    JavaAction::BuyCard { source }
}
