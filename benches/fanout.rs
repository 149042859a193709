//! Many idle followers on one instance: the release server on PostgreSQL (and then on
//! SQLite) holds N Server-Sent Events streams of games that nobody plays, and the run
//! measures what an idle stream costs (the server's resident memory per stream), whether
//! the database's queries per second grow with the followers (the pool's statements from
//! `/metrics` and PostgreSQL's own count of transactions, both with no follower and with N),
//! and how soon a move reaches every follower of its game (from the answer to the POST, and
//! from the POST, to the frame with the move's seq, over every follower and move). Beside
//! the memory it shows the most threads the server ran while the streams opened and how much
//! of its memory is in transparent huge pages, the two things that make it vary.
//!
//! `scripts/bench-fanout [followers ...]` (default 1000 10000); it raises the limit on open
//! files and starts a throwaway PostgreSQL unless `BENCH_DATABASE_URL` names one. Exits
//! non-zero when an idle stream takes more than 64 KiB, when the followers add more than 5
//! queries a second, or when a stream fails to open, closes or misses a move.

#[path = "support/server.rs"]
mod server;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::sql_types::{BigInt, Text};
use diesel::{Connection, QueryableByName, RunQueryDsl};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use server::{answer, drop_database, fresh_database, load_average, percentile, sign_up, Server};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// Followers of each game: a move wakes this many streams.
const FOLLOWERS_PER_GAME: usize = 10;
/// Accounts the streams follow with, as spectators. Not the players: a move writes a
/// notification to a player, which wakes every stream of that account, and with thousands
/// of streams per account (far past the per-account cap a real server keeps) that would
/// be what this measured.
const SPECTATORS: usize = 4;
/// Streams opened at once, so that the listen backlog is never overrun.
const OPEN_BATCH: usize = 500;
/// How long the followers idle while the queries are counted: three of the server's
/// safety-net re-reads (every 10 s).
const IDLE: Duration = Duration::from_secs(30);
/// Quiet time before a count starts and before memory is read. PostgreSQL's backends
/// publish their counts of transactions when idle at most every 10 s
/// (`PGSTAT_IDLE_INTERVAL`), so whatever ran before must have been published first.
const SETTLE: Duration = Duration::from_secs(11);
/// Games a move is played in, in turn, while the followers idle.
const MOVED_GAMES: usize = 10;
const MOVES: usize = 100;
/// A follower that has not received a move's frame this long after the answer missed it.
const FRAME_TIMEOUT: Duration = Duration::from_secs(10);
/// The targets: an idle stream in the tens of KiB, and idle followers that cost the
/// database (nearly) nothing whatever their number.
const MAX_KIB_PER_STREAM: f64 = 64.0;
const MAX_EXTRA_QUERIES_PER_SECOND: f64 = 5.0;

/// Games followed by `followers` streams.
fn games_for(followers: usize) -> usize {
    (followers / FOLLOWERS_PER_GAME).max(1)
}

/// The streams of game `index` when `followers` are spread over [`games_for`] games.
fn followers_of(index: usize, followers: usize) -> usize {
    let games = games_for(followers);
    followers / games + usize::from(index < followers % games)
}

/// A game of the pool: the bench keeps its seq so that followers start idle (after it) and
/// the seats to act so that it can play on.
struct Game {
    id: String,
    seq: i64,
    to_act: Vec<usize>,
}

/// The tokens of one server (each server signs its own): two players seated in every game
/// of the pool, and the spectators the streams follow with.
struct Accounts {
    players: Vec<String>,
    spectators: Vec<String>,
}

impl Accounts {
    async fn sign_in(client: &reqwest::Client, base: &str) -> Accounts {
        let mut players = Vec::new();
        for name in ["player-one", "player-two"] {
            players.push(sign_up(client, base, name).await);
        }
        let mut spectators = Vec::new();
        for index in 0..SPECTATORS {
            spectators.push(sign_up(client, base, &format!("spectator-{index}")).await);
        }
        Accounts {
            players,
            spectators,
        }
    }
}

