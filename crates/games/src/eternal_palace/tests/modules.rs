//! Rules version 3: the expansion modules (short rules "Erweiterungs-Module": labyrinth,
//! Fluss-Markt, Kompositionen) and the location tiles ("Locations"), one test per rule
//! sentence (quoted), the decided values of the data files, and one test per new refusal.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{act, refused};
use crate::engine::{Engine, Viewer};
use crate::eternal_palace::action::Action;
use crate::eternal_palace::data::{data, Goods, Resource, Source, LABYRINTH, RIVER_MARKET};
use crate::eternal_palace::event::{Answer, Choice, Event, HireSource, Reason};
use crate::eternal_palace::scoring::final_scores;
use crate::eternal_palace::state::{deck_token, Pending, Phase, State};
use crate::eternal_palace::{EternalPalace, EternalPalaceOptions, LocationTile};

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(4321)
}

fn labyrinth() -> EternalPalaceOptions {
    EternalPalaceOptions {
        labyrinth: true,
        ..Default::default()
    }
}

fn river_market() -> EternalPalaceOptions {
    EternalPalaceOptions {
        river_market: true,
        ..Default::default()
    }
}

fn compositions() -> EternalPalaceOptions {
    EternalPalaceOptions {
        compositions: true,
        ..Default::default()
    }
}

fn tiles(tiles: &[LocationTile]) -> EternalPalaceOptions {
    EternalPalaceOptions {
        location_tiles: tiles.to_vec(),
        ..Default::default()
    }
}

/// A game of the newest rules version with `options` after the opening events.
fn start_with(options: &EternalPalaceOptions, seats: u8, seed: u64) -> (State, Vec<Event>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let version = EternalPalace::newest_rules_version();
    let events = EternalPalace::setup(options, seats, version, None, &mut rng).expect("setup");
    let mut state = EternalPalace::initial_state(options, seats, version);
    for e in &events {
        EternalPalace::evolve(&mut state, e);
    }
    (state, events)
}

/// As the base tests' `placing`: `seat` places next and holds exactly `groups`; other seats
/// hold no groups.
fn placing_with(
    options: &EternalPalaceOptions,
    seats: u8,
    seat: u8,
    groups: Vec<Vec<u8>>,
) -> State {
    let (mut state, _) = start_with(options, seats, 7);
    state.phase = Phase::Placement;
    state.sealed = vec![None; seats as usize];
    for p in &mut state.players {
        p.groups.clear();
        p.placed.clear();
    }
    let p = &mut state.players[seat as usize];
    p.rolled = groups.iter().flatten().copied().collect();
    p.active_dice = p.rolled.len() as u8;
    p.palace_dice = 5u8.saturating_sub(p.active_dice);
    p.placed = vec![false; groups.len()];
    p.groups = groups;
    state.placer = Some(seat);
    state
}

fn place(group: u8, location: &str) -> Action {
    Action::PlaceDice {
        group,
        location: location.to_string(),
        value: None,
    }
}

fn goods_for(events: &[Event], seat: u8, reason: Reason) -> Goods {
    events
        .iter()
        .filter_map(|e| match e {
            Event::GoodsChanged {
                seat: s,
                delta,
                reason: r,
            } if *s == seat && *r == reason => Some(*delta),
            _ => None,
        })
        .fold(Goods::default(), |acc, d| acc.plus(&d))
}

fn pending_choice(state: &State) -> Option<Choice> {
    match state.pending.first() {
        Some(Pending::Offered { choice, .. }) => Some(choice.clone()),
        _ => None,
    }
}

fn index(key: &str) -> usize {
    data().location_index(key).expect("location")
}

fn setup_error(options: &EternalPalaceOptions, rules_version: u32) -> String {
    let e = EternalPalace::setup(options, 4, rules_version, None, &mut rng()).expect_err("refused");
    assert_eq!(e.code, "invalid_options");
    e.message
}

/// A three-player river market game where seat 0 places `groups` next, under the open
/// demand card d11 (two fields; reward 2 palace steps, penalty 1 palace step and 1 fish).
fn placing_at_demand_d11(options: &EternalPalaceOptions, groups: Vec<Vec<u8>>) -> State {
    let mut state = placing_with(options, 3, 0, groups);
    state.demand_card = Some("d11".into());
    state.demand_deck.retain(|t| t != "demand:d11");
    state.demand_discard.clear();
    state
}

fn fulfil(field: u8, resource: Resource) -> Action {
    Action::FulfilDemand { field, resource }
}

// ------------------------------------------------------------------ options

/// "Labyrinth, Fluss-Markt und Kompositionen können nicht miteinander kombiniert werden.
/// Verwendet im Spiel maximal eine dieser Erweiterungen."
#[test]
fn erw_at_most_one_module_per_game() {
    for (a, b) in [(true, true), (true, false), (false, true)] {
        let options = EternalPalaceOptions {
            labyrinth: a,
            river_market: b,
            compositions: true,
            ..Default::default()
        };
        let message = setup_error(&options, 3);
        assert!(message.contains("cannot be combined"), "{message}");
    }
    let both = EternalPalaceOptions {
        labyrinth: true,
        river_market: true,
        ..Default::default()
    };
    assert!(setup_error(&both, 3).contains("labyrinth, river_market"));
    // each alone, with privileges and every tile
    for mut options in [labyrinth(), river_market(), compositions()] {
        options.privileges = true;
        options.location_tiles = LocationTile::ALL.to_vec();
        for seats in 2..=5 {
            assert!(EternalPalace::setup(&options, seats, 3, None, &mut rng()).is_ok());
        }
    }
}

/// "Bietet alternative Versionen für Orte des Plans, die beliebig kombiniert werden können."
#[test]
fn loc_tiles_combine_freely_but_each_once() {
    for mask in 0..32usize {
        let chosen: Vec<LocationTile> = LocationTile::ALL
            .into_iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 == 1)
            .map(|(_, t)| t)
            .collect();
        let (state, _) = start_with(&tiles(&chosen), 3, mask as u64);
        assert_eq!(state.tiles.len(), chosen.len());
    }
    let twice = tiles(&[
        LocationTile::Academy,
        LocationTile::Temple,
        LocationTile::Academy,
    ]);
    assert_eq!(
        setup_error(&twice, 3),
        "location_tiles names \"academy\" (the Academy tile) twice; choose each tile at most once"
    );
}

/// Messages name a tile by the id the options use.
#[test]
fn loc_tile_ids_are_the_option_names() {
    for tile in LocationTile::ALL {
        assert_eq!(serde_json::to_value(tile).unwrap(), tile.id());
    }
}

