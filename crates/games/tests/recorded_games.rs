//! Games recorded on the server before any rules fix (`tests/fixtures/v1-exports/`, made
//! with `scripts/record-fixture-game.py`) must keep their history and outcome forever: a
//! game is played to its end under the rules version it started with, whatever versions
//! came later. Each export is folded, and replayed from its seed and actions, under its
//! stored version by today's engines.

use std::path::PathBuf;

use turnpost_games::all_games;
use turnpost_games::replay::{GameRecord, RecordedLogEvent};
use turnpost_games::server_events::Standing;

fn recorded_games() -> Vec<(String, GameRecord)> {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1-exports");
    let mut games: Vec<(String, GameRecord)> = std::fs::read_dir(&folder)
        .expect("the fixture folder")
        .map(|entry| entry.expect("a fixture").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable fixture");
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let record =
                GameRecord::from_json(&text).unwrap_or_else(|error| panic!("{name}: {error}"));
            (name, record)
        })
        .collect();
    games.sort_by(|a, b| a.0.cmp(&b.0));
    games
}

#[test]
fn every_kind_has_recorded_games_from_rules_version_1() {
    let games = recorded_games();
    for rules in all_games() {
        let count = games
            .iter()
            .filter(|(_, record)| record.kind == rules.kind())
            .count();
        assert!(count >= 2, "{}: only {count} recorded games", rules.kind());
    }
    for (name, record) in &games {
        assert_eq!(record.rules_version, 1, "{name}");
        assert!(record.outcome.is_some(), "{name} is a finished game");
    }
}

#[test]
fn recorded_games_fold_to_their_recorded_outcome() {
    for (name, record) in recorded_games() {
        let table = record
            .fold()
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let standing = table
            .outcome()
            .map(|outcome| Standing::after_play(&outcome, &[]));
        assert_eq!(standing, record.outcome, "{name}");
        assert!(
            table.to_act().is_empty(),
            "{name}: nobody acts after the end"
        );
    }
}

#[test]
fn recorded_games_replay_event_for_event_from_seed_and_actions() {
    for (name, record) in recorded_games() {
        let outcome = record
            .replay()
            .unwrap_or_else(|divergence| panic!("{name}: {divergence}"));
        assert!(
            outcome.is_some(),
            "{name}: a recorded game ended by its rules"
        );
        assert_eq!(outcome, record.outcome, "{name}");
    }
}

#[test]
fn a_tampered_record_is_caught_at_its_seq() {
    let (name, mut record) = recorded_games()
        .into_iter()
        .find(|(_, record)| record.kind == "java")
        .expect("a Java game");
    let actions = record.actions.as_mut().expect("actions");
    let middle = actions.len() / 2;
    let seq = actions[middle].first_seq;
    let other = actions
        .iter()
        .skip(middle + 1)
        .find(|action| action.action != actions[middle].action)
        .map(|action| action.action.clone())
        .expect("another action");
    actions[middle].action = other;
    match record.replay() {
        Err(divergence) => {
            let text = divergence.to_string();
            assert!(text.contains(&seq.to_string()), "{name}: {text}");
        }
        Ok(_) => panic!("{name}: a changed action replayed unnoticed"),
    }
}

#[test]
fn recorded_games_verify_with_every_text_written_again() {
    for (name, record) in recorded_games() {
        let verified = record
            .verify()
            .unwrap_or_else(|divergence| panic!("{name}: {divergence}"));
        assert_eq!(verified.events, record.events.len(), "{name}");
    }
    let (_, tikal) = recorded_games()
        .into_iter()
        .find(|(name, _)| name == "tikal-2p.json")
        .expect("the Tikal game");
    let turn = tikal
        .events
        .iter()
        .find(|event| event.event_type.as_deref() == Some("turn_started"))
        .and_then(|event| event.text.as_deref())
        .expect("a turn");
    assert_eq!(turn, "Red begins a normal turn with 10 AP");
}

/// What an export shows beside each payload (the seq, type, seat and text the server
/// writes) is checked too: a change is caught at its seq, naming what was expected and what
/// was found.
#[test]
fn a_changed_text_seat_type_or_seq_is_caught_at_its_seq() {
    let (name, record) = recorded_games()
        .into_iter()
        .find(|(name, _)| name == "tikal-2p.json")
        .expect("the Tikal game");
    let index = record
        .events
        .iter()
        .position(|event| event.event_type.as_deref() == Some("piece_moved"))
        .expect("a move");
    let seq = record.events[index].seq;
    let original = record.events[index].text.clone().expect("a text");
    let tampered = |change: &dyn Fn(&mut RecordedLogEvent)| {
        let mut record = record.clone();
        change(&mut record.events[index]);
        record.verify().expect_err("the change went unnoticed")
    };

    let caught = tampered(&|event| event.text = Some("Red wins the game".to_owned()));
    assert_eq!(caught.first_seq(), Some(seq), "{name}: {caught}");
    let report = caught.to_string();
    assert!(report.contains("text"), "{report}");
    assert!(
        report.contains(&format!("expected {original:?}")),
        "{report}"
    );
    assert!(report.contains("found \"Red wins the game\""), "{report}");

    let caught = tampered(&|event| event.seat = Some(None));
    assert_eq!(caught.first_seq(), Some(seq), "{caught}");
    assert!(caught.to_string().contains("seat"), "{caught}");

    let caught = tampered(&|event| event.event_type = Some("temple_uncovered".to_owned()));
    assert_eq!(caught.first_seq(), Some(seq), "{caught}");
    assert!(caught.to_string().contains("type"), "{caught}");

    let caught = tampered(&|event| event.seq += 100);
    assert_eq!(caught.first_seq(), Some(seq), "{caught}");
    assert!(caught.to_string().contains("seq"), "{caught}");

    // A record that leaves the shown fields out claims nothing about them.
    let mut bare = record.clone();
    for event in &mut bare.events {
        (event.text, event.seat, event.event_type) = (None, None, None);
    }
    bare.verify()
        .unwrap_or_else(|divergence| panic!("{name}: {divergence}"));
}

#[test]
fn a_game_under_an_unknown_rules_version_is_refused_not_guessed() {
    let (name, mut record) = recorded_games().into_iter().next().expect("a game");
    record.rules_version = 999;
    let error = record.fold().err().expect("refused").to_string();
    assert!(error.contains("999"), "{name}: {error}");
}
