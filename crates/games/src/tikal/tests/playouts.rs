//! Random playouts driven only by `legal_actions`, checking invariants at every step.

use std::collections::BTreeSet;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::super::data::data;
use super::super::{PieceKind, Tikal, TikalAction, TikalEvent, TikalOptions, TikalState};
use crate::engine::{Engine, Seat};
use crate::kit::playout::Playout;

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
    assert!(state.action_points_left <= 10);
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
    event_types: BTreeSet<String>,
}

fn event_type(json: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    value["type"].as_str().unwrap_or_default().to_string()
}

/// Any action a client could send, mostly near-valid, sometimes garbage.
fn random_action(state: &TikalState, rng: &mut impl Rng) -> TikalAction {
    let data = data();
    let hex = |rng: &mut dyn rand::RngCore| -> String {
        match rng.gen_range(0..20) {
            0 => "Z9".into(),
            1 => "c3".into(),
            2 => "A0".into(),
            _ => data.space_name(rng.gen_range(0..data.spaces() as u8)),
        }
    };
    let piece = if rng.gen_bool(0.7) {
        PieceKind::Worker
    } else {
        PieceKind::Leader
    };
    match rng.gen_range(0..13) {
        0 => TikalAction::PlaceTile {
            space: hex(rng),
            rotation: rng.gen_range(0..8),
        },
        1 => TikalAction::Enter {
            space: hex(rng),
            piece,
        },
        2 | 3 => TikalAction::Move {
            from: hex(rng),
            to: hex(rng),
            piece,
            cost: if rng.gen_bool(0.5) {
                None
            } else {
                Some(rng.gen_range(0..12))
            },
        },
        4 => TikalAction::Uncover { space: hex(rng) },
        5 => TikalAction::Recover { space: hex(rng) },
        6 => TikalAction::Exchange {
            target: rng.gen_range(0..6),
            take: rng.gen_range(0..10),
            give: rng.gen_range(0..10),
        },
        7 => TikalAction::BuildCamp { space: hex(rng) },
        8 => TikalAction::PlaceGuard {
            space: hex(rng),
            piece,
        },
        9 => TikalAction::EndTurn,
        10 => TikalAction::Bid {
            amount: rng.gen_range(0..40),
        },
        11 => TikalAction::Pass,
        _ => TikalAction::ChooseTile {
            tile: match state.revealed.first() {
                Some(tile) if rng.gen_bool(0.5) => tile.clone(),
                _ => data.tiles[rng.gen_range(0..data.tiles.len())].id.clone(),
            },
        },
    }
}

/// `decide` never panics, and whatever it accepts is listed (moves with their cost).
fn fuzz_decide(state: &TikalState, rng: &mut impl Rng) {
    for _ in 0..12 {
        let seat = rng.gen_range(0..6);
        let action = random_action(state, rng);
        let Ok(events) = Tikal::decide(state, seat, &action, &mut super::helpers::rng(0)) else {
            continue;
        };
        let listed = match (&action, events.first()) {
            (
                TikalAction::Move {
                    from, to, piece, ..
                },
                Some(TikalEvent::PieceMoved { cost, .. }),
            ) => TikalAction::Move {
                from: from.clone(),
                to: to.clone(),
                piece: *piece,
                cost: Some(*cost),
            },
            _ => action.clone(),
        };
        assert!(
            Tikal::legal_actions(state, seat).contains(&listed),
            "accepted but not listed: {action:?}"
        );
    }
}

fn playout(seats: u8, auction: bool, seed: u64, thorough: bool) -> Summary {
    let runner = Playout::<Tikal>::new(TikalOptions { auction }, seats)
        .max_actions(STEP_CAP)
        .fold_every(FOLD_EVERY)
        .leak_check_every(usize::from(thorough));
    let strategy =
        |state: &TikalState, seat: Seat, actions: &[TikalAction], rng: &mut ChaCha8Rng| {
            if thorough || seed.is_multiple_of(10) {
                fuzz_decide(state, rng);
            }
            if thorough {
                for action in actions {
                    if let Err(e) = Tikal::decide(state, seat, action, rng) {
                        panic!("seed {seed}: listed {action:?} refused: {e}");
                    }
                }
            }
            choose(actions, rng)
        };
    let finished = runner.run(seed, strategy, |state, _| check_invariants(state));
    let log = &finished.log;
    let state = &finished.state;
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
    Summary {
        steps: finished.actions,
        scorings,
        event_types: log
            .iter()
            .map(|e| event_type(&serde_json::to_string(e).unwrap()))
            .collect(),
    }
}

fn run(seats: u8, auction: bool, seeds: u64) {
    let mut steps = 0;
    let mut seen = BTreeSet::new();
    for seed in 0..seeds {
        let summary = playout(seats, auction, seed * 7919 + seats as u64, seed < 3);
        assert_eq!(summary.scorings, 4);
        steps += summary.steps;
        seen.extend(summary.event_types);
    }
    assert!(steps > 0);
    // The playouts reach every kind of event (auction events only in the variant).
    let mut expected = vec![
        "game_set_up",
        "tile_placed",
        "scoring_round_started",
        "turn_started",
        "piece_entered",
        "piece_moved",
        "temple_uncovered",
        "treasure_recovered",
        "treasure_exchanged",
        "camp_built",
        "guard_placed",
        "turn_ended",
        "player_scored",
        "scoring_round_completed",
        "game_finished",
    ];
    if auction {
        expected.extend([
            "tiles_revealed",
            "bidding_opened",
            "bid_placed",
            "passed",
            "auction_won",
            "tile_chosen",
        ]);
    } else {
        expected.push("tile_drawn");
    }
    let missing: Vec<&str> = expected
        .into_iter()
        .filter(|t| !seen.contains(*t))
        .collect();
    assert!(missing.is_empty(), "never happened: {missing:?}");
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
