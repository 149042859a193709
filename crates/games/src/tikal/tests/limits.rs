//! One test per limit and error of the rules, each checking its rule code.

use super::super::data::data;
use super::super::state::{Guard, Phase};
use super::super::{PieceKind, Tikal, TikalAction, TikalEvent, TikalOptions, TikalState};
use super::helpers::*;
use crate::engine::{Engine, Viewer};

use PieceKind::{Leader, Worker};

fn enter(hex: &str, piece: PieceKind) -> TikalAction {
    TikalAction::Enter {
        space: hex.into(),
        piece,
    }
}

fn uncover(hex: &str) -> TikalAction {
    TikalAction::Uncover { space: hex.into() }
}

fn recover(hex: &str) -> TikalAction {
    TikalAction::Recover { space: hex.into() }
}

fn camp(hex: &str) -> TikalAction {
    TikalAction::BuildCamp { space: hex.into() }
}

fn guard(hex: &str, piece: PieceKind) -> TikalAction {
    TikalAction::PlaceGuard {
        space: hex.into(),
        piece,
    }
}

fn place(hex: &str, rotation: u8) -> TikalAction {
    TikalAction::PlaceTile {
        space: hex.into(),
        rotation,
    }
}

fn listed(state: &TikalState, seat: u8, action: &TikalAction) -> bool {
    legal(state, seat).contains(action)
}

/// A basic 2-player game where seat 0 must lay `tile`.
fn placing(tile: &str) -> TikalState {
    let (mut state, _) = new_game(2, false, 1);
    let drawn = state.hand.take().unwrap();
    state.draw_pile.insert(0, drawn);
    state.draw_pile.retain(|t| t != tile);
    state.hand = Some(tile.into());
    state.phase = Phase::Placing { seat: 0 };
    state
}

#[test]
fn setup_rejects_unsupported_player_counts() {
    for seats in [0, 1, 5] {
        let result = Tikal::setup(
            &TikalOptions::default(),
            seats,
            Tikal::newest_rules_version(),
            None,
            &mut rng(1),
        );
        assert_eq!(result.unwrap_err().code, "unsupported_player_count");
    }
}

#[test]
fn setup_shuffles_each_stack_and_draws_from_a() {
    let (state, events) = new_game(3, false, 42);
    let TikalEvent::GameSetUp {
        tile_order: Some(order),
        treasure_order: Some(tokens),
        ..
    } = &events[0]
    else {
        panic!("setup event first")
    };
    let letters: String = order
        .iter()
        .map(|id| data().tile(id).unwrap().stack)
        .collect();
    let mut sorted: Vec<char> = letters.chars().collect();
    sorted.sort();
    assert_eq!(letters, sorted.into_iter().collect::<String>());
    assert_eq!(tokens.len(), 24);
    assert!(matches!(&events[1], TikalEvent::TileDrawn { seat: 0, tile } if tile == &order[0]));
    assert_eq!(state.phase, Phase::Placing { seat: 0 });
    for player in &state.players {
        assert_eq!(
            (player.workers_in_supply, player.leader_in_supply),
            (18, true)
        );
        assert_eq!(player.score, 0);
    }
    let (other, _) = new_game(3, false, 43);
    assert_ne!(
        other.draw_pile, state.draw_pile,
        "different seeds shuffle differently"
    );
}

#[test]
fn placement_needs_a_stone_on_a_shared_edge() {
    // tile-C2: jungle with 3 stones on N only.
    let state = placing("tile-C2");
    // A3 touches A4 (its S), whose N edge has 2 stones: every rotation connects.
    assert!(listed(&state, 0, &place("A3", 0)));
    assert!(listed(&state, 0, &place("A3", 3)));
    // C3 touches no explored hex at all.
    assert_eq!(code(&state, 0, place("C3", 0)), "not_connected");
    // C4 touches B4 (its SW), whose NE edge has a stone.
    assert!(listed(&state, 0, &place("C4", 0)));
    assert_eq!(code(&state, 0, place("A5", 0)), "space_occupied");
    assert_eq!(code(&state, 0, place("A3", 6)), "invalid_rotation");
    for bad in ["Z9", "C0", "c3", "", "A55", "I1"] {
        assert_eq!(code(&state, 0, place(bad, 0)), "unknown_space", "{bad:?}");
    }
    assert_eq!(code(&state, 1, place("A3", 0)), "not_your_turn");
    assert_eq!(code(&state, 0, TikalAction::EndTurn), "wrong_phase");
}

