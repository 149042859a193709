//! Whether the background work is fair: deadlines, people's bots and webhook
//! deliveries must not wait behind the rest of the work. Three loads run at once against
//! the release server:
//!
//! - Timed games with the smallest time control (a 60 s bank, nothing added) whose first
//!   seat never acts, created over the first seconds: every timeout must be recorded within
//!   2 s (p99) of the end of its deadline's grace.
//! - 40 Java games only bots play (their creator resigned, so a bot took the seat over),
//!   beside a few people playing Tikal and Java against a playouts bot: each bot's answer
//!   must reach its person within 1 s (p99).
//! - One account points its 10 webhooks at receivers that never answer and queues hundreds
//!   of test deliveries, while the other accounts' deliveries (the people's notifications
//!   and a test delivery every half second) must arrive within 2 s (p99) of being queued.
//!
//! Scenarios: one instance on PostgreSQL (`postgres`), three instances on the same
//! PostgreSQL with every client pinned to one of them (`cluster`), one instance on SQLite
//! (`sqlite`). Each prints its figures, the background work every instance did (summed over
//! the instances, the timeouts must match the games' logs: none recorded twice) and the
//! servers' CPU time. Exits non-zero when a target is missed.
//!
//! Beside a checked figure stand its parts, so that a miss says where the time went: a
//! timeout's event time (when the server's deadline pass began) and when a client saw it;
//! a bot's answer until its move was made (the move's event time: the bot's wait for a
//! worker and its thinking) and from there to the person (the append, the wake-up, the
//! long poll's answer).
//!
//! `scripts/bench-fairness [postgres] [cluster] [sqlite]` (default: all three, about
//! 90 s each); it starts a throwaway PostgreSQL unless `BENCH_DATABASE_URL` names one.

#[path = "support/server.rs"]
mod server;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};
use server::{answer, drop_database, fresh_database, load_average, percentile, sign_up, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use turnpost::service::referee::TIMEOUT_GRACE_MS;

/// Timed games, created evenly over [`TIMED_STAGGER`], so that their timeouts fall due a
/// few at a time rather than all in one pass.
const TIMED_GAMES: usize = 36;
const TIMED_STAGGER: Duration = Duration::from_secs(8);
/// A timed game's bank: the least `initial_seconds` the server accepts.
const BANK_SECONDS: u64 = 60;
/// A timeout's watcher starts this long before the timeout can be recorded.
const WATCH_EARLY: Duration = Duration::from_secs(1);
/// The window stays open this long after the last timeout fell due, so that a late one is
/// still measured rather than missed.
const SETTLE: Duration = Duration::from_secs(5);

const BOT_GAMES: usize = 40;
const PEOPLE_PER_KIND: usize = 3;
const PEOPLE_KINDS: [&str; 2] = ["tikal", "java"];
/// How long a person looks at the game before acting: people do not answer in
/// microseconds, and a client that did would measure a queue of its own making.
const PERSON_THINKS: Duration = Duration::from_millis(500);

/// The flooding account's webhooks (the most an account may have) and the test deliveries
/// queued for each before the window opens.
const FLOOD_WEBHOOKS: usize = 10;
const FLOOD_TESTS_PER_WEBHOOK: usize = 30;
/// The other account queues a test delivery this often.
const TEST_EVERY: Duration = Duration::from_millis(500);
/// After the window, how long the other account's test deliveries may take to arrive
/// before the missing ones count as lost.
const DRAIN: Duration = Duration::from_secs(5);

const LONG_POLL_SECONDS: u64 = 10;
const INSTANCES_IN_CLUSTER: usize = 3;
/// Every instance signs and accepts tokens with it, so a token works on any of them.
const JWT_SECRET: &str = "fairness-bench-secret-shared-by-every-instance";

const DEADLINE_TARGET: Duration = Duration::from_secs(2);
const BOT_ANSWER_TARGET: Duration = Duration::from_secs(1);
const WEBHOOK_TARGET: Duration = Duration::from_secs(2);

fn grace() -> Duration {
    Duration::from_millis(TIMEOUT_GRACE_MS as u64)
}

fn time_bank() -> Value {
    json!({
        "type": "time_bank",
        "initial_seconds": BANK_SECONDS,
        "increment_seconds": 0,
        "maximum_seconds": BANK_SECONDS,
    })
}

/// The base URL client `index` sends its requests to.
fn pinned(bases: &[String], index: usize) -> &str {
    &bases[index % bases.len()]
}

fn unix_millis_now() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as i64)
}

