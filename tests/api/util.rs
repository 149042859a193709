//! The test app: the real server on a random port, on SQLite or on a fresh Postgres
//! database, and request helpers that return status and body together.

use std::sync::atomic::{AtomicU32, Ordering};

use diesel::{Connection, RunQueryDsl};
use serde_json::{json, Value};
use turnpost::config::Config;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A throwaway Postgres database, dropped with the app (or with its owner: the cluster test
/// keeps one for its server processes).
pub struct PgDatabase {
    admin_url: String,
    name: String,
}

impl PgDatabase {
    /// A fresh database on the server `TEST_DATABASE_URL` names, and its URL.
    pub fn create() -> (PgDatabase, String) {
        let admin_url = std::env::var("TEST_DATABASE_URL").expect(
            "the Postgres tests need TEST_DATABASE_URL (a server where they may create \
             databases); `scripts/test` starts a throwaway one",
        );
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "turnpost_test_{}_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst),
            rand::random::<u32>()
        );
        let mut admin = diesel::PgConnection::establish(&admin_url)
            .unwrap_or_else(|error| panic!("cannot reach TEST_DATABASE_URL {admin_url}: {error}"));
        diesel::sql_query(format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .expect("create the test database");
        let url = database_url_with_name(&admin_url, &name);
        (PgDatabase { admin_url, name }, url)
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        if let Ok(mut admin) = diesel::PgConnection::establish(&self.admin_url) {
            let _ = diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .execute(&mut admin);
        }
    }
}

/// `postgres://u@h:5432/postgres?x=y` with the database replaced by `name`.
fn database_url_with_name(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let authority_start = base.find("://").map_or(0, |index| index + 3);
    let host_and_path = &base[authority_start..];
    let host = host_and_path.split('/').next().unwrap_or(host_and_path);
    format!("{}{host}/{name}{query}", &base[..authority_start])
}

pub struct TestApp {
    pub base: String,
    client: reqwest::Client,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    data_dir: std::path::PathBuf,
    /// Owned by the first instance on a database; a second instance shares its folder.
    _data_dir_handle: Option<tempfile::TempDir>,
    pub database_url: String,
    _postgres: Option<PgDatabase>,
}

impl TestApp {
    pub async fn start(backend: Backend) -> TestApp {
        TestApp::start_with(backend, |_| {}).await
    }

    /// The server with some settings changed from the tests' defaults.
    pub async fn start_with(backend: Backend, adjust: impl FnOnce(&mut Config)) -> TestApp {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let (postgres, database_url) = match backend {
            Backend::Sqlite => (
                None,
                data_dir
                    .path()
                    .join("test.sqlite")
                    .to_string_lossy()
                    .into_owned(),
            ),
            Backend::Postgres => {
                let (database, url) = PgDatabase::create();
                (Some(database), url)
            }
        };
        let mut config = test_config(data_dir.path(), &database_url);
        adjust(&mut config);
        let path = data_dir.path().to_path_buf();
        TestApp::serve(config, path, Some(data_dir), database_url, postgres)
    }

    /// Starts the server with `config` and wraps it; the folder and database it owns (if
    /// any) live as long as the app.
    fn serve(
        config: Config,
        data_dir: std::path::PathBuf,
        data_dir_handle: Option<tempfile::TempDir>,
        database_url: String,
        postgres: Option<PgDatabase>,
    ) -> TestApp {
        let (address, stop, thread) = spawn_server(config);
        TestApp {
            base: format!("http://{address}"),
            client: test_client(),
            stop: Some(stop),
            thread: Some(thread),
            data_dir,
            _data_dir_handle: data_dir_handle,
            database_url,
            _postgres: postgres,
        }
    }

    /// Another server instance on the same database and token secret, as a second replica
    /// behind a load balancer would be.
    pub async fn second_instance(&self) -> TestApp {
        self.second_instance_with(|_| {}).await
    }

    /// A second instance with some settings changed.
    pub async fn second_instance_with(&self, adjust: impl FnOnce(&mut Config)) -> TestApp {
        let mut config = test_config(&self.data_dir, &self.database_url);
        adjust(&mut config);
        TestApp::serve(
            config,
            self.data_dir.clone(),
            None,
            self.database_url.clone(),
            None,
        )
    }

    /// Stops this server and starts a new one on the same database and data folder (a
    /// restart, or a crash once the old process is gone), with some settings changed.
    pub async fn restart_with(mut self, adjust: impl FnOnce(&mut Config)) -> TestApp {
        self.stop_server();
        let mut config = test_config(&self.data_dir, &self.database_url);
        adjust(&mut config);
        let (address, stop, thread) = spawn_server(config);
        self.base = format!("http://{address}");
        self.stop = Some(stop);
        self.thread = Some(thread);
        self
    }

    fn stop_server(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Runs `sql` on the app's database behind its back, e.g. to corrupt a row.
    pub fn execute_sql(&self, sql: &str) {
        if self._postgres.is_some() {
            let mut conn = diesel::PgConnection::establish(&self.database_url).expect("connect");
            diesel::sql_query(sql).execute(&mut conn).expect(sql);
        } else {
            let mut conn = diesel::SqliteConnection::establish(&self.database_url).expect("open");
            diesel::sql_query(sql).execute(&mut conn).expect(sql);
        }
    }

    pub async fn request(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Response {
        let mut request = self
            .client
            .request(method.clone(), format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Response::read(
            method,
            request.send().await.expect("request reaches the server"),
        )
        .await
    }

    /// The app's database URL (a SQLite path or a Postgres URL).
    pub fn database_url(&self) -> &str {
        &self.database_url
    }

    /// The value of the series `series` (a metric's name with its labels, as
    /// `turnpost_mails_total{outcome="failed"}`) in the instance's `/metrics` now.
    pub async fn metric(&self, series: &str) -> Option<f64> {
        let metrics = reqwest::get(format!("{}/metrics", self.base))
            .await
            .expect("the metrics")
            .text()
            .await
            .expect("the metrics' text");
        metrics.lines().find_map(|line| {
            line.strip_prefix(series)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
    }

    pub async fn get(&self, player: &Player, path: &str) -> Response {
        self.request(reqwest::Method::GET, path, Some(&player.token), None, &[])
            .await
    }

    pub async fn post(&self, player: &Player, path: &str, body: &Value) -> Response {
        self.request(
            reqwest::Method::POST,
            path,
            Some(&player.token),
            Some(body),
            &[],
        )
        .await
    }

    /// Where the server keeps its generated JWT secret.
    pub fn data_dir(&self) -> &std::path::Path {
        &self.data_dir
    }

    /// Posts `body` as it is, with the given content type.
    pub async fn post_raw(
        &self,
        player: &Player,
        path: &str,
        content_type: &str,
        body: &str,
    ) -> Response {
        let response = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(&player.token)
            .header("Content-Type", content_type)
            .body(body.to_owned())
            .send()
            .await
            .expect("request reaches the server");
        Response::read(reqwest::Method::POST, response).await
    }

    /// `player`'s notifications after id `after`, oldest first; when there is none yet,
    /// waiting up to `wait` seconds for one.
    pub async fn notifications_after(&self, player: &Player, after: i64, wait: u32) -> Vec<Value> {
        self.get(
            player,
            &format!("/v1/me/notifications?after={after}&wait={wait}"),
        )
        .await
        .expect_status(200)
        .json()["notifications"]
            .as_array()
            .expect("a list of notifications")
            .clone()
    }

    /// The id of `player`'s newest notification (0 when none).
    pub async fn last_notification_id(&self, player: &Player) -> i64 {
        self.notifications_after(player, 0, 0)
            .await
            .last()
            .map_or(0, |last| last["id"].as_i64().expect("an id"))
    }

    /// Every item (the array `items`) of the list at `path` (which may carry a query), read
    /// `limit` at a time by following each page's `Link: <…>; rel="next"` header, which must
    /// carry the same cursor as the page's `next`; the last page has neither.
    pub async fn walk(&self, player: &Player, path: &str, items: &str, limit: usize) -> Vec<Value> {
        let separator = if path.contains('?') { '&' } else { '?' };
        let mut address = format!("{path}{separator}limit={limit}");
        let mut all = Vec::new();
        loop {
            let page = self.get(player, &address).await.expect_status(200);
            let link = page.header("link").map(str::to_owned);
            let body = page.json();
            let listed = body[items].as_array().expect("a list of items");
            assert!(listed.len() <= limit, "{address}: more than `limit` items");
            all.extend(listed.iter().cloned());
            let Some(next) = body["next"].as_str() else {
                assert!(
                    body["next"].is_null(),
                    "{address}: `next` is there, null at the end"
                );
                assert_eq!(link, None, "{address}: the last page links to no next one");
                return all;
            };
            assert!(
                !listed.is_empty(),
                "{address}: an empty page that is not the last"
            );
            let link = link.expect("a page with `next` has a Link header");
            let target = link
                .strip_prefix('<')
                .and_then(|link| link.strip_suffix(">; rel=\"next\""))
                .unwrap_or_else(|| panic!("Link `{link}` is <address>; rel=\"next\""));
            assert!(
                target.ends_with(&format!("cursor={next}")),
                "{target} continues at `next`"
            );
            assert!(
                target.contains(&format!("limit={limit}")),
                "{target} keeps the limit"
            );
            address = target.to_owned();
            assert!(all.len() < 10_000, "a list that never ends");
        }
    }

    /// Creates an account (password `s3cret-pass`) and signs it in.
    pub async fn register(&self, name: &str) -> Player {
        let credentials = json!({"name": name, "password": "s3cret-pass"});
        self.request(
            reqwest::Method::POST,
            "/v1/accounts",
            None,
            Some(&credentials),
            &[],
        )
        .await
        .expect_status(201);
        self.sign_in(name, "s3cret-pass").await
    }

    /// A new token for an existing account.
    pub async fn sign_in(&self, name: &str, password: &str) -> Player {
        let credentials = json!({"name": name, "password": password});
        let token = self
            .request(
                reqwest::Method::POST,
                "/v1/tokens",
                None,
                Some(&credentials),
                &[],
            )
            .await
            .expect_status(200)
            .json()["token"]
            .as_str()
            .expect("token")
            .to_owned();
        Player { token }
    }

    /// `count` players who sit at a new game of `kind`, in seat order; the game has started.
    pub async fn new_game(&self, kind: &str, options: Value, players: &[Player]) -> String {
        self.new_game_with(json!({"kind": kind, "options": options}), players)
            .await
    }

    /// [`TestApp::new_game`] with any creation settings (`kind`, `time_control`, ...); the
    /// seat count is the number of players.
    pub async fn new_game_with(&self, mut settings: Value, players: &[Player]) -> String {
        settings["seats"] = json!(players.len());
        let created = self
            .post(&players[0], "/v1/games", &settings)
            .await
            .expect_status(201)
            .json();
        let id = created["id"].as_str().expect("game id").to_owned();
        for player in &players[1..] {
            self.post(player, &format!("/v1/games/{id}/seats"), &json!({}))
                .await
                .expect_status(200);
        }
        id
    }
}

/// A loopback port nothing listens on now, for a process the test starts.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

/// A client that never reuses a connection the server may have closed for idling (actix
/// closes idle keep-alive connections after a few seconds; a reused one would be reset).
fn test_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(1))
        .build()
        .expect("an HTTP client")
}

/// The tests' settings: a random port, two workers, and limits no scenario reaches (the
/// limits have their own tests).
fn test_config(data_dir: &std::path::Path, database_url: &str) -> Config {
    Config {
        bind: "127.0.0.1:0".into(),
        data_dir: data_dir.to_path_buf(),
        database_url: Some(database_url.to_owned()),
        jwt_secret: None,
        token_ttl_seconds: 3600,
        log: "warn".into(),
        workers: Some(2),
        sign_ins_per_minute_per_address: 100_000,
        registrations_per_hour_per_address: 100_000,
        games_per_hour_per_account: 100_000,
        bulk_exports_per_hour_per_account: 100_000,
        invitations_per_hour_per_invitee: 100_000,
        invitations_per_hour_per_account: 100_000,
        open_games_per_account: 10_000,
        referee_poll_ms: 100,
        // A 64th of the production hash's memory: every test signs accounts up and in, and
        // argon2 with 19 MiB took a sixth of the tests' CPU. The test of the hashing queue
        // under a flood sets the production cost again.
        password_memory_kib: 304,
        ..Config::defaults()
    }
}

/// Runs the server on its own thread and actix system; returns its address and how to stop it.
fn spawn_server(
    config: Config,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    std::thread::JoinHandle<()>,
) {
    let (sender, receiver) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            match turnpost::server::start(&config) {
                Ok(running) => {
                    let handle = running.server.handle();
                    actix_web::rt::spawn(running.server);
                    let _ = sender.send(Ok(running.address));
                    let _ = stopped.await;
                    handle.stop(false).await;
                }
                Err(error) => {
                    let _ = sender.send(Err(error.to_string()));
                }
            }
        });
    });
    let address = receiver
        .recv()
        .expect("server thread answers")
        .unwrap_or_else(|error| panic!("server failed to start: {error}"));
    (address, stop, thread)
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.stop_server();
    }
}

