//! What browsers and careful clients need from HTTP itself: cross-origin calls, compressed
//! responses, HEAD, and conditional reads.

use reqwest::Method;
use serde_json::json;

use crate::util::{free_port, Backend, Response, TestApp};

/// The access log has a line for every request when the log takes `info`, and none when it
/// does not (the server then leaves the log's middleware out: docs/performance.md).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_access_log_has_a_line_per_request_only_when_logged() {
    for (level, logged) in [("info", true), ("warn", false)] {
        let dir = tempfile::tempdir().expect("a temp dir");
        let log = dir.path().join("server.log");
        let address = format!("127.0.0.1:{}", free_port());
        let output = std::fs::File::create(&log).expect("a log file");
        let server = std::process::Command::new(env!("CARGO_BIN_EXE_turnpost"))
            .args(["--bind", &address, "--log", level, "--data-dir"])
            .arg(dir.path().join("data"))
            .stdout(output.try_clone().expect("a log file"))
            .stderr(output)
            .spawn()
            .expect("the server binary starts");
        let server = Stopped(server);
        let http = reqwest::Client::new();
        let started = std::time::Instant::now();
        let answered = loop {
            if let Ok(response) = http.get(format!("http://{address}/healthz")).send().await {
                break response.status();
            }
            assert!(started.elapsed().as_secs() < 60, "the server did not start");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        assert_eq!(answered, 200);
        let missing = http
            .get(format!("http://{address}/v1/kinds-of-nothing"))
            .send()
            .await
            .expect("the server answers");
        assert_eq!(missing.status(), 404);
        drop(server);
        let text = std::fs::read_to_string(&log).expect("the log");
        for line in [
            "\"GET /healthz HTTP/1.1\" 200",
            "\"GET /v1/kinds-of-nothing HTTP/1.1\" 404",
        ] {
            assert_eq!(
                text.contains(line),
                logged,
                "--log {level}: {line} in\n{text}"
            );
        }
    }
}

/// A server process stopped when the test is done with it, or fails before.
struct Stopped(std::process::Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

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
    for method in ["GET", "HEAD", "POST", "PUT", "DELETE"] {
        assert!(methods.contains(method), "{methods}");
    }
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
    // The page may read the headers the API's answers carry: the next page's address, a
    // wait, a version, a created thing's address, why a token was refused.
    let exposed = read.header("access-control-expose-headers").unwrap();
    for name in [
        "allow",
        "etag",
        "link",
        "location",
        "retry-after",
        "www-authenticate",
    ] {
        assert!(
            exposed.split(", ").any(|exposed| exposed == name),
            "{exposed}"
        );
    }
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

/// The OpenAPI document and the documentation page's files are answered from a copy kept
/// per encoding: the encoding the client accepts, the same bytes and tag every time (the
/// document, uncompressed, is the committed one), 304 for the tag, and HEAD with the same
/// headers and no body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documents_are_kept_per_encoding() {
    let app = TestApp::start(Backend::Sqlite).await;
    let client = reqwest::Client::new();
    let committed = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi/openapi.json"),
    )
    .expect("the committed document");
    for path in ["/openapi.json", "/docs/swagger-ui-bundle.js"] {
        for (accepted, encoding) in [
            ("gzip, deflate, br", Some("br")),
            ("gzip;q=1.0, br;q=0", Some("gzip")),
            ("identity", None),
        ] {
            let mut answers = Vec::new();
            for _ in 0..3 {
                let answer = client
                    .get(format!("{}{path}", app.base))
                    .header("Accept-Encoding", accepted)
                    .send()
                    .await
                    .expect("the server answers");
                assert_eq!(answer.status(), 200, "{path} {accepted}");
                let header = |name: &str| {
                    answer
                        .headers()
                        .get(name)
                        .map(|value| value.to_str().unwrap().to_owned())
                };
                assert_eq!(header("content-encoding").as_deref(), encoding);
                let tag = header("etag").expect("a tag");
                let kind = header("content-type");
                let body = answer.bytes().await.expect("the body");
                answers.push((tag, kind, body));
            }
            assert!(
                answers.windows(2).all(|pair| pair[0] == pair[1]),
                "{path} {accepted}: the answers differ"
            );
            let (tag, kind, body) = &answers[0];
            match (path, encoding) {
                ("/openapi.json", None) => assert!(body[..] == committed[..]),
                (_, Some("gzip")) => assert_eq!(body[..2], [0x1f, 0x8b]),
                _ => {}
            }
            let unchanged = client
                .get(format!("{}{path}", app.base))
                .header("Accept-Encoding", accepted)
                .header("If-None-Match", tag.as_str())
                .send()
                .await
                .expect("the server answers");
            assert_eq!(unchanged.status(), 304, "{path} {accepted}");
            assert_eq!(
                unchanged.headers().get("etag").unwrap().to_str().unwrap(),
                tag
            );
            let head = client
                .head(format!("{}{path}", app.base))
                .header("Accept-Encoding", accepted)
                .send()
                .await
                .expect("the server answers");
            assert_eq!(head.status(), 200);
            assert_eq!(
                head.headers()
                    .get("content-type")
                    .map(|value| value.to_str().unwrap().to_owned()),
                *kind
            );
            assert_eq!(
                head.headers()
                    .get("content-length")
                    .map(|value| value.to_str().unwrap().to_owned()),
                Some(body.len().to_string())
            );
            assert!(head.bytes().await.unwrap().is_empty());
        }
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

/// What actix-http answers by itself, before any request reaches the app, is a problem like
/// every other answer: a request it cannot parse is 400 `malformed_request`, and the
/// connection closes after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_cannot_be_parsed_is_answered_with_a_problem() {
    let app = TestApp::start(Backend::Sqlite).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        for request in [
            &b"NOT A REQUEST\r\n\r\n"[..],
            b"GET /healthz HTTP/1.1\r\nHost: test\r\nno colon here\r\n\r\n",
            b"GET /healthz HTTP/1.1\r\n\r\n",
            b"POST /v1/accounts HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"POST /v1/accounts HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\n\
              Transfer-Encoding: chunked\r\n\r\n{}",
        ] {
            let mut wire = Wire::open(&address);
            wire.send(request);
            let answer = wire.response(false);
            answer.expect_problem(400, "malformed_request");
            assert_eq!(answer.header("connection"), Some("close"));
            assert!(wire.closed(), "{}", String::from_utf8_lossy(request));
        }
    })
    .await
    .unwrap();
}

