//! Second-look audit: rule-text cases not covered elsewhere.

use super::*;
use crate::java::scoring::final_count;
use crate::java::state::{FestivalStage, Palace, Phase};

use Symbol::{Drum, Mask};

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

fn bid(ids: &[&str]) -> JavaAction {
    JavaAction::Bid {
        cards: ids.iter().map(|s| s.to_string()).collect(),
    }
}

/// "Entstehen während des Spiels Lücken ..., können diese ... mit Bewässerungsplättchen
/// gefüllt werden. Die Ruhmespunkte werden wie gerade beschrieben ermittelt."
#[test]
fn a_gap_filled_with_irrigation_scores_at_once() {
    let mut s = game(2);
    // F5's neighbours: E5 G5 E4 F4 E6 F6.
    rice(&mut s, &["E5", "G5", "E4", "F4", "E6"], 1);
    village(&mut s, &["F6"], 2);
    stand(&mut s, 1, "E5");
    stand(&mut s, 0, "F6");
    s.turn.tiles_placed = 1;
    let events = act(
        &mut s,
        0,
        JavaAction::PlaceIrrigation { space: "F5".into() },
    );
    assert!(events.iter().any(|e| matches!(
        e,
        JavaEvent::WaterEnclosed {
            scorer: Some(0),
            points: 3,
            ..
        }
    )));
    assert_eq!([score(&s, 0), score(&s, 1)], [3, 0]);
}

/// Three players tie; the one who made the tie offers, the other two agree in turn.
#[test]
fn a_three_way_tie_is_shared_after_both_others_agree() {
    let mut s = game(3);
    village(&mut s, &["C7", "D7", "E7", "F7"], 1);
    palace(&mut s, "C7", 4);
    stand(&mut s, 0, "D7");
    stand(&mut s, 1, "E7");
    stand(&mut s, 2, "F7");
    s.face_up = Some(card("pc90", &[Drum]));
    give_hand(
        &mut s,
        0,
        vec![card("pc71", &[Drum]), card("pc72", &[Drum])],
    );
    give_hand(
        &mut s,
        1,
        vec![card("pc81", &[Drum]), card("pc82", &[Drum])],
    );
    give_hand(&mut s, 2, vec![card("pc91", &[Drum, Mask])]);
    s.turn.tiles_placed = 1;
    act(
        &mut s,
        0,
        JavaAction::HoldFestival {
            space: "C7".into(),
            cards: vec!["pc71".into()],
        },
    );
    act(&mut s, 1, bid(&["pc81"]));
    act(&mut s, 2, bid(&["pc91"]));
    let f = s.festival().expect("festival runs");
    assert_eq!(
        f.stage,
        FestivalStage::Agreement {
            proposer: 2,
            asked: vec![0, 1]
        }
    );
    act(&mut s, 0, JavaAction::Agree);
    assert_eq!(Java::to_act(&s), vec![1]);
    act(&mut s, 1, JavaAction::Agree);
    assert!(matches!(s.phase, Phase::Turn));
    assert_eq!([score(&s, 0), score(&s, 1), score(&s, 2)], [1, 1, 1]);
}

/// An outbid host who passes loses his cards; the last bidder holds the festival alone.
#[test]
fn an_outbid_host_who_passes_leaves_the_festival_to_the_other() {
    let mut s = game(2);
    village(&mut s, &["C7", "D7", "E7", "F7"], 1);
    palace(&mut s, "C7", 4);
    stand(&mut s, 0, "D7");
    stand(&mut s, 1, "E7");
    s.face_up = Some(card("pc90", &[Drum, Mask]));
    give_hand(
        &mut s,
        0,
        vec![card("pc71", &[Drum]), card("pc72", &[Mask])],
    );
    give_hand(&mut s, 1, vec![card("pc81", &[Drum, Mask])]);
    s.turn.tiles_placed = 1;
    act(
        &mut s,
        0,
        JavaAction::HoldFestival {
            space: "C7".into(),
            cards: vec!["pc71".into()],
        },
    );
    act(&mut s, 1, bid(&["pc81"]));
    assert_eq!(Java::to_act(&s), vec![0]);
    act(&mut s, 0, JavaAction::Pass);
    assert_eq!([score(&s, 0), score(&s, 1)], [0, 2]);
    assert!(s.discard.iter().any(|c| c.id == "pc71"));
    assert!(s.players[0].hand.iter().any(|h| h.card.id == "pc72"));
}

