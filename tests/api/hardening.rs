//! Limits that keep one client from exhausting the server, and clean answers when it is
//! busy: tried as an attacker or a competing process would.

use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::Connection;
use reqwest::Method;
use serde_json::json;

use crate::util::{Backend, TestApp};

/// The pool hands out a connection that just worked without asking the database first; one
/// that sat idle is asked. So when PostgreSQL drops every connection (a restart, a failover,
/// an administrator), the requests after a pause all succeed on fresh connections, and one
/// that meets a dead connection gets a clean 503 that takes the connection out of the pool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_postgres_dropped_are_replaced() {
    let app = TestApp::start(Backend::Postgres).await;
    let alice = app.register("alice").await;
    for _ in 0..4 {
        app.get(&alice, "/v1/games").await.expect_status(200);
    }
    let drop_connections = || {
        let mut admin = diesel::PgConnection::establish(&app.database_url).expect("postgres");
        admin
            .batch_execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity                  WHERE datname = current_database() AND pid <> pg_backend_pid()",
            )
            .expect("connections dropped");
    };
    drop_connections();
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    for _ in 0..20 {
        app.get(&alice, "/v1/games").await.expect_status(200);
    }
    drop_connections();
    let mut statuses = Vec::new();
    for _ in 0..20 {
        statuses.push(app.get(&alice, "/v1/games").await.status);
    }
    assert!(
        statuses.iter().all(|status| [200, 503].contains(status)),
        "{statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&200), "{statuses:?}");
}

/// Another process holding SQLite's write lock makes a write wait up to the busy timeout
/// (and succeed if the lock goes within it), then answer 503 `server_busy` with
/// `Retry-After`, never a 500 "database is locked".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_lock_held_by_another_process_is_waited_for_then_503() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.sqlite_busy_timeout_ms = 1500;
    })
    .await;
    let alice = app.register("alice").await;
    let create = json!({"kind": "tikal", "seats": 2});

    let mut other = diesel::SqliteConnection::establish(app.database_url()).unwrap();
    other.batch_execute("BEGIN IMMEDIATE").unwrap();
    let busy = app.post(&alice, "/v1/games", &create).await;
    let problem = busy.expect_problem(503, "server_busy");
    assert!(problem["detail"].as_str().unwrap().contains("busy"));
    other.batch_execute("COMMIT").unwrap();

    other.batch_execute("BEGIN IMMEDIATE").unwrap();
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        other.batch_execute("COMMIT").unwrap();
    });
    app.post(&alice, "/v1/games", &create)
        .await
        .expect_status(201);
    releaser.join().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_answer_says_when_to_retry() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.sqlite_busy_timeout_ms = 100;
    })
    .await;
    let alice = app.register("alice").await;
    let mut other = diesel::SqliteConnection::establish(app.database_url()).unwrap();
    other.batch_execute("BEGIN IMMEDIATE").unwrap();
    let busy = app
        .post(&alice, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await;
    assert_eq!(busy.status, 503);
    assert_eq!(busy.header("retry-after"), Some("1"));
    other.batch_execute("ROLLBACK").unwrap();
}

/// Options are an object: serde alone would read `[true]` as `{"auction": true}`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_that_are_not_an_object_are_refused() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    for options in [json!([true]), json!(true), json!(null), json!("auction")] {
        let body = json!({"kind": "tikal", "seats": 2, "options": options});
        app.post(&alice, "/v1/games", &body)
            .await
            .expect_problem(422, "invalid_options");
    }
}

/// Every body has the documented 64 KiB limit, the optional join body too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_body_is_limited_to_64_kib() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let game = app
        .post(&alice, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await
        .expect_status(201)
        .json();
    let padding = " ".repeat(100 * 1024);
    let join = format!("/v1/games/{}/seats", game["id"].as_str().unwrap());
    app.post_raw(&bob, &join, "application/json", &format!("{{}}{padding}"))
        .await
        .expect_problem(413, "payload_too_large");
    app.post_raw(
        &bob,
        "/v1/games",
        "application/json",
        &format!("{{}}{padding}"),
    )
    .await
    .expect_problem(413, "payload_too_large");
}

/// A compressed body could inflate far beyond the limit it was checked against: refused
/// before anything reads it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compressed_request_bodies_are_refused() {
    let app = TestApp::start(Backend::Sqlite).await;
    let response = reqwest::Client::new()
        .post(format!("{}/v1/accounts", app.base))
        .header("Content-Type", "application/json")
        .header("Content-Encoding", "gzip")
        .body(vec![0x1f, 0x8b, 0x08, 0x00])
        .send()
        .await
        .unwrap();
    crate::util::Response::read(reqwest::Method::POST, response)
        .await
        .expect_problem(415, "unsupported_content_encoding");
}

/// A client that sends a request head and then trickles (or never sends) its body is cut
/// off at the body deadline with 408, instead of holding the connection forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_does_not_arrive_in_time_is_answered_408() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.body_timeout_seconds = 1;
    })
    .await;
    let (answer, _) = send_and_wait(
        &app,
        b"POST /v1/accounts HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"name\":",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("body_timeout"), "{answer}");
    assert!(answer.contains("application/problem+json"), "{answer}");
}