/// Milliseconds since the Unix epoch of the server's RFC 3339 times.
fn unix_millis(text: &str) -> i64 {
    let moment = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|error| panic!("{text}: {error}"));
    (moment.unix_timestamp_nanos() / 1_000_000) as i64
}

/// How long after `due` the moment `at` came (zero when it came before).
fn late(at: i64, due: i64) -> Duration {
    Duration::from_millis(u64::try_from(at - due).unwrap_or(0))
}

fn events(page: &Value) -> impl Iterator<Item = &Value> {
    page["events"].as_array().into_iter().flatten()
}

/// The events of game `id` after `after`, waiting up to [`LONG_POLL_SECONDS`] for the next
/// append if there is none yet.
async fn long_poll(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    id: &str,
    after: i64,
) -> Value {
    answer(
        client
            .get(format!(
                "{base}/v1/games/{id}/events?after={after}&wait={LONG_POLL_SECONDS}"
            ))
            .bearer_auth(token),
        "a long poll of a game's events",
    )
    .await
}

async fn register_webhook(client: &reqwest::Client, base: &str, token: &str, url: &str) -> String {
    let webhook = answer(
        client
            .post(format!("{base}/v1/me/webhooks"))
            .bearer_auth(token)
            .json(&json!({ "url": url })),
        "a webhook",
    )
    .await;
    webhook["id"].as_str().expect("a webhook id").to_owned()
}

/// Queues a test delivery to `webhook`; returns its id (its `webhook-id` when posted).
async fn queue_test(client: &reqwest::Client, base: &str, token: &str, webhook: &str) -> String {
    let delivery = answer(
        client
            .post(format!("{base}/v1/me/webhooks/{webhook}/test"))
            .bearer_auth(token),
        "a test delivery",
    )
    .await;
    delivery["id"].as_str().expect("a delivery id").to_owned()
}

