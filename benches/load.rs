//! Load against the real release server on loopback, on SQLite and on PostgreSQL: a fast
//! client plays many games of every kind at once (each step reads the legal actions and
//! posts one; every fourth step reads the view too), and the run prints actions per
//! second, POST latency, read latency early and late in a game, the server's CPU time per
//! action and, when PostgreSQL runs on this machine, its processes' CPU time per action,
//! and, on the same PostgreSQL with as many clients, pgbench's rates and latencies for the
//! statements of one append (flat out, and paced at the rate of turnpost's paced phase)
//! and for single-row inserts.
//!
//! `scripts/bench-load [concurrent games] [seconds per backend]` (defaults 64 and 20); it
//! starts a throwaway PostgreSQL unless `BENCH_DATABASE_URL` names one.

#[path = "support/server.rs"]
mod server;

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::Connection;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use server::{drop_database, fresh_database, percentile, process_cpu, sign_up, Server};
use tokio::sync::Mutex;

const KINDS: [&str; 3] = ["tikal", "java", "eternal_palace"];
/// Reads at or before this seq count as early in a game, reads after `LATE` as late.
const EARLY: i64 = 60;
const LATE: i64 = 400;

/// A view is read every this many steps (the answer to an action carries the actor's view
/// already; other clients read it when a stream tells them the game moved).
const VIEW_EVERY: usize = 4;

#[derive(Default)]
struct Samples {
    posts: Vec<Duration>,
    early_legal: Vec<Duration>,
    late_legal: Vec<Duration>,
    early_views: Vec<Duration>,
    late_views: Vec<Duration>,
    actions: usize,
    games_finished: usize,
    errors: usize,
}

impl Samples {
    fn read(&mut self, seq: i64, took: Duration, view: bool) {
        let samples = match (seq <= EARLY, seq > LATE, view) {
            (true, _, false) => &mut self.early_legal,
            (true, _, true) => &mut self.early_views,
            (_, true, false) => &mut self.late_legal,
            (_, true, true) => &mut self.late_views,
            _ => return,
        };
        samples.push(took);
    }

    fn add(&mut self, mut other: Samples) {
        self.posts.append(&mut other.posts);
        self.early_legal.append(&mut other.early_legal);
        self.late_legal.append(&mut other.late_legal);
        self.early_views.append(&mut other.early_views);
        self.late_views.append(&mut other.late_views);
        self.actions += other.actions;
        self.games_finished += other.games_finished;
        self.errors += other.errors;
    }
}

/// p50 and p99.
type Spread = (Duration, Duration);

fn spread(samples: &mut [Duration]) -> Spread {
    (percentile(samples, 0.5), percentile(samples, 0.99))
}

struct Table {
    name: String,
    /// The rate a paced phase aimed at (`None`: flat out).
    paced_at: Option<f64>,
    actions_per_second: f64,
    post: Spread,
    early_legal: Spread,
    late_legal: Spread,
    early_view: Spread,
    late_view: Spread,
    cpu_ms_per_action: f64,
    actions: usize,
    finished: usize,
    errors: usize,
    /// PostgreSQL's processes on this machine, per action (`None`: SQLite, which runs in
    /// the server, or a database elsewhere).
    database_cpu_ms_per_action: Option<f64>,
}

/// What the client reads of legal actions: the actions stay unparsed JSON, as a bot that
/// picks one and posts it back needs nothing more.
#[derive(Deserialize)]
struct Legal<'a> {
    seq: i64,
    #[serde(borrow)]
    actions: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct Accepted {
    view: AcceptedView,
}

#[derive(Deserialize)]
struct AcceptedView {
    finished: bool,
    to_act: Vec<usize>,
}

async fn new_game(client: &reqwest::Client, base: &str, kind: &str, tokens: &[String]) -> String {
    let game: Value = client
        .post(format!("{base}/v1/games"))
        .bearer_auth(&tokens[0])
        .json(&json!({"kind": kind, "seats": 2}))
        .send()
        .await
        .expect("create")
        .json()
        .await
        .expect("game");
    let id = game["id"].as_str().expect("game id").to_owned();
    client
        .post(format!("{base}/v1/games/{id}/seats"))
        .bearer_auth(&tokens[1])
        .send()
        .await
        .expect("join");
    id
}

/// The seats a `to_act` list names; both when it names none (whoever asks next finds out).
fn seats_to_act(to_act: &Value) -> Vec<usize> {
    let seats: Vec<usize> = to_act
        .as_array()
        .map(|seats| {
            seats
                .iter()
                .filter_map(|seat| seat.as_u64().map(|seat| seat as usize))
                .collect()
        })
        .unwrap_or_default();
    either_if_none(seats)
}

fn either_if_none(seats: Vec<usize>) -> Vec<usize> {
    if seats.is_empty() {
        vec![0, 1]
    } else {
        seats
    }
}

/// A game a client is playing: its id, the seats to act and the seq last seen.
type InPlay = (String, Vec<usize>, i64);