/// Password guessing and account floods are throttled: 429 with `Retry-After`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_ins_registrations_and_new_games_are_rate_limited() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.sign_ins_per_minute_per_name_and_address = 3;
        config.sign_ins_per_minute_per_address = 6;
        config.registrations_per_hour_per_address = 3;
        config.games_per_hour_per_account = 2;
    })
    .await;
    let alice = app.register("alice").await; // one registration, one sign-in
    let guess = |name: &str| json!({"name": name, "password": "guessed-pass"});
    for _ in 0..2 {
        app.request(Method::POST, "/v1/tokens", None, Some(&guess("alice")), &[])
            .await
            .expect_problem(401, "invalid_credentials");
    }
    let limited = app
        .request(Method::POST, "/v1/tokens", None, Some(&guess("ALICE")), &[])
        .await;
    assert_eq!(limited.header("retry-after"), Some("20"));
    limited.expect_problem(429, "rate_limited");
    // Other names still get through until the address's own limit.
    for name in ["bob", "carol"] {
        app.request(Method::POST, "/v1/tokens", None, Some(&guess(name)), &[])
            .await
            .expect_problem(401, "invalid_credentials");
    }
    app.request(Method::POST, "/v1/tokens", None, Some(&guess("dave")), &[])
        .await
        .expect_problem(429, "rate_limited");

    for name in ["bob", "carol"] {
        let body = json!({"name": name, "password": "s3cret-pass"});
        app.request(Method::POST, "/v1/accounts", None, Some(&body), &[])
            .await
            .expect_status(201);
    }
    let body = json!({"name": "erin", "password": "s3cret-pass"});
    app.request(Method::POST, "/v1/accounts", None, Some(&body), &[])
        .await
        .expect_problem(429, "rate_limited");

    let create = json!({"kind": "tikal", "seats": 2});
    for _ in 0..2 {
        app.post(&alice, "/v1/games", &create)
            .await
            .expect_status(201);
    }
    app.post(&alice, "/v1/games", &create)
        .await
        .expect_problem(429, "rate_limited");
}

/// An account cannot fill the lobby: at most so many games of its own wait for players.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_games_per_account_are_capped() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.open_games_per_account = 2;
    })
    .await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let create = json!({"kind": "tikal", "seats": 2});
    let first = app
        .post(&alice, "/v1/games", &create)
        .await
        .expect_status(201)
        .json();
    app.post(&alice, "/v1/games", &create)
        .await
        .expect_status(201);
    app.post(&alice, "/v1/games", &create)
        .await
        .expect_problem(409, "open_games_quota");
    // Once one starts, there is room again.
    let join = format!("/v1/games/{}/seats", first["id"].as_str().unwrap());
    app.post(&bob, &join, &json!({})).await.expect_status(200);
    app.post(&alice, "/v1/games", &create)
        .await
        .expect_status(201);
}

/// A configured signing secret that is empty, short or repetitive stops the start with a clear
/// message, before the database is created.
#[test]
fn a_short_configured_secret_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("refused.sqlite");
    for secret in ["", "short secret", &" ".repeat(32), &"ab".repeat(20)].map(String::from) {
        let config = turnpost::config::Config {
            bind: "127.0.0.1:0".into(),
            data_dir: dir.path().to_path_buf(),
            database_url: Some(database.to_string_lossy().into_owned()),
            jwt_secret: Some(secret),
            ..turnpost::config::Config::defaults()
        };
        let refusal = actix_web::rt::System::new()
            .block_on(async { turnpost::server::start(&config).err() })
            .expect("refused");
        assert!(refusal.to_string().contains("too weak"), "{refusal}");
    }
    assert!(!database.exists());
}

/// A client that connects and never finishes its request head is dropped after the head
/// timeout instead of holding the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_that_does_not_arrive_in_time_is_cut_off() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.head_timeout_seconds = 1;
    })
    .await;
    let (answer, waited) = send_and_wait(&app, b"GET /healthz HTTP/1.1\r\nHost: te").await;
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    assert!(
        waited < Duration::from_secs(15),
        "the connection was held {waited:?}"
    );
}

/// Sends `bytes` on a raw connection and never anything more; returns all the server
/// answers until it closes the connection (or 20 s pass), and how long that took.
async fn send_and_wait(app: &TestApp, bytes: &'static [u8]) -> (String, Duration) {
    let address = app.base.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let started = std::time::Instant::now();
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream.write_all(bytes).unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        (
            String::from_utf8_lossy(&answer).into_owned(),
            started.elapsed(),
        )
    })
    .await
    .unwrap()
}

/// What the schema allows the server takes: integral floats where integers are wanted, a
/// result filter without `player` (the caller's own), a time bank whose initial time is above
/// its maximum (started at the maximum); a creation names the new game in `Location`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_the_schema_allows_are_taken() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let created = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2.0, "seat": 0.0,
                    "time_control": {"type": "time_bank", "initial_seconds": 7200.0,
                                     "increment_seconds": 0, "maximum_seconds": 3600}}),
        )
        .await
        .expect_status(201);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(created.headers["location"], format!("/v1/games/{id}"));
    assert_eq!(created.json()["time_control"]["initial_seconds"], 3600);
    app.post(
        &bob,
        &format!("/v1/games/{id}/seats"),
        &json!({"seat": 1.0}),
    )
    .await
    .expect_status(200);
    let legal = app
        .get(&alice, &format!("/v1/games/{id}/legal-actions"))
        .await
        .json();
    let seq = legal["seq"].as_i64().unwrap() as f64;
    app.post(
        &alice,
        &format!("/v1/games/{id}/actions"),
        &json!({"expected_seq": seq, "action": legal["actions"][0]}),
    )
    .await
    .expect_status(200);
    app.post(
        &alice,
        &format!("/v1/games/{id}/actions"),
        &json!({"expected_seq": 2.5, "action": legal["actions"][0]}),
    )
    .await
    .expect_problem(422, "invalid_request");
    app.get(&alice, "/v1/exports?result=won")
        .await
        .expect_status(200);
}
