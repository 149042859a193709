//! Vacations as players and their opponents meet them: clocks that stand still in every
//! game with the time they had, turns that wait, vacations that end early or by
//! themselves, automatic vacation days instead of a timeout, and the yearly allowance.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use turnpost::games::replay::GameRecord;
use turnpost::service::referee::TIMEOUT_GRACE_MS;

use crate::correspondence::{
    act_randomly, app_with_clock, app_with_clock_and, events_after, rfc3339, summary, DAY_MS,
    START_MS,
};
use crate::util::{Backend, Player, TestApp};

async fn vacation(app: &TestApp, player: &Player) -> Value {
    app.get(player, "/v1/me/vacation")
        .await
        .expect_status(200)
        .json()
}

async fn go_away(app: &TestApp, player: &Player, days: i64) -> crate::util::Response {
    app.post(player, "/v1/me/vacation", &json!({ "days": days }))
        .await
}

async fn come_back(app: &TestApp, player: &Player) -> crate::util::Response {
    app.request(
        reqwest::Method::DELETE,
        "/v1/me/vacation",
        Some(&player.token),
        None,
        &[],
    )
    .await
}

/// A two-player Tikal game with `days` per move, `first` in seat 0 (to act first).
async fn timed_game(app: &TestApp, first: &Player, second: &Player, days: u8) -> String {
    app.new_game_with(
        json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": days}}),
        &[first.clone(), second.clone()],
    )
    .await
}

/// Waits (the referee looks every 100 ms in tests) until `check` holds for the game as
/// `player` sees it, and returns it.
async fn wait_for_game(
    app: &TestApp,
    player: &Player,
    id: &str,
    what: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let game = summary(app, player, id).await;
        if check(&game) {
            return game;
        }
        assert!(
            std::time::Instant::now() < until,
            "waited in vain for {what}: {game}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

fn types(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|event| event["type"].as_str().unwrap_or_default())
        .collect()
}

async fn a_vacation_stops_the_clocks_of_every_game_and_gives_back_the_time_left(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let games = [
        timed_game(&app, &ada, &bo, 3).await,
        timed_game(&app, &ada, &bo, 3).await,
    ];
    let mut seqs = Vec::new();
    for id in &games {
        let game = summary(&app, &ada, id).await;
        assert_eq!(
            game["seats"][0]["deadline"],
            json!(rfc3339(START_MS + 3 * DAY_MS))
        );
        seqs.push(game["current_seq"].as_i64().unwrap());
    }
    assert_eq!(
        vacation(&app, &ada).await,
        json!({"until": null, "days_per_year": 30, "days_used": 0, "days_left": 30,
               "automatic": false})
    );

    // A day into her three, Ada goes away for five days: two days are kept in each game.
    clock.advance(DAY_MS);
    let away = go_away(&app, &ada, 5).await.expect_status(200).json();
    let until = START_MS + 6 * DAY_MS;
    assert_eq!(away["until"], json!(rfc3339(until)));
    assert_eq!(away["days_used"], 5);
    assert_eq!(away["days_left"], 25);
    for (id, seq) in games.iter().zip(&seqs) {
        // Bo sees it on her seat, and the log says why her deadline went.
        let game = summary(&app, &bo, id).await;
        assert_eq!(game["seats"][0]["deadline"], Value::Null);
        assert_eq!(game["seats"][0]["vacation_until"], json!(rfc3339(until)));
        assert_eq!(game["seats"][1]["vacation_until"], Value::Null);
        let events = events_after(&app, &bo, id, *seq).await;
        assert_eq!(types(&events), ["vacation_started", "clock_stopped"]);
        assert_eq!(
            events[0]["payload"],
            json!({"type": "vacation_started", "seat": 0,
                                                "until_ms": until})
        );
        assert_eq!(
            events[0]["text"],
            format!(
                "Red is on vacation until {}: their clock stands still",
                rfc3339(until)
            )
        );
        assert_eq!(events[1]["payload"]["time_left_ms"], 2 * DAY_MS);
    }
    go_away(&app, &ada, 1)
        .await
        .expect_problem(409, "already_on_vacation");

    // Her old deadline passes: nothing happens.
    clock.advance(3 * DAY_MS);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    for id in &games {
        let game = summary(&app, &bo, id).await;
        assert_eq!(game["status"], "running");
        assert_eq!(game["seats"][0]["forfeit"], Value::Null);
    }

    // Back after three days: the two days run from now, and three days count.
    let back = come_back(&app, &ada).await.expect_status(200).json();
    assert_eq!(back["until"], Value::Null);
    assert_eq!(back["days_used"], 3);
    let now = clock.now_millis();
    for id in &games {
        let game = summary(&app, &bo, id).await;
        assert_eq!(
            game["seats"][0]["deadline"],
            json!(rfc3339(now + 2 * DAY_MS))
        );
        assert_eq!(game["seats"][0]["vacation_until"], Value::Null);
        let seq = game["current_seq"].as_i64().unwrap();
        let events = app
            .get(&bo, &format!("/v1/games/{id}/events?after={}", seq - 2))
            .await
            .expect_status(200)
            .json()["events"]
            .clone();
        let events = events.as_array().unwrap();
        assert_eq!(types(events), ["vacation_ended", "clock_started"]);
        assert_eq!(events[0]["text"], "Red is back from vacation");
        // Every view of the game takes the new events: the transcript and the picture.
        app.get(&bo, &format!("/v1/games/{id}/transcript"))
            .await
            .expect_status(200);
        app.get(&bo, &format!("/v1/games/{id}/board.svg?at={seq}"))
            .await
            .expect_status(200);
    }
    come_back(&app, &ada)
        .await
        .expect_problem(409, "not_on_vacation");
}

async fn a_turn_that_comes_during_a_vacation_waits_until_it_ends_by_itself(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let bo = app.register("bo").await;
    let ada = app.register("ada").await;
    let id = timed_game(&app, &bo, &ada, 3).await;
    go_away(&app, &ada, 2).await.expect_status(200);
    // Bo plays until it is Ada's turn: her clock does not start.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..50 {
        if summary(&app, &bo, &id).await["to_act"] == json!([1]) {
            break;
        }
        clock.advance(60_000);
        act_randomly(&app, &bo, &id, &mut rng).await;
    }
    let game = summary(&app, &bo, &id).await;
    assert_eq!(game["to_act"], json!([1]));
    assert_eq!(game["seats"][1]["deadline"], Value::Null);
    assert_eq!(game["your_turn"], false);
    // The vacation ends by itself: the whole three days run from then.
    clock.advance(2 * DAY_MS);
    let now = clock.now_millis();
    let game = wait_for_game(&app, &ada, &id, "the end of the vacation", |game| {
        !game["seats"][1]["deadline"].is_null()
    })
    .await;
    assert_eq!(
        game["seats"][1]["deadline"],
        json!(rfc3339(now + 3 * DAY_MS))
    );
    assert_eq!(game["seats"][1]["vacation_until"], Value::Null);
    let state = vacation(&app, &ada).await;
    assert_eq!(state["until"], Value::Null);
    assert_eq!(state["days_used"], 2);
}