#[derive(Debug, Clone)]
pub struct Player {
    pub token: String,
}

#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: String,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Response {
    /// Reads the answer to a `method` request and checks it against the committed spec
    /// (see `contract`); a compressed body is checked for its status only.
    pub async fn read(method: reqwest::Method, response: reqwest::Response) -> Response {
        let headers = response.headers().clone();
        let path = response.url().path().to_owned();
        let read = Response {
            status: response.status().as_u16(),
            content_type: headers
                .get("content-type")
                .and_then(|value| value.to_str().ok())
                .unwrap_or_default()
                .to_owned(),
            headers,
            text: response.text().await.expect("body"),
        };
        let body = if read.header("content-encoding").is_some() {
            ""
        } else {
            &read.text
        };
        if read.header("content-encoding").is_none() || read.status >= 300 {
            crate::contract::check(&method, &path, read.status, &read.content_type, body);
        }
        crate::contract::check_declared_headers(&method, &path, read.status, &read.headers);
        read
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.text))
    }

    #[track_caller]
    pub fn expect_status(self, status: u16) -> Response {
        assert_eq!(
            self.status, status,
            "unexpected status; body: {}",
            self.text
        );
        self
    }

    /// Asserts an RFC 9457 problem with this status and code; returns the problem.
    #[track_caller]
    pub fn expect_problem(self, status: u16, code: &str) -> Value {
        assert_eq!(
            self.status, status,
            "unexpected status; body: {}",
            self.text
        );
        assert!(
            self.content_type.starts_with("application/problem+json"),
            "content type {} for {}",
            self.content_type,
            self.text
        );
        let problem = self.json();
        assert_eq!(problem["code"], code, "problem: {problem}");
        assert_eq!(problem["status"], status);
        assert!(problem["type"].as_str().is_some_and(|t| t.ends_with(code)));
        assert!(problem["detail"].as_str().is_some_and(|d| !d.is_empty()));
        problem
    }
}