/// The seats a `to_act` list names.
fn seats(to_act: &Value) -> Vec<usize> {
    either_if_none(
        to_act
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|seat| seat.as_u64().map(|seat| seat as usize))
            .collect(),
    )
}

/// Both seats when `seats` names none (whoever asks next finds out).
fn either_if_none(seats: Vec<usize>) -> Vec<usize> {
    if seats.is_empty() {
        vec![0, 1]
    } else {
        seats
    }
}

/// A 2-player Tikal game created by the first player and joined by the second.
async fn create_game(client: &reqwest::Client, base: &str, players: &[String]) -> Game {
    let created = answer(
        client
            .post(format!("{base}/v1/games"))
            .bearer_auth(&players[0])
            .json(&json!({"kind": "tikal", "seats": 2})),
        "create a game",
    )
    .await;
    let id = created["id"].as_str().expect("a game id").to_owned();
    let joined = answer(
        client
            .post(format!("{base}/v1/games/{id}/seats"))
            .bearer_auth(&players[1]),
        "join the game",
    )
    .await;
    Game {
        id,
        seq: joined["current_seq"].as_i64().expect("the game's seq"),
        to_act: seats(&joined["to_act"]),
    }
}

/// `count` games, created 16 at a time.
async fn create_games(
    client: &reqwest::Client,
    base: &str,
    players: &[String],
    count: usize,
) -> Vec<Game> {
    const AT_ONCE: usize = 16;
    let creators: Vec<JoinHandle<Vec<Game>>> = (0..AT_ONCE)
        .map(|creator| {
            let (client, base, players) = (client.clone(), base.to_owned(), players.to_vec());
            tokio::spawn(async move {
                let mut games = Vec::new();
                for _ in (creator..count).step_by(AT_ONCE) {
                    games.push(create_game(&client, &base, &players).await);
                }
                games
            })
        })
        .collect();
    let mut games = Vec::with_capacity(count);
    for creator in creators {
        games.extend(creator.await.expect("a game creator"));
    }
    games
}

/// Reads games 32 at a time, so that the database pool is full and the workers have served
/// requests at once before the memory without followers is read: none of that is the
/// streams'.
async fn warm_up(client: &reqwest::Client, base: &str, token: &str, games: &[Game]) {
    let readers: Vec<JoinHandle<()>> = (0..32)
        .map(|reader| {
            let (client, base, token) = (client.clone(), base.to_owned(), token.to_owned());
            let ids: Vec<String> = games
                .iter()
                .skip(reader)
                .step_by(32)
                .take(8)
                .map(|game| game.id.clone())
                .collect();
            tokio::spawn(async move {
                for id in ids {
                    answer(
                        client
                            .get(format!("{base}/v1/games/{id}"))
                            .bearer_auth(&token),
                        "read a game",
                    )
                    .await;
                }
            })
        })
        .collect();
    for reader in readers {
        reader.await.expect("a reader");
    }
}

/// A frame with an id (a game's event) as a follower received it.
struct Arrival {
    game: usize,
    seq: i64,
    at: Instant,
}

/// The id of an SSE frame (`id: <seq>`), if it has one.
fn frame_id(frame: &[u8]) -> Option<i64> {
    frame
        .split(|byte| *byte == b'\n')
        .find_map(|line| line.strip_prefix(b"id: "))
        .and_then(|id| std::str::from_utf8(id).ok()?.trim().parse().ok())
}

/// One follower of game `game`: opens the stream (telling `opened` whether it did), then
/// reports the arrival of every frame with an id until the stream ends, which counts in
/// `closed`.
async fn follow(
    client: reqwest::Client,
    url: String,
    token: String,
    game: usize,
    opened: oneshot::Sender<Result<(), String>>,
    arrivals: mpsc::UnboundedSender<Arrival>,
    closed: Arc<AtomicUsize>,
) {
    let mut response = match client.get(&url).bearer_auth(&token).send().await {
        Ok(response) if response.status() == 200 => response,
        Ok(response) => {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            let _ = opened.send(Err(format!("{status} {body}")));
            return;
        }
        Err(error) => {
            let _ = opened.send(Err(error.to_string()));
            return;
        }
    };
    let _ = opened.send(Ok(()));
    let mut buffer = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let at = Instant::now();
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.windows(2).position(|pair| pair == b"\n\n") {
            if let Some(seq) = frame_id(&buffer[..end]) {
                let _ = arrivals.send(Arrival { game, seq, at });
            }
            buffer.drain(..end + 2);
        }
    }
    closed.fetch_add(1, Ordering::Relaxed);
}