/// A request head beyond actix-http's buffer (128 KiB), or with more than 96 header fields,
/// is 431 `headers_too_large`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_too_large_is_answered_with_a_problem() {
    let app = TestApp::start(Backend::Sqlite).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        // Exactly the buffer, so that the server has read everything sent when it closes
        // (unread bytes would make the close a reset, which may destroy the answer).
        let mut huge = b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Padding: ".to_vec();
        huge.resize(128 * 1024, b'a');
        let mut many = b"GET /healthz HTTP/1.1\r\nHost: test\r\n".to_vec();
        for index in 0..100 {
            many.extend_from_slice(format!("X-Header-{index}: {index}\r\n").as_bytes());
        }
        many.extend_from_slice(b"\r\n");
        for request in [huge, many] {
            let mut wire = Wire::open(&address);
            wire.send(&request);
            wire.response(false)
                .expect_problem(431, "headers_too_large");
            assert!(wire.closed());
        }
    })
    .await
    .unwrap();
}

/// A connection whose first request head does not arrive within the head timeout is
/// answered 408 `head_timeout` and closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_that_does_not_arrive_in_time_is_answered_with_a_problem() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.head_timeout_seconds = 1;
    })
    .await;
    let address = app.base.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let mut wire = Wire::open(&address);
        wire.send(b"GET /healthz HTTP/1.1\r\nHost: te");
        let problem = wire.response(false).expect_problem(408, "head_timeout");
        assert!(
            problem["detail"].as_str().unwrap().contains("1 s"),
            "{problem}"
        );
        assert!(wire.closed());
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    })
    .await
    .unwrap();
}

/// The answers the app writes pass unchanged through the connection wrapper that replaces
/// actix-http's own, on a kept-alive connection: answers with a length, without a body
/// (HEAD), chunked (compressed), after `100 Continue`; and a malformed request after them
/// still gets its problem.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_one_after_another_on_a_kept_alive_connection() {
    let app = TestApp::start(Backend::Sqlite).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        let mut wire = Wire::open(&address);
        wire.send(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n");
        let health = wire.response(false);
        assert_eq!(health.status, 200);
        assert!(!health.body.is_empty());
        wire.send(b"HEAD /openapi.json HTTP/1.1\r\nHost: test\r\n\r\n");
        let head = wire.response(true);
        assert_eq!(head.status, 200);
        let length: usize = head.header("content-length").unwrap().parse().unwrap();
        // The documents are kept with their length (`static_answers`); the metrics are
        // compressed as they are written.
        wire.send(b"GET /metrics HTTP/1.1\r\nHost: test\r\nAccept-Encoding: gzip\r\n\r\n");
        let compressed = wire.response(false);
        assert_eq!(compressed.status, 200);
        assert_eq!(compressed.header("transfer-encoding"), Some("chunked"));
        assert!(!compressed.body.is_empty());
        wire.send(
            b"POST /v1/accounts HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
              Content-Length: 2\r\nExpect: 100-continue\r\n\r\n",
        );
        assert_eq!(wire.response(false).status, 100);
        wire.send(b"{}");
        wire.response(false).expect_problem(422, "invalid_request");
        wire.send(b"GET /openapi.json HTTP/1.1\r\nHost: test\r\n\r\n");
        let plain = wire.response(false);
        assert_eq!(plain.status, 200);
        assert_eq!(plain.body.len(), length, "the HEAD answer's length");
        wire.send(b"GET /healthz HTTP/1.1\r\nHost test\r\n\r\n");
        wire.response(false)
            .expect_problem(400, "malformed_request");
        assert!(wire.closed());
    })
    .await
    .unwrap();
}