/// The accounts of a scenario.
struct Accounts {
    /// Creates the games only bots play, and leaves them.
    bot_farm: String,
    /// Creates the timed games and never acts in them.
    silent: String,
    /// Joins the timed games and watches them for the timeouts.
    opponent: String,
    /// Points its webhooks at receivers that never answer.
    flooder: String,
    /// Queues a test delivery to its own webhook every [`TEST_EVERY`].
    patient: String,
    /// Each plays its kind against a playouts bot.
    people: Vec<(&'static str, String)>,
}

impl Accounts {
    async fn sign_up(client: &reqwest::Client, base: &str) -> Accounts {
        let mut people = Vec::new();
        for kind in PEOPLE_KINDS {
            for index in 0..PEOPLE_PER_KIND {
                let token = sign_up(client, base, &format!("{kind}-player-{index}")).await;
                people.push((kind, token));
            }
        }
        Accounts {
            bot_farm: sign_up(client, base, "bot-farm").await,
            silent: sign_up(client, base, "silent").await,
            opponent: sign_up(client, base, "opponent").await,
            flooder: sign_up(client, base, "flooder").await,
            patient: sign_up(client, base, "patient").await,
            people,
        }
    }
}

/// [`BOT_GAMES`] three-seat Java games with two playouts bots, each created and resigned by
/// `token`, so that bots play all three seats from then on.
async fn start_bot_games(client: &reqwest::Client, bases: &[String], token: &str) {
    for index in 0..BOT_GAMES {
        let base = pinned(bases, index);
        let bots = json!([
            {"seat": 1, "strategy": "playouts"},
            {"seat": 2, "strategy": "playouts"},
        ]);
        let game = answer(
            client
                .post(format!("{base}/v1/games"))
                .bearer_auth(token)
                .json(&json!({"kind": "java", "seats": 3, "bots": bots})),
            "a game for bots",
        )
        .await;
        let id = game["id"].as_str().expect("a game id");
        answer(
            client
                .post(format!("{base}/v1/games/{id}/resign"))
                .bearer_auth(token),
            "leaving a game to the bots",
        )
        .await;
    }
}

/// The flooding account's webhooks, each pointing at a receiver under `hanging` that never
/// answers, with [`FLOOD_TESTS_PER_WEBHOOK`] test deliveries queued for each.
async fn flood(client: &reqwest::Client, base: &str, token: &str, hanging: &str) {
    let mut webhooks = Vec::new();
    for index in 0..FLOOD_WEBHOOKS {
        let url = format!("{hanging}/{index}");
        webhooks.push(register_webhook(client, base, token, &url).await);
    }
    for _ in 0..FLOOD_TESTS_PER_WEBHOOK {
        for webhook in &webhooks {
            queue_test(client, base, token, webhook).await;
        }
    }
}

/// Queues a test delivery to `webhook` every [`TEST_EVERY`] until `until`; returns their ids.
async fn queue_tests(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    webhook: &str,
    until: Instant,
) -> Vec<String> {
    let mut queued = Vec::new();
    let mut next = Instant::now();
    while next < until {
        tokio::time::sleep_until(next.into()).await;
        queued.push(queue_test(client, base, token, webhook).await);
        next += TEST_EVERY;
    }
    queued
}

/// The timeouts of the timed games, as their watchers saw them.
#[derive(Default)]
struct Timeouts {
    games: usize,
    /// Appends that recorded a timeout: one per game when none is recorded twice.
    appends: usize,
    /// From the end of the grace to the timeout's event time: the server's clock when the
    /// deadline pass that recorded it began.
    recorded: Vec<Duration>,
    /// From the end of the grace to a long poll answering with the timeout: an upper bound
    /// of when it was committed, which the event time (taken before) may understate.
    seen: Vec<Duration>,
}

impl Timeouts {
    fn add(&mut self, other: Timeouts) {
        self.games += other.games;
        self.appends += other.appends;
        self.recorded.extend(other.recorded);
        self.seen.extend(other.seen);
    }
}

/// Creates the timed games over [`TIMED_STAGGER`] from `started`, `silent` in the seat that
/// moves first and `opponent` in the other, and watches each for its timeout until `until`.
async fn timed_games(
    client: reqwest::Client,
    bases: Vec<String>,
    silent: String,
    opponent: String,
    started: Instant,
    until: Instant,
) -> Timeouts {
    let mut watchers = Vec::new();
    for index in 0..TIMED_GAMES {
        let due = started + TIMED_STAGGER.mul_f64(index as f64 / TIMED_GAMES as f64);
        tokio::time::sleep_until(due.into()).await;
        let base = pinned(&bases, index);
        let game = answer(
            client
                .post(format!("{base}/v1/games"))
                .bearer_auth(&silent)
                .json(&json!({"kind": "tikal", "seats": 2, "time_control": time_bank()})),
            "a timed game",
        )
        .await;
        let id = game["id"].as_str().expect("a game id").to_owned();
        let joined = answer(
            client
                .post(format!("{base}/v1/games/{id}/seats"))
                .bearer_auth(&opponent),
            "joining a timed game",
        )
        .await;
        let after = joined["current_seq"].as_i64().expect("a seq");
        let wake = Instant::now() + Duration::from_secs(BANK_SECONDS) + grace() - WATCH_EARLY;
        let watcher = Watcher {
            client: client.clone(),
            base: base.to_owned(),
            token: opponent.clone(),
            id,
        };
        watchers.push(tokio::spawn(watcher.watch(after, wake, until)));
    }
    let mut timeouts = Timeouts::default();
    for watcher in watchers {
        timeouts.add(watcher.await.expect("a watcher"));
    }
    timeouts
}

/// A client following one timed game for its timeout.
struct Watcher {
    client: reqwest::Client,
    base: String,
    token: String,
    id: String,
}

impl Watcher {
    /// From `wake` on, long-polls the game after seq `after` until the timeout ended it or
    /// `until` passed.
    async fn watch(self, mut after: i64, wake: Instant, until: Instant) -> Timeouts {
        tokio::time::sleep_until(wake.into()).await;
        let mut timeouts = Timeouts {
            games: 1,
            ..Timeouts::default()
        };
        let mut timeout_seq = None;
        while Instant::now() < until {
            let page = long_poll(&self.client, &self.base, &self.token, &self.id, after).await;
            let arrived = unix_millis_now();
            for event in events(&page) {
                let seq = event["seq"].as_i64().expect("a seq");
                after = after.max(seq);
                match event["type"].as_str() {
                    Some("seat_timed_out") => {
                        let deadline = event["payload"]["deadline_ms"]
                            .as_i64()
                            .expect("a deadline");
                        let due = deadline + TIMEOUT_GRACE_MS;
                        let time = event["time"].as_str().expect("an event time");
                        timeouts.recorded.push(late(unix_millis(time), due));
                        timeouts.seen.push(late(arrived, due));
                        // Seats timing out at once share one append.
                        if timeout_seq != Some(seq) {
                            timeouts.appends += 1;
                            timeout_seq = Some(seq);
                        }
                    }
                    Some("game_ended_by_forfeit") => return timeouts,
                    _ => {}
                }
            }
        }
        timeouts
    }
}

/// How long people waited for their bots.
#[derive(Default)]
struct BotWaits {
    /// From the answer to a person's action to the bot's first move reaching the person.
    answers: Vec<Duration>,
    /// The first part of an answer: until the bot's move was made (its event's time).
    moved: Vec<Duration>,
    /// The rest: from the move to the long poll answering the person with it.
    reached: Vec<Duration>,
    /// From the answer to the person's turn coming back (a turn may be several moves).
    turn_back: Vec<Duration>,
    /// Actions the server refused (a simultaneous phase moved on meanwhile).
    refused: usize,
}

impl BotWaits {
    fn add(&mut self, other: BotWaits) {
        self.answers.extend(other.answers);
        self.moved.extend(other.moved);
        self.reached.extend(other.reached);
        self.turn_back.extend(other.turn_back);
        self.refused += other.refused;
    }
}

/// A person playing `kind` against a playouts bot, one game after another until `until`.
struct Person {
    client: reqwest::Client,
    base: String,
    token: String,
    kind: &'static str,
    until: Instant,
}

impl Person {
    async fn play(self) -> (&'static str, BotWaits) {
        let mut waits = BotWaits::default();
        while Instant::now() < self.until {
            let bot = json!([{"seat": 1, "strategy": "playouts"}]);
            let game = answer(
                self.client
                    .post(format!("{}/v1/games", self.base))
                    .bearer_auth(&self.token)
                    .json(&json!({"kind": self.kind, "seats": 2, "bots": bot})),
                "a game against a bot",
            )
            .await;
            let id = game["id"].as_str().expect("a game id");
            let seat = game["your_seat"].as_u64().expect("a seat");
            self.play_game(id, seat, &mut waits).await;
        }
        (self.kind, waits)
    }

