//! Web Push end to end, against a push service double on loopback that does what a real
//! one does before it forwards a message: it checks the VAPID token (ES256, signed by the
//! key the server publishes, for the push service's origin, not expired) and the headers,
//! and then, as the browser would, decrypts the `aes128gcm` body with the subscription's
//! private key and authentication secret (independently of the server's code). Covered:
//! a turn pushed within seconds with the game's link, at most one push per game until the
//! player looks, a 410 removing the subscription, a failing push service retried, a
//! hanging one delaying no other account or push service, a flood of turns, and the
//! refusals of the subscription operations.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hkdf::Hkdf;
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
use serde_json::{json, Value};
use sha2::Sha256;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::util::{Backend, Player, TestApp};

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn unb64(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .expect("base64url")
}

/// A browser's side of one subscription: its key pair and authentication secret.
struct Device {
    secret: SecretKey,
    auth: [u8; 16],
}

impl Device {
    fn new() -> Device {
        Device {
            secret: SecretKey::random(&mut rand::rngs::OsRng),
            auth: rand::random(),
        }
    }

    fn p256dh(&self) -> String {
        b64(self.secret.public_key().to_encoded_point(false).as_bytes())
    }

    /// RFC 8291 section 3.4 and RFC 8188, read as a browser reads them.
    fn decrypt(&self, body: &[u8]) -> Option<String> {
        let salt = &body[..16];
        let record_size = u32::from_be_bytes(body[16..20].try_into().ok()?);
        assert_eq!(record_size, 4096);
        let key_length = body[20] as usize;
        let sender = &body[21..21 + key_length];
        let shared = p256::ecdh::diffie_hellman(
            self.secret.to_nonzero_scalar(),
            PublicKey::from_sec1_bytes(sender).ok()?.as_affine(),
        );
        let mut info = b"WebPush: info\0".to_vec();
        info.extend_from_slice(self.secret.public_key().to_encoded_point(false).as_bytes());
        info.extend_from_slice(sender);
        let mut ikm = [0u8; 32];
        Hkdf::<Sha256>::new(Some(&self.auth), shared.raw_secret_bytes())
            .expand(&info, &mut ikm)
            .ok()?;
        let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
        let (mut cek, mut nonce) = ([0u8; 16], [0u8; 12]);
        prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
            .ok()?;
        prk.expand(b"Content-Encoding: nonce\0", &mut nonce).ok()?;
        let key = LessSafeKey::new(UnboundKey::new(&AES_128_GCM, &cek).ok()?);
        let mut record = body[21 + key_length..].to_vec();
        let plain = key
            .open_in_place(
                Nonce::assume_unique_for_key(nonce),
                Aad::empty(),
                &mut record,
            )
            .ok()?;
        let end = plain.iter().rposition(|byte| *byte != 0)?;
        assert_eq!(plain[end], 2, "the last record's delimiter");
        String::from_utf8(plain[..end].to_vec()).ok()
    }
}

/// How the double answers one endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Created,
    Gone,
    /// 500 this many times, then 201.
    FailTimes(u32),
    /// Reads the request and never answers.
    Hang,
}

/// One message as the double took it.
#[derive(Debug, Clone)]
struct Pushed {
    endpoint: String,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
    at: Instant,
}

#[derive(Default)]
struct DoubleState {
    answers: BTreeMap<String, Answer>,
    failures: BTreeMap<String, u32>,
    pushed: Vec<Pushed>,
    hanging_now: usize,
    most_hanging: usize,
}

/// A push service on a loopback port: `/push/<name>` endpoints.
#[derive(Clone)]
struct PushService {
    base: String,
    state: Arc<Mutex<DoubleState>>,
}