#[test]
fn placement_rotation_matters() {
    let mut state = placing("tile-C2");
    // Take away the stones of B4 and B5 that face C5.
    state.board[space("B4") as usize].as_mut().unwrap().stones = [1, 1, 0, 0, 0, 0];
    state.board[space("B5") as usize].as_mut().unwrap().stones = [1, 0, 0, 0, 0, 0];
    // C5 (even column): NW is B4, SW is B5. Neither has a stone towards C5 now, so only
    // the rotation that turns tile-C2's stones to NW (5) or SW (4) connects.
    let ok_rotations: Vec<u8> = (0..6)
        .filter(|&r| listed(&state, 0, &place("C5", r)))
        .collect();
    assert_eq!(ok_rotations, vec![4, 5]);
    assert_eq!(code(&state, 0, place("C5", 0)), "not_connected");
    ok(&mut state, 0, place("C5", 4));
    assert_eq!(state.hex(space("C5")).unwrap().stones, [0, 0, 0, 0, 3, 0]);
}

#[test]
fn volcano_only_needs_to_touch_and_is_never_entered() {
    let mut state = placing("tile-B1");
    assert_eq!(code(&state, 0, place("A3", 1)), "invalid_rotation");
    assert_eq!(code(&state, 0, place("D1", 0)), "not_connected");
    assert!(listed(&state, 0, &place("A3", 0)));
    ok(&mut state, 0, place("A3", 0));
    put(&mut state, "A4", 0, 1, false);
    assert_eq!(code(&state, 0, mv("A4", "A3", Worker)), "no_path");
    assert_eq!(state.step_cost(space("A4"), 0), None);
}

#[test]
fn enter_costs_one_at_base_camp_or_own_camp_only() {
    let mut state = acting_game(2);
    ok(&mut state, 0, enter("A5", Worker));
    ok(&mut state, 0, enter("A5", Leader));
    assert_eq!(state.action_points_left, 8);
    assert_eq!(code(&state, 0, enter("A5", Leader)), "none_in_supply");
    assert_eq!(code(&state, 0, enter("B4", Worker)), "not_an_entry");
    assert_eq!(code(&state, 0, enter("C3", Worker)), "not_explored");
    // Another player's camp is no entry; the owner's is.
    state.board[space("B4") as usize].as_mut().unwrap().camp = Some(1);
    assert_eq!(code(&state, 0, enter("B4", Worker)), "not_an_entry");
    state.board[space("B4") as usize].as_mut().unwrap().camp = Some(0);
    ok(&mut state, 0, enter("B4", Worker));
    state.players[0].workers_in_supply = 0;
    assert_eq!(code(&state, 0, enter("A5", Worker)), "none_in_supply");
    state.action_points_left = 0;
    state.players[0].workers_in_supply = 3;
    assert_eq!(
        code(&state, 0, enter("A5", Worker)),
        "not_enough_action_points"
    );
    assert_eq!(legal(&state, 0), vec![TikalAction::EndTurn]);
}

#[test]
fn moves_check_pieces_paths_and_costs() {
    let mut state = acting_game(2);
    put(&mut state, "A5", 0, 1, false);
    assert_eq!(code(&state, 0, mv("A5", "A5", Worker)), "same_space");
    assert_eq!(code(&state, 0, mv("A5", "A4", Leader)), "no_piece");
    assert_eq!(code(&state, 0, mv("A4", "A5", Worker)), "no_piece");
    assert_eq!(code(&state, 0, mv("A5", "C3", Worker)), "no_path");
    assert_eq!(code(&state, 0, mv("A5", "Q3", Worker)), "unknown_space");
    let wrong = TikalAction::Move {
        from: "A5".into(),
        to: "A4".into(),
        piece: Worker,
        cost: Some(2),
    };
    assert_eq!(code(&state, 0, wrong), "cost_mismatch");
    let right = TikalAction::Move {
        from: "A5".into(),
        to: "A4".into(),
        piece: Worker,
        cost: Some(1),
    };
    assert!(listed(&state, 0, &right));
    state.action_points_left = 0;
    assert_eq!(code(&state, 0, right), "not_enough_action_points");
}

