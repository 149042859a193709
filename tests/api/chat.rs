//! A chat per game: who writes, mentions that notify, tombstones, exports, long polls and a
//! flood that stays the flooder's problem.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::{of_type, Player, TestApp};

on_both_backends!(
    players_chat_and_mentions_notify,
    spectators_write_where_the_game_lets_them,
    a_chat_flood_is_limited_per_account,
);

async fn say(app: &TestApp, player: &Player, id: &str, text: &str) -> Value {
    app.post(
        player,
        &format!("/v1/games/{id}/chat"),
        &json!({ "text": text }),
    )
    .await
    .expect_status(201)
    .json()
}

async fn chat(app: &TestApp, player: &Player, id: &str, after: i64) -> Value {
    app.get(player, &format!("/v1/games/{id}/chat?after={after}"))
        .await
        .expect_status(200)
        .json()
}

async fn players_chat_and_mentions_notify(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob.clone()])
        .await;

    let first = say(app, &alice, &id, "  good luck, @BOB!  ").await;
    assert_eq!(first["text"], "good luck, @BOB!");
    assert_eq!(first["seat"], 0);
    assert_eq!(first["author"]["name"], "alice");
    assert_eq!(first["mentions"], json!(["bob"]));
    assert!(first["deleted_at"].is_null());
    let heard = app.notifications_after(&bob, 0, 0).await;
    let mentions = of_type(&heard, "mention");
    assert_eq!(mentions.len(), 1, "{heard:?}");
    assert_eq!(mentions[0]["by"], "alice");
    assert_eq!(mentions[0]["message_id"], first["id"]);
    assert_eq!(mentions[0]["seat"], 1);
    let second = say(app, &bob, &id, "thanks,\nyou too").await;
    let heard = app.notifications_after(&alice, 0, 0).await;
    let messages = of_type(&heard, "chat_message");
    assert_eq!(messages.len(), 1, "{heard:?}");
    assert_eq!(messages[0]["message_id"], second["id"]);
    assert!(of_type(&app.notifications_after(&bob, 0, 0).await, "chat_message").is_empty());

    // A spectator reads the chat but does not write in it.
    let log = chat(app, &carol, &id, 0).await;
    assert_eq!(log["spectators_may_write"], false);
    assert_eq!(log["messages"].as_array().unwrap().len(), 2);
    assert_eq!(log["messages"][1]["text"], "thanks,\nyou too");
    app.post(
        &carol,
        &format!("/v1/games/{id}/chat"),
        &json!({"text": "hi"}),
    )
    .await
    .expect_problem(403, "not_a_player");
    let first_id = first["id"].as_i64().unwrap();
    let after = chat(app, &carol, &id, first_id).await;
    assert_eq!(after["messages"].as_array().unwrap().len(), 1);

    // What is not a message is refused, and nothing is stored.
    for text in [
        "   ".to_owned(),
        "x".repeat(1001),
        "a bell \u{7}".to_owned(),
    ] {
        app.post(
            &alice,
            &format!("/v1/games/{id}/chat"),
            &json!({ "text": text }),
        )
        .await
        .expect_problem(422, "invalid_chat_message");
    }
    app.post(
        &alice,
        &format!("/v1/games/{id}/chat"),
        &json!({"words": "hi"}),
    )
    .await
    .expect_problem(422, "invalid_request");
    app.post(&alice, "/v1/games/nosuchgame/chat", &json!({"text": "hi"}))
        .await
        .expect_problem(404, "game_not_found");
    assert_eq!(
        chat(app, &alice, &id, 0).await["messages"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Only the author deletes a message; a tombstone stays.
    let path = format!("/v1/games/{id}/chat/{first_id}");
    app.request(reqwest::Method::DELETE, &path, Some(&bob.token), None, &[])
        .await
        .expect_problem(403, "not_the_author");
    let tombstone = app
        .request(
            reqwest::Method::DELETE,
            &path,
            Some(&alice.token),
            None,
            &[],
        )
        .await
        .expect_status(200)
        .json();
    assert!(tombstone["text"].is_null());
    assert!(tombstone["deleted_at"].is_string());
    let again = app
        .request(
            reqwest::Method::DELETE,
            &path,
            Some(&alice.token),
            None,
            &[],
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(again, tombstone, "deleting again changes nothing");
    for missing in ["999999", "0", "abc"] {
        app.request(
            reqwest::Method::DELETE,
            &format!("/v1/games/{id}/chat/{missing}"),
            Some(&alice.token),
            None,
            &[],
        )
        .await
        .expect_problem(404, "message_not_found");
    }
    let log = chat(app, &bob, &id, 0).await;
    assert!(log["messages"][0]["text"].is_null());
    assert_eq!(log["messages"][0]["id"], first_id);

    // Exports hold the chat, unless asked without it.
    let export = app
        .get(&carol, &format!("/v1/games/{id}/export"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(export["format_version"], 5);
    assert_eq!(export["chat"], log["messages"]);
    let without = app
        .get(&carol, &format!("/v1/games/{id}/export?chat=false"))
        .await
        .expect_status(200)
        .json();
    assert!(without.get("chat").is_none(), "{without}");

    // A long poll answers as soon as a message is written, on any instance.
    let last = second["id"].as_i64().unwrap();
    let started = Instant::now();
    let waiting = async {
        app.get(&carol, &format!("/v1/games/{id}/chat?after={last}&wait=20"))
            .await
            .expect_status(200)
            .json()
    };
    let writing = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        say(app, &bob, &id, "your move").await
    };
    let (woke, third) = tokio::join!(waiting, writing);
    assert_eq!(woke["messages"][0]["id"], third["id"]);
    assert!(started.elapsed() < Duration::from_secs(15));

    // Signing out everywhere ends a waiting long poll.
    let after = third["id"].as_i64().unwrap();
    let waiting = async {
        app.get(
            &carol,
            &format!("/v1/games/{id}/chat?after={after}&wait=20"),
        )
        .await
    };
    let signing_out = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        app.request(
            reqwest::Method::DELETE,
            "/v1/me/tokens",
            Some(&carol.token),
            None,
            &[],
        )
        .await
    };
    let (answer, _) = tokio::join!(waiting, signing_out);
    answer.expect_problem(401, "token_revoked");
}

async fn spectators_write_where_the_game_lets_them(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let id = app
        .new_game_with(
            json!({"kind": "java", "spectator_chat": true}),
            &[alice.clone(), bob.clone()],
        )
        .await;
    let log = chat(app, &carol, &id, 0).await;
    assert_eq!(log["spectators_may_write"], true);
    let written = say(app, &carol, &id, "nice opening @alice").await;
    assert!(written["seat"].is_null());
    assert_eq!(written["mentions"], json!(["alice"]));
    assert_eq!(
        of_type(&app.notifications_after(&alice, 0, 0).await, "mention").len(),
        1
    );
    assert_eq!(
        of_type(&app.notifications_after(&bob, 0, 0).await, "chat_message").len(),
        1
    );
    // A rematch keeps the setting.
    app.post(&alice, &format!("/v1/games/{id}/resign"), &json!({}))
        .await
        .expect_status(200);
    let rematch = app
        .post(&bob, &format!("/v1/games/{id}/rematch"), &json!({}))
        .await
        .expect_status(201)
        .json();
    let rematch_id = rematch["id"].as_str().unwrap();
    assert_eq!(
        chat(app, &carol, rematch_id, 0).await["spectators_may_write"],
        true
    );
}

async fn a_chat_flood_is_limited_per_account(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob.clone()])
        .await;
    for n in 0..10 {
        say(app, &alice, &id, &format!("message {n}")).await;
    }
    let refused = app
        .post(
            &alice,
            &format!("/v1/games/{id}/chat"),
            &json!({"text": "one more"}),
        )
        .await;
    let retry = refused.header("retry-after").map(str::to_owned);
    refused.expect_problem(429, "rate_limited");
    assert!(retry.is_some(), "a refusal says when to retry");
    // The flood is Alice's problem: Bob still writes at once.
    say(app, &bob, &id, "calm down").await;
    assert_eq!(
        chat(app, &bob, &id, 0).await["messages"]
            .as_array()
            .unwrap()
            .len(),
        11
    );
}
