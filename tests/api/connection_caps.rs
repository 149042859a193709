//! Connections per client address (`src/api/connection_caps.rs`): one address cannot
//! take every connection; the connection beyond its share is answered 429
//! `too_many_connections` and closed, another address is served meanwhile, and a trusted
//! proxy's connections are not counted. 127.0.0.2 is a second loopback address.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::util::TestApp;

fn address(app: &TestApp) -> &str {
    app.base.trim_start_matches("http://")
}

/// A new connection from 127.0.0.1 that has sent `GET /healthz` with `connection` as its
/// `Connection` header, waiting at most 30 s for each read of the answer.
fn asking_health(app: &TestApp, connection: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address(app)).expect("connect");
    stream
        .write_all(
            format!("GET /healthz HTTP/1.1\r\nHost: turnpost\r\nConnection: {connection}\r\n\r\n")
                .as_bytes(),
        )
        .expect("the request");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    stream
}

/// A `GET /healthz` on a new connection from 127.0.0.1: the whole answer, up to its close.
fn health_on_a_new_connection(app: &TestApp) -> String {
    let mut answer = String::new();
    asking_health(app, "close")
        .read_to_string(&mut answer)
        .expect("the answer");
    answer
}

/// A connection from 127.0.0.1 that has been answered once and stays open (kept alive):
/// the server has counted it.
fn a_used_connection(app: &TestApp) -> TcpStream {
    let mut stream = asking_health(app, "keep-alive");
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).expect("the answer");
    assert_eq!(&head, b"HTTP/1.1 200");
    stream
}

fn second_loopback() -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .expect("a client")
}

/// `turnpost_connections_refused_total`, read from 127.0.0.2 (127.0.0.1 has no room).
async fn refused_from_second_loopback(app: &TestApp) -> f64 {
    let metrics = second_loopback()
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .expect("the request reaches the server")
        .text()
        .await
        .expect("the metrics");
    metrics
        .lines()
        .find_map(|line| line.strip_prefix("turnpost_connections_refused_total "))
        .and_then(|value| value.trim().parse().ok())
        .expect("the counter")
}

async fn health_from_second_loopback(app: &TestApp) -> u16 {
    second_loopback()
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .expect("the request reaches the server")
        .status()
        .as_u16()
}

/// A token for a new account, asked from 127.0.0.2 so that 127.0.0.1's connections stay
/// the test's own.
async fn token_of(app: &TestApp, name: &str) -> String {
    let client = second_loopback();
    let credentials = serde_json::json!({"name": name, "password": "s3cret-pass"});
    client
        .post(format!("{}/v1/accounts", app.base))
        .json(&credentials)
        .send()
        .await
        .expect("registered");
    let answer: serde_json::Value = client
        .post(format!("{}/v1/tokens", app.base))
        .json(&credentials)
        .send()
        .await
        .expect("signed in")
        .json()
        .await
        .expect("a token");
    answer["token"].as_str().expect("a token").to_owned()
}

/// A connection from 127.0.0.1 that carries `request` (a head), its answer's status line
/// read: kept open and, for a stream, busy.
fn connection_asking(app: &TestApp, request: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address(app)).expect("connect");
    stream.write_all(request.as_bytes()).expect("the request");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).expect("the answer");
    assert_eq!(&head, b"HTTP/1.1 200", "{request}");
    stream
}

/// A stream of `token`'s notifications on a new connection from 127.0.0.1: busy as long as
/// it lasts.
fn a_stream(app: &TestApp, token: &str) -> TcpStream {
    connection_asking(
        app,
        &format!(
            "GET /v1/me/stream HTTP/1.1\r\nHost: turnpost\r\nAuthorization: Bearer {token}\r\n\r\n"
        ),
    )
}

/// A signed-in request of `token` on a new connection from 127.0.0.1, kept alive after.
fn a_signed_in_connection(app: &TestApp, token: &str) -> TcpStream {
    connection_asking(
        app,
        &format!(
            "GET /v1/me/invitations HTTP/1.1\r\nHost: turnpost\r\nAuthorization: Bearer {token}\r\n\r\n"
        ),
    )
}

/// Whether the server closed `stream` (its next read ends), within a few seconds.
fn closed_by_the_server(stream: &mut TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_secs(3)))
        .expect("a timeout");
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_holds_its_share_of_the_connections() {
    let app = TestApp::start_with(crate::util::Backend::Sqlite, |config| {
        config.connections_per_address = 3;
    })
    .await;
    let token = token_of(&app, "streamer").await;
    // Three streams keep 127.0.0.1's three connections busy: a fourth is refused.
    let mut open: Vec<TcpStream> = (0..3).map(|_| a_stream(&app, &token)).collect();
    let refused = health_on_a_new_connection(&app);
    assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
    assert!(refused.contains("too_many_connections"), "{refused}");
    assert!(refused.contains("application/problem+json"), "{refused}");
    assert!(refused.to_ascii_lowercase().contains("connection: close"));
    assert!(refused.to_ascii_lowercase().contains("retry-after: 1"));
    assert_eq!(health_from_second_loopback(&app).await, 200);
    assert_eq!(refused_from_second_loopback(&app).await, 1.0);

    open.pop();
    let started = Instant::now();
    while !health_on_a_new_connection(&app).starts_with("HTTP/1.1 200") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "a closed connection did not free its place"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Idle connections make room: at the address's cap, a new connection closes one that is
/// idle, one that never signed in first, then one of the account that holds the most; so
/// accounts behind one NAT address share it, and a pile of kept-alive connections keeps no
/// neighbour out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_make_room_for_neighbours() {
    let app = TestApp::start_with(crate::util::Backend::Sqlite, |config| {
        config.connections_per_address = 3;
    })
    .await;
    let hog = token_of(&app, "hog").await;
    let neighbour = token_of(&app, "neighbour").await;
    let mut anonymous = a_used_connection(&app);
    let mut piled: Vec<TcpStream> = (0..2).map(|_| a_signed_in_connection(&app, &hog)).collect();
    // The address is full of idle connections: the neighbour gets in, and the one that never
    // signed in is the one closed.
    let mut neighbours = vec![a_signed_in_connection(&app, &neighbour)];
    assert!(closed_by_the_server(&mut anonymous));
    // Next, one of the hog's, who holds the most.
    neighbours.push(a_signed_in_connection(&app, &neighbour));
    let closed = piled
        .iter_mut()
        .filter_map(|stream| closed_by_the_server(stream).then_some(()))
        .count();
    assert_eq!(closed, 1, "one of the hog's two idle connections");
    assert!(app.metric("turnpost_connections_evicted_total").await >= Some(2.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_proxys_connections_are_not_counted() {
    let app = TestApp::start_with(crate::util::Backend::Sqlite, |config| {
        config.connections_per_address = 2;
        config.behind_proxy = true;
    })
    .await;
    let _open: Vec<TcpStream> = (0..5).map(|_| a_used_connection(&app)).collect();
    let answer = health_on_a_new_connection(&app);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}
