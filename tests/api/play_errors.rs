use reqwest::Method;
use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::{Player, TestApp};

struct Table {
    id: String,
    players: Vec<Player>,
    outsider: Player,
}

async fn running_tikal(app: &TestApp) -> Table {
    let players = vec![
        app.register("ann").await,
        app.register("ben").await,
        app.register("cat").await,
    ];
    let id = app.new_game("tikal", json!({}), &players).await;
    Table {
        id,
        players,
        outsider: app.register("otto").await,
    }
}

impl Table {
    async fn summary(&self, app: &TestApp) -> Value {
        app.get(&self.players[0], &format!("/v1/games/{}", self.id))
            .await
            .expect_status(200)
            .json()
    }

    /// The player who must act now, another player, and the current seq.
    async fn turn(&self, app: &TestApp) -> (usize, usize, i64) {
        let summary = self.summary(app).await;
        let seat = summary["to_act"][0].as_u64().unwrap() as usize;
        (
            seat,
            (seat + 1) % self.players.len(),
            summary["current_seq"].as_i64().unwrap(),
        )
    }

    async fn first_legal_action(&self, app: &TestApp, seat: usize) -> Value {
        app.get(
            &self.players[seat],
            &format!("/v1/games/{}/legal-actions", self.id),
        )
        .await
        .expect_status(200)
        .json()["actions"][0]
            .clone()
    }
}

