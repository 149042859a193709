//! A game's log stores what its rows already hold once: an event's payload without the
//! `type` member its `event_type` column holds, an action's request without the action its
//! `action` column holds; and reads both back whole. Games of every kind are played
//! through the services, every stored row is checked to be compact, and then the rows are
//! written whole by the migration's way back, as rows written before compact rows are,
//! and every seat's view and events, folded from scratch, must be what they were, and every
//! action retried with its idempotency key must be answered as the same action, not refused
//! as another.

use diesel::migration::MigrationSource;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_migrations::{FileBasedMigrations, MigrationHarness};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use turnpost::auth::AuthUser;
use turnpost::service::actions::{self, ActionRequest};
use turnpost::service::fold_cache::FoldCache;
use turnpost::service::lobby::{self, NewGame};
use turnpost::service::play::{self, ActionFilter};
use turnpost::store::{Db, LogForm};

use crate::on_both_backends;
use crate::util::{account, TestApp};

const NOW: i64 = 1_800_000_000_000;

#[derive(QueryableByName)]
struct StoredRow {
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Text)]
    text: String,
}

impl StoredRow {
    fn is_whole(&self) -> bool {
        if self.kind == "request" {
            self.text.contains(r#""action":"#)
        } else {
            self.text.starts_with(r#"{"type":"#)
        }
    }
}

/// Every event's type and stored payload, then every action's stored request (as kind
/// `request`), each in the log's order.
const EVERY_ROW: &str = "SELECT * FROM (SELECT event_type AS kind, payload AS text, \
     game_id, seq FROM events UNION ALL SELECT 'request', request, game_id, first_seq \
     FROM actions) AS t ORDER BY kind = 'request', game_id, seq";

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

/// The log taken back through the migration's own `down.sql`, which writes every compact
/// row whole, and the migration run again: a database that held events when it was
/// migrated, whose setting is `whole`.
fn migrate_back_and_again(app: &TestApp) {
    fn back_and_again<DB: diesel::backend::Backend>(
        conn: &mut impl MigrationHarness<DB>,
        folder: &str,
    ) where
        FileBasedMigrations: MigrationSource<DB>,
    {
        let migrations = FileBasedMigrations::from_path(folder).unwrap();
        let compact_log = MigrationSource::<DB>::migrations(&migrations)
            .unwrap()
            .into_iter()
            .find(|migration| migration.name().to_string().ends_with("_compact_log"))
            .expect("the compact log's migration");
        conn.revert_migration(compact_log.as_ref()).unwrap();
        conn.run_migration(compact_log.as_ref()).unwrap();
    }
    let url = app.database_url();
    if url.starts_with("postgres") {
        back_and_again(
            &mut PgConnection::establish(url).unwrap(),
            "migrations/postgres",
        );
    } else {
        back_and_again(
            &mut SqliteConnection::establish(url).unwrap(),
            "migrations/sqlite",
        );
    }
    assert_eq!(
        Db::open(url).unwrap().log_form(),
        LogForm::Whole,
        "the migration, run on a database that holds events"
    );
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

/// An action as it was posted, by whom, with its idempotency key.
struct Posted {
    player: AuthUser,
    request: ActionRequest,
}

/// Plays `actions` random legal actions in game `id` (fewer if it ends first), each with an
/// idempotency key.
fn play(db: &Db, id: &str, players: &[AuthUser], actions: usize, seed: u64) -> Vec<Posted> {
    let cache = FoldCache::new(100, 1 << 30);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut posted = Vec::new();
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
            idempotency_key: Some(format!("{seed}-{step}")),
            body: json!({"expected_seq": legal.seq, "seat": null, "action": action}),
        };
        let accepted = actions::act(db, &cache, id, player, &request, NOW + step as i64).unwrap();
        assert!(accepted.appended);
        posted.push(Posted {
            player: player.clone(),
            request,
        });
    }
    posted
}

/// What every seat and a spectator see of each game, folded from scratch: views and events;
/// and what each posted action's retry is answered.
fn everything_seen(db: &Db, games: &[(String, Vec<Posted>)], viewers: &[AuthUser]) -> Vec<String> {
    let from_scratch = FoldCache::new(0, 0);
    let mut seen = Vec::new();
    for (id, posted) in games {
        for viewer in viewers {
            let view = play::view(db, &from_scratch, id, viewer, None).unwrap();
            seen.push(format!("{view:?}"));
            for event in play::events(db, id, viewer, 0, i64::MAX).unwrap().events {
                assert_eq!(
                    event.payload["type"],
                    event.event_type.as_str(),
                    "{event:?}"
                );
                seen.push(format!("{event:?}"));
            }
        }
        for Posted { player, request } in posted {
            let retried = actions::act(db, &from_scratch, id, player, request, NOW).unwrap();
            assert!(!retried.appended, "the retry is answered, not appended");
            seen.push(format!("{:?}", (retried.seq, &retried.events)));
        }
    }
    seen
}

async fn rows_are_stored_compact_and_read_whole(app: &TestApp) {
    let db = Db::open(app.database_url()).unwrap();
    assert_eq!(db.log_form(), LogForm::Compact, "a new database");
    let players: Vec<AuthUser> = ["red", "blue", "yellow"]
        .iter()
        .map(|name| account(&db, name))
        .collect();
    let games: Vec<(String, Vec<Posted>)> = [("tikal", 3), ("java", 2), ("eternal_palace", 3)]
        .into_iter()
        .enumerate()
        .map(|(seed, (kind, seats))| {
            let id = new_game(&db, kind, &players[..seats]);
            let posted = play(&db, &id, &players[..seats], 60, seed as u64);
            (id, posted)
        })
        .collect();
    let mut viewers = players.clone();
    viewers.push(account(&db, "onlooker"));

    let rows = stored_rows(app);
    let requests = rows.iter().filter(|row| row.kind == "request").count();
    assert!(
        rows.len() - requests > 150,
        "{} events",
        rows.len() - requests
    );
    assert!(requests > 100, "{requests} actions");
    for row in &rows {
        assert!(!row.is_whole(), "stored whole: {}", row.text);
        let stored: Value = serde_json::from_str(&row.text).unwrap();
        assert!(stored.is_object(), "{}", row.text);
    }
    let compact = everything_seen(&db, &games, &viewers);

    migrate_back_and_again(app);
    assert!(stored_rows(app).iter().all(StoredRow::is_whole));
    assert_eq!(everything_seen(&db, &games, &viewers), compact);
}

/// A database that held events when it was migrated stores new rows whole, as the previous
/// version reads them, until `compact-log` switches it; instances started before the
/// switch keep storing whole rows, those started after store them compact, and a game
/// whose log holds both forms reads as one.
async fn a_database_that_held_events_stores_them_whole_until_switched(app: &TestApp) {
    app.execute_sql("UPDATE store_settings SET value = 'whole' WHERE name = 'log_form'");
    let before = Db::open(app.database_url()).unwrap();
    assert_eq!(before.log_form(), LogForm::Whole);
    let players: Vec<AuthUser> = ["red", "blue"]
        .iter()
        .map(|name| account(&before, name))
        .collect();
    let id = new_game(&before, "tikal", &players);
    let mut posted = play(&before, &id, &players, 20, 1);
    let whole_rows = stored_rows(app);
    assert!(whole_rows.iter().all(StoredRow::is_whole));

    assert!(before.compact_log().unwrap(), "was whole");
    assert!(!before.compact_log().unwrap(), "compact already");
    assert_eq!(before.log_form(), LogForm::Whole, "until it restarts");
    let after = Db::open(app.database_url()).unwrap();
    assert_eq!(after.log_form(), LogForm::Compact);
    posted.extend(play(&after, &id, &players, 20, 2));
    let rows = stored_rows(app);
    assert!(rows.len() > whole_rows.len() + 20);
    let (whole, compact): (Vec<&StoredRow>, Vec<&StoredRow>) =
        rows.iter().partition(|row| row.is_whole());
    assert_eq!(
        whole.len(),
        whole_rows.len(),
        "the rows written before stay whole"
    );
    assert!(compact.len() > 20);

    let mut viewers = players.clone();
    viewers.push(account(&after, "onlooker"));
    let games = [(id, posted)];
    let mixed = everything_seen(&after, &games, &viewers);
    migrate_back_and_again(app);
    assert_eq!(everything_seen(&after, &games, &viewers), mixed);
}

on_both_backends!(
    rows_are_stored_compact_and_read_whole,
    a_database_that_held_events_stores_them_whole_until_switched
);
