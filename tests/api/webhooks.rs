//! Notifications and webhooks: one signed delivery per notification, written to an outbox
//! with the events, delivered after a restart, exactly once with two instances, retried
//! after a failure; private addresses refused unless allowed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::util::{Backend, Player, TestApp};

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: BTreeMap<String, String>,
    pub body: String,
}

/// A webhook receiver on a loopback port: records every POST and answers with the next
/// status of `answers` (200 once they run out).
pub struct Receiver {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    pub async fn start(answers: Vec<u16>) -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Receiver::serve(listener, answers)
    }

    /// A receiver on `address` (e.g. `127.0.0.2:0`), or `None` when it cannot be bound.
    pub async fn start_at(address: &str, answers: Vec<u16>) -> Option<Receiver> {
        let listener = tokio::net::TcpListener::bind(address).await.ok()?;
        Some(Receiver::serve(listener, answers))
    }

    pub fn port(&self) -> u16 {
        self.url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .and_then(|host| host.rsplit(':').next())
            .and_then(|port| port.parse().ok())
            .expect("a port")
    }

    fn serve(listener: tokio::net::TcpListener, answers: Vec<u16>) -> Receiver {
        let url = format!("http://{}/hooks/turnpost", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let answers = Arc::new(Mutex::new(answers));
        let log = received.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (log, answers) = (log.clone(), answers.clone());
                tokio::spawn(async move {
                    let mut buffer = Vec::new();
                    loop {
                        let Some(request) = read_request(&mut socket, &mut buffer).await else {
                            return;
                        };
                        log.lock().unwrap().push(request);
                        let status = {
                            let mut answers = answers.lock().unwrap();
                            if answers.is_empty() {
                                200
                            } else {
                                answers.remove(0)
                            }
                        };
                        let reply = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n");
                        if socket.write_all(reply.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Receiver { url, received }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until `count` requests arrived.
    pub async fn wait_for(&self, count: usize) -> Vec<Received> {
        for _ in 0..300 {
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("expected {count} deliveries, got {}", self.received().len());
    }
}

async fn read_request(
    socket: &mut tokio::net::TcpStream,
    buffer: &mut Vec<u8>,
) -> Option<Received> {
    loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_string();
            let headers: BTreeMap<String, String> = head
                .lines()
                .skip(1)
                .filter_map(|line| line.split_once(':'))
                .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
                .collect();
            let length: usize = headers
                .get("content-length")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            while buffer.len() < end + 4 + length {
                let mut chunk = [0u8; 4096];
                let read = socket.read(&mut chunk).await.ok()?;
                if read == 0 {
                    return None;
                }
                buffer.extend_from_slice(&chunk[..read]);
            }
            let body = String::from_utf8_lossy(&buffer[end + 4..end + 4 + length]).to_string();
            buffer.drain(..end + 4 + length);
            return Some(Received { headers, body });
        }
        let mut chunk = [0u8; 4096];
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}

/// Checks a delivery's Standard Webhooks signature with the webhook's secret, independently
/// of the server's code.
fn assert_signed(delivery: &Received, secret: &str) {
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").expect("a whsec_ secret"))
        .unwrap();
    let id = &delivery.headers["webhook-id"];
    let timestamp = &delivery.headers["webhook-timestamp"];
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.{}", delivery.body).as_bytes());
    let expected = format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    );
    assert_eq!(
        delivery.headers["webhook-signature"], expected,
        "a valid signature"
    );
    let age = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
        - timestamp.parse::<i64>().unwrap();
    assert!((0..120).contains(&age), "a current timestamp");
}

pub async fn register_webhook(app: &TestApp, player: &Player, url: &str) -> Value {
    app.post(player, "/v1/me/webhooks", &json!({"url": url}))
        .await
        .expect_status(201)
        .json()
}

/// Ends turns until `moves` actions were posted (Tikal's `end_turn` is always legal in a
/// turn's action phase; other phases take their first legal action).
async fn play_moves(app: &TestApp, players: &[Player], id: &str, moves: usize) {
    for _ in 0..moves {
        let summary = app
            .get(&players[0], &format!("/v1/games/{id}"))
            .await
            .json();
        let seat = summary["to_act"][0].as_u64().unwrap() as usize;
        let legal = app
            .get(&players[seat], &format!("/v1/games/{id}/legal-actions"))
            .await
            .json();
        let actions = legal["actions"].as_array().unwrap();
        let action = actions
            .iter()
            .find(|action| action["type"] == "end_turn")
            .unwrap_or(&actions[0]);
        app.post(
            &players[seat],
            &format!("/v1/games/{id}/actions"),
            &json!({"expected_seq": legal["seq"], "action": action}),
        )
        .await
        .expect_status(200);
    }
}

async fn notifications_of(app: &TestApp, player: &Player) -> Vec<Value> {
    app.get(player, "/v1/me/notifications")
        .await
        .expect_status(200)
        .json()["notifications"]
        .as_array()
        .unwrap()
        .clone()
}

fn allow_private_and_poll_fast(config: &mut turnpost::config::Config) {
    config.webhooks_allow_private = true;
    config.webhook_poll_ms = 100;
}

/// Every notification of an account reaches its webhook once, signed, with the
/// notification as `data`; the deliveries list shows them delivered; a test delivery works.
async fn one_signed_delivery_per_notification(app: &TestApp) {
    let receiver = Receiver::start(vec![]).await;
    let players = vec![app.register("alice").await, app.register("bob").await];
    let webhook = register_webhook(app, &players[0], &receiver.url).await;
    let secret = webhook["secret"].as_str().unwrap();
    let id = app.new_game("tikal", json!({}), &players).await;
    play_moves(app, &players, &id, 6).await;
    let notifications = notifications_of(app, &players[0]).await;
    let kinds: Vec<&str> = notifications
        .iter()
        .map(|n| n["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds[0], "game_started");
    assert!(kinds.contains(&"your_turn"), "{kinds:?}");
    let bob = notifications_of(app, &players[1]).await;
    assert!(
        bob.iter().any(|n| n["type"] == "your_turn"),
        "bob was told too"
    );
    let deliveries = receiver.wait_for(notifications.len()).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        receiver.received().len(),
        notifications.len(),
        "one delivery each, no more"
    );
    let mut ids: Vec<&String> = deliveries
        .iter()
        .map(|d| &d.headers["webhook-id"])
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), deliveries.len(), "distinct webhook-ids");
    for (delivery, notification) in deliveries.iter().zip(&notifications) {
        assert_signed(delivery, secret);
        let body: Value = serde_json::from_str(&delivery.body).unwrap();
        assert_eq!(body["type"], notification["type"]);
        assert_eq!(body["data"]["game_id"], id.as_str());
        assert_eq!(body["data"]["seq"], notification["seq"]);
    }
    let hook_id = webhook["id"].as_str().unwrap();
    let listed = app
        .get(
            &players[0],
            &format!("/v1/me/webhooks/{hook_id}/deliveries"),
        )
        .await
        .json();
    let states: Vec<&Value> = listed["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["state"])
        .collect();
    assert_eq!(states.len(), notifications.len());
    assert!(states.iter().all(|state| *state == "delivered"), "{listed}");
    let walked = app
        .walk(
            &players[0],
            &format!("/v1/me/webhooks/{hook_id}/deliveries"),
            "deliveries",
            2,
        )
        .await;
    assert_eq!(&walked, listed["deliveries"].as_array().unwrap());
    app.post(
        &players[0],
        &format!("/v1/me/webhooks/{hook_id}/test"),
        &json!({}),
    )
    .await
    .expect_status(202);
    let with_test = receiver.wait_for(notifications.len() + 1).await;
    let test: Value = serde_json::from_str(&with_test.last().unwrap().body).unwrap();
    assert_eq!(test["type"], "test");
    // Another account cannot see or remove it.
    app.get(
        &players[1],
        &format!("/v1/me/webhooks/{hook_id}/deliveries"),
    )
    .await
    .expect_problem(404, "webhook_not_found");
    let request = reqwest::Client::new()
        .delete(format!("{}/v1/me/webhooks/{hook_id}", app.base))
        .bearer_auth(&players[0].token)
        .send()
        .await
        .unwrap();
    assert_eq!(request.status(), 204);
    assert_eq!(
        app.get(&players[0], "/v1/me/webhooks").await.json()["webhooks"],
        json!([])
    );
    // Several webhooks are listed oldest first, a page at a time.
    let mut registered = Vec::new();
    for _ in 0..3 {
        registered.push(register_webhook(app, &players[0], &receiver.url).await["id"].clone());
    }
    let walked: Vec<Value> = app
        .walk(&players[0], "/v1/me/webhooks", "webhooks", 1)
        .await
        .iter()
        .map(|hook| hook["id"].clone())
        .collect();
    assert_eq!(walked, registered);
}

/// Deliveries written while no instance delivers are made after a restart: the outbox is in
/// the database, not in the process.
async fn the_outbox_survives_a_restart(app: TestApp) {
    let receiver = Receiver::start(vec![]).await;
    let players = vec![app.register("alice").await, app.register("bob").await];
    register_webhook(&app, &players[0], &receiver.url).await;
    let id = app.new_game("tikal", json!({}), &players).await;
    play_moves(&app, &players, &id, 4).await;
    let count = notifications_of(&app, &players[0]).await.len();
    assert!(count >= 2);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        receiver.received().is_empty(),
        "nothing delivers on this instance"
    );
    let app = app.restart_with(allow_private_and_poll_fast).await;
    receiver.wait_for(count).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(receiver.received().len(), count, "each once");
    drop(app);
}

/// A receiver that fails gets the same delivery again (same webhook-id) after the backoff.
async fn a_failed_delivery_is_retried(app: &TestApp) {
    let receiver = Receiver::start(vec![503]).await;
    let alice = app.register("alice").await;
    let webhook = register_webhook(app, &alice, &receiver.url).await;
    let hook_id = webhook["id"].as_str().unwrap();
    app.post(
        &alice,
        &format!("/v1/me/webhooks/{hook_id}/test"),
        &json!({}),
    )
    .await
    .expect_status(202);
    let first = receiver.wait_for(1).await;
    // The receiver has the request; the server records its answer right after it.
    let recorded = std::time::Instant::now();
    let failed = loop {
        let page = app
            .get(&alice, &format!("/v1/me/webhooks/{hook_id}/deliveries"))
            .await
            .json();
        if !page["deliveries"][0]["last_status"].is_null()
            || recorded.elapsed() > Duration::from_secs(10)
        {
            break page;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(failed["deliveries"][0]["state"], "pending", "{failed}");
    assert_eq!(failed["deliveries"][0]["last_status"], 503);
    let both = receiver.wait_for(2).await;
    assert_eq!(
        both[1].headers["webhook-id"],
        first[0].headers["webhook-id"]
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let delivered = app
        .get(&alice, &format!("/v1/me/webhooks/{hook_id}/deliveries"))
        .await
        .json();
    assert_eq!(
        delivered["deliveries"][0]["state"], "delivered",
        "{delivered}"
    );
    assert_eq!(delivered["deliveries"][0]["attempts"], 2);
}

mod scenarios {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn webhooks_deliver_once_signed_on_sqlite() {
        let app = TestApp::start_with(Backend::Sqlite, allow_private_and_poll_fast).await;
        one_signed_delivery_per_notification(&app).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn webhooks_deliver_once_signed_on_postgres() {
        let app = TestApp::start_with(Backend::Postgres, allow_private_and_poll_fast).await;
        one_signed_delivery_per_notification(&app).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_delivery_is_retried_after_its_backoff() {
        let app = TestApp::start_with(Backend::Sqlite, allow_private_and_poll_fast).await;
        a_failed_delivery_is_retried(&app).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_outbox_survives_a_restart_on_sqlite() {
        let app = TestApp::start_with(Backend::Sqlite, |config| {
            config.webhooks_allow_private = true;
            config.webhook_poll_ms = 0;
        })
        .await;
        the_outbox_survives_a_restart(app).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_outbox_survives_a_restart_on_postgres() {
        let app = TestApp::start_with(Backend::Postgres, |config| {
            config.webhooks_allow_private = true;
            config.webhook_poll_ms = 0;
        })
        .await;
        the_outbox_survives_a_restart(app).await;
    }
}

/// Two instances on one Postgres, both delivering: every notification reaches the receiver
/// exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_deliver_each_notification_exactly_once() {
    let app = TestApp::start_with(Backend::Postgres, allow_private_and_poll_fast).await;
    let other = app.second_instance_with(allow_private_and_poll_fast).await;
    let receiver = Receiver::start(vec![]).await;
    let players = vec![app.register("alice").await, other.register("bob").await];
    register_webhook(&app, &players[0], &receiver.url).await;
    register_webhook(&other, &players[1], &receiver.url).await;
    let id = app.new_game("tikal", json!({}), &players).await;
    play_moves(&app, &players, &id, 12).await;
    play_moves(&other, &players, &id, 12).await;
    let expected = notifications_of(&app, &players[0]).await.len()
        + notifications_of(&other, &players[1]).await.len();
    let received = receiver.wait_for(expected).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let received_now = receiver.received();
    assert_eq!(
        received_now.len(),
        expected,
        "no delivery twice ({} first)",
        received.len()
    );
    let mut ids: Vec<String> = received_now
        .iter()
        .map(|d| d.headers["webhook-id"].clone())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), expected);
}

/// Without the operator's permission, loopback and private addresses are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_addresses_are_refused_by_default() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    for url in [
        "http://127.0.0.1:9/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://[::1]/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://localhost/hook",
        "ftp://example.org/hook",
        "not a url",
    ] {
        app.post(&alice, "/v1/me/webhooks", &json!({"url": url}))
            .await
            .expect_problem(422, "invalid_webhook_url");
    }
}

/// A receiver that reads each request and never answers, counting the connections it holds
/// at once, by path and in all.
#[derive(Default)]
struct Hanging {
    open_by_path: Mutex<BTreeMap<String, usize>>,
    most_by_path: Mutex<BTreeMap<String, usize>>,
    most_in_all: Mutex<usize>,
}

impl Hanging {
    /// Starts one; returns it with its base URL.
    async fn start() -> (Arc<Hanging>, String) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hanging = Arc::new(Hanging::default());
        let counts = hanging.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let counts = counts.clone();
                tokio::spawn(async move {
                    let mut buffer = Vec::new();
                    let mut head = [0u8; 4096];
                    while !buffer.windows(4).any(|window| window == b"\r\n\r\n") {
                        match socket.read(&mut head).await {
                            Ok(read) if read > 0 => buffer.extend_from_slice(&head[..read]),
                            _ => return,
                        }
                    }
                    let path = String::from_utf8_lossy(&buffer)
                        .split_whitespace()
                        .nth(1)
                        .unwrap_or_default()
                        .to_owned();
                    counts.opened(&path);
                    // Held until the server gives up on it.
                    while matches!(socket.read(&mut head).await, Ok(read) if read > 0) {}
                    counts.closed(&path);
                });
            }
        });
        (hanging, base)
    }

    fn opened(&self, path: &str) {
        let mut open = self.open_by_path.lock().unwrap();
        *open.entry(path.to_owned()).or_default() += 1;
        let now = open[path];
        let mut most = self.most_by_path.lock().unwrap();
        let most_here = most.entry(path.to_owned()).or_default();
        *most_here = (*most_here).max(now);
        let mut most_in_all = self.most_in_all.lock().unwrap();
        *most_in_all = (*most_in_all).max(open.values().sum());
    }

    fn closed(&self, path: &str) {
        *self
            .open_by_path
            .lock()
            .unwrap()
            .get_mut(path)
            .expect("opened before") -= 1;
    }
}

/// One account's webhooks point at receivers that never answer and it queues many test
/// deliveries: each of its webhooks has one delivery in flight at most, the account at most
/// its share, and another account's delivery goes out while they all still hang (the
/// receivers are given 30 s, the other delivery is expected well before that).
async fn a_hanging_receiver_delays_no_other_account(app: &TestApp) {
    let (hanging, base) = Hanging::start().await;
    let greedy = app.register("greedy").await;
    let mut hooks = Vec::new();
    for path in ["a", "b", "c"] {
        hooks.push(register_webhook(app, &greedy, &format!("{base}/{path}")).await);
    }
    for _ in 0..10 {
        for hook in &hooks {
            let id = hook["id"].as_str().unwrap();
            app.post(&greedy, &format!("/v1/me/webhooks/{id}/test"), &json!({}))
                .await
                .expect_status(202);
        }
    }
    // Until the greedy account's posts are all hanging.
    for _ in 0..100 {
        if *hanging.most_in_all.lock().unwrap() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let receiver = Receiver::start(vec![]).await;
    let patient = app.register("patient").await;
    let hook = register_webhook(app, &patient, &receiver.url).await;
    let started = std::time::Instant::now();
    let id = hook["id"].as_str().unwrap();
    app.post(&patient, &format!("/v1/me/webhooks/{id}/test"), &json!({}))
        .await
        .expect_status(202);
    receiver.wait_for(1).await;
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "delivered while the others hang"
    );
    assert!(
        hanging
            .most_by_path
            .lock()
            .unwrap()
            .values()
            .all(|most| *most == 1),
        "one delivery in flight per webhook: {:?}",
        hanging.most_by_path.lock().unwrap()
    );
    assert_eq!(
        *hanging.most_in_all.lock().unwrap(),
        2,
        "the account's share of the pool"
    );
    // Test deliveries are rate limited per account.
    let mut refused = None;
    for _ in 0..40 {
        let answer = app
            .post(
                &greedy,
                &format!("/v1/me/webhooks/{}/test", hooks[0]["id"].as_str().unwrap()),
                &json!({}),
            )
            .await;
        if answer.status == 429 {
            refused = Some(answer);
            break;
        }
    }
    let refused = refused.expect("the test deliveries' rate limit");
    assert!(refused.header("retry-after").is_some());
    refused.expect_problem(429, "rate_limited");
}

fn hanging_receivers_get_thirty_seconds(config: &mut turnpost::config::Config) {
    allow_private_and_poll_fast(config);
    config.webhook_timeout_seconds = 30;
    config.webhook_tests_per_hour_per_account = 40;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_receiver_delays_no_other_account_on_sqlite() {
    let app = TestApp::start_with(Backend::Sqlite, hanging_receivers_get_thirty_seconds).await;
    a_hanging_receiver_delays_no_other_account(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_receiver_delays_no_other_account_on_postgres() {
    let app = TestApp::start_with(Backend::Postgres, hanging_receivers_get_thirty_seconds).await;
    a_hanging_receiver_delays_no_other_account(&app).await;
}