async fn every_error_path_is_a_problem_and_writes_nothing(app: &TestApp) {
    let table = running_tikal(app).await;
    let (seat, other, seq) = table.turn(app).await;
    let actions = format!("/v1/games/{}/actions", table.id);
    let me = &table.players[seat];
    let action = table.first_legal_action(app, seat).await;
    let good = json!({"expected_seq": seq, "action": action});

    app.request(Method::POST, &actions, None, Some(&good), &[])
        .await
        .expect_problem(401, "missing_token");
    app.post(&table.outsider, &actions, &good)
        .await
        .expect_problem(403, "not_a_player");
    app.post(
        me,
        &actions,
        &json!({"expected_seq": seq, "seat": other, "action": action}),
    )
    .await
    .expect_problem(403, "not_your_seat");
    app.post(me, "/v1/games/nosuchgame/actions", &good)
        .await
        .expect_problem(404, "game_not_found");
    let stale = app
        .post(
            me,
            &actions,
            &json!({"expected_seq": seq - 1, "action": action}),
        )
        .await
        .expect_problem(409, "stale_seq");
    assert_eq!(stale["current_seq"], seq);
    app.post(&table.players[other], &actions, &good)
        .await
        .expect_problem(409, "not_your_turn");
    for malformed in [
        json!({"type": "fly_away"}),
        json!(5),
        json!({"type": "move"}),
        json!(null),
    ] {
        app.post(
            me,
            &actions,
            &json!({"expected_seq": seq, "action": malformed}),
        )
        .await
        .expect_problem(422, "malformed_action");
    }
    // Ending the turn before the hex is placed breaks a rule: the game's code travels along.
    let illegal = app
        .post(
            me,
            &actions,
            &json!({"expected_seq": seq, "action": {"type": "end_turn"}}),
        )
        .await
        .expect_problem(409, "illegal_action");
    assert!(
        illegal["rule"]
            .as_str()
            .is_some_and(|rule| !rule.is_empty()),
        "{illegal}"
    );
    app.post(me, &actions, &json!({"action": action}))
        .await
        .expect_problem(422, "invalid_request");
    app.post(
        me,
        &actions,
        &json!({"expected_seq": "one", "action": action}),
    )
    .await
    .expect_problem(422, "invalid_request");
    let long_key = "k".repeat(201);
    app.request(
        Method::POST,
        &actions,
        Some(&me.token),
        Some(&good),
        &[("Idempotency-Key", long_key.as_str())],
    )
    .await
    .expect_problem(422, "invalid_idempotency_key");

    for path in ["view", "legal-actions", "events", "export"] {
        app.get(me, &format!("/v1/games/nosuchgame/{path}"))
            .await
            .expect_problem(404, "game_not_found");
    }
    app.get(
        me,
        &format!("/v1/games/{}/view?at={}", table.id, seq + 1000),
    )
    .await
    .expect_problem(409, "seq_out_of_range");
    app.get(me, &format!("/v1/games/{}/view?at=abc", table.id))
        .await
        .expect_problem(400, "invalid_query");
    app.get(me, "/v1/games/not%20an%20id/view")
        .await
        .expect_problem(404, "game_not_found");

    let (_, _, seq_after) = table.turn(app).await;
    assert_eq!(seq_after, seq, "no refused request wrote anything");
    let log = app
        .get(me, &format!("/v1/games/{}/events?after=0", table.id))
        .await
        .expect_status(200)
        .json();
    assert_eq!(log["events"].as_array().unwrap().len() as i64, seq);
    // Only the player to act gets legal actions; others and spectators get none.
    for viewer in [&table.players[other], &table.outsider] {
        let legal = app
            .get(viewer, &format!("/v1/games/{}/legal-actions", table.id))
            .await
            .expect_status(200)
            .json();
        assert_eq!(legal["actions"], json!([]));
    }
    // The type filter keeps exactly the actions with that tag.
    let legal = format!("/v1/games/{}/legal-actions", table.id);
    let all = app.get(me, &legal).await.expect_status(200).json()["actions"].clone();
    let wanted = action["type"].as_str().unwrap();
    let filtered = app
        .get(me, &format!("{legal}?type={wanted}"))
        .await
        .expect_status(200)
        .json()["actions"]
        .clone();
    let expected: Vec<&Value> = all
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["type"] == wanted)
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(
        filtered.as_array().unwrap().iter().collect::<Vec<_>>(),
        expected
    );
    let none = app
        .get(me, &format!("{legal}?type=no_such_type"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(none["actions"], json!([]));

    app.post(me, &actions, &good).await.expect_status(200);
}

async fn a_retried_post_returns_the_first_result_and_appends_nothing(app: &TestApp) {
    let table = running_tikal(app).await;
    let (seat, _, seq) = table.turn(app).await;
    let me = &table.players[seat];
    let actions = format!("/v1/games/{}/actions", table.id);
    let action = table.first_legal_action(app, seat).await;
    let body = json!({"expected_seq": seq, "action": action});
    let key = [("Idempotency-Key", "move-0001")];

    let first = app
        .request(Method::POST, &actions, Some(&me.token), Some(&body), &key)
        .await
        .expect_status(200)
        .json();
    assert!(first["seq"].as_i64().unwrap() > seq);
    assert!(!first["events"].as_array().unwrap().is_empty());
    for _ in 0..2 {
        let retry = app
            .request(Method::POST, &actions, Some(&me.token), Some(&body), &key)
            .await
            .expect_status(200)
            .json();
        assert_eq!(retry, first, "a retry returns the first result");
    }
    assert_eq!(
        table.summary(app).await["current_seq"],
        first["seq"],
        "retries append nothing"
    );
    let different = json!({"expected_seq": first["seq"], "action": action});
    app.request(
        Method::POST,
        &actions,
        Some(&me.token),
        Some(&different),
        &key,
    )
    .await
    .expect_problem(422, "idempotency_key_reused");
    assert_eq!(table.summary(app).await["current_seq"], first["seq"]);

    // A retry that races its own first attempt gets the same answer, and one append.
    let (seat, _, seq) = table.turn(app).await;
    let me = &table.players[seat];
    let action = table.first_legal_action(app, seat).await;
    let body = json!({"expected_seq": seq, "action": action});
    let key = [("Idempotency-Key", "raced-0002")];
    let (a, b) = tokio::join!(
        app.request(Method::POST, &actions, Some(&me.token), Some(&body), &key),
        app.request(Method::POST, &actions, Some(&me.token), Some(&body), &key),
    );
    let (a, b) = (a.expect_status(200).json(), b.expect_status(200).json());
    assert_eq!(a, b);
    assert_eq!(table.summary(app).await["current_seq"], a["seq"]);
    let log = app
        .get(me, &format!("/v1/games/{}/events?after={seq}", table.id))
        .await
        .expect_status(200)
        .json();
    assert_eq!(
        log["events"], a["events"],
        "exactly the first attempt's events were appended"
    );
}

/// In a game with a clock, an action's append goes on with the clock events it causes; a
/// retry answers that whole first result (its seq is the game's, its events and view the
/// first answer's), also after the other seat moved on.
async fn a_retried_post_in_a_timed_game_returns_the_first_result(app: &TestApp) {
    let players = vec![app.register("tia").await, app.register("tom").await];
    let bank = json!({"type": "time_bank", "initial_seconds": 3600, "increment_seconds": 60, "maximum_seconds": 7200});
    let id = app
        .new_game_with(json!({"kind": "tikal", "time_control": bank}), &players)
        .await;
    let actions = format!("/v1/games/{id}/actions");
    let mut firsts = Vec::new();
    for round in 0..4 {
        let summary = app
            .get(&players[0], &format!("/v1/games/{id}"))
            .await
            .json();
        let seat = summary["to_act"][0].as_u64().unwrap() as usize;
        let legal = app
            .get(&players[seat], &format!("/v1/games/{id}/legal-actions"))
            .await
            .json();
        let end_turn = legal["actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|action| action["type"] == "end_turn")
            .unwrap_or(&legal["actions"][0])
            .clone();
        let body = json!({"expected_seq": legal["seq"], "action": end_turn});
        let key = format!("timed-{round}");
        let key = [("Idempotency-Key", key.as_str())];
        let token = Some(players[seat].token.as_str());
        let first = app
            .request(Method::POST, &actions, token, Some(&body), &key)
            .await
            .expect_status(200)
            .json();
        let retry = app
            .request(Method::POST, &actions, token, Some(&body), &key)
            .await
            .expect_status(200)
            .json();
        assert_eq!(retry, first, "a retry returns the first result");
        assert_eq!(
            app.get(&players[0], &format!("/v1/games/{id}"))
                .await
                .json()["current_seq"],
            first["seq"],
            "the first answer's seq is where the append ended"
        );
        firsts.push((players[seat].clone(), body, key[0].1.to_owned(), first));
    }
    assert!(
        firsts.iter().any(|(.., first)| first["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|event| event["source"] == "server")),
        "clock events came with some action"
    );
    // Later, when the game has moved on, every retry still answers its first result.
    for (player, body, key, first) in firsts {
        let retry = app
            .request(
                Method::POST,
                &actions,
                Some(&player.token),
                Some(&body),
                &[("Idempotency-Key", key.as_str())],
            )
            .await
            .expect_status(200)
            .json();
        assert_eq!(retry, first);
    }
}

async fn of_two_racing_posts_exactly_one_wins(app: &TestApp) {
    let table = running_tikal(app).await;
    for round in 0..6 {
        let (seat, _, seq) = table.turn(app).await;
        let me = &table.players[seat];
        let legal = app
            .get(me, &format!("/v1/games/{}/legal-actions", table.id))
            .await
            .expect_status(200)
            .json();
        let options = legal["actions"].as_array().unwrap();
        // Two actions that are both legal at this seq; whichever commits first wins.
        let pick = |index: usize| options[index % options.len()].clone();
        let actions = format!("/v1/games/{}/actions", table.id);
        let first = json!({"expected_seq": seq, "action": pick(0)});
        let second = json!({"expected_seq": seq, "action": pick(round + 1)});
        let (a, b) = tokio::join!(
            app.post(me, &actions, &first),
            app.post(me, &actions, &second)
        );
        let statuses = [a.status, b.status];
        assert!(
            statuses.contains(&200) && statuses.contains(&409),
            "round {round}: exactly one wins, the other is stale: {statuses:?} {} {}",
            a.text,
            b.text
        );
        let loser = if a.status == 409 { a } else { b };
        let problem = loser.expect_problem(409, "stale_seq");
        let summary = table.summary(app).await;
        assert_eq!(problem["current_seq"], summary["current_seq"]);
        let log = app
            .get(me, &format!("/v1/games/{}/events", table.id))
            .await
            .expect_status(200)
            .json();
        let seqs: Vec<i64> = log["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_i64().unwrap())
            .collect();
        assert_eq!(
            seqs,
            (1..=seqs.len() as i64).collect::<Vec<_>>(),
            "the log has no gaps or doubles"
        );
        assert_eq!(seqs.len() as i64, summary["current_seq"].as_i64().unwrap());
    }
}

/// A client that sends the same move twice at once (a retry before the first answer came)
/// gets the same answer to both, and the move is appended once: the copy that loses the
/// guard finds the winner's action under its key and replays it.
async fn a_retry_racing_its_first_attempt_gets_its_result(app: &TestApp) {
    let table = running_tikal(app).await;
    let actions = format!("/v1/games/{}/actions", table.id);
    for round in 0..6 {
        let (seat, _, seq) = table.turn(app).await;
        let me = &table.players[seat];
        let action = table.first_legal_action(app, seat).await;
        let body = json!({"expected_seq": seq, "action": action});
        let key = format!("racing-{round}");
        let key = [("Idempotency-Key", key.as_str())];
        let token = Some(me.token.as_str());
        let (a, b) = tokio::join!(
            app.request(Method::POST, &actions, token, Some(&body), &key),
            app.request(Method::POST, &actions, token, Some(&body), &key)
        );
        let (a, b) = (a.expect_status(200).json(), b.expect_status(200).json());
        assert_eq!(a, b, "round {round}: both answers are the first result");
        assert_eq!(
            table.summary(app).await["current_seq"],
            a["seq"],
            "round {round}: appended once"
        );
    }
}

on_both_backends!(
    every_error_path_is_a_problem_and_writes_nothing,
    a_retry_racing_its_first_attempt_gets_its_result,
    a_retried_post_returns_the_first_result_and_appends_nothing,
    a_retried_post_in_a_timed_game_returns_the_first_result,
    of_two_racing_posts_exactly_one_wins,
);
