//! Rules version 2 (2026-11-24) against version 1: each fix under version 2, quoting the
//! short rules, and the same position under version 1 keeping its old behaviour (games
//! started under version 1 are played to their end under it).

use super::super::data::{data, Goods, Resource};
use super::super::event::{Choice, HireSource, Reason};
use super::super::state::Phase;
use super::super::{Action, EternalPalace, EternalPalaceOptions, EternalPalaceRule, Event};
use crate::engine::{Engine, Seat, SharedRule, Viewer};
use crate::kit::spec::Spec;

fn two_players(rules_version: u32) -> Spec<EternalPalace> {
    Spec::set_up_under(rules_version, EternalPalaceOptions::default(), 2, 11)
}

/// Places every group on the scrolls (answering what comes up with the first legal
/// answer) until the round ends or the game is over.
fn play_out_the_round(mut spec: Spec<EternalPalace>) -> (Spec<EternalPalace>, Vec<Event>) {
    let round = spec.state().round;
    let mut last = Vec::new();
    while spec.state().round == round && spec.state().phase != Phase::Finished {
        let seat = EternalPalace::to_act(spec.state())[0];
        let legal = EternalPalace::legal_actions(spec.state(), seat);
        let action = legal
            .iter()
            .find(|a| matches!(a, Action::PlaceDice { location, .. } if location == "scrolls"))
            .unwrap_or(&legal[0])
            .clone();
        let (next, events) = spec.when(seat, action).accepted();
        spec = next;
        last = events;
    }
    (spec, last)
}

/// Round `round` is rolled (all ones) and every seat groups its dice one by one.
fn round_of_single_dice(spec: Spec<EternalPalace>, round: u32) -> Spec<EternalPalace> {
    spec.given([Event::DiceRolled {
        round,
        dice: vec![vec![1, 1, 1], vec![1, 1, 1]],
    }])
    .given_actions((0..2).map(|seat| {
        (
            seat,
            Action::GroupDice {
                groups: vec![vec![1], vec![1], vec![1]],
            },
        )
    }))
}

// ------------------------------------------------------------------ end condition

/// Short rules, "Rundenablauf": "Mindestens ein Spieler hat 8 Bildebenen ... -> Spielende –
/// ansonsten -> nächste Runde vorbereiten". Version 2 has no round limit: a 15th round
/// without 8 layers leads to a 16th.
#[test]
fn v2_round_fifteen_without_eight_layers_prepares_the_next_round() {
    let spec = round_of_single_dice(two_players(2), 15);
    let (spec, events) = play_out_the_round(spec);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::GameFinished { .. })),
        "{events:?}"
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::DiceRolled { round: 16, .. })));
    assert_eq!(spec.state().phase, Phase::Grouping);
    assert_eq!(spec.state().round, 16);
    let view = EternalPalace::view(spec.state(), Viewer::Spectator);
    assert_eq!(view.round_limit, None, "no round limit shown");
    // and much later still
    let (spec, _) = play_out_the_round(round_of_single_dice(spec, 40));
    assert_eq!(spec.state().round, 41);
}

#[test]
fn v1_keeps_its_round_limit_of_fifteen() {
    let spec = round_of_single_dice(two_players(1), 15);
    let view = EternalPalace::view(spec.state(), Viewer::Spectator);
    assert_eq!(view.round_limit, Some(15));
    let (spec, events) = play_out_the_round(spec);
    assert!(matches!(events.last(), Some(Event::GameFinished { .. })));
    assert_eq!(spec.state().phase, Phase::Finished);
    assert_eq!(spec.state().round, 15);
    assert!(spec.state().players.iter().all(|p| p.layers.len() < 8));
}

#[test]
fn v2_eight_layers_still_end_the_game() {
    let spec = round_of_single_dice(two_players(2), 3).given(
        ["1", "2", "3", "4", "5", "6", "7", "8"]
            .map(|layer| Event::LayerTaken {
                seat: 1,
                layer: layer.to_string(),
            })
            .to_vec(),
    );
    let (spec, events) = play_out_the_round(spec);
    assert!(matches!(events.last(), Some(Event::GameFinished { .. })));
    assert_eq!(spec.state().round, 3);
    assert_eq!(spec.state().completion, Some(1));
}

#[test]
fn the_round_limit_is_data_of_rules_version_1_only() {
    let d = data();
    assert_eq!(d.round_limit(1), Some(15));
    assert_eq!(d.round_limit(2), None);
    assert_eq!(d.round_limit.until_rules_version, 1);
}

// ------------------------------------------------------------------ group artists