/// Rules versions 1 and 2 know neither modules nor tiles: games created on them refuse the
/// options, so their logs fold as before.
#[test]
fn modules_and_tiles_need_rules_version_3() {
    for options in [
        labyrinth(),
        river_market(),
        compositions(),
        tiles(&[LocationTile::FishMarket]),
    ] {
        for version in [1, 2] {
            assert!(setup_error(&options, version).contains("rules version 3"));
        }
    }
    let v3 = &EternalPalace::RULES_VERSIONS[2];
    assert_eq!((v3.version, v3.date), (3, "2026-11-24"));
}

#[test]
fn options_json_keeps_the_old_shape_and_reads_the_new_options() {
    // the shape stored for existing games is unchanged
    let plain = serde_json::to_value(EternalPalaceOptions::base(true)).unwrap();
    assert_eq!(plain, serde_json::json!({"privileges": true}));
    let read: EternalPalaceOptions = serde_json::from_str(
        r#"{"privileges":true,"labyrinth":true,"location_tiles":["fish_market","eternal_bridge"]}"#,
    )
    .unwrap();
    assert!(read.privileges && read.labyrinth && !read.river_market);
    assert_eq!(
        read.location_tiles,
        vec![LocationTile::FishMarket, LocationTile::EternalBridge]
    );
    assert!(
        serde_json::from_str::<EternalPalaceOptions>(r#"{"location_tiles":["moon"]}"#).is_err()
    );
    assert!(serde_json::from_str::<EternalPalaceOptions>(r#"{"catacombs":true}"#).is_err());
}

#[test]
fn module_locations_exist_only_with_their_module() {
    let state = placing_with(&EternalPalaceOptions::default(), 2, 0, vec![vec![3]]);
    assert_eq!(
        refused(&state, 0, place(0, "labyrinth")),
        "no_such_location"
    );
    assert_eq!(
        refused(&state, 0, place(0, "river_market")),
        "no_such_location"
    );
    let view = EternalPalace::view(&state, Viewer::Spectator);
    assert_eq!(view.locations.len(), 14);
    assert!(view.labyrinth.is_none() && view.river_market.is_none());
    let state = placing_with(&labyrinth(), 2, 0, vec![vec![3]]);
    assert_eq!(
        refused(&state, 0, place(0, "river_market")),
        "no_such_location"
    );
    let view = EternalPalace::view(&state, Viewer::Spectator);
    assert_eq!(view.locations.len(), 15);
    assert!(view.labyrinth.is_some());
}

// ------------------------------------------------------------------ Labyrinth

/// "Vorbereitungen: 1 Dekoration-Token auf Mittelfeld, Spieler-Marker auf Eingang."
#[test]
fn lab_setup_decoration_in_the_middle_markers_on_the_entrance() {
    let (state, _) = start_with(&labyrinth(), 4, 1);
    assert!(state.decorations.contains(&"labyrinth".to_string()));
    assert_eq!(state.decorations.len(), 10);
    assert!(state.players.iter().all(|p| p.station == "entrance"));
    let middle = data().stations.iter().filter(|s| s.middle).count();
    assert_eq!(middle, 1, "one middle station");
}

/// "Das Labyrinth kann mit einem einzelnen Würfel besucht werden."
#[test]
fn lab_visited_with_a_single_die_of_any_value() {
    for pip in 1..=6u8 {
        let mut state = placing_with(&labyrinth(), 2, 0, vec![vec![pip], vec![1, 2]]);
        let events = act(&mut state, 0, place(0, "labyrinth"), &mut rng());
        assert!(matches!(
            &events[0],
            Event::DicePlaced { wisdom: 0, pips, .. } if *pips == vec![pip]
        ));
    }
    let state = placing_with(&labyrinth(), 2, 0, vec![vec![1], vec![1, 2]]);
    assert_eq!(refused(&state, 0, place(1, "labyrinth")), "single_die_only");
    let with_value = Action::PlaceDice {
        group: 0,
        location: "labyrinth".into(),
        value: Some(3),
    };
    assert_eq!(refused(&state, 0, with_value), "unexpected_value");
}

/// The option `any_group_at_module_locations` reads "kann mit einem einzelnen Würfel
/// besucht werden" as "one die is enough": a group of any size and pips visits, costs no
/// wisdom, and does exactly what a single die does.
#[test]
fn lab_any_group_option_takes_a_group_of_any_size() {
    let options = EternalPalaceOptions {
        any_group_at_module_locations: true,
        ..labyrinth()
    };
    let state = placing_with(&options, 2, 0, vec![vec![1], vec![1, 2], vec![6, 6, 5]]);
    let legal = EternalPalace::legal_actions(&state, 0);
    for group in 0..3 {
        assert!(legal.contains(&place(group, "labyrinth")), "group {group}");
    }
    let mut single = state.clone();
    act(&mut single, 0, place(0, "labyrinth"), &mut rng());
    let mut state = state;
    let events = act(&mut state, 0, place(2, "labyrinth"), &mut rng());
    assert!(matches!(
        &events[0],
        Event::DicePlaced { wisdom: 0, pips, .. } if *pips == vec![6, 6, 5]
    ));
    assert_eq!(pending_choice(&state), pending_choice(&single));
    // without the option, only the single die is listed
    let plain = placing_with(&labyrinth(), 2, 0, vec![vec![1], vec![1, 2], vec![6, 6, 5]]);
    let legal = EternalPalace::legal_actions(&plain, 0);
    assert!(legal.contains(&place(0, "labyrinth")));
    assert!(!legal.contains(&place(1, "labyrinth")));
    assert!(!legal.contains(&place(2, "labyrinth")));
}

/// The option's game setting: rules version 4, and only with a module location it changes.
#[test]
fn any_group_option_needs_version_4_and_a_module_location() {
    let any_group = |options: EternalPalaceOptions| EternalPalaceOptions {
        any_group_at_module_locations: true,
        ..options
    };
    assert!(setup_error(&any_group(labyrinth()), 3).contains("rules version 4"));
    for options in [
        EternalPalaceOptions::default(),
        compositions(),
        tiles(&[LocationTile::Academy]),
    ] {
        let message = setup_error(&any_group(options), 4);
        assert!(message.contains("labyrinth"), "{message}");
    }
    for options in [labyrinth(), river_market()] {
        assert!(EternalPalace::setup(&any_group(options), 4, 4, None, &mut rng()).is_ok());
    }
    assert!(EternalPalace::newest_rules_version() >= 4);
    let plain = serde_json::to_value(labyrinth()).unwrap();
    assert_eq!(
        plain,
        serde_json::json!({"privileges": false, "labyrinth": true})
    );
    let read: EternalPalaceOptions =
        serde_json::from_str(r#"{"river_market":true,"any_group_at_module_locations":true}"#)
            .unwrap();
    assert_eq!(read, any_group(river_market()));
}

/// The module locations' data says how sure each of its values is: one die (summary), of
/// any value (decided), and no painting layer (decided).
#[test]
fn module_locations_label_their_dice_and_their_missing_layer() {
    for at in [LABYRINTH, RIVER_MARKET] {
        let location = &data().locations[at];
        assert!(!location.layer, "{}", location.key);
        assert_eq!(location.layer_source, Some(Source::Decided));
        let dice = location.dice.as_ref().expect("a dice rule");
        assert_eq!(dice.count, 1);
        assert_eq!(
            (dice.source, dice.any_value),
            (Source::Summary, Source::Decided)
        );
    }
    for location in &data().locations {
        assert_eq!(
            location.layer,
            location.layer_source.is_none(),
            "{}",
            location.key
        );
    }
}

/// "Der Marker zieht einem roten Pfeil folgend zur nächsten Station. Zahle die auf dem Weg
/// gezeigten Fische und erhalte das auf der Station gezeigte Gut."
#[test]
fn lab_marker_follows_an_arrow_pays_the_way_takes_the_station() {
    let mut state = placing_with(&labyrinth(), 2, 0, vec![vec![2], vec![5], vec![4], vec![1]]);
    state.players[0].stock.fish = 6;
    // two arrows leave the entrance: the seat chooses
    act(&mut state, 0, place(0, "labyrinth"), &mut rng());
    assert_eq!(
        pending_choice(&state),
        Some(Choice::Path {
            stations: vec!["willow".into(), "rock".into()]
        })
    );
    assert_eq!(
        refused(
            &state,
            0,
            Action::FollowPath {
                station: "middle".into()
            }
        ),
        "no_such_path"
    );
    let events = act(
        &mut state,
        0,
        Action::FollowPath {
            station: "willow".into(),
        },
        &mut rng(),
    );
    assert_eq!(state.players[0].station, "willow");
    assert_eq!(
        goods_for(&events, 0, Reason::Labyrinth),
        Goods::resource(Resource::Wood, 1)
    );
    // one arrow leaves the willow gate: the marker moves at once; the way costs 1 fish,
    // plus 1 fish for the colour already in the labyrinth (our own)
    let events = act(&mut state, 0, place(1, "labyrinth"), &mut rng());
    assert_eq!(state.players[0].station, "lantern");
    assert_eq!(
        goods_for(&events, 0, Reason::Labyrinth),
        Goods {
            fish: -1,
            wisdom: 2,
            ..Goods::default()
        }
    );
    assert_eq!(state.players[0].stock.fish, 6 - 1 - 1);
    // the middle station holds the decoration: the first marker to get there takes it
    let events = act(&mut state, 0, place(2, "labyrinth"), &mut rng());
    assert_eq!(state.players[0].station, "middle");
    assert!(events.iter().any(|e| matches!(
        e,
        Event::DecorationTaken { seat: 0, location } if location == "labyrinth"
    )));
    assert_eq!(state.players[0].decorations, 1);
    assert!(
        state.players[0].layers.is_empty(),
        "no layer in the labyrinth"
    );
}

#[test]
fn lab_fish_for_the_way_and_the_end() {
    // the pond's arrow to the middle shows 2 fish
    let mut state = placing_with(&labyrinth(), 2, 0, vec![vec![3], vec![3]]);
    state.players[0].station = "pond".into();
    state.players[0].stock.fish = 1;
    assert_eq!(refused(&state, 0, place(0, "labyrinth")), "not_enough_fish");
    assert!(!EternalPalace::legal_actions(&state, 0).contains(&place(0, "labyrinth")));
    // with two arrows and fish for the cheaper one only, that one is taken at once
    state.players[0].station = "middle".into();
    state.players[0].stock.fish = 1;
    act(&mut state, 0, place(0, "labyrinth"), &mut rng());
    assert!(pending_choice(&state).is_some(), "both ways cost 1 fish");
    // at the exit the labyrinth is done
    let mut done = placing_with(&labyrinth(), 2, 0, vec![vec![3]]);
    done.players[0].station = "exit".into();
    assert_eq!(
        refused(&done, 0, place(0, "labyrinth")),
        "labyrinth_complete"
    );
}

#[test]
fn lab_data_is_a_plan_from_the_entrance_to_the_exit() {
    let d = data();
    assert_eq!(d.locations[LABYRINTH].key, "labyrinth");
    for a in &d.arrows {
        assert!(d.station(&a.from).is_some() && d.station(&a.to).is_some());
        assert_eq!(a.source, Source::Decided);
    }
    // every station is reachable from the entrance and leads to the exit
    for s in &d.stations {
        if s.id != "entrance" {
            assert!(d.arrows.iter().any(|a| a.to == s.id), "{} reachable", s.id);
            assert_eq!(s.source, Source::Decided);
        }
        if s.id != "exit" {
            assert!(d.arrows_from(&s.id).next().is_some(), "{} leads on", s.id);
        }
    }
    assert!(d.arrows_from("exit").next().is_none());
}

// ------------------------------------------------------------------ Fluss-Markt

/// "Vorbereitungen: 1 Dekoration-Token auf letztes Feld, Spieler-Marker auf erstes Feld,
/// Nachfrage-Karten mischen, Stapel verdeckt auf Ort, oberste Karte aufdecken."
#[test]
fn fm_setup_shuffled_deck_top_card_open() {
    let (state, events) = start_with(&river_market(), 4, 2);
    assert!(state.decorations.contains(&"river_market".to_string()));
    assert!(state.players.iter().all(|p| p.tracks[RIVER_MARKET] == 0));
    assert_eq!(state.demand_deck.len(), 11);
    let open = state.demand_card.clone().expect("open card");
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::DemandRevealed { card } if *card == open)));
    // a different seed shuffles differently
    let orders: std::collections::BTreeSet<Vec<String>> = (0..8)
        .map(|seed| start_with(&river_market(), 4, seed).0.demand_deck)
        .collect();
    assert!(orders.len() > 1);
}

/// "Bei 2 / 3 Spielern sind nur die beiden oberen Felder verfügbar, bei 4 / 5 Spielern alle
/// Felder."
#[test]
fn fm_two_fields_with_two_or_three_players_three_with_four_or_five() {
    for (seats, fields) in [(2u8, 2usize), (3, 2), (4, 3), (5, 3)] {
        let (state, _) = start_with(&river_market(), seats, 3);
        assert_eq!(state.demand_fields.len(), fields);
    }
    let mut state = placing_with(&river_market(), 3, 0, vec![vec![4], vec![1]]);
    act(&mut state, 0, place(0, "river_market"), &mut rng());
    let lower = Action::FulfilDemand {
        field: 2,
        resource: Resource::Wood,
    };
    assert_eq!(refused(&state, 0, lower), "no_such_field");
}

/// "Jede Karte zeigt oben die gleichen 3 Nachfragen: 1 beliebige Ressource, 1 Kaolin oder
/// Bronze, 1 Holz oder Stein"
#[test]
fn fm_the_three_demands() {
    let mut state = placing_with(&river_market(), 4, 0, vec![vec![4], vec![1]]);
    act(&mut state, 0, place(0, "river_market"), &mut rng());
    let fulfil = |field, resource| Action::FulfilDemand { field, resource };
    for r in Resource::ALL {
        assert!(EternalPalace::legal_actions(&state, 0).contains(&fulfil(0, r)));
    }
    assert_eq!(
        refused(&state, 0, fulfil(1, Resource::Wood)),
        "demand_not_met"
    );
    assert_eq!(
        refused(&state, 0, fulfil(1, Resource::Stone)),
        "demand_not_met"
    );
    assert_eq!(
        refused(&state, 0, fulfil(2, Resource::Kaolin)),
        "demand_not_met"
    );
    assert_eq!(
        refused(&state, 0, fulfil(2, Resource::Bronze)),
        "demand_not_met"
    );
    for (field, r) in [
        (1, Resource::Kaolin),
        (1, Resource::Bronze),
        (2, Resource::Wood),
        (2, Resource::Stone),
    ] {
        assert!(EternalPalace::legal_actions(&state, 0).contains(&fulfil(field, r)));
    }
}

/// "Der Fluss-Markt kann mit einem einzelnen Würfel besucht werden."
#[test]
fn fm_visited_with_a_single_die() {
    let mut state = placing_with(&river_market(), 2, 0, vec![vec![6], vec![2, 2]]);
    assert_eq!(
        refused(&state, 0, place(1, "river_market")),
        "single_die_only"
    );
    let events = act(&mut state, 0, place(0, "river_market"), &mut rng());
    assert!(matches!(&events[0], Event::DicePlaced { wisdom: 0, .. }));
    assert_eq!(pending_choice(&state), Some(Choice::Demand));
}

/// With `any_group_at_module_locations` a pair visits the river market like a single die.
#[test]
fn fm_any_group_option_takes_a_group_of_any_size() {
    let options = EternalPalaceOptions {
        any_group_at_module_locations: true,
        ..river_market()
    };
    let mut state = placing_with(&options, 2, 0, vec![vec![6], vec![2, 2]]);
    assert!(EternalPalace::legal_actions(&state, 0).contains(&place(1, "river_market")));
    let events = act(&mut state, 0, place(1, "river_market"), &mut rng());
    assert!(matches!(&events[0], Event::DicePlaced { wisdom: 0, .. }));
    assert_eq!(pending_choice(&state), Some(Choice::Demand));
}

/// "Erfülle die Nachfrage eines noch freien Feldes (gib das Gezeigte ab) und lege einen
/// Marker auf das Feld. Auf jedes Feld darf nur ein Marker, ein Spieler kann aber mehrere
/// Felder belegen."
#[test]
fn fm_fulfil_a_free_field_one_marker_per_field() {
    let mut state = placing_with(&river_market(), 4, 0, vec![vec![4], vec![3], vec![1]]);
    state.players[0].stock.fish = 10;
    act(&mut state, 0, place(0, "river_market"), &mut rng());
    let events = act(
        &mut state,
        0,
        Action::FulfilDemand {
            field: 1,
            resource: Resource::Kaolin,
        },
        &mut rng(),
    );
    assert_eq!(
        goods_for(&events, 0, Reason::RiverMarket),
        Goods::resource(Resource::Kaolin, -1)
    );
    assert_eq!(state.demand_fields, vec![None, Some(0), None]);
    assert_eq!(state.players[0].stock.kaolin, 0);
    // the same seat takes a second field, but not the taken one
    act(&mut state, 0, place(1, "river_market"), &mut rng());
    assert_eq!(
        refused(
            &state,
            0,
            Action::FulfilDemand {
                field: 1,
                resource: Resource::Bronze
            }
        ),
        "field_taken"
    );
    act(
        &mut state,
        0,
        Action::FulfilDemand {
            field: 2,
            resource: Resource::Stone,
        },
        &mut rng(),
    );
    assert_eq!(state.demand_fields, vec![None, Some(0), Some(0)]);
    // without anything to give, no visit
    let mut poor = placing_with(&river_market(), 4, 0, vec![vec![4]]);
    poor.players[0].stock = Goods {
        fish: 3,
        ..Goods::default()
    };
    assert_eq!(
        refused(&poor, 0, place(0, "river_market")),
        "no_demand_to_fulfil"
    );
    assert_eq!(
        refused(
            &state,
            0,
            Action::FulfilDemand {
                field: 0,
                resource: Resource::Wood
            }
        ),
        "no_choice_pending"
    );
}

/// "Sind alle verfügbaren Nachfragefelder belegt, erhalte für jeden Deiner Marker die
/// gezeigte Belohnung. Jeder Spieler ohne Marker auf der Karte muss die gezeigte Strafe
/// hinnehmen, also soweit möglich Dinge abgeben oder gar im Palast rückwärts ziehen. Danach
/// gehen die Marker an die Spieler zurück und eine neue Karte wird aufgedeckt."
#[test]
fn fm_full_card_rewards_markers_penalises_the_others_and_turns_over() {
    let mut state = placing_at_demand_d11(&river_market(), vec![vec![4], vec![3], vec![1]]);
    state.players[0].stock.fish = 10;
    state.players[1].palace = 3;
    state.players[1].stock.fish = 0;
    state.players[2].palace = 0;
    state.players[2].stock.fish = 5;
    let top = state.demand_deck[0]
        .trim_start_matches("demand:")
        .to_string();
    act(&mut state, 0, place(0, "river_market"), &mut rng());
    act(&mut state, 0, fulfil(0, Resource::Wood), &mut rng());
    act(&mut state, 0, place(1, "river_market"), &mut rng());
    let events = act(&mut state, 0, fulfil(1, Resource::Bronze), &mut rng());
    // two markers: the reward twice
    assert_eq!(goods_for(&events, 0, Reason::DemandReward).palace, 4);
    assert_eq!(state.players[0].palace, 4);
    // seat 1 moves back in the palace and has no fish to give; seat 2 gives a fish and
    // cannot move back from space 0
    assert_eq!(
        goods_for(&events, 1, Reason::DemandPenalty),
        Goods {
            palace: -1,
            ..Goods::default()
        }
    );
    assert_eq!(state.players[1].palace, 2);
    assert_eq!(
        goods_for(&events, 2, Reason::DemandPenalty),
        Goods {
            fish: -1,
            ..Goods::default()
        }
    );
    assert_eq!(state.players[2].palace, 0);
    // markers back, card aside, the next one open
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::DemandSettled { card } if card == "d11")));
    assert_eq!(state.demand_fields, vec![None, None]);
    assert_eq!(state.demand_card.as_deref(), Some(top.as_str()));
    assert_eq!(state.demand_discard, vec!["d11".to_string()]);
}

