//! Hidden information: groupings before the reveal, the deck order, the card put back on
//! top at the fish market and the cards drawn there.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::playouts::{playout_under, playout_with, Module};
use super::{act, start};
use crate::engine::{Engine, Viewer};
use crate::eternal_palace::action::Action;
use crate::eternal_palace::state::Phase;
use crate::eternal_palace::{EternalPalace, Event, State};
use crate::kit::playout::assert_no_leaks;

/// No viewer gets a needle it may not see, from the view, its legal actions or the step's
/// events (the kit's leak check); counts how many needles of each kind were seen.
fn check_step(state: &State, events: &[Event], seen: &mut [usize; 4]) {
    assert_no_leaks::<EternalPalace>(state, events, state.seats);
    for secret in EternalPalace::secrets(state) {
        let kind = if secret.needle.starts_with("\"deck:") {
            0
        } else if secret.needle.starts_with("\"known") {
            1
        } else if secret.needle.starts_with("\"held") {
            2
        } else {
            3
        };
        seen[kind] += 1;
    }
}

/// Under both rules versions; version 2 adds the `artist_group_chosen` event.
#[test]
fn no_view_or_redacted_event_leaks_a_secret() {
    for (rules_version, event_kinds) in [(1, 27), (2, 28)] {
        let mut seen = [0usize; 4];
        let mut kinds = std::collections::BTreeSet::new();
        for seats in 2..=5u8 {
            for seed in 0..25u64 {
                playout_under(
                    rules_version,
                    seats,
                    seed % 2 == 0,
                    5000 + seed,
                    1000,
                    &mut |state, events| {
                        check_step(state, events, &mut seen);
                        for e in events {
                            let json = serde_json::to_value(e).expect("event json");
                            kinds.insert(json["type"].as_str().unwrap_or("").to_string());
                        }
                    },
                );
            }
        }
        // every kind of secret actually occurred, so the checks above could fail
        assert!(
            seen.iter().all(|n| *n > 0),
            "kinds of secrets seen: {seen:?}"
        );
        // and the games went through every kind of event
        assert_eq!(
            kinds.len(),
            event_kinds,
            "rules version {rules_version}: event kinds seen: {kinds:?}"
        );
    }
}

/// Short rules, "Rundenablauf": dice are grouped behind a screen and all screens are
/// removed together.
#[test]
fn grouping_stays_hidden_until_everybody_submitted() {
    let (mut state, _, mut rng) = start(3, false, 11);
    assert_eq!(state.phase, Phase::Grouping);
    assert_eq!(EternalPalace::to_act(&state), vec![0, 1, 2]);
    let dice = state.players[1].rolled.clone();
    let groups = vec![dice.clone()];
    let events = act(&mut state, 1, Action::GroupDice { groups }, &mut rng);
    let sealed = match &events[..] {
        [Event::DiceGrouped {
            seat: 1,
            sealed: Some(s),
        }] => s.clone(),
        other => panic!("unexpected events {other:?}"),
    };
    assert_eq!(EternalPalace::to_act(&state), vec![0, 2]);
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let view = EternalPalace::view(&state, viewer);
        assert!(view.players[1].grouped);
        assert!(view.players[1].groups.is_none());
        let json = serde_json::to_string(&view).expect("json");
        assert!(!json.contains(&sealed));
        match EternalPalace::redact(&events[0], viewer) {
            Event::DiceGrouped { sealed: None, .. } => {}
            other => panic!("not redacted: {other:?}"),
        }
    }
    let own = EternalPalace::view(&state, Viewer::Seat(1));
    let mut own_dice: Vec<u8> = own.players[1].groups.as_ref().expect("own groups")[0]
        .pips
        .clone();
    own_dice.sort_unstable();
    let mut rolled = dice;
    rolled.sort_unstable();
    assert_eq!(own_dice, rolled);
    assert!(EternalPalace::legal_actions(&state, 1).is_empty());
    // the last submission reveals everything at once
    for seat in [0u8, 2] {
        let groups: Vec<Vec<u8>> = state.players[seat as usize]
            .rolled
            .iter()
            .map(|p| vec![*p])
            .collect();
        let events = act(&mut state, seat, Action::GroupDice { groups }, &mut rng);
        if seat == 2 {
            assert!(events
                .iter()
                .any(|e| matches!(e, Event::GroupsRevealed { .. })));
        }
    }
    assert_eq!(state.phase, Phase::Placement);
    let view = EternalPalace::view(&state, Viewer::Spectator);
    assert!(view.players.iter().all(|p| p.groups.is_some()));
    assert!(EternalPalace::secrets(&state)
        .iter()
        .all(|s| !s.needle.starts_with("\"r")));
}

