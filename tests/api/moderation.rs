//! Blocks, reports and moderation, as the people involved meet them: a blocked account's
//! invitations, chat and mentions no longer reach the blocker; reports keep what was
//! reported; a moderator (granted by the `turnpost` command) hides a message, mutes and
//! suspends an account, and every step is in the audit log with who and why.

use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::{of_type, Player, TestApp};

on_both_backends!(
    a_block_keeps_invitations_chat_and_mentions_away,
    invitations_to_one_account_are_limited,
    reports_keep_what_was_reported,
    moderators_hide_mute_and_suspend_and_the_log_says_why,
);

fn turnpost(app: &TestApp, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .args(["--database-url", app.database_url()])
        .args(args)
        .output()
        .expect("the server binary runs")
}

fn grant_moderator(app: &TestApp, name: &str) {
    let granted = turnpost(
        app,
        &["grant-moderator", name, "--reason", "trusted player"],
    );
    assert!(
        granted.status.success(),
        "{}",
        String::from_utf8_lossy(&granted.stderr)
    );
}

async fn put(app: &TestApp, player: &Player, path: &str) -> crate::util::Response {
    app.request(reqwest::Method::PUT, path, Some(&player.token), None, &[])
        .await
}

async fn delete(app: &TestApp, player: &Player, path: &str) -> crate::util::Response {
    app.request(
        reqwest::Method::DELETE,
        path,
        Some(&player.token),
        None,
        &[],
    )
    .await
}

async fn invitations(app: &TestApp, player: &Player) -> Vec<Value> {
    app.get(player, "/v1/me/invitations")
        .await
        .expect_status(200)
        .json()["invitations"]
        .as_array()
        .unwrap()
        .clone()
}

async fn chat(app: &TestApp, player: &Player, id: &str) -> Vec<Value> {
    app.get(player, &format!("/v1/games/{id}/chat"))
        .await
        .expect_status(200)
        .json()["messages"]
        .as_array()
        .unwrap()
        .clone()
}

async fn a_block_keeps_invitations_chat_and_mentions_away(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let mallory = app.register("mallory").await;
    // Mallory's invitation stands when Alice blocks her: blocking declines it.
    let invite = |from: Player, to: &'static str| async move {
        app.post(
            &from,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "visibility": "private", "invite": [to]}),
        )
        .await
    };
    let standing = invite(mallory.clone(), "alice")
        .await
        .expect_status(201)
        .json();
    assert_eq!(invitations(app, &alice).await.len(), 1);
    let blocked = put(app, &alice, "/v1/me/blocks/Mallory")
        .await
        .expect_status(201);
    assert_eq!(blocked.json()["account"]["name"], "mallory");
    put(app, &alice, "/v1/me/blocks/mallory")
        .await
        .expect_status(200);
    assert!(invitations(app, &alice).await.is_empty());
    app.post(
        &alice,
        &format!("/v1/games/{}/seats", standing["id"].as_str().unwrap()),
        &json!({}),
    )
    .await
    .expect_problem(404, "game_not_found");
    let listed = app
        .get(&alice, "/v1/me/blocks")
        .await
        .expect_status(200)
        .json();
    assert_eq!(listed["blocked"][0]["account"]["name"], "mallory");
    put(app, &alice, "/v1/me/blocks/alice")
        .await
        .expect_problem(409, "cannot_block_yourself");
    put(app, &alice, "/v1/me/blocks/nobody")
        .await
        .expect_problem(404, "account_not_found");

    // No invitation either way.
    invite(mallory.clone(), "alice")
        .await
        .expect_problem(403, "blocked");
    invite(alice.clone(), "mallory")
        .await
        .expect_problem(403, "blocked");

    // In a public game all three play, Mallory's messages and mentions do not reach Alice;
    // Bob reads them.
    let id = app
        .new_game(
            "tikal",
            json!({}),
            &[bob.clone(), mallory.clone(), alice.clone()],
        )
        .await;
    let seen = app.last_notification_id(&alice).await;
    let bob_seen = app.last_notification_id(&bob).await;
    app.post(
        &mallory,
        &format!("/v1/games/{id}/chat"),
        &json!({"text": "hey @alice and @bob"}),
    )
    .await
    .expect_status(201);
    assert!(app.notifications_after(&alice, seen, 0).await.is_empty());
    let bob_heard = app.notifications_after(&bob, bob_seen, 0).await;
    assert_eq!(of_type(&bob_heard, "mention").len(), 1, "{bob_heard:?}");
    let alice_reads = chat(app, &alice, &id).await;
    assert_eq!(alice_reads[0]["hidden"], "blocked");
    assert_eq!(alice_reads[0]["text"], Value::Null);
    let bob_reads = chat(app, &bob, &id).await;
    assert_eq!(bob_reads[0]["hidden"], Value::Null);
    assert_eq!(bob_reads[0]["text"], "hey @alice and @bob");

    // Unblocked, they may invite each other again.
    delete(app, &alice, "/v1/me/blocks/mallory")
        .await
        .expect_status(204);
    delete(app, &alice, "/v1/me/blocks/mallory")
        .await
        .expect_problem(404, "not_blocked");
    invite(mallory.clone(), "alice").await.expect_status(201);
    assert_eq!(chat(app, &alice, &id).await[0]["hidden"], Value::Null);
    let seen = app.last_notification_id(&alice).await;
    app.post(
        &mallory,
        &format!("/v1/games/{id}/chat"),
        &json!({"text": "friends again, @alice?"}),
    )
    .await
    .expect_status(201);
    let heard = app.notifications_after(&alice, seen, 0).await;
    assert_eq!(of_type(&heard, "mention").len(), 1, "{heard:?}");
}

