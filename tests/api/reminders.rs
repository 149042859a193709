//! Reminders before deadlines: at the times each player chose, once each, through the
//! notification feed.

use serde_json::{json, Value};
use turnpost::clock::Clock;

use crate::correspondence::{app_with_clock, DAY_MS, START_MS};
use crate::util::{Backend, Player, TestApp};

const MINUTE_MS: i64 = 60_000;

/// The reminders `player` got after notification `after`, waiting up to `wait` seconds for
/// the first (other notifications do not end the wait).
async fn reminders_after(app: &TestApp, player: &Player, after: i64, wait: u64) -> Vec<Value> {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(wait);
    let mut reminders = Vec::new();
    let mut cursor = after;
    loop {
        let left = until
            .saturating_duration_since(std::time::Instant::now())
            .as_secs();
        let page = app
            .notifications_after(player, cursor, left.min(60) as u32)
            .await;
        if let Some(last) = page.last() {
            cursor = last["id"].as_i64().unwrap();
        }
        reminders.extend(
            page.into_iter()
                .filter(|notification| notification["type"] == "reminder"),
        );
        if !reminders.is_empty() || std::time::Instant::now() >= until {
            return reminders;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Moves the manual clock on to `millis`.
fn move_to(clock: &Clock, millis: i64) {
    clock.advance(millis - clock.now_millis());
}

async fn players_are_reminded_before_their_deadlines(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;

    // Bob wants one reminder, half an hour before; Alice keeps the default.
    assert_eq!(
        app.get(&alice, "/v1/me/reminders")
            .await
            .expect_status(200)
            .json(),
        json!({"before_minutes": [1440, 60]})
    );
    for refused in [
        json!([4]),
        json!([10081]),
        json!([10, 20, 30, 40]),
        json!([30, 30, 30, 30]),
    ] {
        app.request(
            reqwest::Method::PUT,
            "/v1/me/reminders",
            Some(&bob.token),
            Some(&json!({ "before_minutes": refused })),
            &[],
        )
        .await
        .expect_problem(422, "invalid_reminders");
    }
    let chosen = app
        .request(
            reqwest::Method::PUT,
            "/v1/me/reminders",
            Some(&bob.token),
            Some(&json!({"before_minutes": [30, 30]})),
            &[],
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(chosen, json!({"before_minutes": [30]}));

    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 2}}),
            &[alice.clone(), bob.clone()],
        )
        .await;
    let game = app.get(&alice, &format!("/v1/games/{id}")).await.json();
    assert_eq!(game["to_act"], json!([0]));
    let deadline = START_MS + 2 * DAY_MS;
    let deadline_text = turnpost::service::format_time(deadline);
    assert_eq!(game["seats"][0]["deadline"], deadline_text.as_str());

    // A day before Alice's deadline: her first reminder, once.
    let seen = app.last_notification_id(&alice).await;
    move_to(&clock, deadline - DAY_MS - MINUTE_MS);
    assert!(
        reminders_after(&app, &alice, seen, 2).await.is_empty(),
        "not yet"
    );
    move_to(&clock, deadline - DAY_MS + 1);
    let first = reminders_after(&app, &alice, seen, 20).await;
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0]["game_id"], id.as_str());
    assert_eq!(first[0]["seat"], 0);
    assert_eq!(first[0]["deadline"], deadline_text.as_str());
    // An hour before: the second.
    move_to(&clock, deadline - 60 * MINUTE_MS + 1);
    let seen = first[0]["id"].as_i64().unwrap();
    let second = reminders_after(&app, &alice, seen, 20).await;
    assert_eq!(second.len(), 1, "{second:?}");
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let all = reminders_after(&app, &alice, 0, 0).await;
    assert_eq!(all.len(), 2, "each reminder once: {all:?}");
    assert!(
        reminders_after(&app, &bob, 0, 0).await.is_empty(),
        "Bob does not act"
    );

    // Alice plays her turn: Bob's clock runs, and he is reminded only when he asked to be.
    let mut game = app.get(&alice, &format!("/v1/games/{id}")).await.json();
    for _ in 0..50 {
        if game["to_act"] == json!([1]) {
            break;
        }
        app.play_first_legal_action(&[alice.clone(), bob.clone()], &id)
            .await;
        game = app.get(&alice, &format!("/v1/games/{id}")).await.json();
    }
    assert_eq!(game["to_act"], json!([1]));
    let bobs_deadline = clock.now_millis() + 2 * DAY_MS;
    move_to(&clock, bobs_deadline - DAY_MS + 1);
    assert!(
        reminders_after(&app, &bob, 0, 2).await.is_empty(),
        "Bob chose 30 minutes"
    );
    move_to(&clock, bobs_deadline - 30 * MINUTE_MS + 1);
    let bobs = reminders_after(&app, &bob, 0, 20).await;
    assert_eq!(bobs.len(), 1, "{bobs:?}");
    assert_eq!(
        bobs[0]["deadline"],
        turnpost::service::format_time(bobs_deadline).as_str()
    );
    assert_eq!(reminders_after(&app, &alice, 0, 0).await.len(), 2);

    // With one day per move, a reminder a day ahead would come as the turn starts: only the
    // hour's comes. A one-minute bank gets none.
    let seen = app.last_notification_id(&alice).await;
    let one_day = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 1}}),
            &[alice.clone(), bob.clone()],
        )
        .await;
    let short_bank = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "time_bank",
                   "initial_seconds": 60, "increment_seconds": 0, "maximum_seconds": 60}}),
            &[alice.clone(), bob.clone()],
        )
        .await;
    let started = clock.now_millis();
    assert!(
        reminders_after(&app, &alice, seen, 2).await.is_empty(),
        "no reminder as the turns start"
    );
    move_to(&clock, started + DAY_MS - 60 * MINUTE_MS + 1);
    let hours = reminders_after(&app, &alice, seen, 20).await;
    assert_eq!(hours.len(), 1, "{hours:?}");
    assert_eq!(hours[0]["game_id"], one_day.as_str());
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let all: Vec<Value> = reminders_after(&app, &alice, seen, 0).await;
    assert!(
        all.iter()
            .all(|reminder| reminder["game_id"] != short_bank.as_str()),
        "{all:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_on_sqlite() {
    players_are_reminded_before_their_deadlines(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_on_postgres() {
    players_are_reminded_before_their_deadlines(Backend::Postgres).await;
}
