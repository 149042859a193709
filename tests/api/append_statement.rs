//! PostgreSQL's append as one statement writes exactly what the transaction of appends
//! writes: the same append goes to two copies of one game, once through `Db::append` and
//! once through `store::append` in a write transaction, and every row either wrote (the
//! game, its seats, events, action, notifications, mails, webhook deliveries and jobs) is
//! compared: for accounts whose notifications stay in their feed, and for accounts with
//! webhooks and mailed topics (one on a daily digest, one whose outbox fills up). Also: the
//! one statement is one statement and a stale seq writes nothing. A bot move gives its held
//! job back in the same statement, as the transaction does after its append.

use diesel::prelude::*;
use diesel::sql_types::Text;
use serde_json::json;
use turnpost::games::server_events::SeatClock;
use turnpost::store::jobs::{self, GameWork, HeldJob, JobKind};
use turnpost::store::notifications::Channels;
use turnpost::store::{
    self, ActionRow, Append, Db, GameStatus, Listener, NewEvent, SeatUpdate, StoreError,
    ENGINE_SOURCE, SERVER_SOURCE,
};

use crate::util::{no_background_work, Backend, TestApp};

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

/// The filter of an outbox's rows about the game `$1`.
const NAMES_THE_GAME: &str = r#"payload LIKE '%"game_id":"' || $1 || '"%'"#;

#[derive(QueryableByName)]
struct Rows {
    #[diesel(sql_type = Text)]
    rows: String,
}

