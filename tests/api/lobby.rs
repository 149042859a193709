use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::TestApp;

async fn game_kinds_describe_every_game(app: &TestApp) {
    let alice = app.register("alice").await;
    let kinds = app
        .get(&alice, "/v1/game-kinds")
        .await
        .expect_status(200)
        .json();
    let tikal = kinds
        .as_array()
        .unwrap()
        .iter()
        .find(|kind| kind["kind"] == "tikal")
        .expect("tikal is hosted");
    assert_eq!(tikal["name"], "Tikal");
    assert_eq!(tikal["min_players"], 2);
    assert_eq!(tikal["max_players"], 4);
    assert_eq!(tikal["rules_version"], 2);
    assert_eq!(tikal["default_options"], json!({"auction": false}));
    assert!(tikal["options_schema"]["properties"]["auction"].is_object());
    assert_eq!(tikal["schemas"]["action"], "TikalAction");
    assert_eq!(
        kinds.as_array().unwrap().len(),
        turnpost::games::all_games().len()
    );
    for kind in kinds.as_array().unwrap() {
        let versions = kind["rules_versions"].as_array().expect("rules_versions");
        assert_eq!(versions[0]["version"], 1, "{}", kind["kind"]);
        assert_eq!(
            versions.last().unwrap()["version"],
            kind["rules_version"],
            "new {} games start on the newest version",
            kind["kind"]
        );
        for version in versions {
            assert!(!version["changes"].as_str().unwrap().is_empty());
            assert_eq!(version["date"].as_str().unwrap().len(), 10);
        }
    }
}

