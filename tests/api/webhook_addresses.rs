//! Webhooks reach only the addresses they were checked for: a name that answers a permitted
//! address to one lookup and a loopback one to the next (DNS rebinding) gets nothing
//! delivered to loopback; a delivery connects to the address its own lookup gave; addresses
//! that are not public are refused in every written form; a slow resolver holds up only
//! the registrations that wait for it; failures are told as categories.
//!
//! 127.0.0.2 stands for a public receiver (the operator opens it with
//! `--webhooks-allow-network`), 127.0.0.1 for the inside the server must not reach; both
//! listen on the same port, so only the address a delivery connects to tells them apart.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use turnpost::outbound::resolver::LookupFuture;
use turnpost::outbound::{HostLookup, SharedLookup};

use crate::util::{Backend, Player, TestApp};
use crate::webhooks::{register_webhook, Receiver};
use crate::with_each_backend;

/// A resolver double: answers each lookup with the next of its scripted answers (the last
/// one again once they run out), or never answers at all; counts the lookups.
struct ScriptedLookup {
    answers: Mutex<VecDeque<Vec<IpAddr>>>,
    last: Mutex<Vec<IpAddr>>,
    never_answers: bool,
    lookups: AtomicUsize,
}

impl ScriptedLookup {
    fn answering(answers: &[&[&str]]) -> Arc<ScriptedLookup> {
        Arc::new(ScriptedLookup {
            answers: Mutex::new(
                answers
                    .iter()
                    .map(|answer| answer.iter().map(|ip| ip.parse().unwrap()).collect())
                    .collect(),
            ),
            last: Mutex::new(Vec::new()),
            never_answers: false,
            lookups: AtomicUsize::new(0),
        })
    }

    fn never_answering() -> Arc<ScriptedLookup> {
        Arc::new(ScriptedLookup {
            answers: Mutex::new(VecDeque::new()),
            last: Mutex::new(Vec::new()),
            never_answers: true,
            lookups: AtomicUsize::new(0),
        })
    }

    fn lookups(&self) -> usize {
        self.lookups.load(Ordering::SeqCst)
    }
}

impl HostLookup for ScriptedLookup {
    fn lookup(&self, _host: &str) -> LookupFuture {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        if self.never_answers {
            return Box::pin(std::future::pending());
        }
        let answer = {
            let mut last = self.last.lock().unwrap();
            if let Some(next) = self.answers.lock().unwrap().pop_front() {
                *last = next;
            }
            last.clone()
        };
        Box::pin(async move { Ok(answer) })
    }
}

/// The server with `lookup` as its resolver and 127.0.0.2 opened as if it were public.
async fn start(backend: Backend, lookup: Arc<ScriptedLookup>) -> TestApp {
    TestApp::start_with(backend, move |config| {
        config.webhook_poll_ms = 100;
        config.webhooks_allow_networks = vec!["127.0.0.2/32".parse().unwrap()];
        config.webhook_host_lookup = Some(SharedLookup(lookup));
    })
    .await
}

/// The permitted receiver on 127.0.0.2 and the forbidden one on 127.0.0.1, on one port.
async fn receivers_on_one_port() -> (Receiver, Receiver) {
    for _ in 0..50 {
        let permitted = Receiver::start_at("127.0.0.2:0", Vec::new())
            .await
            .expect("127.0.0.2 is a loopback address on Linux");
        let port = permitted.port();
        if let Some(forbidden) = Receiver::start_at(&format!("127.0.0.1:{port}"), Vec::new()).await
        {
            return (permitted, forbidden);
        }
    }
    panic!("no port free on both 127.0.0.1 and 127.0.0.2");
}

