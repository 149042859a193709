//! Following games live: the SSE stream delivers every event in order, redacted for its
//! reader, and resumes after a disconnect without loss or duplicates; the long poll answers
//! as soon as something is appended; both see appends made by another instance.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reqwest::Method;
use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::{Backend, Player, TestApp};

/// An SSE reader over reqwest, collecting `(id, event, data)` frames.
pub struct Stream {
    response: reqwest::Response,
    buffer: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub id: Option<i64>,
    pub event: Option<String>,
    pub data: Value,
}

impl Stream {
    pub async fn open(
        app: &TestApp,
        player: &Player,
        id: &str,
        last_event_id: Option<i64>,
    ) -> Stream {
        Stream::open_path(
            app,
            player,
            &format!("/v1/games/{id}/stream"),
            last_event_id,
        )
        .await
    }

    pub async fn open_path(
        app: &TestApp,
        player: &Player,
        path: &str,
        last_event_id: Option<i64>,
    ) -> Stream {
        let mut request = reqwest::Client::new()
            .get(format!("{}{path}", app.base))
            .bearer_auth(&player.token);
        if let Some(seq) = last_event_id {
            request = request.header("Last-Event-ID", seq.to_string());
        }
        let response = request.send().await.expect("the stream opens");
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"].to_str().unwrap();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        Stream {
            response,
            buffer: String::new(),
        }
    }

    /// The next event frame (heartbeats skipped), or `None` when the stream ended.
    pub async fn next(&mut self) -> Option<Frame> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut frame = Frame {
                    id: None,
                    event: None,
                    data: Value::Null,
                };
                let mut comment_only = true;
                for line in block.lines() {
                    if let Some(id) = line.strip_prefix("id: ") {
                        frame.id = id.parse().ok();
                    } else if let Some(event) = line.strip_prefix("event: ") {
                        frame.event = Some(event.to_owned());
                    } else if let Some(data) = line.strip_prefix("data: ") {
                        frame.data = serde_json::from_str(data).expect("data is JSON");
                    } else {
                        continue;
                    }
                    comment_only = false;
                }
                if comment_only {
                    continue;
                }
                return Some(frame);
            }
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.response.chunk())
                .await
                .expect("the stream keeps moving")
                .expect("the stream reads");
            match chunk {
                Some(bytes) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                None => return None,
            }
        }
    }
}

/// Plays game `id` to its end with random legal actions.
pub async fn play_to_the_end(app: &TestApp, players: &[Player], id: &str, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..5_000 {
        let summary = app
            .get(&players[0], &format!("/v1/games/{id}"))
            .await
            .json();
        if summary["status"] == "finished" {
            return;
        }
        let to_act = summary["to_act"].as_array().unwrap();
        let seat = to_act[rng.gen_range(0..to_act.len())].as_u64().unwrap() as usize;
        let legal = app
            .get(&players[seat], &format!("/v1/games/{id}/legal-actions"))
            .await
            .json();
        let actions = legal["actions"].as_array().unwrap();
        let action = &actions[rng.gen_range(0..actions.len())];
        app.post(
            &players[seat],
            &format!("/v1/games/{id}/actions"),
            &json!({"expected_seq": legal["seq"], "action": action}),
        )
        .await
        .expect_status(200);
    }
    panic!("the game did not end");
}

/// Reads a stream to its `end` event.
async fn read_to_the_end(mut stream: Stream) -> Vec<Frame> {
    let mut frames = Vec::new();
    while let Some(frame) = stream.next().await {
        if frame.event.as_deref() == Some("end") {
            return frames;
        }
        frames.push(frame);
    }
    panic!("the stream closed without `end`");
}

