//! Rules as given/when/then specifications: positions are reached through events only.

use super::super::{Java, JavaAction, JavaEvent, JavaOptions, JavaRule, TileKind};
use crate::engine::{Engine, SharedRule};
use crate::kit::spec::Spec;

/// Three players; the palace cards shuffled by seed 5; Red to play turn 1.
fn opening() -> Spec<Java> {
    Spec::set_up(JavaOptions::default(), 3, 5)
}

fn first_tile(spec: &Spec<Java>) -> JavaAction {
    Java::legal_actions(spec.state(), 0)
        .into_iter()
        .find(|action| {
            matches!(
                action,
                JavaAction::PlaceTile {
                    tile: TileKind::ThreeSpace,
                    cost: Some(1),
                    ..
                }
            )
        })
        .expect("a three-space tile can be laid at the start")
}

#[test]
fn only_the_seat_whose_turn_it_is_may_act() {
    opening()
        .when(1, JavaAction::UseActionChip)
        .then_rejected(SharedRule::NotYourTurn);
    opening()
        .when(7, JavaAction::EndTurn)
        .then_rejected(SharedRule::NoSuchSeat);
}

#[test]
fn the_turn_cannot_end_before_its_tile_is_laid() {
    opening()
        .when(0, JavaAction::EndTurn)
        .then_rejected(JavaRule::MustPlaceTile);
}

#[test]
fn festival_moves_need_a_festival() {
    opening()
        .when(0, JavaAction::Pass)
        .then_rejected(SharedRule::WrongPhase);
}

#[test]
fn space_names_are_column_letter_then_row_number() {
    for name in ["g6", "6G", "Z1", "A99"] {
        opening()
            .when(0, JavaAction::PlaceIrrigation { space: name.into() })
            .then_rejected(SharedRule::UnknownSpace);
    }
}

#[test]
fn a_tile_is_laid_for_its_cost_and_the_turn_goes_on() {
    let spec = opening();
    let tile = first_tile(&spec);
    let JavaAction::PlaceTile {
        space, rotation, ..
    } = tile.clone()
    else {
        unreachable!("first_tile finds a tile")
    };
    let (after, events) = spec.when(0, tile).accepted();
    assert!(
        matches!(
            &events[0],
            JavaEvent::TilePlaced { seat: 0, tile: TileKind::ThreeSpace, space: laid, rotation: turned, cost: 1, .. }
                if *laid == space && *turned == rotation
        ),
        "{events:?}"
    );
    assert_eq!(after.state().turn.ap, 5);
    after.when(0, JavaAction::EndTurn).accepted();
}

#[test]
fn a_rotation_beyond_five_is_refused() {
    let spec = opening();
    let JavaAction::PlaceTile { space, .. } = first_tile(&spec) else {
        unreachable!("first_tile finds a tile")
    };
    spec.when(
        0,
        JavaAction::PlaceTile {
            tile: TileKind::ThreeSpace,
            space,
            rotation: 6,
            cost: None,
        },
    )
    .then_rejected(SharedRule::InvalidRotation);
}
