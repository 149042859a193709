//! Taking back one's last action: what may be taken back and what stays, the state after it
//! (the view, the legal actions, every past seq, a verified export), and the clock put back.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use crate::correspondence::{app_with_clock, summary, DAY_MS, START_MS};
use crate::util::{Backend, Player, TestApp};
use crate::{on_both_backends, with_each_backend};

/// What every refused take-back answers with, besides a stale seq.
const REFUSALS: &[&str] = &[
    "nothing_to_take_back",
    "other_seat_acted",
    "outcome_revealed",
    "others_affected",
    "turn_over",
    "take_back_limit",
];

async fn view_at(app: &TestApp, player: &Player, id: &str, seq: i64) -> Value {
    app.get(player, &format!("/v1/games/{id}/view?at={seq}"))
        .await
        .expect_status(200)
        .json()
}

async fn legal(app: &TestApp, player: &Player, id: &str) -> Value {
    app.get(player, &format!("/v1/games/{id}/legal-actions"))
        .await
        .expect_status(200)
        .json()
}

async fn act(app: &TestApp, player: &Player, id: &str, seq: &Value, action: &Value) -> Value {
    app.post(
        player,
        &format!("/v1/games/{id}/actions"),
        &json!({"expected_seq": seq, "action": action}),
    )
    .await
    .expect_status(200)
    .json()
}

