//! The database as several instances meet it: instances starting at once on a new database
//! migrate it once between them; when the database drops every connection (an operator's
//! `pg_terminate_backend`, a failover) the next requests get fresh connections, so none of
//! them fails and no acknowledged action is lost.

use serde_json::{json, Value};
use turnpost::store::Db;

use crate::util::{Backend, PgDatabase, TestApp};

/// Every backend of the app's database but the caller's, terminated.
fn terminate_every_connection(app: &TestApp) {
    app.execute_sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminated_connections_are_replaced_before_any_request_fails() {
    let app = TestApp::start(Backend::Postgres).await;
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    // Several pooled connections, all of them recently used.
    let mut busy = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let request = reqwest::Client::new()
            .get(format!("{}/v1/games/{id}/view", app.base))
            .bearer_auth(&players[0].token);
        busy.spawn(async move { request.send().await.unwrap().status() });
    }
    while let Some(status) = busy.join_next().await {
        assert_eq!(status.unwrap(), 200);
    }
    let mut acknowledged = Vec::new();
    for _ in 0..3 {
        terminate_every_connection(&app);
        reqwest::get(format!("{}/readyz", app.base))
            .await
            .map(|answer| assert_eq!(answer.status(), 200))
            .unwrap();
        for _ in 0..4 {
            app.get(&players[0], &format!("/v1/games/{id}/view"))
                .await
                .expect_status(200);
            acknowledged.push(app.play_first_legal_action(&players, &id).await);
        }
    }
    let log: Value = app
        .get(&players[0], &format!("/v1/games/{id}/events"))
        .await
        .expect_status(200)
        .json();
    let seqs: Vec<i64> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["seq"].as_i64().unwrap())
        .collect();
    for seq in acknowledged {
        assert!(seqs.contains(&seq), "acknowledged seq {seq} is in the log");
    }
}

#[test]
fn instances_starting_at_once_on_a_new_database_migrate_it_once() {
    let (_database, url) = PgDatabase::create();
    let starts: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || Db::open(&url).map(|db| db.is_ready()))
        })
        .collect();
    for start in starts {
        assert!(
            matches!(start.join().unwrap(), Ok(true)),
            "every instance starts"
        );
    }
}