/// One client playing games of `kind` one after another until `deadline`, going on with
/// `resume` first if given: every step reads the legal actions and posts one of them; every
/// [`VIEW_EVERY`]th step reads the view too. Returns the game it was playing at the deadline.
#[allow(clippy::too_many_arguments)] // the run's settings, one client's share
async fn play(
    client: reqwest::Client,
    base: String,
    kind: &'static str,
    tokens: Vec<String>,
    deadline: Instant,
    pace: Option<Pace>,
    resume: Option<InPlay>,
    samples: Arc<Mutex<Samples>>,
) -> Option<InPlay> {
    let mut local = Samples::default();
    let mut step: usize = 0;
    let mut next_step = pace.map(|pace| tokio::time::Instant::now() + pace.offset);
    let mut resume = resume;
    let mut left_off = None;
    'games: while Instant::now() < deadline {
        let (id, mut to_act, mut seq) = match resume.take() {
            Some(in_play) => in_play,
            None => (new_game(&client, &base, kind, &tokens).await, vec![0], 0),
        };
        while Instant::now() < deadline {
            left_off = Some((id.clone(), to_act.clone(), seq));
            if let (Some(pace), Some(next)) = (pace, next_step.as_mut()) {
                tokio::time::sleep_until(*next).await;
                *next += pace.every;
            }
            step += 1;
            let token = &tokens[to_act[step % to_act.len()]];
            if step.is_multiple_of(VIEW_EVERY) {
                let started = Instant::now();
                let view = match client
                    .get(format!("{base}/v1/games/{id}/view"))
                    .bearer_auth(token)
                    .send()
                    .await
                {
                    Ok(view) => view.bytes().await.is_ok(),
                    Err(_) => false,
                };
                if !view {
                    local.errors += 1;
                    continue 'games;
                }
                local.read(seq, started.elapsed(), true);
            }
            let started = Instant::now();
            let legal = client
                .get(format!("{base}/v1/games/{id}/legal-actions"))
                .bearer_auth(token)
                .send()
                .await;
            let Ok(body) = (match legal {
                Ok(legal) => legal.bytes().await,
                Err(error) => Err(error),
            }) else {
                local.errors += 1;
                continue 'games;
            };
            let Ok(legal) = serde_json::from_slice::<Legal>(&body) else {
                local.errors += 1;
                continue 'games;
            };
            seq = legal.seq;
            local.read(seq, started.elapsed(), false);
            if legal.actions.is_empty() {
                // The other seat must act; ask the game who.
                let summary: Value = match client
                    .get(format!("{base}/v1/games/{id}"))
                    .bearer_auth(token)
                    .send()
                    .await
                {
                    Ok(response) => response.json().await.unwrap_or_default(),
                    Err(_) => Value::Null,
                };
                if summary["status"] == "finished" {
                    local.games_finished += 1;
                    left_off = None;
                    continue 'games;
                }
                to_act = seats_to_act(&summary["to_act"]);
                continue;
            }
            let action = legal.actions[step * 7919 % legal.actions.len()].get();
            let body = format!("{{\"expected_seq\":{seq},\"action\":{action}}}");
            let posted = Instant::now();
            let answer = client
                .post(format!("{base}/v1/games/{id}/actions"))
                .bearer_auth(token)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await;
            let accepted = match answer {
                Ok(response) if response.status() == 200 => response.bytes().await.ok(),
                _ => None,
            };
            let Some(accepted) =
                accepted.and_then(|bytes| serde_json::from_slice::<Accepted>(&bytes).ok())
            else {
                local.errors += 1;
                continue;
            };
            local.posts.push(posted.elapsed());
            local.actions += 1;
            if accepted.view.finished {
                local.games_finished += 1;
                left_off = None;
                continue 'games;
            }
            to_act = either_if_none(accepted.view.to_act);
        }
    }
    samples.lock().await.add(local);
    left_off
}

/// A client's steps at a fixed rate, starting `offset` into the first interval.
#[derive(Clone, Copy)]
struct Pace {
    every: Duration,
    offset: Duration,
}

/// The fold cache's bound, as the server is started by default.
const FOLD_CACHE_MIB: u64 = 128;
/// How long the server may take after the load to come back within its bound.
const SETTLE: Duration = Duration::from_secs(60);

/// The server's resident memory: idle before the load, at its peak, right after the load,
/// and once settled (the first second it came within the fold cache's bound plus the idle
/// footprint plus 64 MiB, or after [`SETTLE`]).
struct Memory {
    idle_mib: u64,
    peak_mib: u64,
    after_load_mib: u64,
    settled_mib: u64,
    settled_after: Duration,
}

impl Memory {
    fn bound_mib(&self) -> u64 {
        self.idle_mib + FOLD_CACHE_MIB + 64
    }
}

/// What the run stored, per backend.
struct Storage {
    /// Bytes on disk per stored event, its indexes included (the events table's whole size
    /// over its rows).
    per_event: f64,
    /// Bytes on disk a finished game takes: its rows in every table that holds its history
    /// (game, seats, events, actions, notifications), each at its table's bytes per row.
    per_finished_game: f64,
    /// Events in a finished game, on average.
    events_per_finished_game: f64,
    /// The export of a finished game (`GET /v1/games/{id}/export`), plain JSON.
    export_bytes: f64,
}

