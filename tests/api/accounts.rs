use reqwest::Method;
use serde_json::json;

use crate::on_both_backends;
use crate::util::{Player, TestApp};

async fn accounts_and_tokens(app: &TestApp) {
    let alice = app.register("alice").await;
    // Names are unique regardless of case.
    app.request(
        Method::POST,
        "/v1/accounts",
        None,
        Some(&json!({"name": "ALICE", "password": "another-pass"})),
        &[],
    )
    .await
    .expect_problem(409, "name_taken");
    app.request(
        Method::POST,
        "/v1/accounts",
        None,
        Some(&json!({"name": "bad name!", "password": "long-enough"})),
        &[],
    )
    .await
    .expect_problem(422, "invalid_name");
    app.request(
        Method::POST,
        "/v1/accounts",
        None,
        Some(&json!({"name": "bob", "password": "short"})),
        &[],
    )
    .await
    .expect_problem(422, "invalid_password");
    app.request(
        Method::POST,
        "/v1/accounts",
        None,
        Some(&json!({"name": "bob"})),
        &[],
    )
    .await
    .expect_problem(422, "invalid_request");
    app.request(
        Method::POST,
        "/v1/tokens",
        None,
        Some(&json!({"name": "alice", "password": "wrong-password"})),
        &[],
    )
    .await
    .expect_problem(401, "invalid_credentials");
    app.request(
        Method::POST,
        "/v1/tokens",
        None,
        Some(&json!({"name": "nobody", "password": "whatever-pass"})),
        &[],
    )
    .await
    .expect_problem(401, "invalid_credentials");
    let token = app
        .request(
            Method::POST,
            "/v1/tokens",
            None,
            Some(&json!({"name": "Alice", "password": "s3cret-pass"})),
            &[],
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(token["token_type"], "Bearer");
    assert_eq!(token["account"]["name"], "alice");
    assert!(token["expires_at"].as_u64().unwrap() > 1_700_000_000);

    // Every /v1 route but these two needs a valid bearer token.
    for path in [
        "/v1/game-kinds",
        "/v1/games",
        "/v1/games/abc",
        "/v1/games/abc/view",
    ] {
        // Each 401 says how to authenticate (RFC 6750, section 3).
        let missing = app.request(Method::GET, path, None, None, &[]).await;
        assert_eq!(
            missing.header("www-authenticate"),
            Some("Bearer realm=\"turnpost\"")
        );
        missing.expect_problem(401, "missing_token");
        let invalid = app
            .request(Method::GET, path, Some("not-a-jwt"), None, &[])
            .await;
        assert_eq!(
            invalid.header("www-authenticate"),
            Some("Bearer realm=\"turnpost\", error=\"invalid_token\"")
        );
        invalid.expect_problem(401, "invalid_token");
        app.request(
            Method::GET,
            path,
            None,
            None,
            &[("Authorization", "Basic YWxpY2U6eA==")],
        )
        .await
        .expect_problem(401, "invalid_token");
    }
    let forged = format!("{}x", &alice.token[..alice.token.len() - 1]);
    app.request(Method::GET, "/v1/games", Some(&forged), None, &[])
        .await
        .expect_problem(401, "invalid_token");
    app.get(&alice, "/v1/games").await.expect_status(200);
}

async fn health_and_unknown_routes(app: &TestApp) {
    let health = app
        .request(Method::GET, "/healthz", None, None, &[])
        .await
        .expect_status(200);
    assert_eq!(health.json()["status"], "ok");
    app.request(Method::GET, "/readyz", None, None, &[])
        .await
        .expect_status(200);
    app.request(Method::GET, "/v2/nothing", None, None, &[])
        .await
        .expect_problem(404, "route_not_found");
    let wrong_method = app
        .request(Method::DELETE, "/v1/games", None, None, &[])
        .await;
    let problem = wrong_method.expect_problem(405, "method_not_allowed");
    assert!(
        problem["detail"].as_str().unwrap().contains("GET, POST"),
        "{problem}"
    );
    app.request(Method::PUT, "/v1/games/abc/actions", None, None, &[])
        .await
        .expect_problem(405, "method_not_allowed");
    // Bodies that are not JSON, or too large, are clear 4xx problems.
    let alice = app.register("alice").await;
    let not_json = app
        .request(
            Method::POST,
            "/v1/games",
            Some(&alice.token),
            None,
            &[("Content-Type", "application/json")],
        )
        .await;
    not_json.expect_problem(400, "invalid_json");
    let huge = json!({"kind": "x".repeat(70_000), "seats": 2});
    app.post(&alice, "/v1/games", &huge)
        .await
        .expect_problem(413, "payload_too_large");
    let docs = app
        .request(Method::GET, "/docs/", None, None, &[])
        .await
        .expect_status(200);
    assert!(
        docs.text.contains("swagger"),
        "Swagger UI is served: {}",
        &docs.text[..200.min(docs.text.len())]
    );
}

/// A token signed with the server's secret for an account this database does not know (as
/// after a database reset that kept the secret) is refused, never a 500.
async fn a_token_for_a_vanished_account_is_refused(app: &TestApp) {
    let secret = std::fs::read(app.data_dir().join("jwt-secret")).unwrap();
    let keys = turnpost::auth::TokenKeys::new(&secret, 600);
    let ghost = turnpost::auth::AuthUser {
        account_id: "no-such-account".into(),
        name: "ghost".into(),
        token_generation: 0,
        credential: turnpost::auth::Credential::SignIn,
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let token = keys.issue(&ghost, 0, now).unwrap().token;
    app.request(Method::GET, "/v1/games", Some(&token), None, &[])
        .await
        .expect_problem(401, "unknown_account");
    let create = json!({"kind": "tikal", "seats": 2});
    app.request(Method::POST, "/v1/games", Some(&token), Some(&create), &[])
        .await
        .expect_problem(401, "unknown_account");
    let alice = app.register("alice").await;
    let game = app
        .post(&alice, "/v1/games", &create)
        .await
        .expect_status(201)
        .json();
    let join = format!("/v1/games/{}/seats", game["id"].as_str().unwrap());
    app.request(Method::POST, &join, Some(&token), Some(&json!({})), &[])
        .await
        .expect_problem(401, "unknown_account");
}

/// A password change revokes every older token and hands out a fresh one; "sign out
/// everywhere" revokes every token, the caller's too.
async fn password_changes_and_sign_out_everywhere_revoke_tokens(app: &TestApp) {
    let alice = app.register("alice").await;
    let laptop = app.sign_in("alice", "s3cret-pass").await;
    let change =
        |current: &str, new: &str| json!({"current_password": current, "new_password": new});
    app.post(
        &alice,
        "/v1/me/password",
        &change("wrong-password", "new-s3cret-pass"),
    )
    .await
    .expect_problem(401, "invalid_credentials");
    app.post(&alice, "/v1/me/password", &change("s3cret-pass", "short"))
        .await
        .expect_problem(422, "invalid_password");
    app.get(&laptop, "/v1/games").await.expect_status(200);
    let fresh = app
        .post(
            &alice,
            "/v1/me/password",
            &change("s3cret-pass", "new-s3cret-pass"),
        )
        .await
        .expect_status(200)
        .json();
    for old in [&alice, &laptop] {
        app.get(old, "/v1/games")
            .await
            .expect_problem(401, "token_revoked");
    }
    let fresh = Player {
        token: fresh["token"].as_str().unwrap().to_owned(),
    };
    app.get(&fresh, "/v1/games").await.expect_status(200);
    app.request(
        Method::POST,
        "/v1/tokens",
        None,
        Some(&json!({"name": "alice", "password": "s3cret-pass"})),
        &[],
    )
    .await
    .expect_problem(401, "invalid_credentials");
    let phone = app.sign_in("alice", "new-s3cret-pass").await;

    app.request(
        Method::DELETE,
        "/v1/me/tokens",
        Some(&phone.token),
        None,
        &[],
    )
    .await
    .expect_status(204);
    for old in [&fresh, &phone] {
        app.get(old, "/v1/games")
            .await
            .expect_problem(401, "token_revoked");
    }
    let again = app.sign_in("alice", "new-s3cret-pass").await;
    app.get(&again, "/v1/games").await.expect_status(200);
}

/// An instance reuses its check of a token's account for `--token-recheck-ms`: a sign-out
/// everywhere through another instance applies there once that time is up (at once with 0).
async fn a_revocation_through_another_instance_applies_within_the_recheck_time(app: &TestApp) {
    let reusing = app
        .second_instance_with(|config| config.token_recheck_ms = 300)
        .await;
    let asking = app
        .second_instance_with(|config| config.token_recheck_ms = 0)
        .await;
    let alice = app.register("alice").await;
    for instance in [app, &reusing, &asking] {
        instance.get(&alice, "/v1/games").await.expect_status(200);
    }
    app.request(
        Method::DELETE,
        "/v1/me/tokens",
        Some(&alice.token),
        None,
        &[],
    )
    .await
    .expect_status(204);
    for instance in [app, &asking] {
        instance
            .get(&alice, "/v1/games")
            .await
            .expect_problem(401, "token_revoked");
    }
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    reusing
        .get(&alice, "/v1/games")
        .await
        .expect_problem(401, "token_revoked");
}

/// The files the server creates hold password hashes, seeds and the signing key: they are
/// its owner's alone.
async fn data_files_are_owner_only(app: &TestApp) {
    use std::os::unix::fs::PermissionsExt;
    app.register("alice").await;
    let mode = |name: &str| {
        let path = app.data_dir().join(name);
        path.exists()
            .then(|| std::fs::metadata(&path).unwrap().permissions().mode() & 0o777)
    };
    assert_eq!(mode("jwt-secret"), Some(0o600));
    // Only the SQLite backend keeps its database here.
    for name in ["test.sqlite", "test.sqlite-wal", "test.sqlite-shm"] {
        assert!(
            matches!(mode(name), None | Some(0o600)),
            "{name}: {:o}",
            mode(name).unwrap()
        );
    }
}

/// PostgreSQL refuses NUL bytes in text; no request may carry one to the database and get
/// a 500 for it.
async fn nul_bytes_in_names_paths_and_queries_are_refused_cleanly(app: &TestApp) {
    let alice = app.register("alice").await;
    for (path, body) in [
        (
            "/v1/accounts",
            json!({"name": "bob\u{0}", "password": "s3cret-pass"}),
        ),
        (
            "/v1/tokens",
            json!({"name": "alice\u{0}", "password": "s3cret-pass"}),
        ),
        (
            "/v1/tokens",
            json!({"name": "alice", "password": "s3cret\u{0}pass"}),
        ),
    ] {
        let response = app
            .request(Method::POST, path, None, Some(&body), &[])
            .await;
        assert!(
            matches!(response.status, 401 | 422),
            "{path} {body}: {} {}",
            response.status,
            response.text
        );
    }
    for path in [
        "/v1/games?kind=tikal%00",
        "/v1/games/abc%00def",
        "/v1/games/abc%00def/view",
        "/v1/games?status=open%00",
    ] {
        let response = app.get(&alice, path).await;
        assert!(
            (400..500).contains(&response.status),
            "{path}: {} {}",
            response.status,
            response.text
        );
        assert_eq!(response.content_type, "application/problem+json", "{path}");
    }
    let body = json!({"kind": "tikal\u{0}", "seats": 2});
    app.post(&alice, "/v1/games", &body)
        .await
        .expect_problem(422, "unknown_game_kind");
}

on_both_backends!(
    nul_bytes_in_names_paths_and_queries_are_refused_cleanly,
    data_files_are_owner_only,
    password_changes_and_sign_out_everywhere_revoke_tokens,
    a_revocation_through_another_instance_applies_within_the_recheck_time,
    accounts_and_tokens,
    health_and_unknown_routes,
    a_token_for_a_vanished_account_is_refused
);