/// Places the hex in hand (the first place the legal actions offer: it reveals nothing) for
/// `player`, who must act; the action and the new seq.
async fn place_tile(app: &TestApp, player: &Player, id: &str) -> (Value, i64) {
    let before = legal(app, player, id).await;
    let place = before["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|action| action["type"] == "place_tile")
        .cloned()
        .expect("the turn starts by placing the hex in hand");
    let seq = act(app, player, id, &before["seq"], &place).await["seq"]
        .as_i64()
        .unwrap();
    (place, seq)
}

async fn take_back(app: &TestApp, player: &Player, id: &str, seq: i64) -> crate::util::Response {
    app.post(
        player,
        &format!("/v1/games/{id}/take-back"),
        &json!({"expected_seq": seq}),
    )
    .await
}

async fn export(app: &TestApp, player: &Player, id: &str) -> Value {
    app.get(player, &format!("/v1/games/{id}/export"))
        .await
        .expect_status(200)
        .json()
}

/// Random play of each kind with a take-back tried after every action: a take-back that is
/// accepted leaves the game exactly as before the action (the view now and at every seq in
/// between, the legal actions); one that is refused says why and writes nothing. The game
/// then ends by a resignation, and its export, take-backs and all, verifies from the seed.
async fn random_play_with_take_backs_folds_the_same_everywhere(app: &TestApp) {
    for (kind, seats) in [("tikal", 2), ("java", 2), ("eternal_palace", 3)] {
        let mut players = Vec::new();
        for seat in 0..seats {
            players.push(app.register(&format!("tb-{kind}-{seat}")).await);
        }
        let id = app.new_game(kind, json!({}), &players).await;
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut taken_back = 0;
        let mut refused = 0;
        for _ in 0..50 {
            let game = summary(app, &players[0], &id).await;
            let Some(seat) = game["to_act"][0].as_u64() else {
                break;
            };
            let player = &players[seat as usize];
            let before = legal(app, player, &id).await;
            let actions = before["actions"].as_array().unwrap();
            let action = &actions[rng.gen_range(0..actions.len())];
            let view_before = view_at(app, player, &id, before["seq"].as_i64().unwrap()).await;
            let accepted = act(app, player, &id, &before["seq"], action).await;
            let seq = accepted["seq"].as_i64().unwrap();
            if !rng.gen_bool(0.6) {
                continue;
            }
            let answer = take_back(app, player, &id, seq).await;
            if answer.status == 409 {
                let problem = answer.json();
                let code = problem["code"].as_str().unwrap().to_owned();
                assert!(REFUSALS.contains(&code.as_str()), "{problem}");
                assert_eq!(summary(app, &players[0], &id).await["current_seq"], seq);
                refused += 1;
                continue;
            }
            let answer = answer.expect_status(200).json();
            taken_back += 1;
            let events = answer["events"].as_array().unwrap();
            assert_eq!(events[0]["type"], "actions_taken_back");
            assert_eq!(events[0]["payload"]["seat"], seat);
            assert_eq!(
                events[0]["payload"]["from_seq"],
                before["seq"].as_i64().unwrap() + 1
            );
            assert_eq!(events[0]["payload"]["to_seq"], seq);
            let now = answer["seq"].as_i64().unwrap();
            assert_eq!(answer["view"]["view"], view_before["view"]);
            assert_eq!(answer["view"]["to_act"], view_before["to_act"]);
            // The cached fold, a past seq's fold and a fold from scratch agree.
            assert_eq!(
                view_at(app, player, &id, now).await["view"],
                view_before["view"]
            );
            let again = legal(app, player, &id).await;
            assert_eq!(again["actions"], before["actions"]);
            assert_eq!(again["seq"], now);
            // Play on with the same action: the log goes on from the state before it.
            act(app, player, &id, &again["seq"], action).await;
        }
        assert!(taken_back > 0, "{kind}: no take-back was accepted");
        assert!(refused > 0, "{kind}: no take-back was refused");
        // A spectator's log and the events page describe the whole log without error.
        let page = app
            .get(&players[1], &format!("/v1/games/{id}/events"))
            .await
            .expect_status(200)
            .json();
        let events = page["events"].as_array().unwrap();
        assert_eq!(
            events
                .iter()
                .filter(|event| event["type"] == "actions_taken_back")
                .count(),
            taken_back
        );
        // Every past seq folds (from the cache or from scratch) without error.
        let current = page["current_seq"].as_i64().unwrap();
        for seq in (1..=current).step_by(7) {
            view_at(app, &players[0], &id, seq).await;
            app.get(&players[0], &format!("/v1/games/{id}/board.svg?at={seq}"))
                .await
                .expect_status(200);
        }
        for player in &players[..players.len() - 1] {
            app.post(player, &format!("/v1/games/{id}/resign"), &json!({}))
                .await
                .expect_status(200);
        }
        let exported = export(app, &players[0], &id).await;
        let record = turnpost::games::replay::GameRecord::from_json(&exported.to_string())
            .expect("an export reads");
        record
            .verify()
            .unwrap_or_else(|error| panic!("{kind}: {error}"));
        // A forged take-back does not verify: another range, or another seat's.
        let index = record
            .events
            .iter()
            .position(|event| event.payload["type"] == "actions_taken_back")
            .unwrap();
        let taken = record.events[index].payload.clone();
        for (field, forged) in [
            ("from_seq", json!(taken["from_seq"].as_i64().unwrap() - 1)),
            ("seat", json!((taken["seat"].as_u64().unwrap() + 1) % seats)),
        ] {
            let mut forgery = record.clone();
            forgery.events[index].payload[field] = forged;
            forgery.events[index].text = None;
            let error = forgery.verify().expect_err("a forged take-back");
            assert!(
                matches!(
                    error,
                    turnpost::games::replay::Divergence::TakeBackRefused { .. }
                ),
                "{kind}, {field}: {error}"
            );
        }
        assert_eq!(
            record.fold().unwrap().state_json(),
            {
                // The fold of the export equals the fold of the log with the taken-back
                // ranges cut out (the engine's own events only).
                let mut cut = record.clone();
                let ranges: Vec<(i64, i64)> = record
                    .events
                    .iter()
                    .filter(|event| event.payload["type"] == "actions_taken_back")
                    .map(|event| {
                        (
                            event.payload["from_seq"].as_i64().unwrap(),
                            event.payload["to_seq"].as_i64().unwrap(),
                        )
                    })
                    .collect();
                cut.events.retain(|event| {
                    !ranges
                        .iter()
                        .any(|(from, to)| (*from..=*to).contains(&event.seq))
                        && event.payload["type"] != "actions_taken_back"
                });
                cut.fold().unwrap().state_json()
            },
            "{kind}"
        );
    }
}

/// The refusals, each with its code and nothing written.
async fn what_stays_is_refused_with_a_reason(app: &TestApp) {
    let red = app.register("tb-red").await;
    let blue = app.register("tb-blue").await;
    let watcher = app.register("tb-watcher").await;
    let players = [red.clone(), blue.clone()];
    let id = app.new_game("tikal", json!({}), &players).await;
    let start = summary(app, &red, &id).await;
    let seq = start["current_seq"].as_i64().unwrap();
    let first = start["to_act"][0].as_u64().unwrap() as usize;
    let (mover, other) = (&players[first], &players[1 - first]);
    take_back(app, mover, &id, seq)
        .await
        .expect_problem(409, "nothing_to_take_back");
    take_back(app, &watcher, &id, seq)
        .await
        .expect_problem(403, "not_a_player");
    // Place the drawn tile (it reveals nothing), then take it back, twice over.
    let (place, placed) = place_tile(app, mover, &id).await;
    take_back(app, mover, &id, placed - 1)
        .await
        .expect_problem(409, "stale_seq");
    take_back(app, other, &id, placed)
        .await
        .expect_problem(409, "nothing_to_take_back");
    let back = take_back(app, mover, &id, placed)
        .await
        .expect_status(200)
        .json();
    let back_seq = back["seq"].as_i64().unwrap();
    // The same take-back sent again finds the game moved on.
    take_back(app, mover, &id, placed)
        .await
        .expect_problem(409, "stale_seq");
    take_back(app, mover, &id, back_seq)
        .await
        .expect_problem(409, "nothing_to_take_back");
    // Ending the turn draws the next tile: that action stays.
    let again = legal(app, mover, &id).await;
    let mut seq = act(app, mover, &id, &again["seq"], &place).await["seq"].clone();
    let end_turn = json!({"type": "end_turn"});
    seq = act(app, mover, &id, &seq, &end_turn).await["seq"].clone();
    let problem = take_back(app, mover, &id, seq.as_i64().unwrap())
        .await
        .expect_problem(409, "outcome_revealed");
    assert!(problem["detail"].as_str().unwrap().contains("revealed"));
    assert_eq!(summary(app, &red, &id).await["current_seq"], seq);
}

async fn ask(app: &TestApp, player: &Player, path: &str) -> Value {
    app.get(player, path).await.expect_status(200).json()
}

/// `GET /v1/games/{id}/take-back` says whether a take-back would succeed, and why not,
/// without writing anything.
async fn availability_is_told_without_writing(app: &TestApp) {
    let red = app.register("tb-ask-red").await;
    let blue = app.register("tb-ask-blue").await;
    let carol = app.register("tb-ask-carol").await;
    let players = [red, blue];
    let id = app.new_game("tikal", json!({}), &players).await;
    let first = summary(app, &players[0], &id).await["to_act"][0]
        .as_u64()
        .unwrap() as usize;
    let mover = &players[first];
    let path = format!("/v1/games/{id}/take-back");
    let at_start = ask(app, mover, &path).await;
    assert_eq!(at_start["possible"], false);
    assert_eq!(at_start["code"], "nothing_to_take_back", "{at_start}");
    let (_, seq) = place_tile(app, mover, &id).await;
    assert_eq!(ask(app, mover, &path).await, json!({"possible": true}));
    let other = ask(app, &players[1 - first], &path).await;
    assert_eq!(other["possible"], false, "{other}");
    let watching = ask(app, &carol, &path).await;
    assert_eq!(watching["code"], "not_a_player", "{watching}");
    assert_eq!(
        summary(app, mover, &id).await["current_seq"],
        seq,
        "nothing written"
    );
    take_back(app, mover, &id, seq).await.expect_status(200);
    assert_eq!(ask(app, mover, &path).await["possible"], false);
    app.get(mover, "/v1/games/nosuchgame/take-back")
        .await
        .expect_problem(404, "game_not_found");
}

/// An act and take-back loop is bounded per turn.
async fn a_turn_allows_twenty_take_backs(app: &TestApp) {
    let red = app.register("tb-loop-red").await;
    let blue = app.register("tb-loop-blue").await;
    let players = [red, blue];
    let id = app.new_game("tikal", json!({}), &players).await;
    let first = summary(app, &players[0], &id).await["to_act"][0]
        .as_u64()
        .unwrap() as usize;
    let mover = &players[first];
    for round in 0..=20 {
        let (_, seq) = place_tile(app, mover, &id).await;
        let answer = take_back(app, mover, &id, seq).await;
        if round < 20 {
            answer.expect_status(200);
        } else {
            answer.expect_problem(409, "take_back_limit");
        }
    }
}

/// Random play of Java and Eternal Palace until an action reaches another seat (water
/// scored for it, goods given to or taken from it, a river market card paid out): the
/// availability says `others_affected`, the take-back is refused with it and writes
/// nothing, and the export verifies. Actions that did not reach another seat are still
/// taken back.
async fn what_reaches_another_seat_stays(app: &TestApp) {
    for (kind, seats, options) in [
        ("eternal_palace", 3, json!({"river_market": true})),
        ("java", 2, json!({})),
    ] {
        let mut reached = false;
        for game in 0..8 {
            if play_until_an_action_reaches_another_seat(app, kind, seats, &options, game).await {
                reached = true;
                break;
            }
        }
        assert!(reached, "{kind}: no action reached another seat in 8 games");
    }
}

/// One game of random play until an action reaches another seat; whether one did. The
/// game ends by resignations and its export verifies either way.
async fn play_until_an_action_reaches_another_seat(
    app: &TestApp,
    kind: &str,
    seats: u8,
    options: &Value,
    game: u64,
) -> bool {
    let mut players = Vec::new();
    for seat in 0..seats {
        players.push(
            app.register(&format!("tb-reach-{kind}-{game}-{seat}"))
                .await,
        );
    }
    let id = app.new_game(kind, options.clone(), &players).await;
    let path = format!("/v1/games/{id}/take-back");
    let mut rng = ChaCha8Rng::seed_from_u64(11 + game);
    let mut reached = false;
    let mut taken_back = 0;
    for _ in 0..1500 {
        let Some(seat) = summary(app, &players[0], &id).await["to_act"][0].as_u64() else {
            break;
        };
        let player = &players[seat as usize];
        let before = legal(app, player, &id).await;
        let actions = before["actions"].as_array().unwrap();
        // Tiles and irrigation enclose water: half the picks favour them.
        let placing: Vec<&Value> = actions
            .iter()
            .filter(|action| {
                ["place_tile", "place_irrigation"].contains(&action["type"].as_str().unwrap_or(""))
            })
            .collect();
        let action = if !placing.is_empty() && rng.gen_bool(0.5) {
            placing[rng.gen_range(0..placing.len())]
        } else {
            &actions[rng.gen_range(0..actions.len())]
        };
        let seq = act(app, player, &id, &before["seq"], action).await["seq"].clone();
        let available = ask(app, player, &path).await;
        if available["code"] == "others_affected" {
            let problem = take_back(app, player, &id, seq.as_i64().unwrap())
                .await
                .expect_problem(409, "others_affected");
            assert!(
                problem["detail"].as_str().unwrap().contains("another seat"),
                "{problem}"
            );
            assert_eq!(summary(app, player, &id).await["current_seq"], seq);
            reached = true;
            break;
        }
        if available["possible"] == true && taken_back < 3 {
            take_back(app, player, &id, seq.as_i64().unwrap())
                .await
                .expect_status(200);
            taken_back += 1;
            let again = legal(app, player, &id).await;
            act(app, player, &id, &again["seq"], action).await;
        }
    }
    if summary(app, &players[0], &id).await["status"] == "running" {
        for player in &players[..players.len() - 1] {
            app.post(player, &format!("/v1/games/{id}/resign"), &json!({}))
                .await
                .expect_status(200);
        }
    }
    let exported = export(app, &players[0], &id).await;
    turnpost::games::replay::GameRecord::from_json(&exported.to_string())
        .expect("an export reads")
        .verify()
        .unwrap_or_else(|error| panic!("{kind}: {error}"));
    reached
}

/// Red and Blue (named after `prefix`) in a Tikal game of two days per move.
async fn two_day_tikal(app: &TestApp, prefix: &str) -> ([Player; 2], String) {
    let players = [
        app.register(&format!("{prefix}-red")).await,
        app.register(&format!("{prefix}-blue")).await,
    ];
    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 2}}),
            &players,
        )
        .await;
    (players, id)
}