    /// Plays game `id` from `seat` until it ends or the run does: reads the legal actions,
    /// thinks, posts one; when the bot is to act, waits for the turn to come back.
    async fn play_game(&self, id: &str, seat: u64, waits: &mut BotWaits) {
        while Instant::now() < self.until {
            let legal = answer(
                self.client
                    .get(format!("{}/v1/games/{id}/legal-actions", self.base))
                    .bearer_auth(&self.token),
                "legal actions",
            )
            .await;
            let seq = legal["seq"].as_i64().expect("a seq");
            let actions = legal["actions"].as_array().map_or(&[][..], Vec::as_slice);
            if actions.is_empty() {
                if !self.wait_for_turn(id, seat, seq, None, waits).await {
                    return;
                }
                continue;
            }
            tokio::time::sleep(PERSON_THINKS).await;
            let action = &actions[rand::random::<usize>() % actions.len()];
            let response = self
                .client
                .post(format!("{}/v1/games/{id}/actions", self.base))
                .bearer_auth(&self.token)
                .json(&json!({"expected_seq": seq, "action": action}))
                .send()
                .await;
            let accepted = match response {
                Ok(response) if response.status().is_success() => {
                    response.json::<Value>().await.ok()
                }
                _ => None,
            };
            let Some(accepted) = accepted else {
                waits.refused += 1;
                continue;
            };
            let answered = unix_millis_now();
            let view = &accepted["view"];
            if view["finished"] == true {
                return;
            }
            let still_mine = view["to_act"]
                .as_array()
                .is_some_and(|seats| seats.iter().any(|acting| acting.as_u64() == Some(seat)));
            if still_mine {
                continue;
            }
            let after = accepted["seq"].as_i64().expect("a seq");
            if !self
                .wait_for_turn(id, seat, after, Some(answered), waits)
                .await
            {
                return;
            }
        }
    }

