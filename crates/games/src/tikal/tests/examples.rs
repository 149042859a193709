//! The worked examples of the rule text (rules-de.txt), one test each.

use super::super::data::{data, Terrain};
use super::super::state::Phase;
use super::super::{PieceKind, Tikal, TikalAction, TikalEvent};
use super::helpers::*;
use crate::engine::Engine;

/// "Figuren bewegen", Beispiel: from the 2-temple the jungle costs 3 AP, the treasure hex
/// cannot be entered directly but costs 6 AP via the jungle, the 1-temple costs 1 AP.
/// Position: 2-temple tile-A4 at B3, jungle tile-A3 at B2, treasure tile-C4 at C3 turned so
/// that its 3 stones face the jungle; the pre-printed 1-temple is A4.
#[test]
fn movement_costs_example() {
    let mut state = acting_game(2);
    lay(&mut state, "B3", "tile-A4", 0);
    lay(&mut state, "B2", "tile-A3", 0);
    lay(&mut state, "C3", "tile-C4", 5);
    put(&mut state, "B3", 0, 2, false);

    assert_eq!(
        listed_cost(&state, 0, "B3", "B2"),
        Some(3),
        "2-temple to jungle"
    );
    assert_eq!(
        listed_cost(&state, 0, "B3", "C3"),
        Some(6),
        "2-temple to treasure via jungle"
    );
    assert_eq!(
        listed_cost(&state, 0, "B3", "A4"),
        Some(1),
        "2-temple to 1-temple"
    );
    // No direct passage: no stone on either side of the edge B3 | C3 (NE of B3).
    assert_eq!(state.step_cost(space("B3"), 1), None);

    let events = ok(&mut state, 0, mv("B3", "C3", PieceKind::Worker));
    assert!(matches!(
        &events[..],
        [TikalEvent::PieceMoved { cost: 6, .. }]
    ));
    assert_eq!(state.action_points_left, 4);
    let events = ok(&mut state, 0, mv("B3", "A4", PieceKind::Worker));
    assert!(matches!(
        &events[..],
        [TikalEvent::PieceMoved { cost: 1, .. }]
    ));
    assert_eq!(state.action_points_left, 3);
}

/// "Beispiel für eine Wertungsrunde": the drawer holds the majority at a 3, two 5 and an
/// 8 temple (21 points) and has two pairs and two single treasures (8 points); he scores
/// alone after his scoring turn, then his left neighbour takes a scoring turn and scores,
/// then the drawer lays the volcano and takes his normal turn without drawing.
#[test]
fn scoring_round_example() {
    let (mut state, _) = new_game(2, false, 11);
    // Seat 0 has just drawn the volcano of stack B.
    let drawn = state.hand.take().unwrap();
    state.draw_pile.insert(0, drawn);
    state.draw_pile.retain(|t| t != "tile-B1");
    state.hand = Some("tile-B1".into());
    lay(&mut state, "A3", "tile-B6", 0); // temple 3
    lay(&mut state, "B3", "tile-D1", 0); // temple 5
    lay(&mut state, "C4", "tile-D5", 0); // temple 5
    lay(&mut state, "C5", "tile-E1", 0); // temple 6, uncovered to 8 below
    state.board[space("C5") as usize]
        .as_mut()
        .unwrap()
        .temple_value = 8;
    put(&mut state, "A3", 0, 1, false);
    put(&mut state, "B3", 0, 2, false);
    put(&mut state, "B3", 1, 1, false);
    put(&mut state, "C4", 0, 1, false);
    // The leader counts 3: it beats two workers.
    put(&mut state, "C5", 0, 0, true);
    put(&mut state, "C5", 1, 2, false);
    // A tie scores nothing; the other 1-temple belongs to seat 1.
    put(&mut state, "A4", 0, 1, false);
    put(&mut state, "A4", 1, 1, false);
    put(&mut state, "B5", 1, 1, false);
    state.players[0].treasures = vec![2, 2, 1, 1, 0, 0, 0, 0];
    state.treasure_pile.truncate(24 - 6);
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

    let events = ok(&mut state, 0, TikalAction::EndTurn);
    assert_eq!(
        events[1],
        TikalEvent::PlayerScored {
            seat: 0,
            temple_points: 21,
            treasure_points: 8
        }
    );
    assert_eq!(state.players[0].score, 29);
    assert_eq!(
        events[2],
        TikalEvent::TurnStarted {
            seat: 1,
            scoring: true
        }
    );
    // The neighbour's scoring turn: seat 1 owns only the east 1-temple.
    let events = ok(&mut state, 1, TikalAction::EndTurn);
    assert_eq!(
        events[1],
        TikalEvent::PlayerScored {
            seat: 1,
            temple_points: 1,
            treasure_points: 0
        }
    );
    assert_eq!(events[2], TikalEvent::ScoringRoundCompleted { number: 1 });
    assert_eq!(state.scorings_completed, 1);
    // The drawer lays the volcano, then plays a normal turn without drawing.
    assert_eq!(state.phase, Phase::Placing { seat: 0 });
    let place = legal(&state, 0)[0].clone();
    let events = ok(&mut state, 0, place);
    assert_eq!(
        events[1],
        TikalEvent::TurnStarted {
            seat: 0,
            scoring: false
        }
    );
    assert!(state.hand.is_none());
    let events = ok(&mut state, 0, TikalAction::EndTurn);
    assert!(matches!(events[1], TikalEvent::TileDrawn { seat: 1, .. }));
}

