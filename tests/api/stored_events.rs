//! An event's row stores its payload without the `type` member its `event_type` column
//! holds, and reads it back whole: games of every kind are played through the services,
//! every stored payload is checked to be compact, and then the rows are rewritten whole,
//! as rows written before compact payloads are, and every seat's view and events, folded
//! from scratch, must be what they were.

use diesel::prelude::*;
use diesel::sql_types::Text;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use turnpost::auth::AuthUser;
use turnpost::service::fold_cache::FoldCache;
use turnpost::service::lobby::{self, NewGame};
use turnpost::service::play::{self, ActionFilter, ActionRequest};
use turnpost::store::{Db, PayloadForm};

use crate::on_both_backends;
use crate::util::{account, TestApp};

#[derive(QueryableByName)]
struct StoredRow {
    #[diesel(sql_type = Text)]
    event_type: String,
    #[diesel(sql_type = Text)]
    payload: String,
}

const NOW: i64 = 1_800_000_000_000;

const EVERY_ROW: &str = "SELECT event_type, payload FROM events ORDER BY game_id, seq";

fn stored_rows(app: &TestApp) -> Vec<StoredRow> {
    let url = app.database_url();
    if url.starts_with("postgres") {
        let mut conn = PgConnection::establish(url).unwrap();
        diesel::sql_query(EVERY_ROW).load(&mut conn).unwrap()
    } else {
        let mut conn = SqliteConnection::establish(url).unwrap();
        diesel::sql_query(EVERY_ROW).load(&mut conn).unwrap()
    }
}

/// A new game of `kind` between `players`, started.
fn new_game(db: &Db, kind: &str, players: &[AuthUser]) -> String {
    let request = NewGame {
        kind: kind.to_owned(),
        seats: players.len() as u8,
        options: json!({}),
        ..NewGame::default()
    };
    let id = lobby::create_game(db, &players[0], &request, 100, NOW)
        .unwrap()
        .game
        .id;
    for player in &players[1..] {
        lobby::join_game(db, &id, player, None, NOW).unwrap();
    }
    id
}

/// Plays `actions` random legal actions in game `id` (fewer if it ends first).
fn play(db: &Db, id: &str, players: &[AuthUser], actions: usize, seed: u64) {
    let cache = FoldCache::new(100, 1 << 30);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for step in 0..actions {
        let view = play::view(db, &cache, id, &players[0], None).unwrap();
        if view.finished {
            break;
        }
        let seat = view.to_act[rng.gen_range(0..view.to_act.len())];
        let player = &players[usize::from(seat)];
        let legal = play::legal_actions(db, &cache, id, player, &ActionFilter::default()).unwrap();
        let legal_actions: Vec<Value> = serde_json::from_str(legal.actions_json.get()).unwrap();
        let action = legal_actions[rng.gen_range(0..legal_actions.len())].clone();
        let request = ActionRequest {
            expected_seq: legal.seq,
            seat: None,
            action: action.clone(),
            idempotency_key: None,
            body: json!({"expected_seq": legal.seq, "action": action}),
        };
        play::act(db, &cache, id, player, &request, NOW + step as i64).unwrap();
    }
}

/// What every seat and a spectator see of each game, folded from scratch: views and events.
fn everything_seen(db: &Db, games: &[String], viewers: &[AuthUser]) -> Vec<String> {
    let from_scratch = FoldCache::new(0, 0);
    let mut seen = Vec::new();
    for id in games {
        for viewer in viewers {
            let view = play::view(db, &from_scratch, id, viewer, None).unwrap();
            seen.push(format!("{view:?}"));
            for event in play::events(db, id, viewer, 0).unwrap().events {
                assert_eq!(
                    event.payload["type"],
                    event.event_type.as_str(),
                    "{event:?}"
                );
                seen.push(format!("{event:?}"));
            }
        }
    }
    seen
}

