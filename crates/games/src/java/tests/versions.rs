//! What rules version 2 (2026-11-24) changed, each rule shown both ways: a game of version 2
//! plays the fix, a game started under version 1 still plays as it always did.
//!
//! The positions are cut down to what matters: the board is filled with water except for
//! the few spaces a test is about (more than the 16 irrigation tiles, but only free spaces
//! matter for where a tile can go).

use super::*;
use crate::java::data::CellKind;
use crate::java::event::EndReason;
use crate::java::state::Palace;

use Symbol::Drum;

const V1: u32 = 1;
const V2: u32 = 2;

/// Water on every land space of central Java except `free`.
pub(super) fn only_free(state: &mut JavaState, free: &[&str]) {
    let keep: Vec<usize> = free.iter().map(|name| idx(name)).collect();
    for (i, cell) in board().cells.iter().enumerate() {
        if cell.kind == CellKind::Land && !keep.contains(&i) {
            state.spaces[i].irrigation = true;
        }
    }
}

/// One two-space tile, its village on `village` and its rice on `rice`, from an earlier turn.
fn two_space_tile(state: &mut JavaState, village: &str, rice: &str) {
    let id = state.tile_sizes.len() as u16;
    state.tile_sizes.push(2);
    for (name, terrain) in [(village, Terrain::Village), (rice, Terrain::Rice)] {
        let space = &mut state.spaces[idx(name)];
        space.height += 1;
        space.terrain = Some(terrain);
        space.top_tile = Some(id);
    }
}

fn no_one_space_tiles(state: &mut JavaState, seat: Seat) {
    let player = &mut state.players[seat as usize];
    player.one_space_rice_tiles = 0;
    player.one_space_village_tiles = 0;
}

pub(super) fn listed(state: &JavaState, action: &JavaAction) -> bool {
    Java::legal_actions(state, state.current)
        .iter()
        .any(|a| same_target(a, action))
}

/// Equal up to the optional `cost` field.
pub(super) fn same_target(listed: &JavaAction, probe: &JavaAction) -> bool {
    let mut listed = listed.clone();
    match &mut listed {
        JavaAction::PlaceTile { cost, .. }
        | JavaAction::EnterDeveloper { cost, .. }
        | JavaAction::MoveDeveloper { cost, .. }
        | JavaAction::WithdrawDeveloper { cost, .. } => *cost = None,
        _ => {}
    }
    &listed == probe
}

/// Every turn action but festivals, on every space: `legal_actions` lists exactly those
/// `decide` accepts (the playouts only sample this).
pub(super) fn assert_listing_is_exact(state: &JavaState) {
    let seat = state.current;
    let legal = Java::legal_actions(state, seat);
    for action in &legal {
        if let Err(refusal) = Java::decide(state, seat, action, &mut rng(3)) {
            panic!("listed {action:?} refused: {refusal}");
        }
    }
    let cells: Vec<String> = board().cells.iter().map(|c| c.name.clone()).collect();
    let own: Vec<&String> = cells
        .iter()
        .filter(|name| state.spaces[idx(name)].developer == Some(seat))
        .collect();
    let mut probes = vec![
        JavaAction::EndTurn,
        JavaAction::UseActionChip,
        buy(CardSource::Deck),
        buy(CardSource::FaceUp),
    ];
    for name in &cells {
        probes.push(enter(name));
        probes.push(irrigate(name));
        for value in [2, 4, 6, 8, 10] {
            probes.push(JavaAction::BuildPalace {
                space: name.clone(),
                value,
            });
            probes.push(JavaAction::RaisePalace {
                space: name.clone(),
                value,
            });
        }
        for from in &own {
            probes.push(mv(from, name));
        }
    }
    for from in &own {
        probes.push(JavaAction::WithdrawDeveloper {
            from: from.to_string(),
            cost: None,
        });
    }
    for probe in probes {
        let accepted = Java::decide(state, seat, &probe, &mut rng(3)).is_ok();
        let is_listed = legal.iter().any(|l| same_target(l, &probe));
        assert_eq!(
            accepted, is_listed,
            "{probe:?}: accepted {accepted}, listed {is_listed}"
        );
    }
}