/// Which phases a run plays, and the paced phase's rate.
#[derive(Clone, Copy)]
struct Phases {
    /// Only the flat-out phase, for profiles: no paced phase, memory or storage.
    flat_out_only: bool,
    /// Actions per second of the paced phase; `None`: half the rate flat out reached. A fixed
    /// rate compares two servers' latency at the same load (an A/B), where half of each
    /// one's own flat-out rate would load the faster one more.
    paced_at: Option<f64>,
}

/// The server on `database_url`, played flat out by `games` clients, then by as many at half
/// the rate they reached (or at `phases.paced_at`), where the latency shows what a player
/// meets on a server that keeps up; then its memory as it settles, and what the games stored.
async fn run(
    backend: &str,
    database_url: &str,
    kinds: &[&'static str],
    games: usize,
    seconds: u64,
    phases: Phases,
) -> (Vec<Table>, Option<Memory>, Option<Storage>) {
    let server = Server::start(&[
        "--database-url",
        database_url,
        "--registrations-per-hour-per-address",
        "1000000",
        "--sign-ins-per-minute-per-address",
        "1000000",
        "--games-per-hour-per-account",
        "1000000",
        "--open-games-per-account",
        "1000000",
    ]);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(games * 2)
        .build()
        .expect("client");
    // Two people of their own in every game, as on a public server: accounts shared by
    // every game would make the database lock their rows for all of them.
    let mut tokens: Vec<Vec<String>> = Vec::with_capacity(games);
    for index in 0..games {
        let (a, b) = (format!("player-{index}-a"), format!("player-{index}-b"));
        let (first, second) = tokio::join!(
            sign_up(&client, &server.base, &a),
            sign_up(&client, &server.base, &b),
        );
        tokens.push(vec![first, second]);
    }
    let idle_mib = server.memory_mib().0;
    let load = Load {
        backend,
        server: &server,
        client: &client,
        tokens: &tokens,
        kinds,
        games,
        seconds,
    };
    let (flat_out, in_play) = load.phase(None, Vec::new()).await;
    if phases.flat_out_only {
        let table = Table {
            name: format!("{backend}, flat out"),
            ..flat_out
        };
        return (vec![table], None, None);
    }
    let rate = phases.paced_at.unwrap_or(flat_out.actions_per_second / 2.0);
    let every = Duration::from_secs_f64(games as f64 / rate.max(1.0));
    // The same games go on, so that the paced run also reads late in long games.
    let (paced, _) = load.phase(Some(every), in_play).await;
    let storage = storage(backend, database_url, &client, &server, &tokens[0][0]).await;
    let memory = settle(&server, idle_mib).await;
    let tables = vec![
        Table {
            name: format!("{backend}, flat out"),
            ..flat_out
        },
        Table {
            name: format!("{backend}, paced at {rate:.0} actions/s"),
            paced_at: Some(rate),
            ..paced
        },
    ];
    (tables, Some(memory), storage)
}

/// Waits, idle, for the server's memory to come back within its bound.
async fn settle(server: &Server, idle_mib: u64) -> Memory {
    let (after_load_mib, peak_mib) = server.memory_mib();
    let mut memory = Memory {
        idle_mib,
        peak_mib,
        after_load_mib,
        settled_mib: after_load_mib,
        settled_after: Duration::ZERO,
    };
    let started = Instant::now();
    while memory.settled_mib > memory.bound_mib() && started.elapsed() < SETTLE {
        tokio::time::sleep(Duration::from_secs(1)).await;
        memory.settled_mib = server.memory_mib().0;
        memory.settled_after = started.elapsed();
    }
    memory
}

#[derive(diesel::QueryableByName)]
struct Number {
    #[diesel(sql_type = diesel::sql_types::Double)]
    value: f64,
}

#[derive(diesel::QueryableByName)]
struct Id {
    #[diesel(sql_type = diesel::sql_types::Text)]
    id: String,
}

/// The tables that hold a game's history, and how each of their rows names its game.
const HISTORY: [(&str, &str); 5] = [
    ("games", "id"),
    ("seats", "game_id"),
    ("events", "game_id"),
    ("actions", "game_id"),
    ("notifications", "game_id"),
];

/// The number `sql` selects as `value`, 0 if it fails; on either backend's connection.
macro_rules! number {
    ($connection:expr, $sql:expr) => {
        diesel::RunQueryDsl::get_result::<Number>(diesel::sql_query($sql), $connection)
            .map_or(0.0, |number| number.value)
    };
}

/// Bytes per event and per finished game on disk, from the backend's own count of its
/// tables' pages (PostgreSQL's relation sizes, SQLite's `dbstat`), and the size of a
/// finished game's export.
async fn storage(
    backend: &str,
    database_url: &str,
    client: &reqwest::Client,
    server: &Server,
    token: &str,
) -> Option<Storage> {
    let finished = "SELECT id FROM games WHERE status = 'finished' ORDER BY id LIMIT 20";
    let on_disk = |table: &str| match backend {
        "postgres" => format!("SELECT pg_total_relation_size('{table}')::float8 AS value"),
        _ => format!(
            "SELECT CAST(coalesce(sum(pgsize), 0) AS DOUBLE PRECISION) AS value FROM dbstat \
             WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = '{table}')"
        ),
    };
    let mut per_row = Vec::new();
    let mut finished_rows = Vec::new();
    let finished_games: f64;
    let events: f64;
    let ids: Vec<Id>;
    macro_rules! measure {
        ($connection:expr) => {{
            let connection = $connection;
            for (table, game_column) in HISTORY {
                let rows = number!(
                    connection,
                    format!("SELECT CAST(count(*) AS DOUBLE PRECISION) AS value FROM {table}")
                );
                per_row.push(number!(connection, on_disk(table)) / rows.max(1.0));
                finished_rows.push(number!(
                    connection,
                    &format!(
                        "SELECT CAST(count(*) AS DOUBLE PRECISION) AS value FROM {table} WHERE {game_column} IN \
                         (SELECT id FROM games WHERE status = 'finished')"
                    )
                ));
            }
            finished_games = number!(
                connection,
                "SELECT CAST(count(*) AS DOUBLE PRECISION) AS value FROM games WHERE status = 'finished'"
            );
            events = finished_rows[2];
            ids = diesel::RunQueryDsl::load(diesel::sql_query(finished), connection).ok()?;
        }};
    }
    match backend {
        "postgres" => measure!(&mut diesel::PgConnection::establish(database_url).ok()?),
        _ => measure!(&mut diesel::SqliteConnection::establish(database_url).ok()?),
    }
    let mut export_bytes = Vec::new();
    for Id { id } in &ids {
        let export = client
            .get(format!("{}/v1/games/{id}/export", server.base))
            .bearer_auth(token)
            .send()
            .await
            .ok()?
            .bytes()
            .await
            .ok()?;
        export_bytes.push(export.len() as f64);
    }
    let finished_bytes: f64 = per_row
        .iter()
        .zip(&finished_rows)
        .map(|(bytes, rows)| bytes * rows)
        .sum();
    Some(Storage {
        per_event: per_row[2],
        per_finished_game: finished_bytes / finished_games.max(1.0),
        events_per_finished_game: events / finished_games.max(1.0),
        export_bytes: export_bytes.iter().sum::<f64>() / (export_bytes.len().max(1) as f64),
    })
}

/// CPU time (user and system) of every process named `postgres` on this machine, in
/// seconds: a local PostgreSQL's server processes, backends and background workers. `None`
/// when there is none.
fn local_postgres_cpu_seconds() -> Option<f64> {
    let stats = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok());
    let mut found = None;
    for stat in stats {
        if let Some(("postgres", seconds)) = process_cpu(&stat) {
            *found.get_or_insert(0.0) += seconds;
        }
    }
    found
}