/// Decided: when the last card is used, the used cards are shuffled into a new face-down
/// deck (recorded, order hidden) and its top card is revealed.
#[test]
fn fm_used_cards_are_reshuffled_when_the_deck_is_empty() {
    let mut state = placing_with(&river_market(), 2, 0, vec![vec![4], vec![3], vec![1]]);
    state.demand_discard = state
        .demand_deck
        .drain(..)
        .map(|t| t.trim_start_matches("demand:").to_string())
        .collect();
    state.players[0].stock.fish = 10;
    for g in 0..2u8 {
        act(&mut state, 0, place(g, "river_market"), &mut rng());
        let answer = EternalPalace::legal_actions(&state, 0)[0].clone();
        let events = act(&mut state, 0, answer, &mut rng());
        if g == 1 {
            assert!(events.iter().any(|e| matches!(
                e,
                Event::DemandDeckShuffled { deck: Some(d) } if d.len() == 12
            )));
        }
    }
    // all twelve, the one just used among them, make the new deck; its top card is open
    assert_eq!(state.demand_deck.len(), 11);
    assert!(state.demand_discard.is_empty());
    assert!(state.demand_card.is_some());
}

/// Decided: every visit steps the marker one field on the river market's track; the first
/// to reach the last field takes the decoration (no layer).
#[test]
fn fm_track_step_and_decoration_on_the_last_field() {
    let length = data().locations[RIVER_MARKET]
        .track_length()
        .expect("track");
    let mut state = placing_with(&river_market(), 2, 0, vec![vec![4], vec![1]]);
    state.players[0].tracks[RIVER_MARKET] = length - 1;
    let events = act(&mut state, 0, place(0, "river_market"), &mut rng());
    assert_eq!(state.players[0].tracks[RIVER_MARKET], length);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::DecorationTaken { seat: 0, location } if location == "river_market"
    )));
    assert!(state.players[0].layers.is_empty());
}

