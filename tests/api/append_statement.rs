//! PostgreSQL's append as one statement writes exactly what the transaction of appends
//! writes: the same append goes to two copies of one game, once through `Db::append` and
//! once through `store::append` in a write transaction, and every row either wrote (the
//! game, its seats, events, action, notifications and jobs) is compared. Also: the one
//! statement is one statement, a stale seq writes nothing, and an append it does not cover
//! takes the transaction.

use diesel::prelude::*;
use diesel::sql_types::Text;
use serde_json::json;
use turnpost::games::server_events::SeatClock;
use turnpost::store::jobs::GameWork;
use turnpost::store::notifications::Channels;
use turnpost::store::{
    self, ActionRow, Append, Db, GameStatus, Listener, NewEvent, SeatUpdate, StoreError,
    ENGINE_SOURCE, SERVER_SOURCE,
};

use crate::util::{Backend, TestApp};

/// A running Tikal game between ada (seat 0, to act) and bo with a day per move, and a
/// copy of it under another id; the ids and ada's and bo's account ids.
async fn game_and_its_copy(app: &TestApp) -> (String, String, String, String) {
    let players = vec![app.register("ada").await, app.register("bo").await];
    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 1}}),
            &players,
        )
        .await;
    let copy = format!("{id}-copy");
    // The copy's events are not needed: an append reads nothing but the game's seq.
    for (table, id_column) in [("games", "id"), ("seats", "game_id"), ("jobs", "game_id")] {
        app.execute_sql(&format!(
            "INSERT INTO {table} SELECT (jsonb_populate_record({table}, \
                 jsonb_build_object('{id_column}', '{copy}'))).* \
             FROM {table} WHERE {id_column} = '{id}'"
        ));
    }
    let db = Db::open(app.database_url()).unwrap();
    let id_of = |name| {
        db.read(|conn| store::find_account_by_name(conn, name))
            .unwrap()
            .expect("registered")
            .id
    };
    let (ada, bo) = (id_of("ada"), id_of("bo"));
    (id, copy, ada, bo)
}

#[derive(QueryableByName)]
struct Rows {
    #[diesel(sql_type = Text)]
    rows: String,
}

/// The game's rows in the tables an append writes, as JSON text (of the log's tables, only
/// rows after seq `after`), with the game's id (also inside notification payloads) and the
/// notifications' own ids left out.
fn rows_of(url: &str, game_id: &str, after: i64) -> String {
    let mut conn = PgConnection::establish(url).unwrap();
    let tables = [
        ("games", "id = $1", "'id'"),
        ("seats", "game_id = $1", "'game_id'"),
        ("events", "game_id = $1 AND seq > {after}", "'game_id'"),
        (
            "actions",
            "game_id = $1 AND first_seq > {after}",
            "'game_id'",
        ),
        (
            "notifications",
            "game_id = $1 AND seq > {after}",
            "'game_id' - 'id'",
        ),
        ("jobs", "game_id = $1", "'game_id'"),
    ];
    tables
        .iter()
        .map(|(table, filter, left_out)| {
            let filter = filter.replace("{after}", &after.to_string());
            let query = format!(
                "SELECT coalesce(jsonb_agg(to_jsonb(t) - {left_out} \
                     ORDER BY (to_jsonb(t) - {left_out})::text), '[]')::text AS rows \
                 FROM {table} t WHERE {filter}"
            );
            let rows: Rows = diesel::sql_query(query)
                .bind::<Text, _>(game_id)
                .get_result(&mut conn)
                .unwrap();
            format!("{table}: {}\n", rows.rows.replace(game_id, "GAME"))
        })
        .collect()
}

