//! Signed-in requests under way per account and per address (`src/api/request_slots.rs`):
//! an account that floods the server waits behind itself, and another account's request
//! is answered meanwhile. A request holds its slots here by sending its head and not yet
//! its body: its token is checked and its slot taken while the body is awaited.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::util::{Backend, Player, TestApp};
use crate::with_each_backend;

with_each_backend!(
    a_flooding_account_waits_behind_itself,
    an_address_caps_its_accounts
);

const READ: &str = "/v1/me/reminders";

/// A `POST /v1/games` whose body is still to come: it holds `player`'s slot until
/// [`finish`] sends the body.
fn hold_a_slot(app: &TestApp, player: &Player) -> TcpStream {
    let address = app.base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).expect("connect");
    let head = format!(
        "POST /v1/games HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 2\r\n\r\n",
        player.token
    );
    stream.write_all(head.as_bytes()).expect("the head");
    stream
}

/// Sends the held request's body and returns its answer's status line.
fn finish(mut stream: TcpStream) -> String {
    stream.write_all(b"{}").expect("the body");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    let mut answer = [0u8; 64];
    let read = stream.read(&mut answer).expect("the answer");
    let answer = String::from_utf8_lossy(&answer[..read]).into_owned();
    answer.lines().next().unwrap_or_default().to_owned()
}

/// `path` read by `player` on a task of its own, to its status.
fn read_later(app: &TestApp, player: &Player, path: &str) -> tokio::task::JoinHandle<u16> {
    let url = format!("{}{path}", app.base);
    let token = player.token.clone();
    tokio::spawn(async move {
        reqwest::Client::new()
            .get(url)
            .bearer_auth(token)
            .send()
            .await
            .expect("the request reaches the server")
            .status()
            .as_u16()
    })
}

async fn wait_for_metric(app: &TestApp, series: &str, value: f64) {
    let started = Instant::now();
    loop {
        let now = app.metric(series).await;
        if now == Some(value) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{series} stayed at {now:?}, not {value}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Two slots and two places in the queue per account: ada's third and fourth requests
/// wait, her fifth is refused at once with 429 `too_many_requests_in_flight`, and bo is
/// answered while hers still wait. Her waiting requests go on once her first two are
/// answered. Long polls give their slots back once admitted: three of them and a read
/// beside them do not wait for her two slots.
async fn a_flooding_account_waits_behind_itself(backend: Backend) {
    let app = TestApp::start_with(backend, |config| {
        config.requests_in_flight_per_account = 2;
        config.requests_waiting_per_account = 2;
    })
    .await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let held = [hold_a_slot(&app, &ada), hold_a_slot(&app, &ada)];
    wait_for_metric(&app, "turnpost_requests_under_way", 2.0).await;
    let waiting = [read_later(&app, &ada, READ), read_later(&app, &ada, READ)];
    wait_for_metric(&app, "turnpost_requests_waiting", 2.0).await;

    let refused = app.get(&ada, READ).await;
    assert_eq!(refused.header("retry-after"), Some("1"));
    refused.expect_problem(429, "too_many_requests_in_flight");
    app.get(&bo, READ).await.expect_status(200);
    assert_eq!(
        app.metric("turnpost_requests_waiting").await,
        Some(2.0),
        "bo was answered while ada's requests waited"
    );

    for stream in held {
        let status = finish(stream);
        assert!(status.starts_with("HTTP/1.1 422"), "{status}");
    }
    for waiter in waiting {
        assert_eq!(waiter.await.expect("the reader"), 200);
    }
    wait_for_metric(&app, "turnpost_requests_under_way", 0.0).await;
    assert_eq!(
        app.metric("turnpost_requests_refused_in_flight_total")
            .await,
        Some(1.0)
    );

    let polls: Vec<_> = (0..3)
        .map(|_| read_later(&app, &ada, "/v1/me/notifications?wait=3"))
        .collect();
    wait_for_metric(&app, "turnpost_open_followers", 3.0).await;
    app.get(&ada, READ).await.expect_status(200);
    for poll in polls {
        assert_eq!(poll.await.expect("the long poll"), 200);
    }
}

/// Two slots and no queue per address: ada and bo from the same address hold them, and
/// carl from it is refused at once although his account has slots left.
async fn an_address_caps_its_accounts(backend: Backend) {
    let app = TestApp::start_with(backend, |config| {
        config.requests_in_flight_per_address = 2;
        config.requests_waiting_per_address = 0;
    })
    .await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let carl = app.register("carl").await;
    let held = [hold_a_slot(&app, &ada), hold_a_slot(&app, &bo)];
    wait_for_metric(&app, "turnpost_requests_under_way", 2.0).await;
    app.get(&carl, READ)
        .await
        .expect_problem(429, "too_many_requests_in_flight");
    for stream in held {
        finish(stream);
    }
    wait_for_metric(&app, "turnpost_requests_under_way", 0.0).await;
    app.get(&carl, READ).await.expect_status(200);
}