impl TestApp {
    /// The first seat that must act in game `id`, as `players[0]` reads the game.
    pub async fn seat_to_act(&self, players: &[Player], id: &str) -> usize {
        let summary = self
            .get(&players[0], &format!("/v1/games/{id}"))
            .await
            .expect_status(200)
            .json();
        summary["to_act"][0].as_u64().expect("someone acts") as usize
    }

    /// Posts the first legal action of whoever must act in game `id` (`players` in seat
    /// order, the first of them able to read the game); the new seq.
    pub async fn play_first_legal_action(&self, players: &[Player], id: &str) -> i64 {
        let seat = self.seat_to_act(players, id).await;
        self.play_legal_action(&players[seat], id, |_| 0).await
    }

    /// Posts, as `player`, the legal action at index `pick(number of legal actions)` of
    /// game `id`; the new seq.
    pub async fn play_legal_action(
        &self,
        player: &Player,
        id: &str,
        pick: impl FnOnce(usize) -> usize,
    ) -> i64 {
        let legal = self
            .get(player, &format!("/v1/games/{id}/legal-actions"))
            .await
            .expect_status(200)
            .json();
        let offered = legal["actions"].as_array().expect("legal actions");
        let answer = self
            .post(
                player,
                &format!("/v1/games/{id}/actions"),
                &json!({"expected_seq": legal["seq"], "action": offered[pick(offered.len())]}),
            )
            .await
            .expect_status(200)
            .json();
        answer["seq"].as_i64().expect("the new seq")
    }
}

