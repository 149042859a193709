//! Provably fair histories: the seed commitment is public from the first move, and a
//! finished game's export verifies offline with `turnpost verify`, which catches every
//! tampering at its seq.

use std::process::Command;

use serde_json::{json, Value};

use crate::driver::{uniform, GameDriver};
use crate::util::{Backend, TestApp};

/// Runs `turnpost verify` with `args`; returns its exit code and what it printed.
fn run_verify(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .arg("verify")
        .args(args)
        .output()
        .expect("turnpost verify runs");
    let printed = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), printed)
}

/// Runs `turnpost verify` on `export`; returns whether it verified and what it printed.
fn verify(export: &Value) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.json");
    std::fs::write(&path, export.to_string()).unwrap();
    let (code, printed) = run_verify(&[path.as_os_str()]);
    match code {
        Some(0) => (true, printed),
        Some(1) => {
            assert!(printed.starts_with("NOT VERIFIED: "), "{printed}");
            (false, printed)
        }
        _ => panic!("turnpost verify exited with {code:?}: {printed}"),
    }
}

/// A file that cannot be read is not a tampered export: its own message and exit code 3,
/// and no "NOT VERIFIED". A file that is read but is no export does not verify (exit 1).
#[test]
fn verify_tells_a_file_it_cannot_read_from_one_that_does_not_verify() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-export.json");
    let (code, printed) = run_verify(&[missing.as_os_str()]);
    assert_eq!(code, Some(3), "{printed}");
    assert!(
        printed.starts_with(&format!("cannot read file {}: ", missing.display())),
        "{printed}"
    );
    assert!(!printed.contains("NOT VERIFIED"), "{printed}");

    // A directory cannot be read as a file either.
    let (code, printed) = run_verify(&[dir.path().as_os_str()]);
    assert_eq!(code, Some(3), "{printed}");
    assert!(printed.starts_with("cannot read file "), "{printed}");

    for (name, content) in [
        ("not-json.json", b"not json".as_slice()),
        ("not-utf8.json", b"{\"kind\": \"\xff\"}".as_slice()),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        let (code, printed) = run_verify(&[path.as_os_str()]);
        assert_eq!(code, Some(1), "{name}: {printed}");
        assert!(printed.starts_with("NOT VERIFIED: "), "{name}: {printed}");
    }

    // No file named: clap's usage error.
    let (code, printed) = run_verify(&[]);
    assert_eq!(code, Some(2), "{printed}");
    // The help documents the exit codes.
    let (code, printed) = run_verify(&["--help".as_ref()]);
    assert_eq!(code, Some(0), "{printed}");
    for documented in ["0 verified", "1 NOT VERIFIED", "3 cannot read file"] {
        assert!(printed.contains(documented), "{documented}: {printed}");
    }
}