// --- the mandatory tile ------------------------------------------------------------------

/// Only G7, an inner space, is free: one-space tiles fit there and nowhere else.
fn last_free_inner_space(rules_version: u32) -> JavaState {
    let mut s = game_under(rules_version, 2);
    only_free(&mut s, &["G7"]);
    s
}

/// "Während seines Zuges muss ein Spieler mindestens eine Geländetafel ... legen": under
/// version 2 an irrigation tile may not take the last space a tile could go to, so the turn
/// cannot end without its tile.
#[test]
fn v2_irrigation_may_not_block_the_last_placement_muss_mindestens_eine_gelaendetafel() {
    let s = last_free_inner_space(V2);
    assert_listing_is_exact(&s);
    assert_eq!(refused(&s, 0, irrigate("G7")), "tile_still_owed");
    assert!(!listed(&s, &irrigate("G7")));
    assert_eq!(refused(&s, 0, JavaAction::EndTurn), "must_place_tile");
    assert!(!listed(&s, &JavaAction::EndTurn));
    // Buying cards is fine while a tile can still be afforded.
    let mut s = s;
    act(&mut s, 0, buy(CardSource::Deck));
    assert_listing_is_exact(&s);
    act(&mut s, 0, tile_action(TileKind::OneSpaceRice, "", &["G7"]));
    act(&mut s, 0, JavaAction::EndTurn);
    assert_eq!(s.end_started_by, None);
}

/// Version 1 kept only AP for the tile: the irrigation tile was accepted, and then the turn
/// could end without a tile, which began the end of the game.
#[test]
fn v1_irrigation_still_blocks_the_last_placement_and_ends_the_game() {
    let mut s = last_free_inner_space(V1);
    assert_listing_is_exact(&s);
    assert!(listed(&s, &irrigate("G7")));
    act(&mut s, 0, irrigate("G7"));
    assert!(listed(&s, &JavaAction::EndTurn));
    let events = act(&mut s, 0, JavaAction::EndTurn);
    assert_eq!(
        events[0],
        JavaEvent::EndTriggered {
            seat: 0,
            reason: EndReason::NoTilePlaceable
        }
    );
    assert!(s.players[0].counted);
}

/// A two-space tile from an earlier turn lies on D11 (village) and the lowland space C11
/// (rice); Red's developer stands on C11. One-space tiles fit on D11 only.
fn rim_with_own_developer(rules_version: u32) -> JavaState {
    let mut s = game_under(rules_version, 2);
    only_free(&mut s, &["D11"]);
    two_space_tile(&mut s, "D11", "C11");
    stand(&mut s, 0, "C11");
    s
}

/// "Während seines Zuges muss ein Spieler mindestens eine Geländetafel ... legen": a
/// developer may not take the last space either; moving the one that blocks a space onto
/// the other frees that space, so it is allowed.
#[test]
fn v2_a_developer_may_not_block_the_last_placement_muss_mindestens_eine_gelaendetafel() {
    let s = rim_with_own_developer(V2);
    assert_listing_is_exact(&s);
    assert_eq!(refused(&s, 0, enter("D11")), "tile_still_owed");
    assert!(!listed(&s, &enter("D11")));
    assert_eq!(refused(&s, 0, JavaAction::EndTurn), "must_place_tile");
    // Moving from C11 to D11 frees C11, where a one-space tile fits then.
    let mut moved = s.clone();
    act(&mut moved, 0, mv("C11", "D11"));
    assert_listing_is_exact(&moved);
    assert_eq!(refused(&moved, 0, JavaAction::EndTurn), "must_place_tile");
    act(
        &mut moved,
        0,
        tile_action(TileKind::OneSpaceRice, "", &["C11"]),
    );
    // Withdrawing the developer frees C11 as well.
    let mut withdrawn = s;
    act(
        &mut withdrawn,
        0,
        JavaAction::WithdrawDeveloper {
            from: "C11".into(),
            cost: None,
        },
    );
    assert_listing_is_exact(&withdrawn);
}