/// Creating and cancelling games to invite someone again and again reaches them a few
/// times an hour, not 25 times a second.
async fn invitations_to_one_account_are_limited(app: &TestApp) {
    let limited = app
        .second_instance_with(|config| {
            config.invitations_per_hour_per_invitee = 5;
            config.invitations_per_hour_per_account = 8;
        })
        .await;
    let victim = limited.register("victim").await;
    let mut flooders = Vec::new();
    for index in 0..2 {
        flooders.push(limited.register(&format!("flooder{index}")).await);
    }
    let mut answers = Vec::new();
    for flooder in &flooders {
        for _ in 0..6 {
            let created = limited
                .post(
                    flooder,
                    "/v1/games",
                    &json!({"kind": "tikal", "seats": 2, "visibility": "private",
                            "invite": ["victim"]}),
                )
                .await;
            answers.push(created.status);
            if created.status == 201 {
                let id = created.json()["id"].as_str().unwrap().to_owned();
                limited
                    .post(flooder, &format!("/v1/games/{id}/cancel"), &json!({}))
                    .await
                    .expect_status(200);
            } else {
                created.expect_problem(429, "rate_limited");
            }
        }
    }
    // Five from the first flooder; from the second only three more reach the victim.
    assert_eq!(
        answers,
        [201, 201, 201, 201, 201, 429, 201, 201, 201, 429, 429, 429]
    );
    let heard = limited.notifications_after(&victim, 0, 0).await;
    assert_eq!(of_type(&heard, "invitation").len(), 8);
}

