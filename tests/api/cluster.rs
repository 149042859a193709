//! A real cluster under a mixed load, with one instance killed mid-run.
//!
//! Three server processes share one fresh PostgreSQL database behind HAProxy (Debian's
//! package; `scripts/test` installs it). People play Tikal with random legal actions, each
//! posted with an `Idempotency-Key` and posted again with it when the answer is lost; others
//! play a bot, or leave games to the bots alone; in time-bank games one seat stops moving
//! until its clock runs out; some accounts have webhooks on a local receiver; and streams
//! follow games straight on one instance while the moves are posted on another. One
//! instance is killed with SIGKILL during the load, and the load goes on. Then:
//!
//! - every acknowledged action is in its game's log at the seqs it was acknowledged with,
//!   and the log holds no person's action that nobody had acknowledged; an action posted
//!   again with its `Idempotency-Key`, on another instance, gets its first answer again;
//! - every seat that stopped moving timed out, once, and no other seat did; the instances'
//!   timeout counters add up to the timeouts in the logs;
//! - the bot moves the instances counted (`turnpost_bot_moves_total`, the killed one's as
//!   scraped just before the kill) add up to the bot actions in the logs, and no instance
//!   computed a move that was then discarded;
//! - every notification of an account with a webhook reached the receiver at least once,
//!   signed, a repeated one under the same `webhook-id`, and no `webhook-id` carried two
//!   different bodies;
//! - every follower saw every event of its game in order, the moves posted on other
//!   instances too, each within a bound of its acknowledgement.
//!
//! The short form runs with the other tests; `scripts/cluster-test` runs the full one,
//! which prints its figures.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine as _;
use hmac::{Hmac, Mac};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use sha2::Sha256;
use tokio::task::{JoinHandle, JoinSet};

use crate::util::{free_port, PgDatabase};

/// How much load a run puts on the cluster.
#[derive(Debug, Clone, Copy)]
struct Size {
    name: &'static str,
    /// Tables where two people play games back to back.
    people_tables: usize,
    /// Tables where a person plays a bot, games back to back.
    bot_tables: usize,
    /// Games only bots play: three seats, two bots, and the creator resigns at its first
    /// turn (a playouts bot takes its seat over).
    bot_only_games: usize,
    /// Time-bank games in which one seat stops moving; every other one has three seats, the
    /// third a bot, so a bot takes the timed-out seat over and the game goes on.
    time_bank_games: usize,
    /// Streams following each game of a table.
    followers_per_game: usize,
    /// The load lasts at least this long, and until every stalled seat has timed out.
    load: Duration,
    /// One instance is killed this long into the load.
    kill_after: Duration,
}

/// Modest, for a busy 2-core machine running the other tests at the same time.
const SHORT: Size = Size {
    name: "short",
    people_tables: 4,
    bot_tables: 2,
    bot_only_games: 2,
    time_bank_games: 2,
    followers_per_game: 2,
    load: Duration::from_secs(60),
    // Early enough that the webhooks the killed instance held (for 60 s) are free again
    // soon after the load.
    kill_after: Duration::from_secs(8),
};

const FULL: Size = Size {
    name: "full",
    people_tables: 12,
    bot_tables: 6,
    bot_only_games: 6,
    time_bank_games: 6,
    followers_per_game: 3,
    load: Duration::from_secs(180),
    kill_after: Duration::from_secs(60),
};

const INSTANCES: usize = 3;
/// The instance killed during the load.
const VICTIM: usize = 2;
/// Each instance's `--bot-workers`: how many bot moves it may be in the middle of.
const BOT_WORKERS: u64 = 2;
/// The flags every instance gets besides its address, folder, database, secret and
/// `--bot-workers`.
const INSTANCE_FLAGS: &[&str] = &[
    "--log=warn",
    "--workers=2",
    "--db-connections=8",
    // HAProxy adds X-Forwarded-For (`option forwardfor`).
    "--behind-proxy",
    // The receiver listens on loopback.
    "--webhooks-allow-private",
    "--webhook-poll-ms=200",
    "--referee-poll-ms=250",
    "--bot-move-ms=50",
    // Limits the load must not reach: it all comes from one address and a few accounts.
    "--bot-games-per-account=1000",
    "--games-per-hour-per-account=100000",
    "--open-games-per-account=1000",
    "--registrations-per-hour-per-address=100000",
    "--sign-ins-per-minute-per-address=100000",
    "--streams-per-account=1000",
    "--streams-per-address=1000",
    // Password hashing is not under test here; cheap hashes keep the set-up short.
    "--password-memory-kib=1024",
    // Counted in the database: the instances give one allowance (`check_shared_limit`).
    "--bulk-exports-per-hour-per-account=6",
];
const PASSWORD: &str = "s3cret-pass";
/// Every game's 1st, 11th, 21st, ... acknowledged action is posted again with its key.
const POST_AGAIN_EVERY: usize = 10;
/// Actions a stalling seat makes before it stops for good.
const STALLING_SEAT_ACTIONS: usize = 3;
/// Stalled seats stop within the load's first seconds; a minute's bank, the 2 s grace and
/// a referee pass later they must have timed out.
const TIMEOUTS_DUE_WITHIN: Duration = Duration::from_secs(90);
/// How long a request is sent again before the test gives up on it.
const RETRY_FOR: Duration = Duration::from_secs(60);
/// A follower must see each move within this long of its acknowledgement: a sanity bound,
/// not a performance target.
const FRAME_DELAY_BOUND: Duration = Duration::from_secs(10);
/// A stream silent this long is taken as broken (heartbeats come every 15 s).
const STREAM_SILENCE: Duration = Duration::from_secs(60);
/// How long the games may take to end after the wind-down (a bot move the killed instance
/// held waits for its lease of 30 s).
const WIND_DOWN_FOR: Duration = Duration::from_secs(120);
/// Before the kill, the receiver keeps webhook posts waiting this long (within the
/// instances' webhook timeout of 10 s).
const HOLD_DELIVERIES_BEFORE_KILL: Duration = Duration::from_secs(2);
/// How long deliveries may take to arrive after the load (a webhook the killed instance
/// held waits for its lease of 60 s).
const DELIVERIES_WITHIN: Duration = Duration::from_secs(90);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_behind_haproxy_survive_a_kill() {
    run(SHORT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "minutes of load: scripts/cluster-test runs it"]
async fn three_instances_behind_haproxy_under_full_load() {
    run(FULL).await;
}

/// The whole scenario at one size.
async fn run(size: Size) {
    let run_started = Instant::now();
    let mut cluster = Cluster::start().await;
    let receiver = Receiver::start();
    let net = Arc::new(Net::new(&cluster));
    let names = AccountNames::of(size);
    let players = sign_up_all(&net, &names.all()).await;
    let mut webhook_secrets = BTreeMap::new();
    for name in names.with_webhooks() {
        let secret = add_webhook(&net, &players[&name], &receiver.base).await;
        webhook_secrets.insert(name, secret);
    }
    let load = Arc::new(Load {
        net: net.clone(),
        ledger: Ledger::default(),
        followers: Mutex::new(Vec::new()),
        follower_tasks: Mutex::new(Vec::new()),
        watcher: players[&names.watcher].clone(),
        wind_down: AtomicBool::new(false),
        followers_per_game: size.followers_per_game,
    });
    let scrapes = Arc::new(Scrapes::default());
    let scraper = tokio::spawn(scrape_regularly(net.clone(), scrapes.clone()));

    let mut tables = JoinSet::new();
    // Time banks first: their clocks must run out within the load.
    for (index, (staller, mover)) in names.time_bank.iter().enumerate() {
        let seats = [players[staller].clone(), players[mover].clone()];
        let id = start_time_bank_game(&load, index, &seats).await;
        tables.spawn(play_time_bank_game(load.clone(), index, id, seats));
    }
    for _ in 0..size.bot_only_games {
        let patron = players[&names.patron].clone();
        let id = start_bot_only_game(&load, &patron).await;
        tables.spawn(resign_at_first_turn(load.clone(), id, patron));
    }
    // The tables that play games back to back: through HAProxy, or straight to one instance
    // (the killed one too: such a table goes on through HAProxy).
    let routes = [
        Route::Balancer,
        Route::Direct(0),
        Route::Direct(1),
        Route::Direct(2),
    ];
    for (index, (first, second)) in names.people.iter().enumerate() {
        let seats = [players[first].clone(), players[second].clone()];
        let route = routes[index % routes.len()];
        tables.spawn(people_table(load.clone(), index, route, seats));
    }
    for (index, name) in names.solo.iter().enumerate() {
        let table = names.people.len() + index;
        let route = routes[table % routes.len()];
        tables.spawn(bot_table(load.clone(), table, route, players[name].clone()));
    }
    let load_started = Instant::now();

    // Webhook posts are kept in flight up to the kill, so that the killed instance dies in
    // the middle of some: another instance must post them again once their lease has
    // passed, under the same webhook-id.
    let kill_at = load_started + size.kill_after;
    tokio::time::sleep_until((kill_at - HOLD_DELIVERIES_BEFORE_KILL).into()).await;
    receiver.hold();
    tokio::time::sleep_until(kill_at.into()).await;
    let taken_out_after = kill_victim(&mut cluster, &net, &scrapes).await;
    let killed_at = load_started.elapsed();
    receiver.answer();

    let timeouts_due = load_started + TIMEOUTS_DUE_WITHIN.max(size.load);
    wait_for_timeouts(&load, load_started + size.load, timeouts_due).await;
    let load_lasted = load_started.elapsed();
    load.wind_down.store(true, Ordering::SeqCst);
    match tokio::time::timeout(WIND_DOWN_FOR, join_all(tables)).await {
        Ok(_) => {}
        Err(_) => panic!("the tables did not stop within {WIND_DOWN_FOR:?} of the wind-down"),
    }
    wait_until_every_game_ended(&load).await;
    wait_until_followers_ended(&load).await;
    for task in load.follower_tasks.lock().unwrap().drain(..) {
        task.abort();
    }
    let webhook_accounts: Vec<&Player> =
        webhook_secrets.keys().map(|name| &players[name]).collect();
    wait_for_deliveries(&net, &receiver, &webhook_accounts).await;
    scraper.abort();
    // The last increments follow their commits by a moment.
    tokio::time::sleep(Duration::from_secs(1)).await;
    for instance in (0..INSTANCES).filter(|&instance| instance != VICTIM) {
        let text = scrape(&net, instance)
            .await
            .unwrap_or_else(|error| panic!("instance {instance} has no metrics: {error}"));
        scrapes.latest.lock().unwrap().insert(instance, text);
    }

    let timeline = Timeline {
        killed_at,
        taken_out_after,
        load_lasted,
    };
    let all_players: Vec<&Player> = players.values().collect();
    check(
        size,
        &load,
        &scrapes,
        &receiver,
        &webhook_secrets,
        &all_players,
        &timeline,
    )
    .await;
    println!(
        "cluster test ({}): the whole run took {:.1} s",
        size.name,
        run_started.elapsed().as_secs_f64()
    );
}

/// The account names of a run, by role.
struct AccountNames {
    /// Two people per table.
    people: Vec<(String, String)>,
    /// One person per table against a bot.
    solo: Vec<String>,
    /// Creates the games only bots play.
    patron: String,
    /// Per time-bank game: the seat that stops moving, and the one that does not.
    time_bank: Vec<(String, String)>,
    /// Follows games on streams and reads the exports.
    watcher: String,
}

impl AccountNames {
    fn of(size: Size) -> AccountNames {
        AccountNames {
            people: (0..size.people_tables)
                .map(|table| (format!("people{table}a"), format!("people{table}b")))
                .collect(),
            solo: (0..size.bot_tables)
                .map(|table| format!("solo{table}"))
                .collect(),
            patron: "patron".into(),
            time_bank: (0..size.time_bank_games)
                .map(|game| (format!("clock{game}staller"), format!("clock{game}mover")))
                .collect(),
            watcher: "watcher".into(),
        }
    }

    fn all(&self) -> Vec<String> {
        let mut names = self.with_webhooks();
        names.extend(self.solo.iter().cloned());
        names.push(self.patron.clone());
        names.push(self.watcher.clone());
        names
    }

    /// The people of the people's tables and of the time-bank games.
    fn with_webhooks(&self) -> Vec<String> {
        self.people
            .iter()
            .chain(&self.time_bank)
            .flat_map(|(first, second)| [first.clone(), second.clone()])
            .collect()
    }
}

#[derive(Debug, Clone)]
struct Player {
    name: String,
    token: String,
}

async fn sign_up_all(net: &Arc<Net>, names: &[String]) -> BTreeMap<String, Player> {
    let mut signing = JoinSet::new();
    for name in names {
        let (net, name) = (net.clone(), name.clone());
        signing.spawn(async move { sign_up(&net, &name).await });
    }
    join_all(signing)
        .await
        .into_iter()
        .map(|player| (player.name.clone(), player))
        .collect()
}

async fn sign_up(net: &Net, name: &str) -> Player {
    let credentials = json!({"name": name, "password": PASSWORD});
    let mut route = Route::Balancer;
    let registered = net
        .send(
            &mut route,
            &Request::post(None, "/v1/accounts", credentials.clone()),
        )
        .await;
    assert!(
        registered.status == 201 || (registered.retried && registered.code() == "name_taken"),
        "registering {name}: {} {}",
        registered.status,
        registered.body
    );
    let signed_in = net
        .send(&mut route, &Request::post(None, "/v1/tokens", credentials))
        .await
        .expect(200, "signing in");
    Player {
        name: name.to_owned(),
        token: signed_in["token"].as_str().expect("a token").to_owned(),
    }
}

/// Registers a webhook posting to the receiver under the account's name; returns its secret.
async fn add_webhook(net: &Net, player: &Player, receiver: &str) -> String {
    let url = format!("{receiver}/hooks/{}", player.name);
    let created = net
        .send(
            &mut Route::Balancer,
            &Request::post(Some(&player.token), "/v1/me/webhooks", json!({"url": url})),
        )
        .await
        .expect(201, "registering a webhook");
    created["secret"].as_str().expect("a secret").to_owned()
}

/// Awaits every task of `set`; a task's panic fails the test with its own message.
async fn join_all<T: 'static>(mut set: JoinSet<T>) -> Vec<T> {
    let mut results = Vec::new();
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok(value) => results.push(value),
            Err(error) => std::panic::resume_unwind(error.into_panic()),
        }
    }
    results
}

