//! Rules as given/when/then specifications, and the data files as read.

use super::super::data::{data, LocationKind, LOCATIONS};
use super::super::{Action, EternalPalace, EternalPalaceOptions, EternalPalaceRule, Event};
use crate::engine::{Engine, SharedRule};
use crate::kit::spec::Spec;

/// Three players, base game, the dice of round 1 rolled by seed 11.
fn rolled() -> Spec<EternalPalace> {
    Spec::set_up(EternalPalaceOptions::default(), 3, 11)
}

fn own_dice(spec: &Spec<EternalPalace>, seat: u8) -> Vec<u8> {
    spec.state().players[seat as usize].rolled.clone()
}

#[test]
fn after_the_roll_every_seat_groups_at_once() {
    let spec = rolled();
    assert_eq!(EternalPalace::to_act(spec.state()), [0, 1, 2]);
    rolled()
        .when(
            0,
            Action::PlaceDice {
                group: 0,
                location: "4".into(),
                value: None,
            },
        )
        .then_rejected(SharedRule::WrongPhase);
}

#[test]
fn groups_use_exactly_the_dice_rolled() {
    let spec = rolled();
    let mut dice = own_dice(&spec, 1);
    dice.push(7);
    spec.when(1, Action::GroupDice { groups: vec![dice] })
        .then_rejected(EternalPalaceRule::NotYourDice);
}

#[test]
fn a_grouping_is_sealed_and_locked() {
    let spec = rolled();
    let dice = own_dice(&spec, 2);
    let grouping = Action::GroupDice {
        groups: dice.iter().map(|pip| vec![*pip]).collect(),
    };
    let (locked, events) = spec.when(2, grouping.clone()).accepted();
    assert!(
        matches!(
            &events[..],
            [Event::DiceGrouped {
                seat: 2,
                sealed: Some(_)
            }]
        ),
        "{events:?}"
    );
    assert_eq!(EternalPalace::to_act(locked.state()), [0, 1]);
    locked
        .when(2, grouping)
        .then_rejected(EternalPalaceRule::AlreadyGrouped);
}

#[test]
fn privileges_need_the_module() {
    rolled()
        .when(0, Action::ChoosePrivilege { play: true })
        .then_rejected(SharedRule::WrongPhase);
}

#[test]
fn the_data_files_hold_every_component() {
    let d = data();
    assert_eq!(d.locations.len(), LOCATIONS);
    let numbered = d
        .locations
        .iter()
        .filter(|location| location.number().is_some())
        .count();
    assert_eq!(numbered, 12, "locations 1 to 12");
    assert_eq!(d.locations[14].kind, LocationKind::Labyrinth);
    assert_eq!(d.locations[15].kind, LocationKind::RiverMarket);
    assert_eq!(d.locations[12].kind, LocationKind::Bridge);
    assert_eq!(d.locations[13].kind, LocationKind::Scrolls);
    assert_eq!(
        d.advisors.len(),
        38,
        "34 advisors and 4 of the privileges module"
    );
    assert_eq!(d.advisors.iter().filter(|a| a.module.is_some()).count(), 4);
    assert_eq!(d.market_items.len(), 8);
    assert_eq!((d.player_counts.min, d.player_counts.max), (2, 5));
    assert_eq!((d.dice.per_player, d.dice.active_at_start), (5, 3));
    assert_eq!(d.palace.length, 20);
    assert_eq!(d.end.layers, 8);
    let harbour = d.card("a01").expect("a01");
    assert_eq!(harbour.name, "Harbour Master");
    assert_eq!(harbour.cost.wood, 1);
}
