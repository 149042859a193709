//! Eternal Palace's modules over HTTP (rules version 3 on): one whole game per expansion
//! module (labyrinth, river market, compositions), one with all five location tiles and one
//! where any group visits the labyrinth (rules version 4), one with the three options of
//! rules version 5 that play a second reading, each replayed from its seed and
//! checked for leaked secrets (the advisor deck, groupings and the river market's demand
//! deck); and the refusal of options that do not combine.

use serde_json::{json, Value};

use crate::driver::{assert_replays_from_seed, uniform, GameDriver};
use crate::on_both_backends;
use crate::util::{Player, TestApp};

/// The problem with which creating a two-player game with `options` is refused.
async fn refused_options(app: &TestApp, creator: &Player, options: Value) -> Value {
    app.post(
        creator,
        "/v1/games",
        &json!({"kind": "eternal_palace", "seats": 2, "options": options}),
    )
    .await
    .expect_problem(422, "invalid_options")
}

async fn players(app: &TestApp, count: usize) -> (Vec<Player>, Player) {
    let names = ["red", "blue", "green", "yellow", "purple"];
    let mut players = Vec::new();
    for name in &names[..count] {
        players.push(app.register(name).await);
    }
    let spectator = app.register("watcher").await;
    (players, spectator)
}

/// Plays a whole game with `options` and checks what every module game must show: it
/// finished under the newest rules version (5) with those options, replays from its seed, leaked nothing,
/// and its log holds each of `event_types`.
async fn play_module_game(
    app: &TestApp,
    seats: usize,
    options: Value,
    seed: u64,
    event_types: &[&str],
) -> Value {
    let (players, spectator) = players(app, seats).await;
    let id = app
        .new_game("eternal_palace", options.clone(), &players)
        .await;
    let mut driver = GameDriver::new(app, &players, &spectator);
    let finished = driver.play(&id, seed, uniform, 10, 8_000).await;
    assert_eq!(finished.summary["status"], "finished");
    assert_eq!(
        finished.summary["outcome"]["scores"]
            .as_array()
            .unwrap()
            .len(),
        seats
    );
    let export = finished.export.clone();
    assert_eq!(export["options"], options);
    assert_eq!(export["rules_version"], 6);
    let types: Vec<&str> = export["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|event| event["payload"]["type"].as_str())
        .collect();
    for wanted in event_types {
        assert!(types.contains(wanted), "no {wanted} event in the game");
    }
    assert_replays_from_seed(&export);
    let checked = driver.assert_no_secret_leaked(&finished);
    assert!(checked > 100, "the leak check had secrets to look for");
    export
}

async fn a_labyrinth_game_with_privileges(app: &TestApp) {
    play_module_game(
        app,
        4,
        json!({"privileges": true, "labyrinth": true}),
        31,
        &["game_set_up", "dice_placed"],
    )
    .await;
}

async fn a_river_market_game(app: &TestApp) {
    let export = play_module_game(
        app,
        4,
        json!({"privileges": false, "river_market": true}),
        32,
        &["demand_deck_shuffled", "demand_revealed"],
    )
    .await;
    // the omniscient export holds the shuffled order; no viewer's log did (checked above)
    let shuffled = export["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|event| event["payload"]["type"] == "demand_deck_shuffled")
        .unwrap();
    assert_eq!(
        shuffled["payload"]["deck"].as_array().map(Vec::len),
        Some(12)
    );
}

async fn a_compositions_game_with_privileges(app: &TestApp) {
    play_module_game(
        app,
        3,
        json!({"privileges": true, "compositions": true}),
        33,
        &["compositions_dealt"],
    )
    .await;
}

async fn a_game_with_all_five_location_tiles(app: &TestApp) {
    play_module_game(
        app,
        3,
        json!({
            "privileges": true,
            "location_tiles": ["fish_market", "academy", "temple", "palace_market", "eternal_bridge"]
        }),
        34,
        &["game_set_up"],
    )
    .await;
}

/// The other reading of "Das Labyrinth kann mit einem einzelnen Würfel besucht werden"
/// (`any_group_at_module_locations`): whole games in which groups of two or more dice visit
/// the labyrinth. Whether a random player sends one there depends on the server's dice, so a
/// few games are played until one did.
async fn a_labyrinth_game_where_any_group_visits(app: &TestApp) {
    let options = json!({"privileges": false, "labyrinth": true,
                         "any_group_at_module_locations": true});
    for attempt in 0..4 {
        let export =
            play_module_game(app, 3, options.clone(), 35 + attempt, &["dice_placed"]).await;
        let group_visits = export["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|event| &event["payload"])
            .filter(|payload| {
                payload["type"] == "dice_placed" && payload["location"] == "labyrinth"
            })
            .filter(|payload| {
                payload["pips"]
                    .as_array()
                    .is_some_and(|pips| pips.len() > 1)
            })
            .count();
        if group_visits > 0 {
            return;
        }
    }
    panic!("four games with any_group_at_module_locations and no group in the labyrinth");
}

/// The three options of rules version 5 together (EP-R10 to EP-R12), in a whole river market
/// game: every decoration token taken counts two decorations in the final view, and a demand
/// card's reward goes to the seat that filled it alone. Without the river market the
/// reward's option is refused at creation.
async fn a_river_market_game_with_the_second_readings(app: &TestApp) {
    let options = json!({"privileges": false, "river_market": true, "two_decorations": true,
                         "demand_reward_only_to_filler": true, "academy_hire_compulsory": true});
    let export = play_module_game(app, 3, options, 36, &["decoration_taken"]).await;
    let events: Vec<&Value> = export["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| &event["payload"])
        .collect();
    let mut tokens = [0i64; 3];
    let mut filler = None;
    let mut settled = 0;
    for payload in &events {
        match payload["type"].as_str().unwrap_or_default() {
            "decoration_taken" => tokens[payload["seat"].as_u64().unwrap() as usize] += 1,
            "demand_fulfilled" => filler = payload["seat"].as_u64(),
            "demand_settled" => {
                filler = None;
                settled += 1;
            }
            "goods_changed" if payload["reason"] == "demand_reward" => {
                assert_eq!(payload["seat"].as_u64(), filler, "{payload}");
            }
            _ => {}
        }
    }
    assert!(settled > 0, "no demand card was filled");
    let onlooker = app.register("onlooker").await;
    let view = app
        .get(
            &onlooker,
            &format!("/v1/games/{}/view", export["game_id"].as_str().unwrap()),
        )
        .await
        .expect_status(200)
        .json();
    for (seat, player) in view["view"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert_eq!(
            player["decorations"].as_i64(),
            Some(2 * tokens[seat]),
            "seat {seat}"
        );
    }
    let problem = refused_options(
        app,
        &onlooker,
        json!({"labyrinth": true, "demand_reward_only_to_filler": true}),
    )
    .await;
    assert!(
        problem["detail"].as_str().unwrap().contains("river_market"),
        "{problem}"
    );
}

/// `any_group_at_module_locations` changes only the labyrinth and the river market: without
/// either it is refused at creation, and the game kinds describe it.
async fn any_group_needs_a_module_location(app: &TestApp) {
    let (players, _) = players(app, 2).await;
    for options in [
        json!({"any_group_at_module_locations": true}),
        json!({"any_group_at_module_locations": true, "compositions": true}),
    ] {
        let problem = refused_options(app, &players[0], options).await;
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains("labyrinth and the river market"),
            "{detail}"
        );
    }
    let id = app
        .new_game(
            "eternal_palace",
            json!({"river_market": true, "any_group_at_module_locations": true}),
            &players,
        )
        .await;
    let summary = app
        .get(&players[0], &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(
        summary["options"],
        json!({"privileges": false, "river_market": true, "any_group_at_module_locations": true})
    );
    let view = app
        .get(&players[0], &format!("/v1/games/{id}/view"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(
        view["view"]["any_group_at_module_locations"], true,
        "{view}"
    );
}

/// "Labyrinth, Fluss-Markt und Kompositionen können nicht miteinander kombiniert werden":
/// creating such a game is refused with 422 `invalid_options`; one module with privileges
/// and tiles is fine, and the game kinds list rules version 3.
async fn modules_that_do_not_combine_are_refused(app: &TestApp) {
    let (players, _) = players(app, 2).await;
    for options in [
        json!({"labyrinth": true, "river_market": true}),
        json!({"labyrinth": true, "compositions": true}),
        json!({"river_market": true, "compositions": true, "privileges": true}),
    ] {
        let problem = refused_options(app, &players[0], options).await;
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("cannot be combined"),
            "{problem}"
        );
    }
    let problem = refused_options(
        app,
        &players[0],
        json!({"location_tiles": ["temple", "temple"]}),
    )
    .await;
    assert_eq!(
        problem["detail"],
        "location_tiles names \"temple\" (the Temple tile) twice; choose each tile at most once"
    );
    app.post(
        &players[0],
        "/v1/games",
        &json!({"kind": "eternal_palace", "seats": 2,
                "options": {"compositions": true, "privileges": true,
                            "location_tiles": ["academy"]}}),
    )
    .await
    .expect_status(201);
    let kinds = app
        .get(&players[0], "/v1/game-kinds")
        .await
        .expect_status(200)
        .json();
    let text = kinds.to_string();
    assert!(
        text.contains("2026-11-24") && text.contains("labyrinth"),
        "{text}"
    );
}

/// Options a client sends at their default, as a generated model does, are accepted for
/// every kind and shown as the game's options without them (they change nothing); an
/// unknown option is still refused.
async fn options_at_their_default_are_accepted(app: &TestApp) {
    let (players, _) = players(app, 2).await;
    for (kind, options, normal) in [
        (
            "eternal_palace",
            json!({"privileges": false, "labyrinth": false, "river_market": false,
                   "compositions": false, "location_tiles": [],
                   "any_group_at_module_locations": false}),
            json!({"privileges": false}),
        ),
        (
            "java",
            json!({"play_on_when_no_tile_fits": false}),
            json!({}),
        ),
        (
            "eternal_palace",
            json!({"river_market": true, "labyrinth": false, "compositions": false,
                   "any_group_at_module_locations": false}),
            json!({"privileges": false, "river_market": true}),
        ),
    ] {
        let created = app
            .post(
                &players[0],
                "/v1/games",
                &json!({"kind": kind, "seats": 2, "options": options}),
            )
            .await
            .expect_status(201)
            .json();
        assert_eq!(created["options"], normal, "{kind}: {options}");
    }
    let problem =
        refused_options(app, &players[0], json!({"labyrinth": false, "maze": true})).await;
    assert!(
        problem["detail"].as_str().unwrap().contains("maze"),
        "{problem}"
    );
}

on_both_backends!(
    options_at_their_default_are_accepted,
    a_labyrinth_game_with_privileges,
    a_river_market_game,
    a_compositions_game_with_privileges,
    a_game_with_all_five_location_tiles,
    a_labyrinth_game_where_any_group_visits,
    a_river_market_game_with_the_second_readings,
    any_group_needs_a_module_location,
    modules_that_do_not_combine_are_refused
);