#[test]
fn secret_paths_link_own_camps_and_base_camp_for_one() {
    let mut state = acting_game(2);
    lay(&mut state, "A3", "tile-C2", 3); // jungle, 3 stones towards A4 (S)
    lay(&mut state, "A2", "tile-E3", 0); // jungle, 2 stones N, 1 stone S towards A3
                                         // A3's N edge has no stone, A2's S edge has 1: crossing costs 1.
    state.board[space("A2") as usize].as_mut().unwrap().camp = Some(0);
    state.players[0].camps_built = 1;
    put(&mut state, "A5", 0, 1, false);
    put(&mut state, "A5", 1, 1, false);
    // Walking costs A5 -> A4 1, A4 -> A3 2 + 3, A3 -> A2 1: 7 in all.
    assert_eq!(
        listed_cost(&state, 0, "A5", "A2"),
        Some(1),
        "via the secret path"
    );
    assert_eq!(
        listed_cost(&state, 0, "A5", "A3"),
        Some(2),
        "camp, then one border"
    );
    state.phase = Phase::Acting {
        seat: 1,
        scoring: false,
    };
    assert_eq!(
        listed_cost(&state, 1, "A5", "A2"),
        Some(7),
        "no secret path for others"
    );
}

#[test]
fn uncover_needs_a_figure_per_level_and_at_most_two_per_turn() {
    let mut state = acting_game(2);
    assert_eq!(code(&state, 0, uncover("A4")), "no_piece");
    assert_eq!(code(&state, 0, uncover("A5")), "not_a_temple");
    assert_eq!(code(&state, 0, uncover("C3")), "not_explored");
    put(&mut state, "A4", 0, 1, false);
    let events = ok(&mut state, 0, uncover("A4"));
    assert_eq!(
        events,
        vec![TikalEvent::TempleUncovered {
            seat: 0,
            space: "A4".into(),
            value: 2
        }]
    );
    assert_eq!(state.action_points_left, 8);
    assert_eq!(state.temple_supply[2], 2);
    assert_eq!(code(&state, 0, uncover("A4")), "needs_more_pieces");
    put(&mut state, "A4", 0, 2, false);
    ok(&mut state, 0, uncover("A4"));
    assert_eq!(state.hex(space("A4")).unwrap().temple_value, 3);
    assert_eq!(code(&state, 0, uncover("A4")), "uncover_limit");
    // The limit is per temple: the other temple may still be uncovered.
    put(&mut state, "B5", 0, 1, false);
    ok(&mut state, 0, uncover("B5"));
    // A new turn resets the limit.
    acting(&mut state, 0, 10);
    ok(&mut state, 0, uncover("A4"));
    assert_eq!(state.hex(space("A4")).unwrap().temple_value, 4);
}

#[test]
fn uncover_needs_the_next_number_and_no_guard() {
    let mut state = acting_game(2);
    put(&mut state, "A4", 0, 2, false);
    state.temple_supply[2] = 0;
    assert_eq!(code(&state, 0, uncover("A4")), "no_temple_tile");
    state.board[space("A4") as usize]
        .as_mut()
        .unwrap()
        .temple_value = 10;
    assert_eq!(code(&state, 0, uncover("A4")), "no_temple_tile");
    state.board[space("A4") as usize]
        .as_mut()
        .unwrap()
        .temple_value = 5;
    state.board[space("A4") as usize].as_mut().unwrap().guard = Some(Guard {
        seat: 1,
        piece: Worker,
    });
    assert_eq!(code(&state, 0, uncover("A4")), "temple_guarded");
    state.board[space("A4") as usize].as_mut().unwrap().guard = None;
    state.action_points_left = 1;
    assert_eq!(code(&state, 0, uncover("A4")), "not_enough_action_points");
}

