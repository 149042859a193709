//! Correspondence play: time controls with deadlines, timeouts recorded by the referee, a
//! bot taking over a seat that left, resignations, bots seated at creation, open games
//! cancelled, left and expired, private games, and "my turn" by nearest deadline. Time is a
//! manual clock the tests move; nothing sleeps.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use turnpost::clock::Clock;
use turnpost::games::replay::GameRecord;
use turnpost::service::referee::TIMEOUT_GRACE_MS;

use crate::on_both_backends;
use crate::util::{Backend, Player, TestApp};

pub(crate) const DAY_MS: i64 = 24 * 3600 * 1000;
/// 2027-01-15T08:00:00Z: far from the system clock, so nothing passes by accident.
pub(crate) const START_MS: i64 = 1_800_000_000_000;

pub(crate) async fn app_with_clock(backend: Backend) -> (TestApp, Clock) {
    app_with_clock_and(backend, |_| {}).await
}

/// [`app_with_clock`] with some other settings changed too.
pub(crate) async fn app_with_clock_and(
    backend: Backend,
    adjust: impl FnOnce(&mut turnpost::config::Config),
) -> (TestApp, Clock) {
    let clock = Clock::manual(START_MS);
    let shared = clock.clone();
    let app = TestApp::start_with(backend, move |config| {
        config.clock = shared;
        adjust(config);
    })
    .await;
    (app, clock)
}

pub(crate) fn rfc3339(millis: i64) -> String {
    turnpost::service::format_time(millis)
}