#[test]
fn fm_demand_cards_are_twelve_decided_cards() {
    let d = data();
    assert_eq!(d.demands.len(), 12);
    assert!(d.demands.iter().all(|c| c.source == Source::Decided));
    assert_eq!(d.river_market.fields.len(), 3);
    assert_eq!(d.river_market.source, Source::Summary);
}

// ------------------------------------------------------------------ Kompositionen

/// "Komposition-Karten mischen und (Spieleranzahl) viele offen auslegen. Übrige Karten
/// werden nicht benötigt."
#[test]
fn komp_as_many_open_cards_as_players() {
    for seats in 2..=5u8 {
        let (state, events) = start_with(&compositions(), seats, seats as u64);
        assert_eq!(state.composition_cards.len(), seats as usize);
        assert!(events.iter().any(
            |e| matches!(e, Event::CompositionsDealt { cards } if cards.len() == seats as usize)
        ));
        let view = EternalPalace::view(&state, Viewer::Spectator);
        assert_eq!(view.compositions.map(|c| c.len()), Some(seats as usize));
    }
    assert_eq!(data().composition_cards.len(), 12);
}

/// "Der erste Spieler, der alle Bildebenen der auf der Karte gezeigten 3 Orte besitzt,
/// erhält die unten gezeigte Belohnung. Die Karte geht aus dem Spiel."
#[test]
fn komp_first_to_hold_the_three_layers_takes_the_reward() {
    // c07: layers 3, 6, 9 give 2 palace steps; seat 0 holds 6 and 9 and builds 3
    let mut state = placing_with(&compositions(), 2, 0, vec![vec![1, 2], vec![1]]);
    state.composition_cards = vec!["c07".into(), "c01".into()];
    state.players[0].layers = vec!["6".into(), "9".into()];
    state.players[1].layers = vec!["6".into(), "9".into()];
    let events = act(&mut state, 0, place(0, "3"), &mut rng());
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::CompositionClaimed { seat: 0, card } if card == "c07")));
    assert_eq!(goods_for(&events, 0, Reason::Composition).palace, 2);
    assert_eq!(state.composition_cards, vec!["c01".to_string()]);
    assert_eq!(state.players[0].compositions, vec!["c07".to_string()]);
    // the card is gone: seat 1 taking layer 3 later gets nothing
    state.players[1].groups = vec![vec![3]];
    state.players[1].placed = vec![false];
    state.players[1].stock.wood = 5;
    state.placer = Some(1);
    let events = act(&mut state, 1, place(0, "3"), &mut rng());
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::CompositionClaimed { .. })));
}