#[test]
fn recover_needs_a_figure_per_token_and_at_most_two_per_turn() {
    let mut state = acting_game(2);
    lay(&mut state, "A3", "tile-A2", 0); // treasure hex with 4 masks
    let hidden: Vec<String> = state.hex(space("A3")).unwrap().tokens.clone();
    assert_eq!(hidden.len(), 4);
    assert_eq!(code(&state, 0, recover("A3")), "no_piece");
    assert_eq!(code(&state, 0, recover("A4")), "not_a_treasure_site");
    put(&mut state, "A3", 0, 1, true);
    let events = ok(&mut state, 0, recover("A3"));
    let kind = data().treasure_kind_of(&hidden[0]).unwrap();
    assert_eq!(
        events,
        vec![TikalEvent::TreasureRecovered {
            seat: 0,
            space: "A3".into(),
            kind
        }]
    );
    assert_eq!(state.players[0].treasures[kind as usize - 1], 1);
    assert_eq!(state.action_points_left, 7);
    ok(&mut state, 0, recover("A3"));
    assert_eq!(code(&state, 0, recover("A3")), "recover_limit");
    acting(&mut state, 0, 10);
    state.board[space("A3") as usize].as_mut().unwrap().pieces[0].leader = false;
    ok(&mut state, 0, recover("A3"));
    assert_eq!(code(&state, 0, recover("A3")), "needs_more_pieces");
    acting(&mut state, 0, 10);
    ok(&mut state, 0, recover("A3"));
    assert_eq!(code(&state, 0, recover("A3")), "no_treasure_left");
    state.action_points_left = 2;
    lay(&mut state, "B3", "tile-A5", 0);
    put(&mut state, "B3", 0, 1, false);
    assert_eq!(code(&state, 0, recover("B3")), "not_enough_action_points");
}

#[test]
fn exchange_takes_and_gives_singles_only() {
    let mut state = acting_game(3);
    state.players[0].treasures = vec![1, 2, 0, 0, 0, 0, 0, 1];
    state.players[1].treasures = vec![0, 0, 1, 3, 0, 0, 0, 1];
    let exchange = |target, take, give| TikalAction::Exchange { target, take, give };
    assert_eq!(code(&state, 0, exchange(0, 3, 1)), "no_such_seat");
    assert_eq!(code(&state, 0, exchange(3, 3, 1)), "no_such_seat");
    assert_eq!(code(&state, 0, exchange(1, 9, 1)), "invalid_kind");
    assert_eq!(code(&state, 0, exchange(1, 3, 0)), "invalid_kind");
    assert_eq!(code(&state, 0, exchange(1, 8, 8)), "same_kind");
    assert_eq!(code(&state, 0, exchange(1, 5, 1)), "no_such_treasure");
    assert_eq!(code(&state, 0, exchange(2, 3, 1)), "no_such_treasure");
    assert_eq!(code(&state, 0, exchange(1, 4, 1)), "cannot_split_set");
    assert_eq!(code(&state, 0, exchange(1, 3, 2)), "cannot_split_set");
    let mut singles: Vec<TikalAction> = legal(&state, 0)
        .into_iter()
        .filter(|a| matches!(a, TikalAction::Exchange { .. }))
        .collect();
    singles.sort_by_key(|a| format!("{a:?}"));
    assert_eq!(
        singles,
        vec![exchange(1, 3, 1), exchange(1, 3, 8), exchange(1, 8, 1)]
    );
    // The other player cannot refuse: the exchange happens at once.
    ok(&mut state, 0, exchange(1, 8, 1));
    assert_eq!(state.players[0].treasures, vec![0, 2, 0, 0, 0, 0, 0, 2]);
    assert_eq!(state.players[1].treasures, vec![1, 0, 1, 3, 0, 0, 0, 0]);
    assert_eq!(state.action_points_left, 7);
    state.action_points_left = 2;
    state.players[0].treasures[0] = 1;
    assert_eq!(
        code(&state, 0, exchange(1, 3, 1)),
        "not_enough_action_points"
    );
}

#[test]
fn camps_on_jungle_or_emptied_treasure_hexes_two_per_player() {
    let mut state = acting_game(2);
    lay(&mut state, "A3", "tile-A2", 0); // treasure with tokens
    lay(&mut state, "A2", "tile-A3", 0); // jungle
    lay(&mut state, "B3", "tile-B3", 0); // jungle
    assert_eq!(code(&state, 0, camp("A4")), "camp_not_allowed");
    assert_eq!(code(&state, 0, camp("A5")), "camp_not_allowed");
    assert_eq!(code(&state, 0, camp("A3")), "treasure_left");
    assert_eq!(code(&state, 0, camp("C1")), "not_explored");
    // No figure is needed on the hex.
    let events = ok(&mut state, 0, camp("A2"));
    assert_eq!(
        events,
        vec![TikalEvent::CampBuilt {
            seat: 0,
            space: "A2".into()
        }]
    );
    assert_eq!(state.action_points_left, 5);
    assert_eq!(code(&state, 0, camp("A2")), "camp_exists");
    state.board[space("A3") as usize]
        .as_mut()
        .unwrap()
        .tokens
        .clear();
    ok(&mut state, 0, camp("A3"));
    assert_eq!(state.action_points_left, 0);
    acting(&mut state, 0, 10);
    assert_eq!(code(&state, 0, camp("B3")), "no_camps_left");
    // Another player may stand on and pass through the camp but not enter there.
    acting(&mut state, 1, 10);
    assert_eq!(code(&state, 1, camp("A2")), "camp_exists");
    assert_eq!(code(&state, 1, enter("A2", Worker)), "not_an_entry");
    put(&mut state, "A4", 1, 1, false);
    ok(&mut state, 1, mv("A4", "A3", Worker));
    acting(&mut state, 0, 4);
    assert_eq!(code(&state, 0, camp("B4")), "no_camps_left");
    state.players[0].camps_built = 1;
    assert_eq!(code(&state, 0, camp("B4")), "not_enough_action_points");
}

