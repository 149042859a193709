//! Limits on password work protect owners instead of locking them out: a stranger's guesses
//! do not stop the owner signing in from their own address, guesses spread over many
//! addresses wait longer and longer, one account's flood of password changes does not push
//! another user's sign-in out of the hashing queue, and behind a proxy the client address
//! is the one the proxy saw, not one the client wrote.
//!
//! The test client connects from 127.0.0.1, which the server trusts as its proxy here, so a
//! request's `X-Forwarded-For` stands for the address the proxy appended.

use std::sync::Arc;

use reqwest::Method;
use serde_json::{json, Value};

use crate::util::{Backend, Response, TestApp};
use crate::with_each_backend;

async fn start(backend: Backend, adjust: impl FnOnce(&mut turnpost::config::Config)) -> TestApp {
    TestApp::start_with(backend, |config| {
        config.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        adjust(config);
    })
    .await
}

async fn sign_in_from(app: &TestApp, forwarded_for: &str, name: &str, password: &str) -> Response {
    app.request(
        Method::POST,
        "/v1/tokens",
        None,
        Some(&json!({"name": name, "password": password})),
        &[("x-forwarded-for", forwarded_for)],
    )
    .await
}

async fn register_from(app: &TestApp, forwarded_for: &str, name: &str) -> Response {
    app.request(
        Method::POST,
        "/v1/accounts",
        None,
        Some(&json!({"name": name, "password": "s3cret-pass"})),
        &[("x-forwarded-for", forwarded_for)],
    )
    .await
}

/// A stranger guessing from their address is stopped there; the owner, from another
/// address, still signs in.
async fn guessing_from_one_address_does_not_lock_the_owner_out(backend: Backend) {
    let app = start(backend, |config| {
        config.sign_ins_per_minute_per_name_and_address = 5;
    })
    .await;
    register_from(&app, "198.51.100.20", "alice")
        .await
        .expect_status(201);
    for _ in 0..5 {
        sign_in_from(&app, "203.0.113.7", "alice", "guess-guess")
            .await
            .expect_problem(401, "invalid_credentials");
    }
    let stopped = sign_in_from(&app, "203.0.113.7", "alice", "s3cret-pass").await;
    assert!(stopped.header("retry-after").is_some());
    stopped.expect_problem(429, "rate_limited");
    sign_in_from(&app, "198.51.100.20", "alice", "s3cret-pass")
        .await
        .expect_status(200);
    // A first sign-in from a third address is not held back either.
    sign_in_from(&app, "192.0.2.50", "alice", "s3cret-pass")
        .await
        .expect_status(200);
}

/// Guesses from many addresses: past the name's allowance, addresses that never signed in
/// to it wait, each time longer; the owner's address does not.
async fn guesses_from_many_addresses_wait_longer_and_longer(backend: Backend) {
    let app = start(backend, |config| {
        config.wrong_passwords_per_hour_per_name = 4;
    })
    .await;
    register_from(&app, "198.51.100.20", "alice")
        .await
        .expect_status(201);
    for index in 0..5 {
        sign_in_from(&app, &format!("203.0.113.{index}"), "alice", "guess-guess")
            .await
            .expect_problem(401, "invalid_credentials");
    }
    let waiting = sign_in_from(&app, "203.0.113.100", "alice", "guess-guess").await;
    let first_wait: u64 = waiting.header("retry-after").unwrap().parse().unwrap();
    waiting.expect_problem(429, "rate_limited");
    tokio::time::sleep(std::time::Duration::from_secs(first_wait)).await;
    sign_in_from(&app, "203.0.113.101", "alice", "guess-guess")
        .await
        .expect_problem(401, "invalid_credentials");
    let waiting = sign_in_from(&app, "203.0.113.102", "alice", "guess-guess").await;
    let second_wait: u64 = waiting.header("retry-after").unwrap().parse().unwrap();
    waiting.expect_problem(429, "rate_limited");
    assert!(second_wait > first_wait, "{second_wait} after {first_wait}");
    // The right password from an unknown address waits too (it cannot be told apart from
    // a guess before it is checked) ...
    sign_in_from(&app, "203.0.113.103", "alice", "s3cret-pass")
        .await
        .expect_problem(429, "rate_limited");
    // ... but the owner's own address is not held back, and other names are untouched.
    sign_in_from(&app, "198.51.100.20", "alice", "s3cret-pass")
        .await
        .expect_status(200);
    register_from(&app, "198.51.100.21", "bob")
        .await
        .expect_status(201);
    sign_in_from(&app, "203.0.113.104", "bob", "s3cret-pass")
        .await
        .expect_status(200);
}

/// Password changes are limited per account, and a flood of them from one account takes
/// only its own share of the hashing queue: another user's sign-ins all succeed.
async fn a_flood_of_password_changes_does_not_push_others_out(backend: Backend) {
    let app = start(backend, |config| {
        // Hashes as slow as in production, so that the flood fills the queue.
        config.password_memory_kib = turnpost::config::Config::defaults().password_memory_kib;
        config.password_hashes = Some(1);
        config.password_queue = 16;
        config.password_changes_per_hour_per_account = 1_000;
        // The account's request slots would hold the flood back before it reached the
        // hashing queue (tests/api/request_slots.rs); this test is about the queue.
        config.requests_in_flight_per_account = 1_000;
    })
    .await;
    let app = Arc::new(app);
    let flooder = app.register("flooder").await;
    app.register("victim").await;
    let change = json!({"current_password": "wrong-wrong", "new_password": "new-secret-1"});
    let flood: Vec<_> = (0..60)
        .map(|_| {
            let (app, flooder, change) = (app.clone(), flooder.clone(), change.clone());
            tokio::spawn(async move { app.post(&flooder, "/v1/me/password", &change).await })
        })
        .collect();
    for _ in 0..5 {
        sign_in_from(&app, "198.51.100.30", "victim", "s3cret-pass")
            .await
            .expect_status(200);
    }
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    for task in flood {
        *statuses.entry(task.await.unwrap().status).or_default() += 1;
    }
    assert_eq!(statuses.get(&503), None, "{statuses:?}");
    assert!(statuses.contains_key(&429), "{statuses:?}");

    let limited = start(backend, |config| {
        config.password_changes_per_hour_per_account = 2;
    })
    .await;
    let carol = limited.register("carol").await;
    for _ in 0..2 {
        limited
            .post(&carol, "/v1/me/password", &change)
            .await
            .expect_problem(401, "invalid_credentials");
    }
    limited
        .post(&carol, "/v1/me/password", &change)
        .await
        .expect_problem(429, "rate_limited");
}

