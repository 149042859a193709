//! Load against the real release server on loopback, on SQLite and on PostgreSQL: a fast
//! client plays many games of every kind at once (each step reads the legal actions and
//! posts one; every fourth step reads the view too), and the run prints actions per
//! second, POST latency, read latency early and late in a game, the server's CPU time per
//! action, and, on the same PostgreSQL with as many clients, pgbench's rate of single-row
//! inserts.
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
use server::{fresh_database, percentile, sign_up, Server};
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
    actions_per_second: f64,
    post: Spread,
    early_legal: Spread,
    late_legal: Spread,
    early_view: Spread,
    late_view: Spread,
    cpu_ms_per_action: f64,
    finished: usize,
    errors: usize,
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

/// The server on `database_url`, played flat out by `games` clients, then by as many at half
/// the rate they reached, where the latency shows what a player meets on a server that keeps
/// up.
async fn run(backend: &str, database_url: &str, games: usize, seconds: u64) -> Vec<Table> {
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
    let tokens = vec![
        sign_up(&client, &server.base, "player-one").await,
        sign_up(&client, &server.base, "player-two").await,
    ];
    let (flat_out, in_play) =
        phase(&server, &client, &tokens, games, seconds, None, Vec::new()).await;
    let rate = flat_out.actions_per_second / 2.0;
    let every = Duration::from_secs_f64(games as f64 / rate.max(1.0));
    // The same games go on, so that the paced run also reads late in long games.
    let (paced, _) = phase(
        &server,
        &client,
        &tokens,
        games,
        seconds,
        Some(every),
        in_play,
    )
    .await;
    vec![
        Table {
            name: format!("{backend}, flat out"),
            ..flat_out
        },
        Table {
            name: format!("{backend}, paced at {rate:.0} actions/s"),
            ..paced
        },
    ]
}

async fn phase(
    server: &Server,
    client: &reqwest::Client,
    tokens: &[String],
    games: usize,
    seconds: u64,
    step_every: Option<Duration>,
    mut resume: Vec<Option<InPlay>>,
) -> (Table, Vec<Option<InPlay>>) {
    resume.resize(games, None);
    let samples = Arc::new(Mutex::new(Samples::default()));
    let cpu_before = server.cpu_seconds();
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
                KINDS[index % KINDS.len()],
                tokens.to_vec(),
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
    let mut samples = Arc::try_unwrap(samples)
        .ok()
        .expect("all clients done")
        .into_inner();
    let table = Table {
        name: String::new(),
        actions_per_second: samples.actions as f64 / elapsed,
        post: spread(&mut samples.posts),
        early_legal: spread(&mut samples.early_legal),
        late_legal: spread(&mut samples.late_legal),
        early_view: spread(&mut samples.early_views),
        late_view: spread(&mut samples.late_views),
        cpu_ms_per_action: cpu * 1000.0 / samples.actions.max(1) as f64,
        finished: samples.games_finished,
        errors: samples.errors,
    };
    (table, in_play)
}

/// pgbench's rate of single-row inserts into a scratch table, with `clients` clients.
fn pgbench_inserts(database_url: &str, clients: usize, seconds: u64) -> Option<f64> {
    let mut connection = diesel::PgConnection::establish(database_url).ok()?;
    connection
        .batch_execute(
            "DROP TABLE IF EXISTS load_bench_inserts; \
             CREATE TABLE load_bench_inserts (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL)",
        )
        .ok()?;
    let script = tempfile::NamedTempFile::new().ok()?;
    std::fs::write(
        script.path(),
        "INSERT INTO load_bench_inserts (payload) VALUES ('{\"type\":\"event\"}');\n",
    )
    .ok()?;
    let output = std::process::Command::new("pgbench")
        .args([
            "-n",
            "-j",
            "2",
            "-c",
            &clients.to_string(),
            "-T",
            &seconds.to_string(),
            "-f",
        ])
        .arg(script.path())
        .arg(database_url)
        .output()
        .ok()?;
    let _ = connection.batch_execute("DROP TABLE load_bench_inserts");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find(|line| line.starts_with("tps = "))
        .and_then(|line| line.split_whitespace().nth(2))
        .and_then(|tps| tps.parse().ok())
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
    let data = tempfile::tempdir().expect("temp dir");
    let sqlite = data
        .path()
        .join("load.sqlite")
        .to_string_lossy()
        .into_owned();
    let mut tables = run("sqlite", &sqlite, games, seconds).await;
    let mut pgbench = None;
    match std::env::var("BENCH_DATABASE_URL") {
        Ok(admin_url) => {
            let url = fresh_database(&admin_url, &format!("turnpost_load_{}", std::process::id()));
            tables.extend(run("postgres", &url, games, seconds).await);
            pgbench = pgbench_inserts(&url, games, seconds.min(10));
        }
        Err(_) => println!("BENCH_DATABASE_URL is not set: PostgreSQL and pgbench skipped"),
    }
    println!(
        "{games} concurrent 2-player games ({} of each kind), {seconds} s per backend; a step \
         reads the legal actions and posts one, every {VIEW_EVERY}th step reads the view too; \
         reads early: seq <= {EARLY}, late: seq > {LATE}",
        games / KINDS.len()
    );
    println!(
        "| backend | actions/s | POST p50 / p99 | legal actions p50 / p99 early | late | \
         late/early p50 | view p50 / p99 early | late | late/early p50 | server CPU per action \
         | games finished | errors |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let ratio =
        |late: Spread, early: Spread| late.0.as_secs_f64() / early.0.as_secs_f64().max(1e-9);
    let both = |spread: Spread| format!("{} / {} ms", ms(spread.0), ms(spread.1));
    for table in &tables {
        println!(
            "| {} | {:.0} | {} | {} | {} | {:.2} | {} | {} | {:.2} | {:.2} ms | {} | {} |",
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
            table.finished,
            table.errors
        );
    }
    if let Some(tps) = pgbench {
        let postgres = tables
            .iter()
            .find(|table| table.name == "postgres, flat out");
        let ratio = postgres.map_or(0.0, |table| table.actions_per_second / tps);
        println!(
            "pgbench, {games} clients, single-row inserts on the same PostgreSQL: {tps:.0}/s; \
             turnpost's actions/s are {:.0} % of it",
            ratio * 100.0
        );
    }
}