/// Clock version 1 (days per move restarted by every action): an action restarts the
/// mover's days, its take-back puts the deadline it had before back (so act and take back
/// never earns time); once that deadline has passed, the action stays.
async fn a_take_back_puts_a_version_1_clock_back(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let (players, id) = two_day_tikal(&app, "tb-clock").await;
    let red = players[0].clone();
    crate::clocks::pin_to_clock_version_1(&app, &id);
    let start = summary(&app, &red, &id).await;
    let first = start["to_act"][0].as_u64().unwrap() as usize;
    let mover = &players[first];
    let deadline_of = |game: &Value| {
        game["seats"][first]["deadline"]
            .as_str()
            .map(str::to_owned)
            .expect("a running clock")
    };
    let original = deadline_of(&start);
    assert_eq!(
        original,
        crate::correspondence::rfc3339(START_MS + 2 * DAY_MS)
    );
    clock.advance(DAY_MS);
    let (place, seq) = place_tile(&app, mover, &id).await;
    assert_eq!(
        deadline_of(&summary(&app, &red, &id).await),
        crate::correspondence::rfc3339(START_MS + 3 * DAY_MS),
        "the action restarted the mover's days"
    );
    clock.advance(3_600_000);
    let back = take_back(&app, mover, &id, seq)
        .await
        .expect_status(200)
        .json();
    let events = back["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1]["type"], "clock_started");
    assert_eq!(events[1]["payload"]["deadline_ms"], START_MS + 2 * DAY_MS);
    assert_eq!(
        events[1]["payload"]["time_left_ms"],
        DAY_MS - 3_600_000,
        "what was left of the days before the action"
    );
    assert_eq!(deadline_of(&summary(&app, &red, &id).await), original);
    // Act again, let the deadline before the action pass: that action stays.
    let again = legal(&app, mover, &id).await;
    let seq = act(&app, mover, &id, &again["seq"], &place).await["seq"]
        .as_i64()
        .unwrap();
    clock.advance(DAY_MS);
    take_back(&app, mover, &id, seq)
        .await
        .expect_problem(409, "deadline_passed");
}

on_both_backends!(
    random_play_with_take_backs_folds_the_same_everywhere,
    what_stays_is_refused_with_a_reason,
    a_turn_allows_twenty_take_backs,
    availability_is_told_without_writing,
    what_reaches_another_seat_stays,
);

/// Clocks that count turns: an action inside a turn leaves the mover's deadline, and so
/// does its take-back, which writes no clock event (a take-back never crosses a turn's end).
async fn a_take_back_inside_a_turn_leaves_the_clock(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let (players, id) = two_day_tikal(&app, "tb-turn").await;
    let red = players[0].clone();
    let start = summary(&app, &red, &id).await;
    assert_eq!(start["clock_version"], 2);
    let first = start["to_act"][0].as_u64().unwrap() as usize;
    let mover = &players[first];
    let deadline = crate::correspondence::rfc3339(START_MS + 2 * DAY_MS);
    assert_eq!(start["seats"][first]["deadline"], deadline.as_str());
    clock.advance(DAY_MS);
    let (_, seq) = place_tile(&app, mover, &id).await;
    let after = summary(&app, &red, &id).await;
    assert_eq!(after["to_act"], json!([first]), "the turn goes on");
    assert_eq!(
        after["seats"][first]["deadline"],
        deadline.as_str(),
        "an action inside the turn leaves the days"
    );
    clock.advance(3_600_000);
    let back = take_back(&app, mover, &id, seq)
        .await
        .expect_status(200)
        .json();
    let events = back["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "the take-back alone: {events:?}");
    assert_eq!(
        summary(&app, &red, &id).await["seats"][first]["deadline"],
        deadline.as_str()
    );
}

mod clocks {
    use super::*;
    with_each_backend!(
        a_take_back_puts_a_version_1_clock_back,
        a_take_back_inside_a_turn_leaves_the_clock
    );
}