    /// Long-polls game `id` after seq `after` until it is `seat`'s turn again (true) or the
    /// game or the run ended (false). With `answered`, when the person's action was answered
    /// (Unix milliseconds), notes when the other seat's first move was made and reached the
    /// person, and when the person's turn came back.
    async fn wait_for_turn(
        &self,
        id: &str,
        seat: u64,
        mut after: i64,
        answered: Option<i64>,
        waits: &mut BotWaits,
    ) -> bool {
        let mut bot_moved = false;
        while Instant::now() < self.until {
            let page = long_poll(&self.client, &self.base, &self.token, id, after).await;
            let arrived = unix_millis_now();
            let bot_move = events(&page)
                .find(|event| event["seat"].as_u64().is_some_and(|mover| mover != seat));
            if let (Some(answered), false, Some(bot_move)) = (answered, bot_moved, bot_move) {
                let moved = unix_millis(bot_move["time"].as_str().expect("an event time"));
                waits.answers.push(late(arrived, answered));
                waits.moved.push(late(moved, answered));
                waits.reached.push(late(arrived, moved));
                bot_moved = true;
            }
            let summary = answer(
                self.client
                    .get(format!("{}/v1/games/{id}", self.base))
                    .bearer_auth(&self.token),
                "a game's summary",
            )
            .await;
            if summary["status"] != "running" {
                return false;
            }
            if summary["your_turn"] == true {
                if let Some(answered) = answered {
                    waits.turn_back.push(late(unix_millis_now(), answered));
                }
                return true;
            }
            // On from what the poll answered, not from the summary, which may have seen the
            // bot's first move already.
            after = page["current_seq"].as_i64().expect("a seq");
        }
        false
    }
}

/// Ends a receiver's accepting task with the scenario.
struct Accepting(JoinHandle<()>);

impl Drop for Accepting {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts a webhook receiver that reads every post and never answers, holding the
/// connection until the server gives up on it; returns its base URL.
async fn start_hanging_receiver() -> (String, Accepting) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let base = format!("http://{}", listener.local_addr().expect("its address"));
    let accepting = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut sink = [0u8; 4096];
                while matches!(socket.read(&mut sink).await, Ok(read) if read > 0) {}
            });
        }
    });
    (base, Accepting(accepting))
}

/// The deliveries a [`Receiver`] got.
#[derive(Default)]
struct Arrivals {
    /// From being queued (the body's `timestamp`) to arriving, for each delivery.
    delays: Vec<Duration>,
    ids: HashSet<String>,
    /// Deliveries that arrived again (one instance posted what another had).
    duplicates: usize,
}

/// A webhook receiver on a loopback port that answers every post 200 at once.
struct Receiver {
    url: String,
    arrivals: Arc<Mutex<Arrivals>>,
    _accepting: Accepting,
}

impl Receiver {
    async fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let url = format!(
            "http://{}/turnpost",
            listener.local_addr().expect("its address")
        );
        let arrivals = Arc::new(Mutex::new(Arrivals::default()));
        let noted = arrivals.clone();
        let accepting = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(receive(socket, noted.clone()));
            }
        });
        Receiver {
            url,
            arrivals,
            _accepting: Accepting(accepting),
        }
    }

    /// Waits until every delivery of `ids` arrived or [`DRAIN`] passed; returns how many
    /// did not.
    async fn missing_after_drain(&self, ids: &[String]) -> usize {
        let given_up = Instant::now() + DRAIN;
        loop {
            let missing = {
                let arrivals = self.arrivals.lock().expect("arrivals");
                ids.iter().filter(|id| !arrivals.ids.contains(*id)).count()
            };
            if missing == 0 || Instant::now() >= given_up {
                return missing;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn arrivals(&self) -> Arrivals {
        std::mem::take(&mut *self.arrivals.lock().expect("arrivals"))
    }
}

/// Answers every request on `socket` 200 and notes each delivery.
async fn receive(mut socket: TcpStream, arrivals: Arc<Mutex<Arrivals>>) {
    let mut buffer = Vec::new();
    while let Some((head, body)) = read_request(&mut socket, &mut buffer).await {
        let arrived = unix_millis_now();
        let delivery: Value = serde_json::from_slice(&body).unwrap_or_default();
        let queued = unix_millis(delivery["timestamp"].as_str().expect("a timestamp"));
        let id = header(&head, "webhook-id")
            .expect("a webhook-id")
            .to_owned();
        {
            let mut arrivals = arrivals.lock().expect("arrivals");
            arrivals.delays.push(late(arrived, queued));
            if !arrivals.ids.insert(id) {
                arrivals.duplicates += 1;
            }
        }
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        if socket.write_all(ok).await.is_err() {
            return;
        }
    }
}

/// Reads one HTTP/1.1 request from `socket`: its head and its body. Whatever of the next
/// request came with it stays in `buffer`.
async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<(String, Vec<u8>)> {
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
            let length: usize = header(&head, "content-length")
                .and_then(|length| length.parse().ok())
                .unwrap_or(0);
            let whole = end + 4 + length;
            if buffer.len() >= whole {
                let body = buffer[end + 4..whole].to_vec();
                buffer.drain(..whole);
                return Some((head, body));
            }
        }
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .find(|(field, _)| field.trim().eq_ignore_ascii_case(name))
        .map(|(_, value)| value.trim())
}

/// The background work one instance did, from its `/metrics`, and the CPU time it used.
struct Instance {
    bot_moves: f64,
    bot_moves_discarded: f64,
    timeouts: f64,
    webhook_posts_delivered: f64,
    webhook_posts_failed: f64,
    cpu_seconds: f64,
}

impl Instance {
    async fn read(client: &reqwest::Client, server: &Server, cpu_before: f64) -> Instance {
        let page = client
            .get(format!("{}/metrics", server.base))
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("metrics text");
        let sample = |series: &str| {
            page.lines()
                .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
                .unwrap_or(0.0)
        };
        Instance {
            bot_moves: sample("turnpost_bot_moves_total{outcome=\"appended\"}"),
            bot_moves_discarded: sample("turnpost_bot_moves_total{outcome=\"discarded\"}"),
            timeouts: sample("turnpost_timeouts_recorded_total"),
            webhook_posts_delivered: sample(
                "turnpost_webhook_attempts_total{outcome=\"delivered\"}",
            ),
            webhook_posts_failed: sample("turnpost_webhook_attempts_total{outcome=\"failed\"}"),
            cpu_seconds: server.cpu_seconds() - cpu_before,
        }
    }
}

/// CPU time the whole machine has been busy so far, every process on every core, in
/// seconds: beside the servers' own, it shows what the bench's clients, the database and
/// anything else running took.
fn machine_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    // The first line sums all cores: user, nice, system, idle, iowait, irq, softirq, steal...
    let ticks: Vec<f64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|ticks| ticks.parse().ok())
        .collect();
    let busy: f64 = [0, 1, 2, 5, 6]
        .iter()
        .filter_map(|&field| ticks.get(field))
        .sum();
    // Linux reports in clock ticks of 1/100 s.
    busy / 100.0
}