#[test]
fn v1_a_developer_still_blocks_the_last_placement_and_ends_the_game() {
    let mut s = rim_with_own_developer(V1);
    assert_listing_is_exact(&s);
    act(&mut s, 0, enter("D11"));
    let events = act(&mut s, 0, JavaAction::EndTurn);
    assert!(matches!(
        events[0],
        JavaEvent::EndTriggered {
            reason: EndReason::NoTilePlaceable,
            ..
        }
    ));
}

/// Red (no one-space tiles left) has 2 AP. The 1-AP spot is G7 + H7, where Red's developer
/// stands on G7; otherwise only border-rule tiles at D11 are left, for 2 AP or more.
fn cheap_spot_under_own_developer(rules_version: u32) -> JavaState {
    let mut s = game_under(rules_version, 2);
    only_free(&mut s, &["D11", "G7", "H7", "F7"]);
    rice(&mut s, &["G7", "H7"], 1);
    village(&mut s, &["F7"], 1);
    stand(&mut s, 0, "G7");
    no_one_space_tiles(&mut s, 0);
    s.turn.ap = 2;
    s
}

/// "Auch ist die Reihenfolge dieser Aktionen beliebig": moving the developer off the cheap
/// spot (1 AP) and then laying a 1-AP tile there is a legal order under version 2.
#[test]
fn v2_move_own_developer_off_the_cheap_spot_then_place_there_reihenfolge_beliebig() {
    let mut s = cheap_spot_under_own_developer(V2);
    assert_listing_is_exact(&s);
    assert!(listed(&s, &mv("G7", "F7")));
    act(&mut s, 0, mv("G7", "F7"));
    assert_eq!(s.turn.ap, 1);
    act(&mut s, 0, tile_action(TileKind::TwoSpace, "G7", &["H7"]));
    act(&mut s, 0, JavaAction::EndTurn);
    assert_eq!(s.end_started_by, None);
}

/// Version 1 kept the 2 AP of the cheapest placement possible before the move.
#[test]
fn v1_refuses_to_move_off_the_cheap_spot_when_only_its_ap_are_left() {
    let s = cheap_spot_under_own_developer(V1);
    assert_listing_is_exact(&s);
    assert_eq!(refused(&s, 0, mv("G7", "F7")), "tile_still_owed");
    assert!(!listed(&s, &mv("G7", "F7")));
}

/// Spending AP still counts under version 2: with 2 AP and only border-rule placements
/// (2 AP or more) left at D11, a card would leave too few.
#[test]
fn v2_an_action_may_not_spend_the_ap_of_the_last_affordable_placement() {
    let mut s = game_under(V2, 2);
    only_free(&mut s, &["D11"]);
    no_one_space_tiles(&mut s, 0);
    s.turn.ap = 2;
    assert_listing_is_exact(&s);
    assert_eq!(refused(&s, 0, buy(CardSource::Deck)), "tile_still_owed");
    // With nothing placeable at all, anything affordable goes, and the turn may end.
    s.turn.ap = 1;
    assert_listing_is_exact(&s);
    act(&mut s, 0, buy(CardSource::Deck));
    act(&mut s, 0, JavaAction::EndTurn);
    assert_eq!(s.end_started_by, Some(0));
}

/// A palace that joins the free spaces' settlement to a city makes the placements that
/// would connect two cities impossible: building it is refused when nothing else is left.
#[test]
fn v2_a_palace_may_not_make_the_last_placement_join_two_cities() {
    let mut s = game_under(V2, 2);
    // The bare space J7 lies between the city H7 - I7 (palace on H7) and the village
    // K7 - L7; Red stands on I7 and L7 and has one one-space village tile.
    only_free(&mut s, &["H7", "I7", "J7", "K7", "L7"]);
    village(&mut s, &["H7", "I7"], 1);
    village(&mut s, &["K7", "L7"], 1);
    s.palaces.push(Palace {
        space: idx("H7"),
        value: 2,
        festival_held: false,
        changed_in_turn: 0,
    });
    s.spaces[idx("H7")].palace = Some(0);
    stand(&mut s, 0, "L7");
    stand(&mut s, 0, "I7");
    no_one_space_tiles(&mut s, 0);
    s.players[0].one_space_village_tiles = 1;
    // A one-space village on J7 joins the city H7-I7 and the village K7-L7: still fine.
    assert!(listed(
        &s,
        &tile_action(TileKind::OneSpaceVillage, "J7", &[])
    ));
    assert_listing_is_exact(&s);
    let build_k7 = JavaAction::BuildPalace {
        space: "K7".into(),
        value: 2,
    };
    assert_eq!(refused(&s, 0, build_k7.clone()), "tile_still_owed");
    assert!(!listed(&s, &build_k7));
}