async fn reports_keep_what_was_reported(app: &TestApp) {
    let bob = app.register("bob").await;
    let mallory = app.register("mallory").await;
    let id = app
        .new_game("tikal", json!({}), &[bob.clone(), mallory.clone()])
        .await;
    let written = app
        .post(
            &mallory,
            &format!("/v1/games/{id}/chat"),
            &json!({"text": "you are terrible"}),
        )
        .await
        .expect_status(201)
        .json();
    let message_id = written["id"].as_i64().unwrap();
    let own = app
        .post(
            &bob,
            &format!("/v1/games/{id}/chat"),
            &json!({"text": "calm down"}),
        )
        .await
        .expect_status(201)
        .json()["id"]
        .as_i64()
        .unwrap();
    let filed = app
        .post(
            &bob,
            "/v1/reports",
            &json!({"account": "mallory", "message": {"game_id": id, "message_id": message_id},
                    "reason": "insults"}),
        )
        .await
        .expect_status(201)
        .json();
    assert!(filed["id"].as_i64().unwrap() > 0);
    app.post(
        &bob,
        "/v1/reports",
        &json!({"account": "mallory", "reason": "a pattern"}),
    )
    .await
    .expect_status(201);
    // A report names the account; a body without one is not a report at all.
    app.post(&bob, "/v1/reports", &json!({"reason": "nothing named"}))
        .await
        .expect_problem(422, "invalid_request");
    for (body, status, code) in [
        (
            json!({"account": "mallory", "reason": "\u{200B}"}),
            422,
            "invalid_reason",
        ),
        (
            json!({"account": "bob", "reason": "me"}),
            409,
            "cannot_report_yourself",
        ),
        (
            json!({"account": "nobody", "reason": "who"}),
            404,
            "account_not_found",
        ),
        (
            json!({"account": "mallory", "message": {"game_id": id, "message_id": 999},
                   "reason": "gone"}),
            404,
            "message_not_found",
        ),
        // Bob's own message is not mallory's: it cannot stand for her in a report.
        (
            json!({"account": "mallory", "message": {"game_id": id, "message_id": own},
                   "reason": "not hers"}),
            404,
            "message_not_found",
        ),
    ] {
        app.post(&bob, "/v1/reports", &body)
            .await
            .expect_problem(status, code);
    }
    // Ten reports an hour per account: those refused for what they said counted too (the
    // limit comes first), so the tenth comes within this loop.
    let mut last = None;
    for _ in 0..10 {
        last = Some(
            app.post(
                &bob,
                "/v1/reports",
                &json!({"account": "mallory", "reason": "again"}),
            )
            .await,
        );
    }
    last.unwrap().expect_problem(429, "rate_limited");
    // What was reported stays, even once its author deleted it.
    app.request(
        reqwest::Method::DELETE,
        &format!("/v1/games/{id}/chat/{message_id}"),
        Some(&mallory.token),
        None,
        &[],
    )
    .await
    .expect_status(200);
    let carol = app.register("carol").await;
    app.get(&carol, "/v1/moderation/reports")
        .await
        .expect_problem(403, "not_a_moderator");
    grant_moderator(app, "carol");
    let reports = app
        .get(&carol, "/v1/moderation/reports")
        .await
        .expect_status(200)
        .json()["reports"]
        .clone();
    assert_eq!(reports[0]["reporter"]["name"], "bob");
    assert_eq!(reports[0]["account"]["name"], "mallory");
    assert_eq!(reports[0]["message"]["text"], "you are terrible");
    assert_eq!(reports[0]["reason"], "insults");
    assert_eq!(reports[0]["resolved_at"], Value::Null);
    let first = reports[0]["id"].as_i64().unwrap();
    app.post(
        &carol,
        &format!("/v1/moderation/reports/{first}/resolve"),
        &json!({"reason": "warned by mail"}),
    )
    .await
    .expect_status(204);
    app.post(
        &carol,
        &format!("/v1/moderation/reports/{first}/resolve"),
        &json!({"reason": "again"}),
    )
    .await
    .expect_problem(404, "report_not_found");
    // An id no report can have names none, however it is written.
    for id in ["0", "-1", "x", "99999999999999999999"] {
        app.post(
            &carol,
            &format!("/v1/moderation/reports/{id}/resolve"),
            &json!({"reason": "no such"}),
        )
        .await
        .expect_problem(404, "report_not_found");
    }
    let open = app
        .get(&carol, "/v1/moderation/reports?account=mallory")
        .await
        .expect_status(200)
        .json()["reports"]
        .clone();
    assert!(open.as_array().unwrap().iter().all(|r| r["id"] != first));
    let resolved = app
        .get(&carol, "/v1/moderation/reports?state=resolved")
        .await
        .expect_status(200)
        .json()["reports"]
        .clone();
    assert_eq!(resolved.as_array().unwrap().len(), 1);
    assert_eq!(resolved[0]["id"], first);
    let all = app
        .get(&carol, "/v1/moderation/reports?state=all&limit=200")
        .await
        .expect_status(200)
        .json()["reports"]
        .clone();
    assert!(all.as_array().unwrap().len() >= 2, "{all}");
    let walked = app
        .walk(&carol, "/v1/moderation/reports?state=all", "reports", 1)
        .await;
    assert_eq!(&walked, all.as_array().unwrap());
}

