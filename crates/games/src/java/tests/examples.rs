//! The worked examples of the rule text (rules-de.txt), one test each.

use super::*;
use crate::java::rules::{highest_rank, strengths};
use crate::java::scoring::final_count;
use crate::java::state::{FestivalStage, Palace, Phase};

use Symbol::{Drum, Mask, Puppet};

fn cells(names: &[&str]) -> Vec<usize> {
    names.iter().map(|n| idx(n)).collect()
}

/// Puts a palace of `value` on `space` (scenario building).
fn palace(state: &mut JavaState, space: &str, value: u8) {
    let index = state.palaces.len() as u8;
    state.palaces.push(Palace {
        space: idx(space),
        value,
        festival_held: false,
        changed_in_turn: 0,
    });
    state.spaces[idx(space)].palace = Some(index);
}

/// "Beispiel für den Zug eines Spielers": tile, enter from the lowlands, colour change,
/// palace 4 scoring 2, irrigation enclosed by a second tile scoring 3, festival: 6 AP.
#[test]
fn sample_turn_of_six_action_points() {
    let mut s = game(2);
    village(&mut s, &["F11", "G11", "F12"], 1);
    rice(&mut s, &["F10"], 1);
    s.face_up = Some(card("pc90", &[Drum]));
    give_hand(&mut s, 0, vec![card("pc91", &[Drum, Mask])]);

    // 1. A three-space tile from the supply (1 AP); the rules page's rotation example.
    let tile = three("E11", "D11", "D10");
    assert!(matches!(tile, JavaAction::PlaceTile { rotation: 0, .. }));
    act(&mut s, 0, tile);
    assert_eq!(s.turn.ap, 5);
    // 2. A developer enters from the lowlands onto a rice space (1 AP).
    let events = act(
        &mut s,
        0,
        JavaAction::EnterDeveloper {
            to: "D11".into(),
            cost: Some(1),
        },
    );
    assert!(matches!(
        &events[0],
        JavaEvent::DeveloperEntered { cost: 1, .. }
    ));
    // 3. Into the village: one colour change (1 AP).
    act(
        &mut s,
        0,
        JavaAction::MoveDeveloper {
            from: "D11".into(),
            to: "E11".into(),
            cost: Some(1),
        },
    );
    // 4. A palace worth 4 in the village of 4 spaces (1 AP) scores 2 at once.
    act(
        &mut s,
        0,
        JavaAction::BuildPalace {
            space: "F11".into(),
            value: 4,
        },
    );
    assert_eq!(score(&s, 0), 2);
    // 5. An irrigation tile (1 AP) ...
    act(
        &mut s,
        0,
        JavaAction::PlaceIrrigation {
            space: "E10".into(),
        },
    );
    assert_eq!(score(&s, 0), 2);
    // 6. ... enclosed by another three-space tile (1 AP): A stands beside it alone: 3.
    let events = act(&mut s, 0, three("F9", "E9", "E8"));
    assert!(events.iter().any(|e| matches!(
        e,
        JavaEvent::WaterEnclosed {
            scorer: Some(0),
            points: 3,
            ..
        }
    )));
    assert_eq!(score(&s, 0), 5);
    assert_eq!(s.turn.ap, 0);
    // Last, a festival for 0 AP: alone at a palace of 4 scores 2; the turn passes.
    act(
        &mut s,
        0,
        JavaAction::HoldFestival {
            space: "F11".into(),
            cards: vec!["pc91".into()],
        },
    );
    assert_eq!(score(&s, 0), 7);
    assert!(s.palaces[0].festival_held);
    assert_eq!(s.current, 1);
    assert_eq!(s.turn.ap, 6);
}

/// "Beispiel 1" of the height rule: two developers on level 4 beat one on level 4 plus
/// two on level 3.
#[test]
fn rank_example_one() {
    let mut s = game(2);
    village(&mut s, &["E5", "F5", "G5"], 4);
    village(&mut s, &["H5", "I5"], 3);
    village(&mut s, &["J5"], 1);
    stand(&mut s, 0, "E5");
    stand(&mut s, 0, "F5");
    stand(&mut s, 1, "G5");
    stand(&mut s, 1, "H5");
    stand(&mut s, 1, "I5");
    let town = cells(&["E5", "F5", "G5", "H5", "I5", "J5"]);
    assert_eq!(highest_rank(&strengths(&s, &town)), Some(0));
    // So A may build there and B may not.
    let build = JavaAction::BuildPalace {
        space: "J5".into(),
        value: 6,
    };
    assert!(Java::decide(&s, 0, &build, &mut rng(1)).is_ok());
    s.current = 1;
    assert_eq!(refused(&s, 1, build), "not_highest_rank");
}