impl PushService {
    async fn start() -> PushService {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(DoubleState::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, shared.clone()));
            }
        });
        PushService { base, state }
    }

    /// A new endpoint answering `answer`.
    fn endpoint(&self, name: &str, answer: Answer) -> String {
        let path = format!("/push/{name}");
        self.state
            .lock()
            .unwrap()
            .answers
            .insert(path.clone(), answer);
        format!("{}{path}", self.base)
    }

    fn pushed(&self) -> Vec<Pushed> {
        self.state.lock().unwrap().pushed.clone()
    }

    fn pushed_to(&self, endpoint: &str) -> Vec<Pushed> {
        self.pushed()
            .into_iter()
            .filter(|pushed| pushed.endpoint == endpoint)
            .collect()
    }

    async fn wait_for(&self, endpoint: &str, count: usize) -> Vec<Pushed> {
        for _ in 0..400 {
            let pushed = self.pushed_to(endpoint);
            if pushed.len() >= count {
                return pushed;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "expected {count} pushes to {endpoint}, got {}",
            self.pushed_to(endpoint).len()
        );
    }
}

async fn serve(mut socket: tokio::net::TcpStream, state: Arc<Mutex<DoubleState>>) {
    let mut buffer = Vec::new();
    loop {
        let head_end = loop {
            if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
                break end;
            }
            let mut chunk = [0u8; 4096];
            match socket.read(&mut chunk).await {
                Ok(read) if read > 0 => buffer.extend_from_slice(&chunk[..read]),
                _ => return,
            }
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
        let path = head
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let headers: BTreeMap<String, String> = head
            .lines()
            .skip(1)
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        let length: usize = headers
            .get("content-length")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        while buffer.len() < head_end + 4 + length {
            let mut chunk = [0u8; 4096];
            match socket.read(&mut chunk).await {
                Ok(read) if read > 0 => buffer.extend_from_slice(&chunk[..read]),
                _ => return,
            }
        }
        let body = buffer[head_end + 4..head_end + 4 + length].to_vec();
        buffer.drain(..head_end + 4 + length);
        let answer = {
            let mut state = state.lock().unwrap();
            let answer = state.answers.get(&path).copied().unwrap_or(Answer::Gone);
            let status = match answer {
                Answer::Created => 201,
                Answer::Gone => 410,
                Answer::FailTimes(times) => {
                    let failed = state.failures.entry(path.clone()).or_default();
                    if *failed < times {
                        *failed += 1;
                        500
                    } else {
                        201
                    }
                }
                Answer::Hang => {
                    state.hanging_now += 1;
                    state.most_hanging = state.most_hanging.max(state.hanging_now);
                    0
                }
            };
            if status == 201 {
                state.pushed.push(Pushed {
                    endpoint: path.clone(),
                    headers: headers.clone(),
                    body: body.clone(),
                    at: Instant::now(),
                });
            }
            status
        };
        if answer == 0 {
            let mut chunk = [0u8; 1024];
            while matches!(socket.read(&mut chunk).await, Ok(read) if read > 0) {}
            state.lock().unwrap().hanging_now -= 1;
            return;
        }
        let reply = format!("HTTP/1.1 {answer} X\r\ncontent-length: 0\r\n\r\n");
        if socket.write_all(reply.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// What a real push service checks before it takes a message: the VAPID token signed by
/// the published key, for this origin, not expired, with a contact; the encoding and TTL.
/// Then reads the message as the device does.
fn check_and_read(
    pushed: &Pushed,
    service: &PushService,
    vapid_key: &str,
    device: &Device,
) -> Value {
    let authorization = &pushed.headers["authorization"];
    let (token, key) = authorization
        .strip_prefix("vapid t=")
        .and_then(|rest| rest.split_once(", k="))
        .expect("vapid t=..., k=...");
    assert_eq!(key, vapid_key, "signed with the published key");
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3);
    let header: Value = serde_json::from_slice(&unb64(parts[0])).unwrap();
    assert_eq!(header["alg"], "ES256");
    let claims: Value = serde_json::from_slice(&unb64(parts[1])).unwrap();
    assert_eq!(
        claims["aud"],
        json!(service.base),
        "for the push service's origin"
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let exp = claims["exp"].as_i64().unwrap();
    assert!(exp > now && exp <= now + 24 * 3600, "expires within a day");
    assert!(claims["sub"].as_str().unwrap().starts_with("mailto:"));
    let verifying = VerifyingKey::from_sec1_bytes(&unb64(key)).unwrap();
    let signature = Signature::from_slice(&unb64(parts[2])).unwrap();
    verifying
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
        .expect("the token's signature");
    assert_eq!(pushed.headers["content-encoding"], "aes128gcm");
    assert!(pushed.headers["ttl"].parse::<u32>().unwrap() > 0);
    let text = device.decrypt(&pushed.body).expect("the device reads it");
    serde_json::from_str(&text).unwrap()
}

fn push_config(config: &mut turnpost::config::Config) {
    config.webhooks_allow_networks = vec!["127.0.0.0/8".parse().unwrap()];
    config.push_poll_ms = 100;
}

async fn subscribe(app: &TestApp, player: &Player, endpoint: &str, device: &Device) -> Value {
    app.post(
        player,
        "/v1/me/push-subscriptions",
        &json!({"endpoint": endpoint, "expirationTime": null,
                "keys": {"p256dh": device.p256dh(), "auth": b64(&device.auth)}}),
    )
    .await
    .expect_status(201)
    .json()
}

async fn vapid_key(app: &TestApp) -> String {
    let answer = app
        .request(
            reqwest::Method::GET,
            "/v1/push/vapid-public-key",
            None,
            None,
            &[],
        )
        .await
        .expect_status(200)
        .json();
    answer["public_key"].as_str().unwrap().to_owned()
}

/// Plays random actions for whoever acts, through legal actions and actions only (never
/// reading the summary, which would count as looking), until `seat` acts.
async fn play_until_turn_of(
    app: &TestApp,
    players: &BTreeMap<u64, Player>,
    id: &str,
    seat: u64,
    rng: &mut ChaCha8Rng,
) {
    for _ in 0..200 {
        let mut acted = false;
        for (at, player) in players {
            let legal = app
                .get(player, &format!("/v1/games/{id}/legal-actions"))
                .await
                .expect_status(200)
                .json();
            let actions = legal["actions"].as_array().cloned().unwrap_or_default();
            if actions.is_empty() {
                continue;
            }
            if *at == seat {
                return;
            }
            let action = &actions[rng.gen_range(0..actions.len())];
            app.post(
                player,
                &format!("/v1/games/{id}/actions"),
                &json!({"expected_seq": legal["seq"], "action": action}),
            )
            .await
            .expect_status(200);
            acted = true;
            break;
        }
        assert!(acted, "someone acts");
    }
    panic!("seat {seat} never came to act");
}

async fn two_player_game(app: &TestApp, a: &Player, b: &Player) -> (String, BTreeMap<u64, Player>) {
    let id = app
        .new_game_with(json!({"kind": "java"}), &[a.clone(), b.clone()])
        .await;
    let seat_of_a = app
        .get(a, &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json()["your_seat"]
        .as_u64()
        .unwrap();
    let players: BTreeMap<u64, Player> =
        [(seat_of_a, a.clone()), (1 - seat_of_a, b.clone())].into();
    (id, players)
}

/// Bob's turn comes: his device gets one push within seconds, readable and signed, that
/// opens the game. Until he looks, nothing more of that game is pushed (not his next turn,
/// not a mention); once he has read the game, his next turn is pushed again.
async fn a_turn_is_pushed_once_until_the_player_looks(app: &TestApp) {
    let service = PushService::start().await;
    let key = vapid_key(app).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let device = Device::new();
    let endpoint = service.endpoint("bob-phone", Answer::Created);
    let added = subscribe(app, &bob, &endpoint, &device).await;
    assert_eq!(
        added["push_service"],
        json!(service.base.trim_start_matches("http://"))
    );
    assert_eq!(added["topics"].as_array().unwrap().len(), 5);
    let (id, players) = two_player_game(app, &alice, &bob).await;
    let bob_seat = *players
        .iter()
        .find(|(_, p)| p.token == bob.token)
        .unwrap()
        .0;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let before = Instant::now();
    play_until_turn_of(app, &players, &id, bob_seat, &mut rng).await;
    let pushed = service.wait_for("/push/bob-phone", 1).await;
    assert!(
        pushed[0].at.duration_since(before) < Duration::from_secs(5),
        "pushed within seconds of the turn"
    );
    let message = check_and_read(&pushed[0], &service, &key, &device);
    assert_eq!(message["type"], "your_turn");
    assert_eq!(message["game_id"], json!(id));
    assert_eq!(message["url"], json!(format!("/games/{id}")));
    assert_eq!(message["tag"], json!(format!("game-{id}")));
    assert!(message["title"]
        .as_str()
        .unwrap()
        .starts_with("Your turn in Java with "));
    assert_eq!(pushed[0].headers["urgency"], "high");
    assert!(pushed[0].headers["topic"].len() <= 32);

    // Bob plays his turn without reading the game; alice plays hers, and mentions him.
    let other = 1 - bob_seat;
    play_until_turn_of(app, &players, &id, other, &mut rng).await;
    play_until_turn_of(app, &players, &id, bob_seat, &mut rng).await;
    app.post(
        &alice,
        &format!("/v1/games/{id}/chat"),
        &json!({"text": "your move, @bob"}),
    )
    .await
    .expect_status(201);
    // Looking at the game lets the next one through: it is the only other push.
    app.get(&bob, &format!("/v1/games/{id}"))
        .await
        .expect_status(200);
    play_until_turn_of(app, &players, &id, other, &mut rng).await;
    play_until_turn_of(app, &players, &id, bob_seat, &mut rng).await;
    let pushed = service.wait_for("/push/bob-phone", 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pushed_now = service.pushed_to("/push/bob-phone");
    assert_eq!(pushed_now.len(), 2, "one push per look");
    assert_eq!(
        check_and_read(&pushed[1], &service, &key, &device)["type"],
        "your_turn"
    );

    // A test push, and the list shows the delivery.
    let listed = app
        .get(&bob, "/v1/me/push-subscriptions")
        .await
        .expect_status(200)
        .json();
    let subscription = &listed["subscriptions"][0];
    assert!(subscription["last_delivered_at"].is_string());
    let sub_id = subscription["id"].as_str().unwrap();
    app.post(
        &bob,
        &format!("/v1/me/push-subscriptions/{sub_id}/test"),
        &json!({}),
    )
    .await
    .expect_status(202);
    let pushed = service.wait_for("/push/bob-phone", 3).await;
    assert_eq!(
        check_and_read(&pushed[2], &service, &key, &device)["type"],
        "test"
    );

    // Topics: without `your_turn`, turns are no longer pushed to the device.
    app.request(
        reqwest::Method::PUT,
        &format!("/v1/me/push-subscriptions/{sub_id}/topics"),
        Some(&bob.token),
        Some(&json!({"topics": ["mention"]})),
        &[],
    )
    .await
    .expect_status(200);
    app.get(&bob, &format!("/v1/games/{id}"))
        .await
        .expect_status(200);
    play_until_turn_of(app, &players, &id, other, &mut rng).await;
    play_until_turn_of(app, &players, &id, bob_seat, &mut rng).await;
    app.post(
        &alice,
        &format!("/v1/games/{id}/chat"),
        &json!({"text": "@bob hello"}),
    )
    .await
    .expect_status(201);
    let pushed = service.wait_for("/push/bob-phone", 4).await;
    assert_eq!(
        check_and_read(&pushed[3], &service, &key, &device)["type"],
        "mention"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(service.pushed_to("/push/bob-phone").len(), 4);
}

/// A push service that answers 410 ends the subscription; one that fails is tried again.
async fn gone_and_failing_push_services(app: &TestApp) {
    let service = PushService::start().await;
    let carol = app.register("carol").await;
    let gone = service.endpoint("gone", Answer::Gone);
    let flaky = service.endpoint("flaky", Answer::FailTimes(1));
    let device = Device::new();
    let old = subscribe(app, &carol, &gone, &device).await;
    subscribe(app, &carol, &flaky, &device).await;
    app.post(
        &carol,
        &format!(
            "/v1/me/push-subscriptions/{}/test",
            old["id"].as_str().unwrap()
        ),
        &json!({}),
    )
    .await
    .expect_status(202);
    let listed = app.get(&carol, "/v1/me/push-subscriptions").await.json();
    let flaky_id = listed["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["endpoint"] == json!(flaky))
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(
        &carol,
        &format!("/v1/me/push-subscriptions/{flaky_id}/test"),
        &json!({}),
    )
    .await
    .expect_status(202);
    for _ in 0..200 {
        let listed = app.get(&carol, "/v1/me/push-subscriptions").await.json();
        if listed["subscriptions"].as_array().unwrap().len() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let listed = app.get(&carol, "/v1/me/push-subscriptions").await.json();
    assert_eq!(
        listed["subscriptions"].as_array().unwrap().len(),
        1,
        "410 removes it"
    );
    assert_eq!(listed["subscriptions"][0]["endpoint"], json!(flaky));
    // The first attempt got 500; the retry, 5 s later, is taken.
    let pushed = service.wait_for("/push/flaky", 1).await;
    let listed = app.get(&carol, "/v1/me/push-subscriptions").await.json();
    assert_eq!(
        listed["subscriptions"][0]["last_error"],
        "could not deliver: HTTP 500"
    );
    assert_eq!(pushed.len(), 1);
}

/// Several accounts' devices sit on a push service that never answers, each with tests
/// queued: that service holds at most its share of the senders, each account at most two,
/// and a turn of another account on another push service is pushed meanwhile.
async fn a_hanging_push_service_delays_no_other(app: &TestApp) {
    let hanging = PushService::start().await;
    let healthy = PushService::start().await;
    for n in 0..3 {
        let greedy = app.register(&format!("greedy{n}")).await;
        for device in 0..3 {
            let endpoint = hanging.endpoint(&format!("g{n}-{device}"), Answer::Hang);
            let added = subscribe(app, &greedy, &endpoint, &Device::new()).await;
            app.post(
                &greedy,
                &format!(
                    "/v1/me/push-subscriptions/{}/test",
                    added["id"].as_str().unwrap()
                ),
                &json!({}),
            )
            .await
            .expect_status(202);
        }
    }
    for _ in 0..100 {
        if hanging.state.lock().unwrap().most_hanging >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let dave = app.register("dave").await;
    let erin = app.register("erin").await;
    let device = Device::new();
    let endpoint = healthy.endpoint("dave", Answer::Created);
    subscribe(app, &dave, &endpoint, &device).await;
    let (id, players) = two_player_game(app, &erin, &dave).await;
    let dave_seat = *players
        .iter()
        .find(|(_, p)| p.token == dave.token)
        .unwrap()
        .0;
    let started = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    play_until_turn_of(app, &players, &id, dave_seat, &mut rng).await;
    healthy.wait_for("/push/dave", 1).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "pushed while the other hangs"
    );
    let most = hanging.state.lock().unwrap().most_hanging;
    assert_eq!(most, 3, "the hanging push service's share of the senders");
}

/// Bob plays three games against bots without ever reading them, for many turns: each game
/// is pushed once, however many turns came.
async fn a_flood_of_turns_is_one_push_per_game(app: &TestApp) {
    let service = PushService::start().await;
    let bob = app.register("flooded").await;
    let device = Device::new();
    let endpoint = service.endpoint("flooded", Answer::Created);
    subscribe(app, &bob, &endpoint, &device).await;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut games = Vec::new();
    for _ in 0..3 {
        let created = app
            .post(
                &bob,
                "/v1/games",
                &json!({"kind": "tikal", "seats": 2, "seat": 0,
                        "bots": [{"seat": 1, "strategy": "random"}]}),
            )
            .await
            .expect_status(201)
            .json();
        games.push(created["id"].as_str().unwrap().to_owned());
    }
    for _ in 0..40 {
        for id in &games {
            let legal = app
                .get(&bob, &format!("/v1/games/{id}/legal-actions"))
                .await
                .json();
            let actions = legal["actions"].as_array().cloned().unwrap_or_default();
            if actions.is_empty() {
                continue;
            }
            let action = &actions[rng.gen_range(0..actions.len())];
            let _ = app
                .post(
                    &bob,
                    &format!("/v1/games/{id}/actions"),
                    &json!({"expected_seq": legal["seq"], "action": action}),
                )
                .await;
        }
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let pushed = service.pushed_to("/push/flooded");
    let mut per_game: BTreeMap<String, usize> = BTreeMap::new();
    for message in &pushed {
        let read = check_and_read(message, &service, &vapid_key(app).await, &device);
        *per_game
            .entry(read["game_id"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    assert!(
        per_game.values().all(|count| *count == 1) && !per_game.is_empty(),
        "one push per game until looked: {per_game:?}"
    );
}

/// Refusals: a plain-http endpoint outside the opened networks, keys that are not keys, an
/// expiry in the past, the eleventh device, someone else's subscription, a missing scope.
async fn subscriptions_refuse_what_they_cannot_use(app: &TestApp) {
    let service = PushService::start().await;
    let frank = app.register("frank").await;
    let grace = app.register("grace").await;
    let device = Device::new();
    let body = |endpoint: &str, p256dh: &str, auth: &str, expiry: Value| {
        json!({"endpoint": endpoint, "expirationTime": expiry,
               "keys": {"p256dh": p256dh, "auth": auth}})
    };
    let auth = b64(&device.auth);
    for (request, why) in [
        (
            body(
                "http://example.org/push/x",
                &device.p256dh(),
                &auth,
                Value::Null,
            ),
            "plain http",
        ),
        (
            body("ftp://example.org/x", &device.p256dh(), &auth, Value::Null),
            "not http",
        ),
        (
            body(
                &service.endpoint("k", Answer::Created),
                "BAAA",
                &auth,
                Value::Null,
            ),
            "p256dh",
        ),
        (
            body(
                &service.endpoint("k", Answer::Created),
                &device.p256dh(),
                "abc",
                Value::Null,
            ),
            "auth",
        ),
        (
            body(
                &service.endpoint("k", Answer::Created),
                &device.p256dh(),
                &auth,
                json!(1000),
            ),
            "expired",
        ),
    ] {
        let answer = app
            .post(&frank, "/v1/me/push-subscriptions", &request)
            .await;
        assert_eq!(answer.status, 422, "{why}: {}", answer.text);
        answer.expect_problem(422, "invalid_push_subscription");
    }
    // The same browser again: the subscription is updated, not doubled.
    let endpoint = service.endpoint("frank", Answer::Created);
    let first = subscribe(app, &frank, &endpoint, &device).await;
    let again = app
        .post(
            &frank,
            "/v1/me/push-subscriptions",
            &body(&endpoint, &device.p256dh(), &auth, Value::Null),
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(again["id"], first["id"]);
    for n in 1..10 {
        subscribe(
            app,
            &frank,
            &service.endpoint(&format!("f{n}"), Answer::Created),
            &Device::new(),
        )
        .await;
    }
    app.post(
        &frank,
        "/v1/me/push-subscriptions",
        &body(
            &service.endpoint("f11", Answer::Created),
            &device.p256dh(),
            &auth,
            Value::Null,
        ),
    )
    .await
    .expect_problem(409, "push_subscription_quota");
    let id = first["id"].as_str().unwrap();
    app.request(
        reqwest::Method::DELETE,
        &format!("/v1/me/push-subscriptions/{id}"),
        Some(&grace.token),
        None,
        &[],
    )
    .await
    .expect_problem(404, "push_subscription_not_found");
    app.post(
        &grace,
        &format!("/v1/me/push-subscriptions/{id}/test"),
        &json!({}),
    )
    .await
    .expect_problem(404, "push_subscription_not_found");
    // The same endpoint subscribed by another account moves to it (one browser, one site).
    let moved = app
        .post(
            &grace,
            "/v1/me/push-subscriptions",
            &body(&endpoint, &device.p256dh(), &auth, Value::Null),
        )
        .await
        .expect_status(201)
        .json();
    assert_ne!(moved["id"], first["id"]);
    let franks = app.get(&frank, "/v1/me/push-subscriptions").await.json();
    assert_eq!(franks["subscriptions"].as_array().unwrap().len(), 9);
    app.request(
        reqwest::Method::DELETE,
        &format!(
            "/v1/me/push-subscriptions/{}",
            moved["id"].as_str().unwrap()
        ),
        Some(&grace.token),
        None,
        &[],
    )
    .await
    .expect_status(204);
    // A personal token without `account:manage` may not touch them.
    let token = app
        .post(
            &frank,
            "/v1/me/personal-tokens",
            &json!({"name": "bot", "scopes": ["games:read", "games:play"]}),
        )
        .await
        .expect_status(201)
        .json();
    let bot = Player {
        token: token["token"].as_str().unwrap().to_owned(),
    };
    app.get(&bot, "/v1/me/push-subscriptions")
        .await
        .expect_problem(403, "missing_scope");
}

/// What a client author does through the client crate, every answer checked against the
/// committed spec.
async fn the_client_crate_manages_subscriptions(app: &TestApp) {
    use turnpost_client::{EmailTopic, NewPushSubscription, PushSubscriptionKeys};
    let service = PushService::start().await;
    let client = crate::client::checked_client(app)
        .register("heidi", "correct horse battery")
        .await
        .unwrap();
    assert_eq!(
        client.vapid_public_key().await.unwrap(),
        vapid_key(app).await
    );
    let device = Device::new();
    let endpoint = service.endpoint("heidi", Answer::Created);
    let added = client
        .add_push_subscription(&NewPushSubscription {
            endpoint: endpoint.clone(),
            expiration_time: None,
            keys: PushSubscriptionKeys {
                p256dh: device.p256dh(),
                auth: b64(&device.auth),
            },
            topics: Some(vec![EmailTopic::YourTurn]),
        })
        .await
        .unwrap();
    assert_eq!(added.topics, [EmailTopic::YourTurn]);
    let topics = client
        .set_push_topics(&added.id, &[EmailTopic::Mention, EmailTopic::GameOver])
        .await
        .unwrap();
    assert_eq!(topics.topics, [EmailTopic::GameOver, EmailTopic::Mention]);
    client.test_push_subscription(&added.id).await.unwrap();
    service.wait_for("/push/heidi", 1).await;
    assert_eq!(client.push_subscriptions().await.unwrap().len(), 1);
    client.remove_push_subscription(&added.id).await.unwrap();
    assert!(client.push_subscriptions().await.unwrap().is_empty());
}

async fn web_push_end_to_end(backend: Backend) {
    let app = TestApp::start_with(backend, push_config).await;
    the_client_crate_manages_subscriptions(&app).await;
    a_turn_is_pushed_once_until_the_player_looks(&app).await;
    gone_and_failing_push_services(&app).await;
    a_flood_of_turns_is_one_push_per_game(&app).await;
    subscriptions_refuse_what_they_cannot_use(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_push_on_sqlite() {
    web_push_end_to_end(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_push_on_postgres() {
    web_push_end_to_end(Backend::Postgres).await;
}

fn hanging_config(config: &mut turnpost::config::Config) {
    push_config(config);
    config.push_timeout_seconds = 30;
    config.push_concurrency = 6;
    config.push_in_flight_per_service = Some(3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_push_service_on_sqlite() {
    let app = TestApp::start_with(Backend::Sqlite, hanging_config).await;
    a_hanging_push_service_delays_no_other(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_push_service_on_postgres() {
    let app = TestApp::start_with(Backend::Postgres, hanging_config).await;
    a_hanging_push_service_delays_no_other(&app).await;
}