/// Subscribers on both instances (a seat and a spectator) receive every event of a whole
/// game in order, exactly as `/events` shows it to them; one of them drops its connection
/// halfway and resumes with `Last-Event-ID`.
async fn streams_carry_a_whole_game_and_resume(app: &TestApp, other: &TestApp) {
    let players = vec![app.register("red").await, app.register("blue").await];
    let watcher = app.register("watcher").await;
    let id = app.new_game("tikal", json!({}), &players).await;
    let seat_stream = Stream::open(other, &players[1], &id, None).await;
    let spectator_stream = Stream::open(other, &watcher, &id, None).await;
    let seat_reader = tokio::spawn(read_to_the_end(seat_stream));
    let spectator_reader = tokio::spawn(read_to_the_end(spectator_stream));
    let mut interrupted = Stream::open(app, &watcher, &id, None).await;
    let first = interrupted.next().await.expect("the opening events");
    drop(interrupted);
    play_to_the_end(app, &players, &id, 11).await;
    let resumed = read_to_the_end(Stream::open(app, &watcher, &id, first.id).await).await;

    for (reader, frames) in [
        (&players[1], seat_reader.await.unwrap()),
        (&watcher, spectator_reader.await.unwrap()),
    ] {
        let log = app
            .get(reader, &format!("/v1/games/{id}/events"))
            .await
            .json();
        let events = log["events"].as_array().unwrap();
        assert_eq!(frames.len(), events.len(), "every event, once");
        for (frame, event) in frames.iter().zip(events) {
            assert_eq!(frame.id, event["seq"].as_i64());
            assert_eq!(frame.event.as_deref(), event["type"].as_str());
            assert_eq!(&frame.data, event, "the same redacted event as /events");
        }
    }
    let spectator_log = app
        .get(&watcher, &format!("/v1/games/{id}/events"))
        .await
        .json();
    let mut seqs = vec![first.id.unwrap()];
    seqs.extend(resumed.iter().map(|frame| frame.id.unwrap()));
    let expected: Vec<i64> = spectator_log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, expected, "a resumed stream loses and repeats nothing");
}