/// "Imperiale Siegel sind bei Spielende 1 SP wert, die Karte kann zur Abrechnung aufbewahrt
/// werden."
#[test]
fn komp_seals_are_one_vp_at_the_end() {
    let (mut state, _) = start_with(&compositions(), 2, 1);
    state.players[0].compositions = vec!["c01".into(), "c05".into()];
    let (sheets, _) = final_scores(&state);
    assert_eq!(sheets[0].composition_seals, 3, "2 + 1 seals");
    assert_eq!(sheets[1].composition_seals, 0);
    assert_eq!(sheets[0].total - sheets[1].total, 3);
    // score sheets without composition seals keep their old JSON shape
    let json = serde_json::to_value(&sheets[1]).unwrap();
    assert!(json.get("composition_seals").is_none());
}

#[test]
fn komp_cards_name_three_real_layers() {
    let d = data();
    for c in &d.composition_cards {
        assert_eq!(c.layers.len(), 3, "{}", c.id);
        for l in &c.layers {
            let i = d.location_index(l).expect("location");
            assert!(
                d.locations[i].layer,
                "{} names a location with a layer",
                c.id
            );
        }
        assert_eq!(c.source, Source::Decided);
    }
}

// ------------------------------------------------------------------ Location: Fischmarkt

/// "Nimm 1 Berater vom verdeckten Stapel. Zahle einmal beliebige Fische, um genauso viele
/// weitere Karten zu ziehen."
#[test]
fn loc1_draw_one_then_pay_fish_once_for_as_many_more() {
    let mut state = placing_with(
        &tiles(&[LocationTile::FishMarket]),
        2,
        0,
        vec![vec![1], vec![1]],
    );
    state.players[0].stock.fish = 5;
    let events = act(&mut state, 0, place(0, "1"), &mut rng());
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::AdvisorsDrawn { count: 1, .. })));
    assert_eq!(
        state.players[0].tracks[index("1")],
        1,
        "track step as usual"
    );
    let legal = EternalPalace::legal_actions(&state, 0);
    assert!(legal.contains(&Action::DrawAdvisors { fish: 5 }));
    assert!(!legal.contains(&Action::DrawAdvisors { fish: 6 }));
    assert_eq!(
        refused(&state, 0, Action::DrawAdvisors { fish: 0 }),
        "invalid_draw"
    );
    assert_eq!(
        refused(&state, 0, Action::DrawAdvisors { fish: 6 }),
        "not_enough_fish"
    );
    let events = act(&mut state, 0, Action::DrawAdvisors { fish: 3 }, &mut rng());
    assert_eq!(goods_for(&events, 0, Reason::FishMarket).fish, -3);
    assert!(matches!(
        state.pending.first(),
        Some(Pending::FishMarket { cards, draw_more: false, .. }) if cards.len() == 4
    ));
    // once only
    assert_eq!(
        refused(&state, 0, Action::DrawAdvisors { fish: 1 }),
        "invalid_draw"
    );
    // the extra cards are the drawer's secret too
    match EternalPalace::redact(events.last().unwrap(), Viewer::Seat(1)) {
        Event::ExtraAdvisorsDrawn {
            cards: None,
            count: 3,
            ..
        } => {}
        other => panic!("not redacted: {other:?}"),
    }
}

