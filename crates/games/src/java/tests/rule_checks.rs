//! One test per rule restriction, asserting its rule code.

use super::*;
use crate::engine::Viewer;
use crate::java::data::{data, CellKind};
use crate::java::event::EndReason;
use crate::java::state::{FestivalStage, Palace, Phase};

use Symbol::{Drum, Mask, Puppet};

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

fn build(space: &str, value: u8) -> JavaAction {
    JavaAction::BuildPalace {
        space: space.into(),
        value,
    }
}

fn raise(space: &str, value: u8) -> JavaAction {
    JavaAction::RaisePalace {
        space: space.into(),
        value,
    }
}

fn one_rice(space: &str) -> JavaAction {
    tile_action(TileKind::OneSpaceRice, "", &[space])
}

fn one_village(space: &str) -> JavaAction {
    tile_action(TileKind::OneSpaceVillage, space, &[])
}

fn cost_of(events: &[JavaEvent]) -> u8 {
    match &events[0] {
        JavaEvent::DeveloperEntered { cost, .. }
        | JavaEvent::DeveloperMoved { cost, .. }
        | JavaEvent::DeveloperWithdrawn { cost, .. }
        | JavaEvent::TilePlaced { cost, .. } => *cost,
        other => panic!("no cost in {other:?}"),
    }
}

// --- board and setup -------------------------------------------------------------------

#[test]
fn board_has_150_land_and_3_irrigation_spaces_with_unique_names() {
    let b = board();
    let count = |k: CellKind| b.cells.iter().filter(|c| c.kind == k).count();
    assert_eq!(count(CellKind::Land), 150);
    assert_eq!(count(CellKind::Irrigation), 3);
    for (i, cell) in b.cells.iter().enumerate() {
        assert_eq!(b.index(&cell.name), Some(i));
    }
    // A space has exactly one name (docs/vocabulary.md): "h6" names nothing.
    assert_eq!(b.index("h6"), None);
    assert_eq!(b.cells[idx("H6")].kind, CellKind::Irrigation);
    assert_eq!(b.index("Z1"), None);
}

#[test]
fn setup_deals_three_secret_cards_and_one_face_up() {
    for seats in 2..=4u8 {
        let s = game(seats);
        assert!(s.players.iter().all(|p| p.hand.len() == 3));
        assert!(s.face_up.is_some());
        assert_eq!(s.deck.len(), 30 - 3 * seats as usize - 1);
        assert_eq!(s.three_space_tiles, 56);
        assert_eq!(s.irrigation_tiles, 16);
        assert_eq!(s.palace_stock(10), 10);
        assert_eq!(s.players[0].developers, 12);
        assert_eq!(Java::to_act(&s), vec![0]);
    }
    let err = Java::setup(
        &JavaOptions::default(),
        5,
        Java::newest_rules_version(),
        None,
        &mut rng(1),
    )
    .unwrap_err();
    assert_eq!(err.code, "unsupported_player_count");
}