async fn a_deadline_that_would_pass_takes_vacation_days_while_they_last(backend: Backend) {
    let (app, clock) = app_with_clock_and(backend, |config| {
        config.vacation_days_per_year = 2;
    })
    .await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let chosen = app
        .request(
            reqwest::Method::PUT,
            "/v1/me/vacation/automatic",
            Some(&ada.token),
            Some(&json!({"automatic": true})),
            &[],
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(chosen["automatic"], true);
    assert_eq!(chosen["days_left"], 2);
    let id = timed_game(&app, &ada, &bo, 1).await;
    // Twice her deadline passes and a day of vacation starts instead of a timeout; the
    // day's end brings the deadline back with the time it had left (none).
    for day in 1..=3 {
        if day == 1 {
            clock.advance(DAY_MS);
        } else {
            clock.advance(DAY_MS);
            let game = wait_for_game(&app, &bo, &id, "the vacation day's end", |game| {
                game["seats"][0]["vacation_until"].is_null()
            })
            .await;
            assert_eq!(
                game["seats"][0]["deadline"],
                json!(rfc3339(clock.now_millis() + 1))
            );
        }
        clock.advance(TIMEOUT_GRACE_MS + 1);
        if day == 3 {
            break;
        }
        let game = wait_for_game(&app, &bo, &id, "an automatic vacation day", |game| {
            !game["seats"][0]["vacation_until"].is_null()
        })
        .await;
        assert_eq!(game["seats"][0]["forfeit"], Value::Null);
        assert_eq!(game["status"], "running");
        let state = vacation(&app, &ada).await;
        assert_eq!(state["days_used"], day);
        assert_eq!(state["until"], json!(rfc3339(clock.now_millis() + DAY_MS)));
    }
    // The third time no day is left: the timeout is recorded, and Bo wins.
    let game = wait_for_game(&app, &bo, &id, "the timeout", |game| {
        game["status"] == "finished"
    })
    .await;
    assert_eq!(game["seats"][0]["forfeit"], "timed_out");
    let events = app
        .get(&bo, &format!("/v1/games/{id}/events"))
        .await
        .expect_status(200)
        .json()["events"]
        .clone();
    let server: Vec<&str> = types(events.as_array().unwrap())
        .into_iter()
        .filter(|kind| kind.starts_with("vacation") || kind.starts_with("seat_"))
        .collect();
    assert_eq!(
        server,
        [
            "vacation_started",
            "vacation_ended",
            "vacation_started",
            "vacation_ended",
            "seat_timed_out"
        ]
    );
    // The export carries them, and replays to the recorded result.
    let export = app
        .get(&bo, &format!("/v1/games/{id}/export"))
        .await
        .expect_status(200)
        .json();
    let record = GameRecord::from_json(&export.to_string()).expect("an export reads");
    let verified = record.verify().unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        json!(verified.outcome.expect("a result").places),
        export["outcome"]["places"]
    );
}