/// "Entscheide: 1 behalten, 1 oben verdeckt auf den Stapel zurück und Rest abwerfen.
/// Bezahle die Berater-Kosten und erhalte 3 Fische oder gib 3 Fische ab. Ansonsten wirf ihn
/// ab."
#[test]
fn loc1_keep_one_return_one_discard_the_rest() {
    let mut state = placing_with(
        &tiles(&[LocationTile::FishMarket]),
        2,
        0,
        vec![vec![1], vec![1]],
    );
    let mut deck: Vec<String> = ["a01", "a11", "a25", "a12"]
        .iter()
        .map(|c| deck_token(c))
        .collect();
    state.deck.retain(|t| !deck.contains(t));
    state
        .display
        .retain(|c| !["a01", "a11", "a25", "a12"].contains(&c.as_str()));
    deck.append(&mut state.deck);
    state.deck = deck;
    state.players[0].stock.fish = 8;
    act(&mut state, 0, place(0, "1"), &mut rng());
    act(&mut state, 0, Action::DrawAdvisors { fish: 3 }, &mut rng());
    let resolve = |returned: Option<&str>, discarded: Option<&str>, kept: Option<&str>| {
        Action::ResolveFishMarket {
            returned: returned.map(str::to_string),
            discarded: discarded.map(str::to_string),
            kept: kept.map(str::to_string),
            hire: true,
        }
    };
    assert_eq!(
        refused(&state, 0, resolve(Some("a11"), Some("a25"), None)),
        "invalid_fish_market_choice"
    );
    assert_eq!(
        refused(&state, 0, resolve(Some("a11"), None, Some("a11"))),
        "not_drawn"
    );
    let discard_before = state.discard.len();
    act(
        &mut state,
        0,
        resolve(Some("a11"), None, Some("a01")),
        &mut rng(),
    );
    // Harbour Master: cost 1 wood, hiring costs 3 fish, patron gives 4 fish and 1 wisdom
    let p = &state.players[0];
    assert!(p.advisors.iter().any(|a| a.card == "a01"));
    assert_eq!(p.stock.fish, 8 - 3 - 3 + 4);
    assert_eq!(state.deck[0], "known0:a11");
    assert_eq!(state.discard.len(), discard_before + 2, "a25 and a12");
}

// ------------------------------------------------------------------ Location: Akademie

/// "Nimm alle in der Reserve der Akademie gesammelte Weisheit oder stelle 1 offenliegenden
/// Berater ein und bezahle seine Kosten, lege ferner 1 Weisheit aus dem Vorrat in die
/// Reserve."
#[test]
fn loc2_take_the_reserve_or_hire_and_feed_it() {
    let options = tiles(&[LocationTile::Academy]);
    let mut state = placing_with(&options, 2, 0, vec![vec![2], vec![1, 1], vec![1]]);
    assert_eq!(state.academy_reserve, data().academy_tile.reserve_start);
    state.display = vec!["a05".into()];
    state.deck.retain(|t| t != "deck:a05");
    act(&mut state, 0, place(0, "2"), &mut rng());
    assert_eq!(state.players[0].tracks[index("2")], 1);
    assert_eq!(
        pending_choice(&state),
        Some(Choice::AcademyTile { reserve: 1 })
    );
    assert_eq!(
        refused(&state, 0, Action::HireAdvisor { card: None }),
        "nothing_chosen"
    );
    let wisdom = state.players[0].stock.wisdom;
    let events = act(
        &mut state,
        0,
        Action::HireAdvisor {
            card: Some("a05".into()),
        },
        &mut rng(),
    );
    // Lady of the Lake: cost 1 stone, no wisdom for hiring at the tile
    assert!(events.iter().any(|e| matches!(
        e,
        Event::AdvisorHired {
            from: HireSource::AcademyTile,
            ..
        }
    )));
    assert_eq!(
        goods_for(&events, 0, Reason::Hire),
        Goods::resource(Resource::Stone, -1)
    );
    assert_eq!(state.players[0].stock.wisdom, wisdom);
    assert_eq!(state.academy_reserve, 2);
    act(&mut state, 0, place(1, "2"), &mut rng());
    let events = act(&mut state, 0, Action::TakeReserve, &mut rng());
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ChoiceAnswered {
            answer: Answer::Reserve { wisdom: 2 },
            ..
        }
    )));
    assert_eq!(state.players[0].stock.wisdom, wisdom + 2);
    assert_eq!(state.academy_reserve, 0);
    assert_eq!(
        EternalPalace::view(&state, Viewer::Spectator).academy_reserve,
        Some(0)
    );
}

// ------------------------------------------------------------------ Location: Tempel