/// Pipelined requests (sent together, before any answer) are answered in order through the
/// connection wrapper, a chunked (compressed) answer among them.
///
/// Not tried: a malformed request pipelined behind requests still being answered. actix-http
/// takes its parse error for the client closing its side, and with half-closed connections
/// refused (`server::start`) it closes the connection at once, without the answers in flight
/// or its own 400 (see docs/architecture.md, "Framework-level errors").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_are_answered_in_order() {
    let app = TestApp::start(Backend::Sqlite).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        let mut wire = Wire::open(&address);
        wire.send(
            b"GET /metrics HTTP/1.1\r\nHost: test\r\nAccept-Encoding: gzip\r\n\r\n\
              GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n",
        );
        let first = wire.response(false);
        assert_eq!(first.status, 200);
        assert_eq!(first.header("content-encoding"), Some("gzip"));
        assert_eq!(first.header("transfer-encoding"), Some("chunked"));
        let second = wire.response(false);
        assert_eq!(second.status, 200);
        assert!(second.content_type().starts_with("application/json"));
        // The connection is still good, for the app and for the problems.
        wire.send(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n");
        assert_eq!(wire.response(false).body, second.body);
        wire.send(b"GET /healthz HTTP/1.1\r\nHost: test\r\nBad\r\n\r\n");
        wire.response(false)
            .expect_problem(400, "malformed_request");
        assert!(wire.closed());
    })
    .await
    .unwrap();
}

/// A raw connection, for requests no HTTP client library would send; blocking.
struct Wire {
    stream: std::net::TcpStream,
    received: Vec<u8>,
}

/// One response read off a [`Wire`].
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Wire {
    fn open(address: &str) -> Wire {
        let stream = std::net::TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        Wire {
            stream,
            received: Vec::new(),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        use std::io::Write;
        self.stream.write_all(bytes).unwrap();
    }

    /// Reads more; false at the end of the connection.
    fn fill(&mut self) -> bool {
        use std::io::Read;
        let mut buffer = [0; 16 * 1024];
        let read = self
            .stream
            .read(&mut buffer)
            .expect("the server answers in time");
        self.received.extend_from_slice(&buffer[..read]);
        read > 0
    }

    /// The first `count` bytes received, waiting for them.
    fn take(&mut self, count: usize) -> Vec<u8> {
        while self.received.len() < count {
            assert!(self.fill(), "the connection ended early");
        }
        self.received.drain(..count).collect()
    }

    /// The next line, without its CRLF.
    fn line(&mut self) -> String {
        loop {
            if let Some(end) = self.received.windows(2).position(|pair| pair == b"\r\n") {
                let line = self.take(end + 2);
                return String::from_utf8(line[..end].to_vec()).unwrap();
            }
            assert!(self.fill(), "the connection ended inside a line");
        }
    }

    /// The next response; `to_head`: it answers a HEAD request, so has no body.
    fn response(&mut self, to_head: bool) -> Answer {
        let status_line = self.line();
        let status = status_line
            .strip_prefix("HTTP/1.1 ")
            .and_then(|rest| rest.get(..3))
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not a status line: {status_line:?}"));
        let mut answer = Answer {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        };
        loop {
            let line = self.line();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("a header");
            answer
                .headers
                .push((name.to_ascii_lowercase(), value.trim().to_owned()));
        }
        if to_head || status < 200 || status == 204 || status == 304 {
            return answer;
        }
        if answer.header("transfer-encoding") == Some("chunked") {
            loop {
                let size = usize::from_str_radix(&self.line(), 16).expect("a chunk size");
                if size == 0 {
                    assert_eq!(self.line(), "", "no trailers");
                    break;
                }
                answer.body.extend(self.take(size));
                assert_eq!(self.line(), "");
            }
        } else {
            let length = answer.header("content-length").expect("a length");
            answer.body = self.take(length.parse().unwrap());
        }
        answer
    }

    /// Whether the server closed the connection without sending anything more.
    fn closed(&mut self) -> bool {
        while self.fill() {}
        self.received.is_empty()
    }
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or_default()
    }

    /// Asserts an RFC 9457 problem with this status and code; returns it.
    #[track_caller]
    fn expect_problem(&self, status: u16, code: &str) -> serde_json::Value {
        let text = String::from_utf8_lossy(&self.body);
        assert_eq!(self.status, status, "{text}");
        assert_eq!(self.content_type(), "application/problem+json", "{text}");
        let problem: serde_json::Value = serde_json::from_slice(&self.body).expect("JSON");
        assert_eq!(problem["code"], code, "{problem}");
        assert_eq!(problem["status"], status, "{problem}");
        assert_eq!(problem["type"], format!("urn:turnpost:problem:{code}"));
        assert!(problem["title"]
            .as_str()
            .is_some_and(|title| !title.is_empty()));
        assert!(problem["detail"]
            .as_str()
            .is_some_and(|detail| !detail.is_empty()));
        problem
    }
}