async fn creating_joining_and_listing_games(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;

    for (body, code) in [
        (json!({"kind": "chess", "seats": 2}), "unknown_game_kind"),
        (json!({"kind": "tikal", "seats": 1}), "invalid_seat_count"),
        (json!({"kind": "tikal", "seats": 5}), "invalid_seat_count"),
        (
            json!({"kind": "tikal", "seats": 2, "options": {"auction": "yes"}}),
            "invalid_options",
        ),
        (
            json!({"kind": "tikal", "seats": 2, "seat": 2}),
            "invalid_seat",
        ),
        (json!({"kind": "tikal"}), "invalid_request"),
        (json!({"kind": "tikal", "seats": -1}), "invalid_request"),
        (
            json!({"kind": "tikal", "seats": 2, "colour": "red"}),
            "invalid_request",
        ),
    ] {
        app.post(&alice, "/v1/games", &body)
            .await
            .expect_problem(422, code);
    }
    // Nothing was created by the refused requests.
    let all = app.get(&alice, "/v1/games").await.expect_status(200).json();
    assert_eq!(all["games"], json!([]));

    let created = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 3, "options": {"auction": true}}),
        )
        .await
        .expect_status(201)
        .json();
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["status"], "open");
    assert_eq!(created["options"], json!({"auction": true}));
    assert_eq!(created["current_seq"], 0);
    assert_eq!(created["your_seat"], 0);
    assert_eq!(created["seats"][0]["account"]["name"], "alice");
    assert_eq!(created["seats"][1]["account"], Value::Null);

    let join = format!("/v1/games/{id}/seats");
    app.post(&alice, &join, &json!({}))
        .await
        .expect_problem(409, "already_seated");
    app.post(&bob, &join, &json!({"seat": 0}))
        .await
        .expect_problem(409, "seat_taken");
    app.post(&bob, &join, &json!({"seat": 3}))
        .await
        .expect_problem(422, "invalid_seat");
    // A join body may be left out, but one that is there must be readable.
    app.post(&bob, &join, &json!({"seat": 1, "sit": true}))
        .await
        .expect_problem(422, "invalid_request");
    app.post_raw(&bob, &join, "application/json", "{\"seat\":1")
        .await
        .expect_problem(400, "invalid_json");
    app.post_raw(
        &bob,
        &join,
        "application/x-www-form-urlencoded",
        "{\"seat\":1}",
    )
    .await
    .expect_problem(400, "expected_json");
    let after_refusals = app
        .get(&bob, &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(
        after_refusals["seats"][1]["account"],
        Value::Null,
        "refused joins seat nobody"
    );
    app.post(&bob, "/v1/games/nosuchgame/seats", &json!({}))
        .await
        .expect_problem(404, "game_not_found");
    app.get(&bob, &format!("/v1/games/{id}/view"))
        .await
        .expect_problem(409, "game_not_started");

    let joined = app
        .post(&bob, &join, &json!({"seat": 2}))
        .await
        .expect_status(200)
        .json();
    assert_eq!(joined["your_seat"], 2);
    assert_eq!(joined["status"], "open");
    let open_games = app
        .get(&carol, "/v1/games?status=open")
        .await
        .expect_status(200)
        .json();
    assert_eq!(open_games["games"].as_array().unwrap().len(), 1);
    let started = app
        .post(&carol, &join, &json!({}))
        .await
        .expect_status(200)
        .json();
    assert_eq!(started["your_seat"], 1, "the lowest open seat");
    assert_eq!(started["status"], "running");
    assert!(
        started["current_seq"].as_i64().unwrap() > 0,
        "opening events were appended"
    );
    assert!(!started["to_act"].as_array().unwrap().is_empty());
    app.post(&app.register("dave").await, &join, &json!({}))
        .await
        .expect_problem(409, "game_not_open");

    // A second game only Alice and Bob play.
    app.post(&alice, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await
        .expect_status(201);
    let mine = app
        .get(&carol, "/v1/games?mine=true")
        .await
        .expect_status(200)
        .json();
    assert_eq!(mine["games"].as_array().unwrap().len(), 1);
    let alices = app
        .get(&alice, "/v1/games?mine=true")
        .await
        .expect_status(200)
        .json();
    assert_eq!(alices["games"].as_array().unwrap().len(), 2);
    let running = app
        .get(&alice, "/v1/games?status=running&kind=tikal")
        .await
        .expect_status(200)
        .json();
    assert_eq!(running["games"].as_array().unwrap().len(), 1);

    let to_act = started["to_act"][0].as_u64().unwrap();
    let players = [&alice, &carol, &bob];
    for (seat, player) in players.iter().enumerate() {
        let my_turn = app
            .get(player, "/v1/games?my_turn=true")
            .await
            .expect_status(200)
            .json();
        let expected = usize::from(seat as u64 == to_act);
        assert_eq!(
            my_turn["games"].as_array().unwrap().len(),
            expected,
            "seat {seat}"
        );
    }
    let limited = app
        .get(&alice, "/v1/games?limit=1")
        .await
        .expect_status(200)
        .json();
    assert_eq!(limited["games"].as_array().unwrap().len(), 1);
    app.get(&alice, "/v1/games?limit=0")
        .await
        .expect_problem(400, "invalid_query");
    app.get(&alice, "/v1/games?status=paused")
        .await
        .expect_problem(400, "invalid_query");
}

/// `my_turn` is answered and paged by the database: it follows the turn through moves and
/// pages like every other filter, most recently active first.
async fn my_turn_follows_the_turn_and_pages(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let mut alice_first = Vec::new();
    for _ in 0..3 {
        alice_first.push(
            app.new_game("tikal", json!({}), &[alice.clone(), bob.clone()])
                .await,
        );
    }
    // One game where Bob sits at seat 0 and so acts first.
    let created = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "seat": 1}),
        )
        .await
        .expect_status(201)
        .json();
    let bob_first = created["id"].as_str().unwrap().to_owned();
    app.post(&bob, &format!("/v1/games/{bob_first}/seats"), &json!({}))
        .await
        .expect_status(200);

    let ids = |response: Value| -> Vec<String> {
        response["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|game| {
                assert_eq!(game["your_turn"], true, "{game}");
                game["id"].as_str().unwrap().to_owned()
            })
            .collect()
    };
    let alices = ids(app
        .get(&alice, "/v1/games?my_turn=true")
        .await
        .expect_status(200)
        .json());
    let newest_first: Vec<String> = alice_first.iter().rev().cloned().collect();
    assert_eq!(alices, newest_first);
    let page = ids(app
        .get(&alice, "/v1/games?my_turn=true&limit=2&offset=1")
        .await
        .expect_status(200)
        .json());
    assert_eq!(page, newest_first[1..3]);
    let bobs = ids(app
        .get(&bob, "/v1/games?my_turn=true")
        .await
        .expect_status(200)
        .json());
    assert_eq!(bobs, std::slice::from_ref(&bob_first));

    let none = app
        .get(&bob, "/v1/games?my_turn=true&kind=java")
        .await
        .expect_status(200)
        .json();
    assert_eq!(none["games"].as_array().unwrap().len(), 0);

    // Bob plays his turn to its end: the turn passes to Alice, whose newest game it is now.
    loop {
        let legal = app
            .get(&bob, &format!("/v1/games/{bob_first}/legal-actions"))
            .await
            .expect_status(200)
            .json();
        let actions = legal["actions"].as_array().unwrap();
        let action = actions
            .iter()
            .find(|action| action["type"] == "end_turn")
            .unwrap_or(&actions[0])
            .clone();
        app.post(
            &bob,
            &format!("/v1/games/{bob_first}/actions"),
            &json!({"expected_seq": legal["seq"], "action": action}),
        )
        .await
        .expect_status(200);
        if action["type"] == "end_turn" {
            break;
        }
    }
    let bobs = app
        .get(&bob, "/v1/games?my_turn=true")
        .await
        .expect_status(200)
        .json();
    assert_eq!(bobs["games"].as_array().unwrap().len(), 0);
    let alices = ids(app
        .get(&alice, "/v1/games?my_turn=true")
        .await
        .expect_status(200)
        .json());
    assert_eq!(alices.len(), 4);
    assert_eq!(alices[0], bob_first);

    // Games with a deadline come first, nearest first; a cursor carries the deadline, so
    // pages go on through games with and without one, in the same order.
    let mut timed = Vec::new();
    for days in [3, 1] {
        let settings =
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": days}});
        timed.push(
            app.new_game_with(settings, &[alice.clone(), bob.clone()])
                .await,
        );
    }
    let whole = ids(app
        .get(&alice, "/v1/games?my_turn=true&limit=200")
        .await
        .expect_status(200)
        .json());
    assert_eq!(whole.len(), 6);
    assert_eq!(whole[..2], [timed[1].clone(), timed[0].clone()]);
    for limit in [1, 2, 4] {
        let walked: Vec<String> = app
            .walk(&alice, "/v1/games?my_turn=true", "games", limit)
            .await
            .iter()
            .map(|game| game["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(walked, whole, "limit {limit}");
    }
}

/// Taking a seat and voting to abandon may come with no body at all (the defaults: the
/// lowest open seat, a vote to abandon); a body that is there must be JSON, and whitespace
/// alone is not.
async fn optional_bodies_are_absent_or_json(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let created = app
        .post(&alice, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await
        .expect_status(201)
        .json();
    let id = created["id"].as_str().unwrap();
    for (path, player) in [("seats", &bob), ("abandon", &alice)] {
        for body in ["\n", " ", "\r\n\t"] {
            app.post_raw(
                player,
                &format!("/v1/games/{id}/{path}"),
                "application/json",
                body,
            )
            .await
            .expect_problem(400, "invalid_json");
        }
        let answer = app
            .post_raw(
                player,
                &format!("/v1/games/{id}/{path}"),
                "application/json",
                "",
            )
            .await
            .expect_status(200)
            .json();
        if path == "seats" {
            assert_eq!(answer["status"], "running");
        } else {
            assert_eq!(answer["seats"][0]["abandon_vote"], true, "{answer}");
        }
    }
}

/// A stored column the server cannot read is an internal error, logged and answered 500,
/// never a silent default (an empty turn, seat 0, no outcome).
async fn corrupt_stored_data_is_an_internal_error(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob])
        .await;
    app.get(&alice, &format!("/v1/games/{id}"))
        .await
        .expect_status(200);
    app.execute_sql(&format!(
        "UPDATE games SET to_act = 'not json' WHERE id = '{id}'"
    ));
    let problem = app
        .get(&alice, &format!("/v1/games/{id}"))
        .await
        .expect_problem(500, "internal_error");
    assert!(
        !problem["detail"].as_str().unwrap().contains("to_act"),
        "the cause is logged, not sent: {problem}"
    );
    app.get(&alice, "/v1/games?mine=true")
        .await
        .expect_problem(500, "internal_error");
    app.execute_sql(&format!(
        "UPDATE games SET to_act = '[0]', status = 'paused' WHERE id = '{id}'"
    ));
    app.get(&alice, &format!("/v1/games/{id}"))
        .await
        .expect_problem(500, "internal_error");
}

