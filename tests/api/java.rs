use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use crate::driver::{assert_replays_from_seed, GameDriver};
use crate::on_both_backends;
use crate::util::TestApp;

/// Weighs actions by kind so that a random game builds cities, brings developers into
/// them, holds festivals and ends: otherwise thousands of tile placements drown the rest.
pub fn festive(actions: &[Value], view: &Value, rng: &mut ChaCha8Rng) -> usize {
    let city_spaces: Vec<&Value> = view["settlements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|settlement| !settlement["palace"].is_null())
        .flat_map(|settlement| settlement["spaces"].as_array().unwrap())
        .collect();
    let into_city = |action: &Value| {
        matches!(
            action["type"].as_str(),
            Some("enter_developer" | "move_developer")
        ) && city_spaces.contains(&&action["to"])
    };
    let weight = |action: &Value| match (action["type"].as_str(), action["tile"].as_str()) {
        _ if into_city(action) => 6.0,
        (Some("place_tile"), Some("three_space")) => 6.0,
        (Some("place_tile"), _) => 1.0,
        (Some("hold_festival"), _) => 8.0,
        (Some("build_palace" | "raise_palace"), _) => 6.0,
        (Some("enter_developer"), _) => 3.0,
        (Some("move_developer"), _) => 2.0,
        (Some("bid"), _) => 6.0,
        (Some("agree" | "buy_card"), _) => 2.0,
        (Some("end_turn"), _) => 1.5,
        (Some("pass"), _) => 0.5,
        _ => 0.3,
    };
    // Pick a kind by its weight, then one action of that kind uniformly.
    let mut kinds: Vec<(String, f64, Vec<usize>)> = Vec::new();
    for (index, action) in actions.iter().enumerate() {
        let key = format!(
            "{}/{}/{}",
            action["type"],
            action["tile"],
            into_city(action)
        );
        match kinds.iter_mut().find(|(k, _, _)| *k == key) {
            Some(kind) => kind.2.push(index),
            None => kinds.push((key, weight(action), vec![index])),
        }
    }
    let total: f64 = kinds.iter().map(|kind| kind.1).sum();
    let mut pick = rng.gen_range(0.0..total);
    for (_, weight, members) in &kinds {
        if pick < *weight {
            return members[rng.gen_range(0..members.len())];
        }
        pick -= weight;
    }
    let last = &kinds.last().unwrap().2;
    last[rng.gen_range(0..last.len())]
}

/// Whether some festival saw another player raise against the one who called it.
fn had_contested_festival(export: &Value) -> bool {
    let mut open_festival: Option<Value> = None;
    for event in export["events"].as_array().unwrap() {
        let payload = &event["payload"];
        match payload["type"].as_str() {
            Some("festival_started") => open_festival = Some(event["seat"].clone()),
            Some("bid_placed")
                if open_festival
                    .as_ref()
                    .is_some_and(|host| *host != event["seat"]) =>
            {
                return true
            }
            Some("festival_ended") => open_festival = None,
            _ => {}
        }
    }
    false
}

async fn a_full_three_player_game_with_a_contested_festival(app: &TestApp) {
    let players = vec![
        app.register("red").await,
        app.register("blue").await,
        app.register("yellow").await,
    ];
    let spectator = app.register("watcher").await;
    // Whether anyone else can bid depends on the server's secret shuffle, so play until a
    // festival was contested; with these weights about half the games have one, so sixteen
    // games without one would mean the bidding is broken.
    for attempt in 0..16 {
        let id = app.new_game("java", json!({}), &players).await;
        let mut driver = GameDriver::new(app, &players, &spectator);
        let finished = driver.play(&id, 40 + attempt, festive, 40, 5_000).await;
        assert_eq!(finished.summary["status"], "finished");
        assert_eq!(
            finished.summary["outcome"]["scores"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        assert_replays_from_seed(&finished.export);
        let checked = driver.assert_no_secret_leaked(&finished);
        assert!(
            checked > 100,
            "the leak check had hands and the deck to look for"
        );
        if had_contested_festival(&finished.export) {
            eprintln!("contested festival in game {}", attempt + 1);
            return;
        }
    }
    panic!("sixteen Java games over HTTP without a contested festival");
}

/// The option `play_on_when_no_tile_fits` over HTTP: a whole four-player game with it
/// finishes, keeps its options in the summary and the export, shows them in the view, and
/// replays from its seed.
async fn a_whole_game_playing_on_when_no_tile_fits(app: &TestApp) {
    let players = vec![
        app.register("red").await,
        app.register("blue").await,
        app.register("yellow").await,
        app.register("green").await,
    ];
    let spectator = app.register("watcher").await;
    let options = json!({"play_on_when_no_tile_fits": true});
    let id = app.new_game("java", options.clone(), &players).await;
    let view = app
        .get(&spectator, &format!("/v1/games/{id}/view"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(view["view"]["play_on_when_no_tile_fits"], true, "{view}");
    assert_eq!(view["view"]["turns_without_tile"], 0);
    let mut driver = GameDriver::new(app, &players, &spectator);
    let finished = driver.play(&id, 77, festive, 40, 8_000).await;
    assert_eq!(finished.summary["status"], "finished");
    assert_eq!(finished.summary["options"], options);
    assert_eq!(finished.export["options"], options);
    assert_eq!(finished.export["rules_version"], 4);
    assert_replays_from_seed(&finished.export);
}

on_both_backends!(
    a_full_three_player_game_with_a_contested_festival,
    a_whole_game_playing_on_when_no_tile_fits
);

/// A UI asks what a click can mean: the legal actions naming one space, or laying one tile
/// kind, are exactly those of the whole list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_actions_filter_by_space_and_tile_kind() {
    let app = crate::util::TestApp::start(crate::util::Backend::Sqlite).await;
    let players = [app.register("alice").await, app.register("bob").await];
    let id = app.new_game("java", json!({}), &players).await;
    let path = format!("/v1/games/{id}/legal-actions");
    let all = app.get(&players[0], &path).await.json()["actions"]
        .as_array()
        .unwrap()
        .clone();
    // An oracle of its own, not the server's function, so the test checks that one.
    fn names(value: &Value, name: &str) -> bool {
        match value {
            Value::String(text) => text == name,
            Value::Array(items) => items.iter().any(|item| names(item, name)),
            Value::Object(fields) => fields.values().any(|field| names(field, name)),
            _ => false,
        }
    }
    let space = all[all.len() / 2]["space"].as_str().unwrap().to_owned();
    for (query, keep) in [
        (
            format!("?space={space}"),
            Box::new(|action: &Value| names(action, &space)) as Box<dyn Fn(&Value) -> bool>,
        ),
        (
            "?tile=two_space".to_owned(),
            Box::new(|action: &Value| action["tile"] == "two_space"),
        ),
        (
            format!("?type=place_tile&tile=three_space&space={space}"),
            Box::new(|action: &Value| {
                action["type"] == "place_tile"
                    && action["tile"] == "three_space"
                    && names(action, &space)
            }),
        ),
    ] {
        let filtered = app.get(&players[0], &format!("{path}{query}")).await.json()["actions"]
            .as_array()
            .unwrap()
            .clone();
        let expected: Vec<Value> = all.iter().filter(|action| keep(action)).cloned().collect();
        assert!(!expected.is_empty(), "{query} keeps something");
        assert!(expected.len() < all.len(), "{query} leaves something out");
        assert_eq!(filtered, expected, "{query}");
    }
    let nothing = app
        .get(&players[0], &format!("{path}?space=Z99"))
        .await
        .json();
    assert_eq!(nothing["actions"], json!([]));
}
