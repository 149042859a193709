//! Load against the real release server on loopback, on SQLite and on PostgreSQL: a fast
//! client plays many games of every kind at once (each step reads the view and the legal
//! actions, then posts one), and the run prints actions per second, POST latency, read
//! latency early and late in a game, the server's CPU time per action, and, on the same
//! PostgreSQL with as many clients, pgbench's rate of single-row inserts.
//!
//! `scripts/bench-load [concurrent games] [seconds per backend]` (defaults 64 and 20); it
//! starts a throwaway PostgreSQL unless `BENCH_DATABASE_URL` names one.

#[path = "support/server.rs"]
mod server;

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::Connection;
use serde_json::{json, Value};
use server::{percentile, sign_up, Server};
use tokio::sync::Mutex;

const KINDS: [&str; 3] = ["tikal", "java", "eternal_palace"];
/// Reads at or before this seq count as early in a game, reads after `LATE` as late.
const EARLY: i64 = 60;
const LATE: i64 = 400;

#[derive(Default)]
struct Samples {
    posts: Vec<Duration>,
    early_reads: Vec<Duration>,
    late_reads: Vec<Duration>,
    actions: usize,
    games_finished: usize,
    errors: usize,
}

struct Table {
    name: &'static str,
    actions_per_second: f64,
    post_p50: Duration,
    post_p99: Duration,
    early: (Duration, Duration),
    late: (Duration, Duration),
    cpu_ms_per_action: f64,
    finished: usize,
    errors: usize,
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
    if seats.is_empty() {
        vec![0, 1]
    } else {
        seats
    }
}

/// One client playing games of `kind` one after another until `deadline`.
async fn play(
    client: reqwest::Client,
    base: String,
    kind: &'static str,
    tokens: Vec<String>,
    deadline: Instant,
    samples: Arc<Mutex<Samples>>,
) {
    let mut local = Samples::default();
    let mut step: usize = 0;
    'games: while Instant::now() < deadline {
        let id = new_game(&client, &base, kind, &tokens).await;
        let mut to_act: Vec<usize> = vec![0];
        while Instant::now() < deadline {
            step += 1;
            let token = &tokens[to_act[step % to_act.len()]];
            let read_started = Instant::now();
            let view = client
                .get(format!("{base}/v1/games/{id}/view"))
                .bearer_auth(token)
                .send()
                .await;
            let legal = client
                .get(format!("{base}/v1/games/{id}/legal-actions"))
                .bearer_auth(token)
                .send()
                .await;
            let (Ok(view), Ok(legal)) = (view, legal) else {
                local.errors += 1;
                continue 'games;
            };
            let (Ok(_), Ok(legal)) = (view.bytes().await, legal.json::<Value>().await) else {
                local.errors += 1;
                continue 'games;
            };
            let read = read_started.elapsed() / 2;
            let seq = legal["seq"].as_i64().unwrap_or(0);
            if seq <= EARLY {
                local.early_reads.push(read);
            } else if seq > LATE {
                local.late_reads.push(read);
            }
            let actions = legal["actions"].as_array().cloned().unwrap_or_default();
            if actions.is_empty() {
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
                    continue 'games;
                }
                to_act = seats_to_act(&summary["to_act"]);
                continue;
            }
            let action = &actions[step * 7919 % actions.len()];
            let posted = Instant::now();
            let answer = client
                .post(format!("{base}/v1/games/{id}/actions"))
                .bearer_auth(token)
                .json(&json!({"expected_seq": seq, "action": action}))
                .send()
                .await;
            match answer {
                Ok(response) if response.status() == 200 => {
                    local.posts.push(posted.elapsed());
                    local.actions += 1;
                    let accepted: Value = response.json().await.unwrap_or_default();
                    if accepted["view"]["finished"] == true {
                        local.games_finished += 1;
                        continue 'games;
                    }
                    to_act = seats_to_act(&accepted["view"]["to_act"]);
                }
                _ => local.errors += 1,
            }
        }
    }
    let mut shared = samples.lock().await;
    shared.posts.append(&mut local.posts);
    shared.early_reads.append(&mut local.early_reads);
    shared.late_reads.append(&mut local.late_reads);
    shared.actions += local.actions;
    shared.games_finished += local.games_finished;
    shared.errors += local.errors;
}