/// What one scenario measured.
struct Figures {
    name: String,
    load_before: String,
    seconds: f64,
    machine_cpu_seconds: f64,
    timeouts: Timeouts,
    bots: BTreeMap<&'static str, BotWaits>,
    webhooks: Arrivals,
    tests_queued: usize,
    tests_missing: usize,
    instances: Vec<Instance>,
}

/// The three loads at once against `servers` (sharing one database).
async fn measure(name: &str, servers: &[Server]) -> Figures {
    let load_before = load_average();
    let bases: Vec<String> = servers.iter().map(|server| server.base.clone()).collect();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(LONG_POLL_SECONDS * 3))
        .build()
        .expect("client");
    let accounts = Accounts::sign_up(&client, &bases[0]).await;
    let receiver = Receiver::start().await;
    let (hanging, _hanging_accepting) = start_hanging_receiver().await;
    let cpu_before: Vec<f64> = servers.iter().map(Server::cpu_seconds).collect();
    let machine_cpu_before = machine_cpu_seconds();
    let begun = Instant::now();
    start_bot_games(&client, &bases, &accounts.bot_farm).await;
    flood(&client, pinned(&bases, 0), &accounts.flooder, &hanging).await;
    let patient_base = pinned(&bases, 1);
    let patient_webhook =
        register_webhook(&client, patient_base, &accounts.patient, &receiver.url).await;
    for (index, (_, token)) in accounts.people.iter().enumerate() {
        register_webhook(&client, pinned(&bases, index), token, &receiver.url).await;
    }

    let started = Instant::now();
    let until = started + TIMED_STAGGER + Duration::from_secs(BANK_SECONDS) + grace() + SETTLE;
    let timed = tokio::spawn(timed_games(
        client.clone(),
        bases.clone(),
        accounts.silent.clone(),
        accounts.opponent.clone(),
        started,
        until,
    ));
    let people: Vec<_> = accounts
        .people
        .iter()
        .enumerate()
        .map(|(index, (kind, token))| {
            let person = Person {
                client: client.clone(),
                base: pinned(&bases, index).to_owned(),
                token: token.clone(),
                kind,
                until,
            };
            tokio::spawn(person.play())
        })
        .collect();
    let tests = queue_tests(
        &client,
        patient_base,
        &accounts.patient,
        &patient_webhook,
        until,
    )
    .await;
    let mut bots: BTreeMap<&'static str, BotWaits> = BTreeMap::new();
    for person in people {
        let (kind, waits) = person.await.expect("a person");
        bots.entry(kind).or_default().add(waits);
    }
    let timeouts = timed.await.expect("the timed games");
    let tests_missing = receiver.missing_after_drain(&tests).await;
    let mut instances = Vec::new();
    for (server, before) in servers.iter().zip(cpu_before) {
        instances.push(Instance::read(&client, server, before).await);
    }
    Figures {
        name: name.to_owned(),
        load_before,
        seconds: begun.elapsed().as_secs_f64(),
        machine_cpu_seconds: machine_cpu_seconds() - machine_cpu_before,
        timeouts,
        bots,
        webhooks: receiver.arrivals(),
        tests_queued: tests.len(),
        tests_missing,
        instances,
    }
}