/// The notifications of type `kind` among `notifications`.
pub fn of_type<'a>(notifications: &'a [Value], kind: &str) -> Vec<&'a Value> {
    notifications
        .iter()
        .filter(|notification| notification["type"] == kind)
        .collect()
}

/// A server none of whose workers takes jobs or delivers webhooks (deadlines, bots, open
/// games' expiry, deliveries): for tests that write or compare those rows themselves.
pub fn no_background_work(config: &mut turnpost::config::Config) {
    config.referee_poll_ms = 0;
    config.webhook_poll_ms = 0;
}

/// An account written straight into `db` (no password to hash), as the services see it.
pub fn account(db: &turnpost::store::Db, name: &str) -> turnpost::auth::AuthUser {
    let account = turnpost::store::Account {
        id: format!("id-{name}"),
        name: name.to_owned(),
        name_key: name.to_owned(),
        password_hash: "unused".to_owned(),
        created_at: 0,
        token_generation: 0,
        last_seen_day: None,
    };
    db.write(|conn| turnpost::store::insert_account(conn, &account))
        .expect("a new account");
    turnpost::auth::AuthUser {
        account_id: account.id,
        name: account.name,
        token_generation: 0,
        credential: turnpost::auth::Credential::SignIn,
    }
}

/// One test per backend for each async scenario `fn name(backend: Backend)`, for scenarios
/// that start their servers themselves (with settings of their own).
#[macro_export]
macro_rules! with_each_backend {
    ($($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    super::$scenario($crate::util::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    super::$scenario($crate::util::Backend::Postgres).await;
                }
            )*
        }
    };
}

/// Generates one test per backend for each async scenario `fn name(app: &TestApp)`.
#[macro_export]
macro_rules! on_both_backends {
    ($($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let app = $crate::util::TestApp::start($crate::util::Backend::Sqlite).await;
                    super::$scenario(&app).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let app = $crate::util::TestApp::start($crate::util::Backend::Postgres).await;
                    super::$scenario(&app).await;
                }
            )*
        }
    };
}

#[test]
fn postgres_urls_get_the_database_name_replaced() {
    assert_eq!(
        database_url_with_name("postgres://postgres@127.0.0.1:5432/postgres", "x"),
        "postgres://postgres@127.0.0.1:5432/x"
    );
    assert_eq!(
        database_url_with_name("postgres://u:p@h/db?sslmode=disable", "y"),
        "postgres://u:p@h/y?sslmode=disable"
    );
    assert_eq!(
        database_url_with_name("postgres://h", "z"),
        "postgres://h/z"
    );
}
