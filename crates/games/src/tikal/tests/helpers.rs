//! Building positions and driving the engine in tests.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::super::data::{data, Terrain};
use super::super::state::{Phase, Pieces, PlacedHex, TikalState};
use super::super::{Tikal, TikalAction, TikalEvent, TikalOptions};
use crate::engine::{Engine, RuleError, Seat};
use crate::kit::hex::rotate_edges;

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub fn fold(options: &TikalOptions, seats: u8, events: &[TikalEvent]) -> TikalState {
    let mut state = Tikal::initial_state(options, seats, Tikal::newest_rules_version());
    for event in events {
        Tikal::evolve(&mut state, event);
    }
    state
}

/// A freshly set-up game and its log.
pub fn new_game(seats: u8, auction: bool, seed: u64) -> (TikalState, Vec<TikalEvent>) {
    let options = TikalOptions { auction };
    let events = Tikal::setup(
        &options,
        seats,
        Tikal::newest_rules_version(),
        None,
        &mut rng(seed),
    )
    .expect("setup");
    (fold(&options, seats, &events), events)
}

/// Decides and folds; returns the events.
pub fn play(
    state: &mut TikalState,
    seat: Seat,
    action: TikalAction,
) -> Result<Vec<TikalEvent>, RuleError> {
    let events = Tikal::decide(state, seat, &action, &mut rng(0))?;
    for event in &events {
        Tikal::evolve(state, event);
    }
    Ok(events)
}

pub fn ok(state: &mut TikalState, seat: Seat, action: TikalAction) -> Vec<TikalEvent> {
    match play(state, seat, action.clone()) {
        Ok(events) => events,
        Err(e) => panic!("{action:?} by seat {seat} refused: {e}"),
    }
}

pub fn code(state: &TikalState, seat: Seat, action: TikalAction) -> &'static str {
    match Tikal::decide(state, seat, &action, &mut rng(0)) {
        Ok(events) => panic!("{action:?} by seat {seat} accepted: {events:?}"),
        Err(e) => e.code,
    }
}

pub fn space(name: &str) -> u8 {
    data().parse_space(name).expect("space name")
}

/// Lays `tile` (an id of tiles.txt, or a pre-printed id) on `hex` directly, bypassing the
/// placement rules, so that tests can build the positions of the rule text.
pub fn lay(state: &mut TikalState, hex: &str, tile: &str, rotation: u8) {
    let def = data().tile(tile).expect("tile id").clone();
    state.draw_pile.retain(|t| t != tile);
    let tokens: Vec<String> = if def.terrain == Terrain::Treasure {
        state.treasure_pile.drain(..def.value as usize).collect()
    } else {
        Vec::new()
    };
    state.board[space(hex) as usize] = Some(PlacedHex {
        tile: def.id.clone(),
        terrain: def.terrain,
        rotation,
        stones: rotate_edges(def.stones, rotation),
        temple_value: if def.terrain == Terrain::Temple {
            def.value
        } else {
            0
        },
        tokens,
        camp: None,
        guard: None,
        pieces: vec![Pieces::default(); state.seats as usize],
    });
}

/// Puts figures of `seat` on `hex`, taken from its supply.
pub fn put(state: &mut TikalState, hex: &str, seat: Seat, workers: u8, leader: bool) {
    let player = &mut state.players[seat as usize];
    player.workers_in_supply -= workers;
    if leader {
        assert!(player.leader_in_supply);
        player.leader_in_supply = false;
    }
    let hex = state.board[space(hex) as usize].as_mut().expect("explored");
    hex.pieces[seat as usize].workers += workers;
    hex.pieces[seat as usize].leader |= leader;
}

/// Makes it `seat`'s normal turn with `ap` action points, nothing done yet.
pub fn acting(state: &mut TikalState, seat: Seat, ap: u8) {
    state.phase = Phase::Acting {
        seat,
        scoring: false,
    };
    state.hand = None;
    state.action_points_left = ap;
    state.uncovered_this_turn.clear();
    state.recovered_this_turn.clear();
}

/// A basic game for `seats` with seat 0 acting with 10 AP on the pre-printed board.
pub fn acting_game(seats: u8) -> TikalState {
    let (mut state, _) = new_game(seats, false, 7);
    // The first drawn hex goes back on top so that the stacks stay complete.
    if let Some(tile) = state.hand.take() {
        state.draw_pile.insert(0, tile);
    }
    acting(&mut state, 0, 10);
    state
}

pub fn mv(from: &str, to: &str, piece: super::super::PieceKind) -> TikalAction {
    TikalAction::Move {
        from: from.into(),
        to: to.into(),
        piece,
        cost: None,
    }
}

pub fn legal(state: &TikalState, seat: Seat) -> Vec<TikalAction> {
    Tikal::legal_actions(state, seat)
}

/// Cost of the cheapest move of a worker listed in the legal actions.
pub fn listed_cost(state: &TikalState, seat: Seat, from: &str, to: &str) -> Option<u8> {
    legal(state, seat).into_iter().find_map(|a| match a {
        TikalAction::Move {
            from: f,
            to: t,
            piece: super::super::PieceKind::Worker,
            cost,
        } if f == from && t == to => cost,
        _ => None,
    })
}