/// One backend's server, its clients' accounts and the run's settings, for each phase.
struct Load<'a> {
    backend: &'a str,
    server: &'a Server,
    client: &'a reqwest::Client,
    /// Each game's two players.
    tokens: &'a [Vec<String>],
    kinds: &'a [&'static str],
    games: usize,
    seconds: u64,
}

impl Load<'_> {
    /// The games played for the run's seconds, flat out or one step every `step_every`,
    /// going on with `resume` where given; returns the table and the games left in play.
    async fn phase(
        &self,
        step_every: Option<Duration>,
        mut resume: Vec<Option<InPlay>>,
    ) -> (Table, Vec<Option<InPlay>>) {
        let Load {
            backend,
            server,
            client,
            tokens,
            kinds,
            games,
            seconds,
        } = *self;
        resume.resize(games, None);
        // Tells a profiler watching the server when the load begins (`scripts/profile-step`).
        eprintln!(
            "load: the {} phase starts",
            if step_every.is_some() {
                "paced"
            } else {
                "flat-out"
            }
        );
        let samples = Arc::new(Mutex::new(Samples::default()));
        let database_cpu = || {
            (backend == "postgres")
                .then(local_postgres_cpu_seconds)
                .flatten()
        };
        let cpu_before = server.cpu_seconds();
        let database_cpu_before = database_cpu();
        let started = Instant::now();
        let deadline = started + Duration::from_secs(seconds);
        let players: Vec<_> = (0..games)
            .zip(resume)
            .map(|(index, resume)| {
                let pace = step_every.map(|every| Pace {
                    every,
                    offset: every.mul_f64(index as f64 / games as f64),
                });
                tokio::spawn(play(
                    client.clone(),
                    server.base.clone(),
                    kinds[index % kinds.len()],
                    tokens[index].clone(),
                    deadline,
                    pace,
                    resume,
                    samples.clone(),
                ))
            })
            .collect();
        let mut in_play = Vec::with_capacity(games);
        for player in players {
            in_play.push(player.await.expect("a client"));
        }
        let elapsed = started.elapsed().as_secs_f64();
        let cpu = server.cpu_seconds() - cpu_before;
        let database_cpu = database_cpu_before
            .zip(database_cpu())
            .map(|(before, after)| after - before);
        let mut samples = Arc::try_unwrap(samples)
            .ok()
            .expect("all clients done")
            .into_inner();
        let table = Table {
            name: String::new(),
            paced_at: None,
            actions_per_second: samples.actions as f64 / elapsed,
            post: spread(&mut samples.posts),
            early_legal: spread(&mut samples.early_legal),
            late_legal: spread(&mut samples.late_legal),
            early_view: spread(&mut samples.early_views),
            late_view: spread(&mut samples.late_views),
            cpu_ms_per_action: cpu * 1000.0 / samples.actions.max(1) as f64,
            actions: samples.actions,
            finished: samples.games_finished,
            errors: samples.errors,
            database_cpu_ms_per_action: database_cpu
                .map(|seconds| seconds * 1000.0 / samples.actions.max(1) as f64),
        };
        (table, in_play)
    }
}