async fn run(name: &'static str, database_url: &str, games: usize, seconds: u64) -> Table {
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
    let samples = Arc::new(Mutex::new(Samples::default()));
    let cpu_before = server.cpu_seconds();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let players: Vec<_> = (0..games)
        .map(|index| {
            tokio::spawn(play(
                client.clone(),
                server.base.clone(),
                KINDS[index % KINDS.len()],
                tokens.clone(),
                deadline,
                samples.clone(),
            ))
        })
        .collect();
    for player in players {
        player.await.expect("a client");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = server.cpu_seconds() - cpu_before;
    let mut samples = Arc::try_unwrap(samples)
        .ok()
        .expect("all clients done")
        .into_inner();
    Table {
        name,
        actions_per_second: samples.actions as f64 / elapsed,
        post_p50: percentile(&mut samples.posts, 0.5),
        post_p99: percentile(&mut samples.posts, 0.99),
        early: (
            percentile(&mut samples.early_reads, 0.5),
            percentile(&mut samples.early_reads, 0.99),
        ),
        late: (
            percentile(&mut samples.late_reads, 0.5),
            percentile(&mut samples.late_reads, 0.99),
        ),
        cpu_ms_per_action: cpu * 1000.0 / samples.actions.max(1) as f64,
        finished: samples.games_finished,
        errors: samples.errors,
    }
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

/// A fresh database on the server of `admin_url`, so every run starts empty.
fn fresh_database(admin_url: &str) -> String {
    let name = format!("turnpost_load_{}", std::process::id());
    let mut admin = diesel::PgConnection::establish(admin_url).expect("postgres");
    // One statement each: several in one string run as one transaction, which these refuse.
    for statement in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
    ] {
        admin
            .batch_execute(&statement)
            .expect("a database for the run");
    }
    let (base, query) = admin_url.split_once('?').unwrap_or((admin_url, ""));
    let server_part = base.rsplit_once('/').map_or(base, |(server, _)| server);
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    format!("{server_part}/{name}{query}")
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
    let mut tables = vec![run("sqlite", &sqlite, games, seconds).await];
    let mut pgbench = None;
    match std::env::var("BENCH_DATABASE_URL") {
        Ok(admin_url) => {
            let url = fresh_database(&admin_url);
            tables.push(run("postgres", &url, games, seconds).await);
            pgbench = pgbench_inserts(&url, games, seconds.min(10));
        }
        Err(_) => println!("BENCH_DATABASE_URL is not set: PostgreSQL and pgbench skipped"),
    }
    println!(
        "{games} concurrent 2-player games ({} of each kind), {seconds} s per backend; a step \
         reads the view and the legal actions, then posts one",
        games / KINDS.len()
    );
    println!(
        "| backend | actions/s | POST p50 | POST p99 | read p50/p99 early (seq <= {EARLY}) | \
         read p50/p99 late (seq > {LATE}) | late/early p50 | server CPU per action | games \
         finished | errors |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for table in &tables {
        println!(
            "| {} | {:.0} | {} ms | {} ms | {} / {} ms | {} / {} ms | {:.2} | {:.2} ms | {} | {} |",
            table.name,
            table.actions_per_second,
            ms(table.post_p50),
            ms(table.post_p99),
            ms(table.early.0),
            ms(table.early.1),
            ms(table.late.0),
            ms(table.late.1),
            table.late.0.as_secs_f64() / table.early.0.as_secs_f64().max(1e-9),
            table.cpu_ms_per_action,
            table.finished,
            table.errors
        );
    }
    if let Some(tps) = pgbench {
        let postgres = tables.iter().find(|table| table.name == "postgres");
        let ratio = postgres.map_or(0.0, |table| table.actions_per_second / tps);
        println!(
            "pgbench, {games} clients, single-row inserts on the same PostgreSQL: {tps:.0}/s; \
             turnpost's actions/s are {:.0} % of it",
            ratio * 100.0
        );
    }
}