/// "Beispiel 2": A (level 2) and C (levels 2 and 1) compete; C wins with the second
/// developer; B (level 1) does not count.
#[test]
fn rank_example_two() {
    let mut s = game(3);
    village(&mut s, &["C6", "E6"], 2);
    village(&mut s, &["D6", "F6", "G6"], 1);
    stand(&mut s, 0, "C6");
    stand(&mut s, 1, "D6");
    stand(&mut s, 2, "E6");
    stand(&mut s, 2, "F6");
    let town = cells(&["C6", "D6", "E6", "F6", "G6"]);
    assert_eq!(highest_rank(&strengths(&s, &town)), Some(2));
    s.current = 2;
    act(
        &mut s,
        2,
        JavaAction::BuildPalace {
            space: "G6".into(),
            value: 4,
        },
    );
    assert_eq!(score(&s, 2), 2);
}

/// Four players with developers in a city with a palace of 8, face-up card drum+mask.
fn festival_table(a_cards: Vec<Card>) -> JavaState {
    let mut s = game(4);
    village(&mut s, &["C7", "D7", "E7", "F7", "G7", "H7", "I7", "J7"], 1);
    palace(&mut s, "C7", 8);
    for (seat, space) in ["D7", "E7", "F7", "G7"].iter().enumerate() {
        stand(&mut s, seat as Seat, space);
    }
    s.face_up = Some(card("pc90", &[Drum, Mask]));
    give_hand(&mut s, 0, a_cards);
    give_hand(&mut s, 1, vec![card("pc81", &[Mask])]);
    give_hand(
        &mut s,
        2,
        vec![
            card("pc82", &[Drum, Mask]),
            card("pc83", &[Mask, Puppet]),
            card("pc84", &[Mask]),
        ],
    );
    give_hand(&mut s, 3, vec![card("pc85", &[Drum])]);
    s.turn.tiles_placed = 1;
    s
}

fn bid(ids: &[&str]) -> JavaAction {
    JavaAction::Bid {
        cards: ids.iter().map(|s| s.to_string()).collect(),
    }
}

/// Plays the festival example up to C's refusal of the first agreement (C has 3).
fn festival_until_c_refuses(s: &mut JavaState) {
    act(
        s,
        0,
        JavaAction::HoldFestival {
            space: "C7".into(),
            cards: vec!["pc71".into()],
        },
    );
    assert_eq!(Java::to_act(s), vec![1]);
    act(s, 1, bid(&["pc81"])); // B: 1
    act(s, 2, bid(&["pc82"])); // C: drum+mask = 2
    act(s, 3, JavaAction::Pass); // D passes
    assert_eq!(Java::to_act(s), vec![0]);
    act(s, 0, bid(&["pc72"])); // A matches C: 2
    assert_eq!(Java::to_act(s), vec![1]);
    act(s, 1, JavaAction::Pass); // B gives up; his card is lost
    assert!(s.discard.iter().any(|c| c.id == "pc81"));
    // A caused the tie and offers to share; C is asked.
    let festival = s.festival().unwrap();
    assert_eq!(
        festival.stage,
        FestivalStage::Agreement {
            proposer: 0,
            asked: vec![2]
        }
    );
    assert_eq!(refused(s, 2, bid(&[])), "no_cards");
    act(s, 2, bid(&["pc83"])); // C refuses by going to 3
    assert_eq!(Java::to_act(s), vec![0]);
}

