use serde_json::json;

use crate::driver::{assert_replays_from_seed, uniform, GameDriver};
use crate::on_both_backends;
use crate::util::TestApp;

async fn a_full_four_player_game_with_privileges(app: &TestApp) {
    let players = vec![
        app.register("red").await,
        app.register("blue").await,
        app.register("green").await,
        app.register("yellow").await,
    ];
    let spectator = app.register("watcher").await;
    let id = app
        .new_game("eternal_palace", json!({"privileges": true}), &players)
        .await;
    let mut driver = GameDriver::new(app, &players, &spectator);
    let finished = driver.play(&id, 5, uniform, 10, 5_000).await;
    assert_eq!(finished.summary["status"], "finished");
    assert_eq!(
        finished.summary["outcome"]["scores"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    let export = &finished.export;
    assert_eq!(export["options"], json!({"privileges": true}));
    assert_replays_from_seed(export);
    let checked = driver.assert_no_secret_leaked(&finished);
    assert!(
        checked > 100,
        "the leak check had groupings and the deck to look for"
    );
}

/// Before every seat has submitted its grouping, no route shows one seat's grouping to
/// another seat or to a spectator.
async fn groupings_stay_hidden_until_everyone_submitted(app: &TestApp) {
    let players = vec![
        app.register("red").await,
        app.register("blue").await,
        app.register("green").await,
    ];
    let spectator = app.register("watcher").await;
    let id = app.new_game("eternal_palace", json!({}), &players).await;
    let summary = app
        .get(&players[0], &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json();
    let mut waiting: Vec<usize> = serde_json::from_value(summary["to_act"].clone()).unwrap();
    assert_eq!(
        waiting.len(),
        3,
        "grouping is simultaneous: every seat must act"
    );
    waiting.sort();
    let first = waiting[0];
    let legal = app
        .get(&players[first], &format!("/v1/games/{id}/legal-actions"))
        .await
        .expect_status(200)
        .json();
    let grouping = legal["actions"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(grouping["type"], "group_dice");
    app.post(
        &players[first],
        &format!("/v1/games/{id}/actions"),
        &json!({"expected_seq": legal["seq"], "action": grouping}),
    )
    .await
    .expect_status(200);
    let summary = app
        .get(&players[0], &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json();
    let still: Vec<usize> = serde_json::from_value(summary["to_act"].clone()).unwrap();
    assert!(!still.contains(&first) && still.len() == 2, "{summary}");
    let groups = grouping["groups"].to_string();
    // The engine records a submitted grouping in sealed form, "r<round>s<seat>:<groups>".
    let sealed = format!("\"r1s{first}:");
    let others = players
        .iter()
        .enumerate()
        .filter(|(seat, _)| *seat != first)
        .map(|(_, p)| p);
    for viewer in others.chain([&spectator]) {
        for path in ["view", "events", "export", "legal-actions"] {
            let body = app
                .get(viewer, &format!("/v1/games/{id}/{path}"))
                .await
                .expect_status(200)
                .text;
            // A viewer's own legal actions list every grouping of its own dice, which may
            // by chance be the same as the hidden one; only the sealed form tells there.
            let shows_groups =
                path != "legal-actions" && body.contains(&format!("\"groups\":{groups}"));
            assert!(
                !shows_groups && !body.contains(&sealed),
                "{path} shows the hidden grouping {groups}: {body}"
            );
        }
    }
    let own = app
        .get(&players[first], &format!("/v1/games/{id}/events"))
        .await
        .expect_status(200)
        .text;
    assert!(
        own.contains(&sealed),
        "the submitting seat sees its own grouping: {own}"
    );
}

on_both_backends!(
    a_full_four_player_game_with_privileges,
    groupings_stay_hidden_until_everyone_submitted
);
