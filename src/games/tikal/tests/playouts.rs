//! Random playouts driven only by `legal_actions`, checking invariants at every step.

use rand::Rng;

use super::super::data::data;
use super::super::{Tikal, TikalAction, TikalEvent, TikalOptions, TikalState};
use super::helpers::{fold, rng};
use crate::games::engine::{Engine, Viewer};

const FIGURES: u32 = 19;
const STEP_CAP: usize = 20_000;
/// How often the whole log is folded from scratch and compared with the live state.
const FOLD_EVERY: usize = 64;

fn check_invariants(state: &TikalState) {
    let data = data();
    for seat in 0..state.seats {
        assert_eq!(
            state.figure_total(seat),
            FIGURES,
            "figures of seat {seat} not conserved"
        );
        let player = &state.players[seat as usize];
        assert!(player.camps_built <= 2 && player.guards_placed <= 2);
        assert!(player.score >= 0, "negative score");
    }
    assert!(state.ap_left <= 10);
    // Treasure tokens: every kind is conserved between reserve, board and hands.
    let mut per_kind = vec![0u32; data.treasure_kinds()];
    let hidden = state
        .treasure_pile
        .iter()
        .chain(state.board.iter().flatten().flat_map(|h| &h.tokens));
    for id in hidden {
        per_kind[data.treasure_kind_of(id).expect("token id") as usize - 1] += 1;
    }
    for player in &state.players {
        for (kind, &n) in player.treasures.iter().enumerate() {
            per_kind[kind] += n as u32;
        }
    }
    for (kind, &n) in per_kind.iter().enumerate() {
        assert_eq!(
            n,
            data.treasure_copies[kind] as u32,
            "treasure kind {} lost",
            kind + 1
        );
    }
    // Terrain hexes: every tile is in the stacks, face up, in hand or on the board.
    let on_board = state
        .board
        .iter()
        .flatten()
        .filter(|h| h.tile.starts_with("tile-"))
        .count();
    let total =
        state.draw_pile.len() + state.revealed.len() + usize::from(state.hand.is_some()) + on_board;
    assert_eq!(total, data.tiles.len(), "terrain hexes not conserved");
    for (value, &left) in state.temple_supply.iter().enumerate() {
        assert!(left <= data.temple_tiles[value]);
    }
    for hex in state.board.iter().flatten() {
        if let Some(guard) = hex.guard {
            assert_eq!(hex.terrain, super::super::data::Terrain::Temple);
            let _ = guard;
        }
        assert!(hex.temple_value <= 10);
    }
    assert!(state.scorings_completed <= 4);
    if !state.is_finished() {
        assert!(!Tikal::to_act(state).is_empty(), "nobody to act");
    }
}

fn check_secrets(state: &TikalState, events: &[TikalEvent]) {
    let secrets = Tikal::secrets(state);
    let full = serde_json::to_string(state).unwrap();
    for secret in &secrets {
        assert!(
            full.contains(&secret.needle),
            "needle {} not in state",
            secret.needle
        );
    }
    let mut public = Vec::new();
    for viewer in (0..state.seats)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
    {
        public.push(serde_json::to_string(&Tikal::view(state, viewer)).unwrap());
        for seat in 0..state.seats {
            for action in Tikal::legal_actions(state, seat) {
                public.push(serde_json::to_string(&action).unwrap());
            }
        }
        for event in events {
            let redacted = Tikal::redact(event, viewer);
            public.push(serde_json::to_string(&redacted).unwrap());
            public.push(Tikal::describe(state, &redacted));
        }
    }
    for text in &public {
        for secret in &secrets {
            assert!(
                !text.contains(&secret.needle),
                "{} leaked in {text}",
                secret.needle
            );
        }
    }
}

/// Picks a legal action: ends the turn now and then so turns vary, else uniformly.
fn choose(actions: &[TikalAction], rng: &mut impl Rng) -> TikalAction {
    let others: Vec<&TikalAction> = actions
        .iter()
        .filter(|a| **a != TikalAction::EndTurn)
        .collect();
    let can_end = others.len() < actions.len();
    if others.is_empty() || (can_end && rng.gen_bool(0.15)) {
        return TikalAction::EndTurn;
    }
    others[rng.gen_range(0..others.len())].clone()
}