// ---------------------------------------------------------------------------------------
// The processes

/// The processes of a run: three instances, HAProxy in front of them, and the database they
/// share. Each process ends with its handle; when the test fails, the end of every log is
/// printed first.
struct Cluster {
    instances: Vec<Instance>,
    balancer: Balancer,
    _dir: tempfile::TempDir,
    _database: PgDatabase,
}

impl Cluster {
    async fn start() -> Cluster {
        let haproxy = haproxy_program();
        let (database, database_url) = PgDatabase::create();
        let dir = tempfile::tempdir().expect("a temp dir");
        let secret = format!("cluster-test-{:032x}", rand::random::<u128>());
        let http = reqwest::Client::new();
        // All at once, as a deployment starts them: they take turns migrating the new
        // database.
        let mut instances: Vec<Instance> = (0..INSTANCES)
            .map(|index| Instance::spawn(index, dir.path(), &database_url, &secret))
            .collect();
        for instance in &mut instances {
            instance.wait_until_ready(&http).await;
        }
        let balancer = Balancer::start(&haproxy, dir.path(), &instances, &http).await;
        Cluster {
            instances,
            balancer,
            _dir: dir,
            _database: database,
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for (index, instance) in self.instances.iter().enumerate() {
                eprintln!("--- instance {index}'s log ends:\n{}", tail(&instance.log));
            }
            eprintln!("--- HAProxy's log ends:\n{}", tail(&self.balancer.log));
        }
    }
}

/// The last lines of a process's log.
fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

/// The server binary: the one built with the tests, or the one `TURNPOST_CLUSTER_BINARY`
/// names (`scripts/cluster-test` passes the release build, whose figures mean something).
fn server_program() -> PathBuf {
    std::env::var_os("TURNPOST_CLUSTER_BINARY").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_turnpost")),
        PathBuf::from,
    )
}

/// One server process.
struct Instance {
    address: String,
    process: Option<Child>,
    log: PathBuf,
}

impl Instance {
    fn spawn(index: usize, dir: &Path, database_url: &str, secret: &str) -> Instance {
        let address = format!("127.0.0.1:{}", free_port());
        let log = dir.join(format!("turnpost{index}.log"));
        let output = File::create(&log).expect("a log file");
        let process = Command::new(server_program())
            .args(["--bind", &address, "--data-dir"])
            .arg(dir.join(format!("data{index}")))
            .args(["--database-url", database_url, "--jwt-secret", secret])
            .args(INSTANCE_FLAGS)
            .arg(format!("--bot-workers={BOT_WORKERS}"))
            .stdout(output.try_clone().expect("a log file"))
            .stderr(output)
            .spawn()
            .expect("the server binary starts");
        Instance {
            address,
            process: Some(process),
            log,
        }
    }

    fn base(&self) -> String {
        format!("http://{}", self.address)
    }

