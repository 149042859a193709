//! What browsers and careful clients need from HTTP itself: cross-origin calls, compressed
//! responses, HEAD, and conditional reads.

use reqwest::Method;
use serde_json::json;

use crate::util::{Backend, Response, TestApp};

async fn raw(app: &TestApp, method: Method, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut request = reqwest::Client::new().request(method.clone(), format!("{}{path}", app.base));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    Response::read(method, request.send().await.expect("the server answers")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_another_origin_may_call_the_api_with_a_token() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    let origin = ("Origin", "https://client.example");
    let preflight = raw(
        &app,
        Method::OPTIONS,
        "/v1/games",
        &[
            origin,
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "authorization, content-type",
            ),
        ],
    )
    .await;
    assert_eq!(preflight.status, 200, "{}", preflight.text);
    assert!(preflight.header("access-control-allow-origin").is_some());
    let methods = preflight.header("access-control-allow-methods").unwrap();
    assert!(methods.contains("POST"), "{methods}");
    let headers = preflight
        .header("access-control-allow-headers")
        .unwrap()
        .to_lowercase();
    assert!(headers.contains("authorization") && headers.contains("content-type"));

    let bearer = format!("Bearer {}", alice.token);
    let read = raw(
        &app,
        Method::GET,
        "/v1/games",
        &[origin, ("Authorization", &bearer)],
    )
    .await;
    assert_eq!(read.status, 200);
    assert!(read.header("access-control-allow-origin").is_some());
    // Refusals carry the headers too, so a page can read the problem.
    let refused = raw(&app, Method::GET, "/v1/games", &[origin]).await;
    assert_eq!(refused.status, 401);
    assert!(refused.header("access-control-allow-origin").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_configured_origins_may_call_cross_origin() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.cors_origins = "https://a.example, https://b.example:8443".into();
    })
    .await;
    for (origin, allowed) in [
        ("https://a.example", true),
        ("https://b.example:8443", true),
        ("https://evil.example", false),
    ] {
        let preflight = raw(
            &app,
            Method::OPTIONS,
            "/v1/game-kinds",
            &[("Origin", origin), ("Access-Control-Request-Method", "GET")],
        )
        .await;
        assert_eq!(
            preflight.header("access-control-allow-origin") == Some(origin),
            allowed,
            "{origin}: {} {:?}",
            preflight.status,
            preflight.headers
        );
    }
}