/// The webhook's newest delivery once the result of its `attempts`th attempt is recorded
/// (the count goes up when an attempt starts).
async fn deliveries_after(app: &TestApp, player: &Player, webhook: &str, attempts: u64) -> Value {
    for _ in 0..200 {
        let deliveries = app
            .get(player, &format!("/v1/me/webhooks/{webhook}/deliveries"))
            .await
            .expect_status(200)
            .json();
        let newest = &deliveries["deliveries"][0];
        let recorded = newest["state"] != "pending" || !newest["last_error"].is_null();
        if newest["attempts"].as_u64() >= Some(attempts) && recorded {
            return newest.clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no attempt was recorded for {webhook}");
}

async fn send_test(app: &TestApp, player: &Player, webhook: &str) {
    app.post(
        player,
        &format!("/v1/me/webhooks/{webhook}/test"),
        &json!({}),
    )
    .await
    .expect_status(202);
}

/// The name answers 127.0.0.2 when registered and 127.0.0.1 when delivered to: the
/// delivery is refused on its own lookup, and nothing reaches either receiver.
async fn a_rebinding_name_gets_nothing_delivered_inside(backend: Backend) {
    let lookup = ScriptedLookup::answering(&[&["127.0.0.2"], &["127.0.0.1"]]);
    let app = start(backend, lookup.clone()).await;
    let (permitted, forbidden) = receivers_on_one_port().await;
    let alice = app.register("alice").await;
    let url = format!("http://rebinding.example:{}/hook", permitted.port());
    let webhook = register_webhook(&app, &alice, &url).await;
    let id = webhook["id"].as_str().unwrap();
    assert_eq!(lookup.lookups(), 1);
    send_test(&app, &alice, id).await;
    let delivery = deliveries_after(&app, &alice, id, 1).await;
    assert_eq!(delivery["state"], "pending", "{delivery}");
    assert_eq!(delivery["last_error"], "could not deliver: refused address");
    assert_eq!(delivery["last_status"], Value::Null);
    // One lookup for the attempt, judged and used: none for a second opinion.
    assert_eq!(lookup.lookups(), 2);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(forbidden.received().is_empty());
    assert!(permitted.received().is_empty());
}

/// A delivery goes to exactly the address its lookup gave and judged.
async fn a_delivery_connects_to_the_address_it_checked(backend: Backend) {
    let lookup = ScriptedLookup::answering(&[&["127.0.0.2"]]);
    let app = start(backend, lookup.clone()).await;
    let (permitted, forbidden) = receivers_on_one_port().await;
    let alice = app.register("alice").await;
    let url = format!("http://receiver.example:{}/hook", permitted.port());
    let webhook = register_webhook(&app, &alice, &url).await;
    let id = webhook["id"].as_str().unwrap();
    send_test(&app, &alice, id).await;
    let received = permitted.wait_for(1).await;
    assert!(received[0].body.contains("\"type\":\"test\""));
    let delivery = deliveries_after(&app, &alice, id, 1).await;
    assert_eq!(delivery["state"], "delivered", "{delivery}");
    assert_eq!(lookup.lookups(), 2);
    assert!(forbidden.received().is_empty());
}

/// A name with a permitted and a private address is refused as a whole; a receiver's
/// error status and a closed port are reported as categories, not the transport's words.
async fn mixed_names_are_refused_and_failures_are_categories(backend: Backend) {
    let lookup = ScriptedLookup::answering(&[&["127.0.0.2", "10.0.0.1"], &["127.0.0.2"]]);
    let app = start(backend, lookup).await;
    let alice = app.register("alice").await;
    let refused = app
        .post(
            &alice,
            "/v1/me/webhooks",
            &json!({"url": "http://mixed.example/hook"}),
        )
        .await
        .expect_problem(422, "invalid_webhook_url");
    assert!(
        refused["detail"].as_str().unwrap().contains("not public"),
        "{refused}"
    );

    let failing = Receiver::start_at("127.0.0.2:0", vec![500])
        .await
        .expect("127.0.0.2");
    let webhook = register_webhook(&app, &alice, &failing.url).await;
    let id = webhook["id"].as_str().unwrap();
    send_test(&app, &alice, id).await;
    let delivery = deliveries_after(&app, &alice, id, 1).await;
    assert_eq!(delivery["last_error"], "could not deliver: HTTP 500");
    assert_eq!(delivery["last_status"], 500);

    let closed_port = {
        let listener = std::net::TcpListener::bind("127.0.0.2:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://receiver.example:{closed_port}/hook");
    let webhook = register_webhook(&app, &alice, &url).await;
    let id = webhook["id"].as_str().unwrap();
    send_test(&app, &alice, id).await;
    let delivery = deliveries_after(&app, &alice, id, 1).await;
    assert_eq!(delivery["last_error"], "could not deliver: no connection");
}

/// Every written form of an address that is not public is refused, IPv4 embedded in IPv6
/// included; the operator's opened network does not open its neighbours.
async fn addresses_that_are_not_public_are_refused_in_every_form(backend: Backend) {
    let lookup = ScriptedLookup::answering(&[&["127.0.0.1"]]);
    let app = start(backend, lookup.clone()).await;
    let alice = app.register("alice").await;
    for host in [
        "[::127.0.0.1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:0:127.0.0.1]",
        "[64:ff9b::127.0.0.1]",
        "[64:ff9b::a9fe:a9fe]",
        "[2002:7f00:1::1]",
        "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
        "[fec0::1]",
        "[fd00::1]",
        "[fe80::1]",
        "[2001:db8::1]",
        "[::]",
        "198.18.0.1",
        "240.0.0.1",
        "192.0.0.170",
        "100.64.0.1",
        "0.0.0.0",
        "127.0.0.3",
        "2130706433",
        "0x7f.1",
        "127.1",
    ] {
        let url = format!("http://{host}/hook");
        app.post(&alice, "/v1/me/webhooks", &json!({"url": url}))
            .await
            .expect_problem(422, "invalid_webhook_url");
    }
    assert_eq!(lookup.lookups(), 0, "written addresses are never looked up");
}

/// Registration checks its rate and the quota before any lookup, has one lookup per
/// account in flight, and a resolver that never answers delays only those registrations:
/// they fail after the lookup's timeout while health checks and play go on.
async fn a_slow_resolver_holds_up_only_the_registrations_waiting_for_it(backend: Backend) {
    let lookup = ScriptedLookup::never_answering();
    let app = start(backend, lookup.clone()).await;
    let app = Arc::new(app);
    let mut players = Vec::new();
    for index in 0..6 {
        players.push(app.register(&format!("player{index}")).await);
    }
    let hanging: Vec<_> = players
        .iter()
        .map(|player| {
            let (app, player) = (app.clone(), player.clone());
            tokio::spawn(async move {
                app.post(
                    &player,
                    "/v1/me/webhooks",
                    &json!({"url": "http://slow.example/hook"}),
                )
                .await
            })
        })
        .collect();
    while lookup.lookups() < players.len() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // While every lookup hangs: the server answers, play goes on, and the same accounts
    // cannot pile up more lookups.
    app.request(reqwest::Method::GET, "/readyz", None, None, &[])
        .await
        .expect_status(200);
    let id = app.new_game("tikal", json!({}), &players[..2]).await;
    app.play_first_legal_action(&players[..2], &id).await;
    app.post(
        &players[0],
        "/v1/me/webhooks",
        &json!({"url": "http://another.example/hook"}),
    )
    .await
    .expect_problem(429, "registration_in_progress");
    assert!(hanging.iter().all(|task| !task.is_finished()));
    for task in hanging {
        let refused = task
            .await
            .unwrap()
            .expect_problem(422, "invalid_webhook_url");
        assert!(
            refused["detail"].as_str().unwrap().contains("timed out"),
            "{refused}"
        );
    }
    assert_eq!(lookup.lookups(), players.len());
}

/// The quota and the hourly rate are asked before the address is looked up.
async fn quota_and_rate_come_before_the_lookup(backend: Backend) {
    let lookup = ScriptedLookup::answering(&[&["127.0.0.2"]]);
    let app = TestApp::start_with(backend, {
        let lookup = lookup.clone();
        move |config| {
            config.webhooks_allow_networks = vec!["127.0.0.2/32".parse().unwrap()];
            config.webhook_host_lookup = Some(SharedLookup(lookup));
            config.webhook_registrations_per_hour_per_account = 12;
        }
    })
    .await;
    let alice = app.register("alice").await;
    for index in 0..10 {
        register_webhook(&app, &alice, &format!("http://127.0.0.2:9/hook{index}")).await;
    }
    // Refusals count against the rate: the twelfth registration of the hour is the last.
    for _ in 0..2 {
        app.post(
            &alice,
            "/v1/me/webhooks",
            &json!({"url": "http://one-too-many.example/hook"}),
        )
        .await
        .expect_problem(409, "webhook_quota");
    }
    assert_eq!(lookup.lookups(), 0);
    let limited = app
        .post(
            &alice,
            "/v1/me/webhooks",
            &json!({"url": "http://one-too-many.example/hook"}),
        )
        .await;
    assert!(limited.header("retry-after").is_some());
    limited.expect_problem(429, "rate_limited");
    assert_eq!(lookup.lookups(), 0);
}

with_each_backend!(
    a_rebinding_name_gets_nothing_delivered_inside,
    a_delivery_connects_to_the_address_it_checked,
    mixed_names_are_refused_and_failures_are_categories,
    addresses_that_are_not_public_are_refused_in_every_form,
    a_slow_resolver_holds_up_only_the_registrations_waiting_for_it,
    quota_and_rate_come_before_the_lookup,
);