struct Summary {
    steps: usize,
    scorings: usize,
}

fn playout(seats: u8, auction: bool, seed: u64, thorough: bool) -> Summary {
    let options = TikalOptions { auction };
    let mut rng = rng(seed);
    let mut log = Tikal::setup(&options, seats, &mut rng).unwrap();
    let mut state = fold(&options, seats, &log);
    check_invariants(&state);
    if thorough {
        check_secrets(&state, &log);
    }
    let mut steps = 0;
    while !state.is_finished() {
        steps += 1;
        assert!(steps < STEP_CAP, "seed {seed}: game does not end");
        let seat = Tikal::to_act(&state)[0];
        for other in (0..seats).filter(|&s| s != seat) {
            assert!(Tikal::legal_actions(&state, other).is_empty());
        }
        let actions = Tikal::legal_actions(&state, seat);
        assert!(
            !actions.is_empty(),
            "seed {seed}: no legal action for {seat}"
        );
        if thorough {
            for action in &actions {
                if let Err(e) = Tikal::decide(&state, seat, action, &mut rng) {
                    panic!("seed {seed}: listed {action:?} refused: {e}");
                }
            }
        }
        let action = choose(&actions, &mut rng);
        let events = match Tikal::decide(&state, seat, &action, &mut rng) {
            Ok(events) => events,
            Err(e) => panic!("seed {seed}: listed {action:?} refused: {e}"),
        };
        assert!(!events.is_empty());
        for event in &events {
            Tikal::evolve(&mut state, event);
            let json = serde_json::to_string(event).unwrap();
            assert_eq!(&serde_json::from_str::<TikalEvent>(&json).unwrap(), event);
        }
        check_invariants(&state);
        let json = serde_json::to_string(&state).unwrap();
        let back: TikalState = serde_json::from_str(&json).unwrap();
        assert_eq!(back, state, "seed {seed}: state JSON round trip");
        if thorough {
            check_secrets(&state, &events);
        }
        log.extend(events);
        if steps % FOLD_EVERY == 0 {
            assert_eq!(
                fold(&options, seats, &log),
                state,
                "seed {seed}: fold differs"
            );
        }
    }
    assert_eq!(
        fold(&options, seats, &log),
        state,
        "seed {seed}: fold differs"
    );
    let scorings = log
        .iter()
        .filter(|e| matches!(e, TikalEvent::ScoringRoundCompleted { .. }))
        .count();
    let scored = log
        .iter()
        .filter(|e| matches!(e, TikalEvent::PlayerScored { .. }))
        .count();
    assert_eq!(scorings, 4, "seed {seed}: exactly 4 scoring rounds");
    assert_eq!(
        scored,
        4 * seats as usize,
        "seed {seed}: every seat scores in each round"
    );
    assert!(state.draw_pile.is_empty() && state.revealed.is_empty() && state.hand.is_none());
    assert_eq!(
        state.board.iter().flatten().count(),
        state.board.len(),
        "board full"
    );
    let outcome = Tikal::outcome(&state).expect("outcome");
    assert_eq!(outcome.scores.len(), seats as usize);
    assert!(outcome.places.contains(&1));
    Summary { steps, scorings }
}

fn run(seats: u8, auction: bool, seeds: u64) {
    let mut steps = 0;
    for seed in 0..seeds {
        let summary = playout(seats, auction, seed * 7919 + seats as u64, seed < 3);
        assert_eq!(summary.scorings, 4);
        steps += summary.steps;
    }
    assert!(steps > 0);
}

#[test]
fn playouts_basic_2_players() {
    run(2, false, 1000);
}

#[test]
fn playouts_basic_3_players() {
    run(3, false, 1000);
}

#[test]
fn playouts_basic_4_players() {
    run(4, false, 1000);
}

#[test]
fn playouts_auction_2_players() {
    run(2, true, 300);
}

#[test]
fn playouts_auction_3_players() {
    run(3, true, 300);
}

#[test]
fn playouts_auction_4_players() {
    run(4, true, 300);
}
