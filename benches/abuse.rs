//! Load and abuse against the real server binary on loopback, as an anonymous attacker
//! would try it: a flood of sign-ins (the server's memory must stay bounded and other
//! requests keep being answered), one signed-in account flooding the server with reads
//! (another account's reads must stay quick), one address opening a thousand connections
//! (another address must still be served), crowds of addresses in one network and of many
//! networks holding every connection and stream they may (a newcomer still gets in within
//! a second), clients that send a head and never finish
//! their body, and a fuzz of bodies, headers and query strings (no answer may be a 5xx).
//! Every loop is bounded in count and time. Prints the figures the README quotes; exits
//! non-zero when a bound is broken.
//!
//! `cargo bench --bench abuse`

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "support/server.rs"]
mod server;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use server::{percentile, sign_up, Server};

/// What the server's resident memory may reach during the sign-in flood.
const MEMORY_BOUND_MIB: u64 = 256;

/// Sign-ins with wrong passwords for 15 seconds, 400 in flight at once (the limits per
/// address, per name and address and on guessed-at names are raised so that every one
/// reaches the password gate, where one client may have 4 waiting), while a reader keeps
/// asking for the game kinds.
async fn sign_in_flood(failures: &mut Vec<String>) {
    let server = Server::start(&[
        "--connections-per-address",
        "1000000",
        "--sign-ins-per-minute-per-address",
        "1000000",
        "--sign-ins-per-minute-per-name-and-address",
        "1000000",
        "--wrong-passwords-per-hour-per-name",
        "1000000",
    ]);
    let client = reqwest::Client::new();
    let reader_token = sign_up(&client, &server.base, "reader").await;
    sign_in_timing(&client, &server).await;
    let (before, _) = server.memory_mib();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = read_until(
        &client,
        format!("{}/v1/game-kinds", server.base),
        reader_token,
        &stop,
        20,
    );
    let statuses: Arc<[AtomicUsize; 600]> = Arc::new(std::array::from_fn(|_| AtomicUsize::new(0)));
    let started = Instant::now();
    let mut peak = 0;
    let mut tasks = tokio::task::JoinSet::new();
    let mut sent = 0;
    while started.elapsed() < Duration::from_secs(15) {
        let index = sent;
        sent += 1;
        if tasks.len() >= 400 {
            tasks.join_next().await;
        }
        let (client, base, statuses) = (client.clone(), server.base.clone(), statuses.clone());
        tasks.spawn(async move {
            let body = json!({"name": format!("user{}", index % 50), "password": "wrong-password"});
            let status = client
                .post(format!("{base}/v1/tokens"))
                .json(&body)
                .timeout(Duration::from_secs(30))
                .send()
                .await
                .map_or(599, |response| usize::from(response.status().as_u16()));
            statuses[status.min(599)].fetch_add(1, Ordering::Relaxed);
        });
        if index % 200 == 0 {
            peak = peak.max(server.memory_mib().0);
        }
    }
    while tasks.join_next().await.is_some() {
        peak = peak.max(server.memory_mib().0);
    }
    let flood_time = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let (mut latencies, reader_errors) = reader.await.expect("reader");
    let (after, high_water) = server.memory_mib();
    let counted: Vec<String> = statuses
        .iter()
        .enumerate()
        .filter(|(_, count)| count.load(Ordering::Relaxed) > 0)
        .map(|(status, count)| format!("{status}: {}", count.load(Ordering::Relaxed)))
        .collect();
    println!("sign-in flood: {sent} wrong sign-ins, 400 in flight, in {flood_time:.1?}");
    println!("  answers: {}", counted.join(", "));
    println!(
        "  server memory: {before} MiB before, peak {high_water} MiB (sampled {peak}), {after} MiB after"
    );
    println!(
        "  a reader during the flood: {} answers, p50 {:.1?}, p99 {:.1?}, {reader_errors} failed",
        latencies.len(),
        percentile(&mut latencies, 0.5),
        percentile(&mut latencies, 0.99)
    );
    if high_water > MEMORY_BOUND_MIB {
        failures.push(format!(
            "memory peaked at {high_water} MiB, above {MEMORY_BOUND_MIB} MiB"
        ));
    }
    if reader_errors > 0 || latencies.is_empty() {
        failures.push(format!(
            "the reader failed {reader_errors} times during the flood"
        ));
    }
    // 503 is the shed load; anything else from 500 up (599: no answer) is a failure.
    let server_errors = (500..600)
        .filter(|&status| status != 503)
        .any(|status| statuses[status].load(Ordering::Relaxed) > 0);
    if server_errors {
        failures.push("the flood got a 5xx other than 503, or no answer".to_owned());
    }
}

