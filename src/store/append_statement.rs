//! PostgreSQL's append as one statement: the game's update guarded by its seq, and in
//! data-modifying `WITH` queries that write only when the guard matched, everything else
//! the append writes (events, seats, notifications, the action, jobs). One round trip where
//! the transaction of [`super::games::append`] takes seven: a statement outside a
//! transaction commits on its own, all of it or nothing, without `BEGIN` and `COMMIT`. The
//! game's row lock orders it against other appends as that transaction's first statement
//! does: a second append waits for the first to commit, then finds the seq moved on and
//! writes nothing. The statement's snapshot is older than that wait, which the
//! transaction's later statements are not; no difference comes of it: its updates and
//! deletes check the newest version of each row they change, and the only rows another
//! writer may have added in between that it would have to see, a game's jobs, come from
//! appends, which move the seq.
//!
//! The statement's text never changes (lists go as arrays), so each connection prepares it
//! once. It covers what a move usually writes; an append that also writes something else
//! (a finished game's ratings, a webhook delivery, a mail) takes the transaction.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text};

use super::games::{json_text, seat_notifications, stale_seq, ActionRow, Append};
use super::notifications::NewNotification;
use super::{Change, DbConnection, StoreError};
use crate::games::bots::BotStrategy;
use crate::games::server_events::ForfeitReason;

/// `append` as one statement, or `None` when it writes more than the statement covers:
/// an append without an action (a game's opening events), one that rates a finished game,
/// or one whose notifications go to a webhook or a mailbox too.
pub(super) fn statement_for(append: &Append) -> Option<AppendStatement> {
    let action = append.action.as_ref()?;
    let new_seq = append.new_seq();
    let notified = seat_notifications(append, new_seq);
    let covered = !append.rates()
        && notified
            .iter()
            .all(|(listener, notification)| listener.channels.feed_only(&notification.kind));
    let notifications = notified.into_iter().map(|(_, notification)| notification);
    covered.then(|| statement(append, action, notifications.collect()))
}

/// Runs `statement` outside any transaction; it answers as [`super::games::append`] does.
pub(super) fn append(
    conn: &mut DbConnection,
    statement: &AppendStatement,
) -> Result<i64, StoreError> {
    let DbConnection::Postgresql(pg) = conn else {
        return Err(StoreError::Unavailable(
            "an append as one statement needs PostgreSQL".into(),
        ));
    };
    let new_seq = statement.new_seq;
    let (moved, notification_ids, notified_accounts): (i64, Vec<i64>, Vec<String>) =
        statement.get_result(pg).map_err(|error| match error {
            // Only a log written past the guard could hold these seqs already.
            DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info)
                if info.table_name() == Some("events") =>
            {
                StoreError::StaleSeq { current: new_seq }
            }
            other => StoreError::from_insert(other),
        })?;
    if moved != 1 {
        return Err(stale_seq(conn, &statement.game_id)?);
    }
    for (id, account_id) in notification_ids.into_iter().zip(notified_accounts) {
        super::changes::record(Change::Notified { account_id, id });
    }
    if statement.bot_due {
        super::changes::record(Change::BotDue);
    }
    super::changes::record(Change::Appended {
        game_id: statement.game_id.clone(),
        seq: new_seq,
    });
    Ok(new_seq)
}

/// A value bound to the statement, in one of the SQL types it uses.
enum Param {
    BigInt(i64),
    Integer(i32),
    Bool(bool),
    Text(String),
    NullableText(Option<String>),
    BigInts(Vec<i64>),
    NullableBigInts(Vec<Option<i64>>),
    Integers(Vec<i32>),
    NullableIntegers(Vec<Option<i32>>),
    Texts(Vec<String>),
    NullableTexts(Vec<Option<String>>),
    Bools(Vec<bool>),
}

/// One append's statement: each piece of SQL followed by the value bound after it, then
/// [`AFTER_THE_VALUES`].
pub(super) struct AppendStatement {
    pieces: Vec<(&'static str, Param)>,
    game_id: String,
    /// The game's seq once it has committed.
    new_seq: i64,
    /// A bot has to move once it has committed.
    bot_due: bool,
}

/// The SQL after the last bound value: the end of the jobs' upsert, then the answer: whether
/// the guard matched, and the new notifications with their accounts.
const AFTER_THE_VALUES: &str = ") AS j (kind, due_at, interactive)
    ON CONFLICT (kind, game_id)
    DO UPDATE SET due_at = excluded.due_at, interactive = excluded.interactive
)
SELECT (SELECT count(*) FROM moved),
    ARRAY(SELECT id FROM new_notifications ORDER BY id),
    ARRAY(SELECT account_id FROM new_notifications ORDER BY id)";

