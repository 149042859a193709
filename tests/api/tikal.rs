use serde_json::json;

use crate::driver::{assert_replays_from_seed, uniform, GameDriver};
use crate::on_both_backends;
use crate::util::TestApp;

async fn play_tikal(app: &TestApp, seats: usize, options: serde_json::Value, seed: u64) {
    let names = ["red", "blue", "yellow", "green"];
    let mut players = Vec::new();
    for name in &names[..seats] {
        players.push(app.register(name).await);
    }
    let spectator = app.register("watcher").await;
    let id = app.new_game("tikal", options.clone(), &players).await;
    let mut driver = GameDriver::new(app, &players, &spectator);
    let finished = driver.play(&id, seed, uniform, 25, 5_000).await;

    assert_eq!(finished.summary["status"], "finished");
    assert_eq!(finished.summary["to_act"], json!([]));
    let outcome = &finished.summary["outcome"];
    assert_eq!(outcome["scores"].as_array().unwrap().len(), seats);
    assert!(outcome["places"].as_array().unwrap().contains(&json!(1)));
    assert!(
        finished.actions_posted > 36,
        "every hex was placed by some action"
    );

    let export = &finished.export;
    assert_eq!(export["format"], "turnpost-game");
    assert_eq!(export["kind"], "tikal");
    assert_eq!(
        export["options"]["auction"],
        options["auction"].as_bool().unwrap_or(false)
    );
    let events = export["events"].as_array().unwrap();
    assert_eq!(
        events.len() as i64,
        finished.summary["current_seq"].as_i64().unwrap()
    );
    assert!(events
        .iter()
        .all(|event| !event["text"].as_str().unwrap().is_empty()));
    assert_eq!(
        events[0]["seat"],
        json!(null),
        "opening events belong to no seat"
    );
    assert_replays_from_seed(export);

    let checked = driver.assert_no_secret_leaked(&finished);
    assert!(
        checked > 1000,
        "the leak check had hidden hexes and treasures to look for"
    );

    // The view at any past seq is the fold up to that seq.
    let midway = finished.summary["current_seq"].as_i64().unwrap() / 2;
    let past = app
        .get(&players[0], &format!("/v1/games/{id}/view?at={midway}"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(past["seq"], midway);
    assert_eq!(past["finished"], false);
    let at_zero = app
        .get(&spectator, &format!("/v1/games/{id}/view?at=0"))
        .await
        .expect_status(200);
    assert_eq!(at_zero.json()["viewer_seat"], json!(null));
}

async fn a_full_three_player_basic_game(app: &TestApp) {
    play_tikal(app, 3, json!({}), 3).await;
}

async fn a_full_four_player_auction_game(app: &TestApp) {
    play_tikal(app, 4, json!({"auction": true}), 4).await;
}

on_both_backends!(
    a_full_three_player_basic_game,
    a_full_four_player_auction_game
);