/// Behind a proxy that appends to `X-Forwarded-For`, what the client wrote before it does
/// not change which address is counted; without a trusted proxy the header is ignored.
async fn forwarded_addresses_cannot_dodge_limits(backend: Backend) {
    let app = start(backend, |config| {
        config.registrations_per_hour_per_address = 2;
    })
    .await;
    for index in 0..2 {
        register_from(
            &app,
            &format!("10.9.9.{index}, 198.51.100.9"),
            &format!("user{index}"),
        )
        .await
        .expect_status(201);
    }
    register_from(&app, "1.2.3.4, 198.51.100.9", "user2")
        .await
        .expect_problem(429, "rate_limited");
    register_from(&app, "198.51.100.10", "user3")
        .await
        .expect_status(201);

    let direct = TestApp::start_with(backend, |config| {
        config.registrations_per_hour_per_address = 1;
    })
    .await;
    register_from(&direct, "198.51.100.11", "dave")
        .await
        .expect_status(201);
    register_from(&direct, "198.51.100.12", "erin")
        .await
        .expect_problem(429, "rate_limited");
}

/// Request bodies are closed: a field the schema does not have is refused, the time
/// control's included.
async fn unknown_fields_are_refused(backend: Backend) {
    let app = TestApp::start(backend).await;
    let alice = app.register("alice").await;
    for time_control in [
        json!({"type": "none", "days": 3}),
        json!({"type": "days_per_move", "days": 3, "hours": 1}),
    ] {
        let problem: Value = app
            .post(
                &alice,
                "/v1/games",
                &json!({"kind": "tikal", "seats": 2, "time_control": time_control}),
            )
            .await
            .expect_problem(422, "invalid_request");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .contains("unknown field"),
            "{problem}"
        );
    }
}

/// Three instances on one database give one allowance, not three: sign-ins per address,
/// chat messages per account, and the wrong passwords a name takes from strangers are
/// counted together, wherever each request lands.
async fn limits_hold_across_instances(backend: Backend) {
    let limited = |config: &mut turnpost::config::Config| {
        config.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        config.sign_ins_per_minute_per_address = 4;
        config.chat_messages_per_minute_per_account = 3;
        config.wrong_passwords_per_hour_per_name = 2;
    };
    let first = start(backend, limited).await;
    let instances = [
        &first,
        &first.second_instance_with(limited).await,
        &first.second_instance_with(limited).await,
    ];
    register_from(&first, "198.51.100.20", "alice")
        .await
        .expect_status(201);
    // Four sign-ins from one address, spread over the instances; the fifth is one too many
    // on any of them.
    for index in 0..4 {
        sign_in_from(instances[index % 3], "203.0.113.9", "alice", "s3cret-pass")
            .await
            .expect_status(200);
    }
    for instance in instances {
        sign_in_from(instance, "203.0.113.9", "alice", "s3cret-pass")
            .await
            .expect_problem(429, "rate_limited");
    }
    // Three chat messages a minute, each on another instance.
    let alice = first.sign_in("alice", "s3cret-pass").await;
    let bob = first.register("bob").await;
    let id = first
        .new_game("tikal", json!({}), &[alice.clone(), bob.clone()])
        .await;
    let path = format!("/v1/games/{id}/chat");
    for instance in instances {
        instance
            .post(&alice, &path, &json!({"text": "hello"}))
            .await
            .expect_status(201);
    }
    for instance in instances {
        instance
            .post(&alice, &path, &json!({"text": "hello"}))
            .await
            .expect_problem(429, "rate_limited");
    }
    // Two wrong passwords for Bob from strangers (one instance each), a third elsewhere:
    // from then on strangers wait, on every instance.
    for (index, instance) in instances.iter().enumerate() {
        sign_in_from(instance, &format!("192.0.2.{index}"), "bob", "guess-guess")
            .await
            .expect_problem(401, "invalid_credentials");
    }
    // At once: the first wait is a second long.
    let addresses: Vec<String> = (10..13).map(|index| format!("192.0.2.{index}")).collect();
    let (a, b, c) = tokio::join!(
        sign_in_from(instances[0], &addresses[0], "bob", "guess-guess"),
        sign_in_from(instances[1], &addresses[1], "bob", "guess-guess"),
        sign_in_from(instances[2], &addresses[2], "bob", "guess-guess"),
    );
    for refused in [a, b, c] {
        refused.expect_problem(429, "rate_limited");
    }
}

with_each_backend!(
    limits_hold_across_instances,
    guessing_from_one_address_does_not_lock_the_owner_out,
    guesses_from_many_addresses_wait_longer_and_longer,
    a_flood_of_password_changes_does_not_push_others_out,
    forwarded_addresses_cannot_dodge_limits,
    unknown_fields_are_refused,
);
