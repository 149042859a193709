//! Ratings per kind: rated games move them, unrated games, bots, games resigned before they
//! were played and a pair's games beyond the day's cap do not, leaderboards (from 5 games)
//! and histories show them, and a rebuild from the finished games gets the same numbers.

use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::{Player, TestApp};

on_both_backends!(rated_games_move_ratings_and_a_rebuild_agrees);

/// Creates a game of `kind` with `settings`, seats `players` in order, plays first legal
/// actions until each of them made `actions_each` actions of their own, and has the players
/// in `resigning` resign in that order (bots may move in between: a stale seq is tried
/// again). Returns the game's summary after.
pub(crate) async fn played(
    app: &TestApp,
    mut settings: Value,
    players: &[&Player],
    actions_each: usize,
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
    let seated: Vec<Player> = players.iter().map(|player| (*player).clone()).collect();
    let mut made = vec![0; players.len()];
    while made.iter().any(|made| *made < actions_each) {
        let seat = app.seat_to_act(&seated, &id).await;
        app.play_first_legal_action(&seated, &id).await;
        made[seat] += 1;
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

/// Tikal asks for 6 actions of each person, Java for 8 (`rated_after_actions`).
const TIKAL_ACTIONS: usize = 6;
const JAVA_ACTIONS: usize = 8;

async fn rated_games_move_ratings_and_a_rebuild_agrees(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let dave = app.register("dave").await;
    let kinds = app
        .get(&alice, "/v1/game-kinds")
        .await
        .expect_status(200)
        .json();
    assert_eq!(kinds[0]["kind"], "tikal");
    assert_eq!(kinds[0]["rated_after_actions"], TIKAL_ACTIONS);
    let tikal = json!({"kind": "tikal"});

    // Tikal: Bob resigns, Alice wins.
    let first = played(app, tikal.clone(), &[&alice, &bob], TIKAL_ACTIONS, &[&bob]).await;
    assert_eq!(first["rated"], true, "rated unless asked otherwise");
    assert_eq!(first["outcome"]["places"], json!([1, 2]));
    let after_one = ratings_of(app, &bob, "alice").await;
    let rating = after_one["ratings"][0]["rating"].as_f64().unwrap();
    let uncertainty = after_one["ratings"][0]["uncertainty"].as_f64().unwrap();
    assert!(rating > 25.0 && uncertainty < 25.0 / 3.0, "{after_one}");
    let conservative = after_one["ratings"][0]["conservative"].as_f64().unwrap();
    assert!((conservative - (rating - 3.0 * uncertainty)).abs() < 1e-9);
    let bobs = ratings_of(app, &alice, "bob").await;
    assert!(bobs["ratings"][0]["rating"].as_f64().unwrap() < 25.0);

    // Java with three: Carol and then Alice resign, Bob wins; they share the last place.
    let java = played(
        app,
        json!({"kind": "java"}),
        &[&alice, &bob, &carol],
        JAVA_ACTIONS,
        &[&carol, &alice],
    )
    .await;
    assert_eq!(java["status"], "finished");
    assert_eq!(java["outcome"]["places"], json!([2, 1, 2]));
    let java_rating = |ratings: Value| {
        ratings["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|rating| rating["kind"] == "java")
            .map(|rating| rating["rating"].as_f64().unwrap())
            .unwrap()
    };
    let shared = (
        java_rating(ratings_of(app, &bob, "alice").await),
        java_rating(ratings_of(app, &bob, "carol").await),
    );
    assert!(
        (shared.0 - shared.1).abs() < 1e-9,
        "a shared place is a tie"
    );
    assert!(java_rating(ratings_of(app, &alice, "bob").await) > 25.0);

    // One more against Bob counts: it is their third game together today, the Java game
    // among them; a fourth does not, for either of them.
    let second = played(app, tikal.clone(), &[&alice, &bob], TIKAL_ACTIONS, &[&bob]).await;
    let mut counted_tikal = vec![first["id"].clone(), second["id"].clone()];
    let bob_before = ratings_of(app, &alice, "bob").await;
    let capped = played(app, tikal.clone(), &[&alice, &bob], TIKAL_ACTIONS, &[&bob]).await;
    assert_eq!(capped["status"], "finished");
    assert_eq!(
        ratings_of(app, &alice, "bob").await,
        bob_before,
        "the pair's fourth"
    );
    // Each other pair has its own cap: Carol (who played the Java game too) and Dave.
    for (opponent, games) in [(&carol, 2), (&dave, 1)] {
        for _ in 0..games {
            let game = played(
                app,
                tikal.clone(),
                &[&alice, opponent],
                TIKAL_ACTIONS,
                &[opponent],
            )
            .await;
            counted_tikal.push(game["id"].clone());
        }
    }

    // Neither a game resigned before it was played, nor an unrated one, nor one against a
    // bot counts.
    let alice_before = ratings_of(app, &bob, "alice").await;
    let instant = played(app, tikal.clone(), &[&alice, &dave], 0, &[&dave]).await;
    assert_eq!(instant["rated"], true);
    assert_eq!(instant["status"], "finished");
    let short = played(app, tikal.clone(), &[&dave, &alice], 2, &[&alice]).await;
    assert_eq!(short["status"], "finished");
    let unrated = played(
        app,
        json!({"kind": "tikal", "rated": false}),
        &[&carol, &alice],
        TIKAL_ACTIONS,
        &[&alice],
    )
    .await;
    assert_eq!(unrated["rated"], false);
    played(
        app,
        json!({"kind": "tikal", "bots": [{"seat": 1, "strategy": "random"}]}),
        &[&carol],
        0,
        &[&carol],
    )
    .await;
    assert_eq!(ratings_of(app, &bob, "alice").await, alice_before);
    assert_eq!(
        ratings_of(app, &bob, "dave").await["ratings"][0]["games"],
        1
    );

    // Alice has 5 rated Tikal games and is on the leaderboard; Bob (2), Carol (2) and Dave
    // (1) are not yet.
    let tikal_board = board(app, &carol, "tikal").await;
    let names: Vec<&str> = tikal_board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["account"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice"], "{tikal_board}");
    assert_eq!(tikal_board["players"][0]["rank"], 1);
    assert_eq!(tikal_board["players"][0]["rating"]["games"], 5);
    assert_eq!(tikal_board["players"][0]["rating"]["provisional"], false);
    assert_eq!(tikal_board["minimum_games"], 5);
    assert_eq!(
        tikal_board["you"],
        Value::Null,
        "Carol has 2 games: not on the board"
    );
    let alices_board = board(app, &alice, "tikal").await;
    assert_eq!(
        alices_board["you"], alices_board["players"][0],
        "{alices_board}"
    );
    let java_board = board(app, &alice, "java").await;
    assert_eq!(java_board["players"], json!([]), "one game is too few");

    let alices = ratings_of(app, &bob, "ALICE").await;
    assert_eq!(alices["name"], "alice");
    let kinds: Vec<&str> = alices["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rating| rating["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["java", "tikal"]);
    assert_eq!(alices["ratings"][0]["provisional"], true, "one Java game");
    assert_eq!(
        alices["ratings"][1]["provisional"], false,
        "five Tikal games"
    );
    let history: Vec<Value> = alices["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|change| change["game_id"].clone())
        .collect();
    let mut expected: Vec<Value> = counted_tikal[1..].iter().rev().cloned().collect();
    expected.push(java["id"].clone());
    expected.push(first["id"].clone());
    assert_eq!(history, expected, "games that do not count leave no trace");
    let oldest = &alices["history"][5];
    assert_eq!(oldest["rating_before"], 25.0);
    assert_eq!(oldest["rating_after"], rating);
    assert_eq!(alices["history"][4]["place"], 2);
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
    assert_eq!(second_page["players"], json!([]));
    let far = app
        .get(&bob, "/v1/leaderboards/tikal?offset=9223372036854775807")
        .await
        .expect_status(200)
        .json();
    assert_eq!(far["players"], json!([]));

    // The ratings are the finished rated games' alone: spoil them, and the rebuild
    // command counts the games again to the same numbers. A game counted under earlier
    // rules (here: the one Dave resigned at once) is left out by today's, and so is a
    // pair's fourth game of the day.
    let before = (
        tikal_board.clone(),
        java_board.clone(),
        ratings_of(app, &bob, "alice").await,
    );
    app.execute_sql("UPDATE ratings SET rating = 0, uncertainty = 1, conservative = -3");
    app.execute_sql("DELETE FROM rating_changes");
    for (order, game) in [(1000, &instant), (1001, &capped)] {
        app.execute_sql(&format!(
            "UPDATE game_settings SET rating_order = {order} WHERE game_id = '{}'",
            game["id"].as_str().unwrap()
        ));
    }
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
        "ratings rebuilt from 6 rated games"
    );
    let after = (
        board(app, &bob, "tikal").await,
        board(app, &bob, "java").await,
        ratings_of(app, &bob, "alice").await,
    );
    assert_eq!(after, before);
    assert_eq!(
        ratings_of(app, &bob, "dave").await["ratings"][0]["games"],
        1
    );
}