fn ms(duration: Duration) -> String {
    format!("{:.0} ms", duration.as_secs_f64() * 1000.0)
}

/// p99 of `samples` when it misses `target` (or when there are none), as a sentence.
fn missed_p99(what: &str, samples: &mut [Duration], target: Duration) -> Option<String> {
    if samples.is_empty() {
        return Some(format!("{what}: no samples"));
    }
    let p99 = percentile(samples, 0.99);
    (p99 > target).then(|| format!("{what}: p99 {} > {}", ms(p99), ms(target)))
}

impl Figures {
    fn print(&mut self) {
        println!();
        println!(
            "## {}: {TIMED_GAMES} timed games, {BOT_GAMES} Java games only bots play, \
             {PEOPLE_PER_KIND} people per kind against a playouts bot, {FLOOD_WEBHOOKS} \
             hanging webhooks with {} test deliveries queued; {:.0} s, load average before \
             {}",
            self.name,
            FLOOD_WEBHOOKS * FLOOD_TESTS_PER_WEBHOOK,
            self.seconds,
            self.load_before
        );
        println!();
        println!("| measure | samples | p50 | p99 | max | target |");
        println!("| --- | --- | --- | --- | --- | --- |");
        let row = |what: &str, samples: &mut [Duration], target: Option<Duration>| {
            println!(
                "| {what} | {} | {} | {} | {} | {} |",
                samples.len(),
                ms(percentile(samples, 0.5)),
                ms(percentile(samples, 0.99)),
                ms(percentile(samples, 1.0)),
                target.map_or_else(String::new, |target| format!("p99 <= {}", ms(target)))
            );
        };
        row(
            "timeout recorded after the grace (event time)",
            &mut self.timeouts.recorded,
            Some(DEADLINE_TARGET),
        );
        row(
            "timeout seen by a client after the grace",
            &mut self.timeouts.seen,
            None,
        );
        for (kind, waits) in &mut self.bots {
            row(
                &format!("bot answer, {kind}"),
                &mut waits.answers,
                Some(BOT_ANSWER_TARGET),
            );
            row(
                "... until the bot's move was made (its event time)",
                &mut waits.moved,
                None,
            );
            row("... from the move to the person", &mut waits.reached, None);
            row(
                &format!("turn back after the bot's moves, {kind}"),
                &mut waits.turn_back,
                None,
            );
        }
        row(
            "webhook delivery to the other accounts",
            &mut self.webhooks.delays,
            Some(WEBHOOK_TARGET),
        );
        println!();
        println!(
            "| instance | bot moves appended | discarded | timeouts recorded | webhook posts \
             delivered | failed | CPU |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- |");
        let line = |name: &str, instances: &[&Instance]| {
            let sum = |figure: fn(&Instance) -> f64| {
                instances
                    .iter()
                    .map(|instance| figure(instance))
                    .sum::<f64>()
            };
            println!(
                "| {name} | {} | {} | {} | {} | {} | {:.1} s |",
                sum(|instance| instance.bot_moves),
                sum(|instance| instance.bot_moves_discarded),
                sum(|instance| instance.timeouts),
                sum(|instance| instance.webhook_posts_delivered),
                sum(|instance| instance.webhook_posts_failed),
                sum(|instance| instance.cpu_seconds)
            );
        };
        for (index, instance) in self.instances.iter().enumerate() {
            line(&(index + 1).to_string(), &[instance]);
        }
        if self.instances.len() > 1 {
            line("all", &self.instances.iter().collect::<Vec<_>>());
        }
        let refused: usize = self.bots.values().map(|waits| waits.refused).sum();
        let servers_cpu: f64 = self
            .instances
            .iter()
            .map(|instance| instance.cpu_seconds)
            .sum();
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        println!();
        println!(
            "Timeouts in the games' logs: {} appends in {} timed games. The other accounts' \
             test deliveries: {} queued, {} missing; deliveries that arrived twice: {}. \
             People's actions refused: {refused}. CPU over the {:.0} s: the servers {:.1} s, \
             the whole machine {:.1} s of the {:.0} s its {cores} cores had (the rest: this \
             bench's clients, the database and whatever else ran).",
            self.timeouts.appends,
            self.timeouts.games,
            self.tests_queued,
            self.tests_missing,
            self.webhooks.duplicates,
            self.seconds,
            servers_cpu,
            self.machine_cpu_seconds,
            self.seconds * cores as f64
        );
    }