/// "Beispiel" of the festival rules: A and C end tied at 3 and agree: 2 points each.
#[test]
fn festival_example_shared_by_a_and_c() {
    let mut s = festival_table(vec![
        card("pc71", &[Drum]),
        card("pc72", &[Drum]),
        card("pc73", &[Drum, Puppet]),
    ]);
    festival_until_c_refuses(&mut s);
    act(&mut s, 0, bid(&["pc73"])); // A matches again: 3
    assert_eq!(Java::to_act(&s), vec![2]);
    assert!(Java::legal_actions(&s, 2).contains(&JavaAction::Agree));
    let events = act(&mut s, 2, JavaAction::Agree);
    assert!(events.iter().any(|e| matches!(
        e,
        JavaEvent::FestivalEnded {
            shared: true,
            points: 2,
            ..
        }
    )));
    assert_eq!(
        [score(&s, 0), score(&s, 1), score(&s, 2), score(&s, 3)],
        [2, 0, 2, 0]
    );
    assert!(s.palaces[0].festival_held);
    for id in ["pc71", "pc72", "pc73", "pc81", "pc82", "pc83"] {
        assert!(s.discard.iter().any(|c| c.id == id), "{id} not discarded");
    }
    assert!(matches!(s.phase, Phase::Turn));
    assert_eq!(s.current, 1);
}

/// Same example: had A been unable to match C's 3, C would have scored 4 alone.
#[test]
fn festival_example_c_alone_scores_four() {
    let mut s = festival_table(vec![card("pc71", &[Drum]), card("pc72", &[Drum])]);
    festival_until_c_refuses(&mut s);
    assert_eq!(Java::legal_actions(&s, 0), vec![JavaAction::Pass]);
    act(&mut s, 0, JavaAction::Pass);
    assert_eq!([score(&s, 0), score(&s, 2)], [0, 4]);
}

/// "Die Große Wertung", example: palace 10; A, B and C each stand on levels 3, 2 and 1,
/// B has one more developer on level 1: B scores 10, A and C 5 each.
#[test]
fn great_final_count_example() {
    let mut s = game(3);
    village(&mut s, &["D10", "E10", "F10"], 3);
    village(&mut s, &["G10", "H10", "I10"], 2);
    village(&mut s, &["J10", "K10", "L10", "M10", "N10"], 1);
    palace(&mut s, "N10", 10);
    for (seat, spaces) in [
        ["D10", "G10", "J10", ""],
        ["E10", "H10", "K10", "M10"],
        ["F10", "I10", "L10", ""],
    ]
    .iter()
    .enumerate()
    {
        for space in spaces.iter().filter(|s| !s.is_empty()) {
            stand(&mut s, seat as Seat, space);
        }
    }
    assert_eq!(final_count(&s, 1).0, 10);
    assert_eq!(final_count(&s, 0).0, 5);
    assert_eq!(final_count(&s, 2).0, 5);
    assert_eq!(final_count(&s, 1).1[0].rank, 1);
    assert_eq!(final_count(&s, 0).1[0].rank, 2);
}

/// "Außenregel": a three-space tile with two cells outside the board costs 3 AP; a later
/// tile on the new cells costs nothing extra.
#[test]
fn border_rule_costs_one_ap_per_outside_cell() {
    let mut s = game(2);
    let overhang = three("D11", "C11", "C12");
    let listed = Java::legal_actions(&s, 0);
    let with_cost = |c: u8| match overhang.clone() {
        JavaAction::PlaceTile {
            tile,
            space,
            rotation,
            ..
        } => JavaAction::PlaceTile {
            tile,
            space,
            rotation,
            cost: Some(c),
        },
        _ => unreachable!(),
    };
    assert!(listed.contains(&with_cost(3)));
    let events = act(&mut s, 0, overhang);
    assert!(matches!(events[0], JavaEvent::TilePlaced { cost: 3, .. }));
    assert_eq!(s.turn.ap, 3);
    let events = act(&mut s, 0, tile_action(TileKind::TwoSpace, "C11", &["C12"]));
    assert!(matches!(events[0], JavaEvent::TilePlaced { cost: 1, .. }));
}

/// Great Final Count with a tie for first: both tied players score the full value, and
/// (our decision) a player behind two stronger ones scores nothing.
#[test]
fn great_final_count_tie_for_first() {
    let mut s = game(3);
    village(&mut s, &["D10", "E10"], 2);
    village(&mut s, &["F10", "G10"], 1);
    palace(&mut s, "G10", 6);
    stand(&mut s, 0, "D10");
    stand(&mut s, 1, "E10");
    stand(&mut s, 2, "F10");
    assert_eq!(final_count(&s, 0).0, 6);
    assert_eq!(final_count(&s, 1).0, 6);
    assert_eq!(final_count(&s, 2).0, 0);
    // Without seat 1, seat 2 is second: half.
    s.spaces[idx("E10")].developer = None;
    assert_eq!(final_count(&s, 2).0, 3);
}