/// What another account's reads may take at the 99th percentile while one account floods.
const FLOODED_READ_P99: Duration = Duration::from_millis(60);

/// The request flood's 400 connections from one address, all let in: the flood is about
/// the request slots, not the connections' cap.
const MANY_CONNECTIONS: [&str; 2] = ["--connections-per-address", "1000000"];

/// The request slots raised out of reach, to show what the flood does without them.
const NO_SLOTS: [&str; 10] = [
    "--connections-per-address",
    "1000000",
    "--requests-in-flight-per-account",
    "1000000",
    "--requests-waiting-per-account",
    "1000000",
    "--requests-in-flight-per-address",
    "1000000",
    "--requests-waiting-per-address",
    "1000000",
];

/// A personal token of the right form that nobody was given: `tpat_`, 16 letters and digits,
/// 64 hex digits.
fn made_up_personal_token(seed: usize) -> String {
    let mut random = ChaCha8Rng::seed_from_u64(seed as u64);
    let id: String = (0..16)
        .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[random.gen_range(0..36)]))
        .collect();
    let secret: String = (0..64)
        .map(|_| char::from(b"0123456789abcdef"[random.gen_range(0..16)]))
        .collect();
    format!("tpat_{id}_{secret}")
}

/// A new 2-player game of `kind` between the two accounts of `tokens`; its id.
async fn new_game(client: &reqwest::Client, base: &str, kind: &str, tokens: [&str; 2]) -> String {
    let game = server::answer(
        client
            .post(format!("{base}/v1/games"))
            .bearer_auth(tokens[0])
            .json(&json!({"kind": kind, "seats": 2})),
        "a new game",
    )
    .await;
    let id = game["id"].as_str().expect("a game id").to_owned();
    server::answer(
        client
            .post(format!("{base}/v1/games/{id}/seats"))
            .bearer_auth(tokens[1]),
        "joining",
    )
    .await;
    id
}

/// One account reads its Java game (the legal actions, 187 KB, the view and the export in
/// turn) with 400 requests in flight for 10 s (on as many connections, all let in), and
/// then someone without an account does the same with made-up personal tokens, while
/// another account reads its own game's view one request at a time. Run with the default request slots and with them raised out
/// of reach: with them, the other account's p99 must stay under [`FLOODED_READ_P99`], none
/// of its reads may fail, and the flood may get no 5xx.
async fn request_flood(failures: &mut Vec<String>) {
    for (label, extra, made_up_tokens) in [
        ("one account, default slots", &MANY_CONNECTIONS[..], false),
        ("one account, no slots", &NO_SLOTS[..], false),
        ("made-up personal tokens", &MANY_CONNECTIONS[..], true),
    ] {
        let server = Server::start(extra);
        let client = reqwest::Client::new();
        let base = server.base.clone();
        let flooder = sign_up(&client, &base, "flooder").await;
        let partner = sign_up(&client, &base, "partner").await;
        let reader = sign_up(&client, &base, "reader").await;
        let opponent = sign_up(&client, &base, "opponent").await;
        let flooded = new_game(&client, &base, "java", [&flooder, &partner]).await;
        let read = new_game(&client, &base, "tikal", [&reader, &opponent]).await;
        let read_url = format!("{base}/v1/games/{read}/view");
        let quiet_stop = Arc::new(AtomicBool::new(false));
        let quiet = read_until(&client, read_url.clone(), reader.clone(), &quiet_stop, 10);
        tokio::time::sleep(Duration::from_secs(2)).await;
        quiet_stop.store(true, Ordering::Relaxed);
        let (mut quiet, _) = quiet.await.expect("the reader");
        let quiet_p99 = percentile(&mut quiet, 0.99);
        let stop = Arc::new(AtomicBool::new(false));
        let during = read_until(&client, read_url, reader, &stop, 10);
        let statuses: Arc<[AtomicUsize; 600]> =
            Arc::new(std::array::from_fn(|_| AtomicUsize::new(0)));
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        let mut sent = 0usize;
        while started.elapsed() < Duration::from_secs(10) {
            if tasks.len() >= 400 {
                tasks.join_next().await;
            }
            let what = ["legal-actions", "view", "export"][sent % 3];
            sent += 1;
            let (client, statuses) = (client.clone(), statuses.clone());
            let url = format!("{base}/v1/games/{flooded}/{what}");
            // A made-up token is looked up in the database before it is refused.
            let token = if made_up_tokens {
                made_up_personal_token(sent)
            } else {
                flooder.clone()
            };
            tasks.spawn(async move {
                let status = match client
                    .get(url)
                    .bearer_auth(token)
                    .timeout(Duration::from_secs(30))
                    .send()
                    .await
                {
                    Ok(response) => {
                        let status = response.status().as_u16();
                        let _ = response.bytes().await;
                        usize::from(status)
                    }
                    Err(_) => 599,
                };
                statuses[status.min(599)].fetch_add(1, Ordering::Relaxed);
            });
        }
        while tasks.join_next().await.is_some() {}
        stop.store(true, Ordering::Relaxed);
        let (mut latencies, errors) = during.await.expect("the reader");
        let counted: Vec<String> = statuses
            .iter()
            .enumerate()
            .filter(|(_, count)| count.load(Ordering::Relaxed) > 0)
            .map(|(status, count)| format!("{status}: {}", count.load(Ordering::Relaxed)))
            .collect();
        let p50 = percentile(&mut latencies, 0.5);
        let p99 = percentile(&mut latencies, 0.99);
        println!(
            "request flood, {label}: {sent} reads in {:.1?}, 400 in flight; answers {}",
            started.elapsed(),
            counted.join(", ")
        );
        println!(
            "  another account's reads: alone p99 {quiet_p99:.1?}; during the flood {} answers, \
             p50 {p50:.1?}, p99 {p99:.1?}, {errors} failed",
            latencies.len()
        );
        if extra.len() > MANY_CONNECTIONS.len() {
            continue;
        }
        if made_up_tokens && statuses[200].load(Ordering::Relaxed) > 0 {
            failures.push("a made-up personal token was let in".to_owned());
        }
        if errors > 0 || latencies.is_empty() {
            failures.push(format!(
                "another account's reads failed {errors} times during the request flood"
            ));
        }
        if p99 > FLOODED_READ_P99 {
            failures.push(format!(
                "another account's reads took {p99:.1?} at p99 during the request flood, \
                 above {FLOODED_READ_P99:?}"
            ));
        }
        if (500..600).any(|status| statuses[status].load(Ordering::Relaxed) > 0) {
            failures.push("the request flood got a 5xx, or no answer".to_owned());
        }
    }
}