#[track_caller]
fn assert_caught_at(export: &Value, seq: i64) {
    let (verified, printed) = verify(export);
    assert!(!verified, "tampering went unnoticed: {printed}");
    assert!(
        printed.contains(&format!("first differing seq: {seq}\n")),
        "expected seq {seq}: {printed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_verifies_offline_and_every_tampering_is_caught() {
    let app = TestApp::start(Backend::Sqlite).await;
    let players = [app.register("red").await, app.register("blue").await];
    let spectator = app.register("watcher").await;
    let id = app.new_game("tikal", json!({}), &players).await;

    // The commitment is public from the first move, in the summary and the set-up event.
    let summary = app.get(&spectator, &format!("/v1/games/{id}")).await.json();
    let committed = summary["seed_commitment"].as_str().unwrap().to_owned();
    assert_eq!(committed.len(), 64);
    let events = app
        .get(&spectator, &format!("/v1/games/{id}/events"))
        .await
        .json();
    assert_eq!(events["events"][0]["type"], "game_set_up");
    assert_eq!(events["events"][0]["payload"]["seed_commitment"], committed);
    assert!(summary.to_string().find("\"seed\"").is_none());

    let mut driver = GameDriver::new(&app, &players, &spectator);
    let finished = driver.play(&id, 11, uniform, 25, 5_000).await;
    let export = finished.export;
    assert_eq!(export["seed_commitment"], committed);
    let seed = turnpost::games::decode_seed(export["seed"].as_str().unwrap()).unwrap();
    assert_eq!(turnpost::games::seed_commitment(&seed), committed);

    let (verified, printed) = verify(&export);
    assert!(verified, "{printed}");
    assert!(printed.contains(&committed), "{printed}");

    let mut changed_seed = export.clone();
    let mut seed = seed;
    seed[0] ^= 1;
    changed_seed["seed"] = json!(turnpost::games::encode_seed(&seed));
    assert_caught_at(&changed_seed, 1);

    let mut changed_commitment = export.clone();
    changed_commitment["seed_commitment"] = json!(turnpost::games::seed_commitment(&seed));
    assert_caught_at(&changed_commitment, 1);

    let actions = export["actions"].as_array().unwrap();
    let middle = actions.len() / 2;
    let replacement = actions[middle + 1..]
        .iter()
        .find(|action| action["action"] != actions[middle]["action"])
        .unwrap()["action"]
        .clone();
    let mut changed_action = export.clone();
    changed_action["actions"][middle]["action"] = replacement;
    let (verified, printed) = verify(&changed_action);
    assert!(!verified, "a changed action went unnoticed");
    let first = actions[middle]["first_seq"].as_i64().unwrap();
    let last = actions[middle]["last_seq"].as_i64().unwrap();
    let reported: i64 = printed
        .split("first differing seq: ")
        .nth(1)
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or_else(|| panic!("no seq in {printed}"));
    assert!(
        (first..=last).contains(&reported),
        "{first}..{last}: {printed}"
    );

    let event_count = export["events"].as_array().unwrap().len();
    let mut changed_event = export.clone();
    changed_event["events"][event_count / 2]["payload"]["seat"] = json!(3);
    assert_caught_at(&changed_event, event_count as i64 / 2 + 1);

    // The texts are written from the payloads whenever the log is read: a changed one is
    // caught at its seq, with the text expected and the one found.
    let at = event_count / 3;
    let original = export["events"][at]["text"].as_str().unwrap().to_owned();
    let mut changed_text = export.clone();
    changed_text["events"][at]["text"] = json!("Blue wins at once");
    assert_caught_at(&changed_text, at as i64 + 1);
    let (_, printed) = verify(&changed_text);
    assert!(
        printed.contains(&format!(
            "the event's text differs: expected {original:?}, found \"Blue wins at once\""
        )),
        "{printed}"
    );
    let acted = export["events"]
        .as_array()
        .unwrap()
        .iter()
        .position(|event| event["seat"].is_u64())
        .unwrap();
    let mut changed_seat = export.clone();
    changed_seat["events"][acted]["seat"] = json!(null);
    assert_caught_at(&changed_seat, acted as i64 + 1);
    let mut changed_type = export.clone();
    changed_type["events"][at]["type"] = json!("game_finished");
    assert_caught_at(&changed_type, at as i64 + 1);

    let mut truncated = export.clone();
    truncated["events"]
        .as_array_mut()
        .unwrap()
        .truncate(event_count - 5);
    assert_caught_at(&truncated, event_count as i64 - 4);

    let mut changed_outcome = export.clone();
    changed_outcome["outcome"]["scores"][0] = json!(999);
    let (verified, printed) = verify(&changed_outcome);
    assert!(!verified && printed.contains("outcome"), "{printed}");

    // The transcript: one numbered line per event, the seats named, the result, the seed.
    let transcript = app
        .get(&spectator, &format!("/v1/games/{id}/transcript"))
        .await;
    assert_eq!(transcript.status, 200);
    assert!(transcript.content_type.starts_with("text/plain"));
    let text = &transcript.text;
    assert!(
        text.starts_with(&format!(
            "Tikal, game {id}, rules version 2, 2 seats\nRed: red\nBlue: blue\n"
        )),
        "{text}"
    );
    for event in export["events"].as_array().unwrap() {
        let line = format!("\n{}. {}\n", event["seq"], event["text"].as_str().unwrap());
        assert!(text.contains(&line), "missing {line:?}");
    }
    assert!(text.contains("\nResult: Red red "), "{text}");
    assert!(text.contains(export["seed"].as_str().unwrap()));
    assert!(text.contains(&committed));

    // A running game's export is one viewer's part: refused, not "verified".
    let running = app.new_game("java", json!({}), &players).await;
    let partial = app
        .get(&players[0], &format!("/v1/games/{running}/export"))
        .await
        .json();
    let (verified, printed) = verify(&partial);
    assert!(!verified && printed.contains("running game"), "{printed}");
    // Its transcript is redacted exactly like the caller's event log.
    for (viewer, other) in [(&players[0], &players[1]), (&players[1], &players[0])] {
        let log = app
            .get(viewer, &format!("/v1/games/{running}/events"))
            .await
            .json();
        let text = app
            .get(viewer, &format!("/v1/games/{running}/transcript"))
            .await
            .text;
        let other_log = app
            .get(other, &format!("/v1/games/{running}/events"))
            .await
            .json();
        for (mine, theirs) in log["events"]
            .as_array()
            .unwrap()
            .iter()
            .zip(other_log["events"].as_array().unwrap())
        {
            let line = format!("\n{}. {}\n", mine["seq"], mine["text"].as_str().unwrap());
            assert!(text.contains(&line), "missing {line:?}");
            if mine["text"] != theirs["text"] {
                let hidden = format!(
                    "\n{}. {}\n",
                    theirs["seq"],
                    theirs["text"].as_str().unwrap()
                );
                assert!(!text.contains(&hidden), "another seat's line {hidden:?}");
            }
        }
        assert!(text.contains(&format!("Running, at seq {}.", log["current_seq"])));
        assert!(!text.contains("Seed: "));
    }
}

/// A player's page counts games per kind, and their finished games stream as NDJSON
/// exports that each verify, filtered by kind, time and result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn player_pages_and_bulk_exports() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.bulk_exports_per_hour_per_account = 12;
    })
    .await;
    let players = [app.register("alice").await, app.register("bob").await];
    let spectator = app.register("watcher").await;
    let mut finished = Vec::new();
    for seed in [3, 4] {
        let id = app.new_game("tikal", json!({}), &players).await;
        let mut driver = GameDriver::new(&app, &players, &spectator);
        finished.push(driver.play(&id, seed, uniform, 25, 5_000).await);
    }
    // Both games finished before this moment (a millisecond later than now, so that one
    // finishing in this very millisecond is still before it).
    let between = turnpost::service::format_time(turnpost::service::now_millis() + 1);
    let running = app.new_game("java", json!({}), &players).await;
    app.post(
        &players[0],
        "/v1/games",
        &json!({"kind": "java", "seats": 3}),
    )
    .await
    .expect_status(201);

    let alice_won = finished
        .iter()
        .filter(|game| game.summary["outcome"]["places"][0] == 1)
        .count() as u64;
    let page = app.get(&spectator, "/v1/accounts/ALICE").await.json();
    assert_eq!(page["name"], "alice");
    assert_eq!(page["finished_games"], "/v1/exports?player=alice");
    assert_eq!(
        page["kinds"],
        json!([
            {"kind": "java", "finished": 0, "won": 0, "running": 1, "open": 1, "abandoned": 0},
            {"kind": "tikal", "finished": 2, "won": alice_won, "running": 0, "open": 0, "abandoned": 0},
        ])
    );
    for missing in ["nobody", "bad%00name"] {
        app.get(&spectator, &format!("/v1/accounts/{missing}"))
            .await
            .expect_problem(404, "account_not_found");
    }

    let lines = |response: crate::util::Response| -> Vec<Value> {
        assert_eq!(response.status, 200, "{}", response.text);
        assert_eq!(response.content_type, "application/x-ndjson");
        response
            .text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    };
    let all = lines(app.get(&spectator, "/v1/exports?player=alice").await);
    assert_eq!(all.len(), 2);
    for (export, game) in all.iter().zip(&finished) {
        assert_eq!(
            export, &game.export,
            "the same document as the single export"
        );
        let record = turnpost::games::replay::GameRecord::from_json(&export.to_string()).unwrap();
        record.verify().unwrap();
    }
    assert!(all
        .iter()
        .all(|export| export["game_id"] != running.as_str()));
    let won = lines(
        app.get(&spectator, "/v1/exports?player=alice&result=won")
            .await,
    );
    let lost = lines(
        app.get(&spectator, "/v1/exports?player=alice&result=lost")
            .await,
    );
    assert_eq!(won.len() as u64, alice_won);
    assert_eq!(won.len() + lost.len(), 2);
    assert!(lines(
        app.get(&spectator, "/v1/exports?player=alice&kind=java")
            .await
    )
    .is_empty());
    assert_eq!(
        lines(app.get(&spectator, "/v1/exports?kind=tikal").await).len(),
        2
    );
    let since = format!(
        "/v1/exports?player=bob&since={}",
        between.replace(':', "%3A")
    );
    assert!(lines(app.get(&spectator, &since).await).is_empty());
    let until = format!("/v1/exports?until={}", between.replace(':', "%3A"));
    assert_eq!(lines(app.get(&spectator, &until).await).len(), 2);

    // A result without `player` is the caller's own: the spectator won and lost nothing.
    assert!(lines(app.get(&spectator, "/v1/exports?result=won").await).is_empty());
    app.get(&spectator, "/v1/exports?since=yesterday")
        .await
        .expect_problem(400, "invalid_query");
    app.get(&spectator, "/v1/exports?kind=chess")
        .await
        .expect_problem(422, "unknown_game_kind");
    app.get(&spectator, "/v1/exports?player=nobody")
        .await
        .expect_problem(404, "account_not_found");
    // 12 an hour: 9 were started above (the refused ones do not count).
    for _ in 0..3 {
        app.get(&spectator, "/v1/exports?kind=java")
            .await
            .expect_status(200);
    }
    app.get(&spectator, "/v1/exports?kind=java")
        .await
        .expect_problem(429, "rate_limited");
}