/// "Beim Besuch des Tempels kannst Du wählen: Erhalte 1 Weisheit. Zahle 1 Ressource und
/// erhalte 3 Weisheit. Zahle 2 Ressourcen und erhalte 6 Weisheit."
#[test]
fn loc7_one_wisdom_or_resources_for_three_or_six() {
    let options = tiles(&[LocationTile::Temple]);
    for (paid, wisdom) in [
        (vec![], 1),
        (vec![Resource::Bronze], 3),
        (vec![Resource::Wood, Resource::Kaolin], 6),
    ] {
        let mut state = placing_with(&options, 2, 0, vec![vec![3, 4], vec![1]]);
        let events = act(&mut state, 0, place(0, "7"), &mut rng());
        assert!(events
            .iter()
            .any(|e| matches!(e, Event::SpaceMarked { .. })));
        assert_eq!(goods_for(&events, 0, Reason::Temple), Goods::default());
        assert_eq!(pending_choice(&state), Some(Choice::TempleTile));
        let events = act(
            &mut state,
            0,
            Action::BuyWisdom { paid: paid.clone() },
            &mut rng(),
        );
        let mut expected = Goods {
            wisdom,
            ..Goods::default()
        };
        for r in &paid {
            *expected.resource_mut(*r) -= 1;
        }
        assert_eq!(goods_for(&events, 0, Reason::Temple), expected);
    }
    let mut state = placing_with(&options, 2, 0, vec![vec![3, 4], vec![1]]);
    act(&mut state, 0, place(0, "7"), &mut rng());
    let three = Action::BuyWisdom {
        paid: vec![Resource::Wood; 3],
    };
    assert_eq!(refused(&state, 0, three), "no_such_offer");
    let two_wood = Action::BuyWisdom {
        paid: vec![Resource::Wood; 2],
    };
    assert_eq!(refused(&state, 0, two_wood), "cannot_afford");
}

// ------------------------------------------------------------------ Location: Palastmarkt

/// "Erhalte abhängig von der Anzahl 2 / 3 / 4+ der verwendeten Würfel 1 / 2 / 3
/// verschiedene der abgebildeten Dinge."
#[test]
fn loc12_one_two_three_items_for_two_three_four_dice() {
    let options = tiles(&[LocationTile::PalaceMarket]);
    for (group, count) in [(vec![6, 6], 1u8), (vec![4, 4, 4], 2), (vec![3, 3, 3, 3], 3)] {
        let mut state = placing_with(&options, 2, 0, vec![group, vec![1]]);
        act(&mut state, 0, place(0, "12"), &mut rng());
        assert_eq!(pending_choice(&state), Some(Choice::MarketTile { count }));
        assert_eq!(
            state.players[0].marks.len(),
            1,
            "the space is marked as printed"
        );
    }
}

/// "Zahle 1 Ressource, um am Ort dieser Ressource (4, 6, 9, 11) einen Schritt zu machen. –
/// 1 Schritt im Palast – 2 Weisheit + 1 Ressource + 2 Fische – 1 offener Berater
/// (kostenlos)"
#[test]
fn loc12_the_four_items() {
    let options = tiles(&[LocationTile::PalaceMarket]);
    let mut state = placing_with(&options, 2, 0, vec![vec![3, 3, 3, 3], vec![1]]);
    let card = state.display[0].clone();
    act(&mut state, 0, place(0, "12"), &mut rng());
    let before = state.players[0].stock;
    let choice = Action::ChooseMarketTile {
        step: Some(Resource::Kaolin),
        palace: true,
        bundle: Some(Resource::Bronze),
        advisor: None,
        privilege: false,
    };
    assert!(EternalPalace::legal_actions(&state, 0).contains(&choice));
    let events = act(&mut state, 0, choice, &mut rng());
    let p = &state.players[0];
    assert_eq!(p.tracks[index("9")], 1, "a step at the kaolin pit");
    assert_eq!(p.stock.kaolin, before.kaolin - 1);
    assert_eq!(p.palace, 1);
    assert_eq!(p.stock.wisdom, before.wisdom + 2);
    assert_eq!(p.stock.fish, before.fish + 2);
    assert_eq!(p.stock.bronze, before.bronze + 1);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ChoiceAnswered { .. })));
    // the free advisor
    let mut state = placing_with(&options, 2, 0, vec![vec![6, 6], vec![1]]);
    state.players[0].stock = Goods::default();
    act(&mut state, 0, place(0, "12"), &mut rng());
    act(
        &mut state,
        0,
        Action::ChooseMarketTile {
            step: None,
            palace: false,
            bundle: None,
            advisor: Some(card.clone()),
            privilege: false,
        },
        &mut rng(),
    );
    assert!(state.players[0].advisors.iter().any(|a| a.card == card));
    assert!(!state.display.contains(&card));
}

#[test]
fn loc12_refusals() {
    let options = tiles(&[LocationTile::PalaceMarket]);
    let mut state = placing_with(&options, 2, 0, vec![vec![4, 4, 4], vec![1]]);
    act(&mut state, 0, place(0, "12"), &mut rng());
    let one = Action::ChooseMarketTile {
        step: None,
        palace: true,
        bundle: None,
        advisor: None,
        privilege: false,
    };
    assert_eq!(refused(&state, 0, one), "wrong_item_count");
    state.players[0].stock.wood = 0;
    let step = Action::ChooseMarketTile {
        step: Some(Resource::Wood),
        palace: true,
        bundle: None,
        advisor: None,
        privilege: false,
    };
    assert_eq!(refused(&state, 0, step), "cannot_afford");
    let privilege = Action::ChooseMarketTile {
        step: None,
        palace: true,
        bundle: None,
        advisor: None,
        privilege: true,
    };
    assert_eq!(refused(&state, 0, privilege), "item_unavailable");
    let stranger = Action::ChooseMarketTile {
        step: None,
        palace: true,
        bundle: None,
        advisor: Some("zz99".into()),
        privilege: false,
    };
    assert_eq!(refused(&state, 0, stranger), "not_in_display");
}

// ------------------------------------------------------------------ Location: Ewige Brücke

/// "zeigt andere Boni entlang des Weges (Ressourcen, Schritt an Ressource-Ort für eine
/// Ressource, Palast-Schritt)"
#[test]
fn loceb_other_bonuses_along_the_way() {
    let options = tiles(&[LocationTile::EternalBridge]);
    let mut state = placing_with(&options, 2, 0, vec![vec![6], vec![1]]);
    let bridge = |group, value| Action::PlaceDice {
        group,
        location: "bridge".into(),
        value: Some(value),
    };
    let events = act(&mut state, 0, bridge(0, 6), &mut rng());
    // space 2: wood; space 4: a step for a resource (a choice); space 6: a palace step
    assert_eq!(
        goods_for(&events, 0, Reason::Bridge),
        Goods {
            wood: 1,
            palace: 1,
            ..Goods::default()
        }
    );
    assert_eq!(pending_choice(&state), Some(Choice::ResourceStep));
    let legal = EternalPalace::legal_actions(&state, 0);
    assert!(legal.contains(&Action::StepForResource { resource: None }));
    act(
        &mut state,
        0,
        Action::StepForResource {
            resource: Some(Resource::Stone),
        },
        &mut rng(),
    );
    assert_eq!(state.players[0].tracks[index("6")], 1);
    assert_eq!(state.players[0].stock.stone, 0);
    let view = EternalPalace::view(&state, Viewer::Spectator);
    let shown = &view.locations[index("bridge")];
    assert!(shown.tile);
    assert_eq!(
        shown.bonuses.len(),
        7,
        "the tile's bonuses without the privileges module"
    );
    // the printed bridge without the tile gives 2 fish on space 2
    let mut plain = placing_with(
        &EternalPalaceOptions::default(),
        2,
        0,
        vec![vec![2], vec![1]],
    );
    let events = act(&mut plain, 0, bridge(0, 2), &mut rng());
    assert_eq!(goods_for(&events, 0, Reason::Bridge).fish, 2);
}