/// Reads `url` with `token`, pausing `pause_ms` between reads, until `stop` is set; the
/// answers' times (their bodies read) and how many failed.
fn read_until(
    client: &reqwest::Client,
    url: String,
    token: String,
    stop: &Arc<AtomicBool>,
    pause_ms: u64,
) -> tokio::task::JoinHandle<(Vec<Duration>, usize)> {
    let (client, stop) = (client.clone(), stop.clone());
    tokio::spawn(async move {
        let mut latencies = Vec::new();
        let mut errors = 0;
        while !stop.load(Ordering::Relaxed) {
            let started = Instant::now();
            let answer = client
                .get(&url)
                .bearer_auth(&token)
                .timeout(Duration::from_secs(30))
                .send()
                .await;
            match answer {
                Ok(response) if response.status() == 200 => {
                    let _ = response.bytes().await;
                    latencies.push(started.elapsed());
                }
                _ => errors += 1,
            }
            tokio::time::sleep(Duration::from_millis(pause_ms)).await;
        }
        (latencies, errors)
    })
}

/// A sign-in for a name nobody has must take as long as one with a wrong password, or the
/// timing tells which names exist.
async fn sign_in_timing(client: &reqwest::Client, server: &Server) {
    let time = |name: &'static str| {
        let (client, base) = (client.clone(), server.base.clone());
        async move {
            let mut samples = Vec::new();
            for _ in 0..40 {
                let started = Instant::now();
                let _ = client
                    .post(format!("{base}/v1/tokens"))
                    .json(&json!({"name": name, "password": "wrong-password"}))
                    .send()
                    .await;
                samples.push(started.elapsed());
            }
            percentile(&mut samples, 0.5)
        }
    };
    let wrong_password = time("reader").await;
    let unknown_name = time("nobody-has-this").await;
    println!(
        "sign-in timing (median of 40): wrong password {wrong_password:.1?}, unknown name {unknown_name:.1?}"
    );
}

/// The connections one address may hold (`--connections-per-address`, by default).
const CONNECTIONS_PER_ADDRESS: usize = 128;

