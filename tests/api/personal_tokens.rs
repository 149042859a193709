//! Personal tokens: named, scoped and expiring bearer tokens for scripts and bots. A request
//! outside a token's scopes is 403 `missing_scope`; tokens are listed without their secrets
//! and revoked one by one, at once; signing out everywhere or a new password revokes them
//! all; a token cannot make a stronger one.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};
use turnpost_client::{Client, Scope};

use crate::live::Stream;
use crate::on_both_backends;
use crate::util::{Player, TestApp};

/// A personal token `owner` creates with `body`; the answer and the token as a player.
async fn create(app: &TestApp, owner: &Player, body: Value) -> (Value, Player) {
    let created = app
        .post(owner, "/v1/me/personal-tokens", &body)
        .await
        .expect_status(201)
        .json();
    let token = Player {
        token: created["token"].as_str().expect("the token").to_owned(),
    };
    (created, token)
}

async fn create_with_scopes(app: &TestApp, owner: &Player, scopes: &[&str]) -> Player {
    create(app, owner, json!({"name": "bot", "scopes": scopes}))
        .await
        .1
}

async fn delete(app: &TestApp, player: &Player, path: &str) -> crate::util::Response {
    app.request(Method::DELETE, path, Some(&player.token), None, &[])
        .await
}