/// The streams of one measurement.
struct Followers {
    tasks: Vec<JoinHandle<()>>,
    refused: Vec<String>,
    closed: Arc<AtomicUsize>,
}

impl Drop for Followers {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Opens `count` streams over the first [`games_for`] games, each after the game's seq (so
/// each starts idle), [`OPEN_BATCH`] at a time; a batch is opened once every stream of it
/// answered.
async fn open_followers(
    base: &str,
    games: &[Game],
    spectators: &[String],
    count: usize,
    arrivals: &mpsc::UnboundedSender<Arrival>,
) -> Followers {
    let followed = games_for(count);
    let mut followers = Followers {
        tasks: Vec::with_capacity(count),
        refused: Vec::new(),
        closed: Arc::new(AtomicUsize::new(0)),
    };
    for batch in (0..count).step_by(OPEN_BATCH) {
        // A client (and its pool of connections) per batch keeps each pool small.
        let client = reqwest::Client::new();
        let mut answers = Vec::with_capacity(OPEN_BATCH);
        for follower in batch..(batch + OPEN_BATCH).min(count) {
            let index = follower % followed;
            let game = &games[index];
            let (opened, answered) = oneshot::channel();
            followers.tasks.push(tokio::spawn(follow(
                client.clone(),
                format!("{base}/v1/games/{}/stream?after={}", game.id, game.seq),
                spectators[follower / followed % spectators.len()].clone(),
                index,
                opened,
                arrivals.clone(),
                followers.closed.clone(),
            )));
            answers.push(answered);
        }
        for answered in answers {
            match answered.await {
                Ok(Ok(())) => {}
                Ok(Err(reason)) => followers.refused.push(reason),
                Err(_) => followers.refused.push("the follower task ended".to_owned()),
            }
        }
    }
    followers
}

/// The value of an unlabelled metric of the server's `/metrics`.
async fn metric(client: &reqwest::Client, base: &str, name: &str) -> f64 {
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    text.lines()
        .find_map(|line| {
            line.strip_prefix(name)?
                .strip_prefix(' ')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no {name} in /metrics"))
}

/// PostgreSQL's count of the run database's transactions, read over a connection to another
/// database so that the reads do not count themselves.
struct DatabaseStats {
    admin: diesel::PgConnection,
    database: String,
}

#[derive(QueryableByName)]
struct Transactions {
    #[diesel(sql_type = BigInt)]
    transactions: i64,
}

impl DatabaseStats {
    fn transactions(&mut self) -> i64 {
        diesel::sql_query(
            "SELECT COALESCE(sum(xact_commit + xact_rollback), 0)::bigint AS transactions \
             FROM pg_stat_database WHERE datname = $1",
        )
        .bind::<Text, _>(&self.database)
        .get_result::<Transactions>(&mut self.admin)
        .expect("pg_stat_database")
        .transactions
    }
}

/// Queries per second over a window: the statements the server's pool sent, and the
/// transactions PostgreSQL counted (its own count, which also sees the listening
/// connection).
#[derive(Clone, Copy)]
struct Rates {
    statements: f64,
    transactions: Option<f64>,
}

/// Counts the queries of the next [`IDLE`] seconds.
async fn idle_rates(
    client: &reqwest::Client,
    base: &str,
    stats: &mut Option<DatabaseStats>,
) -> Rates {
    const STATEMENTS: &str = "turnpost_db_statements_total";
    let started = Instant::now();
    let statements = metric(client, base, STATEMENTS).await;
    let transactions = stats.as_mut().map(DatabaseStats::transactions);
    tokio::time::sleep(IDLE).await;
    let statements = metric(client, base, STATEMENTS).await - statements;
    let transactions = stats
        .as_mut()
        .map(DatabaseStats::transactions)
        .zip(transactions)
        .map(|(after, before)| after - before);
    let seconds = started.elapsed().as_secs_f64();
    Rates {
        statements: statements / seconds,
        transactions: transactions.map(|count| count as f64 / seconds),
    }
}

/// How the moves reached their followers. The append happened between the POST and its
/// answer, so the time from the answer to a frame is a lower bound of the time from the
/// append, and the time from the POST an upper bound.
#[derive(Default)]
struct Delivery {
    /// From the answer to the POST to the frame, per follower and move (0 when the frame
    /// came first).
    after_answer: Vec<Duration>,
    /// Frames that came before the answer to their POST.
    before_answer: usize,
    /// From the POST to the frame, per follower and move.
    after_post: Vec<Duration>,
    posts: Vec<Duration>,
    missed: usize,
}

#[derive(Deserialize)]
struct Legal {
    seq: i64,
    actions: Vec<Box<RawValue>>,
}

#[derive(Deserialize)]
struct Accepted {
    seq: i64,
    view: AcceptedView,
}

#[derive(Deserialize)]
struct AcceptedView {
    to_act: Vec<usize>,
}

/// The seat to act in `game` and the body of a legal action for it.
async fn next_action(
    client: &reqwest::Client,
    base: &str,
    players: &[String],
    game: &mut Game,
    step: usize,
) -> (usize, String) {
    // The seats to act may be stale only if a move of the pool was lost; then ask the game.
    for _ in 0..2 {
        for &seat in &game.to_act {
            let legal = answer(
                client
                    .get(format!("{base}/v1/games/{}/legal-actions", game.id))
                    .bearer_auth(&players[seat]),
                "legal actions",
            )
            .await;
            let legal: Legal = serde_json::from_value(legal).expect("legal actions");
            if !legal.actions.is_empty() {
                let action = legal.actions[step * 7919 % legal.actions.len()].get();
                return (
                    seat,
                    format!("{{\"expected_seq\":{},\"action\":{action}}}", legal.seq),
                );
            }
        }
        let summary = answer(
            client
                .get(format!("{base}/v1/games/{}", game.id))
                .bearer_auth(&players[0]),
            "read the game",
        )
        .await;
        game.to_act = seats(&summary["to_act"]);
    }
    panic!("nobody may act in game {}", game.id);
}

/// Plays [`MOVES`] moves, one at a time, in turn in the first games the `followers` follow,
/// and waits after each for the frame with its seq at every follower of its game.
async fn play_and_watch(
    client: &reqwest::Client,
    base: &str,
    players: &[String],
    games: &mut [Game],
    followers: usize,
    arrivals: &mut mpsc::UnboundedReceiver<Arrival>,
) -> Delivery {
    let moved = MOVED_GAMES.min(games_for(followers));
    let mut delivery = Delivery::default();
    for step in 0..MOVES {
        let index = step % moved;
        let game = &mut games[index];
        let (seat, body) = next_action(client, base, players, game, step).await;
        let posted = Instant::now();
        let accepted = answer(
            client
                .post(format!("{base}/v1/games/{}/actions", game.id))
                .bearer_auth(&players[seat])
                .header("content-type", "application/json")
                .body(body),
            "post an action",
        )
        .await;
        let answered = Instant::now();
        delivery.posts.push(answered - posted);
        let accepted: Accepted = serde_json::from_value(accepted).expect("an accepted action");
        game.seq = accepted.seq;
        game.to_act = either_if_none(accepted.view.to_act);
        let expected = followers_of(index, followers);
        let deadline = tokio::time::Instant::from_std(answered + FRAME_TIMEOUT);
        let mut received = 0;
        while received < expected {
            let Ok(Some(arrival)) = tokio::time::timeout_at(deadline, arrivals.recv()).await else {
                break;
            };
            // Frames of the move's earlier events come too; the last one counts.
            if arrival.game == index && arrival.seq == accepted.seq {
                received += 1;
                delivery.before_answer += usize::from(arrival.at < answered);
                delivery
                    .after_answer
                    .push(arrival.at.saturating_duration_since(answered));
                delivery.after_post.push(arrival.at - posted);
            }
        }
        delivery.missed += expected - received;
    }
    delivery
}

/// One line of the table.
struct Row {
    backend: &'static str,
    followers: usize,
    opened_in: Duration,
    /// The most threads the server ran while the streams opened: each open reads the
    /// database on a blocking thread, and a burst of opens starts many.
    peak_threads: u64,
    resident_before_kib: u64,
    resident_after_kib: u64,
    /// Of the resident memory with the followers open, what transparent huge pages hold.
    huge_pages_kib: u64,
    idle_alone: Rates,
    idle_followed: Rates,
    delivery: Delivery,
    /// Streams that were refused, closed early or missed a move.
    problems: Vec<String>,
}

impl Row {
    fn kib_per_stream(&self) -> f64 {
        (self.resident_after_kib as f64 - self.resident_before_kib as f64)
            / self.followers.max(1) as f64
    }

    fn extra_statements(&self) -> f64 {
        self.idle_followed.statements - self.idle_alone.statements
    }

    fn extra_transactions(&self) -> Option<f64> {
        Some(self.idle_followed.transactions? - self.idle_alone.transactions?)
    }
}

/// The server's flags: caps on streams, connections and requests under way above `largest`
/// followers, and the
/// sign-up and game limits raised for the pool.
fn server_flags(database_url: &str, largest: usize) -> Vec<String> {
    let streams = (largest + 1_000).to_string();
    // actix splits the connection limit evenly between its workers: room for an uneven
    // share.
    let connections = (2 * (largest + 1_000)).to_string();
    [
        ("--database-url", database_url),
        ("--max-connections", &connections),
        ("--max-streams", &streams),
        ("--streams-per-account", &streams),
        ("--streams-per-address", &streams),
        ("--connections-per-address", &connections),
        // One account on one address holds every stream here: nothing is kept back for
        // light clients.
        ("--streams-reserved", "0"),
        ("--connections-reserved", "0"),
        // The followers open their streams many at once, one account and one address.
        ("--requests-in-flight-per-account", &streams),
        ("--requests-waiting-per-account", &streams),
        ("--requests-in-flight-per-address", &streams),
        ("--requests-waiting-per-address", &streams),
        ("--registrations-per-hour-per-address", "1000000"),
        ("--sign-ins-per-minute-per-address", "1000000"),
        ("--games-per-hour-per-account", "1000000"),
        ("--open-games-per-account", "1000000"),
    ]
    .into_iter()
    .flat_map(|(flag, value)| [flag.to_owned(), value.to_owned()])
    .collect()
}

/// With `followers` idle streams on a server of its own: memory, queries and delivery.
async fn measure(
    backend: &'static str,
    server: &Server,
    accounts: &Accounts,
    games: &mut [Game],
    followers: usize,
    stats: &mut Option<DatabaseStats>,
) -> Row {
    let client = reqwest::Client::new();
    let base = &server.base;
    tokio::time::sleep(SETTLE).await;
    let idle_alone = idle_rates(&client, base, stats).await;
    let resident_before_kib = server.resident_kib();
    let (arrivals, mut received) = mpsc::unbounded_channel();
    let started = Instant::now();
    let mut peak_threads = server.threads();
    let streams = {
        let opening = open_followers(base, games, &accounts.spectators, followers, &arrivals);
        tokio::pin!(opening);
        loop {
            tokio::select! {
                streams = &mut opening => break streams,
                _ = tokio::time::sleep(Duration::from_millis(5)) => {
                    peak_threads = peak_threads.max(server.threads());
                }
            }
        }
    };
    let opened_in = started.elapsed();
    let open = metric(&client, base, "turnpost_open_followers").await as usize;
    eprintln!(
        "{backend}, {followers} followers: opened in {:.1} s, {open} open on the server, {} \
         refused",
        opened_in.as_secs_f64(),
        streams.refused.len()
    );
    tokio::time::sleep(SETTLE).await;
    let resident_after_kib = server.resident_kib();
    let huge_pages_kib = server.huge_pages_kib();
    let idle_followed = idle_rates(&client, base, stats).await;
    let still_open = metric(&client, base, "turnpost_open_followers").await as usize;
    let closed_while_idle = streams.closed.load(Ordering::Relaxed);
    let delivery = play_and_watch(
        &client,
        base,
        &accounts.players,
        games,
        followers,
        &mut received,
    )
    .await;
    let mut problems = Vec::new();
    if let Some(first) = streams.refused.first() {
        problems.push(format!(
            "{} streams refused (first: {first})",
            streams.refused.len()
        ));
    }
    if open != followers || still_open != followers {
        problems.push(format!(
            "the server counted {open} open followers, then {still_open}, not {followers}"
        ));
    }
    if closed_while_idle > 0 {
        problems.push(format!("{closed_while_idle} streams closed while idle"));
    }
    if delivery.missed > 0 {
        problems.push(format!(
            "{} frames never arrived within {} s",
            delivery.missed,
            FRAME_TIMEOUT.as_secs()
        ));
    }
    Row {
        backend,
        followers,
        opened_in,
        peak_threads,
        resident_before_kib,
        resident_after_kib,
        huge_pages_kib,
        idle_alone,
        idle_followed,
        delivery,
        problems,
    }
}

/// Every count of followers in turn, each on a fresh server on the same database (so that
/// memory is measured from the same start), over one pool of games made by the first.
async fn run_backend(
    backend: &'static str,
    database_url: &str,
    stats: &mut Option<DatabaseStats>,
    counts: &[usize],
) -> Vec<Row> {
    let largest = counts.iter().copied().max().unwrap_or(0);
    let flags = server_flags(database_url, largest);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let mut games = Vec::new();
    let mut rows = Vec::new();
    for &followers in counts {
        let server = Server::start(&flags);
        let client = reqwest::Client::new();
        let accounts = Accounts::sign_in(&client, &server.base).await;
        if games.is_empty() {
            games =
                create_games(&client, &server.base, &accounts.players, games_for(largest)).await;
        }
        warm_up(&client, &server.base, &accounts.spectators[0], &games).await;
        rows.push(measure(backend, &server, &accounts, &mut games, followers, stats).await);
    }
    rows
}

/// The soft limit on open files, which the server inherits; `None` when unlimited.
fn open_files_limit() -> Option<usize> {
    std::fs::read_to_string("/proc/self/limits")
        .ok()?
        .lines()
        .find(|line| line.starts_with("Max open files"))?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()
}

fn ms(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1000.0)
}

fn print_table(rows: &mut [Row]) {
    println!(
        "{FOLLOWERS_PER_GAME} spectator streams per 2-player Tikal game, opened {OPEN_BATCH} at \
         a time; queries counted over {} s of idling; {MOVES} moves, one at a time, in \
         {MOVED_GAMES} of the followed games; a move's frame timed from the answer to its POST \
         (0 when the frame came first) and from the POST",
        IDLE.as_secs()
    );
    println!(
        "| backend | followers | opened in | server threads at most | server memory before / \
         after (huge pages) | per idle stream | pool statements/s, none / N idle | PostgreSQL \
         transactions/s, none / N idle | frame after the answer p50 / p99 | frames before the \
         answer | frame after the POST p50 / p99 | POST p50 / p99 |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let mib = |kib: u64| kib as f64 / 1024.0;
    for row in rows.iter_mut() {
        let kib_per_stream = row.kib_per_stream();
        let transactions = match (row.idle_alone.transactions, row.idle_followed.transactions) {
            (Some(alone), Some(followed)) => format!("{alone:.2} / {followed:.2}"),
            _ => "-".to_owned(),
        };
        let delivery = &mut row.delivery;
        let spread = |samples: &mut [Duration]| {
            format!(
                "{} / {} ms",
                ms(percentile(samples, 0.5)),
                ms(percentile(samples, 0.99))
            )
        };
        println!(
            "| {} | {} | {:.1} s | {} | {:.1} / {:.1} ({:.1}) MiB | {:.1} KiB | {:.2} / {:.2} | \
             {} | {} | {} of {} | {} | {} |",
            row.backend,
            row.followers,
            row.opened_in.as_secs_f64(),
            row.peak_threads,
            mib(row.resident_before_kib),
            mib(row.resident_after_kib),
            mib(row.huge_pages_kib),
            kib_per_stream,
            row.idle_alone.statements,
            row.idle_followed.statements,
            transactions,
            spread(&mut delivery.after_answer),
            delivery.before_answer,
            delivery.after_answer.len(),
            spread(&mut delivery.after_post),
            spread(&mut delivery.posts),
        );
    }
}

/// What misses a target, one line each.
fn failures(rows: &[Row]) -> Vec<String> {
    let mut failures = Vec::new();
    for row in rows {
        let name = format!("{}, {} followers", row.backend, row.followers);
        if row.kib_per_stream() > MAX_KIB_PER_STREAM {
            failures.push(format!(
                "{name}: {:.1} KiB per idle stream (at most {MAX_KIB_PER_STREAM})",
                row.kib_per_stream()
            ));
        }
        let extra = [
            ("pool statements", Some(row.extra_statements())),
            ("PostgreSQL transactions", row.extra_transactions()),
        ];
        for (what, extra) in extra {
            if let Some(extra) = extra.filter(|extra| *extra > MAX_EXTRA_QUERIES_PER_SECOND) {
                failures.push(format!(
                    "{name}: the idle followers add {extra:.2} {what} a second (at most \
                     {MAX_EXTRA_QUERIES_PER_SECOND})"
                ));
            }
        }
        failures.extend(
            row.problems
                .iter()
                .map(|problem| format!("{name}: {problem}")),
        );
    }
    failures
}

#[tokio::main]
async fn main() {
    let mut counts: Vec<usize> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .filter_map(|arg| arg.replace([',', '_'], "").parse().ok())
        .collect();
    if counts.is_empty() {
        counts = vec![1_000, 10_000];
    }
    let largest = counts.iter().copied().max().unwrap_or(0);
    // The bench holds a socket per stream and so does the server, which inherits the limit.
    if let Some(limit) = open_files_limit().filter(|limit| *limit < largest + 1_000) {
        eprintln!(
            "{largest} streams need more open files than the limit of {limit}: raise it \
             (`ulimit -n`; scripts/bench-fanout does)"
        );
        std::process::exit(2);
    }
    println!(
        "load average before the run: {}; {} cores",
        load_average(),
        std::thread::available_parallelism().map_or(1, |cores| cores.get())
    );
    let mut rows = Vec::new();
    match std::env::var("BENCH_DATABASE_URL") {
        Ok(admin_url) => {
            let database = format!("turnpost_fanout_{}", std::process::id());
            let url = fresh_database(&admin_url, &database);
            let mut stats = Some(DatabaseStats {
                admin: diesel::PgConnection::establish(&admin_url).expect("postgres"),
                database: database.clone(),
            });
            rows.extend(run_backend("postgres", &url, &mut stats, &counts).await);
            drop(stats);
            drop_database(&admin_url, &database);
        }
        Err(_) => println!("BENCH_DATABASE_URL is not set: PostgreSQL skipped"),
    }
    let data = tempfile::tempdir().expect("temp dir");
    let sqlite = data.path().join("fanout.sqlite");
    rows.extend(run_backend("sqlite", &sqlite.to_string_lossy(), &mut None, &counts).await);
    println!("load average after the run: {}", load_average());
    print_table(&mut rows);
    let failures = failures(&rows);
    for failure in &failures {
        println!("FAILED {failure}");
    }
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
