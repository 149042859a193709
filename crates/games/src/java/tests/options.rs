//! The option `play_on_when_no_tile_fits` (rules version 3), the other reading of how a
//! turn without a possible tile ends, shown on both sides: with it the game goes on, without
//! it the end begins as in version 2.

use super::versions::{
    assert_listing_is_exact, event_kind, festival_without_any_placement_with, listed, only_free,
    tile_possible_now,
};
use super::*;
use crate::java::event::EndReason;
use crate::java::state::Phase;

const V3: u32 = 3;

fn playing_on() -> JavaOptions {
    JavaOptions {
        play_on_when_no_tile_fits: true,
    }
}

fn kinds(events: &[JavaEvent]) -> Vec<&'static str> {
    events.iter().map(event_kind).collect()
}

/// "Sind alle 3-teiligen Geländetafeln aufgebraucht ..." is the only end the text names:
/// with the option a turn in which no tile fits ends without one, and nothing else happens.
#[test]
fn with_the_option_a_turn_without_a_possible_tile_ends_and_the_game_goes_on() {
    let mut s = festival_without_any_placement_with(&playing_on(), V3);
    assert!(!tile_possible_now(&s));
    assert_listing_is_exact(&s);
    assert!(listed(&s, &JavaAction::EndTurn));
    let events = act(&mut s, 0, JavaAction::EndTurn);
    assert_eq!(kinds(&events), ["turn_started"]);
    assert_eq!(s.end_started_by, None);
    assert_eq!(s.turns_without_tile, 1);
    assert!(!s.players[0].counted);
    assert_eq!(s.current, 1);
}

/// A whole round without a tile (here two turns for two players) begins the end, so a game
/// whose board is full cannot run forever; the turn that completes the round is the last
/// one of its player, who counts at once, and everyone else plays one more turn.
#[test]
fn with_the_option_a_whole_round_without_a_tile_begins_the_end() {
    let mut s = festival_without_any_placement_with(&playing_on(), V3);
    act(&mut s, 0, JavaAction::EndTurn);
    assert!(!tile_possible_now(&s));
    let events = act(&mut s, 1, JavaAction::EndTurn);
    assert_eq!(
        kinds(&events),
        ["end_triggered", "final_count", "turn_started"]
    );
    assert_eq!(
        events[0],
        JavaEvent::EndTriggered {
            seat: 1,
            reason: EndReason::NoTileForARound
        }
    );
    assert_eq!(s.end_started_by, Some(1));
    // Red's last turn asks for no tile and ends the game with Red's count.
    act(&mut s, 0, JavaAction::EndTurn);
    assert!(matches!(s.phase, Phase::Finished));
    assert!(s.players.iter().all(|p| p.counted));
}

/// A festival may end the turn without a tile as under version 2, but with the option it
/// does not begin the end: no `end_triggered`, no count.
#[test]
fn with_the_option_a_festival_ends_a_turn_without_a_tile_and_the_game_goes_on() {
    let mut s = festival_without_any_placement_with(&playing_on(), V3);
    assert!(listed(&s, &festival("G7", &["pc71"])));
    let events = act(&mut s, 0, festival("G7", &["pc71"]));
    assert_eq!(
        kinds(&events),
        ["festival_started", "festival_ended", "turn_started"]
    );
    assert_eq!(s.end_started_by, None);
    assert_eq!(s.turns_without_tile, 1);
    assert_eq!(score(&s, 0), 1);
}

/// Without the option, version 3 plays as version 2: the first turn without a possible
/// tile begins the end.
#[test]
fn without_the_option_a_turn_without_a_possible_tile_begins_the_end() {
    let mut s = festival_without_any_placement_with(&JavaOptions::default(), V3);
    let events = act(&mut s, 0, JavaAction::EndTurn);
    assert_eq!(
        events[0],
        JavaEvent::EndTriggered {
            seat: 0,
            reason: EndReason::NoTilePlaceable
        }
    );
    assert_eq!(s.turns_without_tile, 0);
}

/// Only G7 is free and Red has no one-space tile: Red cannot place, Blue can.
fn only_blue_can_place() -> JavaState {
    let mut s = game_with(&playing_on(), V3, 2);
    only_free(&mut s, &["G7"]);
    let red = &mut s.players[0];
    red.one_space_rice_tiles = 0;
    red.one_space_village_tiles = 0;
    s
}

/// The turns must be in a row: a tile placed in between starts the count again.
#[test]
fn a_placed_tile_starts_the_count_again() {
    let mut s = only_blue_can_place();
    assert!(!tile_possible_now(&s));
    act(&mut s, 0, JavaAction::EndTurn);
    assert_eq!(s.turns_without_tile, 1);
    assert!(tile_possible_now(&s));
    assert_eq!(refused(&s, 1, JavaAction::EndTurn), "must_place_tile");
    act(&mut s, 1, tile_action(TileKind::OneSpaceRice, "", &["G7"]));
    act(&mut s, 1, JavaAction::EndTurn);
    assert_eq!(s.turns_without_tile, 0);
    // Now nobody can place: Red's turn is the first of a new run, Blue's ends it.
    let events = act(&mut s, 0, JavaAction::EndTurn);
    assert_eq!(kinds(&events), ["turn_started"]);
    let events = act(&mut s, 1, JavaAction::EndTurn);
    assert_eq!(
        events[0],
        JavaEvent::EndTriggered {
            seat: 1,
            reason: EndReason::NoTileForARound
        }
    );
}

/// Options belong to rules version 3: a game asking for one under an older version is
/// refused at creation.
#[test]
fn the_option_needs_rules_version_3() {
    for version in [1, 2] {
        let refusal = Java::setup(&playing_on(), 2, version, None, &mut rng(1)).unwrap_err();
        assert_eq!(refusal.code, "invalid_options");
        assert!(
            refusal.message.contains("rules version 3"),
            "{}",
            refusal.message
        );
    }
    assert!(Java::setup(&playing_on(), 2, V3, None, &mut rng(1)).is_ok());
}

/// Stored games keep their form: the default options are `{}` and a state without the
/// option serialises without its fields, as before the option existed.
#[test]
fn games_without_the_option_keep_their_serialised_form() {
    assert_eq!(
        serde_json::to_string(&JavaOptions::default()).unwrap(),
        "{}"
    );
    let parsed: JavaOptions =
        serde_json::from_str(r#"{"play_on_when_no_tile_fits": true}"#).unwrap();
    assert_eq!(parsed, playing_on());
    assert!(serde_json::from_str::<JavaOptions>(r#"{"play_on": true}"#).is_err());
    let mut s = festival_without_any_placement_with(&JavaOptions::default(), V3);
    act(&mut s, 0, JavaAction::EndTurn);
    let json = serde_json::to_value(&s).unwrap();
    assert!(json.get("play_on_when_no_tile_fits").is_none());
    assert!(json.get("turns_without_tile").is_none());
    let back: JavaState = serde_json::from_value(json).unwrap();
    assert_eq!(back, s);
}
