//! The requests a game is played by (legal actions, views, moves) are answered on the
//! worker thread that took them, with its own PostgreSQL connections, and on a database
//! thread of the pool when the worker cannot answer alone (always on SQLite; on PostgreSQL
//! a state the fold cache does not hold, a retried move, a game that moved on). Either way
//! the answer is the same. `turnpost_play_requests_total` counts each path.

use serde_json::{json, Value};

use crate::util::{Backend, Player, TestApp};

/// The instance's count of play requests answered on the worker thread and on the pool.
async fn play_paths(app: &TestApp) -> (u64, u64) {
    let count = async |path: &str| {
        app.metric(&format!("turnpost_play_requests_total{{path=\"{path}\"}}"))
            .await
            .unwrap_or_else(|| panic!("no {path} count in the metrics")) as u64
    };
    (count("worker").await, count("pool").await)
}

/// A running Tikal game between ada and bo.
async fn running_game(app: &TestApp) -> (Vec<Player>, String) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    (players, id)
}

/// The game's seat to act, its legal actions and its view as that seat sees it.
async fn reads(app: &TestApp, players: &[Player], id: &str) -> (usize, Value, Value) {
    let seat = app.seat_to_act(players, id).await;
    let legal = app
        .get(&players[seat], &format!("/v1/games/{id}/legal-actions"))
        .await
        .expect_status(200)
        .json();
    let view = app
        .get(&players[seat], &format!("/v1/games/{id}/view"))
        .await
        .expect_status(200)
        .json();
    (seat, legal, view)
}

async fn play_requests_take_the_worker_thread_on_postgres_only(backend: Backend) {
    let app = TestApp::start(backend).await;
    let (players, id) = running_game(&app).await;
    // The game's first read folds its opening into the fold cache; from then on the cache
    // holds every state a move leaves.
    reads(&app, &players, &id).await;
    let (worker_before, pool_before) = play_paths(&app).await;
    for _ in 0..5 {
        let (seat, legal, _) = reads(&app, &players, &id).await;
        app.post(
            &players[seat],
            &format!("/v1/games/{id}/actions"),
            &json!({"expected_seq": legal["seq"], "action": legal["actions"][0]}),
        )
        .await
        .expect_status(200);
    }
    // A refusal is an answer too.
    app.post(
        &players[0],
        &format!("/v1/games/{id}/actions"),
        &json!({"expected_seq": 0, "action": {"type": "pass"}}),
    )
    .await
    .expect_problem(409, "stale_seq");
    let (worker, pool) = play_paths(&app).await;
    let played = 5 * 3 + 1;
    match backend {
        Backend::Postgres => {
            assert_eq!(worker - worker_before, played, "all on the worker thread");
            assert_eq!(pool, pool_before, "none on the pool");
        }
        Backend::Sqlite => {
            assert_eq!(worker, 0, "SQLite has no worker connections");
            assert_eq!(pool - pool_before, played, "all on the pool");
        }
    }
}

/// What the worker thread cannot answer alone goes to the pool, and comes back the same.
async fn what_the_worker_cannot_answer_the_pool_answers_the_same(backend: Backend) {
    let app = TestApp::start(backend).await;
    let (players, id) = running_game(&app).await;
    for _ in 0..3 {
        app.play_first_legal_action(&players, &id).await;
    }
    let (seat, legal, view) = reads(&app, &players, &id).await;
    let seq = legal["seq"].as_i64().unwrap();
    let (_, pool_before) = play_paths(&app).await;
    // A past seq's state is not in the cache: the pool folds it from the log.
    let past = app
        .get(
            &players[seat],
            &format!("/v1/games/{id}/view?at={}", seq - 1),
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(past["seq"], seq - 1);
    let (_, pool) = play_paths(&app).await;
    assert_eq!(pool, pool_before + 1);
    // A restarted instance has an empty fold cache: its first reads go to the pool, and
    // answer what the worker thread answered before.
    let app = app.restart_with(|_| {}).await;
    let (worker_before, pool_before) = play_paths(&app).await;
    let (seat_again, legal_again, view_again) = reads(&app, &players, &id).await;
    assert_eq!(seat_again, seat);
    assert_eq!(legal_again, legal);
    assert_eq!(view_again, view);
    let (worker, pool) = play_paths(&app).await;
    match backend {
        Backend::Postgres => {
            assert_eq!(pool, pool_before + 1, "the first read folds on the pool");
            assert_eq!(worker, worker_before + 1, "then the cache answers");
        }
        Backend::Sqlite => assert_eq!(pool, pool_before + 2),
    }
    // A move retried with its idempotency key: the pool replays the first answer.
    let key = [("Idempotency-Key", "worker-retry-1")];
    let body = json!({"expected_seq": seq, "action": legal["actions"][0]});
    let path = format!("/v1/games/{id}/actions");
    let post = || {
        app.request(
            reqwest::Method::POST,
            &path,
            Some(&players[seat].token),
            Some(&body),
            &key,
        )
    };
    let first = post().await.expect_status(200).json();
    let (_, pool_before) = play_paths(&app).await;
    let retried = post().await.expect_status(200).json();
    assert_eq!(retried, first);
    let (_, pool) = play_paths(&app).await;
    assert_eq!(pool, pool_before + 1, "the retry is replayed on the pool");
}

crate::with_each_backend!(
    play_requests_take_the_worker_thread_on_postgres_only,
    what_the_worker_cannot_answer_the_pool_answers_the_same,
);