#[test]
fn guard_needs_majority_and_removes_the_other_own_figures() {
    let mut state = acting_game(3);
    put(&mut state, "A4", 0, 2, false);
    put(&mut state, "A4", 1, 2, false);
    assert_eq!(code(&state, 0, guard("A4", Worker)), "no_majority");
    assert_eq!(code(&state, 0, guard("A5", Worker)), "not_a_temple");
    // The leader counts 3 for majorities.
    put(&mut state, "A4", 0, 0, true);
    assert_eq!(code(&state, 2, guard("A4", Worker)), "not_your_turn");
    let events = ok(&mut state, 0, guard("A4", Leader));
    assert_eq!(
        events,
        vec![TikalEvent::GuardPlaced {
            seat: 0,
            space: "A4".into(),
            piece: Leader,
            removed: 2
        }]
    );
    assert_eq!(state.action_points_left, 5);
    let hex = state.hex(space("A4")).unwrap();
    assert_eq!(hex.pieces[0].count(), 0);
    assert_eq!(hex.pieces[1].workers, 2, "other expeditions stay");
    assert_eq!(state.players[0].pieces_removed, 2);
    assert_eq!(state.figure_total(0), 19);
    assert_eq!(code(&state, 0, guard("A4", Worker)), "already_guarded");
    // The guarded temple scores for its guard whatever stands there, and stays open.
    assert_eq!(state.temple_owner(space("A4")), Some(0));
    acting(&mut state, 1, 10);
    ok(&mut state, 1, mv("A4", "A5", Worker));
    ok(&mut state, 1, mv("A5", "A4", Worker));
    assert_eq!(code(&state, 1, uncover("A4")), "temple_guarded");
    assert_eq!(state.temple_points(0), 1);
    assert_eq!(state.temple_points(1), 0);
}

#[test]
fn guard_limits_pieces_and_action_points() {
    let mut state = acting_game(2);
    put(&mut state, "B5", 0, 1, false);
    assert_eq!(code(&state, 0, guard("B5", Leader)), "no_piece");
    state.players[0].guards_placed = 2;
    assert_eq!(code(&state, 0, guard("B5", Worker)), "no_guards_left");
    state.players[0].guards_placed = 1;
    state.action_points_left = 4;
    assert_eq!(
        code(&state, 0, guard("B5", Worker)),
        "not_enough_action_points"
    );
    state.action_points_left = 5;
    assert!(listed(&state, 0, &guard("B5", Worker)));
    ok(&mut state, 0, guard("B5", Worker));
    assert_eq!(state.players[0].pieces_removed, 0);
}

#[test]
fn unused_action_points_are_lost() {
    let (mut state, _) = new_game(2, false, 9);
    let place = legal(&state, 0)[0].clone();
    ok(&mut state, 0, place);
    assert_eq!(state.action_points_left, 10);
    ok(&mut state, 0, enter("A5", Worker));
    let events = ok(&mut state, 0, TikalAction::EndTurn);
    assert_eq!(
        events[0],
        TikalEvent::TurnEnded {
            seat: 0,
            action_points_unused: 9
        }
    );
    assert!(matches!(events[1], TikalEvent::TileDrawn { seat: 1, .. }));
    let place = legal(&state, 1)[0].clone();
    ok(&mut state, 1, place);
    assert_eq!(state.action_points_left, 10);
}