// --- a festival in a turn without a possible tile -----------------------------------------

/// A city of two spaces, G7 (palace of 2) and H7 (Red's developer), and no other free space:
/// no tile can be placed anywhere.
pub(super) fn festival_without_any_placement(rules_version: u32) -> JavaState {
    festival_without_any_placement_with(&JavaOptions::default(), rules_version)
}

/// The same with options.
pub(super) fn festival_without_any_placement_with(
    options: &JavaOptions,
    rules_version: u32,
) -> JavaState {
    let mut s = game_with(options, rules_version, 2);
    only_free(&mut s, &["G7", "H7"]);
    village(&mut s, &["G7", "H7"], 1);
    s.palaces.push(Palace {
        space: idx("G7"),
        value: 2,
        festival_held: false,
        changed_in_turn: 0,
    });
    s.spaces[idx("G7")].palace = Some(0);
    stand(&mut s, 0, "H7");
    s.face_up = Some(card("pc90", &[Drum]));
    give_hand(&mut s, 0, vec![card("pc71", &[Drum])]);
    s
}

/// "Am Ende seines Zuges kann jeder Spieler ... ein Palastfest ausrufen": in a turn in
/// which no tile can be placed at all, the festival may still end it. The turn then ends
/// without its tile: the end of the game begins first, then the festival runs, then Red's
/// Great Final Count follows as after every last turn.
#[test]
fn v2_a_turn_without_a_possible_tile_may_end_with_a_festival_am_ende_seines_zuges() {
    let mut s = festival_without_any_placement(V2);
    assert!(!tile_possible_now(&s));
    assert_listing_is_exact(&s);
    assert!(listed(&s, &festival("G7", &["pc71"])));
    assert!(listed(&s, &JavaAction::EndTurn));
    let events = act(&mut s, 0, festival("G7", &["pc71"]));
    let kinds: Vec<&str> = events.iter().map(event_kind).collect();
    assert_eq!(
        kinds,
        [
            "end_triggered",
            "festival_started",
            "festival_ended",
            "final_count",
            "turn_started"
        ]
    );
    assert_eq!(
        events[0],
        JavaEvent::EndTriggered {
            seat: 0,
            reason: EndReason::NoTilePlaceable
        }
    );
    assert_eq!(s.end_started_by, Some(0));
    assert!(s.players[0].counted);
    assert_eq!(score(&s, 0), 1 + 2);
    assert_eq!(s.current, 1);
}

/// While a tile can still be placed, a festival must wait for it, under version 2 too.
#[test]
fn v2_a_festival_still_waits_for_a_tile_that_can_be_placed() {
    let mut s = festival_without_any_placement(V2);
    s.spaces[idx("F7")].irrigation = false;
    assert!(tile_possible_now(&s));
    assert_eq!(refused(&s, 0, festival("G7", &["pc71"])), "must_place_tile");
    assert!(!listed(&s, &festival("G7", &["pc71"])));
}

#[test]
fn v1_a_turn_without_a_possible_tile_may_only_end_plainly() {
    let s = festival_without_any_placement(V1);
    assert!(!tile_possible_now(&s));
    assert_listing_is_exact(&s);
    assert_eq!(refused(&s, 0, festival("G7", &["pc71"])), "must_place_tile");
    assert!(!listed(&s, &festival("G7", &["pc71"])));
    assert!(listed(&s, &JavaAction::EndTurn));
}

pub(super) fn tile_possible_now(state: &JavaState) -> bool {
    crate::java::rules::tile_possible(state, state.current)
}