/// Seat 0 holds `cards` (group artists) and five dice; seat 1 three ones. Round 1 is
/// rolled again with `dice` for seat 0 and seat 0 has grouped them as `groups`; seat 1 is
/// still to group (its grouping reveals everything).
fn artist_holder(rules_version: u32, cards: &[&str], groups: Vec<Vec<u8>>) -> Spec<EternalPalace> {
    let mut given: Vec<Event> = cards
        .iter()
        .map(|card| Event::AdvisorHired {
            seat: 0,
            card: card.to_string(),
            from: HireSource::Bridge,
        })
        .collect();
    given.push(Event::PalaceDieReleased { seat: 0 });
    given.push(Event::PalaceDieReleased { seat: 0 });
    given.push(Event::DiceRolled {
        round: 1,
        dice: vec![groups.iter().flatten().copied().collect(), vec![1, 1, 1]],
    });
    two_players(rules_version)
        .given(given)
        .given_actions([(0, Action::GroupDice { groups })])
}

const SINGLES: fn() -> Action = || Action::GroupDice {
    groups: vec![vec![1], vec![1], vec![1]],
};

fn fish(n: i32) -> Goods {
    Goods {
        fish: n,
        ..Goods::default()
    }
}

fn palace(n: i32) -> Goods {
    Goods {
        palace: n,
        ..Goods::default()
    }
}

fn first_placer(spec: &Spec<EternalPalace>) -> Option<Seat> {
    spec.state().turn_order.first().copied()
}

/// Short rules, "Künstler": "Erhalte zu Beginn der Runde für eine Deiner Würfelgruppen aus
/// 2 / 3 / 4 Würfeln 1 Fisch / 1 Ressource / 1 Palastschritt." In version 2 the owner
/// chooses the group: with groups of 3 and 2 dice the 2-dice group's fish may be taken.
#[test]
fn v2_eine_deiner_wuerfelgruppen_the_owner_chooses_the_two_dice_groups_fish() {
    // canonical order: group 0 = [6, 5, 4], group 1 = [3, 2]
    let spec = artist_holder(2, &["a31"], vec![vec![2, 3], vec![4, 5, 6]]);
    let (spec, events) = spec.when(1, SINGLES()).accepted();
    assert!(matches!(
        &events[events.len() - 2..],
        [
            Event::GroupsRevealed { .. },
            Event::ChoiceOffered {
                seat: 0,
                choice: Choice::ArtistGroup { card, groups },
            },
        ] if card == "a31" && groups == &[0, 1]
    ));
    // seat 0 must choose before anybody places
    assert_eq!(EternalPalace::to_act(spec.state()), [0]);
    assert_eq!(spec.state().placer, None);
    assert_eq!(
        EternalPalace::legal_actions(spec.state(), 0),
        [
            Action::ChooseArtistGroup { group: 0 },
            Action::ChooseArtistGroup { group: 1 },
        ]
    );
    assert!(EternalPalace::legal_actions(spec.state(), 1).is_empty());
    let view = EternalPalace::view(spec.state(), Viewer::Spectator);
    let pending = view.pending.expect("a pending choice");
    assert_eq!(pending.seat, 0);
    assert!(matches!(pending.choice, Some(Choice::ArtistGroup { .. })));
    let offered = events.last().expect("an event");
    assert_eq!(
        EternalPalace::describe(spec.state(), offered),
        "Red chooses the group that Silk Painter (a31) rewards"
    );
    let first = first_placer(&spec);
    let (spec, events) = spec
        .when(0, Action::ChooseArtistGroup { group: 1 })
        .accepted();
    assert_eq!(
        events,
        [
            Event::ArtistGroupChosen {
                seat: 0,
                card: "a31".into(),
                group: 1,
            },
            Event::AdvisorUsed {
                seat: 0,
                card: "a31".into(),
                target: None,
            },
            Event::GoodsChanged {
                seat: 0,
                delta: fish(1),
                reason: Reason::Advisor,
            },
            Event::TurnPassed { next: first },
        ]
    );
    assert_eq!(spec.state().placer, first);
    assert!(spec.state().players[0].advisors[0].used);
}

#[test]
fn v2_the_three_dice_group_gives_the_cards_resource_when_chosen() {
    let spec = artist_holder(2, &["a32"], vec![vec![2, 3], vec![4, 5, 6]]);
    let (spec, _) = spec.when(1, SINGLES()).accepted();
    let (_, events) = spec
        .when(0, Action::ChooseArtistGroup { group: 0 })
        .accepted();
    assert!(events.contains(&Event::GoodsChanged {
        seat: 0,
        delta: Goods::resource(Resource::Stone, 1),
        reason: Reason::Advisor,
    }));
}

/// The same position under version 1: the largest group is rewarded at once (3 dice: the
/// card's resource), and there is nothing to choose.
#[test]
fn v1_still_rewards_the_largest_group_automatically() {
    let spec = artist_holder(1, &["a31"], vec![vec![2, 3], vec![4, 5, 6]]);
    let (spec, events) = spec.when(1, SINGLES()).accepted();
    let first = first_placer(&spec);
    assert!(matches!(
        &events[events.len() - 4..],
        [
            Event::GroupsRevealed { .. },
            Event::AdvisorUsed { seat: 0, .. },
            Event::GoodsChanged {
                seat: 0,
                delta,
                reason: Reason::Advisor,
            },
            Event::TurnPassed { next },
        ] if *delta == Goods::resource(Resource::Wood, 1) && *next == first
    ));
    assert!(spec.state().pending.is_empty());
    spec.when(0, Action::ChooseArtistGroup { group: 1 })
        .then_rejected(EternalPalaceRule::NoChoicePending);
}

