//! Ratings per kind: rated games move them, unrated games and bots do not, leaderboards and
//! histories show them, and a rebuild from the finished games gets the same numbers.

use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::{Player, TestApp};

on_both_backends!(rated_games_move_ratings_and_a_rebuild_agrees);

/// Creates a game of `kind` with `settings`, seats `players` in order, and has the players
/// in `resigning` resign in that order (bots may move in between: a stale seq is tried
/// again). Returns the game's summary after.
async fn played(
    app: &TestApp,
    mut settings: Value,
    players: &[&Player],
    resigning: &[&Player],
) -> Value {
    settings["seats"] = json!(players.len() + settings["bots"].as_array().map_or(0, Vec::len));
    let created = app
        .post(players[0], "/v1/games", &settings)
        .await
        .expect_status(201)
        .json();
    let id = created["id"].as_str().unwrap().to_owned();
    for player in &players[1..] {
        app.post(player, &format!("/v1/games/{id}/seats"), &json!({}))
            .await
            .expect_status(200);
    }
    for player in resigning {
        loop {
            let answer = app
                .post(player, &format!("/v1/games/{id}/resign"), &json!({}))
                .await;
            if answer.status == 409 && answer.json()["code"] == "stale_seq" {
                continue;
            }
            answer.expect_status(200);
            break;
        }
    }
    app.get(players[0], &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json()
}

async fn board(app: &TestApp, player: &Player, kind: &str) -> Value {
    app.get(player, &format!("/v1/leaderboards/{kind}"))
        .await
        .expect_status(200)
        .json()
}

async fn ratings_of(app: &TestApp, player: &Player, name: &str) -> Value {
    app.get(player, &format!("/v1/accounts/{name}/ratings"))
        .await
        .expect_status(200)
        .json()
}

async fn rated_games_move_ratings_and_a_rebuild_agrees(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;

    // Tikal: Bob resigns, Alice wins.
    let tikal = played(app, json!({"kind": "tikal"}), &[&alice, &bob], &[&bob]).await;
    assert_eq!(tikal["rated"], true, "rated unless asked otherwise");
    assert_eq!(tikal["outcome"]["places"], json!([1, 2]));
    // Java with three: Carol and then Alice resign, Bob wins; they share the last place.
    let java = played(
        app,
        json!({"kind": "java"}),
        &[&alice, &bob, &carol],
        &[&carol, &alice],
    )
    .await;
    assert_eq!(java["status"], "finished");
    assert_eq!(java["outcome"]["places"], json!([2, 1, 2]));
    // Neither an unrated game nor one against a bot counts.
    let unrated = played(
        app,
        json!({"kind": "tikal", "rated": false}),
        &[&carol, &alice],
        &[&alice],
    )
    .await;
    assert_eq!(unrated["rated"], false);
    played(
        app,
        json!({"kind": "tikal", "bots": [{"seat": 1, "strategy": "random"}]}),
        &[&carol],
        &[&carol],
    )
    .await;

    let tikal_board = board(app, &carol, "tikal").await;
    let names: Vec<&str> = tikal_board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["account"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice", "bob"], "{tikal_board}");
    let first = &tikal_board["players"][0];
    assert_eq!(first["rank"], 1);
    assert_eq!(first["rating"]["games"], 1);
    let rating = first["rating"]["rating"].as_f64().unwrap();
    let uncertainty = first["rating"]["uncertainty"].as_f64().unwrap();
    assert!(rating > 25.0 && uncertainty < 25.0 / 3.0, "{first}");
    let conservative = first["rating"]["conservative"].as_f64().unwrap();
    assert!((conservative - (rating - 3.0 * uncertainty)).abs() < 1e-9);
    let loser = tikal_board["players"][1]["rating"]["rating"]
        .as_f64()
        .unwrap();
    assert!(loser < 25.0);

    let java_board = board(app, &alice, "java").await;
    assert_eq!(java_board["players"][0]["account"]["name"], "bob");
    let shared: Vec<f64> = java_board["players"].as_array().unwrap()[1..]
        .iter()
        .map(|entry| entry["rating"]["rating"].as_f64().unwrap())
        .collect();
    assert!(
        (shared[0] - shared[1]).abs() < 1e-9,
        "a shared place is a tie"
    );

    let alices = ratings_of(app, &bob, "ALICE").await;
    assert_eq!(alices["name"], "alice");
    let kinds: Vec<&str> = alices["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rating| rating["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["java", "tikal"]);
    let history = alices["history"].as_array().unwrap();
    assert_eq!(
        history.len(),
        2,
        "unrated games leave no trace: {history:?}"
    );
    assert_eq!(history[0]["game_id"], java["id"]);
    assert_eq!(history[0]["place"], 2);
    assert_eq!(history[1]["game_id"], tikal["id"]);
    assert_eq!(history[1]["rating_before"], 25.0);
    assert_eq!(history[1]["rating_after"], rating);
    for missing in ["nobody", "bad%00name", "%F0%9F%8E%B2"] {
        app.get(&bob, &format!("/v1/accounts/{missing}/ratings"))
            .await
            .expect_problem(404, "account_not_found");
    }
    for unknown in ["chess", "%C2%99%14aJ"] {
        app.get(&bob, &format!("/v1/leaderboards/{unknown}"))
            .await
            .expect_problem(404, "game_kind_not_found");
    }
    app.get(&bob, "/v1/leaderboards/tikal?limit=0")
        .await
        .expect_problem(400, "invalid_query");
    let second_page = app
        .get(&bob, "/v1/leaderboards/tikal?limit=1&offset=1")
        .await
        .expect_status(200)
        .json();
    assert_eq!(second_page["players"][0]["rank"], 2);
    let far = app
        .get(&bob, "/v1/leaderboards/tikal?offset=9223372036854775807")
        .await
        .expect_status(200)
        .json();
    assert_eq!(far["players"], json!([]));
    assert_eq!(second_page["players"][0]["account"]["name"], "bob");

    // The ratings are the finished rated games' alone: spoil them, and the rebuild
    // command counts the games again to the same numbers.
    let before = (
        tikal_board.clone(),
        java_board.clone(),
        ratings_of(app, &bob, "alice").await,
    );
    app.execute_sql("UPDATE ratings SET rating = 0, uncertainty = 1, conservative = -3");
    app.execute_sql("DELETE FROM rating_changes");
    assert_ne!(board(app, &bob, "tikal").await, before.0);
    let rebuilt = std::process::Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .args(["--database-url", app.database_url(), "rebuild-ratings"])
        .output()
        .expect("the server binary runs");
    assert!(
        rebuilt.status.success(),
        "{}",
        String::from_utf8_lossy(&rebuilt.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&rebuilt.stdout).trim(),
        "ratings rebuilt from 2 rated games"
    );
    let after = (
        board(app, &bob, "tikal").await,
        board(app, &bob, "java").await,
        ratings_of(app, &bob, "alice").await,
    );
    assert_eq!(after, before);
}