/// Whether the server closed `stream` (a read ends at once) rather than keeping it open.
fn closed_by_server(stream: &mut TcpStream) -> bool {
    let _ = stream.set_nonblocking(true);
    let mut rest = [0u8; 4096];
    loop {
        match stream.read(&mut rest) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

/// 1,000 connections from 127.0.0.1, each sending a request and then holding the
/// connection open, while a signed-in client on 127.0.0.2 (another loopback address) keeps
/// reading: the first address keeps at most [`CONNECTIONS_PER_ADDRESS`] of them at once
/// (each new one closes an idle one of its own address, or is answered 429
/// `too_many_connections`), and the other address's reads all succeed.
async fn connection_flood(failures: &mut Vec<String>) {
    let server = Server::start(&[]);
    let other = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .expect("a client on 127.0.0.2");
    let token = sign_up(&other, &server.base, "reader").await;
    let stop = Arc::new(AtomicBool::new(false));
    let reader = read_until(
        &other,
        format!("{}/v1/game-kinds", server.base),
        token,
        &stop,
        10,
    );
    let address = server.address.clone();
    let started = Instant::now();
    let (mut held, statuses) = tokio::task::spawn_blocking(move || {
        let mut held = Vec::new();
        let mut statuses = std::collections::BTreeMap::<String, usize>::new();
        for _ in 0..1_000 {
            let status = match TcpStream::connect(&address) {
                Ok(mut stream) => {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                    let sent = stream
                        .write_all(b"GET /healthz HTTP/1.1\r\nHost: turnpost\r\n\r\n")
                        .is_ok();
                    let mut head = [0u8; 12];
                    let status = if sent && stream.read_exact(&mut head).is_ok() {
                        String::from_utf8_lossy(&head[9..12]).into_owned()
                    } else {
                        "no answer".to_owned()
                    };
                    if status == "200" {
                        held.push(stream);
                    }
                    status
                }
                Err(_) => "not connected".to_owned(),
            };
            *statuses.entry(status).or_default() += 1;
        }
        (held, statuses)
    })
    .await
    .expect("the flood");
    let flood_time = started.elapsed();
    // The held connections stay open while the reader goes on a little longer.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let kept = held
        .iter_mut()
        .map(closed_by_server)
        .filter(|closed| !closed)
        .count();
    stop.store(true, Ordering::Relaxed);
    let (mut latencies, errors) = reader.await.expect("the reader");
    drop(held);
    let counted: Vec<String> = statuses
        .iter()
        .map(|(status, count)| format!("{status}: {count}"))
        .collect();
    println!(
        "connection flood: 1000 connections from one address in {flood_time:.1?}, each held \
         open after its answer; answers {}; {kept} still open after it (the others closed to \
         make room for the address's newer ones)",
        counted.join(", ")
    );
    println!(
        "  another address meanwhile: {} reads, p50 {:.1?}, p99 {:.1?}, {errors} failed",
        latencies.len(),
        percentile(&mut latencies, 0.5),
        percentile(&mut latencies, 0.99)
    );
    if kept > CONNECTIONS_PER_ADDRESS {
        failures.push(format!(
            "one address kept {kept} connections, above {CONNECTIONS_PER_ADDRESS}"
        ));
    }
    let answered = statuses.get("200").copied().unwrap_or(0);
    if statuses.get("429").copied().unwrap_or(0) + answered != 1_000 {
        failures.push(format!(
            "the connection flood got other answers than 200 and 429: {}",
            counted.join(", ")
        ));
    }
    if errors > 0 || latencies.is_empty() {
        failures.push(format!(
            "another address's reads failed {errors} times during the connection flood"
        ));
    }
}

/// How long a newcomer may wait for a connection, or a stream, while crowds hold the rest.
const NEWCOMER_GETS_IN: Duration = Duration::from_secs(1);
/// The crowd's addresses: sixteen /64s of one IPv6 /56 (added to the loopback interface,
/// which takes root), and the newcomer's, in another network.
const CROWD_PREFIX: &str = "2001:db8:5600";
const NEWCOMER_V6: &str = "2001:db8:9999::1";
/// Where the server is reached over IPv6 (a global address: Linux routes no global source
/// to `::1`).
const SERVER_V6: &str = "2001:db8:ffff::1";

fn crowd_address(index: usize) -> std::net::IpAddr {
    format!("{CROWD_PREFIX}:{index:x}::1")
        .parse()
        .expect("an address")
}

/// Adds (or with `add` false removes) the crowd's and the newcomer's IPv6 addresses on the
/// loopback interface; whether every one was added.
fn loopback_addresses(add: bool) -> bool {
    let addresses = (0..16).map(crowd_address).chain(
        [NEWCOMER_V6, SERVER_V6]
            .into_iter()
            .map(|address| address.parse().expect("an address")),
    );
    let mut all = true;
    for address in addresses {
        let status = std::process::Command::new("ip")
            .args(["-6", "addr", if add { "add" } else { "del" }])
            .arg(format!("{address}/128"))
            .args(["dev", "lo"])
            .args(if add { &["nodad"][..] } else { &[][..] })
            .stderr(std::process::Stdio::null())
            .status();
        all &= status.is_ok_and(|status| status.success());
    }
    all
}

fn client_from(address: std::net::IpAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(address)
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client")
}

/// A connection from `from` that asked for `/healthz` and is held open (idle), or what
/// the server answered instead.
async fn idle_connection(
    from: std::net::IpAddr,
    server: std::net::SocketAddr,
) -> Result<tokio::net::TcpStream, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = match from {
        std::net::IpAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
        std::net::IpAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
    }
    .map_err(|error| error.to_string())?;
    socket
        .bind(std::net::SocketAddr::new(from, 0))
        .map_err(|error| error.to_string())?;
    let mut stream = socket
        .connect(server)
        .await
        .map_err(|error| error.to_string())?;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: turnpost\r\n\r\n")
        .await
        .map_err(|error| error.to_string())?;
    let mut head = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(10), stream.read_exact(&mut head))
        .await
        .map_err(|_| "no answer".to_owned())?
        .map_err(|error| error.to_string())?;
    match &head[9..12] {
        b"200" => Ok(stream),
        other => Err(String::from_utf8_lossy(other).into_owned()),
    }
}