fn statement(
    append: &Append,
    action: &ActionRow,
    notifications: Vec<NewNotification>,
) -> AppendStatement {
    let new_seq = append.new_seq();
    let events = &append.events;
    let event_seqs = (1..=events.len() as i64)
        .map(|offset| append.expected_seq + offset)
        .collect();
    let seats = &append.seat_updates;
    let jobs = append.job_changes();
    let pieces = vec![
        (
            "WITH moved AS (
    UPDATE games SET current_seq = ",
            Param::BigInt(new_seq),
        ),
        (", status = ", Param::Text(append.status.as_str().to_owned())),
        (", to_act = ", Param::Text(json_text(&append.to_act))),
        (
            ", outcome = ",
            Param::NullableText(append.outcome.as_ref().map(json_text)),
        ),
        (", updated_at = ", Param::BigInt(append.now)),
        ("
    WHERE id = ", Param::Text(append.game_id.clone())),
        (" AND current_seq = ", Param::BigInt(append.expected_seq)),
        (
            "
    RETURNING id, updated_at
), new_events AS (
    INSERT INTO events (game_id, seq, created_at, seat, event_type, schema_version, payload, source)
    SELECT moved.id, e.seq, moved.updated_at, e.seat, e.event_type, e.schema_version, e.payload, e.source
    FROM moved, unnest(",
            Param::BigInts(event_seqs),
        ),
        (
            ", ",
            Param::NullableIntegers(events.iter().map(|event| event.seat).collect()),
        ),
        (
            ", ",
            Param::Texts(events.iter().map(|event| event.event_type.clone()).collect()),
        ),
        (
            ", ",
            Param::Integers(events.iter().map(|event| event.schema_version).collect()),
        ),
        (
            ", ",
            Param::Texts(events.iter().map(|event| event.payload.clone()).collect()),
        ),
        (
            ", ",
            Param::Texts(events.iter().map(|event| event.source.to_owned()).collect()),
        ),
        // The turn flags of every seat when the acting seats changed, and the clocks of
        // the seats that changed, in one update: a statement may write a row only once.
        (
            ") AS e (seq, seat, event_type, schema_version, payload, source)
), turns AS (
    SELECT ",
            Param::Bool(append.to_act != append.previous_to_act),
        ),
        (
            "::bool AS changed, ",
            Param::Integers(append.to_act.iter().map(|&seat| i32::from(seat)).collect()),
        ),
        (
            "::int4[] AS acting
), clocks AS (
    SELECT ",
            Param::Integers(seats.iter().map(|update| i32::from(update.seat)).collect()),
        ),
        (
            "::int4[] AS seats, ",
            Param::NullableBigInts(seats.iter().map(|update| update.clock.deadline_ms).collect()),
        ),
        (
            "::int8[] AS deadlines, ",
            Param::BigInts(seats.iter().map(|update| update.clock.bank_ms).collect()),
        ),
        (
            "::int8[] AS banks, ",
            Param::NullableTexts(
                seats
                    .iter()
                    .map(|update| update.bot.map(|bot| BotStrategy::as_str(bot).to_owned()))
                    .collect(),
            ),
        ),
        (
            "::text[] AS bots, ",
            Param::NullableTexts(
                seats
                    .iter()
                    .map(|update| {
                        update
                            .forfeit
                            .map(|reason| ForfeitReason::as_str(reason).to_owned())
                    })
                    .collect(),
            ),
        ),
        (
            "::text[] AS forfeits, ",
            Param::NullableBigInts(seats.iter().map(|update| update.vacation_until).collect()),
        ),
        (
            "::int8[] AS vacations
), changed_seats AS (
    UPDATE seats SET
        must_act = CASE WHEN turns.changed THEN seats.seat = ANY (turns.acting) ELSE seats.must_act END,
        deadline = CASE WHEN seats.seat = ANY (clocks.seats)
            THEN clocks.deadlines[array_position(clocks.seats, seats.seat)] ELSE seats.deadline END,
        bank_ms = CASE WHEN seats.seat = ANY (clocks.seats)
            THEN clocks.banks[array_position(clocks.seats, seats.seat)] ELSE seats.bank_ms END,
        bot = CASE WHEN seats.seat = ANY (clocks.seats)
            THEN clocks.bots[array_position(clocks.seats, seats.seat)] ELSE seats.bot END,
        forfeit = CASE WHEN seats.seat = ANY (clocks.seats)
            THEN clocks.forfeits[array_position(clocks.seats, seats.seat)] ELSE seats.forfeit END,
        vacation_until = CASE WHEN seats.seat = ANY (clocks.seats)
            THEN clocks.vacations[array_position(clocks.seats, seats.seat)] ELSE seats.vacation_until END
    FROM moved, turns, clocks
    WHERE seats.game_id = moved.id AND (turns.changed OR seats.seat = ANY (clocks.seats))
), new_notifications AS (
    INSERT INTO notifications (account_id, game_id, kind, seq, payload, created_at)
    SELECT n.account_id, moved.id, n.kind, n.seq, n.payload, n.created_at
    FROM moved, unnest(",
            Param::Texts(notifications.iter().map(|n| n.account_id.clone()).collect()),
        ),
        (
            ", ",
            Param::Texts(notifications.iter().map(|n| n.kind.clone()).collect()),
        ),
        (
            ", ",
            Param::BigInts(notifications.iter().map(|n| n.seq).collect()),
        ),
        (
            ", ",
            Param::Texts(notifications.iter().map(|n| n.payload.clone()).collect()),
        ),
        (
            ", ",
            Param::BigInts(notifications.iter().map(|n| n.created_at).collect()),
        ),
        (
            ") WITH ORDINALITY AS n (account_id, kind, seq, payload, created_at, position)
    ORDER BY n.position
    RETURNING id, account_id
), new_action AS (
    INSERT INTO actions (game_id, first_seq, last_seq, seat, account_id, action, idempotency_key, request, created_at, bot)
    SELECT moved.id, ",
            Param::BigInt(action.first_seq),
        ),
        (", ", Param::BigInt(action.last_seq)),
        (", ", Param::Integer(action.seat)),
        (", ", Param::NullableText(action.account_id.clone())),
        (", ", Param::Text(action.action.clone())),
        (", ", Param::NullableText(action.idempotency_key.clone())),
        (", ", Param::Text(action.request.clone())),
        (", ", Param::BigInt(action.created_at)),
        (", ", Param::NullableText(action.bot.clone())),
        (
            " FROM moved
), removed_jobs AS (
    DELETE FROM jobs USING moved WHERE jobs.game_id = moved.id AND jobs.kind = ANY (",
            Param::Texts(jobs.removed.iter().map(|kind| kind.as_str().to_owned()).collect()),
        ),
        (
            ")
), put_jobs AS (
    INSERT INTO jobs (kind, game_id, account_id, due_at, interactive)
    SELECT j.kind, moved.id, ",
            Param::Text(append.created_by.clone()),
        ),
        (
            ", j.due_at, j.interactive
    FROM moved, unnest(",
            Param::Texts(jobs.put.iter().map(|job| job.kind.as_str().to_owned()).collect()),
        ),
        (
            ", ",
            Param::BigInts(jobs.put.iter().map(|job| job.due_at).collect()),
        ),
        (
            ", ",
            Param::Bools(jobs.put.iter().map(|job| job.interactive).collect()),
        ),
    ];
    AppendStatement {
        pieces,
        game_id: append.game_id.clone(),
        new_seq,
        bot_due: jobs.bot_due,
    }
}

impl QueryFragment<Pg> for AppendStatement {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        for (sql, param) in &self.pieces {
            out.push_sql(sql);
            match param {
                Param::BigInt(value) => out.push_bind_param::<BigInt, _>(value)?,
                Param::Integer(value) => out.push_bind_param::<Integer, _>(value)?,
                Param::Bool(value) => out.push_bind_param::<Bool, _>(value)?,
                Param::Text(value) => out.push_bind_param::<Text, _>(value)?,
                Param::NullableText(value) => out.push_bind_param::<Nullable<Text>, _>(value)?,
                Param::BigInts(values) => out.push_bind_param::<Array<BigInt>, _>(values)?,
                Param::NullableBigInts(values) => {
                    out.push_bind_param::<Array<Nullable<BigInt>>, _>(values)?
                }
                Param::Integers(values) => out.push_bind_param::<Array<Integer>, _>(values)?,
                Param::NullableIntegers(values) => {
                    out.push_bind_param::<Array<Nullable<Integer>>, _>(values)?
                }
                Param::Texts(values) => out.push_bind_param::<Array<Text>, _>(values)?,
                Param::NullableTexts(values) => {
                    out.push_bind_param::<Array<Nullable<Text>>, _>(values)?
                }
                Param::Bools(values) => out.push_bind_param::<Array<Bool>, _>(values)?,
            }
        }
        out.push_sql(AFTER_THE_VALUES);
        Ok(())
    }
}

/// The text is the same for every append, so the connection's cache of prepared statements
/// may keep it under this type.
impl QueryId for AppendStatement {
    type QueryId = AppendStatement;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for AppendStatement {
    type SqlType = (BigInt, Array<BigInt>, Array<Text>);
}

/// Run by reference: a statement whose connection died runs again on another.
impl RunQueryDsl<PgConnection> for &AppendStatement {}