async fn events_are_stored_compact_and_read_whole(app: &TestApp) {
    let db = Db::open(app.database_url()).unwrap();
    let players: Vec<AuthUser> = ["red", "blue", "yellow"]
        .iter()
        .map(|name| account(&db, name))
        .collect();
    assert_eq!(db.payload_form(), PayloadForm::Compact, "a new database");
    let games: Vec<String> = [("tikal", 3), ("java", 2), ("eternal_palace", 3)]
        .into_iter()
        .enumerate()
        .map(|(seed, (kind, seats))| {
            let id = new_game(&db, kind, &players[..seats]);
            play(&db, &id, &players[..seats], 60, seed as u64);
            id
        })
        .collect();
    let mut viewers = players.clone();
    viewers.push(account(&db, "onlooker"));

    let rows = stored_rows(app);
    assert!(rows.len() > 150, "{} events", rows.len());
    for row in &rows {
        assert!(
            !row.payload
                .contains(&format!(r#""type":"{}""#, row.event_type)),
            "stored with its type: {}",
            row.payload
        );
        let payload: Value = serde_json::from_str(&row.payload).unwrap();
        assert!(payload.is_object(), "{}", row.payload);
    }
    let compact = everything_seen(&db, &games, &viewers);

    // As rows written before payloads were compact: each payload whole, its type first.
    app.execute_sql(WHOLE_AGAIN);
    assert!(stored_rows(app)
        .iter()
        .all(|row| row.payload.starts_with(r#"{"type":"#)));
    assert_eq!(everything_seen(&db, &games, &viewers), compact);
}

/// What the migration's `down.sql` does to compact rows.
const WHOLE_AGAIN: &str = r#"UPDATE events SET payload = '{"type":"' || event_type || '"' ||
    CASE WHEN payload = '{}' THEN '}' ELSE ',' || substr(payload, 2) END
    WHERE payload NOT LIKE '{"type":%'"#;

/// A database that held events when it was migrated stores new ones whole, as the previous
/// version reads them, until `compact-event-payloads` switches it; instances started
/// before the switch keep storing whole payloads, those started after store them compact,
/// and a game whose log holds both forms reads as one.
async fn a_database_that_held_events_stores_them_whole_until_switched(app: &TestApp) {
    app.execute_sql("UPDATE store_settings SET value = 'whole' WHERE name = 'event_payloads'");
    let before = Db::open(app.database_url()).unwrap();
    assert_eq!(before.payload_form(), PayloadForm::Whole);
    let players: Vec<AuthUser> = ["red", "blue"]
        .iter()
        .map(|name| account(&before, name))
        .collect();
    let id = new_game(&before, "tikal", &players);
    play(&before, &id, &players, 20, 1);
    let whole = stored_rows(app).len();
    assert!(stored_rows(app)
        .iter()
        .all(|row| row.payload.starts_with(r#"{"type":"#)));

    assert!(before.compact_event_payloads().unwrap(), "was whole");
    assert!(!before.compact_event_payloads().unwrap(), "compact already");
    assert_eq!(
        before.payload_form(),
        PayloadForm::Whole,
        "until it restarts"
    );
    let after = Db::open(app.database_url()).unwrap();
    assert_eq!(after.payload_form(), PayloadForm::Compact);
    play(&after, &id, &players, 20, 2);
    let rows = stored_rows(app);
    assert!(rows.len() > whole + 10);
    assert!(rows[..whole]
        .iter()
        .all(|row| row.payload.starts_with(r#"{"type":"#)));
    assert!(rows[whole..]
        .iter()
        .all(|row| !row.payload.starts_with(r#"{"type":"#)));

    let mut viewers = players.clone();
    viewers.push(account(&after, "onlooker"));
    let mixed = everything_seen(&after, std::slice::from_ref(&id), &viewers);
    app.execute_sql(WHOLE_AGAIN);
    assert_eq!(everything_seen(&after, &[id], &viewers), mixed);
}

on_both_backends!(
    events_are_stored_compact_and_read_whole,
    a_database_that_held_events_stores_them_whole_until_switched
);