/// One possible reward (the only group of 2+ dice has 4 dice): paid at once, as before.
#[test]
fn v2_a_single_possible_reward_is_paid_without_asking() {
    let spec = artist_holder(2, &["a31"], vec![vec![2, 3, 4, 5], vec![6]]);
    let (spec, events) = spec.when(1, SINGLES()).accepted();
    assert!(events.contains(&Event::GoodsChanged {
        seat: 0,
        delta: palace(1),
        reason: Reason::Advisor,
    }));
    assert!(spec.state().pending.is_empty());
    assert_eq!(spec.state().placer, first_placer(&spec));
    // two groups of two dice give the same fish: no choice either
    let spec = artist_holder(2, &["a31"], vec![vec![2, 3], vec![4, 5], vec![6]]);
    let (spec, events) = spec.when(1, SINGLES()).accepted();
    assert!(events.contains(&Event::GoodsChanged {
        seat: 0,
        delta: fish(1),
        reason: Reason::Advisor,
    }));
    assert!(spec.state().pending.is_empty());
    // only single dice: nothing, and the card stays unused
    let spec = artist_holder(
        2,
        &["a31"],
        vec![vec![2], vec![3], vec![4], vec![5], vec![6]],
    );
    let (spec, events) = spec.when(1, SINGLES()).accepted();
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::AdvisorUsed { .. })));
    assert!(!spec.state().players[0].advisors[0].used);
}

#[test]
fn v2_two_group_artists_each_choose_and_placing_starts_after_the_last() {
    let spec = artist_holder(2, &["a31", "a32"], vec![vec![2, 3], vec![4, 5, 6]]);
    let (spec, _) = spec.when(1, SINGLES()).accepted();
    assert_eq!(spec.state().pending.len(), 2);
    let (spec, events) = spec
        .when(0, Action::ChooseArtistGroup { group: 1 })
        .accepted();
    assert!(!events.iter().any(|e| matches!(e, Event::TurnPassed { .. })));
    assert_eq!(spec.state().placer, None);
    let view = EternalPalace::view(spec.state(), Viewer::Seat(1));
    assert!(matches!(
        view.pending.and_then(|p| p.choice),
        Some(Choice::ArtistGroup { card, .. }) if card == "a32"
    ));
    // the same group may serve the second artist too
    let (spec, events) = spec
        .when(0, Action::ChooseArtistGroup { group: 1 })
        .accepted();
    assert!(events.contains(&Event::GoodsChanged {
        seat: 0,
        delta: fish(1),
        reason: Reason::Advisor,
    }));
    let first = first_placer(&spec);
    assert_eq!(events.last(), Some(&Event::TurnPassed { next: first }));
    assert!(spec.state().players[0].advisors.iter().all(|a| a.used));
}

/// Seat 0 (Silk Painter) must choose among [6, 5, 4], [3, 2] and the single die [1].
fn choosing() -> Spec<EternalPalace> {
    artist_holder(2, &["a31"], vec![vec![1], vec![2, 3], vec![4, 5, 6]])
        .when(1, SINGLES())
        .accepted()
        .0
}

#[test]
fn v2_artist_group_choice_refusals() {
    // the single die (group 2) is not offered
    assert_eq!(
        EternalPalace::legal_actions(choosing().state(), 0),
        [
            Action::ChooseArtistGroup { group: 0 },
            Action::ChooseArtistGroup { group: 1 },
        ]
    );
    choosing()
        .when(0, Action::ChooseArtistGroup { group: 2 })
        .then_rejected(EternalPalaceRule::NotAnArtistGroup);
    choosing()
        .when(0, Action::ChooseArtistGroup { group: 3 })
        .then_rejected(EternalPalaceRule::NoSuchGroup);
    choosing()
        .when(1, Action::ChooseArtistGroup { group: 0 })
        .then_rejected(SharedRule::NotYourTurn);
    choosing()
        .when(0, Action::HireAdvisor { card: None })
        .then_rejected(EternalPalaceRule::WrongChoice);
    choosing()
        .when(
            0,
            Action::PlaceDice {
                group: 0,
                location: "scrolls".into(),
                value: None,
            },
        )
        .then_rejected(SharedRule::NotYourTurn);
    // before the reveal there is nothing to choose
    artist_holder(2, &["a31"], vec![vec![1], vec![2, 3], vec![4, 5, 6]])
        .when(0, Action::ChooseArtistGroup { group: 0 })
        .then_rejected(SharedRule::WrongPhase);
}