/// The game's current seq and the seat that must act.
async fn whose_turn(app: &TestApp, reader: &Player, id: &str) -> (i64, usize) {
    let summary = app
        .get(reader, &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json();
    (
        summary["current_seq"].as_i64().unwrap(),
        summary["to_act"][0].as_u64().unwrap() as usize,
    )
}

/// A `games:read` token reads a game but may not act, register a webhook or manage
/// tokens; with `games:play` too, a bot plays with it.
async fn a_token_may_do_what_its_scopes_allow_and_nothing_else(app: &TestApp) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    let (created, reader) = create(
        app,
        &players[0],
        json!({"name": "ada's viewer", "scopes": ["games:read"], "expires_in_days": 7}),
    )
    .await;
    assert_eq!(created["name"], "ada's viewer");
    assert_eq!(created["scopes"], json!(["games:read"]));
    assert!(created["token"].as_str().unwrap().starts_with("tpat_"));
    app.get(&reader, &format!("/v1/games/{id}/view"))
        .await
        .expect_status(200);
    app.request(
        Method::HEAD,
        &format!("/v1/games/{id}/view"),
        Some(&reader.token),
        None,
        &[],
    )
    .await
    .expect_status(200);
    let (seq, seat) = whose_turn(app, &reader, &id).await;
    let legal = app
        .get(&players[seat], &format!("/v1/games/{id}/legal-actions"))
        .await
        .json();
    let act = json!({"expected_seq": seq, "action": legal["actions"][0]});
    let refused = app
        .post(&reader, &format!("/v1/games/{id}/actions"), &act)
        .await;
    // The challenge names the scope needed (RFC 6750, section 3.1).
    assert_eq!(
        refused.header("www-authenticate"),
        Some("Bearer realm=\"turnpost\", error=\"insufficient_scope\", scope=\"games:play\"")
    );
    let refused = refused.expect_problem(403, "missing_scope");
    let detail = refused["detail"].as_str().unwrap();
    assert!(
        detail.contains("games:play") && detail.contains("games:read"),
        "{detail}"
    );
    app.post(
        &reader,
        "/v1/me/webhooks",
        &json!({"url": "https://example.org/hook"}),
    )
    .await
    .expect_problem(403, "missing_scope");
    app.get(&reader, "/v1/me/webhooks")
        .await
        .expect_problem(403, "missing_scope");
    app.get(&reader, "/v1/me/personal-tokens")
        .await
        .expect_problem(403, "missing_scope");
    delete(app, &reader, "/v1/me/tokens")
        .await
        .expect_problem(403, "missing_scope");
    app.get(&players[0], &format!("/v1/games/{id}"))
        .await
        .expect_status(200);

    // A bot's token: it reads the legal actions and acts for its seat.
    let bot = create_with_scopes(app, &players[seat], &["games:read", "games:play"]).await;
    let mut seats = players.clone();
    seats[seat] = bot.clone();
    let new_seq = app.play_first_legal_action(&seats, &id).await;
    assert!(new_seq > seq);
    app.post(&bot, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await
        .expect_status(201);
}

/// The list shows names, scopes and times, never a secret; revoking a token refuses it at
/// once (this instance reuses token checks for a second otherwise), and the others go on.
async fn tokens_are_listed_without_secrets_and_revoked_at_once(app: &TestApp) {
    let ada = app.register("ada").await;
    let (first, used) = create(
        app,
        &ada,
        json!({"name": "used", "scopes": ["games:read", "account:manage"]}),
    )
    .await;
    let (second, unused) = create(
        app,
        &ada,
        json!({"name": "unused", "scopes": ["webhooks:manage"], "expires_in_days": 365}),
    )
    .await;
    app.get(&used, "/v1/games").await.expect_status(200);
    let listing = app
        .get(&used, "/v1/me/personal-tokens")
        .await
        .expect_status(200);
    for token in [&used, &unused] {
        let secret = token.token.rsplit('_').next().unwrap();
        assert!(!listing.text.contains(secret), "{}", listing.text);
    }
    let listed = listing.json()["personal_tokens"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(listed.len(), 2);
    let listed_as = |created: &Value| {
        listed
            .iter()
            .find(|token| token["id"] == created["id"])
            .expect("listed")
            .clone()
    };
    let listed = [listed_as(&first), listed_as(&second)];
    for (token, created) in listed.iter().zip([&first, &second]) {
        assert!(token.get("token").is_none(), "{token}");
        for field in ["name", "scopes", "created_at", "expires_at"] {
            assert_eq!(token[field], created[field], "{field}");
        }
    }
    assert!(listed[0]["last_used_at"].is_string(), "{}", listed[0]);
    assert!(listed[1]["last_used_at"].is_null(), "{}", listed[1]);
    // 90 days by default, 365 when asked.
    let days = |token: &Value| {
        let parse = |field: &str| {
            time::OffsetDateTime::parse(
                token[field].as_str().unwrap(),
                &time::format_description::well_known::Rfc3339,
            )
            .unwrap()
        };
        (parse("expires_at") - parse("created_at")).whole_days()
    };
    assert_eq!(days(&listed[0]), 90);
    assert_eq!(days(&listed[1]), 365);

    let first_id = first["id"].as_str().unwrap();
    delete(app, &ada, &format!("/v1/me/personal-tokens/{first_id}"))
        .await
        .expect_status(204);
    app.get(&used, "/v1/games")
        .await
        .expect_problem(401, "token_revoked");
    delete(app, &ada, &format!("/v1/me/personal-tokens/{first_id}"))
        .await
        .expect_problem(404, "token_not_found");
    app.get(&unused, "/v1/me/webhooks").await.expect_status(200);
    let listed = app
        .get(&ada, "/v1/me/personal-tokens")
        .await
        .expect_status(200)
        .json();
    assert_eq!(listed["personal_tokens"].as_array().unwrap().len(), 1);
    assert_eq!(listed["personal_tokens"][0]["id"], second["id"]);
}

/// Another account's token is not found, and stays valid.
async fn another_accounts_token_cannot_be_revoked(app: &TestApp) {
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let (created, token) =
        create(app, &ada, json!({"name": "ada", "scopes": ["games:read"]})).await;
    let id = created["id"].as_str().unwrap();
    delete(app, &bo, &format!("/v1/me/personal-tokens/{id}"))
        .await
        .expect_problem(404, "token_not_found");
    delete(app, &bo, "/v1/me/personal-tokens/nosuchtokenatall")
        .await
        .expect_problem(404, "token_not_found");
    let listed = app.get(&bo, "/v1/me/personal-tokens").await.json();
    assert_eq!(listed["personal_tokens"], json!([]));
    app.get(&token, "/v1/games").await.expect_status(200);
}

/// A token past its expiry is refused as expired.
async fn an_expired_token_is_refused_as_expired(app: &TestApp) {
    let ada = app.register("ada").await;
    let (created, token) =
        create(app, &ada, json!({"name": "old", "scopes": ["games:read"]})).await;
    app.execute_sql(&format!(
        "UPDATE personal_tokens SET expires_at = 1000 WHERE id = '{}'",
        created["id"].as_str().unwrap()
    ));
    let refused = app
        .get(&token, "/v1/games")
        .await
        .expect_problem(401, "token_expired");
    assert!(
        refused["detail"].as_str().unwrap().contains("1970"),
        "{refused}"
    );
}

/// Tokens that are not well formed are invalid; a well-formed one that the server never
/// issued, or with another secret, is refused like a revoked one.
async fn forged_and_malformed_tokens_are_refused(app: &TestApp) {
    let ada = app.register("ada").await;
    let real = create_with_scopes(app, &ada, &["games:read"]).await;
    for malformed in ["tpat_", "tpat_abc_def", &format!("{}x", real.token)] {
        app.request(Method::GET, "/v1/games", Some(malformed), None, &[])
            .await
            .expect_problem(401, "invalid_token");
    }
    let secret = real.token.rsplit('_').next().unwrap();
    let other_secret: String = secret
        .chars()
        .map(|c| if c == '0' { '1' } else { '0' })
        .collect();
    let forged = real.token.replace(secret, &other_secret);
    let unknown = format!("tpat_nosuchtokenatall_{secret}");
    // A known id with a wrong secret answers exactly as an unknown id: status, headers
    // (all but the date) and body, whichever worker answers.
    let mut answers = Vec::new();
    for _ in 0..4 {
        for refused in [&forged, &unknown] {
            let answer = app
                .request(Method::GET, "/v1/games", Some(refused), None, &[])
                .await;
            let mut headers: Vec<(String, String)> = answer
                .headers
                .iter()
                .filter(|(name, _)| *name != "date")
                .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
                .collect();
            headers.sort();
            answers.push((answer.status, headers, answer.text.clone()));
            answer.expect_problem(401, "token_revoked");
        }
    }
    assert!(
        answers.windows(2).all(|pair| pair[0] == pair[1]),
        "{answers:#?}"
    );
    app.get(&real, "/v1/games").await.expect_status(200);
}

/// Signing out everywhere and a new password revoke every personal token, also one a
/// personal token asks for itself.
async fn signing_out_everywhere_and_a_new_password_revoke_personal_tokens(app: &TestApp) {
    let ada = app.register("ada").await;
    let reader = create_with_scopes(app, &ada, &["games:read"]).await;
    app.get(&reader, "/v1/games").await.expect_status(200);
    delete(app, &ada, "/v1/me/tokens").await.expect_status(204);
    app.get(&reader, "/v1/games")
        .await
        .expect_problem(401, "token_revoked");
    let ada = app.sign_in("ada", "s3cret-pass").await;
    let listed = app.get(&ada, "/v1/me/personal-tokens").await.json();
    assert_eq!(listed["personal_tokens"], json!([]));

    let reader = create_with_scopes(app, &ada, &["games:read"]).await;
    app.get(&reader, "/v1/games").await.expect_status(200);
    let fresh = app
        .post(
            &ada,
            "/v1/me/password",
            &json!({"current_password": "s3cret-pass", "new_password": "new-s3cret-pass"}),
        )
        .await
        .expect_status(200)
        .json();
    app.get(&reader, "/v1/games")
        .await
        .expect_problem(401, "token_revoked");
    let ada = Player {
        token: fresh["token"].as_str().unwrap().to_owned(),
    };

    let manager = create_with_scopes(app, &ada, &["account:manage"]).await;
    let reader = create_with_scopes(app, &ada, &["games:read"]).await;
    delete(app, &manager, "/v1/me/tokens")
        .await
        .expect_status(204);
    for revoked in [&manager, &reader, &ada] {
        app.get(revoked, "/v1/me/personal-tokens")
            .await
            .expect_problem(401, "token_revoked");
    }
}

/// An account has at most 50 personal tokens; an expired one makes room.
async fn an_account_has_at_most_fifty_tokens(app: &TestApp) {
    let ada = app.register("ada").await;
    let mut first = None;
    for index in 0..50 {
        let (created, _) = create(
            app,
            &ada,
            json!({"name": format!("token {index}"), "scopes": ["games:read"]}),
        )
        .await;
        first.get_or_insert(created);
    }
    let body = json!({"name": "one too many", "scopes": ["games:read"]});
    app.post(&ada, "/v1/me/personal-tokens", &body)
        .await
        .expect_problem(409, "personal_token_quota");
    app.execute_sql(&format!(
        "UPDATE personal_tokens SET expires_at = 1000 WHERE id = '{}'",
        first.unwrap()["id"].as_str().unwrap()
    ));
    create(app, &ada, body).await;
    let listed = app.get(&ada, "/v1/me/personal-tokens").await.json();
    assert_eq!(listed["personal_tokens"].as_array().unwrap().len(), 50);
}

/// Creations at once, through two instances, cannot both take the last place.
async fn the_last_place_goes_to_one_of_many_creations_at_once(app: &TestApp) {
    let ada = app.register("ada").await;
    for index in 0..48 {
        create(
            app,
            &ada,
            json!({"name": format!("token {index}"), "scopes": ["games:read"]}),
        )
        .await;
    }
    let other = Arc::new(app.second_instance().await);
    let attempts: Vec<_> = (0..12)
        .map(|index| {
            let (other, ada) = (other.clone(), ada.clone());
            let body = json!({"name": format!("racer {index}"), "scopes": ["games:read"]});
            tokio::spawn(async move { other.post(&ada, "/v1/me/personal-tokens", &body).await })
        })
        .collect();
    let bodies: Vec<Value> = (0..12)
        .map(|index| json!({"name": format!("local {index}"), "scopes": ["games:read"]}))
        .collect();
    let here: Vec<_> = bodies
        .iter()
        .map(|body| app.post(&ada, "/v1/me/personal-tokens", body))
        .collect();
    let mut statuses = Vec::new();
    for answer in futures_util::future::join_all(here).await {
        statuses.push(answer.status);
    }
    for attempt in attempts {
        statuses.push(attempt.await.unwrap().status);
    }
    assert_eq!(statuses.iter().filter(|&&status| status == 201).count(), 2);
    assert!(
        statuses
            .iter()
            .all(|&status| status == 201 || status == 409),
        "{statuses:?}"
    );
    let listed = app.get(&ada, "/v1/me/personal-tokens").await.json();
    assert_eq!(listed["personal_tokens"].as_array().unwrap().len(), 50);
}

/// Bodies are checked: unknown scopes and fields, empty or long names, no scopes, expiries
/// out of range.
async fn bodies_are_checked(app: &TestApp) {
    let ada = app.register("ada").await;
    let cases = [
        (
            json!({"name": "x", "scopes": ["games:write"]}),
            "invalid_request",
        ),
        (
            json!({"name": "x", "scopes": ["games:read"], "colour": "red"}),
            "invalid_request",
        ),
        (json!({"scopes": ["games:read"]}), "invalid_request"),
        (json!({"name": "x"}), "invalid_request"),
        (
            json!({"name": "", "scopes": ["games:read"]}),
            "invalid_token_name",
        ),
        (
            json!({"name": "x".repeat(65), "scopes": ["games:read"]}),
            "invalid_token_name",
        ),
        (json!({"name": "x", "scopes": []}), "invalid_scopes"),
        (
            json!({"name": "x", "scopes": ["games:read"], "expires_in_days": 0}),
            "invalid_expiry",
        ),
        (
            json!({"name": "x", "scopes": ["games:read"], "expires_in_days": 366}),
            "invalid_expiry",
        ),
        (
            json!({"name": "x", "scopes": ["games:read"], "expires_in_days": -1}),
            "invalid_request",
        ),
    ];
    for (body, code) in cases {
        let problem = app
            .post(&ada, "/v1/me/personal-tokens", &body)
            .await
            .expect_problem(422, code);
        assert!(problem["detail"].as_str().is_some(), "{body}");
    }
    let listed = app.get(&ada, "/v1/me/personal-tokens").await.json();
    assert_eq!(listed["personal_tokens"], json!([]));
}

/// A personal token with `account:manage` creates tokens only with scopes it has and no
/// longer-lived than itself; a sign-in token creates any.
async fn a_personal_token_cannot_make_a_stronger_one(app: &TestApp) {
    let ada = app.register("ada").await;
    let manager = create(
        app,
        &ada,
        json!({"name": "manager", "scopes": ["account:manage", "games:read"], "expires_in_days": 10}),
    )
    .await
    .1;
    let problem = app
        .post(
            &manager,
            "/v1/me/personal-tokens",
            &json!({"name": "player", "scopes": ["games:read", "games:play"], "expires_in_days": 5}),
        )
        .await
        .expect_problem(403, "missing_scope");
    assert!(
        problem["detail"].as_str().unwrap().contains("games:play"),
        "{problem}"
    );
    app.post(
        &manager,
        "/v1/me/personal-tokens",
        &json!({"name": "reader", "scopes": ["games:read"]}),
    )
    .await
    .expect_problem(422, "invalid_expiry");
    let (created, reader) = create(
        app,
        &manager,
        json!({"name": "reader", "scopes": ["games:read"], "expires_in_days": 9}),
    )
    .await;
    assert_eq!(created["scopes"], json!(["games:read"]));
    app.get(&reader, "/v1/games").await.expect_status(200);
    let (created, _) = create(
        app,
        &ada,
        json!({"name": "all", "scopes": ["games:play", "account:manage", "games:read", "webhooks:manage"]}),
    )
    .await;
    assert_eq!(
        created["scopes"],
        json!([
            "games:read",
            "games:play",
            "webhooks:manage",
            "account:manage"
        ])
    );
}

/// Revoking the personal token a stream was opened with closes the stream and ends a long
/// poll with 401; a stream opened with another token goes on.
async fn revoking_a_token_closes_its_streams(app: &TestApp) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app.new_game("tikal", json!({}), &players).await;
    let (created, revoked) = create(
        app,
        &players[0],
        json!({"name": "watcher", "scopes": ["games:read"]}),
    )
    .await;
    let kept = create_with_scopes(app, &players[0], &["games:read"]).await;
    let mut game_stream = Stream::open(app, &revoked, &id, None).await;
    let mut account_stream = Stream::open_path(app, &revoked, "/v1/me/stream", None).await;
    let mut other = Stream::open(app, &kept, &id, None).await;
    assert!(game_stream.next().await.is_some(), "the opening events");
    assert!(other.next().await.is_some());
    let poll = {
        let (base, token, id) = (app.base.clone(), revoked.token.clone(), id.clone());
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
    delete(
        app,
        &players[0],
        &format!("/v1/me/personal-tokens/{}", created["id"].as_str().unwrap()),
    )
    .await
    .expect_status(204);
    for stream in [&mut game_stream, &mut account_stream] {
        while let Some(frame) = stream.next().await {
            assert!(frame.id.is_some(), "only events before the end");
        }
    }
    let answer = tokio::time::timeout(Duration::from_secs(10), poll)
        .await
        .expect("the long poll ends at once")
        .unwrap();
    assert_eq!(answer.status(), 401);
    let problem: Value = answer.json().await.unwrap();
    assert_eq!(problem["code"], "token_revoked");
    app.play_first_legal_action(&players, &id).await;
    let frame = other
        .next()
        .await
        .expect("the other token's stream goes on");
    assert!(frame.id.is_some());
}

/// A revocation through one instance applies at once on another that asks the database
/// on every request.
async fn a_revocation_applies_on_other_instances(app: &TestApp) {
    let asking = app
        .second_instance_with(|config| config.token_recheck_ms = 0)
        .await;
    let ada = app.register("ada").await;
    let (created, token) = create(app, &ada, json!({"name": "x", "scopes": ["games:read"]})).await;
    asking.get(&token, "/v1/games").await.expect_status(200);
    delete(
        app,
        &ada,
        &format!("/v1/me/personal-tokens/{}", created["id"].as_str().unwrap()),
    )
    .await
    .expect_status(204);
    asking
        .get(&token, "/v1/games")
        .await
        .expect_problem(401, "token_revoked");
}

/// The typed client creates, lists and revokes tokens; a client with a token refused a
/// scope gets the problem's code.
async fn the_client_manages_personal_tokens(app: &TestApp) {
    let checked = Client::new(&app.base).with_inspector(Arc::new(
        |method, path, status, content_type, body| {
            crate::contract::check(method, path, status, content_type, body)
        },
    ));
    let ada = checked.register("ada", "s3cret-pass").await.unwrap();
    let created = ada
        .create_personal_token("reader", &[Scope::GamesRead], Some(3))
        .await
        .unwrap();
    assert_eq!(created.scopes, [Scope::GamesRead]);
    let reader = checked.clone().with_token(&created.token);
    assert!(reader.my_games(false).await.unwrap().is_empty());
    let refused = reader
        .create_personal_token("more", &[Scope::GamesRead], None)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some("missing_scope"));
    let listed = ada.personal_tokens().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, created.id);
    assert!(listed[0].last_used_at.is_some());
    ada.revoke_personal_token(&created.id).await.unwrap();
    assert_eq!(
        reader.my_games(false).await.unwrap_err().code(),
        Some("token_revoked")
    );
    assert_eq!(
        ada.revoke_personal_token(&created.id)
            .await
            .unwrap_err()
            .code(),
        Some("token_not_found")
    );
}