    /// The targets this scenario missed.
    fn missed(&mut self) -> Vec<String> {
        let name = &self.name;
        let mut missed = Vec::new();
        missed.extend(missed_p99(
            &format!("{name}: timeouts recorded after the grace"),
            &mut self.timeouts.recorded,
            DEADLINE_TARGET,
        ));
        if self.timeouts.appends != self.timeouts.games {
            missed.push(format!(
                "{name}: {} timeout appends for {} timed games",
                self.timeouts.appends, self.timeouts.games
            ));
        }
        let recorded: f64 = self
            .instances
            .iter()
            .map(|instance| instance.timeouts)
            .sum();
        if recorded != self.timeouts.appends as f64 {
            missed.push(format!(
                "{name}: the instances recorded {recorded} timeouts, the logs hold {}",
                self.timeouts.appends
            ));
        }
        for (kind, waits) in &mut self.bots {
            missed.extend(missed_p99(
                &format!("{name}: bot answers in {kind}"),
                &mut waits.answers,
                BOT_ANSWER_TARGET,
            ));
        }
        missed.extend(missed_p99(
            &format!("{name}: webhook deliveries to the other accounts"),
            &mut self.webhooks.delays,
            WEBHOOK_TARGET,
        ));
        if self.tests_missing > 0 {
            missed.push(format!(
                "{name}: {} test deliveries not delivered {} s after the run",
                self.tests_missing,
                DRAIN.as_secs()
            ));
        }
        missed
    }
}

/// `count` instances on `database_url` (none: SQLite in the first instance's data
/// directory), with every limit the loads would hit raised.
fn start_servers(count: usize, database_url: Option<&str>) -> Vec<Server> {
    let raised = "1000000";
    let mut flags = vec![
        "--jwt-secret",
        JWT_SECRET,
        "--webhooks-allow-private",
        "--registrations-per-hour-per-address",
        raised,
        "--sign-ins-per-minute-per-address",
        raised,
        "--games-per-hour-per-account",
        raised,
        "--open-games-per-account",
        raised,
        "--bot-games-per-account",
        raised,
        "--webhook-tests-per-hour-per-account",
        raised,
        "--streams-per-account",
        raised,
        "--streams-per-address",
        raised,
        "--connections-per-address",
        raised,
        // Its floods come from one address: the reserve for light clients is not what this
        // benchmark measures either.
        "--streams-reserved",
        "0",
        "--connections-reserved",
        "0",
        // The flood queues its test deliveries many at once; the request slots are not what
        // this benchmark measures.
        "--requests-in-flight-per-account",
        raised,
        "--requests-waiting-per-account",
        raised,
        "--requests-in-flight-per-address",
        raised,
        "--requests-waiting-per-address",
        raised,
    ];
    if let Some(url) = database_url {
        flags.extend(["--database-url", url]);
    }
    (0..count).map(|_| Server::start(&flags)).collect()
}

#[tokio::main]
async fn main() {
    let mut scenarios: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    if scenarios.is_empty() {
        scenarios = ["postgres", "cluster", "sqlite"].map(String::from).to_vec();
    }
    let admin_url = std::env::var("BENCH_DATABASE_URL").ok();
    let mut missed = Vec::new();
    for scenario in &scenarios {
        let (name, instances, backend) = match scenario.as_str() {
            "postgres" => ("one instance, PostgreSQL", 1, "postgres"),
            "cluster" => (
                "three instances, one PostgreSQL",
                INSTANCES_IN_CLUSTER,
                "postgres",
            ),
            "sqlite" => ("one instance, SQLite", 1, "sqlite"),
            other => panic!("unknown scenario {other}: postgres, cluster or sqlite"),
        };
        let database = format!("turnpost_fairness_{scenario}_{}", std::process::id());
        let database_url = match (backend, &admin_url) {
            ("sqlite", _) => None,
            (_, Some(admin_url)) => Some(fresh_database(admin_url, &database)),
            (_, None) => {
                println!("BENCH_DATABASE_URL is not set: {name} skipped");
                continue;
            }
        };
        let servers = start_servers(instances, database_url.as_deref());
        let mut figures = measure(name, &servers).await;
        drop(servers);
        if let (Some(_), Some(admin_url)) = (&database_url, &admin_url) {
            drop_database(admin_url, &database);
        }
        figures.print();
        missed.extend(figures.missed());
    }
    if !missed.is_empty() {
        println!();
        println!("Targets missed:");
        for miss in &missed {
            println!("- {miss}");
        }
        std::process::exit(1);
    }
}
