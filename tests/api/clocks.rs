//! Clocks count turns. Two people play each kind at random under a time bank, a minute
//! between actions, and every seat's clock is checked after every action against what a
//! turn clock does: a seat that goes on acting in its turn keeps its deadline, its bank
//! gains the increment once, when its turn ends, and a seat whose turn another seat's
//! action ends gains nothing. Games pinned to clock version 1 keep counting actions.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use crate::correspondence::{app_with_clock, rfc3339, summary, START_MS};
use crate::util::{Backend, Player, TestApp};

const MINUTE_MS: i64 = 60_000;
const INITIAL_MS: i64 = 3_600_000;
const INCREMENT_MS: i64 = 600_000;
const MAXIMUM_MS: i64 = 5_184_000_000;

fn time_bank() -> Value {
    json!({"type": "time_bank", "initial_seconds": INITIAL_MS / 1000,
           "increment_seconds": INCREMENT_MS / 1000, "maximum_seconds": MAXIMUM_MS / 1000})
}

/// A seat's clock as the oracle expects it.
#[derive(Debug, Clone, Copy, Default)]
struct Expected {
    deadline: Option<i64>,
    bank: i64,
    /// Actions of the seat in its running turn.
    actions: u32,
}

fn acting(game: &Value) -> Vec<u64> {
    game["to_act"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat.as_u64().unwrap())
        .collect()
}

fn deadline_of(game: &Value, seat: u64) -> Value {
    game["seats"][seat as usize]["deadline"].clone()
}

/// What happened over one game: how often a seat acted and kept acting in the same turn,
/// and how many turns of two or more actions ended.
#[derive(Debug, Default)]
struct Seen {
    actions: u32,
    continued: u32,
    long_turns_ended: u32,
}