/// "Eine Stadt wird mit einem Dorf verbunden ... und der Palast wird entsprechend
/// ausgebaut."
#[test]
fn a_city_joined_with_a_village_may_be_raised_to_its_new_size() {
    let mut s = game(2);
    village(&mut s, &["C7", "D7"], 1);
    village(&mut s, &["F7", "G7", "H7", "I7"], 1);
    palace(&mut s, "C7", 2);
    stand(&mut s, 0, "D7");
    assert_eq!(
        Java::decide(
            &s,
            0,
            &JavaAction::RaisePalace {
                space: "C7".into(),
                value: 6
            },
            &mut rng(1)
        )
        .unwrap_err()
        .code,
        "settlement_too_small"
    );
    act(&mut s, 0, tile_action(TileKind::OneSpaceVillage, "E7", &[]));
    act(
        &mut s,
        0,
        JavaAction::RaisePalace {
            space: "C7".into(),
            value: 6,
        },
    );
    assert_eq!(score(&s, 0), 3);
}

/// "Bei einer geteilten Stadt kann auf dem abgetrennten Teil ohne Palast ... ein neuer
/// Palast gebaut werden"; the old palace keeps its value.
#[test]
fn the_cut_off_part_of_a_city_is_a_village_again() {
    let mut s = game(2);
    village(&mut s, &["C7", "D7", "E7", "F7", "G7", "H7"], 1);
    rice(&mut s, &["E6"], 1);
    palace(&mut s, "C7", 6);
    stand(&mut s, 0, "G7");
    // A two-space tile with its rice on E7 cuts F7..H7 off (village on E6).
    act(&mut s, 0, tile_action(TileKind::TwoSpace, "E6", &["E7"]));
    assert_eq!(s.palaces[0].value, 6);
    act(
        &mut s,
        0,
        JavaAction::BuildPalace {
            space: "F7".into(),
            value: 2,
        },
    );
    assert_eq!(score(&s, 0), 1);
    assert_eq!(s.palaces.len(), 2);
}

/// Great Final Count with four players: first full, tied second half each, fourth nothing.
#[test]
fn great_final_count_tied_second_and_a_fourth() {
    let mut s = game(4);
    village(&mut s, &["C7", "D7", "E7", "F7", "G7", "H7"], 1);
    village(&mut s, &["I7"], 3);
    village(&mut s, &["J7", "K7"], 2);
    palace(&mut s, "C7", 6);
    stand(&mut s, 0, "I7");
    stand(&mut s, 1, "J7");
    stand(&mut s, 2, "K7");
    stand(&mut s, 3, "D7");
    let points: Vec<u16> = (0..4).map(|seat| final_count(&s, seat).0).collect();
    assert_eq!(points, vec![6, 3, 3, 0]);
}

/// Rule codes without a test elsewhere: `off_board` (a tile cell beyond the map) and
/// `no_such_seat`.
#[test]
fn tiles_beyond_the_map_and_unknown_seats_are_refused() {
    let s = game(2);
    // E1 is a mountain cell of the northernmost row: nothing lies north-east of it.
    let beyond = JavaAction::PlaceTile {
        tile: TileKind::TwoSpace,
        space: "E1".into(),
        rotation: 1,
        cost: None,
    };
    assert_eq!(refused(&s, 0, beyond), "off_board");
    assert_eq!(refused(&s, 7, JavaAction::EndTurn), "no_such_seat");
}

/// "Pro Zug muss mindestens 1 Tafel gelegt werden" (until the end). When the only
/// placements left hang over the border (2 AP), other actions must leave 2 AP, not 1: a
/// player may not spend himself out of the mandatory tile and so end the game early.
#[test]
fn other_actions_keep_the_ap_of_the_cheapest_owed_tile() {
    let mut s = game(2);
    let keep = idx("D11");
    for (i, cell) in board().cells.iter().enumerate() {
        if cell.kind == crate::java::data::CellKind::Land && i != keep {
            s.spaces[i].irrigation = true;
        }
    }
    s.three_space_tiles = 0;
    let p = &mut s.players[0];
    p.one_space_rice_tiles = 0;
    p.one_space_village_tiles = 0;
    s.turn.ap = 3;
    // Only two-space tiles on D11 with one cell on the lowlands remain: 2 AP each.
    let tiles: Vec<JavaAction> = Java::legal_actions(&s, 0)
        .into_iter()
        .filter(|a| matches!(a, JavaAction::PlaceTile { .. }))
        .collect();
    assert!(!tiles.is_empty());
    assert!(tiles
        .iter()
        .all(|a| matches!(a, JavaAction::PlaceTile { cost: Some(2), .. })));
    act(&mut s, 0, buy(CardSource::Deck));
    assert_eq!(s.turn.ap, 2);
    assert_eq!(refused(&s, 0, buy(CardSource::Deck)), "tile_still_owed");
    let legal = Java::legal_actions(&s, 0);
    assert!(!legal
        .iter()
        .any(|a| matches!(a, JavaAction::BuyCard { .. })));
    assert!(!legal.contains(&JavaAction::EndTurn));
}