/// Opens streams of `tokens`' accounts from `from` until the server refuses one; the
/// streams (held open) and the refusal's status.
async fn streams_until_refused(
    base: &str,
    from: std::net::IpAddr,
    tokens: &[String],
) -> (Vec<reqwest::Response>, u16) {
    let client = client_from(from);
    let mut streams = Vec::new();
    for token in tokens.iter().cycle().take(200) {
        let answer = client
            .get(format!("{base}/v1/me/stream"))
            .bearer_auth(token)
            .send()
            .await
            .expect("the server answers");
        if answer.status() != 200 {
            return (streams, answer.status().as_u16());
        }
        streams.push(answer);
    }
    (streams, 0)
}

/// How many of `connections` the server still keeps open.
fn still_open(connections: &[tokio::net::TcpStream]) -> usize {
    let mut buffer = [0u8; 4096];
    connections
        .iter()
        .filter(|stream| loop {
            match stream.try_read(&mut buffer) {
                Ok(0) => break false,
                Ok(_) => continue,
                Err(error) => break error.kind() == std::io::ErrorKind::WouldBlock,
            }
        })
        .count()
}

/// The streams and long polls the server holds now (its metric).
async fn open_followers(base: &str) -> usize {
    let metrics = reqwest::get(format!("{base}/metrics"))
        .await
        .expect("the metrics")
        .text()
        .await
        .expect("the metrics' text");
    metrics
        .lines()
        .find_map(|line| line.strip_prefix("turnpost_open_followers "))
        .and_then(|value| value.trim().parse::<f64>().ok())
        .map_or(0, |value| value as usize)
}

/// A newcomer from `from`: how long until a connection of its own is answered, and until
/// it follows its notifications (signed up before the clock starts).
async fn newcomer(
    base: &str,
    server: std::net::SocketAddr,
    from: std::net::IpAddr,
    name: &str,
) -> (Result<Duration, String>, Result<Duration, String>) {
    let started = Instant::now();
    let connection = idle_connection(from, server)
        .await
        .map(|_| started.elapsed());
    let client = client_from(from);
    let token = sign_up(&client, base, name).await;
    let started = Instant::now();
    let stream = client
        .get(format!("{base}/v1/me/stream"))
        .bearer_auth(&token)
        .send()
        .await
        .map_err(|error| error.to_string())
        .and_then(|answer| {
            if answer.status() == 200 {
                Ok(started.elapsed())
            } else {
                Err(answer.status().to_string())
            }
        });
    (connection, stream)
}