/// Plays `kind` at random for up to `most` actions, checking the clocks after each.
async fn play_and_check(app: &TestApp, clock: &turnpost::clock::Clock, kind: &str, seed: u64) {
    let alice = app.register(&format!("alice{seed}")).await;
    let bob = app.register(&format!("bob{seed}")).await;
    let id = app
        .new_game_with(
            json!({"kind": kind, "time_control": time_bank()}),
            &[alice.clone(), bob.clone()],
        )
        .await;
    let mut game = summary(app, &alice, &id).await;
    assert_eq!(game["clock_version"], 2, "a new game counts turns");
    let alice_seat = game["your_seat"].as_u64().unwrap();
    let players: BTreeMap<u64, Player> = [(alice_seat, alice), (1 - alice_seat, bob)].into();
    let mut expected: BTreeMap<u64, Expected> =
        (0..2u64).map(|seat| (seat, Expected::default())).collect();
    for seat in acting(&game) {
        expected.insert(
            seat,
            Expected {
                deadline: Some(clock.now_millis() + INITIAL_MS),
                bank: INITIAL_MS,
                actions: 0,
            },
        );
    }
    for seat in 0..2u64 {
        if !acting(&game).contains(&seat) {
            expected.get_mut(&seat).unwrap().bank = INITIAL_MS;
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = Seen::default();
    while game["status"] == "running" && seen.actions < 150 {
        let before = acting(&game);
        let seat = before[rng.gen_range(0..before.len())];
        clock.advance(MINUTE_MS);
        let now = clock.now_millis();
        let player = &players[&seat];
        let legal = app
            .get(player, &format!("/v1/games/{id}/legal-actions"))
            .await
            .expect_status(200)
            .json();
        let actions = legal["actions"].as_array().cloned().unwrap_or_default();
        assert!(!actions.is_empty(), "seat {seat} acts but has no action");
        // Turns of several actions are what this checks: end one only now and then.
        let ending = |action: &Value| {
            matches!(
                action["type"].as_str(),
                Some("end_turn") | Some("pass") | Some("place_dice")
            )
        };
        let going_on: Vec<&Value> = actions.iter().filter(|a| !ending(a)).collect();
        let action = if !going_on.is_empty() && rng.gen_bool(0.8) {
            going_on[rng.gen_range(0..going_on.len())]
        } else {
            &actions[rng.gen_range(0..actions.len())]
        };
        app.post(
            player,
            &format!("/v1/games/{id}/actions"),
            &json!({"expected_seq": legal["seq"], "action": action}),
        )
        .await
        .expect_status(200);
        seen.actions += 1;
        game = summary(app, player, &id).await;
        if game["status"] != "running" {
            break;
        }
        let after = acting(&game);
        for other in 0..2u64 {
            let was = before.contains(&other);
            let is = after.contains(&other);
            let mut clock_of = expected[&other];
            let context = format!("{kind}, seed {seed}, action {}, seat {other}", seen.actions);
            match (was, is) {
                (true, true) if other != seat => {
                    assert_eq!(
                        deadline_of(&game, other),
                        json!(rfc3339(clock_of.deadline.unwrap())),
                        "{context}: another seat's action leaves a running clock alone"
                    );
                }
                (true, true) => {
                    let deadline = clock_of.deadline.unwrap();
                    if deadline_of(&game, other) == json!(rfc3339(deadline)) {
                        // Its turn goes on.
                        clock_of.actions += 1;
                        seen.continued += 1;
                    } else {
                        // Its action ended a turn and the next one began at once: one
                        // increment, and the bank runs afresh.
                        let bank = (deadline - now + INCREMENT_MS).min(MAXIMUM_MS);
                        assert_eq!(
                            deadline_of(&game, other),
                            json!(rfc3339(now + bank)),
                            "{context}: a turn that ends and begins again"
                        );
                        clock_of = Expected {
                            deadline: Some(now + bank),
                            bank,
                            actions: 0,
                        };
                    }
                }
                (true, false) => {
                    let credit = if other == seat { INCREMENT_MS } else { 0 };
                    let bank = (clock_of.deadline.unwrap() - now + credit).min(MAXIMUM_MS);
                    assert_eq!(deadline_of(&game, other), Value::Null, "{context}");
                    assert_eq!(
                        game["seats"][other as usize]["time_bank_ms"],
                        json!(bank),
                        "{context}: the bank when the turn ends"
                    );
                    if other == seat && clock_of.actions + 1 >= 2 {
                        seen.long_turns_ended += 1;
                    }
                    clock_of = Expected {
                        deadline: None,
                        bank,
                        actions: 0,
                    };
                }
                (false, true) => {
                    assert_eq!(
                        deadline_of(&game, other),
                        json!(rfc3339(now + clock_of.bank)),
                        "{context}: a turn begins with the whole bank"
                    );
                    clock_of.deadline = Some(now + clock_of.bank);
                    clock_of.actions = 0;
                }
                (false, false) => {
                    assert_eq!(
                        game["seats"][other as usize]["time_bank_ms"],
                        json!(clock_of.bank),
                        "{context}: a stopped bank stays"
                    );
                }
            }
            expected.insert(other, clock_of);
        }
    }
    assert!(
        seen.continued >= 3 && seen.long_turns_ended >= 1,
        "{kind}: the game had too few turns of several actions to tell ({seen:?})"
    );
}

async fn turns_earn_one_increment_in_every_kind(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    for (seed, kind) in ["tikal", "java", "eternal_palace"].into_iter().enumerate() {
        play_and_check(&app, &clock, kind, seed as u64).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_clocks_on_sqlite() {
    turns_earn_one_increment_in_every_kind(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_clocks_on_postgres() {
    turns_earn_one_increment_in_every_kind(Backend::Postgres).await;
}

/// Pins game `id` to clock version 1, as the migration that brought version 2 left the
/// games that were running.
pub fn pin_to_clock_version_1(app: &TestApp, id: &str) {
    let db = turnpost::store::Db::open(app.database_url()).unwrap();
    db.write(|conn| {
        use diesel::RunQueryDsl;
        diesel::sql_query(format!(
            "UPDATE game_settings SET clock_version = 1 WHERE game_id = '{id}'"
        ))
        .execute(conn)
        .map_err(turnpost::store::StoreError::from)
    })
    .expect("the game's clock pinned to version 1");
}

/// A game from before clock version 2 keeps its clock: each action of a turn restarts it
/// with the increment, as when the game began.
async fn a_version_1_game_keeps_counting_actions(backend: Backend) {
    let (app, clock) = app_with_clock(backend).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 2}}),
            &[alice.clone(), bob.clone()],
        )
        .await;
    pin_to_clock_version_1(&app, &id);
    let game = summary(&app, &alice, &id).await;
    assert_eq!(game["clock_version"], 1);
    let seat = acting(&game)[0];
    let player = if game["your_seat"] == seat {
        &alice
    } else {
        &bob
    };
    // An action that does not end the turn, a day in: days per move start again.
    clock.advance(24 * 3600 * 1000);
    let legal = app
        .get(player, &format!("/v1/games/{id}/legal-actions"))
        .await
        .expect_status(200)
        .json();
    let action = legal["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|action| action["type"] != "end_turn")
        .cloned()
        .expect("an action that goes on");
    app.post(
        player,
        &format!("/v1/games/{id}/actions"),
        &json!({"expected_seq": legal["seq"], "action": action}),
    )
    .await
    .expect_status(200);
    let game = summary(&app, player, &id).await;
    assert_eq!(acting(&game), [seat], "the turn goes on");
    assert_eq!(
        deadline_of(&game, seat),
        json!(rfc3339(START_MS + 3 * 24 * 3600 * 1000)),
        "version 1 gave the action two fresh days"
    );
    let export = app
        .get(player, &format!("/v1/games/{id}/export"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(export["clock_version"], 1);
    assert_eq!(export["format_version"], 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_1_clocks_on_both_backends() {
    a_version_1_game_keeps_counting_actions(Backend::Sqlite).await;
    a_version_1_game_keeps_counting_actions(Backend::Postgres).await;
}