#[test]
fn deck_order_is_hidden_from_everybody_but_the_export() {
    let options = Default::default();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let events = EternalPalace::setup(
        &options,
        4,
        EternalPalace::newest_rules_version(),
        None,
        &mut rng,
    )
    .expect("setup");
    let Event::GameSetUp {
        deck: Some(deck), ..
    } = &events[0]
    else {
        panic!("setup starts with the deck");
    };
    assert!(!deck.is_empty());
    for viewer in [Viewer::Seat(0), Viewer::Spectator] {
        match EternalPalace::redact(&events[0], viewer) {
            Event::GameSetUp { deck: None, .. } => {}
            other => panic!("deck not redacted: {other:?}"),
        }
    }
    match EternalPalace::redact(&events[0], Viewer::Omniscient) {
        Event::GameSetUp { deck: Some(_), .. } => {}
        other => panic!("export lost the deck: {other:?}"),
    }
}

/// Rules version 3: no view, legal action or redacted event of games with the modules and
/// tiles leaks a secret, the demand deck's order above all; and those games reach every new
/// kind of event and answer.
#[test]
fn module_games_leak_nothing_and_reach_every_new_event() {
    let mut kinds = std::collections::BTreeSet::new();
    let mut answers = std::collections::BTreeSet::new();
    let mut demand_needles = 0usize;
    for module in Module::ALL {
        for seats in 2..=5u8 {
            for seed in 0..6u64 {
                playout_with(
                    EternalPalace::newest_rules_version(),
                    module.options(seed + 3),
                    seats,
                    7000 + seed,
                    1000,
                    &mut |state, events| {
                        assert_no_leaks::<EternalPalace>(state, events, seats);
                        demand_needles += EternalPalace::secrets(state)
                            .iter()
                            .filter(|s| s.needle.starts_with("\"demand:"))
                            .count();
                        for e in events {
                            let json = serde_json::to_value(e).expect("event json");
                            kinds.insert(json["type"].as_str().unwrap_or("").to_string());
                            if let Some(kind) = json["answer"]["kind"].as_str() {
                                answers.insert(kind.to_string());
                            }
                        }
                    },
                );
            }
        }
    }
    assert!(demand_needles > 0, "the demand deck was looked for");
    for kind in [
        "demand_deck_shuffled",
        "demand_revealed",
        "demand_fulfilled",
        "demand_settled",
        "labyrinth_moved",
        "compositions_dealt",
        "composition_claimed",
        "academy_reserve_set",
        "extra_advisors_drawn",
        "choice_answered",
    ] {
        assert!(kinds.contains(kind), "{kind} never occurred: {kinds:?}");
    }
    assert_eq!(
        answers.len(),
        6,
        "every kind of answer occurred: {answers:?}"
    );
}

/// River market: "Nachfrage-Karten mischen, Stapel verdeckt auf Ort, oberste Karte
/// aufdecken." The shuffled order reaches only the omniscient export; the open card is
/// public.
#[test]
fn demand_deck_order_is_hidden_until_revealed() {
    let options = crate::eternal_palace::EternalPalaceOptions {
        river_market: true,
        ..Default::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let events = EternalPalace::setup(&options, 4, 3, None, &mut rng).expect("setup");
    let shuffled = events
        .iter()
        .find(|e| matches!(e, Event::DemandDeckShuffled { .. }))
        .expect("the deck is shuffled at set-up");
    let Event::DemandDeckShuffled { deck: Some(deck) } = shuffled else {
        panic!("the set-up event holds the order");
    };
    assert_eq!(deck.len(), 12);
    for viewer in [Viewer::Seat(0), Viewer::Seat(3), Viewer::Spectator] {
        match EternalPalace::redact(shuffled, viewer) {
            Event::DemandDeckShuffled { deck: None } => {}
            other => panic!("deck order not redacted: {other:?}"),
        }
    }
    match EternalPalace::redact(shuffled, Viewer::Omniscient) {
        Event::DemandDeckShuffled { deck: Some(d) } => assert_eq!(&d, deck),
        other => panic!("export lost the order: {other:?}"),
    }
    let revealed = events
        .iter()
        .find_map(|e| match e {
            Event::DemandRevealed { card } => Some(card.clone()),
            _ => None,
        })
        .expect("top card revealed");
    assert_eq!(deck[0], format!("demand:{revealed}"));
    let mut state = EternalPalace::initial_state(&options, 4, 3);
    for e in &events {
        EternalPalace::evolve(&mut state, e);
    }
    let view = serde_json::to_string(&EternalPalace::view(&state, Viewer::Seat(1))).unwrap();
    assert!(
        view.contains(&format!("\"id\":\"{revealed}\"")),
        "open card shown"
    );
    for token in &state.demand_deck {
        assert!(!view.contains(token.as_str()));
    }
    assert_eq!(state.demand_deck.len(), 11);
    assert_no_leaks::<EternalPalace>(&state, &events, 4);
}