#[test]
fn bids_must_rise_and_stay_within_the_score() {
    let (mut state, _) = new_game(3, true, 2);
    assert_eq!(
        code(&state, 0, TikalAction::Bid { amount: 0 }),
        "bid_too_low"
    );
    assert_eq!(
        code(&state, 0, TikalAction::Bid { amount: 21 }),
        "bid_exceeds_score"
    );
    assert_eq!(
        code(&state, 1, TikalAction::Bid { amount: 3 }),
        "not_your_turn"
    );
    assert_eq!(code(&state, 0, TikalAction::EndTurn), "wrong_phase");
    ok(&mut state, 0, TikalAction::Bid { amount: 3 });
    assert_eq!(
        code(&state, 1, TikalAction::Bid { amount: 3 }),
        "bid_too_low"
    );
    let bids: Vec<TikalAction> = legal(&state, 1);
    assert_eq!(bids.len(), 1 + (4..=20).count());
    ok(&mut state, 1, TikalAction::Pass);
    ok(&mut state, 2, TikalAction::Bid { amount: 4 });
    // Seat 1 passed for good: seat 0 is next, and after its pass seat 2 wins.
    assert_eq!(Tikal::to_act(&state), vec![0]);
    let events = ok(&mut state, 0, TikalAction::Pass);
    assert_eq!(events[1], TikalEvent::AuctionWon { seat: 2, price: 4 });
    assert_eq!(
        code(
            &state,
            2,
            TikalAction::ChooseTile {
                tile: "tile-G4".into()
            }
        ),
        "unknown_tile"
    );
    assert_eq!(code(&state, 2, place("A3", 0)), "wrong_phase");
    assert_eq!(legal(&state, 2).len(), 3);
}

#[test]
fn auction_actions_are_refused_in_the_basic_game() {
    let (state, _) = new_game(2, false, 2);
    assert_eq!(
        code(&state, 0, TikalAction::Bid { amount: 1 }),
        "wrong_phase"
    );
    assert_eq!(code(&state, 0, TikalAction::Pass), "wrong_phase");
    assert_eq!(
        code(
            &state,
            0,
            TikalAction::ChooseTile {
                tile: "tile-A1".into()
            }
        ),
        "wrong_phase"
    );
}

#[test]
fn a_volcano_chosen_in_the_auction_starts_a_scoring_round() {
    let (mut state, _) = new_game(2, true, 4);
    state.revealed = vec!["tile-B1".into(), "tile-B2".into()];
    state.draw_pile.retain(|t| !state.revealed.contains(t));
    ok(&mut state, 0, TikalAction::Pass);
    let events = ok(&mut state, 1, TikalAction::Pass);
    assert_eq!(events[1], TikalEvent::AuctionWon { seat: 0, price: 0 });
    let events = ok(
        &mut state,
        0,
        TikalAction::ChooseTile {
            tile: "tile-B1".into(),
        },
    );
    assert_eq!(
        events[1],
        TikalEvent::ScoringRoundStarted {
            number: 1,
            trigger: Some(0),
            order: vec![0, 1]
        }
    );
    ok(&mut state, 0, TikalAction::EndTurn);
    // The scoring turn does not turn the indicator over.
    assert!(state.played_this_round.is_empty());
    ok(&mut state, 1, TikalAction::EndTurn);
    assert_eq!(state.phase, Phase::Placing { seat: 0 });
    let volcano = legal(&state, 0)[0].clone();
    ok(&mut state, 0, volcano);
    let events = ok(&mut state, 0, TikalAction::EndTurn);
    assert_eq!(state.played_this_round, vec![0]);
    // Seat 1 is the only one left: it gets the last hex for free.
    assert_eq!(events[1], TikalEvent::AuctionWon { seat: 1, price: 0 });
    assert_eq!(
        events[2],
        TikalEvent::TileChosen {
            seat: 1,
            tile: "tile-B2".into()
        }
    );
}