/// A move by ada that passes the turn to bo: two events, both clocks changed, bo told it
/// is his turn, the deadline job moved, a reminder due, the bot job gone.
fn move_by_ada(game_id: &str, seq: i64, ada: &str, bo: &str, channels: Channels) -> Append {
    let now = 1_800_000_000_000;
    Append {
        game_id: game_id.to_owned(),
        kind: "tikal".into(),
        previous_status: GameStatus::Running,
        previous_to_act: vec![0],
        acting_seat: Some(0),
        expected_seq: seq,
        events: vec![
            NewEvent {
                seat: Some(0),
                event_type: "placed".into(),
                schema_version: 1,
                payload: r#"{"type":"placed","tile":"x"}"#.into(),
                source: ENGINE_SOURCE,
            },
            NewEvent {
                seat: None,
                event_type: "clock".into(),
                schema_version: 1,
                payload: r#"{"type":"clock"}"#.into(),
                source: SERVER_SOURCE,
            },
        ],
        status: GameStatus::Running,
        to_act: vec![1],
        outcome: None,
        now,
        action: Some(ActionRow {
            game_id: game_id.to_owned(),
            first_seq: seq + 1,
            last_seq: seq + 2,
            seat: 0,
            account_id: Some(ada.to_owned()),
            action: r#"{"type":"place"}"#.into(),
            idempotency_key: Some("key-1".into()),
            request: r#"{"action":{"type":"place"}}"#.into(),
            created_at: now,
            bot: None,
        }),
        seat_updates: vec![
            SeatUpdate {
                seat: 0,
                clock: SeatClock {
                    deadline_ms: None,
                    bank_ms: 5_000,
                },
                bot: None,
                forfeit: None,
                vacation_until: Some(now + 7),
            },
            SeatUpdate {
                seat: 1,
                clock: SeatClock {
                    deadline_ms: Some(now + 86_400_000),
                    bank_ms: 0,
                },
                bot: None,
                forfeit: None,
                vacation_until: None,
            },
        ],
        listeners: vec![
            Listener {
                seat: 0,
                account_id: ada.to_owned(),
                channels,
            },
            Listener {
                seat: 1,
                account_id: bo.to_owned(),
                channels,
            },
        ],
        created_by: ada.to_owned(),
        work_before: GameWork {
            deadline: Some(now - 1_000),
            bot: Some(true),
        },
        work_after: GameWork {
            deadline: Some(now + 86_400_000),
            bot: None,
        },
    }
}

fn seq_of(db: &Db, game_id: &str) -> i64 {
    db.read(|conn| store::find_game(conn, game_id))
        .unwrap()
        .unwrap()
        .current_seq
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_statement_writes_what_the_transaction_writes() {
    let app = TestApp::start(Backend::Postgres).await;
    let (id, copy, ada, bo) = game_and_its_copy(&app).await;
    let url = app.database_url().to_owned();
    let db = Db::open(&url).unwrap();
    let seq = seq_of(&db, &id);
    assert_eq!(
        rows_of(&url, &id, seq),
        rows_of(&url, &copy, seq),
        "an exact copy"
    );
    let feed_only = Channels::default();

    let before = db.statements();
    let new_seq = db
        .append(&move_by_ada(&id, seq, &ada, &bo, feed_only))
        .unwrap();
    // The pool's liveness check may come first, should the test have paused for a second.
    let sent = db.statements() - before;
    assert!(sent <= 2, "one statement, no BEGIN or COMMIT: {sent}");
    let in_steps = db
        .write(|conn| store::append(conn, &move_by_ada(&copy, seq, &ada, &bo, feed_only)))
        .unwrap();
    assert_eq!((new_seq, in_steps), (seq + 2, seq + 2));
    let written = rows_of(&url, &id, seq);
    assert_eq!(written, rows_of(&url, &copy, seq));
    for expected in [
        r#""must_act": true"#,
        r#""bank_ms": 5000"#,
        r#""kind": "your_turn""#,
        r#""kind": "reminder""#,
        r#""idempotency_key": "key-1""#,
    ] {
        assert!(written.contains(expected), "{expected} in {written}");
    }
    assert!(!written.contains(r#""kind": "bot""#), "{written}");

    // Stale: both refuse alike and write nothing.
    let stale = db.append(&move_by_ada(&id, seq, &ada, &bo, feed_only));
    assert!(matches!(stale, Err(StoreError::StaleSeq { current }) if current == seq + 2));
    assert_eq!(rows_of(&url, &id, seq), written);

    // A webhook to look up: not covered, so the transaction writes it.
    let with_webhooks = Channels {
        webhooks: true,
        mail_topics: 0,
    };
    let mut back_to_ada = move_by_ada(&id, seq + 2, &bo, &ada, with_webhooks);
    back_to_ada.previous_to_act = vec![1];
    back_to_ada.to_act = vec![0];
    back_to_ada.acting_seat = Some(1);
    let before = db.statements();
    assert_eq!(db.append(&back_to_ada).unwrap(), seq + 4);
    assert!(
        db.statements() - before > 3,
        "a transaction of several statements"
    );
}