/// A game started under a rules version this build cannot play (a newer server wrote it)
/// is refused with a clear 503, never folded under other rules, and nothing is written.
async fn a_rules_version_this_server_cannot_play_is_refused(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob])
        .await;
    let before = app.get(&alice, &format!("/v1/games/{id}")).await.json();
    app.execute_sql(&format!(
        "UPDATE games SET rules_version = 99 WHERE id = '{id}'"
    ));
    for path in ["view", "legal-actions", "events", "export"] {
        let problem = app
            .get(&alice, &format!("/v1/games/{id}/{path}"))
            .await
            .expect_problem(503, "unsupported_rules_version");
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains("99") && detail.contains("tikal"),
            "{detail}"
        );
    }
    let body = json!({"expected_seq": before["current_seq"], "action": {"type": "end_turn"}});
    app.post(&alice, &format!("/v1/games/{id}/actions"), &body)
        .await
        .expect_problem(503, "unsupported_rules_version");
    let after = app.get(&alice, &format!("/v1/games/{id}")).await.json();
    assert_eq!(after["current_seq"], before["current_seq"]);
    assert_eq!(after["rules_version"], 99);
}

on_both_backends!(
    optional_bodies_are_absent_or_json,
    a_rules_version_this_server_cannot_play_is_refused,
    corrupt_stored_data_is_an_internal_error,
    game_kinds_describe_every_game,
    creating_joining_and_listing_games,
    my_turn_follows_the_turn_and_pages
);