#[test]
fn an_origin_that_is_not_one_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = turnpost::config::Config {
        bind: "127.0.0.1:0".into(),
        data_dir: dir.path().to_path_buf(),
        cors_origins: "https://ok.example, not an origin".into(),
        ..turnpost::config::Config::defaults()
    };
    let refusal = actix_web::rt::System::new()
        .block_on(async { turnpost::server::start(&config).err() })
        .expect("refused");
    assert!(refusal.to_string().contains("not an origin"), "{refusal}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_are_compressed_when_the_client_accepts_it() {
    let app = TestApp::start(Backend::Sqlite).await;
    let players = [app.register("alice").await, app.register("bob").await];
    let id = app.new_game("java", json!({}), &players).await;
    let path = format!("/v1/games/{id}/legal-actions");
    let bearer = format!("Bearer {}", players[0].token);
    let plain = raw(&app, Method::GET, &path, &[("Authorization", &bearer)]).await;
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("content-encoding"), None);
    for encoding in ["gzip", "br"] {
        let compressed = raw(
            &app,
            Method::GET,
            &path,
            &[("Authorization", &bearer), ("Accept-Encoding", encoding)],
        )
        .await;
        assert_eq!(compressed.header("content-encoding"), Some(encoding));
        let size = compressed
            .header("content-length")
            .map(|length| length.parse::<usize>().unwrap())
            .unwrap_or(compressed.text.len());
        assert!(
            size * 5 < plain.text.len(),
            "{encoding}: {size} bytes against {} plain",
            plain.text.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_get_route_answers_head_with_the_same_headers_and_no_body() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob])
        .await;
    let bearer = format!("Bearer {}", alice.token);
    for path in [
        "/healthz".to_owned(),
        "/openapi.json".to_owned(),
        "/v1/game-kinds".to_owned(),
        "/v1/games".to_owned(),
        format!("/v1/games/{id}"),
        format!("/v1/games/{id}/view"),
        format!("/v1/games/{id}/legal-actions"),
        format!("/v1/games/{id}/events"),
        format!("/v1/games/{id}/export"),
        format!("/v1/games/{id}/transcript"),
        "/v1/accounts/alice".to_owned(),
    ] {
        let get = raw(&app, Method::GET, &path, &[("Authorization", &bearer)]).await;
        let head = raw(&app, Method::HEAD, &path, &[("Authorization", &bearer)]).await;
        assert_eq!(head.status, get.status, "{path}");
        assert_eq!(get.status, 200, "{path}");
        assert!(head.text.is_empty(), "{path}: HEAD has a body");
        assert_eq!(head.content_type, get.content_type, "{path}");
        assert_eq!(
            head.header("content-length"),
            Some(get.text.len().to_string().as_str()),
            "{path}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_with_the_last_etag_is_304_until_something_changes() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob])
        .await;
    let bearer = format!("Bearer {}", alice.token);
    for path in [format!("/v1/games/{id}"), format!("/v1/games/{id}/view")] {
        let first = raw(&app, Method::GET, &path, &[("Authorization", &bearer)]).await;
        let tag = first.header("etag").expect("an ETag").to_owned();
        assert!(tag.starts_with("W/\""), "{tag}");
        let again = raw(
            &app,
            Method::GET,
            &path,
            &[("Authorization", &bearer), ("If-None-Match", &tag)],
        )
        .await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.text.is_empty());
        assert_eq!(again.header("etag"), Some(tag.as_str()));
        let other = raw(
            &app,
            Method::GET,
            &path,
            &[("Authorization", &bearer), ("If-None-Match", "W/\"other\"")],
        )
        .await;
        assert_eq!(other.status, 200);
    }
    let path = format!("/v1/games/{id}");
    let before = raw(&app, Method::GET, &path, &[("Authorization", &bearer)]).await;
    let tag = before.header("etag").unwrap().to_owned();
    let legal = app
        .get(&alice, &format!("/v1/games/{id}/legal-actions"))
        .await
        .json();
    app.post(
        &alice,
        &format!("/v1/games/{id}/actions"),
        &json!({"expected_seq": legal["seq"], "action": legal["actions"][0]}),
    )
    .await
    .expect_status(200);
    let after = raw(
        &app,
        Method::GET,
        &path,
        &[("Authorization", &bearer), ("If-None-Match", &tag)],
    )
    .await;
    assert_eq!(after.status, 200, "the game moved on");
    assert_ne!(after.header("etag"), Some(tag.as_str()));
}

/// Prometheus metrics: latency per route pattern, actions appended (a retry answered from
/// its first attempt is not counted twice), the fold cache and the database pool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_requests_actions_and_the_cache() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob])
        .await;
    let bearer = format!("Bearer {}", alice.token);
    let mut posted = 0;
    for _ in 0..3 {
        let legal = app
            .get(&alice, &format!("/v1/games/{id}/legal-actions"))
            .await
            .json();
        if legal["actions"].as_array().unwrap().is_empty() {
            break;
        }
        let body = json!({"expected_seq": legal["seq"], "action": legal["actions"][0]});
        for _ in 0..2 {
            let key = format!("key-{posted}");
            app.request(
                Method::POST,
                &format!("/v1/games/{id}/actions"),
                Some(&alice.token),
                Some(&body),
                &[("Idempotency-Key", &key)],
            )
            .await
            .expect_status(200);
        }
        posted += 1;
    }
    let metrics = raw(&app, Method::GET, "/metrics", &[("Authorization", &bearer)]).await;
    assert_eq!(metrics.status, 200);
    let text = &metrics.text;
    assert!(
        text.contains(&format!("turnpost_actions_appended_total {posted}\n")),
        "{text}"
    );
    assert!(text.contains(
        "turnpost_http_request_duration_seconds_count{method=\"POST\",route=\"/v1/games/{id}/actions\",status=\"2xx\"}"
    ), "{text}");
    assert!(
        !text.contains(&id),
        "paths are counted by pattern, not by game"
    );
    let hits: u64 = text
        .lines()
        .find_map(|line| line.strip_prefix("turnpost_fold_cache_hits_total "))
        .and_then(|value| value.parse().ok())
        .expect("cache hits");
    assert!(hits > 0, "{text}");
    let cached_bytes: u64 = text
        .lines()
        .find_map(|line| line.strip_prefix("turnpost_fold_cache_bytes "))
        .and_then(|value| value.parse().ok())
        .expect("cache bytes");
    assert!(
        (1_000..1_000_000).contains(&cached_bytes),
        "one game's state: {text}"
    );
    assert!(text.contains("turnpost_db_pool_connections "));
}
