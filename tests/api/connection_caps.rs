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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_holds_its_share_of_the_connections() {
    let app = TestApp::start_with(crate::util::Backend::Sqlite, |config| {
        config.connections_per_address = 3;
    })
    .await;
    // Answered, so counted; kept alive for 5 s, longer than the test needs them.
    let mut open: Vec<TcpStream> = (0..3).map(|_| a_used_connection(&app)).collect();
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