/// How pgbench sends its statements: as text each time (its default), or prepared once
/// per client as turnpost's connections do (variables become bound values, so a script
/// for it writes `:name`, never `':name'`).
#[derive(Clone, Copy)]
enum Protocol {
    Simple,
    Prepared,
}

/// What a pgbench run gave: transactions a second, and the latency of each transaction from
/// the moment it was sent to its answer, as the load's clients time a request.
struct PgbenchRun {
    tps: f64,
    latency: Spread,
}

/// Runs pgbench on `script` with `clients` clients for `seconds`, flat out or at `rate`
/// transactions a second in all.
fn pgbench(
    database_url: &str,
    script: &str,
    protocol: Protocol,
    clients: usize,
    seconds: u64,
    rate: Option<f64>,
) -> Option<PgbenchRun> {
    let file = tempfile::NamedTempFile::new().ok()?;
    std::fs::write(file.path(), script).ok()?;
    let logs = tempfile::tempdir().ok()?;
    let mut command = std::process::Command::new("pgbench");
    command
        .args([
            "-n",
            "-j",
            "2",
            "-c",
            &clients.to_string(),
            "-T",
            &seconds.to_string(),
            "-M",
            match protocol {
                Protocol::Simple => "simple",
                Protocol::Prepared => "prepared",
            },
            "-l",
        ])
        .arg(format!(
            "--log-prefix={}",
            logs.path().join("transactions").display()
        ));
    if let Some(rate) = rate {
        command.args(["-R", &format!("{rate:.0}")]);
    }
    let output = command
        .arg("-f")
        .arg(file.path())
        .arg(database_url)
        .output()
        .ok()?;
    let tps = String::from_utf8_lossy(&output.stdout)
        .lines()
        .find(|line| line.starts_with("tps = "))
        .and_then(|line| line.split_whitespace().nth(2))
        .and_then(|tps| tps.parse().ok());
    let Some(tps) = tps else {
        eprintln!(
            "pgbench failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        return None;
    };
    let mut latencies = transaction_latencies(logs.path());
    Some(PgbenchRun {
        tps,
        latency: spread(&mut latencies),
    })
}

/// Every transaction's latency in the logs pgbench wrote to `dir` (one file per thread), a
/// line per transaction: `client transaction latency script epoch_s epoch_us [lag]`, in
/// microseconds. Paced, the latency counts from the transaction's turn in the schedule, so
/// the lag (how long it waited for a client to be free) is taken off, as the load's paced
/// clients start timing a request when they send it. Each client's first transaction is
/// left out: it prepares the statements, which turnpost's connections did before the load's
/// timed phases.
fn transaction_latencies(dir: &std::path::Path) -> Vec<Duration> {
    let logs = std::fs::read_dir(dir).into_iter().flatten().flatten();
    let texts = logs.filter_map(|log| std::fs::read_to_string(log.path()).ok());
    texts
        .flat_map(|text| {
            text.lines()
                .filter_map(|line| {
                    let fields: Vec<&str> = line.split_whitespace().collect();
                    if fields.get(1)?.parse::<u64>().ok()? <= 1 {
                        return None;
                    }
                    let latency: f64 = fields.get(2)?.parse().ok()?;
                    let lag: f64 = fields.get(6).map_or(Some(0.0), |lag| lag.parse().ok())?;
                    Some(Duration::from_secs_f64((latency - lag).max(0.0) / 1e6))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// pgbench's rate of single-row inserts into a scratch table, with `clients` clients.
fn pgbench_inserts(database_url: &str, clients: usize, seconds: u64) -> Option<PgbenchRun> {
    let mut connection = diesel::PgConnection::establish(database_url).ok()?;
    connection
        .batch_execute(
            "DROP TABLE IF EXISTS load_bench_inserts; \
             CREATE TABLE load_bench_inserts (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL)",
        )
        .ok()?;
    let run = pgbench(
        database_url,
        "INSERT INTO load_bench_inserts (payload) VALUES ('{\"type\":\"event\"}');\n",
        // As the anchor was measured.
        Protocol::Simple,
        clients,
        seconds,
        None,
    );
    let _ = connection.batch_execute("DROP TABLE load_bench_inserts");
    run
}

/// What the appends of the run wrote on average, read back from the database.
#[derive(diesel::QueryableByName, Debug)]
struct AppendShape {
    #[diesel(sql_type = diesel::sql_types::Double)]
    events_per_action: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    event_payload: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    notifications_per_action: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    notification_payload: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    action: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    request: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    games: f64,
}

/// The pgbench script of one append as turnpost makes it on PostgreSQL, in the statements
/// and row sizes the run's appends had: the game read with its seats (the one statement
/// before deciding), then the append's one statement (`src/store/append_statement.rs`):
/// the update guarded by the seq, and with it the action's events, the seats' turn flags,
/// the next seat's notification when the run's actions made one on average, and the action
/// record. Each client appends to a game of its own, with the statements prepared once as
/// turnpost's are.
fn append_script(shape: &AppendShape) -> String {
    let game = "('pgbench-append-' || :client_id)";
    let events = (shape.events_per_action.round() as usize).max(1);
    let repeated = |value: &str| vec![value; events].join(", ");
    let event_seqs: Vec<String> = (1..=events).map(|n| format!(":seq + {n}")).collect();
    let payload = format!("repeat('x', {})", shape.event_payload.round() as usize);
    let notification = if shape.notifications_per_action >= 0.5 {
        format!(
            "ARRAY[:account_id], ARRAY['your_turn'], ARRAY[:seq + 1]::int8[], \
             ARRAY[repeat('x', {})], ARRAY[0]::int8[]",
            shape.notification_payload.round() as usize,
        )
    } else {
        "'{}'::text[], '{}'::text[], '{}'::int8[], '{}'::text[], '{}'::int8[]".to_owned()
    };
    format!(
        "SELECT games.id, games.kind, games.rules_version, games.options, games.seat_count, \
         games.status, games.seed, games.created_by, games.created_at, games.updated_at, \
         games.current_seq AS seq, games.to_act, games.outcome, games.time_control, \
         games.private, games.cancel_reason, seats.seat, seats.account_id, accounts.name, \
         seats.bot, seats.forfeit, seats.deadline, seats.bank_ms \
         FROM games LEFT JOIN seats ON seats.game_id = games.id \
         LEFT JOIN accounts ON seats.account_id = accounts.id \
         WHERE games.id = {game} ORDER BY seats.seat \\aset\n\
         WITH moved AS (UPDATE games SET current_seq = :seq + {events}, status = 'running', \
         to_act = '[' || ((:seq + 1) % 2) || ']', outcome = NULL, updated_at = 0 \
         WHERE id = {game} AND current_seq = :seq RETURNING id, updated_at), \
         new_events AS (INSERT INTO events (game_id, seq, created_at, seat, event_type, \
         schema_version, payload, source) SELECT moved.id, e.seq, moved.updated_at, e.seat, \
         e.event_type, e.schema_version, e.payload, e.source FROM moved, \
         unnest(ARRAY[{seqs}]::int8[], ARRAY[{seats}]::int4[], ARRAY[{types}], \
         ARRAY[{versions}]::int4[], ARRAY[{payloads}], ARRAY[{sources}]) \
         AS e (seq, seat, event_type, schema_version, payload, source)), \
         turns AS (SELECT true AS changed, ARRAY[(:seq + 1) % 2]::int4[] AS acting), \
         changed_seats AS (UPDATE seats SET must_act = CASE WHEN turns.changed \
         THEN seats.seat = ANY (turns.acting) ELSE seats.must_act END FROM moved, turns \
         WHERE seats.game_id = moved.id AND turns.changed), \
         new_notifications AS (INSERT INTO notifications (account_id, game_id, kind, seq, \
         payload, created_at) SELECT n.account_id, moved.id, n.kind, n.seq, n.payload, \
         n.created_at FROM moved, unnest({notification}) WITH ORDINALITY \
         AS n (account_id, kind, seq, payload, created_at, position) ORDER BY n.position \
         RETURNING id, account_id), \
         new_action AS (INSERT INTO actions (game_id, first_seq, last_seq, seat, account_id, \
         action, idempotency_key, request, created_at, bot) SELECT moved.id, :seq + 1, \
         :seq + {events}, 0, :account_id, repeat('x', {action}), NULL, \
         repeat('x', {request}), 0, NULL FROM moved) \
         SELECT (SELECT count(*) FROM moved), ARRAY(SELECT id FROM new_notifications);\n",
        seqs = event_seqs.join(", "),
        seats = repeated("0"),
        types = repeated("'placed'"),
        versions = repeated("1"),
        payloads = repeated(&payload),
        sources = repeated("'engine'"),
        action = shape.action.round() as usize,
        request = shape.request.round() as usize,
    )
}

/// pgbench's appends as turnpost makes them ([`append_script`]), with `clients` clients on
/// games of their own copied from one the run played: flat out, and then (the same games
/// going on) at `paced_at` appends a second when given.
struct AppendAnchor {
    flat_out: PgbenchRun,
    paced: Option<(f64, PgbenchRun)>,
    /// What one append writes, as the run's appends did on average.
    shape: String,
}

fn pgbench_appends(
    database_url: &str,
    clients: usize,
    seconds: u64,
    paced_at: Option<f64>,
) -> Option<AppendAnchor> {
    let mut connection = diesel::PgConnection::establish(database_url).ok()?;
    let shape: AppendShape = diesel::RunQueryDsl::get_result(
        diesel::sql_query(
            "SELECT \
             (SELECT count(*) FROM events)::float8 \
                 / greatest((SELECT count(*) FROM actions), 1) AS events_per_action, \
             (SELECT coalesce(avg(length(payload)), 0) FROM events)::float8 AS event_payload, \
             (SELECT count(*) FROM notifications)::float8 \
                 / greatest((SELECT count(*) FROM actions), 1) AS notifications_per_action, \
             (SELECT coalesce(avg(length(payload)), 0) FROM notifications)::float8 \
                 AS notification_payload, \
             (SELECT coalesce(avg(length(action)), 0) FROM actions)::float8 AS action, \
             (SELECT coalesce(avg(length(request)), 0) FROM actions)::float8 AS request, \
             (SELECT count(*) FROM games WHERE seat_count = 2)::float8 AS games",
        ),
        &mut connection,
    )
    .ok()?;
    if (shape.games as usize) < clients {
        eprintln!("pgbench: the run played fewer than {clients} games to copy");
        return None;
    }
    // Client n appends to a copy of the run's game n, with its seats and their accounts.
    connection
        .batch_execute(&format!(
            "CREATE TEMPORARY TABLE picked AS SELECT id, row_number() OVER (ORDER BY id) - 1 AS n \
                 FROM games WHERE seat_count = 2 ORDER BY id LIMIT {clients}; \
             INSERT INTO games SELECT (jsonb_populate_record(games, jsonb_build_object(\
                 'id', 'pgbench-append-' || picked.n, 'current_seq', 0, 'status', 'running'))).* \
             FROM games JOIN picked ON picked.id = games.id; \
             INSERT INTO seats SELECT (jsonb_populate_record(seats, jsonb_build_object(\
                 'game_id', 'pgbench-append-' || picked.n))).* \
             FROM seats JOIN picked ON picked.id = seats.game_id",
        ))
        .ok()?;
    let script = append_script(&shape);
    let run = |rate| {
        pgbench(
            database_url,
            &script,
            Protocol::Prepared,
            clients,
            seconds,
            rate,
        )
    };
    let flat_out = run(None)?;
    let paced = paced_at.and_then(|rate| Some((rate, run(Some(rate))?)));
    let shape = format!(
        "{:.1} events of {:.0} bytes, {:.2} notifications of {:.0} bytes, an action of {:.0} \
         and {:.0} bytes",
        shape.events_per_action,
        shape.event_payload,
        shape.notifications_per_action,
        shape.notification_payload,
        shape.action,
        shape.request
    );
    Some(AppendAnchor {
        flat_out,
        paced,
        shape,
    })
}

fn ms(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    let games: usize = args.first().and_then(|n| n.parse().ok()).unwrap_or(64);
    let seconds: u64 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(20);
    // `--kind=K` plays only that kind, `--backend=B` only that backend (for profiles);
    // `--flat-out-only` leaves out the paced phase, memory and storage; `--paced-at=R` paces
    // at R actions a second.
    let option = |name: &str| {
        std::env::args().find_map(|arg| arg.strip_prefix(&format!("--{name}=")).map(str::to_owned))
    };
    let kinds: Vec<&'static str> = match option("kind") {
        Some(kind) => KINDS.iter().copied().filter(|k| *k == kind).collect(),
        None => KINDS.to_vec(),
    };
    assert!(!kinds.is_empty(), "--kind is one of {KINDS:?}");
    let backend = option("backend");
    let phases = Phases {
        flat_out_only: std::env::args().any(|arg| arg == "--flat-out-only"),
        paced_at: option("paced-at").map(|rate| {
            rate.parse::<f64>()
                .ok()
                .filter(|rate| *rate > 0.0)
                .expect("--paced-at is a number of actions per second")
        }),
    };
    let plays = |name: &str| backend.as_deref().is_none_or(|wanted| wanted == name);
    let data = tempfile::tempdir().expect("temp dir");
    let sqlite = data
        .path()
        .join("load.sqlite")
        .to_string_lossy()
        .into_owned();
    let mut tables = Vec::new();
    let mut backends = Vec::new();
    if plays("sqlite") {
        let (sqlite, memory, storage) =
            run("sqlite", &sqlite, &kinds, games, seconds, phases).await;
        tables.extend(sqlite);
        backends.push(("sqlite", memory, storage));
    }
    let mut pgbench = None;
    let mut pgbench_append = None;
    match std::env::var("BENCH_DATABASE_URL") {
        Ok(admin_url) if plays("postgres") => {
            let database = format!("turnpost_load_{}", std::process::id());
            let url = fresh_database(&admin_url, &database);
            let (postgres, memory, storage) =
                run("postgres", &url, &kinds, games, seconds, phases).await;
            // The anchor paced at the rate turnpost's paced phase aimed at.
            let paced_at = postgres.iter().find_map(|table| table.paced_at);
            tables.extend(postgres);
            backends.push(("postgres", memory, storage));
            if !phases.flat_out_only {
                pgbench = pgbench_inserts(&url, games, seconds.min(10));
                pgbench_append = pgbench_appends(&url, games, seconds.min(10), paced_at);
            }
            drop_database(&admin_url, &database);
        }
        Ok(_) => {}
        Err(_) => println!("BENCH_DATABASE_URL is not set: PostgreSQL and pgbench skipped"),
    }
    println!(
        "{games} concurrent 2-player games ({} of each of {}), {seconds} s per backend; a step \
         reads the legal actions and posts one, every {VIEW_EVERY}th step reads the view too; \
         reads early: seq <= {EARLY}, late: seq > {LATE}",
        games / kinds.len(),
        kinds.join(", ")
    );
    println!(
        "| backend | actions/s | POST p50 / p99 | legal actions p50 / p99 early | late | \
         late/early p50 | view p50 / p99 early | late | late/early p50 | server CPU per action \
         | actions | games finished | errors | database CPU per action |"
    );
    println!(
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    let ratio =
        |late: Spread, early: Spread| late.0.as_secs_f64() / early.0.as_secs_f64().max(1e-9);
    let both = |spread: Spread| format!("{} / {} ms", ms(spread.0), ms(spread.1));
    for table in &tables {
        println!(
            "| {} | {:.0} | {} | {} | {} | {:.2} | {} | {} | {:.2} | {:.2} ms | {} | {} | {} | {} |",
            table.name,
            table.actions_per_second,
            both(table.post),
            both(table.early_legal),
            both(table.late_legal),
            ratio(table.late_legal, table.early_legal),
            both(table.early_view),
            both(table.late_view),
            ratio(table.late_view, table.early_view),
            table.cpu_ms_per_action,
            table.actions,
            table.finished,
            table.errors,
            table
                .database_cpu_ms_per_action
                .map_or("-".to_owned(), |ms| format!("{ms:.2} ms"))
        );
    }
    let postgres = |paced: bool| {
        tables
            .iter()
            .find(|table| table.name.starts_with("postgres") && table.paced_at.is_some() == paced)
    };
    let postgres_rate = postgres(false).map_or(0.0, |table| table.actions_per_second);
    // What the database alone answers, beside turnpost's POSTs, which wait for it and for
    // everything else on the machine.
    if let Some(anchor) = pgbench_append {
        println!(
            "pgbench, {games} clients, the statements of one append ({}) on the same \
             PostgreSQL: {:.0}/s, latency p50 / p99 {}; turnpost's actions/s are {:.0} % of it",
            anchor.shape,
            anchor.flat_out.tps,
            both(anchor.flat_out.latency),
            postgres_rate / anchor.flat_out.tps * 100.0
        );
        if let Some((rate, paced)) = anchor.paced {
            println!(
                "pgbench, the same statements paced at {rate:.0}/s (arriving at random, as a \
                 Poisson process): {:.0}/s, latency p50 / p99 {} (turnpost's POST paced: {})",
                paced.tps,
                both(paced.latency),
                postgres(true).map_or("-".to_owned(), |table| both(table.post)),
            );
        }
    }
    if let Some(inserts) = pgbench {
        println!(
            "pgbench, {games} clients, single-row inserts on the same PostgreSQL: {:.0}/s, \
             latency p50 / p99 {}; turnpost's actions/s are {:.0} % of it",
            inserts.tps,
            both(inserts.latency),
            postgres_rate / inserts.tps * 100.0
        );
    }
    println!();
    println!(
        "| backend | resident idle | peak | after the load | settled | within idle + {FOLD_CACHE_MIB} \
         MiB cache + 64 MiB | bytes per event | per finished game (events) | export per game |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (backend, memory, storage) in &backends {
        let Some(memory) = memory else { continue };
        let stored = storage.as_ref().map_or_else(
            || "not measured | | ".to_owned(),
            |storage| {
                format!(
                    "{:.0} | {:.0} KiB ({:.0}) | {:.0} KiB",
                    storage.per_event,
                    storage.per_finished_game / 1024.0,
                    storage.events_per_finished_game,
                    storage.export_bytes / 1024.0
                )
            },
        );
        println!(
            "| {backend} | {} MiB | {} MiB | {} MiB | {} MiB after {:.0} s | {} ({} MiB) | {stored} |",
            memory.idle_mib,
            memory.peak_mib,
            memory.after_load_mib,
            memory.settled_mib,
            memory.settled_after.as_secs_f64(),
            if memory.settled_mib <= memory.bound_mib() { "yes" } else { "no" },
            memory.bound_mib(),
        );
    }
}