#[test]
fn options_and_actions_have_the_documented_json_shape() {
    let options: JavaOptions = serde_json::from_str("{}").unwrap();
    assert_eq!(options, JavaOptions::default());
    assert!(serde_json::from_str::<JavaOptions>(r#"{"variant":1}"#).is_err());
    let action: JavaAction = serde_json::from_str(
        r#"{"type":"place_tile","tile":"three_space","space":"E11","rotation":3}"#,
    )
    .unwrap();
    assert_eq!(
        action,
        JavaAction::PlaceTile {
            tile: TileKind::ThreeSpace,
            space: "E11".into(),
            rotation: 3,
            cost: None
        }
    );
    let end: JavaAction = serde_json::from_str(r#"{"type":"end_turn"}"#).unwrap();
    assert_eq!(end, JavaAction::EndTurn);
    assert!(
        serde_json::from_str::<JavaAction>(r#"{"type":"buy_card","source":"deck","x":1}"#).is_err()
    );
}

// --- tiles -----------------------------------------------------------------------------

#[test]
fn first_turn_offers_every_tile_kind_and_no_end_turn() {
    let s = game(2);
    let actions = Java::legal_actions(&s, 0);
    for kind in TileKind::ALL {
        assert!(actions
            .iter()
            .any(|a| matches!(a, JavaAction::PlaceTile { tile, .. } if *tile == kind)));
    }
    assert!(!actions.contains(&JavaAction::EndTurn));
    assert_eq!(refused(&s, 0, JavaAction::EndTurn), "must_place_tile");
    assert!(Java::legal_actions(&s, 1).is_empty());
    assert_eq!(refused(&s, 1, three("E5", "F5", "E4")), "not_your_turn");
}

#[test]
fn a_tile_must_lie_flat() {
    let mut s = game(2);
    rice(&mut s, &["E5"], 1);
    assert_eq!(refused(&s, 0, three("F5", "E5", "E4")), "not_flat");
}

#[test]
fn a_tile_may_not_lie_exactly_on_a_tile_of_its_size() {
    let mut s = game(2);
    act(&mut s, 0, three("F5", "E5", "E4"));
    assert_eq!(refused(&s, 0, three("E5", "F5", "E4")), "congruent");
    act(&mut s, 0, one_rice("E7"));
    assert_eq!(refused(&s, 0, one_village("E7")), "congruent");
    act(&mut s, 0, tile_action(TileKind::TwoSpace, "I7", &["J7"]));
    assert_eq!(
        refused(&s, 0, tile_action(TileKind::TwoSpace, "J7", &["I7"])),
        "congruent"
    );
    // A smaller tile on part of a bigger one is fine.
    act(&mut s, 0, tile_action(TileKind::TwoSpace, "E5", &["F5"]));
    assert_eq!(s.spaces[idx("E5")].height, 2);
}

#[test]
fn tiles_never_cover_developers_palaces_or_irrigation() {
    let mut s = game(2);
    village(&mut s, &["E5", "F5"], 1);
    stand(&mut s, 1, "E5");
    palace(&mut s, "F5", 2);
    s.spaces[idx("E7")].irrigation = true;
    assert_eq!(refused(&s, 0, one_rice("E5")), "covers_developer");
    assert_eq!(refused(&s, 0, one_rice("F5")), "covers_palace");
    assert_eq!(refused(&s, 0, one_rice("E7")), "covers_irrigation");
    assert_eq!(refused(&s, 0, one_rice("H6")), "covers_irrigation");
}

#[test]
fn a_tile_may_not_join_two_cities_but_may_join_a_city_and_a_village() {
    let mut s = game(2);
    village(&mut s, &["C7", "D7", "F7", "G7"], 1);
    palace(&mut s, "C7", 2);
    palace(&mut s, "G7", 2);
    assert_eq!(refused(&s, 0, one_village("E7")), "joins_cities");
    // Covering the link with rice is fine; a village next to one city is fine.
    let mut other = s.clone();
    act(&mut other, 0, one_rice("E7"));
    act(&mut s, 0, one_village("C6"));
    // Cutting a city off first makes the join legal: cover F7 with rice (two-space tile
    // whose village F8 touches only the city at G7).
    let mut cut = game(2);
    village(&mut cut, &["C7", "D7", "F7", "G7"], 1);
    rice(&mut cut, &["F8"], 1);
    palace(&mut cut, "C7", 2);
    palace(&mut cut, "G7", 2);
    act(&mut cut, 0, tile_action(TileKind::TwoSpace, "F8", &["F7"]));
    act(&mut cut, 0, one_village("E7"));
}

#[test]
fn a_three_space_village_may_not_bridge_two_cities() {
    let mut s = game(2);
    village(&mut s, &["E5", "G5"], 1);
    palace(&mut s, "E5", 2);
    palace(&mut s, "G5", 2);
    // Village on F5 touches both cities.
    assert_eq!(refused(&s, 0, three("F5", "E4", "F4")), "joins_cities");
    act(&mut s, 0, three("F4", "F5", "E4"));
}

#[test]
fn the_border_rule_needs_one_board_space_and_pays_per_outside_cell() {
    let mut s = game(2);
    // Both cells on lowlands: nothing of the board is covered.
    assert_eq!(
        refused(&s, 0, tile_action(TileKind::TwoSpace, "F15", &["G15"])),
        "no_board_space"
    );
    assert_eq!(refused(&s, 0, one_rice("C11")), "no_board_space");
    let two_out = tile_action(TileKind::TwoSpace, "D11", &["C11"]);
    s.turn.ap = 1;
    assert_eq!(refused(&s, 0, two_out.clone()), "not_enough_action_points");
    s.turn.ap = 6;
    assert_eq!(cost_of(&act(&mut s, 0, two_out)), 2);
    // The covered lowland cell is now a space: developers may stand there, and it is at
    // the rim (next to uncovered lowlands).
    assert_eq!(cost_of(&act(&mut s, 0, enter("C11"))), 1);
}

#[test]
fn stated_costs_must_match() {
    let s = game(2);
    let action = JavaAction::PlaceTile {
        tile: TileKind::ThreeSpace,
        space: "F5".into(),
        rotation: 0,
        cost: Some(2),
    };
    assert_eq!(refused(&s, 0, action), "cost_mismatch");
}

#[test]
fn own_tile_stock_runs_out() {
    let mut s = game(2);
    s.players[0].two_space_tiles = 0;
    assert_eq!(
        refused(&s, 0, tile_action(TileKind::TwoSpace, "E5", &["F5"])),
        "no_tile_left"
    );
    assert!(!Java::legal_actions(&s, 0).iter().any(|a| matches!(
        a,
        JavaAction::PlaceTile {
            tile: TileKind::TwoSpace,
            ..
        }
    )));
}

#[test]
fn invalid_rotations_and_unknown_spaces_are_refused() {
    let s = game(2);
    let bad = JavaAction::PlaceTile {
        tile: TileKind::OneSpaceRice,
        space: "E5".into(),
        rotation: 1,
        cost: None,
    };
    assert_eq!(refused(&s, 0, bad), "invalid_rotation");
    assert_eq!(refused(&s, 0, one_rice("Q99")), "unknown_space");
}

// --- developers ------------------------------------------------------------------------

#[test]
fn developers_enter_at_the_rim_for_one_or_two_ap() {
    let mut s = game(2);
    rice(&mut s, &["E2", "C8", "D11", "E5"], 1);
    // E2 touches only mountains, D11 lowlands, C8 both.
    assert_eq!(cost_of(&act(&mut s, 0, enter("E2"))), 2);
    assert_eq!(cost_of(&act(&mut s, 0, enter("D11"))), 1);
    assert_eq!(cost_of(&act(&mut s, 0, enter("C8"))), 1);
    assert_eq!(refused(&s, 0, enter("E5")), "not_rim_space");
    assert_eq!(refused(&s, 0, enter("C10")), "no_tile_there");
    assert_eq!(refused(&s, 0, enter("D11")), "space_occupied");
    s.players[0].developers = 0;
    assert_eq!(refused(&s, 0, enter("E5")), "no_developer_in_reserve");
}

#[test]
fn movement_is_free_within_a_colour_and_costs_one_per_change() {
    let mut s = game(2);
    rice(&mut s, &["E5", "F5"], 1);
    rice(&mut s, &["G5"], 3);
    village(&mut s, &["H5"], 1);
    rice(&mut s, &["I5"], 2);
    stand(&mut s, 0, "E5");
    // Along rice, up two levels: free.
    assert_eq!(cost_of(&act(&mut s, 0, mv("E5", "G5"))), 0);
    // Rice -> village -> rice: two changes.
    assert_eq!(cost_of(&act(&mut s, 0, mv("G5", "I5"))), 2);
    assert_eq!(refused(&s, 0, mv("E5", "F5")), "not_your_developer");
    assert_eq!(refused(&s, 0, mv("I5", "I5")), "same_space");
}

#[test]
fn other_players_developers_and_palaces_block_own_ones_do_not() {
    let mut s = game(2);
    rice(&mut s, &["E5", "F5", "G5"], 1);
    stand(&mut s, 0, "E5");
    stand(&mut s, 1, "F5");
    assert_eq!(refused(&s, 0, mv("E5", "G5")), "no_path");
    s.spaces[idx("F5")].developer = Some(0);
    s.players[1].developers += 1;
    s.players[0].developers -= 1;
    act(&mut s, 0, mv("E5", "G5"));
    // A palace blocks and cannot be stood on.
    let mut p = game(2);
    village(&mut p, &["E5", "F5", "G5"], 1);
    palace(&mut p, "F5", 2);
    stand(&mut p, 0, "E5");
    assert_eq!(refused(&p, 0, mv("E5", "G5")), "no_path");
    assert_eq!(refused(&p, 0, mv("E5", "F5")), "space_occupied");
    // Irrigation and bare board are not walkable.
    assert_eq!(refused(&p, 0, mv("E5", "D5")), "no_tile_there");
}

#[test]
fn developers_withdraw_from_the_rim_only() {
    let mut s = game(2);
    rice(&mut s, &["E2", "E5"], 1);
    stand(&mut s, 0, "E2");
    stand(&mut s, 0, "E5");
    let withdraw = |from: &str| JavaAction::WithdrawDeveloper {
        from: from.into(),
        cost: None,
    };
    assert_eq!(refused(&s, 0, withdraw("E5")), "not_rim_space");
    assert_eq!(cost_of(&act(&mut s, 0, withdraw("E2"))), 2);
    assert_eq!(s.players[0].developers, 11);
}

#[test]
fn other_actions_keep_one_ap_for_the_owed_tile() {
    let mut s = game(2);
    rice(&mut s, &["D11"], 1);
    s.turn.ap = 1;
    assert_eq!(refused(&s, 0, enter("D11")), "tile_still_owed");
    assert!(!Java::legal_actions(&s, 0)
        .iter()
        .any(|a| matches!(a, JavaAction::EnterDeveloper { .. })));
    act(&mut s, 0, one_rice("E5"));
    s.turn.ap = 1;
    act(&mut s, 0, enter("D11"));
    assert_eq!(
        refused(
            &s,
            0,
            JavaAction::BuyCard {
                source: CardSource::Deck
            }
        ),
        "not_enough_action_points"
    );
}

// --- palaces ---------------------------------------------------------------------------

#[test]
fn palace_building_rules() {
    let mut s = game(2);
    village(&mut s, &["E5", "F5", "G5"], 1);
    village(&mut s, &["E7"], 1);
    stand(&mut s, 0, "E5");
    stand(&mut s, 0, "E7");
    assert_eq!(refused(&s, 0, build("F5", 4)), "settlement_too_small");
    assert_eq!(refused(&s, 0, build("F5", 3)), "invalid_palace_value");
    assert_eq!(refused(&s, 0, build("E5", 2)), "space_occupied");
    assert_eq!(refused(&s, 0, build("D5", 2)), "not_a_village_space");
    s.palace_supply[0].count = 0;
    assert_eq!(refused(&s, 0, build("F5", 2)), "no_palace_tile");
    s.palace_supply[0].count = 6;
    // A tie in rank: nobody may build.
    stand(&mut s, 1, "G5");
    assert_eq!(refused(&s, 0, build("F5", 2)), "not_highest_rank");
    s.spaces[idx("G5")].developer = None;
    act(&mut s, 0, build("F5", 2));
    assert_eq!(score(&s, 0), 1);
    assert_eq!(refused(&s, 0, build("G5", 2)), "already_a_city");
}

#[test]
fn a_palace_changes_once_per_turn_and_raises_score_half_the_new_value() {
    let mut s = game(2);
    village(&mut s, &["E5", "F5", "G5", "H5", "I5", "J5", "K5", "L5"], 1);
    stand(&mut s, 0, "E5");
    act(&mut s, 0, build("F5", 2));
    assert_eq!(refused(&s, 0, raise("F5", 4)), "palace_changed_this_turn");
    assert!(!Java::legal_actions(&s, 0)
        .iter()
        .any(|a| matches!(a, JavaAction::RaisePalace { .. })));
    // Next turn of seat 0.
    act(&mut s, 0, one_rice("E7"));
    act(&mut s, 0, JavaAction::EndTurn);
    act(&mut s, 1, one_rice("G7"));
    act(&mut s, 1, JavaAction::EndTurn);
    s.palaces[0].festival_held = true;
    assert_eq!(refused(&s, 0, raise("F5", 2)), "value_not_higher");
    assert_eq!(refused(&s, 0, raise("F5", 10)), "settlement_too_small");
    assert_eq!(refused(&s, 0, raise("G5", 4)), "no_palace");
    let before = score(&s, 0);
    act(&mut s, 0, raise("F5", 8));
    assert_eq!(score(&s, 0), before + 4);
    assert_eq!(s.palaces[0].value, 8);
    assert!(!s.palaces[0].festival_held, "raising turns the dancer away");
    // Both tiles stay used: 5 of 6 twos and 8 of 9 eights remain.
    assert_eq!(s.palace_stock(2), 5);
    assert_eq!(s.palace_stock(8), 8);
}

// --- irrigation ------------------------------------------------------------------------

#[test]
fn irrigation_goes_on_empty_inner_board_spaces() {
    let mut s = game(2);
    rice(&mut s, &["E5"], 1);
    assert_eq!(refused(&s, 0, irrigate("E5")), "space_not_empty");
    assert_eq!(refused(&s, 0, irrigate("D11")), "rim_space");
    assert_eq!(refused(&s, 0, irrigate("H6")), "not_a_board_space");
    assert_eq!(refused(&s, 0, irrigate("C11")), "not_a_board_space");
    s.irrigation_tiles = 0;
    assert_eq!(refused(&s, 0, irrigate("F5")), "no_irrigation_tile_left");
}

#[test]
fn enclosed_water_with_tied_rank_scores_nothing_and_only_once() {
    let mut s = game(2);
    // Pre-printed H6: neighbours G6 I6 H5 I5 H7 I7.
    rice(&mut s, &["G6", "I6", "H5", "I5", "H7"], 1);
    stand(&mut s, 0, "G6");
    stand(&mut s, 1, "I6");
    let events = act(&mut s, 0, one_rice("I7"));
    assert!(events.iter().any(|e| matches!(
        e,
        JavaEvent::WaterEnclosed {
            scorer: None,
            points: 0,
            ..
        }
    )));
    assert!(s.spaces[idx("H6")].water_scored);
    assert_eq!(score(&s, 0) + score(&s, 1), 0);
    // Higher tile later: no second scoring.
    let events = act(&mut s, 0, tile_action(TileKind::TwoSpace, "H5", &["I5"]));
    assert!(!events
        .iter()
        .any(|e| matches!(e, JavaEvent::WaterEnclosed { .. })));
}

#[test]
fn a_larger_water_area_scores_three_per_space() {
    let mut s = game(2);
    s.spaces[idx("I6")].irrigation = true;
    s.irrigation_tiles -= 1;
    // H6 + I6: neighbours G6 J6 H5 I5 J5 H7 I7 J7.
    rice(&mut s, &["G6", "J6", "H5", "I5", "J5", "H7", "I7"], 1);
    stand(&mut s, 1, "I5");
    let events = act(&mut s, 0, one_rice("J7"));
    assert!(events.iter().any(|e| matches!(
        e,
        JavaEvent::WaterEnclosed {
            scorer: Some(1),
            points: 6,
            ..
        }
    )));
    assert_eq!(score(&s, 1), 6);
}

// --- cards and chips -------------------------------------------------------------------

#[test]
fn at_most_two_cards_per_turn_and_the_face_up_card_is_refilled() {
    let mut s = game(2);
    let face_up = s.face_up.clone().unwrap();
    let top = s.deck[0].clone();
    act(&mut s, 0, buy(CardSource::FaceUp));
    assert_eq!(s.face_up.as_ref(), Some(&top));
    assert!(s.players[0]
        .hand
        .iter()
        .any(|h| h.card == face_up && h.public));
    act(&mut s, 0, buy(CardSource::Deck));
    assert_eq!(s.players[0].hand.len(), 5);
    assert_eq!(refused(&s, 0, buy(CardSource::Deck)), "card_limit_reached");
}

#[test]
fn an_empty_deck_is_refilled_from_the_shuffled_discard_pile() {
    let mut s = game(2);
    let mut pile = std::mem::take(&mut s.deck);
    s.discard.append(&mut pile);
    let count = s.discard.len();
    let events = act(&mut s, 0, buy(CardSource::Deck));
    let JavaEvent::DeckReshuffled { count: n, cards } = &events[0] else {
        panic!("expected a reshuffle, got {events:?}");
    };
    assert_eq!(*n as usize, count);
    // Fresh ids, so earlier public mentions of the cards reveal nothing about the order.
    assert!(cards
        .as_ref()
        .unwrap()
        .iter()
        .all(|c| c.id.as_str() > "pc30"));
    assert_eq!(
        Java::redact(&events[0], Viewer::Seat(0)),
        JavaEvent::DeckReshuffled {
            count: *n,
            cards: None
        }
    );
    assert!(s.discard.is_empty());
    assert_eq!(s.deck.len(), count - 1);
    // Deck and discard pile both empty: nothing to draw.
    let mut empty = game(2);
    empty.deck.clear();
    assert_eq!(refused(&empty, 0, buy(CardSource::Deck)), "deck_empty");
    empty.face_up = None;
    assert_eq!(
        refused(&empty, 0, buy(CardSource::FaceUp)),
        "no_face_up_card"
    );
}

#[test]
fn one_action_chip_per_turn_gives_a_seventh_ap() {
    let mut s = game(2);
    act(&mut s, 0, JavaAction::UseActionChip);
    assert_eq!(s.turn.ap, 7);
    assert_eq!(s.players[0].action_chips, 2);
    assert_eq!(
        refused(&s, 0, JavaAction::UseActionChip),
        "chip_already_used"
    );
    s.players[0].action_chips = 0;
    s.turn.chip_used = false;
    assert_eq!(refused(&s, 0, JavaAction::UseActionChip), "no_action_chip");
}

// --- festivals -------------------------------------------------------------------------

fn festival_city(seats: u8) -> JavaState {
    let mut s = game(seats);
    village(&mut s, &["C7", "D7", "E7", "F7"], 1);
    palace(&mut s, "C7", 4);
    stand(&mut s, 0, "D7");
    stand(&mut s, 1, "E7");
    s.face_up = Some(card("pc90", &[Drum]));
    give_hand(
        &mut s,
        0,
        vec![card("pc71", &[Drum]), card("pc72", &[Mask])],
    );
    give_hand(&mut s, 1, vec![card("pc81", &[Drum, Puppet])]);
    s.turn.tiles_placed = 1;
    s
}

#[test]
fn festival_preconditions() {
    let mut s = festival_city(2);
    assert_eq!(
        refused(&s, 0, festival("C7", &["pc72"])),
        "card_does_not_match"
    );
    assert_eq!(
        refused(&s, 0, festival("C7", &["pc81"])),
        "card_not_in_hand"
    );
    assert_eq!(
        refused(&s, 0, festival("C7", &["pc71", "pc71"])),
        "duplicate_card"
    );
    assert_eq!(refused(&s, 0, festival("C7", &[])), "no_cards");
    assert_eq!(refused(&s, 0, festival("D7", &["pc71"])), "no_palace");
    s.turn.tiles_placed = 0;
    assert_eq!(refused(&s, 0, festival("C7", &["pc71"])), "must_place_tile");
    s.turn.tiles_placed = 1;
    s.palaces[0].festival_held = true;
    assert_eq!(
        refused(&s, 0, festival("C7", &["pc71"])),
        "festival_already_held"
    );
    s.palaces[0].festival_held = false;
    s.spaces[idx("D7")].developer = None;
    assert_eq!(
        refused(&s, 0, festival("C7", &["pc71"])),
        "no_developer_in_city"
    );
    stand(&mut s, 0, "F7");
    act(&mut s, 0, festival("C7", &["pc71"]));
    // Seat 1 must answer now; the host may not act.
    assert!(matches!(s.phase, Phase::Festival(_)));
    assert_eq!(Java::to_act(&s), vec![1]);
    assert_eq!(refused(&s, 0, JavaAction::Pass), "not_your_turn");
    assert_eq!(refused(&s, 1, JavaAction::EndTurn), "wrong_phase");
    assert_eq!(refused(&s, 1, JavaAction::Agree), "no_agreement_offered");
}

#[test]
fn a_festival_tie_without_further_cards_is_agreed_automatically() {
    let mut s = festival_city(2);
    act(&mut s, 0, festival("C7", &["pc71"]));
    let events = act(
        &mut s,
        1,
        JavaAction::Bid {
            cards: vec!["pc81".into()],
        },
    );
    // Nobody holds a drum any more: shared at once, palace 4 shared = 1 each.
    assert!(events.iter().any(|e| matches!(
        e,
        JavaEvent::FestivalEnded {
            shared: true,
            points: 1,
            ..
        }
    )));
    assert_eq!([score(&s, 0), score(&s, 1)], [1, 1]);
    assert!(s.palaces[0].festival_held);
    assert!(s.players[0].hand.iter().any(|h| h.card.id == "pc72"));
}

#[test]
fn an_offered_agreement_can_only_be_accepted_or_outbid() {
    let mut s = festival_city(2);
    give_hand(
        &mut s,
        1,
        vec![card("pc81", &[Drum, Puppet]), card("pc82", &[Drum])],
    );
    act(&mut s, 0, festival("C7", &["pc71"]));
    act(
        &mut s,
        1,
        JavaAction::Bid {
            cards: vec!["pc81".into()],
        },
    );
    // Seat 1 caused the tie and asks seat 0, who has no drum left but must answer.
    let Some(f) = s.festival() else {
        panic!("festival ended early")
    };
    assert_eq!(
        f.stage,
        FestivalStage::Agreement {
            proposer: 1,
            asked: vec![0]
        }
    );
    assert_eq!(refused(&s, 0, JavaAction::Pass), "cannot_pass_now");
    assert_eq!(Java::legal_actions(&s, 0), vec![JavaAction::Agree]);
    act(&mut s, 0, JavaAction::Agree);
    assert_eq!([score(&s, 0), score(&s, 1)], [1, 1]);
}

#[test]
fn a_bid_must_reach_the_highest_bid() {
    let mut s = festival_city(3);
    village(&mut s, &["G7"], 1);
    stand(&mut s, 2, "G7");
    give_hand(
        &mut s,
        0,
        vec![card("pc71", &[Drum]), card("pc72", &[Drum])],
    );
    give_hand(&mut s, 2, vec![card("pc91", &[Drum])]);
    act(&mut s, 0, festival("C7", &["pc71", "pc72"]));
    assert_eq!(
        refused(
            &s,
            1,
            JavaAction::Bid {
                cards: vec!["pc81".into()]
            }
        ),
        "bid_too_low"
    );
    assert_eq!(Java::legal_actions(&s, 1), vec![JavaAction::Pass]);
    act(&mut s, 1, JavaAction::Pass);
    act(&mut s, 2, JavaAction::Pass);
    // Host alone: palace 4 gives 2.
    assert_eq!(score(&s, 0), 2);
    assert_eq!(s.current, 1);
}

#[test]
fn seats_without_cards_or_developers_in_the_city_are_not_asked() {
    let mut s = festival_city(3);
    give_hand(&mut s, 1, vec![]);
    let events = act(&mut s, 0, festival("C7", &["pc71"]));
    assert!(events.iter().any(|e| matches!(
        e,
        JavaEvent::FestivalStarted { participants, .. } if participants.is_empty()
    )));
    assert_eq!(score(&s, 0), 2);
}

// --- end of the game -------------------------------------------------------------------

#[test]
fn the_last_three_space_tile_starts_the_final_turns_and_counts() {
    let mut s = game(3);
    village(&mut s, &["D10", "E10", "F10"], 1);
    palace(&mut s, "F10", 2);
    stand(&mut s, 1, "D10");
    stand(&mut s, 2, "E10");
    s.spaces[idx("E10")].height = 2;
    s.three_space_tiles = 1;
    let events = act(&mut s, 0, three("F5", "E5", "E4"));
    assert!(events.iter().any(|e| matches!(
        e,
        JavaEvent::EndTriggered {
            seat: 0,
            reason: EndReason::LastThreeSpaceTile
        }
    )));
    assert!(!Java::legal_actions(&s, 0).iter().any(|a| matches!(
        a,
        JavaAction::PlaceTile {
            tile: TileKind::ThreeSpace,
            ..
        }
    )));
    // Seat 0 finishes its turn and counts alone (no developer in the city: 0).
    let events = act(&mut s, 0, JavaAction::EndTurn);
    assert!(matches!(
        events[0],
        JavaEvent::FinalCount {
            seat: 0,
            points: 0,
            ..
        }
    ));
    assert!(s.players[0].counted);
    // Seat 1 needs no tile now; it is second in the city: half of 2.
    assert!(Java::legal_actions(&s, 1).contains(&JavaAction::EndTurn));
    let events = act(&mut s, 1, JavaAction::EndTurn);
    assert!(matches!(
        events[0],
        JavaEvent::FinalCount {
            seat: 1,
            points: 1,
            ..
        }
    ));
    // Seat 2 moves nothing and takes the full value; then the game ends.
    let events = act(&mut s, 2, JavaAction::EndTurn);
    assert!(matches!(
        events[0],
        JavaEvent::FinalCount {
            seat: 2,
            points: 2,
            ..
        }
    ));
    assert!(matches!(
        events.last(),
        Some(JavaEvent::GameFinished { .. })
    ));
    let outcome = Java::outcome(&s).unwrap();
    assert_eq!(outcome.scores, vec![0, 1, 2]);
    assert_eq!(outcome.places, vec![3, 2, 1]);
    assert!(Java::to_act(&s).is_empty());
    assert_eq!(refused(&s, 0, JavaAction::EndTurn), "game_over");
}

#[test]
fn players_who_have_counted_still_join_festivals() {
    let mut s = festival_city(2);
    s.end_started_by = Some(1);
    s.players[1].counted = true;
    act(&mut s, 0, festival("C7", &["pc71"]));
    assert_eq!(Java::to_act(&s), vec![1]);
    act(
        &mut s,
        1,
        JavaAction::Bid {
            cards: vec!["pc81".into()],
        },
    );
    assert_eq!(score(&s, 1), 1);
    // Seat 0 was the last to play before seat 1 began the end: the game is over.
    assert!(Java::outcome(&s).is_some());
}

#[test]
fn a_turn_without_any_affordable_tile_may_end_and_begins_the_end() {
    let mut s = game(2);
    s.three_space_tiles = 0;
    let p = &mut s.players[0];
    p.two_space_tiles = 0;
    p.one_space_rice_tiles = 0;
    p.one_space_village_tiles = 0;
    assert!(Java::legal_actions(&s, 0).contains(&JavaAction::EndTurn));
    let events = act(&mut s, 0, JavaAction::EndTurn);
    assert!(matches!(
        events[0],
        JavaEvent::EndTriggered {
            reason: EndReason::NoTilePlaceable,
            ..
        }
    ));
    assert!(s.players[0].counted);
    assert_eq!(s.current, 1);
}

// --- hidden information ----------------------------------------------------------------

#[test]
fn hands_and_deck_stay_hidden_from_others() {
    let mut s = game(3);
    let options = JavaOptions::default();
    let events = Java::setup(&options, 3, Java::newest_rules_version(), None, &mut rng(7)).unwrap();
    for secret in Java::secrets(&s) {
        let full = serde_json::to_string(&s).unwrap();
        assert!(full.contains(&secret.needle));
        for viewer in [
            Viewer::Spectator,
            Viewer::Seat(0),
            Viewer::Seat(1),
            Viewer::Seat(2),
        ] {
            if secret.owner.is_some_and(|o| viewer.sees_secrets_of(o)) {
                continue;
            }
            let view = serde_json::to_string(&Java::view(&s, viewer)).unwrap();
            assert!(!view.contains(&secret.needle));
            for event in &events {
                let json = serde_json::to_string(&Java::redact(event, viewer)).unwrap();
                assert!(!json.contains(&secret.needle), "{viewer:?}: {json}");
            }
        }
    }
    // The omniscient view does show them, so the checks above can fail.
    let everything = serde_json::to_string(&Java::view(&s, Viewer::Omniscient)).unwrap();
    let owned: Vec<_> = Java::secrets(&s)
        .into_iter()
        .filter(|secret| secret.owner.is_some())
        .collect();
    assert_eq!(owned.len(), 9);
    assert!(owned
        .iter()
        .all(|secret| everything.contains(&secret.needle)));
    let own = Java::view(&s, Viewer::Seat(1));
    assert!(own.players[1].hand.is_some());
    assert!(own.players[0].hand.is_none());
    assert_eq!(own.players[0].card_count, 3);
    // A bought face-up card is public knowledge, a card from the deck is not.
    let face_up = s.face_up.clone().unwrap();
    let events = act(&mut s, 0, buy(CardSource::FaceUp));
    let spectator = Java::view(&s, Viewer::Spectator);
    assert_eq!(spectator.players[0].known_cards, vec![face_up]);
    assert!(Java::describe(&s, &Java::redact(&events[1], Viewer::Spectator)).contains("face-up"));
    let events = act(&mut s, 0, buy(CardSource::Deck));
    let redacted = Java::redact(&events[0], Viewer::Seat(1));
    assert_eq!(
        redacted,
        JavaEvent::CardBought {
            seat: 0,
            source: CardSource::Deck,
            card: None
        }
    );
    assert!(Java::redact(&events[0], Viewer::Seat(0)) == events[0]);
    assert_eq!(
        Java::describe(&s, &redacted),
        "Red buys a palace card from the deck"
    );
    let _ = data();
}

#[test]
fn decide_refuses_nonsense_without_panicking() {
    let s = game(2);
    let nonsense = [
        JavaAction::PlaceTile {
            tile: TileKind::ThreeSpace,
            space: "".into(),
            rotation: 255,
            cost: Some(0),
        },
        JavaAction::PlaceTile {
            tile: TileKind::TwoSpace,
            space: "E1".into(),
            rotation: 2,
            cost: None,
        },
        mv("zz", "E5"),
        enter("O99"),
        build("H6", 0),
        raise("E1", 200),
        irrigate("F15"),
        festival("Q1", &["x"]),
        JavaAction::Bid { cards: vec![] },
    ];
    for action in nonsense {
        assert!(
            Java::decide(&s, 0, &action, &mut rng(3)).is_err(),
            "{action:?}"
        );
        assert!(Java::decide(&s, 7, &action, &mut rng(3)).is_err());
    }
}

#[test]
fn every_api_schema_name_is_java_prefixed() {
    use utoipa::ToSchema;
    let mut schemas = Vec::new();
    super::super::JavaOptions::schemas(&mut schemas);
    JavaAction::schemas(&mut schemas);
    JavaEvent::schemas(&mut schemas);
    super::super::JavaView::schemas(&mut schemas);
    assert!(schemas.len() > 10);
    let primitive = ["u8", "u16", "u32", "i32", "String", "bool", "usize"];
    for (name, _) in schemas {
        assert!(
            name.starts_with("Java") || primitive.contains(&name.as_str()),
            "schema {name} may clash with other games"
        );
    }
}