async fn moderators_hide_mute_and_suspend_and_the_log_says_why(app: &TestApp) {
    let bob = app.register("bob").await;
    let mallory = app.register("mallory").await;
    let carol = app.register("carol").await;
    let dave = app.register("dave").await;
    grant_moderator(app, "carol");
    let id = app
        .new_game("tikal", json!({}), &[bob.clone(), mallory.clone()])
        .await;
    let written = app
        .post(
            &mallory,
            &format!("/v1/games/{id}/chat"),
            &json!({"text": "spam spam"}),
        )
        .await
        .expect_status(201)
        .json();
    let message_id = written["id"].as_i64().unwrap();

    // Hidden for everyone.
    app.post(
        &dave,
        &format!("/v1/moderation/games/{id}/chat/{message_id}/hide"),
        &json!({"reason": "spam"}),
    )
    .await
    .expect_problem(403, "not_a_moderator");
    app.post(
        &carol,
        &format!("/v1/moderation/games/{id}/chat/{message_id}/hide"),
        &json!({"reason": "spam"}),
    )
    .await
    .expect_status(204);
    for message in ["0", "x", "99999999999999999999"] {
        app.post(
            &carol,
            &format!("/v1/moderation/games/{id}/chat/{message}/hide"),
            &json!({"reason": "spam"}),
        )
        .await
        .expect_problem(404, "message_not_found");
    }
    let read = chat(app, &bob, &id).await;
    assert_eq!(read[0]["hidden"], "moderator");
    assert_eq!(read[0]["text"], Value::Null);

    // Muted: her messages are refused until the mute is lifted.
    let muted = app
        .post(
            &carol,
            "/v1/moderation/accounts/mallory/mute",
            &json!({"days": 3, "reason": "spam"}),
        )
        .await
        .expect_status(200)
        .json();
    assert!(muted["until"].as_str().is_some());
    app.post(
        &carol,
        "/v1/moderation/accounts/mallory/mute",
        &json!({"days": 0, "reason": "spam"}),
    )
    .await
    .expect_problem(422, "invalid_mute");
    app.post(
        &mallory,
        &format!("/v1/games/{id}/chat"),
        &json!({"text": "hi"}),
    )
    .await
    .expect_problem(403, "chat_muted");
    app.post(
        &carol,
        "/v1/moderation/accounts/mallory/unmute",
        &json!({"reason": "promised to stop"}),
    )
    .await
    .expect_status(200);
    app.post(
        &mallory,
        &format!("/v1/games/{id}/chat"),
        &json!({"text": "sorry"}),
    )
    .await
    .expect_status(201);

    // Suspended: her tokens stop, she cannot sign in, her games go on without her.
    let her_open = app
        .post(&mallory, "/v1/games", &json!({"kind": "java", "seats": 3}))
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let daves_open = app
        .post(&dave, "/v1/games", &json!({"kind": "java", "seats": 3}))
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(
        &mallory,
        &format!("/v1/games/{daves_open}/seats"),
        &json!({}),
    )
    .await
    .expect_status(200);
    app.post(
        &carol,
        "/v1/moderation/accounts/carol/suspend",
        &json!({"reason": "test"}),
    )
    .await
    .expect_problem(409, "cannot_suspend_yourself");
    app.post(
        &carol,
        "/v1/moderation/accounts/mallory/suspend",
        &json!({"reason": "ban evasion"}),
    )
    .await
    .expect_status(204);
    app.get(&mallory, "/v1/games")
        .await
        .expect_problem(401, "token_revoked");
    let refused = app
        .request(
            reqwest::Method::POST,
            "/v1/tokens",
            None,
            Some(&json!({"name": "mallory", "password": "s3cret-pass"})),
            &[],
        )
        .await;
    refused.expect_problem(403, "account_suspended");
    let guess = app
        .request(
            reqwest::Method::POST,
            "/v1/tokens",
            None,
            Some(&json!({"name": "mallory", "password": "wrong-guess"})),
            &[],
        )
        .await;
    guess.expect_problem(401, "invalid_credentials");
    let game = app.get(&bob, &format!("/v1/games/{id}")).await.json();
    assert_eq!(game["status"], "finished", "{game}");
    assert_eq!(game["outcome"]["places"], json!([1, 2]));
    assert_eq!(game["seats"][1]["forfeit"], "suspended");
    let events = app
        .get(&bob, &format!("/v1/games/{id}/events"))
        .await
        .json()["events"]
        .clone();
    let suspended = events
        .as_array()
        .unwrap()
        .iter()
        .find(|event| event["type"] == "seat_suspended")
        .expect("the log says why the seat left");
    assert_eq!(suspended["schema_version"], 2);
    let cancelled = app
        .get(&dave, &format!("/v1/games/{her_open}"))
        .await
        .json();
    assert_eq!(cancelled["cancel_reason"], "suspended");
    let left = app
        .get(&dave, &format!("/v1/games/{daves_open}"))
        .await
        .json();
    assert_eq!(left["seats"][1]["account"], Value::Null, "{left}");
    // The finished game's export still verifies.
    let export = app
        .get(&bob, &format!("/v1/games/{id}/export"))
        .await
        .expect_status(200)
        .text;
    let path = app.data_dir().join("suspended-export.json");
    std::fs::write(&path, export).unwrap();
    let verified = std::process::Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );

    app.post(
        &carol,
        "/v1/moderation/accounts/mallory/unsuspend",
        &json!({"reason": "appeal granted"}),
    )
    .await
    .expect_status(204);
    app.sign_in("mallory", "s3cret-pass").await;

    // The audit log: every step, who and why.
    let revoked = turnpost(
        app,
        &["revoke-moderator", "carol", "--reason", "stepped down"],
    );
    assert!(revoked.status.success());
    app.get(&carol, "/v1/moderation/log")
        .await
        .expect_problem(403, "not_a_moderator");
    grant_moderator(app, "dave");
    let log = app
        .get(&dave, "/v1/moderation/log")
        .await
        .expect_status(200)
        .json()["entries"]
        .clone();
    let steps: Vec<(Value, Value, Value)> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["action"].clone(),
                entry["moderator"]["name"].clone(),
                entry["reason"].clone(),
            )
        })
        .collect();
    let carol_did = |action: &str, reason: &str| (json!(action), json!("carol"), json!(reason));
    let operator_did = |action: &str, reason: &str| (json!(action), Value::Null, json!(reason));
    assert_eq!(
        steps,
        [
            operator_did("grant_moderator", "trusted player"),
            carol_did("hide_message", "spam"),
            carol_did("mute", "spam"),
            carol_did("unmute", "promised to stop"),
            carol_did("suspend", "ban evasion"),
            carol_did("unsuspend", "appeal granted"),
            operator_did("revoke_moderator", "stepped down"),
            operator_did("grant_moderator", "trusted player"),
        ]
    );
    assert_eq!(log[1]["message_id"], message_id);
    assert_eq!(log[2]["account"]["name"], "mallory");
    assert!(log[2]["until"].as_str().is_some());
    let paged = app
        .get(&dave, &format!("/v1/moderation/log?after={}", log[6]["id"]))
        .await
        .json()["entries"]
        .clone();
    assert_eq!(paged.as_array().unwrap().len(), 1);
    for limit in [1, 3] {
        let walked = app
            .walk(&dave, "/v1/moderation/log", "entries", limit)
            .await;
        assert_eq!(&walked, log.as_array().unwrap(), "limit {limit}");
    }
}