pub(crate) async fn summary(app: &TestApp, player: &Player, id: &str) -> Value {
    app.get(player, &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json()
}

/// Waits (long poll, no sleep) until the log has moved past `after`; returns the new events.
pub(crate) async fn events_after(
    app: &TestApp,
    player: &Player,
    id: &str,
    after: i64,
) -> Vec<Value> {
    let page = app
        .get(
            player,
            &format!("/v1/games/{id}/events?after={after}&wait=30"),
        )
        .await
        .expect_status(200)
        .json();
    page["events"].as_array().cloned().unwrap_or_default()
}

/// Plays one random legal action for `player` if it must act; whether it did.
pub(crate) async fn act_randomly(
    app: &TestApp,
    player: &Player,
    id: &str,
    rng: &mut ChaCha8Rng,
) -> bool {
    let legal = app
        .get(player, &format!("/v1/games/{id}/legal-actions"))
        .await
        .expect_status(200)
        .json();
    let actions = legal["actions"].as_array().cloned().unwrap_or_default();
    if actions.is_empty() {
        return false;
    }
    let action = &actions[rng.gen_range(0..actions.len())];
    let response = app
        .post(
            player,
            &format!("/v1/games/{id}/actions"),
            &json!({"expected_seq": legal["seq"], "action": action}),
        )
        .await;
    // A bot may have moved in between (a simultaneous phase): that is a stale seq, not an error.
    assert!(
        response.status == 200 || response.status == 409,
        "{}",
        response.text
    );
    response.status == 200
}

fn server_events(export: &Value) -> Vec<Value> {
    export["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["source"] == "server")
        .cloned()
        .collect()
}

async fn export(app: &TestApp, player: &Player, id: &str) -> Value {
    app.get(player, &format!("/v1/games/{id}/export"))
        .await
        .expect_status(200)
        .json()
}

fn verifies(export: &Value) {
    let record = GameRecord::from_json(&export.to_string()).expect("an export reads");
    let verified = record.verify().unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        json!(verified.outcome.expect("a result").places),
        export["outcome"]["places"],
        "the replay ends in the recorded standing"
    );
}

/// Three players, one day per move; the third never plays. When it must act, time passes
/// its deadline, the referee records the timeout, a bot plays the seat to the end, and the
/// seat ranks last.
async fn a_silent_player_times_out_and_a_bot_finishes_the_game(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let players = [
        app.register("alice").await,
        app.register("bob").await,
        app.register("carol").await,
    ];
    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 1}}),
            &players,
        )
        .await;
    let started = summary(&app, &players[0], &id).await;
    assert_eq!(
        started["time_control"],
        json!({"type": "days_per_move", "days": 1})
    );
    let first = started["to_act"][0].as_u64().unwrap() as usize;
    assert_eq!(
        started["seats"][first]["deadline"],
        json!(rfc3339(START_MS + DAY_MS)),
        "the seat to act has a day"
    );
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut timed_out = false;
    for _ in 0..5_000 {
        let game = summary(&app, &players[0], &id).await;
        if game["status"] == "finished" {
            break;
        }
        let to_act: Vec<usize> = game["to_act"]
            .as_array()
            .unwrap()
            .iter()
            .map(|seat| seat.as_u64().unwrap() as usize)
            .collect();
        let seq = game["current_seq"].as_i64().unwrap();
        let people: Vec<usize> = to_act
            .iter()
            .copied()
            .filter(|seat| *seat != 2 && game["seats"][*seat]["bot"].is_null())
            .collect();
        if let Some(&seat) = people.first() {
            clock.advance(60_000);
            act_randomly(&app, &players[seat], &id, &mut rng).await;
        } else if to_act.contains(&2) && !timed_out {
            let deadline = game["seats"][2]["deadline"].as_str().unwrap().to_owned();
            assert_eq!(game["seats"][2]["forfeit"], Value::Null);
            // Carol's deadline passes: a late move is refused; the referee records the
            // timeout only once its grace is over too (a move within the grace would race
            // the referee's next round otherwise).
            clock.advance(DAY_MS + TIMEOUT_GRACE_MS / 2);
            let late = app
                .post(
                    &players[2],
                    &format!("/v1/games/{id}/actions"),
                    &json!({"expected_seq": seq, "action": {"type": "end_turn"}}),
                )
                .await;
            assert_eq!(late.status, 409, "{}", late.text);
            assert_eq!(late.json()["code"], "deadline_passed");
            clock.advance(TIMEOUT_GRACE_MS);
            let events = events_after(&app, &players[0], &id, seq).await;
            assert_eq!(events[0]["type"], "seat_timed_out", "{events:?}");
            assert_eq!(events[0]["source"], "server");
            assert_eq!(events[0]["text"], "Yellow runs out of time");
            assert_eq!(events[1]["type"], "seat_taken_over");
            assert_eq!(events[1]["text"], "A playouts bot plays Yellow from now on");
            assert!(deadline < rfc3339(clock.now_millis()));
            // The seat is the bot's now: its former player has nothing to do.
            let legal = app
                .get(&players[2], &format!("/v1/games/{id}/legal-actions"))
                .await
                .expect_status(200)
                .json();
            assert_eq!(legal["actions"], json!([]));
            assert_eq!(summary(&app, &players[2], &id).await["your_turn"], false);
            timed_out = true;
        } else {
            // A bot must act: wait for its move.
            events_after(&app, &players[0], &id, seq).await;
        }
    }
    assert!(timed_out, "carol had to act at some point");
    let game = summary(&app, &players[0], &id).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(game["seats"][2]["bot"], "playouts");
    assert_eq!(game["seats"][2]["forfeit"], "timed_out");
    assert_eq!(game["seats"][2]["account"]["name"], "carol");
    let outcome = &game["outcome"];
    assert_eq!(
        outcome["forfeits"],
        json!([{"seat": 2, "reason": "timed_out"}])
    );
    assert_eq!(
        outcome["places"][2], 3,
        "the seat that left ranks last: {outcome}"
    );
    // Carol may no longer act, and the export shows what happened and still verifies.
    let after = app
        .get(&players[2], &format!("/v1/games/{id}/legal-actions"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(after["actions"], json!([]));
    let exported = export(&app, &players[0], &id).await;
    let bot_actions = exported["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|action| action["bot"] == "playouts")
        .count();
    assert!(bot_actions > 0, "the bot's actions are in the export");
    let types: Vec<String> = server_events(&exported)
        .iter()
        .map(|event| event["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        types.iter().filter(|t| *t == "seat_timed_out").count(),
        1,
        "{types:?}"
    );
    verifies(&exported);
}

/// Two players: one resigns, the game ends at once and the other wins.
async fn a_two_player_resignation_ends_the_game(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game("java", json!({}), &[alice.clone(), bob.clone()])
        .await;
    let resigned = app
        .post(&alice, &format!("/v1/games/{id}/resign"), &json!({}))
        .await
        .expect_status(200)
        .json();
    assert_eq!(resigned["status"], "finished");
    assert_eq!(resigned["outcome"]["places"], json!([2, 1]));
    assert_eq!(
        resigned["outcome"]["forfeits"],
        json!([{"seat": 0, "reason": "resigned"}])
    );
    assert_eq!(resigned["to_act"], json!([]));
    let again = app
        .post(&bob, &format!("/v1/games/{id}/resign"), &json!({}))
        .await;
    assert_eq!(again.status, 409);
    assert_eq!(again.json()["code"], "game_finished");
    let exported = export(app, &bob, &id).await;
    let types: Vec<Value> = server_events(&exported)
        .iter()
        .map(|event| event["type"].clone())
        .collect();
    assert_eq!(
        types,
        vec![json!("seat_resigned"), json!("game_ended_by_forfeit")]
    );
    let last = exported["events"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(
        last["text"].as_str().unwrap().contains("Blue 0 (place 1)"),
        "{last}"
    );
    verifies(&exported);
    // A spectator cannot resign for anyone.
    let carol = app.register("carol").await;
    let id = app.new_game("tikal", json!({}), &[alice, bob]).await;
    let refused = app
        .post(&carol, &format!("/v1/games/{id}/resign"), &json!({}))
        .await;
    assert_eq!(refused.status, 403);
}

/// One person against two bots, with nothing but the documented calls.
async fn a_person_plays_a_whole_game_against_two_bots(app: &TestApp) {
    let alice = app.register("alice").await;
    let created = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 3, "bots": [
                {"seat": 0, "strategy": "playouts"},
                {"seat": 2, "strategy": "random"}
            ]}),
        )
        .await
        .expect_status(201)
        .json();
    assert_eq!(created["status"], "running", "the bots fill the table");
    assert_eq!(
        created["your_seat"], 1,
        "the creator takes the seat no bot takes"
    );
    assert_eq!(created["seats"][0]["bot"], "playouts");
    assert_eq!(created["seats"][0]["account"], Value::Null);
    let id = created["id"].as_str().unwrap().to_owned();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut moves = 0;
    for _ in 0..5_000 {
        let game = summary(app, &alice, &id).await;
        if game["status"] == "finished" {
            break;
        }
        if game["your_turn"] == true {
            if act_randomly(app, &alice, &id, &mut rng).await {
                moves += 1;
            }
        } else {
            events_after(app, &alice, &id, game["current_seq"].as_i64().unwrap()).await;
        }
    }
    assert!(moves > 10);
    let game = summary(app, &alice, &id).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(game["outcome"]["forfeits"], json!([]));
    let exported = export(app, &alice, &id).await;
    let by = |bot: &str| {
        exported["actions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|action| action["bot"] == bot)
            .count()
    };
    assert!(by("playouts") > 0 && by("random") > 0);
    verifies(&exported);
    // Nobody is notified for the bots.
    let feed = app
        .get(&alice, "/v1/me/notifications")
        .await
        .expect_status(200)
        .json();
    assert!(feed["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .all(|notification| notification["seat"] == 1));
}

/// A time bank: the deadline is the bank, a turn adds the increment up to the maximum.
async fn a_time_bank_runs_down_and_refills(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game_with(
            json!({"kind": "java", "time_control":
                {"type": "time_bank", "initial_seconds": 3600, "increment_seconds": 600,
                 "maximum_seconds": 4000}}),
            &[alice.clone(), bob.clone()],
        )
        .await;
    let game = summary(&app, &alice, &id).await;
    assert_eq!(game["to_act"], json!([0]));
    assert_eq!(
        game["seats"][0]["deadline"],
        json!(rfc3339(START_MS + 3_600_000))
    );
    assert_eq!(game["seats"][1]["deadline"], Value::Null);
    assert_eq!(game["seats"][1]["time_bank_ms"], 3_600_000);
    let view = app
        .get(&alice, &format!("/v1/games/{id}/view"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(
        view["deadlines"],
        json!([{"seat": 0, "deadline": rfc3339(START_MS + 3_600_000)}])
    );
    // Alice thinks 100 s and acts: when her turn goes on, her deadline stays; when it
    // ends, 3500 s + 600 s, capped at 4000 s, stay in the bank.
    clock.advance(100_000);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    assert!(act_randomly(&app, &alice, &id, &mut rng).await);
    let game = summary(&app, &alice, &id).await;
    if game["to_act"] == json!([0]) {
        assert_eq!(
            game["seats"][0]["deadline"],
            json!(rfc3339(START_MS + 3_600_000))
        );
    } else {
        assert_eq!(game["seats"][0]["time_bank_ms"], 4_000_000);
        assert_eq!(game["seats"][0]["deadline"], Value::Null);
    }
    let exported = export(&app, &alice, &id).await;
    assert!(server_events(&exported)
        .iter()
        .any(|event| event["type"] == "clock_started"
            && event["text"].as_str().unwrap().contains("1 h 0 min left")));
}

/// A turn finished a moment before the deadline wins: the clock moves on and no timeout is
/// written. (Clocks count turns: the turn's last action is the one that must be in time.)
async fn a_move_just_before_the_deadline_wins(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 1}}),
            &[alice.clone(), bob.clone()],
        )
        .await;
    clock.advance(DAY_MS - 1);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut actions = 0;
    while summary(&app, &alice, &id).await["to_act"] == json!([0]) {
        assert!(
            act_randomly(&app, &alice, &id, &mut rng).await,
            "one ms left is enough"
        );
        actions += 1;
        assert!(actions < 200, "the turn never ends");
    }
    let seq = summary(&app, &alice, &id).await["current_seq"]
        .as_i64()
        .unwrap();
    clock.advance(60_000);
    // Several referee rounds pass; nothing is appended.
    let page = app
        .get(&alice, &format!("/v1/games/{id}/events?after={seq}&wait=1"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(page["events"], json!([]));
    let game = summary(&app, &alice, &id).await;
    assert_eq!(game["status"], "running");
    assert_eq!(game["seats"][0]["forfeit"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_just_before_the_deadline_wins_on_both_backends() {
    a_move_just_before_the_deadline_wins(Backend::Sqlite).await;
    a_move_just_before_the_deadline_wins(Backend::Postgres).await;
}

/// `my_turn=true` lists the games by nearest deadline, those without one last.
async fn my_turn_orders_by_nearest_deadline(app: &TestApp) {
    let alice = app.register("alice").await;
    let mut ids = Vec::new();
    for days in [Some(3), None, Some(1), Some(2)] {
        let time_control = match days {
            Some(days) => json!({"type": "days_per_move", "days": days}),
            None => json!({"type": "none"}),
        };
        let created = app
            .post(
                &alice,
                "/v1/games",
                &json!({"kind": "tikal", "seats": 2, "time_control": time_control,
                        "bots": [{"seat": 1, "strategy": "random"}]}),
            )
            .await
            .expect_status(201)
            .json();
        assert_eq!(created["your_turn"], true);
        ids.push(created["id"].as_str().unwrap().to_owned());
    }
    let listed = app
        .get(&alice, "/v1/games?my_turn=true")
        .await
        .expect_status(200)
        .json();
    let order: Vec<&str> = listed["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| game["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, vec![&ids[2], &ids[3], &ids[0], &ids[1]]);
}

/// The creator cancels; a player leaves; an open game expires by itself.
async fn open_games_are_cancelled_left_or_expire(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let open = |seats: u8| {
        let app = &app;
        let alice = alice.clone();
        async move {
            app.post(
                &alice,
                "/v1/games",
                &json!({"kind": "tikal", "seats": seats}),
            )
            .await
            .expect_status(201)
            .json()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let id = open(4).await;
    app.post(&bob, &format!("/v1/games/{id}/seats"), &json!({}))
        .await
        .expect_status(200);
    app.post(
        &carol,
        &format!("/v1/games/{id}/seats"),
        &json!({"seat": 2}),
    )
    .await
    .expect_status(200);
    let left = app
        .post(&bob, &format!("/v1/games/{id}/leave"), &json!({}))
        .await
        .expect_status(200)
        .json();
    assert_eq!(
        left["seats"][1]["account"],
        Value::Null,
        "bob's seat is free"
    );
    let refused = app
        .post(&alice, &format!("/v1/games/{id}/leave"), &json!({}))
        .await;
    assert_eq!(refused.json()["code"], "creator_cannot_leave");
    let not_creator = app
        .post(&carol, &format!("/v1/games/{id}/cancel"), &json!({}))
        .await;
    assert_eq!(not_creator.status, 403);
    let cancelled = app
        .post(&alice, &format!("/v1/games/{id}/cancel"), &json!({}))
        .await
        .expect_status(200)
        .json();
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(cancelled["cancel_reason"], "creator");
    let join = app
        .post(&bob, &format!("/v1/games/{id}/seats"), &json!({}))
        .await;
    assert_eq!(join.json()["code"], "game_not_open");
    let feed = app
        .get(&carol, "/v1/me/notifications")
        .await
        .expect_status(200)
        .json();
    assert_eq!(feed["notifications"][0]["type"], "game_cancelled");

    // Fourteen days later an open game is cancelled as expired; its creator hears of it.
    let id = open(2).await;
    let last = app
        .get(&alice, "/v1/me/notifications")
        .await
        .expect_status(200)
        .json()["notifications"]
        .as_array()
        .map_or(0, |all| all.last().map_or(0, |n| n["id"].as_i64().unwrap()));
    clock.advance(14 * DAY_MS + 1);
    let feed = app
        .get(
            &alice,
            &format!("/v1/me/notifications?after={last}&wait=30"),
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(feed["notifications"][0]["type"], "game_cancelled");
    let game = summary(&app, &alice, &id).await;
    assert_eq!(game["status"], "cancelled");
    assert_eq!(game["cancel_reason"], "expired");
}

/// Only invited accounts join a private game, and only they see it listed.
async fn private_games_admit_only_the_invited(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let created = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "private": true, "invite": ["Bob"]}),
        )
        .await
        .expect_status(201)
        .json();
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["private"], true);
    let listed = |player: Player, query: &'static str| {
        let id = id.clone();
        async move {
            app.get(&player, &format!("/v1/games{query}"))
                .await
                .expect_status(200)
                .json()["games"]
                .as_array()
                .unwrap()
                .iter()
                .any(|game| game["id"] == id.as_str())
        }
    };
    assert!(!listed(carol.clone(), "").await);
    assert!(listed(bob.clone(), "").await);
    assert!(listed(bob.clone(), "?invited=true").await);
    assert!(!listed(alice.clone(), "?invited=true").await);
    // To Carol, who is not invited, the private game does not exist.
    app.post(&carol, &format!("/v1/games/{id}/seats"), &json!({}))
        .await
        .expect_problem(404, "game_not_found");
    // An unlisted game is watched by anyone with its id, and joined only by invitation.
    let unlisted = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "visibility": "unlisted", "invite": ["bob"]}),
        )
        .await
        .expect_status(201)
        .json();
    assert_eq!(unlisted["visibility"], "unlisted");
    assert_eq!(unlisted["private"], false);
    let unlisted_id = unlisted["id"].as_str().unwrap();
    app.get(&carol, &format!("/v1/games/{unlisted_id}"))
        .await
        .expect_status(200);
    app.post(
        &carol,
        &format!("/v1/games/{unlisted_id}/seats"),
        &json!({}),
    )
    .await
    .expect_problem(403, "not_invited");
    assert!(!app
        .get(&carol, "/v1/games")
        .await
        .expect_status(200)
        .text
        .contains(unlisted_id));
    app.post(&bob, &format!("/v1/games/{id}/seats"), &json!({}))
        .await
        .expect_status(200);
    let unknown = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "private": true, "invite": ["nobody"]}),
        )
        .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["code"], "account_not_found");
}