/// The game's rows in the tables an append writes, as JSON text (of the log's tables, only
/// rows after seq `after`; of the outboxes, the rows whose payload names the game), with the
/// game's id (also inside payloads) and the rows' own ids, which each path draws anew, left
/// out.
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
        ("mail_outbox", NAMES_THE_GAME, "'id' - 'notification_id'"),
        (
            "webhook_deliveries",
            NAMES_THE_GAME,
            "'id' - 'notification_id'",
        ),
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
    let app = TestApp::start_with(Backend::Postgres, no_background_work).await;
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

    // Webhooks and mail: ada has two webhooks and her turns mailed in a digest at 07:00,
    // bo his turns mailed at once into an outbox one short of full.
    const YOUR_TURN: i32 = 1;
    app.execute_sql(&format!(
        "INSERT INTO webhooks (id, account_id, url, secret, created_at) VALUES \
             ('hook-1', '{ada}', 'https://example.com/1', 's', 0), \
             ('hook-2', '{ada}', 'https://example.com/2', 's', 0)"
    ));
    app.execute_sql(&format!(
        "INSERT INTO email_addresses (account_id, address, confirmed_at, topics, digest, \
             digest_hour, unsubscribe_token, created_at) VALUES \
             ('{ada}', 'ada@example.com', 1, {YOUR_TURN}, true, 7, 'u-ada', 0), \
             ('{bo}', 'bo@example.com', 1, {YOUR_TURN}, false, 0, 'u-bo', 0)"
    ));
    let fill_bos_outbox_to = |waiting: i64| {
        app.execute_sql("DELETE FROM mail_outbox WHERE payload = '{}'");
        app.execute_sql(&format!(
            "INSERT INTO mail_outbox (account_id, address, kind, payload, due_at, created_at) \
                 SELECT '{bo}', 'bo@example.com', 'your_turn', '{{}}', 0, 0 \
                 FROM generate_series(1, {waiting} - (SELECT count(*) FROM mail_outbox \
                     WHERE account_id = '{bo}' AND sent_at IS NULL))"
        ))
    };
    fill_bos_outbox_to(store::email::MOST_WAITING - 1);
    let mailed = |webhooks| Channels {
        webhooks,
        mail_topics: YOUR_TURN,
        push: false,
    };
    let back_to_ada = |game_id: &str| {
        let mut append = move_by_ada(game_id, seq + 2, &ada, &bo, mailed(false));
        append.listeners[0].channels = mailed(true);
        let action = append.action.as_mut().unwrap();
        (action.account_id, action.idempotency_key) = (Some(bo.clone()), Some("key-2".into()));
        append.previous_to_act = vec![1];
        append.to_act = vec![0];
        append.acting_seat = Some(1);
        append
    };
    let before = db.statements();
    assert_eq!(db.append(&back_to_ada(&id)).unwrap(), seq + 4);
    let sent = db.statements() - before;
    assert!(sent <= 2, "webhooks and mail in the one statement: {sent}");
    db.write(|conn| store::append(conn, &back_to_ada(&copy)))
        .unwrap();
    let written = rows_of(&url, &id, seq + 2);
    assert_eq!(written, rows_of(&url, &copy, seq + 2));
    // The move is made at 08:00 UTC, past the digest hour: the mail waits for the next day.
    let digest_at = (1_800_000_000_000_i64 / 86_400_000 + 1) * 86_400_000 + 7 * 3_600_000;
    assert!(
        written.contains(&format!(r#""due_at": {digest_at}"#)),
        "{written}"
    );
    for hook in ["hook-1", "hook-2"] {
        assert!(
            written.contains(&format!(r#""webhook_id": "{hook}""#)),
            "{written}"
        );
    }
    let mut conn = PgConnection::establish(&url).unwrap();
    let ids: Rows = diesel::sql_query(format!(
        "SELECT string_agg(id, ' ') AS rows FROM webhook_deliveries WHERE {NAMES_THE_GAME}"
    ))
    .bind::<Text, _>(&id)
    .get_result(&mut conn)
    .unwrap();
    for delivery in ids.rows.split(' ') {
        let random = delivery.strip_prefix("msg_").expect(delivery);
        assert_eq!(random.len(), 24, "{delivery}");
        assert!(
            random.bytes().all(|c| store::ID_ALPHABET.contains(&c)),
            "{delivery}"
        );
    }

    // bo at both seats, told twice that it is his turn: his outbox takes one more mail.
    let to_bo_twice = |game_id: &str| {
        let mut append = move_by_ada(game_id, seq + 4, &ada, &bo, mailed(false));
        append.listeners[0].account_id = bo.clone();
        append.action.as_mut().unwrap().idempotency_key = Some("key-3".into());
        append.previous_to_act = vec![1];
        append.to_act = vec![0, 1];
        append.acting_seat = None;
        append
    };
    assert_eq!(db.append(&to_bo_twice(&id)).unwrap(), seq + 6);
    fill_bos_outbox_to(store::email::MOST_WAITING - 1);
    db.write(|conn| store::append(conn, &to_bo_twice(&copy)))
        .unwrap();
    let written = rows_of(&url, &id, seq + 4);
    assert_eq!(written, rows_of(&url, &copy, seq + 4));
    let table = |name: &str| {
        let prefix = format!("{name}: ");
        written
            .lines()
            .find_map(|line| line.strip_prefix(prefix.as_str()))
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        table("notifications")
            .matches(r#""kind": "your_turn""#)
            .count(),
        2
    );
    assert_eq!(table("mail_outbox").matches("bo@example.com").count(), 1);
}

/// Each of the game's jobs as `kind:lease owner` (`-` for none).
fn leases_of(url: &str, game_id: &str) -> String {
    let mut conn = PgConnection::establish(url).unwrap();
    let leases: Rows = diesel::sql_query(
        "SELECT coalesce(string_agg(kind || ':' || coalesce(lease_owner, '-'), ' ' \
             ORDER BY kind), '') AS rows FROM jobs WHERE game_id = $1",
    )
    .bind::<Text, _>(game_id)
    .get_result(&mut conn)
    .unwrap();
    leases.rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_move_gives_its_job_back_in_the_one_statement() {
    // No bot worker may finish the bot job this test writes by hand.
    let app = TestApp::start_with(Backend::Postgres, no_background_work).await;
    let (id, copy, ada, bo) = game_and_its_copy(&app).await;
    let url = app.database_url().to_owned();
    let db = Db::open(&url).unwrap();
    let seq = seq_of(&db, &id);
    // Both games' jobs, their bot's, deadline's and reminder's, held by instance-a.
    for game in [&id, &copy] {
        app.execute_sql(&format!(
            "INSERT INTO jobs (kind, game_id, account_id, due_at, interactive) \
                 VALUES ('bot', '{game}', '{ada}', 0, true)"
        ));
        app.execute_sql(&format!(
            "UPDATE jobs SET lease_owner = 'instance-a', lease_until = 9000000000000 \
             WHERE game_id = '{game}'"
        ));
    }
    assert_eq!(
        leases_of(&url, &id),
        "bot:instance-a deadline:instance-a reminder:instance-a"
    );
    let held = HeldJob {
        kind: JobKind::Bot,
        owner: "instance-a",
    };
    // bo's bot moves (the move itself is ada's of the other test, made by a bot), and has
    // to move again, or not.
    let bot_move = |game_id: &str, seq: i64, moves_again: bool| {
        let mut append = move_by_ada(game_id, seq, &ada, &bo, Channels::default());
        let action = append.action.as_mut().unwrap();
        (action.account_id, action.idempotency_key) = (None, None);
        action.bot = Some("random".into());
        append.work_after.bot = moves_again.then_some(true);
        append
    };
    let in_a_transaction = |game_id: &str, seq: i64, moves_again: bool| {
        db.write(|conn| {
            let new_seq = store::append(conn, &bot_move(game_id, seq, moves_again))?;
            jobs::release(conn, JobKind::Bot, game_id, "instance-a")?;
            Ok::<_, StoreError>(new_seq)
        })
        .unwrap()
    };

    // The bot job is put again without its lease; the deadline and reminder jobs, put
    // again too, keep theirs.
    let before = db.statements();
    let new_seq = db
        .append_giving_back(&bot_move(&id, seq, true), &held)
        .unwrap();
    let sent = db.statements() - before;
    assert!(sent <= 2, "one statement, no BEGIN or COMMIT: {sent}");
    assert_eq!(new_seq, seq + 2);
    assert_eq!(in_a_transaction(&copy, seq, true), seq + 2);
    let written = rows_of(&url, &id, seq);
    assert_eq!(written, rows_of(&url, &copy, seq));
    assert!(written.contains(r#""bot": "random""#), "{written}");
    assert_eq!(
        leases_of(&url, &id),
        "bot:- deadline:instance-a reminder:instance-a"
    );

    // instance-b holds the bot job now (instance-a's lease lapsed): it keeps it.
    app.execute_sql(&format!(
        "UPDATE jobs SET lease_owner = 'instance-b', lease_until = 9000000000000 \
         WHERE kind = 'bot' AND game_id IN ('{id}', '{copy}')"
    ));
    let new_seq = db
        .append_giving_back(&bot_move(&id, seq + 2, true), &held)
        .unwrap();
    assert_eq!(new_seq, seq + 4);
    assert_eq!(in_a_transaction(&copy, seq + 2, true), seq + 4);
    assert_eq!(rows_of(&url, &id, seq + 2), rows_of(&url, &copy, seq + 2));
    assert_eq!(
        leases_of(&url, &id),
        "bot:instance-b deadline:instance-a reminder:instance-a"
    );

    // Stale: nothing is written, nothing given back.
    let written = rows_of(&url, &id, seq);
    let stale = db.append_giving_back(&bot_move(&id, seq, true), &held);
    assert!(matches!(stale, Err(StoreError::StaleSeq { current }) if current == seq + 4));
    assert_eq!(rows_of(&url, &id, seq), written);

    // The bot's last move: its job goes, lease and all.
    app.execute_sql(&format!(
        "UPDATE jobs SET lease_owner = 'instance-a' WHERE kind = 'bot' \
         AND game_id IN ('{id}', '{copy}')"
    ));
    let before = db.statements();
    let new_seq = db
        .append_giving_back(&bot_move(&id, seq + 4, false), &held)
        .unwrap();
    assert!(db.statements() - before <= 2);
    assert_eq!(new_seq, seq + 6);
    assert_eq!(in_a_transaction(&copy, seq + 4, false), seq + 6);
    assert_eq!(rows_of(&url, &id, seq + 4), rows_of(&url, &copy, seq + 4));
    assert_eq!(
        leases_of(&url, &id),
        "deadline:instance-a reminder:instance-a"
    );
}