/// Crowds hold everything they are allowed while a newcomer arrives: first sixteen
/// addresses of one IPv6 /56, with as many streams of their accounts and as many idle
/// connections as they may keep; then eight IPv4 networks (/24) besides, each holding its
/// address's share of both, which takes the instance into the reserve kept for light
/// clients. Each time a newcomer from a new network must get a connection and a stream
/// within [`NEWCOMER_GETS_IN`].
async fn crowds(failures: &mut Vec<String>) {
    if !loopback_addresses(true) {
        loopback_addresses(false);
        failures.push(
            "the crowd's IPv6 addresses could not be added to the loopback interface (`ip -6 \
             addr add`, which needs root): the crowds were not measured"
                .to_owned(),
        );
        return;
    }
    let server = Server::start_on(
        "[::]",
        &format!("[{SERVER_V6}]"),
        &[
            // Signing the crowd up is not what is measured.
            "--registrations-per-hour-per-address",
            "1000000",
            "--sign-ins-per-minute-per-address",
            "1000000",
        ],
    );
    let address: std::net::SocketAddr = server.address.parse().expect("the server's address");
    // IPv4 clients reach the same dual-stack listener on 127.0.0.1.
    let address_v4 = std::net::SocketAddr::from(([127, 0, 0, 1], address.port()));
    let base_v4 = format!("http://{address_v4}");
    let mut held_streams = Vec::new();
    let mut held_connections = Vec::new();
    let mut report = Vec::new();
    // The /56's sixteen addresses, four accounts each.
    let mut refusals = std::collections::BTreeMap::<String, usize>::new();
    for index in 0..16 {
        let from = crowd_address(index);
        let client = client_from(from);
        let mut tokens = Vec::new();
        for account in 0..4 {
            tokens.push(sign_up(&client, &server.base, &format!("crowd{index}x{account}")).await);
        }
        let (streams, refused) = streams_until_refused(&server.base, from, &tokens).await;
        *refusals.entry(format!("stream {refused}")).or_default() += 1;
        held_streams.extend(streams);
        for _ in 0..40 {
            match idle_connection(from, address).await {
                Ok(stream) => held_connections.push(stream),
                Err(status) => *refusals.entry(format!("connection {status}")).or_default() += 1,
            }
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let crowd_streams = open_followers(&base_v4).await;
    report.push(format!(
        "16 addresses of one /56, four accounts each: {crowd_streams} streams held (the /56 \
         keeps 2 x 64), {} idle connections held of {} opened (the /56 keeps 2 x 128 \
         connections; an idle one also closes after 5 s without a request); refusals \
         {refusals:?}",
        still_open(&held_connections),
        held_connections.len()
    ));
    let (connection, stream) = newcomer(
        &server.base,
        address,
        NEWCOMER_V6.parse().expect("an address"),
        "newcomer6",
    )
    .await;
    report.push(format!(
        "  a newcomer from another network: a connection in {connection:.1?}, a stream in {stream:.1?}"
    ));
    check_newcomer(failures, "beside the /56's crowd", &connection, &stream);
    if crowd_streams > 2 * 64 {
        failures.push(format!("the /56 held {crowd_streams} streams, above 128"));
    }

    // Eight IPv4 networks besides, each at its address's share.
    for network in 1..=8u8 {
        let from = std::net::IpAddr::from([127, network, 0, 1]);
        let client = client_from(from);
        let mut tokens = Vec::new();
        for account in 0..4 {
            tokens.push(sign_up(&client, &base_v4, &format!("wide{network}x{account}")).await);
        }
        let (streams, _) = streams_until_refused(&base_v4, from, &tokens).await;
        held_streams.extend(streams);
        for _ in 0..CONNECTIONS_PER_ADDRESS {
            match idle_connection(from, address_v4).await {
                Ok(stream) => held_connections.push(stream),
                Err(_) => break,
            }
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    report.push(format!(
        "  with eight IPv4 networks (/24) besides, four accounts each: {} streams and {} idle \
         connections held (the instance keeps 768 and 1,024, the last quarter of each for \
         light clients)",
        open_followers(&base_v4).await,
        still_open(&held_connections)
    ));
    let (connection, stream) = newcomer(
        &base_v4,
        address_v4,
        std::net::IpAddr::from([127, 250, 0, 1]),
        "newcomer4",
    )
    .await;
    report.push(format!(
        "  a newcomer from a new network: a connection in {connection:.1?}, a stream in {stream:.1?}"
    ));
    check_newcomer(failures, "beside every crowd", &connection, &stream);
    for line in report {
        println!("{line}");
    }
    drop(held_streams);
    drop(held_connections);
    drop(server);
    loopback_addresses(false);
}

fn check_newcomer(
    failures: &mut Vec<String>,
    when: &str,
    connection: &Result<Duration, String>,
    stream: &Result<Duration, String>,
) {
    for (what, result) in [("connection", connection), ("stream", stream)] {
        match result {
            Ok(took) if *took <= NEWCOMER_GETS_IN => {}
            Ok(took) => failures.push(format!("{when}: a newcomer's {what} took {took:.1?}")),
            Err(refused) => failures.push(format!(
                "{when}: a newcomer's {what} was refused: {refused}"
            )),
        }
    }
}

/// 300 clients send a request head and a few bytes of a body that never completes, while a
/// normal client keeps working; every slow client must be cut off with 408.
async fn slow_clients(failures: &mut Vec<String>) {
    let server = Server::start(&[
        "--body-timeout-seconds",
        "2",
        "--connections-per-address",
        "1000000",
    ]);
    let address = server.address.clone();
    let started = Instant::now();
    let slow: Vec<_> = (0..300)
        .map(|_| {
            let address = address.clone();
            std::thread::spawn(move || {
                let Ok(mut stream) = TcpStream::connect(&address) else {
                    return String::from("no connection");
                };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
                let _ = stream.write_all(
                    b"POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                      Content-Length: 1000\r\n\r\n{\"na",
                );
                let mut answer = String::new();
                let _ = stream.read_to_string(&mut answer);
                answer.lines().next().unwrap_or("closed").to_owned()
            })
        })
        .collect();
    let client = reqwest::Client::new();
    let mut latencies = Vec::new();
    let mut errors = 0;
    while started.elapsed() < Duration::from_secs(3) {
        let asked = Instant::now();
        match client
            .get(format!("{}/healthz", server.base))
            .timeout(Duration::from_secs(5))
            .send()
            .await
        {
            Ok(response) if response.status() == 200 => latencies.push(asked.elapsed()),
            _ => errors += 1,
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answers: Vec<String> = slow
        .into_iter()
        .map(|thread| thread.join().unwrap_or_default())
        .collect();
    let timed_out = answers
        .iter()
        .filter(|line| line.starts_with("HTTP/1.1 408"))
        .count();
    println!(
        "slow clients: 300 bodies that never finish, body deadline 2 s: {timed_out} answered 408 within {:.1?}",
        started.elapsed()
    );
    println!(
        "  a normal client meanwhile: {} answers, p50 {:.1?}, p99 {:.1?}, {errors} failed",
        latencies.len(),
        percentile(&mut latencies, 0.5),
        percentile(&mut latencies, 0.99)
    );
    if timed_out != answers.len() {
        failures.push(format!(
            "{} slow clients were not answered 408",
            answers.len() - timed_out
        ));
    }
    if errors > 0 {
        failures.push(format!(
            "{errors} normal requests failed among slow clients"
        ));
    }
}

fn fuzz_text(rng: &mut ChaCha8Rng) -> String {
    const PIECES: &[&str] = &[
        "\u{0}",
        "%00",
        "'",
        "\"",
        "\\",
        "{",
        "}",
        "[",
        "]",
        "null",
        "true",
        "-1",
        "1e999",
        "18446744073709551616",
        "é",
        "\u{FFFF}",
        "😀",
        "%",
        "%zz",
        "&",
        "=",
        "/",
        "..",
        "tikal",
        "java",
        "eternal_palace",
        "open",
        "running",
        " ",
        "\t",
    ];
    let mut text: String = (0..rng.gen_range(0..6))
        .map(|_| PIECES[rng.gen_range(0..PIECES.len())])
        .collect();
    if rng.gen_bool(0.05) {
        text.push_str(&"a".repeat(300));
    }
    text
}

fn fuzz_body(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let value = match rng.gen_range(0..6) {
        0 => json!({"name": fuzz_text(rng), "password": fuzz_text(rng)}),
        1 => {
            json!({"kind": fuzz_text(rng), "seats": rng.gen_range(-3..300), "options": {"auction": fuzz_text(rng)}})
        }
        2 => {
            json!({"expected_seq": rng.gen::<i64>(), "action": {"type": fuzz_text(rng), "space": fuzz_text(rng)}})
        }
        3 => json!({"seat": rng.gen::<i32>()}),
        4 => json!([fuzz_text(rng), rng.gen::<f64>()]),
        _ => Value::String(fuzz_text(rng)),
    };
    let mut bytes = value.to_string().into_bytes();
    if rng.gen_bool(0.3) && !bytes.is_empty() {
        let at = rng.gen_range(0..bytes.len());
        bytes[at] = rng.gen();
    }
    if rng.gen_bool(0.1) {
        bytes.truncate(rng.gen_range(0..=bytes.len()));
    }
    bytes
}

/// 3,000 requests with random bodies, headers and query strings over every route, signed
/// in and not: none may be answered with a 5xx.
async fn fuzz(failures: &mut Vec<String>) {
    let server = Server::start(&[
        "--sign-ins-per-minute-per-address",
        "1000000",
        "--registrations-per-hour-per-address",
        "1000000",
    ]);
    let client = reqwest::Client::new();
    let token = sign_up(&client, &server.base, "fuzzer").await;
    let game: Value = client
        .post(format!("{}/v1/games", server.base))
        .bearer_auth(&token)
        .json(&json!({"kind": "tikal", "seats": 2}))
        .send()
        .await
        .expect("game")
        .json()
        .await
        .expect("game json");
    let id = game["id"].as_str().unwrap_or("none").to_owned();
    let routes = [
        ("POST", "/v1/accounts".to_owned()),
        ("POST", "/v1/tokens".to_owned()),
        ("POST", "/v1/me/password".to_owned()),
        ("GET", "/v1/games".to_owned()),
        ("POST", "/v1/games".to_owned()),
        ("GET", format!("/v1/games/{id}")),
        ("POST", format!("/v1/games/{id}/seats")),
        ("GET", format!("/v1/games/{id}/view")),
        ("GET", format!("/v1/games/{id}/legal-actions")),
        ("POST", format!("/v1/games/{id}/actions")),
        ("GET", format!("/v1/games/{id}/events")),
        ("GET", format!("/v1/games/{id}/export")),
        ("GET", "/v1/game-kinds".to_owned()),
        ("GET", format!("/v1/games/{id}/transcript")),
        ("GET", "/v1/accounts/fuzzer".to_owned()),
        ("GET", "/v1/exports".to_owned()),
        ("HEAD", format!("/v1/games/{id}/view")),
        ("OPTIONS", "/v1/games".to_owned()),
        ("GET", "/metrics".to_owned()),
    ];
    let content_types = [
        "application/json",
        "text/plain",
        "application/json; charset=latin1",
        "multipart/form-data",
        "",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut counts = std::collections::BTreeMap::<u16, usize>::new();
    let mut server_errors = Vec::new();
    let started = Instant::now();
    for _ in 0..3000 {
        if started.elapsed() > Duration::from_secs(120) {
            break;
        }
        let (method, path) = &routes[rng.gen_range(0..routes.len())];
        const KEYS: &[&str] = &[
            "limit", "offset", "kind", "status", "mine", "my_turn", "at", "after", "type",
            "player", "since", "until", "result",
        ];
        let mut pairs = Vec::new();
        for _ in 0..rng.gen_range(0..3) {
            let key = if rng.gen_bool(0.8) {
                KEYS[rng.gen_range(0..KEYS.len())].to_owned()
            } else {
                fuzz_text(&mut rng)
            };
            pairs.push(format!("{key}={}", fuzz_text(&mut rng)));
        }
        let query = pairs.join("&");
        let url = format!("{}{path}?{}", server.base, query.replace(['#', ' '], "%20"));
        let mut request = client
            .request(method.parse().expect("method"), url)
            .timeout(Duration::from_secs(30));
        if rng.gen_bool(0.8) {
            request = request.bearer_auth(if rng.gen_bool(0.9) {
                token.as_str()
            } else {
                "x.y.z"
            });
        }
        if *method == "POST" {
            let content_type = content_types[rng.gen_range(0..content_types.len())];
            if !content_type.is_empty() {
                request = request.header("Content-Type", content_type);
            }
            if rng.gen_bool(0.05) {
                request = request.header("Content-Encoding", "gzip");
            }
            if rng.gen_bool(0.1) {
                request = request.header(
                    "Idempotency-Key",
                    fuzz_text(&mut rng).replace(['\u{0}', '\r', '\n'], ""),
                );
            }
            request = request.body(fuzz_body(&mut rng));
        }
        let status = request
            .send()
            .await
            .map_or(0, |response| response.status().as_u16());
        *counts.entry(status).or_default() += 1;
        if status >= 500 && status != 503 || status == 0 {
            server_errors.push(format!("{method} {path}?{query}: {status}"));
        }
    }
    let counted: Vec<String> = counts
        .iter()
        .map(|(status, count)| format!("{status}: {count}"))
        .collect();
    println!(
        "fuzz: {} requests in {:.1?}",
        counts.values().sum::<usize>(),
        started.elapsed()
    );
    println!("  answers: {}", counted.join(", "));
    if !server_errors.is_empty() {
        failures.push(format!(
            "{} fuzzed requests got a 5xx or no answer, e.g. {}",
            server_errors.len(),
            server_errors[0]
        ));
    }
}

/// Runs every scenario, or those named on the command line (`cargo bench --bench abuse --
/// crowds`).
#[tokio::main]
async fn main() {
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    let runs = |scenario: &str| named.is_empty() || named.iter().any(|name| name == scenario);
    let mut failures = Vec::new();
    if runs("sign_in_flood") {
        sign_in_flood(&mut failures).await;
    }
    if runs("request_flood") {
        request_flood(&mut failures).await;
    }
    if runs("connection_flood") {
        connection_flood(&mut failures).await;
    }
    if runs("crowds") {
        crowds(&mut failures).await;
    }
    if runs("slow_clients") {
        slow_clients(&mut failures).await;
    }
    if runs("fuzz") {
        fuzz(&mut failures).await;
    }
    if failures.is_empty() {
        println!("abuse: every bound held");
    } else {
        for failure in &failures {
            println!("FAILED: {failure}");
        }
        std::process::exit(1);
    }
}