/// A token's last use is written at most once a minute, not on every request (asked of an
/// instance that checks the token in the database on every request).
async fn the_last_use_is_noted_at_most_once_a_minute(app: &TestApp) {
    let asking = app
        .second_instance_with(|config| config.token_recheck_ms = 0)
        .await;
    let ada = app.register("ada").await;
    let (created, token) = create(app, &ada, json!({"name": "x", "scopes": ["games:read"]})).await;
    let last_used = || async {
        app.get(&ada, "/v1/me/personal-tokens").await.json()["personal_tokens"][0]["last_used_at"]
            .clone()
    };
    assert!(last_used().await.is_null());
    asking.get(&token, "/v1/games").await.expect_status(200);
    let first = last_used().await;
    assert!(first.is_string(), "{first}");
    tokio::time::sleep(Duration::from_millis(20)).await;
    asking.get(&token, "/v1/games").await.expect_status(200);
    assert_eq!(
        last_used().await,
        first,
        "noted a moment ago: not written again"
    );
    app.execute_sql(&format!(
        "UPDATE personal_tokens SET last_used_at = 1000 WHERE id = '{}'",
        created["id"].as_str().unwrap()
    ));
    asking.get(&token, "/v1/games").await.expect_status(200);
    let again = last_used().await;
    assert!(
        again.as_str().unwrap() >= first.as_str().unwrap(),
        "{again} after {first}"
    );
}

on_both_backends!(
    a_token_may_do_what_its_scopes_allow_and_nothing_else,
    tokens_are_listed_without_secrets_and_revoked_at_once,
    another_accounts_token_cannot_be_revoked,
    an_expired_token_is_refused_as_expired,
    forged_and_malformed_tokens_are_refused,
    signing_out_everywhere_and_a_new_password_revoke_personal_tokens,
    an_account_has_at_most_fifty_tokens,
    the_last_place_goes_to_one_of_many_creations_at_once,
    bodies_are_checked,
    a_personal_token_cannot_make_a_stronger_one,
    revoking_a_token_closes_its_streams,
    a_revocation_applies_on_other_instances,
    the_client_manages_personal_tokens,
    the_last_use_is_noted_at_most_once_a_minute,
);