pub(super) fn event_kind(event: &JavaEvent) -> &'static str {
    match event {
        JavaEvent::EndTriggered { .. } => "end_triggered",
        JavaEvent::FestivalStarted { .. } => "festival_started",
        JavaEvent::FestivalEnded { .. } => "festival_ended",
        JavaEvent::FinalCount { .. } => "final_count",
        JavaEvent::TurnStarted { .. } => "turn_started",
        JavaEvent::CardBought { .. } => "card_bought",
        JavaEvent::DeckReshuffled { .. } => "deck_reshuffled",
        JavaEvent::FaceUpRevealed { .. } => "face_up_revealed",
        _ => "other",
    }
}

// --- the reshuffle -----------------------------------------------------------------------

/// A game whose deck holds one card; the other undrawn cards lie on the discard pile.
fn last_card_in_deck(rules_version: u32) -> JavaState {
    let mut s = game_under(rules_version, 2);
    let rest = s.deck.split_off(1);
    s.discard.extend(rest);
    s
}

/// "Sobald der Aufnahmestapel aufgebraucht ist, wird der Ablagestapel gemischt": the new
/// deck is made as soon as the last card is drawn, not when the next card is wanted.
#[test]
fn v2_the_discard_pile_is_shuffled_once_the_deck_runs_out_sobald_aufgebraucht() {
    let mut s = last_card_in_deck(V2);
    let discarded = s.discard.len();
    let events = act(&mut s, 0, buy(CardSource::Deck));
    let kinds: Vec<&str> = events.iter().map(event_kind).collect();
    assert_eq!(kinds, ["card_bought", "deck_reshuffled"]);
    assert_eq!(s.deck.len(), discarded);
    assert!(s.discard.is_empty());
    // The same when the face-up card is replaced by the deck's last card.
    let mut s = last_card_in_deck(V2);
    let events = act(&mut s, 0, buy(CardSource::FaceUp));
    let kinds: Vec<&str> = events.iter().map(event_kind).collect();
    assert_eq!(
        kinds,
        ["card_bought", "face_up_revealed", "deck_reshuffled"]
    );
    assert_eq!(s.deck.len(), discarded);
}

/// With nothing discarded when the deck runs out there is nothing to shuffle: the pile is
/// shuffled the next time a card must be drawn.
#[test]
fn v2_an_empty_discard_pile_is_shuffled_when_a_card_is_next_needed() {
    let mut s = last_card_in_deck(V2);
    let discarded = std::mem::take(&mut s.discard);
    let events = act(&mut s, 0, buy(CardSource::Deck));
    assert_eq!(events.len(), 1);
    assert!(s.deck.is_empty());
    assert_eq!(refused(&s, 0, buy(CardSource::Deck)), "deck_empty");
    s.discard = discarded;
    let events = act(&mut s, 0, buy(CardSource::Deck));
    let kinds: Vec<&str> = events.iter().map(event_kind).collect();
    assert_eq!(kinds, ["deck_reshuffled", "card_bought"]);
}

#[test]
fn v1_the_discard_pile_is_shuffled_only_when_a_card_is_needed() {
    let mut s = last_card_in_deck(V1);
    let discarded = s.discard.len();
    let events = act(&mut s, 0, buy(CardSource::Deck));
    let kinds: Vec<&str> = events.iter().map(event_kind).collect();
    assert_eq!(kinds, ["card_bought"]);
    assert!(s.deck.is_empty());
    assert_eq!(s.discard.len(), discarded);
    let events = act(&mut s, 0, buy(CardSource::Deck));
    let kinds: Vec<&str> = events.iter().map(event_kind).collect();
    assert_eq!(kinds, ["deck_reshuffled", "card_bought"]);
}

#[test]
fn version_4_is_the_newest_and_new_games_start_on_it() {
    assert_eq!(Java::newest_rules_version(), 4);
    assert!(Java::plays_rules_version(V1));
    assert!(Java::plays_rules_version(V2));
    assert!(Java::plays_rules_version(3));
    assert_eq!(game(2).rules_version, 4);
}
