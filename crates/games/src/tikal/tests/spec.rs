//! Rules as given/when/then specifications: positions are reached through events only.

use super::super::data::{data, Terrain};
use super::super::{Tikal, TikalAction, TikalEvent, TikalOptions, TikalRule};
use crate::engine::{Engine, SharedRule};
use crate::kit::spec::Spec;

/// Two players, the stacks shuffled by seed 7; Red holds the first hex.
fn opening() -> Spec<Tikal> {
    Spec::set_up(TikalOptions::default(), 2, 7)
}

fn first_placement(spec: &Spec<Tikal>) -> TikalAction {
    Tikal::legal_actions(spec.state(), 0)
        .into_iter()
        .find(|action| matches!(action, TikalAction::PlaceTile { .. }))
        .expect("a placement")
}

fn place(space: &str, rotation: u8) -> TikalAction {
    TikalAction::PlaceTile {
        space: space.into(),
        rotation,
    }
}

#[test]
fn only_the_seat_holding_the_hex_may_lay_it() {
    opening()
        .when(1, place("A3", 0))
        .then_rejected(SharedRule::NotYourTurn);
}

#[test]
fn a_hex_is_never_laid_on_a_taken_space() {
    opening()
        .when(0, place("A5", 0))
        .then_rejected(SharedRule::SpaceOccupied);
}

#[test]
fn a_space_has_exactly_one_name() {
    for name in ["a3", "A 3", "I1", "A6"] {
        opening()
            .when(0, place(name, 0))
            .then_rejected(SharedRule::UnknownSpace);
    }
}

#[test]
fn a_hex_far_from_the_explored_area_is_not_connected() {
    opening()
        .when(0, place("H1", 0))
        .then_rejected(TikalRule::NotConnected);
}

#[test]
fn nothing_but_the_hex_can_be_done_before_it_is_laid() {
    opening()
        .when(0, TikalAction::EndTurn)
        .then_rejected(SharedRule::WrongPhase);
    opening()
        .when(0, TikalAction::Bid { amount: 1 })
        .then_rejected(SharedRule::WrongPhase);
}

#[test]
fn laying_the_hex_opens_the_action_turn() {
    let spec = opening();
    let tile = spec.state().hand.clone().expect("a hex in hand");
    let action = first_placement(&spec);
    let TikalAction::PlaceTile { space, rotation } = action.clone() else {
        unreachable!("first_placement finds a placement")
    };
    let def = data().tile(&tile).expect("known tile");
    let treasure_tokens = if def.terrain == Terrain::Treasure {
        def.value
    } else {
        0
    };
    spec.when(0, action).then_events([
        TikalEvent::TilePlaced {
            seat: 0,
            tile,
            space,
            rotation,
            treasure_tokens,
        },
        TikalEvent::TurnStarted {
            seat: 0,
            scoring: false,
        },
    ]);
}

#[test]
fn ending_the_turn_loses_the_points_left_and_hands_the_next_hex_on() {
    let placed = opening();
    let placement = first_placement(&placed);
    let placed = placed.given_actions([(0, placement)]);
    let next = placed.state().draw_pile[0].clone();
    assert!(
        data().tile(&next).unwrap().terrain != Terrain::Volcano,
        "seed 7 draws no volcano next"
    );
    placed.when(0, TikalAction::EndTurn).then_events([
        TikalEvent::TurnEnded {
            seat: 0,
            action_points_unused: 10,
        },
        TikalEvent::TileDrawn {
            seat: 1,
            tile: next,
        },
    ]);
}

#[test]
fn a_figure_cannot_move_to_where_it_stands() {
    let placed = opening();
    let placement = first_placement(&placed);
    let acting = placed.given_actions([
        (0, placement),
        (
            0,
            TikalAction::Enter {
                space: "A5".into(),
                piece: super::super::PieceKind::Worker,
            },
        ),
    ]);
    acting
        .when(
            0,
            TikalAction::Move {
                from: "A5".into(),
                to: "A5".into(),
                piece: super::super::PieceKind::Worker,
                cost: None,
            },
        )
        .then_rejected(SharedRule::SameSpace);
}