#[test]
fn options_and_actions_json() {
    let options: TikalOptions = serde_json::from_str("{}").unwrap();
    assert_eq!(options, TikalOptions::default());
    assert!(!options.auction);
    assert!(serde_json::from_str::<TikalOptions>(r#"{"auctions":true}"#).is_err());
    let action: TikalAction =
        serde_json::from_str(r#"{"type":"move","from":"C3","to":"E2","piece":"worker"}"#).unwrap();
    assert_eq!(action, mv("C3", "E2", Worker));
    let end: TikalAction = serde_json::from_str(r#"{"type":"end_turn"}"#).unwrap();
    assert_eq!(end, TikalAction::EndTurn);
    assert!(
        serde_json::from_str::<TikalAction>(r#"{"type":"uncover","space":"A4","x":1}"#).is_err()
    );
    let json = serde_json::to_string(&TikalAction::PlaceGuard {
        space: "B5".into(),
        piece: Leader,
    })
    .unwrap();
    assert_eq!(
        json,
        r#"{"type":"place_guard","space":"B5","piece":"leader"}"#
    );
}

#[test]
fn describe_uses_colour_names() {
    let state = acting_game(4);
    let line = Tikal::describe(
        &state,
        &TikalEvent::TempleUncovered {
            seat: 0,
            space: "C3".into(),
            value: 5,
        },
    );
    assert_eq!(line, "Red uncovers the temple at C3 to 5");
    let line = Tikal::describe(&state, &TikalEvent::BidPlaced { seat: 3, amount: 7 });
    assert_eq!(line, "Green bids 7");
}

/// The field `target` (once `with`) must not stand in for the word "with" in the texts.
#[test]
fn texts_say_with_where_the_english_says_with() {
    let state = acting_game(4);
    let line = |event: TikalEvent| Tikal::describe(&state, &event);
    assert_eq!(
        line(TikalEvent::TurnStarted {
            seat: 0,
            scoring: false
        }),
        "Red begins a normal turn with 10 AP"
    );
    assert_eq!(
        line(TikalEvent::TurnStarted {
            seat: 1,
            scoring: true
        }),
        "Blue begins a scoring turn with 10 AP"
    );
    assert_eq!(
        line(TikalEvent::BiddingOpened { opener: 2 }),
        "Bidding for the next turn opens with Yellow"
    );
    assert_eq!(
        line(TikalEvent::GuardPlaced {
            seat: 3,
            space: "A4".into(),
            piece: Leader,
            removed: 2,
        }),
        "Green guards the temple at A4 with a leader; 2 other figures leave the game"
    );
}

#[test]
fn setup_secrets_are_redacted_for_everyone_but_omniscient() {
    let (state, events) = new_game(2, false, 8);
    let secrets = Tikal::secrets(&state);
    assert_eq!(secrets.len(), 35 + 24, "undrawn hexes and face-down tokens");
    assert!(secrets.iter().all(|s| s.owner.is_none()));
    for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        let TikalEvent::GameSetUp {
            tile_order,
            treasure_order,
            ..
        } = Tikal::redact(&events[0], viewer)
        else {
            panic!()
        };
        assert!(tile_order.is_none() && treasure_order.is_none());
        let view = serde_json::to_string(&Tikal::view(&state, viewer)).unwrap();
        assert!(secrets.iter().all(|s| !view.contains(&s.needle)));
    }
    // The needles are real: the omniscient export shows them.
    let full = serde_json::to_string(&Tikal::redact(&events[0], Viewer::Omniscient)).unwrap();
    assert!(secrets.iter().all(|s| full.contains(&s.needle)));
    let view = serde_json::to_string(&Tikal::view(&state, Viewer::Omniscient)).unwrap();
    assert!(secrets.iter().all(|s| view.contains(&s.needle)));
}

#[test]
fn board_geometry_is_symmetric_and_names_round_trip() {
    let data = data();
    assert_eq!(data.spaces(), 40);
    assert_eq!(data.tiles.len(), 36);
    for space in 0..40u8 {
        assert_eq!(data.parse_space(&data.space_name(space)), Some(space));
        for direction in 0..6 {
            if let Some(next) = data.neighbours[space as usize][direction] {
                assert_eq!(
                    data.neighbours[next as usize][(direction + 3) % 6],
                    Some(space)
                );
            }
        }
    }
    // FACTS.md: odd columns sit lower, so B4's NE neighbour is C4 and A4's NE is B3.
    assert_eq!(data.neighbours[space("B4") as usize][1], Some(space("C4")));
    assert_eq!(data.neighbours[space("A4") as usize][1], Some(space("B3")));
    let masks: u32 = data
        .tiles
        .iter()
        .filter(|t| t.terrain == super::super::data::Terrain::Treasure)
        .map(|t| t.value as u32)
        .sum();
    assert_eq!(masks, 24);
    assert_eq!(data.temple_tiles.iter().map(|&n| n as u32).sum::<u32>(), 48);
}

#[test]
fn api_schemas_are_named_for_tikal_and_serialize() {
    use utoipa::{PartialSchema, ToSchema};
    let mut nested = Vec::new();
    TikalOptions::schemas(&mut nested);
    TikalAction::schemas(&mut nested);
    TikalEvent::schemas(&mut nested);
    super::super::TikalView::schemas(&mut nested);
    assert!(!nested.is_empty());
    for (name, schema) in &nested {
        assert!(
            name.starts_with("Tikal") || ["Outcome", "u8", "Seat"].contains(&name.as_str()),
            "schema {name} could clash with another game's"
        );
        serde_json::to_string(schema).unwrap();
    }
    let view = serde_json::to_string(&super::super::TikalView::schema()).unwrap();
    assert!(view.contains("TikalSpaceView"));
    let action = serde_json::to_string(&TikalAction::schema()).unwrap();
    assert!(action.contains("place_guard") && action.contains("TikalPieceKind"));
}

#[test]
fn placement_falls_back_to_any_touching_space_when_nothing_connects() {
    let mut state = placing("tile-C2");
    // Only volcanoes lie on the board: no edge can lead onto the new hex.
    for name in ["A4", "A5", "B4", "B5"] {
        let hex = state.board[space(name) as usize].as_mut().unwrap();
        hex.terrain = super::super::data::Terrain::Volcano;
    }
    let spots = legal(&state, 0);
    assert!(!spots.is_empty());
    assert!(listed(&state, 0, &place("A3", 0)));
    assert!(listed(&state, 0, &place("A3", 3)));
    assert_eq!(code(&state, 0, place("D1", 0)), "not_connected");
    ok(&mut state, 0, place("C5", 2));
}

/// Decision: the order of the auction variant's final scoring round is fixed when the
/// round starts; points scored during it do not reorder the seats still to come.
#[test]
fn auction_final_round_order_is_fixed_when_it_starts() {
    let (mut state, _) = new_game(3, true, 6);
    state.draw_pile.clear();
    state.revealed.clear();
    state.bidding = None;
    state.last_placer = Some(0);
    for (seat, score) in [10, 11, 12].into_iter().enumerate() {
        state.players[seat].score = score;
    }
    acting(&mut state, 0, 10);
    let events = ok(&mut state, 0, TikalAction::EndTurn);
    assert!(matches!(
        &events[1],
        TikalEvent::ScoringRoundStarted { trigger: None, order, .. } if *order == vec![0, 1, 2]
    ));
    // Seat 0 scores a triplet (6) and passes both others, yet seat 1 still follows.
    state.players[0].treasures[0] = 3;
    let events = ok(&mut state, 0, TikalAction::EndTurn);
    assert_eq!(state.players[0].score, 16);
    assert_eq!(
        events[2],
        TikalEvent::TurnStarted {
            seat: 1,
            scoring: true
        }
    );
}

/// Decision: the volcano's drawer takes two turns, a scoring turn and later his normal
/// turn; the per-turn limits (2 levels per temple, 2 treasures per hex) apply to each.
#[test]
fn volcano_drawer_has_fresh_limits_in_his_normal_turn() {
    let (mut state, _) = new_game(2, false, 12);
    let drawn = state.hand.take().unwrap();
    state.draw_pile.insert(0, drawn);
    state.draw_pile.retain(|t| t != "tile-B1");
    state.hand = Some("tile-B1".into());
    put(&mut state, "A4", 0, 2, false);
    for event in [
        TikalEvent::ScoringRoundStarted {
            number: 1,
            trigger: Some(0),
            order: vec![0, 1],
        },
        TikalEvent::TurnStarted {
            seat: 0,
            scoring: true,
        },
    ] {
        Tikal::evolve(&mut state, &event);
    }
    // Scoring turn: every action but laying a hex is offered.
    let actions = legal(&state, 0);
    assert!(actions.contains(&enter("A5", Worker)));
    assert!(actions.contains(&camp("B4")));
    assert!(!actions
        .iter()
        .any(|a| matches!(a, TikalAction::PlaceTile { .. })));
    ok(&mut state, 0, uncover("A4"));
    ok(&mut state, 0, uncover("A4"));
    assert_eq!(code(&state, 0, uncover("A4")), "uncover_limit");
    ok(&mut state, 0, TikalAction::EndTurn);
    ok(&mut state, 1, TikalAction::EndTurn);
    let volcano = legal(&state, 0)[0].clone();
    ok(&mut state, 0, volcano);
    assert_eq!(
        state.phase,
        Phase::Acting {
            seat: 0,
            scoring: false
        }
    );
    ok(&mut state, 0, uncover("A4"));
    assert_eq!(state.hex(space("A4")).unwrap().temple_value, 4);
}