    async fn wait_until_ready(&mut self, http: &reqwest::Client) {
        let started = Instant::now();
        loop {
            let ready = http.get(format!("{}/readyz", self.base())).send().await;
            if matches!(&ready, Ok(response) if response.status() == 200) {
                return;
            }
            let exited = self
                .process
                .as_mut()
                .and_then(|process| process.try_wait().ok().flatten());
            assert!(
                exited.is_none() && started.elapsed() < Duration::from_secs(60),
                "the instance at {} did not get ready (exit: {exited:?}); its log ends:\n{}",
                self.address,
                tail(&self.log)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// SIGKILL (what `Child::kill` sends on Unix): no shutdown, no last words.
    fn kill(&mut self) {
        if let Some(mut process) = self.process.take() {
            process.kill().expect("the instance is killed");
            let _ = process.wait();
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

/// HAProxy, from `TURNPOST_HAPROXY` (set by `scripts/haproxy.sh`), the PATH or /usr/sbin.
fn haproxy_program() -> PathBuf {
    if let Some(program) = std::env::var_os("TURNPOST_HAPROXY") {
        return program.into();
    }
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")])
        .map(|folder| folder.join("haproxy"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "HAProxy is not installed (not on the PATH, nor in /usr/sbin): run the tests \
                 with scripts/test (or scripts/cluster-test), which installs Debian's haproxy \
                 package"
            )
        })
}

/// HAProxy's name for instance `index`, which it sends back in `X-Served-By`.
fn server_name(index: usize) -> String {
    format!("turnpost{index}")
}

fn instance_named(name: &str) -> Option<usize> {
    name.strip_prefix("turnpost")?.parse().ok()
}

/// HAProxy in front of the instances: round robin, health checks on `/healthz`.
struct Balancer {
    base: String,
    stats: String,
    process: Child,
    log: PathBuf,
}

impl Balancer {
    async fn start(
        program: &Path,
        dir: &Path,
        instances: &[Instance],
        http: &reqwest::Client,
    ) -> Balancer {
        let (port, stats_port) = (free_port(), free_port());
        let config = dir.join("haproxy.cfg");
        std::fs::write(&config, haproxy_config(port, stats_port, instances))
            .expect("HAProxy's configuration is written");
        let log = dir.join("haproxy.log");
        let output = File::create(&log).expect("a log file");
        let process = Command::new(program)
            // In the foreground, so that it ends with the test.
            .arg("-db")
            .arg("-f")
            .arg(&config)
            .stdout(output.try_clone().expect("a log file"))
            .stderr(output)
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", program.display()));
        let mut balancer = Balancer {
            base: format!("http://127.0.0.1:{port}"),
            stats: format!("http://127.0.0.1:{stats_port}/stats;csv"),
            process,
            log,
        };
        let started = Instant::now();
        loop {
            let states = balancer.server_states(http).await;
            if states.len() == INSTANCES && states.values().all(|state| state == "UP") {
                return balancer;
            }
            let exited = balancer.process.try_wait().ok().flatten();
            assert!(
                exited.is_none() && started.elapsed() < Duration::from_secs(30),
                "HAProxy did not see every instance up ({states:?}, exit: {exited:?}); its log:\n{}",
                tail(&balancer.log)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Each instance's state as HAProxy sees it (`UP`, `DOWN`, ...), from its stats page.
    async fn server_states(&self, http: &reqwest::Client) -> BTreeMap<String, String> {
        let Ok(response) = http.get(&self.stats).send().await else {
            return BTreeMap::new();
        };
        let text = response.text().await.unwrap_or_default();
        let mut lines = text.lines();
        let header: Vec<&str> = lines
            .next()
            .unwrap_or_default()
            .trim_start_matches("# ")
            .split(',')
            .collect();
        let column = |name: &str| header.iter().position(|field| *field == name);
        let (Some(server), Some(status)) = (column("svname"), column("status")) else {
            return BTreeMap::new();
        };
        lines
            .map(|line| line.split(',').collect::<Vec<&str>>())
            .filter(|fields| fields.first() == Some(&"instances"))
            .filter(|fields| fields.get(server).is_some_and(|name| *name != "BACKEND"))
            .map(|fields| (fields[server].to_owned(), fields[status].to_owned()))
            .collect()
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Ordinary requests get a short server timeout, so a hung instance costs its clients
/// little. Streams and long polls wait on purpose and get their own: in HTTP mode
/// `timeout tunnel` does not cover a Server-Sent Events response (HAProxy 2.6 cuts it at
/// `timeout server`), `http-request set-timeout` does. Connections HAProxy cannot make are
/// sent to another instance (`retries`, `redispatch`); a request that reached an instance
/// is never sent twice by HAProxy, which cannot know whether it is safe to.
fn haproxy_config(port: u16, stats_port: u16, instances: &[Instance]) -> String {
    let servers: String = instances
        .iter()
        .enumerate()
        .map(|(index, instance)| {
            format!(
                "    server {} {} check\n",
                server_name(index),
                instance.address
            )
        })
        .collect();
    format!(
        "global
    maxconn 4096

defaults
    mode http
    option forwardfor
    timeout connect 1s
    timeout client 30s
    timeout server 10s
    timeout http-request 10s
    timeout http-keep-alive 10s
    timeout queue 5s
    timeout check 1s
    retries 3
    option redispatch 1

frontend turnpost
    bind 127.0.0.1:{port}
    default_backend instances

backend instances
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 300ms fall 2 rise 2
    http-request set-timeout server 1h if {{ path_end /stream }}
    http-request set-timeout server 75s if {{ url_param(wait) -m found }}
    http-response set-header X-Served-By %s
{servers}
listen stats
    bind 127.0.0.1:{stats_port}
    stats enable
    stats uri /stats
"
    )
}

/// Kills the victim with SIGKILL right after a last scrape of its metrics (so that only the
/// moves its workers were finishing can be missing from it) and waits until HAProxy has
/// taken it out; returns how long that took.
async fn kill_victim(cluster: &mut Cluster, net: &Net, scrapes: &Scrapes) -> Duration {
    net.alive[VICTIM].store(false, Ordering::SeqCst);
    let last = scrape(net, VICTIM)
        .await
        .unwrap_or_else(|error| panic!("the instance to kill has no metrics: {error}"));
    *scrapes.victim_before_kill.lock().unwrap() = Some(last);
    cluster.instances[VICTIM].kill();
    let killed = Instant::now();
    loop {
        let states = cluster.balancer.server_states(&net.http).await;
        if states
            .get(&server_name(VICTIM))
            .is_some_and(|state| state.starts_with("DOWN"))
        {
            return killed.elapsed();
        }
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "HAProxy still counts on the killed instance: {states:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------------------
// Requests

/// Where a client sends its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Balancer,
    Direct(usize),
}

/// The load's way into the cluster: HAProxy, each instance's own address, and which
/// instances still run.
struct Net {
    http: reqwest::Client,
    /// Without an overall timeout: a stream lasts as long as its game.
    streams: reqwest::Client,
    balancer: String,
    instances: Vec<String>,
    alive: Vec<AtomicBool>,
    /// Attempts that got no answer (or HAProxy's 502, 503 or 504) and were made again.
    unanswered: AtomicUsize,
}

#[derive(Debug, Clone)]
struct Request {
    method: reqwest::Method,
    path: String,
    token: Option<String>,
    body: Option<Value>,
    idempotency_key: Option<String>,
}

impl Request {
    fn get(token: &str, path: impl Into<String>) -> Request {
        Request {
            method: reqwest::Method::GET,
            path: path.into(),
            token: Some(token.to_owned()),
            body: None,
            idempotency_key: None,
        }
    }

    fn post(token: Option<&str>, path: impl Into<String>, body: Value) -> Request {
        Request {
            method: reqwest::Method::POST,
            path: path.into(),
            token: token.map(str::to_owned),
            body: Some(body),
            idempotency_key: None,
        }
    }

    fn with_idempotency_key(self, key: String) -> Request {
        Request {
            idempotency_key: Some(key),
            ..self
        }
    }
}

/// An instance's answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    body: Value,
    /// The instance that answered (HAProxy names it in `X-Served-By`).
    served_by: Option<usize>,
    /// An earlier attempt failed after it may have reached an instance.
    retried: bool,
}

impl Answer {
    #[track_caller]
    fn expect(self, status: u16, what: &str) -> Value {
        assert_eq!(self.status, status, "{what}: {}", self.body);
        self.body
    }

    fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or_default()
    }
}

impl Net {
    fn new(cluster: &Cluster) -> Net {
        let client = |timeout: Option<Duration>| {
            let builder = reqwest::Client::builder()
                // Instances close idle connections after a few seconds; never reuse one
                // that may be closing.
                .pool_idle_timeout(Duration::from_secs(1))
                .connect_timeout(Duration::from_secs(2));
            match timeout {
                Some(timeout) => builder.timeout(timeout),
                None => builder,
            }
            .build()
            .expect("an HTTP client")
        };
        Net {
            // Long polls wait up to 10 s.
            http: client(Some(Duration::from_secs(30))),
            streams: client(None),
            balancer: cluster.balancer.base.clone(),
            instances: cluster.instances.iter().map(Instance::base).collect(),
            alive: (0..INSTANCES).map(|_| AtomicBool::new(true)).collect(),
            unanswered: AtomicUsize::new(0),
        }
    }

    fn base(&self, route: Route) -> &str {
        match route {
            Route::Balancer => &self.balancer,
            Route::Direct(instance) => &self.instances[instance],
        }
    }

    fn is_alive(&self, instance: usize) -> bool {
        self.alive[instance].load(Ordering::SeqCst)
    }

    /// A client of an instance that is gone goes through HAProxy from now on.
    fn fail_over(&self, route: &mut Route) {
        if let Route::Direct(instance) = *route {
            if !self.is_alive(instance) {
                *route = Route::Balancer;
            }
        }
    }

    /// Where a stream goes (again): its instance while it runs, else another one, not
    /// `avoid` if another is left.
    fn stream_route(&self, route: Route, avoid: Option<usize>) -> Route {
        match route {
            Route::Direct(instance) if !self.is_alive(instance) => {
                let alive: Vec<usize> = (0..INSTANCES).filter(|&i| self.is_alive(i)).collect();
                let preferred = alive.iter().find(|&&i| Some(i) != avoid);
                Route::Direct(*preferred.or(alive.first()).expect("an instance runs"))
            }
            other => other,
        }
    }

    fn served_by(route: Route, headers: &reqwest::header::HeaderMap) -> Option<usize> {
        match route {
            Route::Direct(instance) => Some(instance),
            Route::Balancer => headers
                .get("x-served-by")
                .and_then(|name| name.to_str().ok())
                .and_then(instance_named),
        }
    }

    /// One attempt; `Err` when no answer arrived.
    async fn try_send(&self, route: Route, request: &Request) -> Result<Answer, String> {
        let url = format!("{}{}", self.base(route), request.path);
        let mut builder = self.http.request(request.method.clone(), url);
        if let Some(token) = &request.token {
            builder = builder.bearer_auth(token);
        }
        if let Some(body) = &request.body {
            builder = builder.json(body);
        }
        if let Some(key) = &request.idempotency_key {
            builder = builder.header("Idempotency-Key", key);
        }
        let response = builder.send().await.map_err(|error| error.to_string())?;
        let status = response.status().as_u16();
        let served_by = Net::served_by(route, response.headers());
        let text = response.text().await.map_err(|error| error.to_string())?;
        Ok(Answer {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
            served_by,
            retried: false,
        })
    }

    /// Sends `request` until an instance answers it. No answer, or HAProxy's 502, 503 or
    /// 504 (the killed instance, before HAProxy took it out), means: send it again, through
    /// HAProxy once a client's own instance is gone.
    async fn send(&self, route: &mut Route, request: &Request) -> Answer {
        let started = Instant::now();
        let mut failures = 0;
        loop {
            self.fail_over(route);
            let failure = match self.try_send(*route, request).await {
                Ok(answer) if !matches!(answer.status, 502..=504) => {
                    return Answer {
                        retried: failures > 0,
                        ..answer
                    }
                }
                Ok(answer) => format!("{} {}", answer.status, answer.body),
                Err(error) => error,
            };
            failures += 1;
            self.unanswered.fetch_add(1, Ordering::SeqCst);
            assert!(
                started.elapsed() < RETRY_FOR,
                "{} {} via {route:?} failed for {RETRY_FOR:?}; last: {failure}",
                request.method,
                request.path
            );
            tokio::time::sleep(Duration::from_millis(50 * failures.min(10))).await;
        }
    }

    /// A GET that must be answered 200: its body.
    async fn read(&self, route: &mut Route, token: &str, path: impl Into<String>) -> Value {
        let request = Request::get(token, path);
        let answer = self.send(route, &request).await;
        assert_eq!(answer.status, 200, "GET {}: {}", request.path, answer.body);
        answer.body
    }
}

// ---------------------------------------------------------------------------------------
// The load

/// What every client task shares.
struct Load {
    net: Arc<Net>,
    ledger: Ledger,
    followers: Mutex<Vec<Arc<Mutex<FollowerLog>>>>,
    follower_tasks: Mutex<Vec<JoinHandle<()>>>,
    watcher: Player,
    /// The load is over: every person resigns at its next turn, and no table starts a game.
    wind_down: AtomicBool,
    followers_per_game: usize,
}

/// What the clients know of their games: how each was set up, which seat stops moving on
/// purpose, and every action an instance acknowledged.
#[derive(Default)]
struct Ledger {
    games: Mutex<BTreeMap<String, GameNotes>>,
    /// Actions acknowledged only after an attempt whose answer was lost.
    retried_actions: AtomicUsize,
    /// Actions refused because the game had moved on or ended meanwhile.
    refused_actions: AtomicUsize,
    /// Actions posted again with their key after their answer (see [`post_again`]).
    posted_again: AtomicUsize,
    /// How the answers to those differed from the first.
    other_answers: Mutex<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Setting {
    People,
    AgainstBot,
    BotsOnly,
    TimeBank,
}

struct GameNotes {
    setting: Setting,
    /// The seat that stops moving and must time out.
    stalled: Option<u8>,
    acks: Vec<Ack>,
}

/// An action an instance acknowledged (200).
#[derive(Debug, Clone)]
struct Ack {
    seat: u8,
    first_seq: i64,
    last_seq: i64,
    action: Value,
    at: Instant,
    served_by: Option<usize>,
}

impl Ledger {
    fn open(&self, id: &str, setting: Setting, stalled: Option<u8>) {
        self.games.lock().unwrap().insert(
            id.to_owned(),
            GameNotes {
                setting,
                stalled,
                acks: Vec::new(),
            },
        );
    }

    /// Notes an acknowledged action; returns how many the game has now.
    fn acknowledged(&self, id: &str, ack: Ack) -> usize {
        let mut games = self.games.lock().unwrap();
        let acks = &mut games.get_mut(id).expect("a game the ledger knows").acks;
        acks.push(ack);
        acks.len()
    }

    fn game_ids(&self) -> Vec<String> {
        self.games.lock().unwrap().keys().cloned().collect()
    }
}

/// Two people play games back to back until the wind-down; each game is followed.
async fn people_table(load: Arc<Load>, table: usize, mut route: Route, seats: [Player; 2]) {
    let mut rng = ChaCha8Rng::seed_from_u64(table as u64);
    let mut known = BTreeSet::new();
    let settings = json!({"kind": "tikal", "seats": 2});
    while !load.wind_down.load(Ordering::SeqCst) {
        let id = create_game(&load, &mut route, &seats[0], &settings, &mut known).await;
        join(&load, &mut route, &id, &seats[1]).await;
        load.ledger.open(&id, Setting::People, None);
        load.follow(&id, table, route).await;
        let seated = [(0, seats[0].clone()), (1, seats[1].clone())];
        play(&load, &mut route, &id, &seated, None, &mut rng).await;
    }
}

/// A person plays a bot (random and playouts in turn), games back to back; each followed.
async fn bot_table(load: Arc<Load>, table: usize, mut route: Route, person: Player) {
    let mut rng = ChaCha8Rng::seed_from_u64(table as u64);
    let mut known = BTreeSet::new();
    let strategies = ["random", "playouts"];
    let mut games = 0;
    while !load.wind_down.load(Ordering::SeqCst) {
        let strategy = strategies[games % strategies.len()];
        let settings = json!({"kind": "tikal", "seats": 2,
                              "bots": [{"seat": 1, "strategy": strategy}]});
        let id = create_game(&load, &mut route, &person, &settings, &mut known).await;
        load.ledger.open(&id, Setting::AgainstBot, None);
        load.follow(&id, table, route).await;
        play(
            &load,
            &mut route,
            &id,
            &[(0, person.clone())],
            None,
            &mut rng,
        )
        .await;
        games += 1;
    }
}

/// The shortest bank the server allows, refilled by each move, so that only a seat that
/// stops moving runs out of time.
fn time_bank() -> Value {
    json!({"type": "time_bank", "initial_seconds": 60, "increment_seconds": 10,
           "maximum_seconds": 60})
}

/// A time-bank game whose first seat, the one to act first, stops moving after a few
/// actions: two seats, or three with a random bot in the third (every other game). Both
/// people are seated when it returns.
async fn start_time_bank_game(load: &Load, index: usize, seats: &[Player; 2]) -> String {
    let mut settings = json!({"kind": "tikal", "seats": 2, "time_control": time_bank()});
    if index % 2 == 1 {
        settings["seats"] = json!(3);
        settings["bots"] = json!([{"seat": 2, "strategy": "random"}]);
    }
    let mut route = Route::Balancer;
    let created = load
        .net
        .send(
            &mut route,
            &Request::post(Some(&seats[0].token), "/v1/games", settings),
        )
        .await
        .expect(201, "creating a time-bank game");
    let id = created["id"].as_str().expect("an id").to_owned();
    join(load, &mut route, &id, &seats[1]).await;
    load.ledger.open(&id, Setting::TimeBank, Some(0));
    id
}

async fn play_time_bank_game(load: Arc<Load>, index: usize, id: String, seats: [Player; 2]) {
    let mut rng = ChaCha8Rng::seed_from_u64(1_000 + index as u64);
    let seated = [(0, seats[0].clone()), (1, seats[1].clone())];
    play(&load, &mut Route::Balancer, &id, &seated, Some(0), &mut rng).await;
}

/// Three seats, two random bots; followed through HAProxy.
async fn start_bot_only_game(load: &Arc<Load>, patron: &Player) -> String {
    let settings = json!({"kind": "tikal", "seats": 3, "bots": [
        {"seat": 1, "strategy": "random"}, {"seat": 2, "strategy": "random"}]});
    let created = load
        .net
        .send(
            &mut Route::Balancer,
            &Request::post(Some(&patron.token), "/v1/games", settings),
        )
        .await
        .expect(201, "creating a game for bots");
    let id = created["id"].as_str().expect("an id").to_owned();
    load.ledger.open(&id, Setting::BotsOnly, None);
    load.open_followers(&id, &[Route::Balancer], None).await;
    id
}

/// The creator leaves the game to the bots at its first turn (not while a bot thinks, whose
/// move the resignation would make stale).
async fn resign_at_first_turn(load: Arc<Load>, id: String, patron: Player) {
    let mut route = Route::Balancer;
    loop {
        let summary = load
            .net
            .read(&mut route, &patron.token, format!("/v1/games/{id}"))
            .await;
        if summary["your_turn"] == true {
            resign(&load, &mut route, &id, 0, &patron).await;
            return;
        }
        wait_past(&load, &mut route, &patron, &id, seq_of(&summary)).await;
    }
}

/// Creates a game. A creation whose answer was lost may have happened all the same: the
/// creator's list of games tells, and such a game is taken rather than a second made.
async fn create_game(
    load: &Load,
    route: &mut Route,
    creator: &Player,
    settings: &Value,
    known: &mut BTreeSet<String>,
) -> String {
    let started = Instant::now();
    let request = Request::post(Some(&creator.token), "/v1/games", settings.clone());
    loop {
        load.net.fail_over(route);
        let failure = match load.net.try_send(*route, &request).await {
            Ok(answer) if answer.status == 201 => {
                let id = answer.body["id"].as_str().expect("an id").to_owned();
                known.insert(id.clone());
                return id;
            }
            Ok(answer) if !matches!(answer.status, 502..=504) => {
                panic!("creating a game: {} {}", answer.status, answer.body)
            }
            Ok(answer) => format!("{} {}", answer.status, answer.body),
            Err(error) => error,
        };
        load.net.unanswered.fetch_add(1, Ordering::SeqCst);
        assert!(
            started.elapsed() < RETRY_FOR,
            "creating a game failed for {RETRY_FOR:?}: {failure}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mine = load
            .net
            .read(route, &creator.token, "/v1/games?mine=true")
            .await;
        let unknown = mine["games"]
            .as_array()
            .expect("games")
            .iter()
            .filter(|game| game["status"] == "open" || game["status"] == "running")
            .filter_map(|game| game["id"].as_str())
            .find(|id| !known.contains(*id));
        if let Some(id) = unknown {
            known.insert(id.to_owned());
            return id.to_owned();
        }
    }
}

/// Takes the second seat; a join whose answer was lost shows in the summary.
async fn join(load: &Load, route: &mut Route, id: &str, player: &Player) {
    let joined = load
        .net
        .send(
            route,
            &Request::post(
                Some(&player.token),
                format!("/v1/games/{id}/seats"),
                json!({}),
            ),
        )
        .await;
    if joined.status == 200 {
        return;
    }
    let summary = load
        .net
        .read(route, &player.token, format!("/v1/games/{id}"))
        .await;
    assert!(
        joined.retried && summary["your_seat"].is_u64(),
        "joining {id}: {} {}",
        joined.status,
        joined.body
    );
}

/// Resigns `seat`; a resignation whose answer was lost shows in the summary.
async fn resign(load: &Load, route: &mut Route, id: &str, seat: u8, player: &Player) {
    loop {
        let resigned = load
            .net
            .send(
                route,
                &Request::post(
                    Some(&player.token),
                    format!("/v1/games/{id}/resign"),
                    json!({}),
                ),
            )
            .await;
        if resigned.status == 200 {
            return;
        }
        let summary = load
            .net
            .read(route, &player.token, format!("/v1/games/{id}"))
            .await;
        if !summary["seats"][usize::from(seat)]["forfeit"].is_null() {
            return;
        }
        // A bot or a timeout moved the game on at the same moment: try again.
        assert_eq!(
            resigned.code(),
            "stale_seq",
            "resigning seat {seat} of {id}: {}",
            resigned.body
        );
    }
}

fn seq_of(summary: &Value) -> i64 {
    summary["current_seq"].as_i64().expect("a seq")
}

/// Long-polls until the game moves past `seq` (or 10 s pass).
async fn wait_past(load: &Load, route: &mut Route, player: &Player, id: &str, seq: i64) {
    load.net
        .read(
            route,
            &player.token,
            format!("/v1/games/{id}/events?after={seq}&wait=10"),
        )
        .await;
}

/// Plays the given seats of game `id` with random legal actions until it ends, or until
/// none of them plays any more: after the wind-down each resigns at its next turn, and the
/// stalling seat stops after a few actions and waits for its clock to run out.
async fn play(
    load: &Load,
    route: &mut Route,
    id: &str,
    seats: &[(u8, Player)],
    stalling: Option<u8>,
    rng: &mut ChaCha8Rng,
) {
    let mut in_play: Vec<(u8, Player)> = seats.to_vec();
    let mut stalling_actions = 0;
    let viewer = seats[0].1.clone();
    while !in_play.is_empty() {
        let summary = load
            .net
            .read(route, &viewer.token, format!("/v1/games/{id}"))
            .await;
        if summary["status"] == "finished" {
            return;
        }
        let to_act: Vec<u8> = summary["to_act"]
            .as_array()
            .expect("to_act")
            .iter()
            .map(|seat| seat.as_u64().expect("a seat") as u8)
            .collect();
        let Some((seat, player)) = in_play
            .iter()
            .find(|(seat, _)| to_act.contains(seat))
            .cloned()
        else {
            // A bot, or the stalled seat, must act.
            wait_past(load, route, &viewer, id, seq_of(&summary)).await;
            continue;
        };
        if load.wind_down.load(Ordering::SeqCst) && Some(seat) != stalling {
            resign(load, route, id, seat, &player).await;
            in_play.retain(|(resigned, _)| *resigned != seat);
        } else if act(load, route, id, seat, &player, rng).await && Some(seat) == stalling {
            stalling_actions += 1;
            if stalling_actions == STALLING_SEAT_ACTIONS {
                in_play.retain(|(stopped, _)| *stopped != seat);
            }
        }
    }
}

/// Posts one random legal action for `seat`, with an idempotency key, and posts it again
/// with the same key until an instance answers; whether it was appended.
async fn act(
    load: &Load,
    route: &mut Route,
    id: &str,
    seat: u8,
    player: &Player,
    rng: &mut ChaCha8Rng,
) -> bool {
    let legal = load
        .net
        .read(
            route,
            &player.token,
            format!("/v1/games/{id}/legal-actions"),
        )
        .await;
    let actions = legal["actions"].as_array().expect("actions");
    if actions.is_empty() {
        return false;
    }
    let action = actions[rng.gen_range(0..actions.len())].clone();
    let expected_seq = legal["seq"].as_i64().expect("a seq");
    let key = format!("{id}-{seat}-{expected_seq}-{:08x}", rng.gen::<u32>());
    let request = Request::post(
        Some(&player.token),
        format!("/v1/games/{id}/actions"),
        json!({"expected_seq": expected_seq, "action": action}),
    )
    .with_idempotency_key(key);
    let answer = load.net.send(route, &request).await;
    match (answer.status, answer.code()) {
        (200, _) => {
            if answer.retried {
                load.ledger.retried_actions.fetch_add(1, Ordering::SeqCst);
            }
            let acknowledged = load.ledger.acknowledged(
                id,
                Ack {
                    seat,
                    first_seq: answer.body["events"][0]["seq"]
                        .as_i64()
                        .expect("the action's first event"),
                    last_seq: answer.body["seq"].as_i64().expect("a seq"),
                    action,
                    at: Instant::now(),
                    served_by: answer.served_by,
                },
            );
            if acknowledged % POST_AGAIN_EVERY == 1 {
                post_again(load, &request, &answer).await;
            }
            true
        }
        (409, "stale_seq" | "game_finished") => {
            load.ledger.refused_actions.fetch_add(1, Ordering::SeqCst);
            false
        }
        _ => panic!(
            "game {id}: seat {seat}'s legal action {action} was answered {}: {}",
            answer.status, answer.body
        ),
    }
}

/// Posts an acknowledged action again with the same idempotency key, on another instance
/// than the one that answered, as a client does that never saw the answer: it must get
/// the first answer again (its seq and its events), and nothing may be appended (which the
/// logs show).
async fn post_again(load: &Load, request: &Request, first: &Answer) {
    let mut route = match first.served_by {
        Some(served_by) => (1..INSTANCES)
            .map(|offset| (served_by + offset) % INSTANCES)
            .find(|&instance| load.net.is_alive(instance))
            .map_or(Route::Balancer, Route::Direct),
        None => Route::Balancer,
    };
    let again = load.net.send(&mut route, request).await;
    load.ledger.posted_again.fetch_add(1, Ordering::SeqCst);
    let outline = |body: &Value| {
        let events: Vec<String> = body["events"]
            .as_array()
            .map(|events| {
                events
                    .iter()
                    .map(|event| format!("{} {}", event["seq"], event["type"]))
                    .collect()
            })
            .unwrap_or_default();
        format!("seq {}, events [{}]", body["seq"], events.join(", "))
    };
    if again.status != 200 || outline(&again.body) != outline(&first.body) {
        load.ledger.other_answers.lock().unwrap().push(format!(
            "{} posted again with its Idempotency-Key was answered {} ({}), the first time \
             200 ({})",
            request.path,
            again.status,
            outline(&again.body),
            outline(&first.body)
        ));
    }
}

// ---------------------------------------------------------------------------------------
// Followers

/// What one stream received.
struct FollowerLog {
    game_id: String,
    /// Each event frame as it arrived.
    frames: Vec<Frame>,
    /// How often the stream broke and was resumed with `Last-Event-ID`.
    resumed: usize,
    /// It saw the `end` event.
    ended: bool,
    /// Why it stopped trying, if it did.
    gave_up: Option<String>,
}

struct Frame {
    seq: i64,
    at: Instant,
    /// The instance that sent it.
    instance: Option<usize>,
}

impl Load {
    /// Opens the followers of a table's game. Each goes straight to an instance, starting
    /// with the one after the instance the table posts to, so that the moves come from
    /// another instance (a table through HAProxy posts to all of them).
    async fn follow(self: &Arc<Self>, id: &str, table: usize, route: Route) {
        let posting = match route {
            Route::Direct(instance) => Some(instance),
            Route::Balancer => None,
        };
        let first = posting.unwrap_or(table % INSTANCES);
        let routes: Vec<Route> = (1..=self.followers_per_game)
            .map(|offset| {
                self.net
                    .stream_route(Route::Direct((first + offset) % INSTANCES), posting)
            })
            .collect();
        self.open_followers(id, &routes, posting).await;
    }

    /// Starts one follower per route and returns once each stream is open, so that they
    /// see the moves made next arrive.
    async fn open_followers(self: &Arc<Self>, id: &str, routes: &[Route], avoid: Option<usize>) {
        let mut opened = Vec::new();
        for route in routes {
            let log = Arc::new(Mutex::new(FollowerLog {
                game_id: id.to_owned(),
                frames: Vec::new(),
                resumed: 0,
                ended: false,
                gave_up: None,
            }));
            self.followers.lock().unwrap().push(log.clone());
            let (open, is_open) = tokio::sync::oneshot::channel();
            let task = tokio::spawn(follow_stream(self.clone(), log, *route, avoid, open));
            self.follower_tasks.lock().unwrap().push(task);
            opened.push(is_open);
        }
        for is_open in opened {
            let waited = tokio::time::timeout(RETRY_FOR, is_open).await;
            assert!(
                matches!(waited, Ok(Ok(()))),
                "a stream on game {id} did not open"
            );
        }
    }
}

/// Reads a game's stream until its `end` event; a broken stream is resumed after the last
/// event received, on another instance when its own is gone.
async fn follow_stream(
    load: Arc<Load>,
    log: Arc<Mutex<FollowerLog>>,
    mut route: Route,
    avoid: Option<usize>,
    open: tokio::sync::oneshot::Sender<()>,
) {
    let id = log.lock().unwrap().game_id.clone();
    let mut open = Some(open);
    let mut last_seq = 0;
    let mut failing_since: Option<Instant> = None;
    loop {
        match open_stream(&load, route, &id, last_seq).await {
            Ok((mut response, instance)) => {
                failing_since = None;
                if let Some(open) = open.take() {
                    let _ = open.send(());
                }
                let mut buffer: Vec<u8> = Vec::new();
                while let Ok(Ok(Some(chunk))) =
                    tokio::time::timeout(STREAM_SILENCE, response.chunk()).await
                {
                    buffer.extend_from_slice(&chunk);
                    while let Some(end) = buffer.windows(2).position(|pair| pair == b"\n\n") {
                        let block: Vec<u8> = buffer.drain(..end + 2).collect();
                        match parse_block(&String::from_utf8_lossy(&block)) {
                            Block::Event(seq) => {
                                log.lock().unwrap().frames.push(Frame {
                                    seq,
                                    at: Instant::now(),
                                    instance,
                                });
                                last_seq = seq;
                            }
                            Block::End => {
                                log.lock().unwrap().ended = true;
                                return;
                            }
                            Block::Other => {}
                        }
                    }
                }
                log.lock().unwrap().resumed += 1;
            }
            Err(error) => {
                let since = *failing_since.get_or_insert_with(Instant::now);
                if since.elapsed() > RETRY_FOR {
                    log.lock().unwrap().gave_up = Some(error);
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        route = load.net.stream_route(route, avoid);
    }
}

async fn open_stream(
    load: &Load,
    route: Route,
    id: &str,
    after: i64,
) -> Result<(reqwest::Response, Option<usize>), String> {
    let mut request = load
        .net
        .streams
        .get(format!("{}/v1/games/{id}/stream", load.net.base(route)))
        .bearer_auth(&load.watcher.token);
    if after > 0 {
        request = request.header("Last-Event-ID", after.to_string());
    }
    let response = request.send().await.map_err(|error| error.to_string())?;
    if response.status() != 200 {
        return Err(format!("the stream answered {}", response.status()));
    }
    let instance = Net::served_by(route, response.headers());
    Ok((response, instance))
}

enum Block {
    Event(i64),
    End,
    /// The preamble, a heartbeat.
    Other,
}

fn parse_block(block: &str) -> Block {
    let mut seq = None;
    for line in block.lines() {
        if line == "event: end" {
            return Block::End;
        }
        if let Some(id) = line.strip_prefix("id: ") {
            seq = id.trim().parse().ok();
        }
    }
    seq.map_or(Block::Other, Block::Event)
}

// ---------------------------------------------------------------------------------------
// Webhooks

/// A webhook receiver on a loopback port: keeps every post and answers 200, at once
/// unless it is told to hold its answers.
struct Receiver {
    base: String,
    inbox: Arc<Inbox>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Debug, Clone)]
struct Received {
    /// The account, from the URL its webhook posts to.
    account: String,
    webhook_id: String,
    timestamp: String,
    signature: String,
    body: String,
}

/// What the receiver's handler shares with the test.
struct Inbox {
    received: Mutex<Vec<Received>>,
    /// While true, posts wait for their answer: they stay in flight.
    holding: tokio::sync::watch::Sender<bool>,
}

impl Receiver {
    fn start() -> Receiver {
        let inbox = Arc::new(Inbox {
            received: Mutex::new(Vec::new()),
            holding: tokio::sync::watch::Sender::new(false),
        });
        let kept = web::Data::from(inbox.clone());
        let (address_sender, address) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = actix_web::HttpServer::new(move || {
                    actix_web::App::new()
                        .app_data(kept.clone())
                        .default_service(web::to(keep_delivery))
                })
                .workers(1)
                .bind("127.0.0.1:0")
                .expect("the receiver binds");
                let bound = server.addrs()[0];
                let server = server.run();
                let handle = server.handle();
                actix_web::rt::spawn(server);
                let _ = address_sender.send(bound);
                let _ = stopped.await;
                handle.stop(false).await;
            });
        });
        let address = address.recv().expect("the receiver starts");
        Receiver {
            base: format!("http://{address}"),
            inbox,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn received(&self) -> Vec<Received> {
        self.inbox.received.lock().unwrap().clone()
    }

    /// Keeps every post waiting for its answer until [`Receiver::answer`].
    fn hold(&self) {
        self.inbox.holding.send_replace(true);
    }

    fn answer(&self) {
        self.inbox.holding.send_replace(false);
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn keep_delivery(
    request: HttpRequest,
    body: web::Bytes,
    inbox: web::Data<Inbox>,
) -> HttpResponse {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    inbox.received.lock().unwrap().push(Received {
        account: request.path().trim_start_matches("/hooks/").to_owned(),
        webhook_id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let _ = inbox.holding.subscribe().wait_for(|held| !held).await;
    HttpResponse::Ok().finish()
}

/// Whether `delivery` carries the Standard Webhooks signature made with `secret`.
fn signed_with(delivery: &Received, secret: &str) -> bool {
    let Some(Ok(key)) = secret
        .strip_prefix("whsec_")
        .map(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded))
    else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes keys of any length");
    let signed = format!(
        "{}.{}.{}",
        delivery.webhook_id, delivery.timestamp, delivery.body
    );
    mac.update(signed.as_bytes());
    let expected = format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    );
    delivery
        .signature
        .split(' ')
        .any(|signature| signature == expected)
}

/// What identifies a notification in a webhook's body: its type, game and seq.
type NotificationKey = (String, String, i64);

/// Every notification of `player`, oldest first.
async fn notifications_of(net: &Net, player: &Player) -> Vec<Value> {
    let mut all: Vec<Value> = Vec::new();
    loop {
        let after = all
            .last()
            .map_or(0, |last| last["id"].as_i64().expect("an id"));
        let page = net
            .read(
                &mut Route::Balancer,
                &player.token,
                format!("/v1/me/notifications?after={after}"),
            )
            .await;
        let notifications = page["notifications"].as_array().expect("notifications");
        if notifications.is_empty() {
            return all;
        }
        all.extend(notifications.iter().cloned());
    }
}

fn notification_key(notification: &Value) -> NotificationKey {
    (
        notification["type"].as_str().unwrap_or_default().to_owned(),
        notification["game_id"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        notification["seq"].as_i64().unwrap_or_default(),
    )
}

/// Whether every notification of `players` has reached the receiver.
async fn all_delivered(net: &Net, receiver: &Receiver, players: &[&Player]) -> bool {
    let received: BTreeSet<(String, NotificationKey)> = receiver
        .received()
        .iter()
        .filter_map(|delivery| {
            let body: Value = serde_json::from_str(&delivery.body).ok()?;
            Some((delivery.account.clone(), notification_key(&body["data"])))
        })
        .collect();
    for player in players {
        for notification in notifications_of(net, player).await {
            if !received.contains(&(player.name.clone(), notification_key(&notification))) {
                return false;
            }
        }
    }
    true
}

/// Waits until every notification of `players` has been delivered, or the time for it is
/// up (the checks then say which are missing).
async fn wait_for_deliveries(net: &Net, receiver: &Receiver, players: &[&Player]) {
    let started = Instant::now();
    while started.elapsed() < DELIVERIES_WITHIN && !all_delivered(net, receiver, players).await {
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

// ---------------------------------------------------------------------------------------
// Metrics

/// The newest `/metrics` of each instance, and the killed one's last before the kill.
#[derive(Default)]
struct Scrapes {
    latest: Mutex<BTreeMap<usize, String>>,
    victim_before_kill: Mutex<Option<String>>,
}

async fn scrape(net: &Net, instance: usize) -> Result<String, String> {
    let response = net
        .http
        .get(format!("{}/metrics", net.instances[instance]))
        .send()
        .await
        .map_err(|error| error.to_string())?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()));
    }
    response.text().await.map_err(|error| error.to_string())
}

/// Scrapes every running instance once a second, as a monitoring system would.
async fn scrape_regularly(net: Arc<Net>, scrapes: Arc<Scrapes>) {
    loop {
        for instance in (0..INSTANCES).filter(|&instance| net.is_alive(instance)) {
            if let Ok(text) = scrape(&net, instance).await {
                scrapes.latest.lock().unwrap().insert(instance, text);
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// A series' value in a scrape, e.g. `turnpost_bot_moves_total{outcome="appended"}`.
fn series(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no series {name} in the scrape:\n{text}")) as u64
}

// ---------------------------------------------------------------------------------------
// The end of the load

/// Waits until `until`, and then until every stalled seat has timed out or `due` passed.
async fn wait_for_timeouts(load: &Load, until: Instant, due: Instant) {
    tokio::time::sleep_until(until.into()).await;
    let stalled: Vec<(String, u8)> = load
        .ledger
        .games
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(id, notes)| Some((id.clone(), notes.stalled?)))
        .collect();
    let mut route = Route::Balancer;
    loop {
        let mut waiting = false;
        for (id, seat) in &stalled {
            let summary = load
                .net
                .read(&mut route, &load.watcher.token, format!("/v1/games/{id}"))
                .await;
            waiting |= summary["seats"][usize::from(*seat)]["forfeit"] != "timed_out";
        }
        if !waiting || Instant::now() > due {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Waits until every game the clients know has finished (the games left to bots play on
/// by themselves).
async fn wait_until_every_game_ended(load: &Load) {
    let started = Instant::now();
    let mut route = Route::Balancer;
    loop {
        let mut running = Vec::new();
        for id in load.ledger.game_ids() {
            let summary = load
                .net
                .read(&mut route, &load.watcher.token, format!("/v1/games/{id}"))
                .await;
            if summary["status"] != "finished" {
                running.push(format!(
                    "{id}: {} at seq {}, to act {}, seats {}",
                    summary["status"], summary["current_seq"], summary["to_act"], summary["seats"]
                ));
            }
        }
        if running.is_empty() {
            return;
        }
        assert!(
            started.elapsed() < WIND_DOWN_FOR,
            "games still not finished {WIND_DOWN_FOR:?} after the load:\n{}",
            running.join("\n")
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Waits until every follower has seen its game end (or given up), for at most 30 s.
async fn wait_until_followers_ended(load: &Load) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        let followers = load.followers.lock().unwrap().clone();
        if followers.iter().all(|log| {
            let log = log.lock().unwrap();
            log.ended || log.gave_up.is_some()
        }) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

// ---------------------------------------------------------------------------------------
// Checks

struct Timeline {
    killed_at: Duration,
    taken_out_after: Duration,
    load_lasted: Duration,
}

/// What the checks found: the figures to print, and every failure.
#[derive(Default)]
struct Verdict {
    figures: Vec<String>,
    failures: Vec<String>,
}

impl Verdict {
    /// Prints the figures; fails the test with every failure, after the figures.
    fn conclude(self) {
        let figures = self.figures.join("\n");
        println!("{figures}");
        assert!(
            self.failures.is_empty(),
            "{figures}\n\n{} failures:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

/// Every check of the run.
async fn check(
    size: Size,
    load: &Load,
    scrapes: &Scrapes,
    receiver: &Receiver,
    webhook_secrets: &BTreeMap<String, String>,
    players: &[&Player],
    timeline: &Timeline,
) {
    let mut verdict = Verdict::default();
    verdict.figures.push(format!(
        "cluster test ({}): {INSTANCES} instances on PostgreSQL behind HAProxy; instance \
         {VICTIM} killed with SIGKILL {:.1} s into the load, HAProxy took it out {:.2} s \
         later; the load lasted {:.1} s",
        size.name,
        timeline.killed_at.as_secs_f64(),
        timeline.taken_out_after.as_secs_f64(),
        timeline.load_lasted.as_secs_f64()
    ));
    check_no_unknown_games(&mut verdict, load, players).await;
    let games = std::mem::take(&mut *load.ledger.games.lock().unwrap());
    let logs = check_logs(&mut verdict, load, &games).await;
    check_counters(&mut verdict, scrapes, &logs);
    check_followers(&mut verdict, load, &games, &logs.exports);
    check_deliveries(&mut verdict, &load.net, receiver, webhook_secrets, players).await;
    check_shared_limit(&mut verdict, &load.net, &load.watcher).await;
    verdict.conclude();
}

/// A rate limit holds across the instances: the watcher's bulk exports, asked of each
/// surviving instance and of HAProxy in turn, are answered as many times as one instance
/// allows (`--bulk-exports-per-hour-per-account`), and refused from then on everywhere.
async fn check_shared_limit(verdict: &mut Verdict, net: &Net, watcher: &Player) {
    const ALLOWED: usize = 6;
    let mut routes: Vec<Route> = (0..INSTANCES)
        .filter(|&instance| instance != VICTIM)
        .map(Route::Direct)
        .collect();
    routes.push(Route::Balancer);
    let mut statuses = Vec::new();
    for index in 0..ALLOWED + routes.len() {
        let mut route = routes[index % routes.len()];
        let answer = net
            .send(&mut route, &Request::get(&watcher.token, "/v1/exports"))
            .await;
        statuses.push(answer.status);
    }
    let answered = statuses.iter().filter(|status| **status == 200).count();
    verdict.figures.push(format!(
        "a shared limit: {answered} of {} bulk exports answered across {} routes (allowed: \
         {ALLOWED})",
        statuses.len(),
        routes.len()
    ));
    let expected: Vec<u16> = (0..statuses.len())
        .map(|index| if index < ALLOWED { 200 } else { 429 })
        .collect();
    if statuses != expected {
        verdict.failures.push(format!(
            "bulk exports across the instances: {statuses:?}, not {expected:?}"
        ));
    }
}

/// Every game on the server is one a client knows: no creation whose answer was lost left
/// a second game behind.
async fn check_no_unknown_games(verdict: &mut Verdict, load: &Load, players: &[&Player]) {
    let known: BTreeSet<String> = load.ledger.game_ids().into_iter().collect();
    for player in players {
        for game in games_of(&load.net, player).await {
            if !known.contains(&game) {
                verdict.failures.push(format!(
                    "{} sits in game {game}, which no client knows (a creation that seemed \
                     lost happened)",
                    player.name
                ));
            }
        }
    }
}

/// What the finished games' logs hold.
struct Logs {
    exports: BTreeMap<String, Value>,
    bot_actions: u64,
    timeouts: u64,
}

/// Every game's log against what its clients were told; every export replays.
async fn check_logs(
    verdict: &mut Verdict,
    load: &Load,
    games: &BTreeMap<String, GameNotes>,
) -> Logs {
    let mut logs = Logs {
        exports: BTreeMap::new(),
        bot_actions: 0,
        timeouts: 0,
    };
    let mut settings: BTreeMap<Setting, usize> = BTreeMap::new();
    for (id, notes) in games {
        *settings.entry(notes.setting).or_default() += 1;
        let path = format!("/v1/games/{id}/export");
        let export = load
            .net
            .read(&mut Route::Balancer, &load.watcher.token, path)
            .await;
        if export["complete"] != true {
            verdict.failures.push(format!(
                "game {id} has no complete export: it did not finish"
            ));
            continue;
        }
        check_log(id, notes, &export, &mut verdict.failures);
        logs.bot_actions += export["actions"]
            .as_array()
            .expect("actions")
            .iter()
            .filter(|action| !action["bot"].is_null())
            .count() as u64;
        logs.timeouts += timed_out_seats(&export).len() as u64;
        if let Err(error) = turnpost::games::replay::GameRecord::from_json(&export.to_string())
            .and_then(|record| record.verify())
        {
            verdict
                .failures
                .push(format!("game {id}'s export does not replay: {error}"));
        }
        logs.exports.insert(id.clone(), export);
    }
    let acknowledged: usize = games.values().map(|notes| notes.acks.len()).sum();
    verdict.figures.push(format!(
        "games: {} ({settings:?}); {acknowledged} actions acknowledged, {} of them after a \
         lost answer, {} refused because the game had moved on; {} requests sent again \
         after no answer",
        games.len(),
        load.ledger.retried_actions.load(Ordering::SeqCst),
        load.ledger.refused_actions.load(Ordering::SeqCst),
        load.net.unanswered.load(Ordering::SeqCst)
    ));
    let other_answers = std::mem::take(&mut *load.ledger.other_answers.lock().unwrap());
    verdict.figures.push(format!(
        "idempotency: {} acknowledged actions posted again with their key on another \
         instance, {} answered unlike the first time",
        load.ledger.posted_again.load(Ordering::SeqCst),
        other_answers.len()
    ));
    verdict.failures.extend(other_answers);
    logs
}

/// Every bot move and timeout in the logs was counted by exactly one instance, and no bot
/// move was computed in vain.
fn check_counters(verdict: &mut Verdict, scrapes: &Scrapes, logs: &Logs) {
    let latest = scrapes.latest.lock().unwrap().clone();
    let before_kill = scrapes
        .victim_before_kill
        .lock()
        .unwrap()
        .clone()
        .expect("the victim was scraped before the kill");
    let mut per_instance = Vec::new();
    let (mut appended, mut discarded, mut timeouts) = (0, 0, 0);
    for instance in 0..INSTANCES {
        let (text, when) = if instance == VICTIM {
            (&before_kill, " (before the kill)")
        } else {
            (&latest[&instance], "")
        };
        let moves = series(text, "turnpost_bot_moves_total{outcome=\"appended\"}");
        appended += moves;
        discarded += series(text, "turnpost_bot_moves_total{outcome=\"discarded\"}");
        timeouts += series(text, "turnpost_timeouts_recorded_total");
        per_instance.push(format!("{moves} by instance {instance}{when}"));
    }
    verdict.figures.push(format!(
        "bot moves: {} in the logs; counted {}; discarded {discarded}",
        logs.bot_actions,
        per_instance.join(", ")
    ));
    verdict.figures.push(format!(
        "timeouts: {} in the logs, {timeouts} counted",
        logs.timeouts
    ));
    // The killed instance's workers may each have finished the move they were making
    // between its last scrape and the kill.
    if !(appended..=appended + BOT_WORKERS).contains(&logs.bot_actions) {
        verdict.failures.push(format!(
            "the instances counted {appended} bot moves appended, the logs hold {}",
            logs.bot_actions
        ));
    }
    if discarded != 0 {
        verdict.failures.push(format!(
            "{discarded} bot moves were computed and then discarded: a move was computed \
             twice, or a game moved on under a bot"
        ));
    }
    if !(timeouts..=timeouts + 1).contains(&logs.timeouts) {
        verdict.failures.push(format!(
            "the instances counted {timeouts} timeouts, the logs hold {}",
            logs.timeouts
        ));
    }
}

/// The ids of every game `player` sits in.
async fn games_of(net: &Net, player: &Player) -> Vec<String> {
    let mut ids = Vec::new();
    loop {
        let path = format!("/v1/games?mine=true&limit=200&offset={}", ids.len());
        let page = net.read(&mut Route::Balancer, &player.token, path).await;
        let games = page["games"].as_array().expect("games");
        ids.extend(
            games
                .iter()
                .filter_map(|game| game["id"].as_str().map(str::to_owned)),
        );
        if games.len() < 200 {
            return ids;
        }
    }
}

/// The seats that timed out in an export, once per timeout.
fn timed_out_seats(export: &Value) -> Vec<u64> {
    export["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|event| event["type"] == "seat_timed_out")
        .map(|event| event["payload"]["seat"].as_u64().expect("a seat"))
        .collect()
}

/// One finished game's log against what its clients were told.
fn check_log(id: &str, notes: &GameNotes, export: &Value, failures: &mut Vec<String>) {
    let actions: BTreeMap<i64, &Value> = export["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .map(|action| (action["first_seq"].as_i64().expect("a seq"), action))
        .collect();
    let events: BTreeMap<i64, &Value> = export["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|event| (event["seq"].as_i64().expect("a seq"), event))
        .collect();
    for ack in &notes.acks {
        let logged = actions.get(&ack.first_seq).copied().filter(|logged| {
            logged["seat"] == ack.seat && logged["action"] == ack.action && logged["bot"].is_null()
        });
        let Some(logged) = logged else {
            failures.push(format!(
                "game {id}: seat {} was acknowledged {} at seqs {}..={}, the log holds {}",
                ack.seat,
                ack.action,
                ack.first_seq,
                ack.last_seq,
                actions
                    .get(&ack.first_seq)
                    .map_or("nothing there".into(), |logged| logged.to_string())
            ));
            continue;
        };
        let append_end = append_end(&events, logged["last_seq"].as_i64().expect("a seq"));
        if ack.last_seq != append_end {
            failures.push(format!(
                "game {id}: seat {}'s {} was acknowledged at seq {}, but the append that \
                 logged it ended at seq {append_end}",
                ack.seat, ack.action, ack.last_seq
            ));
        }
    }
    let acknowledged: BTreeSet<i64> = notes.acks.iter().map(|ack| ack.first_seq).collect();
    for (first_seq, action) in &actions {
        if action["bot"].is_null() && !acknowledged.contains(first_seq) {
            failures.push(format!(
                "game {id}: the log holds an action nobody was told of at seq {first_seq}: \
                 {action}"
            ));
        }
    }
    let timed_out = timed_out_seats(export);
    let expected: Vec<u64> = notes.stalled.map(u64::from).into_iter().collect();
    if timed_out != expected {
        failures.push(format!(
            "game {id}: seats {timed_out:?} timed out, expected {expected:?} (the seat that \
             stopped moving, once)"
        ));
    }
}

/// Where the append that logged an action's events up to `last_seq` ended: an action's
/// own events are the engine's, and the server's clock events follow them in the same
/// append (at the same time).
fn append_end(events: &BTreeMap<i64, &Value>, last_seq: i64) -> i64 {
    let time = &events[&last_seq]["time"];
    events
        .range(last_seq + 1..)
        .take_while(|(_, event)| event["source"] == "server" && event["time"] == *time)
        .last()
        .map_or(last_seq, |(seq, _)| *seq)
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}

fn delay_figures(what: &str, mut delays: Vec<Duration>) -> String {
    delays.sort();
    let millis = |duration: Duration| duration.as_secs_f64() * 1000.0;
    format!(
        "post-to-frame delay, {what}: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms (n = {})",
        millis(percentile(&delays, 0.5)),
        millis(percentile(&delays, 0.99)),
        millis(delays.last().copied().unwrap_or_default()),
        delays.len()
    )
}

/// Every follower saw every event of its game in order, and each acknowledged move soon
/// after its acknowledgement.
fn check_followers(
    verdict: &mut Verdict,
    load: &Load,
    games: &BTreeMap<String, GameNotes>,
    exports: &BTreeMap<String, Value>,
) {
    let followers = load.followers.lock().unwrap().clone();
    let (mut elsewhere, mut same_instance) = (Vec::new(), Vec::new());
    let mut moves_from_elsewhere: BTreeMap<usize, usize> = BTreeMap::new();
    let (mut resumed, mut frames) = (0, 0);
    for log in &followers {
        let log = log.lock().unwrap();
        let id = &log.game_id;
        resumed += log.resumed;
        frames += log.frames.len();
        if let Some(error) = &log.gave_up {
            verdict
                .failures
                .push(format!("a follower of {id} gave up: {error}"));
        }
        if !log.ended {
            verdict
                .failures
                .push(format!("a follower of {id} never saw the game end"));
        }
        let Some(export) = exports.get(id) else {
            continue;
        };
        let last_seq = export["events"]
            .as_array()
            .and_then(|events| events.last())
            .and_then(|event| event["seq"].as_i64())
            .unwrap_or_default();
        let seqs: Vec<i64> = log.frames.iter().map(|frame| frame.seq).collect();
        if seqs != (1..=last_seq).collect::<Vec<i64>>() {
            let first_wrong = seqs
                .iter()
                .zip(1..)
                .find(|(seq, expected)| **seq != *expected)
                .map(|(seq, expected)| format!("seq {seq} where {expected} was due"));
            verdict.failures.push(format!(
                "a follower of {id} saw {} events, the log holds {last_seq}: {}",
                seqs.len(),
                first_wrong.unwrap_or_else(|| "the last ones are missing".into())
            ));
        }
        let arrivals: BTreeMap<i64, &Frame> =
            log.frames.iter().map(|frame| (frame.seq, frame)).collect();
        let mut late = Vec::new();
        for ack in &games[id].acks {
            let Some(frame) = arrivals.get(&ack.last_seq) else {
                continue;
            };
            let delay = frame.at.saturating_duration_since(ack.at);
            if delay > FRAME_DELAY_BOUND {
                late.push(delay);
            }
            match frame.instance {
                Some(instance) if Some(instance) != ack.served_by => {
                    elsewhere.push(delay);
                    *moves_from_elsewhere.entry(instance).or_default() += 1;
                }
                _ => same_instance.push(delay),
            }
        }
        if let Some(latest) = late.iter().max() {
            verdict.failures.push(format!(
                "a follower of {id} saw {} moves more than {FRAME_DELAY_BOUND:?} after their \
                 acknowledgement, one {latest:?} after",
                late.len()
            ));
        }
    }
    for instance in (0..INSTANCES).filter(|&instance| instance != VICTIM) {
        if moves_from_elsewhere.get(&instance).copied().unwrap_or(0) == 0 {
            verdict.failures.push(format!(
                "no follower on instance {instance} saw a move posted on another instance"
            ));
        }
    }
    verdict.figures.push(format!(
        "followers: {} streams, {frames} events received, {resumed} streams resumed; moves \
         seen from another instance, by the follower's instance: {moves_from_elsewhere:?}",
        followers.len()
    ));
    verdict
        .figures
        .push(delay_figures("posted on another instance", elsewhere));
    verdict.figures.push(delay_figures(
        "posted on the follower's instance",
        same_instance,
    ));
}

/// Every notification of an account with a webhook reached it, signed; a repeated delivery
/// kept its `webhook-id`, and no `webhook-id` carried two bodies.
async fn check_deliveries(
    verdict: &mut Verdict,
    net: &Net,
    receiver: &Receiver,
    webhook_secrets: &BTreeMap<String, String>,
    players: &[&Player],
) {
    let received = receiver.received();
    let mut ids_by_notification: BTreeMap<(String, NotificationKey), BTreeSet<String>> =
        BTreeMap::new();
    let mut bodies_by_id: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for delivery in &received {
        match webhook_secrets.get(&delivery.account) {
            Some(secret) if signed_with(delivery, secret) => {}
            _ => verdict.failures.push(format!(
                "a delivery to {} is not signed with its webhook's secret: {delivery:?}",
                delivery.account
            )),
        }
        let body: Value = serde_json::from_str(&delivery.body).unwrap_or_default();
        ids_by_notification
            .entry((delivery.account.clone(), notification_key(&body["data"])))
            .or_default()
            .insert(delivery.webhook_id.clone());
        bodies_by_id
            .entry(delivery.webhook_id.clone())
            .or_default()
            .insert(delivery.body.clone());
    }
    let mut notifications = 0;
    for player in players
        .iter()
        .filter(|player| webhook_secrets.contains_key(&player.name))
    {
        let expected: BTreeSet<NotificationKey> = notifications_of(net, player)
            .await
            .iter()
            .map(notification_key)
            .collect();
        notifications += expected.len();
        for key in &expected {
            if !ids_by_notification.contains_key(&(player.name.clone(), key.clone())) {
                verdict.failures.push(format!(
                    "{}'s notification {key:?} never arrived",
                    player.name
                ));
            }
        }
        let delivered = ids_by_notification
            .keys()
            .filter(|(account, _)| *account == player.name);
        for (account, key) in delivered {
            if !expected.contains(key) {
                verdict.failures.push(format!(
                    "{account} received {key:?}, which is none of its notifications"
                ));
            }
        }
    }
    for ((account, key), ids) in &ids_by_notification {
        if ids.len() > 1 {
            verdict.failures.push(format!(
                "{account}'s notification {key:?} arrived under {} webhook-ids: {ids:?}",
                ids.len()
            ));
        }
    }
    for (id, bodies) in &bodies_by_id {
        if bodies.len() > 1 {
            verdict.failures.push(format!(
                "webhook-id {id} carried {} bodies: {bodies:?}",
                bodies.len()
            ));
        }
    }
    verdict.figures.push(format!(
        "webhooks: {notifications} notifications, {} deliveries ({} repeated under the same \
         webhook-id)",
        received.len(),
        received.len() - bodies_by_id.len()
    ));
}
