//! Streams and long polls as a shared resource: capped per account, per address and per
//! instance; closed when their account signs out everywhere or after their lifetime; and
//! woken by the database's notifications when another instance appends, not by re-reading.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::live::Stream;
use crate::util::{Backend, Player, TestApp};
use crate::with_each_backend;

/// A long poll for game `id` after `after`, as a request that may be refused.
async fn long_poll(app: &TestApp, player: &Player, id: &str, after: i64) -> crate::util::Response {
    app.get(
        player,
        &format!("/v1/games/{id}/events?after={after}&wait=20"),
    )
    .await
}

async fn open_raw(app: &TestApp, player: &Player, path: &str) -> reqwest::Response {
    reqwest::Client::new()
        .get(format!("{}{path}", app.base))
        .bearer_auth(&player.token)
        .send()
        .await
        .expect("the request reaches the server")
}

/// Waits until the instance counts `count` open followers (a closed stream is noticed when
/// the server next writes to it or reads the closed connection).
async fn wait_for_followers(app: &TestApp, count: i64) {
    let started = Instant::now();
    loop {
        let open = app.metric("turnpost_open_followers").await;
        if open == Some(count as f64) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "open followers stayed at {open:?}, not {count}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Beyond its cap an account gets 429 `too_many_streams` with `Retry-After` for a stream,
/// an account stream or a long poll; another account from the same address gets in until
/// the address's cap; a closed stream frees its place.
async fn streams_and_long_polls_are_capped(app: &TestApp) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let carl = app.register("carl").await;
    let id = app.new_game("tikal", json!({}), &players).await;
    let first = open_raw(app, &players[0], &format!("/v1/games/{id}/stream")).await;
    assert_eq!(first.status(), 200);
    let second = open_raw(app, &players[0], "/v1/me/stream").await;
    assert_eq!(second.status(), 200);
    wait_for_followers(app, 2).await;
    for refused in [
        app.get(&players[0], &format!("/v1/games/{id}/stream"))
            .await,
        app.get(&players[0], "/v1/me/stream").await,
        long_poll(app, &players[0], &id, 0).await,
        app.get(&players[0], "/v1/me/notifications?wait=5").await,
    ] {
        assert!(refused.header("retry-after").is_some());
        refused.expect_problem(429, "too_many_streams");
    }
    // Not a wait: an ordinary read is never refused.
    app.get(&players[0], &format!("/v1/games/{id}/events"))
        .await
        .expect_status(200);
    let third = open_raw(app, &players[1], &format!("/v1/games/{id}/stream")).await;
    assert_eq!(third.status(), 200, "another account from the same address");
    wait_for_followers(app, 3).await;
    // The address is full. Carl, who holds none of its streams, takes the place of the
    // oldest stream of Ada, who holds the most there: hers ends, saying why.
    let carls = open_raw(app, &carl, "/v1/me/stream").await;
    assert_eq!(carls.status(), 200, "a neighbour behind the same address");
    let ended = tokio::time::timeout(Duration::from_secs(10), first.text())
        .await
        .expect("Ada's oldest stream ends")
        .unwrap();
    assert!(
        ended.contains("to make room for another account"),
        "{ended}"
    );
    wait_for_followers(app, 3).await;
    // Now each of the three holds one: nobody takes anyone's place.
    let dora = app.register("dora").await;
    app.get(&dora, "/v1/me/stream")
        .await
        .expect_problem(429, "too_many_streams");
    drop(carls);
    wait_for_followers(app, 2).await;
    let again = open_raw(app, &players[0], "/v1/me/stream").await;
    assert_eq!(again.status(), 200, "a closed stream frees its place");
}

fn small_caps(config: &mut turnpost::config::Config) {
    config.streams_per_account = 2;
    config.streams_per_address = 3;
}

/// Signing out everywhere closes the account's open streams and ends its long polls; the
/// other account's stream goes on.
async fn signing_out_everywhere_closes_streams(app: &TestApp, elsewhere: &TestApp) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    let mut game_stream = Stream::open(elsewhere, &players[0], &id, None).await;
    let mut account_stream = Stream::open_path(elsewhere, &players[0], "/v1/me/stream", None).await;
    let mut other = Stream::open(elsewhere, &players[1], &id, None).await;
    assert!(game_stream.next().await.is_some(), "the opening events");
    assert!(other.next().await.is_some());
    let poll = {
        let (base, token, id) = (elsewhere.base.clone(), players[0].token.clone(), id.clone());
        tokio::spawn(async move {
            reqwest::Client::new()
                .get(format!("{base}/v1/games/{id}/events?after=100000&wait=30"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let signed_out = Instant::now();
    app.request(
        reqwest::Method::DELETE,
        "/v1/me/tokens",
        Some(&players[0].token),
        None,
        &[],
    )
    .await
    .expect_status(204);
    let mut closed = Vec::new();
    for stream in [&mut game_stream, &mut account_stream] {
        loop {
            match stream.next().await {
                None => break,
                Some(frame) => assert!(frame.id.is_some(), "only events before the end"),
            }
        }
        closed.push(signed_out.elapsed());
    }
    let answer = poll.await.unwrap();
    assert_eq!(
        answer.status(),
        401,
        "the long poll ends with token_revoked"
    );
    // Where it signed in before, the revoked token no longer counts either (the instance
    // would otherwise reuse its check of the token for a minute in the test across
    // instances).
    elsewhere
        .get(&players[0], &format!("/v1/games/{id}"))
        .await
        .expect_problem(401, "token_revoked");
    // Generous: closing takes a notification's round trip, not a timer (the re-read behind
    // it waits a minute in these tests).
    assert!(
        closed.iter().all(|took| *took < Duration::from_secs(10)),
        "{closed:?}"
    );
    let players = vec![app.sign_in("ada", "s3cret-pass").await, players[1].clone()];
    app.play_first_legal_action(&players, &id).await;
    let frame = other
        .next()
        .await
        .expect("the other account's stream goes on");
    assert!(frame.id.is_some());
}

/// A stream ends after its lifetime with a comment saying so; the client resumes with
/// `Last-Event-ID` and misses nothing.
async fn a_stream_ends_after_its_lifetime(app: &TestApp) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    let response = open_raw(app, &players[0], &format!("/v1/games/{id}/stream")).await;
    let body = tokio::time::timeout(Duration::from_secs(20), response.text())
        .await
        .expect("the stream ends by itself")
        .unwrap();
    assert!(body.starts_with("retry: 1000\n\n"), "{body}");
    assert!(body.ends_with("resume with Last-Event-ID\n\n"), "{body}");
    let last = body
        .lines()
        .filter_map(|line| line.strip_prefix("id: "))
        .filter_map(|id| id.parse::<i64>().ok())
        .max()
        .expect("the opening events came");
    let seq = app.play_first_legal_action(&players, &id).await;
    let mut resumed = Stream::open(app, &players[0], &id, Some(last)).await;
    let next = resumed
        .next()
        .await
        .expect("the move after the last one seen");
    assert_eq!(next.id, Some(last + 1));
    assert!(seq > last);
}

fn short_lifetime(config: &mut turnpost::config::Config) {
    config.stream_lifetime_seconds = 1;
}

/// A follower on one instance is woken by a move posted on another within moments: by the
/// database's notification, since the re-read behind it waits a minute here.
async fn notifications_wake_followers_on_other_instances(app: &TestApp, other: &TestApp) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    for _ in 0..3 {
        let summary: Value = app
            .get(&players[0], &format!("/v1/games/{id}"))
            .await
            .json();
        let seq = summary["current_seq"].as_i64().unwrap();
        let waiting = {
            let (base, token, id) = (other.base.clone(), players[1].token.clone(), id.clone());
            tokio::spawn(async move {
                let answer: Value = reqwest::Client::new()
                    .get(format!("{base}/v1/games/{id}/events?after={seq}&wait=50"))
                    .bearer_auth(token)
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                (answer, Instant::now())
            })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        let posted = Instant::now();
        let new_seq = app.play_first_legal_action(&players, &id).await;
        let (answer, woken) = waiting.await.unwrap();
        assert_eq!(answer["current_seq"], new_seq);
        assert!(
            woken.duration_since(posted) < Duration::from_secs(10),
            "woken after {:?}",
            woken.duration_since(posted)
        );
    }
}

fn slow_recheck(config: &mut turnpost::config::Config) {
    config.follow_recheck_seconds = 60;
}

with_each_backend!(streams_capped, stream_lifetime, signing_out_on_one_instance);

async fn streams_capped(backend: Backend) {
    let app = TestApp::start_with(backend, small_caps).await;
    streams_and_long_polls_are_capped(&app).await;
}

async fn stream_lifetime(backend: Backend) {
    let app = TestApp::start_with(backend, short_lifetime).await;
    a_stream_ends_after_its_lifetime(&app).await;
}

async fn signing_out_on_one_instance(backend: Backend) {
    let app = TestApp::start_with(backend, slow_recheck).await;
    signing_out_everywhere_closes_streams(&app, &app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_through_another_instance_closes_streams() {
    let app = TestApp::start_with(Backend::Postgres, slow_recheck).await;
    let other = app
        .second_instance_with(|config| {
            slow_recheck(config);
            config.token_recheck_ms = 60_000;
        })
        .await;
    signing_out_everywhere_closes_streams(&app, &other).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn followers_on_another_instance_are_woken_by_notifications() {
    let app = TestApp::start_with(Backend::Postgres, slow_recheck).await;
    let other = app.second_instance_with(slow_recheck).await;
    notifications_wake_followers_on_other_instances(&app, &other).await;
}