/// A game that starts while a player is away starts with that seat's clock standing
/// still, and says so.
async fn a_game_joined_during_a_vacation_starts_with_the_clock_standing_still(backend: Backend) {
    let (app, _clock) = app_with_clock(backend).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let away = go_away(&app, &ada, 3).await.expect_status(200).json();
    let id = timed_game(&app, &ada, &bo, 2).await;
    let game = summary(&app, &bo, &id).await;
    assert_eq!(game["to_act"], json!([0]));
    assert_eq!(game["seats"][0]["deadline"], Value::Null);
    assert_eq!(game["seats"][0]["vacation_until"], away["until"]);
    let events = app
        .get(&bo, &format!("/v1/games/{id}/events"))
        .await
        .expect_status(200)
        .json()["events"]
        .clone();
    assert!(
        types(events.as_array().unwrap()).contains(&"vacation_started"),
        "{events}"
    );
}

async fn vacations_are_whole_days_within_the_allowance(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let ada = app.register("ada").await;
    for days in [0, 61, -1] {
        go_away(&app, &ada, days)
            .await
            .expect_problem(422, "invalid_vacation");
    }
    go_away(&app, &ada, 31)
        .await
        .expect_problem(409, "no_vacation_days");
    // Through the client crate, as a third-party client would.
    let client = crate::client::checked_client(&app).with_token(&ada.token);
    let away = client.start_vacation(20).await.unwrap();
    assert_eq!(away.days_left, 10);
    assert_eq!(away.until, Some(rfc3339(START_MS + 20 * DAY_MS)));
    // Back an hour later: that day began, and counts.
    clock.advance(3_600_000);
    let back = client.end_vacation().await.unwrap();
    assert_eq!((back.until, back.days_used), (None, 1));
    assert!(client.set_automatic_vacation(true).await.unwrap().automatic);
    assert!(client.vacation().await.unwrap().automatic);
    go_away(&app, &ada, 30)
        .await
        .expect_problem(409, "no_vacation_days");
    let away = go_away(&app, &ada, 29).await.expect_status(200).json();
    assert_eq!(away["days_left"], 0);
    // Ended at once, it still took its first day; the 28 others come back.
    let back = come_back(&app, &ada).await.expect_status(200).json();
    assert_eq!(back["days_used"], 2);
    assert_eq!(back["days_left"], 28);
}

/// The deadline task reads its clock, then its pass finds a vacation that began meanwhile:
/// the clocks stop with the time left when the vacation began, not when the pass did.
async fn a_pass_that_read_its_clock_before_a_vacation_began_stops_the_clock_at_its_start(
    backend: Backend,
) {
    let (app, clock) = app_with_clock_and(backend, |config| {
        // No pass of the server's own; this test runs the pass itself.
        config.referee_poll_ms = 0;
    })
    .await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let id = timed_game(&app, &ada, &bo, 3).await;
    let seq = summary(&app, &ada, &id).await["current_seq"]
        .as_i64()
        .unwrap();

    let db = turnpost::store::Db::open(app.database_url()).unwrap();
    let ada_id = db
        .read(|conn| turnpost::store::find_account_by_name(conn, "ada"))
        .unwrap()
        .expect("ada's account")
        .id;
    let pass_began = clock.now_millis();
    clock.advance(DAY_MS);
    let started = clock.now_millis();
    db.write(|conn| turnpost::store::vacations::start(conn, &ada_id, started, 5, false))
        .unwrap();
    let cache = turnpost::service::fold_cache::FoldCache::new(16, 1 << 20);
    let appended = turnpost::service::vacations::bring_in_step(&db, &cache, None, pass_began);
    assert_eq!(appended, 1);

    let events = events_after(&app, &bo, &id, seq).await;
    assert_eq!(types(&events), ["vacation_started", "clock_stopped"]);
    assert_eq!(events[0]["time"], json!(rfc3339(started)));
    assert_eq!(events[1]["payload"]["time_left_ms"], 2 * DAY_MS);
}

crate::with_each_backend!(
    a_vacation_stops_the_clocks_of_every_game_and_gives_back_the_time_left,
    a_turn_that_comes_during_a_vacation_waits_until_it_ends_by_itself,
    a_deadline_that_would_pass_takes_vacation_days_while_they_last,
    a_game_joined_during_a_vacation_starts_with_the_clock_standing_still,
    vacations_are_whole_days_within_the_allowance,
    a_pass_that_read_its_clock_before_a_vacation_began_stops_the_clock_at_its_start,
);