/// A long poll answers when a move is appended on another instance, and answers empty when
/// nothing happens within `wait`.
async fn a_long_poll_answers_with_the_next_move(app: &TestApp, other: &TestApp) {
    let players = vec![app.register("red").await, app.register("blue").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    let summary = app
        .get(&players[0], &format!("/v1/games/{id}"))
        .await
        .json();
    let seq = summary["current_seq"].as_i64().unwrap();
    let quiet = other
        .get(
            &players[1],
            &format!("/v1/games/{id}/events?after={seq}&wait=1"),
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(quiet["events"], json!([]), "nothing happened");
    let poll = {
        let url = format!("{}/v1/games/{id}/events?after={seq}&wait=30", other.base);
        let token = players[1].token.clone();
        tokio::spawn(async move {
            reqwest::Client::new()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let legal = app
        .get(&players[0], &format!("/v1/games/{id}/legal-actions"))
        .await
        .json();
    app.post(
        &players[0],
        &format!("/v1/games/{id}/actions"),
        &json!({"expected_seq": seq, "action": legal["actions"][0]}),
    )
    .await
    .expect_status(200);
    let answered = tokio::time::timeout(Duration::from_secs(10), poll)
        .await
        .expect("the poll answers long before its 30 seconds")
        .unwrap();
    assert!(
        answered["events"]
            .as_array()
            .is_some_and(|events| !events.is_empty()),
        "{answered}"
    );
    assert!(answered["events"][0]["seq"].as_i64().unwrap() > seq);
    other
        .get(
            &players[1],
            &format!("/v1/games/{id}/events?after={seq}&wait=61"),
        )
        .await
        .expect_problem(400, "invalid_query");
}

/// The account stream carries the caller's notifications as they are written (by another
/// instance too), the same as the feed, and resumes after `Last-Event-ID`.
async fn the_account_stream_carries_notifications(app: &TestApp, other: &TestApp) {
    let players = vec![app.register("red").await, app.register("blue").await];
    let mut stream = Stream::open_path(other, &players[0], "/v1/me/stream", None).await;
    let id = app.new_game("tikal", json!({}), &players).await;
    let started = stream.next().await.expect("a notification");
    assert_eq!(started.event.as_deref(), Some("game_started"));
    assert_eq!(started.data["game_id"], id.as_str());
    let turn = stream.next().await.expect("a notification");
    assert_eq!(turn.event.as_deref(), Some("your_turn"));
    drop(stream);
    play_to_the_end(app, &players, &id, 5).await;
    let feed = app
        .get(&players[0], "/v1/me/notifications?after=0")
        .await
        .json();
    let feed = feed["notifications"].as_array().unwrap().clone();
    assert_eq!(feed[0], started.data);
    assert_eq!(feed[1], turn.data);
    assert_eq!(feed.last().unwrap()["type"], "game_finished");
    let mut resumed = Stream::open_path(other, &players[0], "/v1/me/stream", turn.id).await;
    for expected in &feed[2..] {
        let frame = resumed.next().await.expect("the rest of the feed");
        assert_eq!(
            &frame.data, expected,
            "resumes after Last-Event-ID, losing nothing"
        );
    }
}

async fn account_streams_on_one_instance(app: &TestApp) {
    the_account_stream_carries_notifications(app, app).await;
}

async fn streams_on_one_instance(app: &TestApp) {
    streams_carry_a_whole_game_and_resume(app, app).await;
}

async fn long_polls_on_one_instance(app: &TestApp) {
    a_long_poll_answers_with_the_next_move(app, app).await;
}

/// With `Accept: application/x-ndjson` a game's stream carries the same events as `/events`,
/// one a line, and ends when the game is finished; the account stream its notifications.
/// HEAD answers the head a GET would, without a stream.
async fn ndjson_streams_carry_the_same_documents(app: &TestApp) {
    let players = vec![app.register("red").await, app.register("blue").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    let open = |path: String, player: &Player| {
        reqwest::Client::new()
            .get(format!("{}{path}", app.base))
            .bearer_auth(&player.token)
            .header("Accept", "application/x-ndjson")
            .send()
    };
    let game = open(format!("/v1/games/{id}/stream"), &players[1])
        .await
        .unwrap();
    assert_eq!(game.status(), 200);
    assert_eq!(game.headers()["content-type"], "application/x-ndjson");
    let account = open("/v1/me/stream?after=0".to_owned(), &players[0])
        .await
        .unwrap();
    assert_eq!(account.headers()["content-type"], "application/x-ndjson");
    let reader = tokio::spawn(async move {
        tokio::time::timeout(Duration::from_secs(120), game.text())
            .await
            .expect("the stream ends with the game")
            .unwrap()
    });
    play_to_the_end(app, &players, &id, 5).await;
    let text = reader.await.unwrap();
    let stream_path = format!("/v1/games/{id}/stream");
    crate::contract::check(
        &Method::GET,
        &stream_path,
        200,
        "application/x-ndjson",
        &text,
    );
    let lines: Vec<Value> = text
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    let log = app
        .get(&players[1], &format!("/v1/games/{id}/events"))
        .await
        .json();
    assert_eq!(&lines, log["events"].as_array().unwrap());

    let mut account = account;
    let first = tokio::time::timeout(Duration::from_secs(30), account.chunk())
        .await
        .unwrap()
        .unwrap()
        .expect("a notification");
    let line = String::from_utf8_lossy(&first);
    let notification: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(notification["type"], "game_started");
    drop(account);

    for path in [
        format!("/v1/games/{id}/stream"),
        "/v1/me/stream".to_owned(),
        "/v1/me/notifications".to_owned(),
    ] {
        let head = reqwest::Client::new()
            .head(format!("{}{path}", app.base))
            .bearer_auth(&players[0].token)
            .send()
            .await
            .unwrap();
        assert_eq!(head.status(), 200, "HEAD {path}");
    }
    let missing = reqwest::Client::new()
        .head(format!("{}/v1/games/nosuchgame/stream", app.base))
        .bearer_auth(&players[0].token)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}

/// `after` below 0 is refused as the contract says, not read as 0.
async fn a_negative_cursor_is_refused(app: &TestApp) {
    let player = app.register("red").await;
    for path in [
        "/v1/me/notifications?after=-1",
        "/v1/me/stream?after=-1",
        "/v1/games/abc/events?after=-1",
    ] {
        app.get(&player, path)
            .await
            .expect_problem(400, "invalid_query");
    }
}

/// A stream asked for `max_seconds` closes after that long with everything sent meanwhile,
/// so a client that reads only whole bodies (a generated one) follows a running game by
/// asking again with `after`; a value outside 1 to 3600 and an empty or non-numeric
/// `Last-Event-ID` are refused.
async fn a_stream_ends_when_asked(app: &TestApp) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    for (path, framing) in [
        (
            format!("/v1/games/{id}/stream?max_seconds=1"),
            "text/event-stream",
        ),
        (
            "/v1/me/stream?after=0&max_seconds=1".to_owned(),
            "application/x-ndjson",
        ),
    ] {
        let response = reqwest::Client::new()
            .get(format!("{}{path}", app.base))
            .bearer_auth(&players[0].token)
            .header("Accept", framing)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let body = tokio::time::timeout(Duration::from_secs(10), response.text())
            .await
            .unwrap_or_else(|_| panic!("{path} did not end after a second"))
            .unwrap();
        if framing == "text/event-stream" {
            assert!(body.ends_with("resume with Last-Event-ID\n\n"), "{body}");
            let last = body
                .lines()
                .filter_map(|line| line.strip_prefix("id: ")?.parse::<i64>().ok())
                .max()
                .expect("the opening events came");
            let seq = app.play_first_legal_action(&players, &id).await;
            let next = reqwest::Client::new()
                .get(format!(
                    "{}/v1/games/{id}/stream?max_seconds=1&after={last}",
                    app.base
                ))
                .bearer_auth(&players[0].token)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let ids: Vec<i64> = next
                .lines()
                .filter_map(|line| line.strip_prefix("id: ")?.parse().ok())
                .collect();
            assert_eq!(ids.first(), Some(&(last + 1)), "{next}");
            assert_eq!(ids.last(), Some(&seq), "{next}");
        } else {
            crate::contract::check(&Method::GET, "/v1/me/stream", 200, framing, &body);
            let lines: Vec<Value> = body
                .lines()
                .filter(|line| !line.is_empty())
                .map(|line| serde_json::from_str(line).unwrap())
                .collect();
            assert!(
                lines.iter().any(|line| line["type"] == "game_started"),
                "{body}"
            );
        }
    }
    for query in ["max_seconds=0", "max_seconds=3601", "max_seconds=-5"] {
        app.get(&players[0], &format!("/v1/games/{id}/stream?{query}"))
            .await
            .expect_problem(400, "invalid_query");
        app.get(&players[0], &format!("/v1/me/stream?{query}"))
            .await
            .expect_problem(400, "invalid_query");
    }
    for last_event_id in ["", " ", "x", "-1"] {
        for path in [format!("/v1/games/{id}/stream"), "/v1/me/stream".to_owned()] {
            for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
                let response = reqwest::Client::new()
                    .request(method.clone(), format!("{}{path}", app.base))
                    .bearer_auth(&players[0].token)
                    .header("Last-Event-ID", last_event_id)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(
                    response.status(),
                    400,
                    "{method} {path} with Last-Event-ID {last_event_id:?}"
                );
            }
        }
    }
}

on_both_backends!(
    streams_on_one_instance,
    long_polls_on_one_instance,
    account_streams_on_one_instance,
    ndjson_streams_carry_the_same_documents,
    a_negative_cursor_is_refused,
    a_stream_ends_when_asked
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_and_long_polls_see_moves_made_on_another_instance() {
    // One pair of instances at a time: each pair holds two pools of connections, and a
    // pair is stopped (dropped) before the next starts.
    {
        let app = TestApp::start(Backend::Postgres).await;
        let other = app.second_instance().await;
        streams_carry_a_whole_game_and_resume(&app, &other).await;
    }
    {
        let app = TestApp::start(Backend::Postgres).await;
        let other = app.second_instance().await;
        a_long_poll_answers_with_the_next_move(&app, &other).await;
    }
    let app = TestApp::start(Backend::Postgres).await;
    let other = app.second_instance().await;
    the_account_stream_carries_notifications(&app, &other).await;
}