/// "Beispiel für die Zugreihenfolge bei 4 Spielern (A, B, C, D)": B wins the first turn
/// with 5, C opens the second and A wins it with 4, C opens the third, C and D pass, C
/// plays free, D takes the last hex free; A opens the next round.
#[test]
fn auction_round_example() {
    let (mut state, events) = new_game(4, true, 5);
    let (a, b, c, d) = (0, 1, 2, 3);
    assert!(matches!(&events[1], TikalEvent::TilesRevealed { tiles } if tiles.len() == 4));
    assert_eq!(events[2], TikalEvent::BiddingOpened { opener: a });
    assert!(state.players.iter().all(|p| p.score == 20));

    ok(&mut state, a, TikalAction::Bid { amount: 3 });
    ok(&mut state, b, TikalAction::Bid { amount: 5 });
    ok(&mut state, c, TikalAction::Pass);
    ok(&mut state, d, TikalAction::Pass);
    let events = ok(&mut state, a, TikalAction::Pass);
    assert_eq!(events[1], TikalEvent::AuctionWon { seat: b, price: 5 });
    assert_eq!(state.players[b as usize].score, 15);
    play_won_turn(&mut state, b);

    assert_eq!(state.bidding.as_ref().unwrap().opener, c);
    ok(&mut state, c, TikalAction::Bid { amount: 1 });
    ok(&mut state, d, TikalAction::Pass);
    // B already played this round and is skipped.
    assert_eq!(Tikal::to_act(&state), vec![a]);
    ok(&mut state, a, TikalAction::Bid { amount: 4 });
    let events = ok(&mut state, c, TikalAction::Pass);
    assert_eq!(events[1], TikalEvent::AuctionWon { seat: a, price: 4 });
    assert_eq!(state.players[a as usize].score, 16);
    play_won_turn(&mut state, a);

    // Left of A is B, who has played: C must open.
    assert_eq!(state.bidding.as_ref().unwrap().opener, c);
    ok(&mut state, c, TikalAction::Pass);
    let events = ok(&mut state, d, TikalAction::Pass);
    assert_eq!(events[1], TikalEvent::AuctionWon { seat: c, price: 0 });
    assert_eq!(state.players[c as usize].score, 20);
    play_won_turn(&mut state, c);

    // D is the only one left: the last hex goes to him for free, without an auction.
    assert_eq!(state.phase, Phase::Placing { seat: d });
    assert_eq!(state.players[d as usize].score, 20);
    assert!(state.revealed.is_empty());
    let place = legal(&state, d)[0].clone();
    ok(&mut state, d, place);
    let events = ok(&mut state, d, TikalAction::EndTurn);
    assert!(matches!(&events[1], TikalEvent::TilesRevealed { tiles } if tiles.len() == 4));
    assert_eq!(events[2], TikalEvent::BiddingOpened { opener: a });
    assert!(state.played_this_round.is_empty());
}

/// Chooses the first revealed hex, lays it at the first legal spot and ends the turn.
fn play_won_turn(state: &mut super::super::TikalState, seat: u8) {
    assert_eq!(state.phase, Phase::Choosing { seat });
    let tile = state.revealed[0].clone();
    assert_ne!(data().tile(&tile).unwrap().terrain, Terrain::Volcano);
    ok(state, seat, TikalAction::ChooseTile { tile });
    let place = legal(state, seat)[0].clone();
    ok(state, seat, place);
    ok(state, seat, TikalAction::EndTurn);
    assert!(state.played_this_round.contains(&seat));
}

/// "Letzte Wertung und Spielende" (auction): the final round goes from the lowest score
/// up; on equal scores the seat nearer clockwise to the layer of the last hex goes first.
#[test]
fn auction_final_round_order() {
    let (mut state, _) = new_game(4, true, 3);
    state.draw_pile.clear();
    state.revealed.clear();
    state.bidding = None;
    state.last_placer = Some(2);
    for (seat, score) in [30, 25, 30, 25].into_iter().enumerate() {
        state.players[seat].score = score;
    }
    acting(&mut state, 2, 10);
    let events = ok(&mut state, 2, TikalAction::EndTurn);
    assert_eq!(
        events[1],
        TikalEvent::ScoringRoundStarted {
            number: 1,
            trigger: None,
            order: vec![3, 1, 0, 2]
        }
    );
    assert_eq!(
        events[2],
        TikalEvent::TurnStarted {
            seat: 3,
            scoring: true
        }
    );
}

/// "Das Spielende" (basic): after the last hex's turn every seat takes a scoring turn,
/// clockwise from the left neighbour of the player who laid it; then the game ends.
#[test]
fn basic_final_round_and_end() {
    let (mut state, _) = new_game(3, false, 3);
    state.hand = None;
    state.draw_pile.clear();
    state.last_placer = Some(1);
    state.scorings_completed = 3;
    state.players[2].treasures[0] = 3;
    acting(&mut state, 1, 10);
    let events = ok(&mut state, 1, TikalAction::EndTurn);
    assert_eq!(
        events[1],
        TikalEvent::ScoringRoundStarted {
            number: 4,
            trigger: None,
            order: vec![2, 0, 1]
        }
    );
    ok(&mut state, 2, TikalAction::EndTurn);
    ok(&mut state, 0, TikalAction::EndTurn);
    assert!(Tikal::outcome(&state).is_none());
    let events = ok(&mut state, 1, TikalAction::EndTurn);
    assert_eq!(events[2], TikalEvent::ScoringRoundCompleted { number: 4 });
    assert!(matches!(events[3], TikalEvent::GameFinished { .. }));
    let outcome = Tikal::outcome(&state).unwrap();
    assert_eq!(outcome.scores, vec![0, 0, 6]);
    assert_eq!(outcome.places, vec![2, 2, 1]);
    assert_eq!(code(&state, 0, TikalAction::EndTurn), "game_over");
    assert!(Tikal::to_act(&state).is_empty());
}