#[test]
fn tiles_keep_tracks_spaces_layers_and_decorations() {
    // the temple tile still gives the layer at the second mark
    let options = tiles(&[LocationTile::Temple]);
    let mut state = placing_with(&options, 2, 0, vec![vec![3, 4], vec![2, 2, 3], vec![1]]);
    act(&mut state, 0, place(0, "7"), &mut rng());
    act(
        &mut state,
        0,
        Action::BuyWisdom { paid: vec![] },
        &mut rng(),
    );
    let events = act(&mut state, 0, place(1, "7"), &mut rng());
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::LayerTaken { layer, .. } if layer == "7")));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::DecorationTaken { location, .. } if location == "7")));
}

// ------------------------------------------- rules version 5: the second readings

/// EP-R10, the option `two_decorations`: "entfernt das Dekorationstoken und erhält
/// zusätzlich 1 Dekoration nach Wahl" with the token as one decoration, and one more besides.
/// Without the option the token is removed and one decoration taken.
#[test]
fn two_decorations_option_gives_the_token_and_one_more() {
    for (two, expected) in [(false, 1), (true, 2)] {
        let options = EternalPalaceOptions {
            two_decorations: two,
            ..Default::default()
        };
        let mut state = placing_with(&options, 2, 0, vec![vec![6, 3], vec![1]]);
        let i = index("9");
        state.players[0].tracks[i] = data().locations[i].track_length().expect("track") - 1;
        state.players[0].stock.fish = 5;
        let events = act(&mut state, 0, place(0, "9"), &mut rng());
        assert!(state.players[0].layers.contains(&"9".to_string()));
        let taken = events
            .iter()
            .filter(|e| matches!(e, Event::DecorationTaken { seat: 0, .. }))
            .count();
        assert_eq!(taken, 1, "one token, one event");
        assert_eq!(state.players[0].decorations, expected, "option {two}");
        let decoration_points = |state: &State| {
            final_scores(state)
                .0
                .into_iter()
                .find(|sheet| sheet.seat == 0)
                .expect("seat 0")
                .decorations
        };
        assert_eq!(decoration_points(&state), expected, "1 VP a decoration");
    }
}

/// EP-R11, the option `demand_reward_only_to_filler`: "erhalte für jeden Deiner Marker die
/// gezeigte Belohnung" addressed to the player who fills the card: only their markers are
/// rewarded; a marker of another player is not, and spares its owner the penalty as before.
#[test]
fn demand_reward_only_to_filler_option_rewards_the_filler_alone() {
    for only_filler in [false, true] {
        let options = EternalPalaceOptions {
            demand_reward_only_to_filler: only_filler,
            ..river_market()
        };
        let mut state = placing_at_demand_d11(&options, vec![vec![4]]);
        state.demand_fields = vec![Some(1), None];
        state.players[1].palace = 3;
        state.players[2].palace = 3;
        state.players[2].stock.fish = 5;
        state.players[0].stock.fish = 10;
        state.players[0].stock.bronze = 1;
        act(&mut state, 0, place(0, "river_market"), &mut rng());
        let events = act(&mut state, 0, fulfil(1, Resource::Bronze), &mut rng());
        assert_eq!(goods_for(&events, 0, Reason::DemandReward).palace, 2);
        let other = goods_for(&events, 1, Reason::DemandReward).palace;
        assert_eq!(
            other,
            if only_filler { 0 } else { 2 },
            "option {only_filler}"
        );
        assert_eq!(
            goods_for(&events, 1, Reason::DemandPenalty),
            Goods::default()
        );
        assert_eq!(goods_for(&events, 2, Reason::DemandPenalty).palace, -1);
        assert_eq!(state.demand_discard, vec!["d11".to_string()]);
    }
}

/// EP-R12, the option `academy_hire_compulsory`: "Nimm 1 offenliegenden Berater" as an
/// order: a player who can pay for an open advisor must hire one; declining is not listed
/// and is refused. Without the option it is listed and accepted.
#[test]
fn academy_hire_compulsory_option_refuses_to_decline() {
    for compulsory in [false, true] {
        let options = EternalPalaceOptions {
            academy_hire_compulsory: compulsory,
            ..Default::default()
        };
        let mut state = placing_with(&options, 2, 0, vec![vec![2], vec![1]]);
        state.players[0].stock = Goods {
            fish: 9,
            wisdom: 9,
            wood: 9,
            stone: 9,
            kaolin: 9,
            bronze: 9,
            ..Goods::default()
        };
        act(&mut state, 0, place(0, "2"), &mut rng());
        assert_eq!(
            pending_choice(&state),
            Some(Choice::Hire {
                source: HireSource::Academy
            })
        );
        let decline = Action::HireAdvisor { card: None };
        let legal = EternalPalace::legal_actions(&state, 0);
        assert!(legal
            .iter()
            .any(|a| matches!(a, Action::HireAdvisor { card: Some(_) })));
        assert_eq!(legal.contains(&decline), !compulsory);
        if compulsory {
            assert_eq!(refused(&state, 0, decline), "hiring_required");
        } else {
            act(&mut state, 0, decline, &mut rng());
            assert_eq!(pending_choice(&state), None);
        }
    }
}

/// The three options need rules version 5; the demand reward's only with the river market.
#[test]
fn second_reading_options_need_version_5() {
    let all = EternalPalaceOptions {
        two_decorations: true,
        demand_reward_only_to_filler: true,
        academy_hire_compulsory: true,
        ..river_market()
    };
    assert!(setup_error(&all, 4).contains("rules version 5"));
    assert!(EternalPalace::setup(&all, 4, 5, None, &mut rng()).is_ok());
    let without_market = EternalPalaceOptions {
        demand_reward_only_to_filler: true,
        ..labyrinth()
    };
    assert!(setup_error(&without_market, 5).contains("river_market"));
    assert!(EternalPalace::plays_rules_version(5));
    let read: EternalPalaceOptions =
        serde_json::from_str(r#"{"two_decorations":true,"academy_hire_compulsory":true}"#).unwrap();
    assert!(read.two_decorations && read.academy_hire_compulsory);
    assert_eq!(
        serde_json::to_value(EternalPalaceOptions::default()).unwrap(),
        serde_json::json!({"privileges": false}),
        "options at their default are left out"
    );
}