/// Bad time controls and bot seats are refused with a clear code.
async fn bad_settings_are_refused(app: &TestApp) {
    let alice = app.register("alice").await;
    for (body, code) in [
        (
            json!({"kind": "tikal", "seats": 2, "time_control": {"type": "days_per_move", "days": 15}}),
            "invalid_time_control",
        ),
        (
            json!({"kind": "tikal", "seats": 2, "bots": [{"seat": 5, "strategy": "random"}]}),
            "invalid_seat",
        ),
        (
            json!({"kind": "tikal", "seats": 2, "invite": ["alice"]}),
            "invalid_invitations",
        ),
        (
            json!({"kind": "tikal", "seats": 2, "visibility": "public", "invite": ["alice"]}),
            "invalid_invitations",
        ),
        (
            json!({"kind": "tikal", "seats": 2, "visibility": "unlisted", "private": true}),
            "invalid_visibility",
        ),
        (
            json!({"kind": "tikal", "seats": 2, "visibility": "private", "private": false}),
            "invalid_visibility",
        ),
    ] {
        let response = app.post(&alice, "/v1/games", &body).await;
        assert_eq!(response.status, 422, "{body}: {}", response.text);
        assert_eq!(response.json()["code"], code, "{body}");
    }
    // Each mistake with the bots' seats is named as what it is.
    let random = |seat: u8| json!({"seat": seat, "strategy": "random"});
    for (body, status, code, detail) in [
        (
            json!({"kind": "tikal", "seats": 2, "bots": [random(0), random(1)]}),
            422,
            "invalid_bots",
            "`bots` gives all 2 seats to bots, but you take a seat in every game you create: \
             leave at least one seat without a bot",
        ),
        (
            json!({"kind": "java", "seats": 3, "bots": [random(1), random(1)]}),
            409,
            "seat_taken",
            "`bots` names seat 1 twice; every bot needs a seat of its own",
        ),
        (
            json!({"kind": "tikal", "seats": 2, "seat": 1, "bots": [random(1)]}),
            409,
            "seat_taken",
            "seat 1 is the seat you asked for (`seat`) and a bot's too; give the bot another \
             seat or take another one yourself",
        ),
    ] {
        let problem = app
            .post(&alice, "/v1/games", &body)
            .await
            .expect_problem(status, code);
        assert_eq!(problem["detail"], detail, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_player_times_out_on_sqlite() {
    a_silent_player_times_out_and_a_bot_finishes_the_game(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_player_times_out_on_postgres() {
    a_silent_player_times_out_and_a_bot_finishes_the_game(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_banks_on_both_backends() {
    a_time_bank_runs_down_and_refills(Backend::Sqlite).await;
    a_time_bank_runs_down_and_refills(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_games_on_both_backends() {
    open_games_are_cancelled_left_or_expire(Backend::Sqlite).await;
    open_games_are_cancelled_left_or_expire(Backend::Postgres).await;
}

/// Two instances on one Postgres, both refereeing with the same clock: the timeout is
/// recorded once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_record_a_timeout_once() {
    for round in 0..3 {
        let (app, clock) = app_with_clock(Backend::Postgres).await;
        let shared = clock.clone();
        let other = app
            .second_instance_with(move |config| config.clock = shared)
            .await;
        let alice = app.register(&format!("alice{round}")).await;
        let bob = app.register(&format!("bob{round}")).await;
        let carol = app.register(&format!("carol{round}")).await;
        let created = app
            .post(
                &alice,
                "/v1/games",
                &json!({"kind": "tikal", "seats": 3, "seat": 1,
                        "time_control": {"type": "days_per_move", "days": 1}}),
            )
            .await
            .expect_status(201)
            .json();
        let id = created["id"].as_str().unwrap().to_owned();
        other
            .post(&bob, &format!("/v1/games/{id}/seats"), &json!({"seat": 0}))
            .await
            .expect_status(200);
        other
            .post(&carol, &format!("/v1/games/{id}/seats"), &json!({}))
            .await
            .expect_status(200);
        let seq = summary(&app, &alice, &id).await["current_seq"]
            .as_i64()
            .unwrap();
        clock.advance(DAY_MS + 5_000);
        events_after(&other, &alice, &id, seq).await;
        // Wait a second past the last event, so both referees (each looks every 100 ms)
        // have had many rounds at the passed deadline before the count.
        let exported = export(&app, &alice, &id).await;
        let last = exported["events"].as_array().unwrap().last().unwrap()["seq"]
            .as_i64()
            .unwrap();
        let _ = app
            .get(
                &alice,
                &format!("/v1/games/{id}/events?after={last}&wait=1"),
            )
            .await;
        let exported = export(&other, &alice, &id).await;
        let timeouts = server_events(&exported)
            .iter()
            .filter(|event| event["type"] == "seat_timed_out")
            .count();
        assert_eq!(timeouts, 1, "round {round}");
    }
}

/// In a timed game an append that ends a turn ends with clock events; the picture still
/// shows that action (it fell back to the whole log once: every space highlighted, a
/// clock's line as the caption).
async fn the_board_shows_the_last_action_in_a_timed_game(app: &TestApp) {
    let players = [app.register("alice").await, app.register("bob").await];
    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 1}}),
            &players,
        )
        .await;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut posted = 0;
    // Twelve actions at least, then on until an append ends a turn (and so with a clock
    // event).
    let events = loop {
        let game = summary(app, &players[0], &id).await;
        let seat = game["to_act"][0].as_u64().unwrap() as usize;
        let before_last = game["current_seq"].as_i64().unwrap();
        if act_randomly(app, &players[seat], &id, &mut rng).await {
            posted += 1;
        }
        assert!(posted < 400, "no turn ended");
        let events = events_after(app, &players[0], &id, before_last).await;
        if posted >= 12 && events.last().is_some_and(|last| last["source"] == "server") {
            break events;
        }
    };
    let engine: Vec<&Value> = events.iter().filter(|e| e["source"] != "server").collect();
    let mut named = std::collections::BTreeSet::new();
    for event in &engine {
        collect_strings(&event["payload"], &mut named);
    }
    let svg = app
        .get(&players[0], &format!("/v1/games/{id}/board.svg"))
        .await
        .expect_status(200)
        .text;
    let marker = "class=\"space last-action\" data-space=\"";
    let highlighted: Vec<&str> = svg
        .match_indices(marker)
        .map(|(at, _)| {
            let rest = &svg[at + marker.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect();
    for space in &highlighted {
        assert!(
            named.contains(*space),
            "{space} is not the last action's: {named:?}"
        );
    }
    let after_label = &svg[svg.find(">Last action<").expect("a caption")..];
    assert!(
        !after_label.contains("clock runs"),
        "the caption says what the action did, not the clock it started"
    );
}

fn collect_strings(value: &Value, into: &mut std::collections::BTreeSet<String>) {
    match value {
        Value::String(text) => {
            into.insert(text.clone());
        }
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, into)),
        Value::Object(fields) => fields
            .iter()
            .filter(|(key, _)| key.as_str() != "type")
            .for_each(|(_, field)| collect_strings(field, into)),
        _ => {}
    }
}

on_both_backends!(
    the_board_shows_the_last_action_in_a_timed_game,
    a_two_player_resignation_ends_the_game,
    a_person_plays_a_whole_game_against_two_bots,
    my_turn_orders_by_nearest_deadline,
    private_games_admit_only_the_invited,
    bad_settings_are_refused,
);
