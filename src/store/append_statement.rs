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
//! The notifications it writes go on, in the same statement, to the accounts' webhooks
//! (a delivery per webhook) and mailboxes (a mail queued when the account's confirmed
//! address takes the notification's topic, due at once or at its digest hour, and its
//! outbox is not full), as [`super::notifications::notify_knowing`] sends them. The
//! webhooks, addresses and outbox counts it reads are those of its snapshot: a webhook
//! registered or an address confirmed meanwhile gets the notifications after this one (as
//! after the seats' read, where the append learnt the channels), and the outbox's bound is
//! as soft as in a transaction, which does not see another's uncommitted mails either.
//!
//! The statement has two texts, each the same for every move that sends it (lists go as
//! arrays), so each connection prepares each once: the shorter for moves whose
//! notifications stay in the accounts' feeds, the longer with the webhooks' and mailboxes'
//! queries. It covers what a move writes, a bot's too, whose held job it gives back; an
//! append that also writes something else (a finished game's ratings) or has no action (a
//! game's opening events) takes the transaction.

use std::borrow::Cow;

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text};
use diesel_async::AsyncPgConnection;

use super::append::{seat_notifications, stale_seq};
use super::compact_log::LogForm;
use super::email::MOST_WAITING;
use super::events::{stored_payloads, stored_request};
use super::games::{json_text, ActionRow, Append};
use super::jobs::{HeldJob, JobChanges};
use super::notice::MailTopic;
use super::notice::NewNotification;
use super::{Change, DbConnection, StoreError};
use crate::games::bots::BotStrategy;
use crate::games::server_events::ForfeitReason;

/// `append` as one statement, giving `held` back with it when given: a held job the append
/// puts again loses its lease in the jobs' upsert (a statement may write a row only once),
/// and one it removes goes with its lease. `None` when the append writes more than the
/// statement covers: one without an action (a game's opening events), one that rates a
/// finished game, or one holding a job it neither puts nor removes (the transaction gives
/// that back apart).
pub(super) fn statement_for(
    append: &Append,
    held: Option<&HeldJob<'_>>,
    form: LogForm,
) -> Option<AppendStatement> {
    let action = append.action.as_ref()?;
    if append.rates() {
        return None;
    }
    let jobs = append.job_changes();
    // Web Push decides per game whether an account was pushed already: the transaction
    // queues those messages.
    if seat_notifications(append, append.new_seq())
        .iter()
        .any(|(listener, _)| listener.channels.push)
    {
        return None;
    }
    if let Some(held) = held {
        let writes_the_job =
            jobs.put.iter().any(|job| job.kind == held.kind) || jobs.removed.contains(&held.kind);
        if !writes_the_job {
            return None;
        }
    }
    let notified = seat_notifications(append, append.new_seq())
        .into_iter()
        .map(|(listener, notification)| Notified {
            mail_bit: MailTopic::of_notification(&notification.kind)
                .map(MailTopic::bit)
                .filter(|bit| listener.channels.mail_topics & bit != 0)
                .unwrap_or(0),
            webhooks: listener.channels.webhooks,
            notification,
        })
        .collect();
    // A payload or request that cannot be stored is refused by the transaction's path.
    let payloads = stored_payloads(&append.events, form).ok()?;
    let request = stored_request(action, form).ok()?.into_owned();
    Some(statement(
        append, action, payloads, request, notified, &jobs, held,
    ))
}

/// A notification the append writes, and where it goes beside the feed as its account's
/// channels were read with the seats.
struct Notified {
    notification: NewNotification,
    /// Its mail topic's bit when the account mails that topic (0: no mail).
    mail_bit: i32,
    /// The account has webhooks: a delivery for each.
    webhooks: bool,
}

/// What the statement answers: rows the guarded update moved (0 or 1), the new
/// notifications' ids and accounts, mails due at once, webhook deliveries queued.
type Answer = (i64, Vec<i64>, Vec<String>, i64, i64);

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
    let answer: Answer = if statement.channels {
        Sent::<true>(statement).get_result(pg)
    } else {
        Sent::<false>(statement).get_result(pg)
    }
    .map_err(|error| match error {
        // Only a log written past the guard could hold these seqs already.
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info)
            if info.table_name() == Some("events") =>
        {
            StoreError::StaleSeq {
                current: statement.new_seq,
            }
        }
        other => StoreError::from_insert(other),
    })?;
    let Some(changes) = changes_of(statement, answer) else {
        return Err(stale_seq(conn, &statement.game_id)?);
    };
    for change in changes {
        super::changes::record(change);
    }
    Ok(statement.new_seq)
}

/// Runs `statement` on a worker thread's own connection ([`super::worker_connections`]):
/// what it changed once it has committed, or `None` when the game's seq had moved on and
/// it wrote nothing.
pub(super) async fn append_on(
    mut conn: &AsyncPgConnection,
    statement: &AppendStatement,
) -> Result<Option<Vec<Change>>, DieselError> {
    let answer: Answer = if statement.channels {
        diesel_async::RunQueryDsl::get_result(Sent::<true>(statement), &mut conn).await
    } else {
        diesel_async::RunQueryDsl::get_result(Sent::<false>(statement), &mut conn).await
    }?;
    Ok(changes_of(statement, answer))
}

/// What the statement that gave `answer` changed, for the commit listener; `None` when its
/// guard did not match, so that it wrote nothing.
fn changes_of(statement: &AppendStatement, answer: Answer) -> Option<Vec<Change>> {
    let (moved, notification_ids, notified_accounts, mails_due, deliveries) = answer;
    if moved != 1 {
        return None;
    }
    let mut changes: Vec<Change> = notification_ids
        .into_iter()
        .zip(notified_accounts)
        .map(|(id, account_id)| Change::Notified { account_id, id })
        .collect();
    if mails_due > 0 {
        changes.push(Change::MailDue);
    }
    if deliveries > 0 {
        changes.push(Change::DeliveryDue);
    }
    if statement.bot_due {
        changes.push(Change::BotDue);
    }
    changes.push(Change::Appended {
        game_id: statement.game_id.clone(),
        seq: statement.new_seq,
    });
    Some(changes)
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
/// the text after the values (`after_the_values!`).
pub(super) struct AppendStatement {
    pieces: Vec<(&'static str, Param)>,
    game_id: String,
    /// The game's seq once it has committed.
    new_seq: i64,
    /// A bot has to move once it has committed.
    bot_due: bool,
    /// It queues webhook deliveries or mails: the longer of its two texts.
    channels: bool,
}

/// The SQL after the last bound value: the end of the jobs' upsert, then the answer: whether
/// the guard matched, the new notifications with their accounts, how many mails are due at
/// once and how many webhook deliveries were queued.
macro_rules! after_the_values {
    ($mails_due:literal, $deliveries:literal) => {
        concat!(
            " THEN NULL ELSE jobs.lease_until END
)
SELECT (SELECT count(*) FROM moved),
    ARRAY(SELECT id FROM new_notifications ORDER BY id),
    ARRAY(SELECT account_id FROM new_notifications ORDER BY id),
    ",
            $mails_due,
            ", ",
            $deliveries
        )
    };
}

/// The end of the notifications' insert, up to the columns it returns for the channels'
/// queries when there are any.
macro_rules! notifications_end {
    () => {
        ") WITH ORDINALITY AS n (account_id, kind, seq, payload, created_at, position)
    ORDER BY n.position
    RETURNING id, account_id"
    };
}

macro_rules! new_action_start {
    () => {
        "
), new_action AS (
    INSERT INTO actions (game_id, first_seq, last_seq, seat, account_id, action, idempotency_key, request, created_at, bot)
    SELECT moved.id, "
    };
}

fn statement(
    append: &Append,
    action: &ActionRow,
    payloads: Vec<Cow<'_, str>>,
    request: String,
    notified: Vec<Notified>,
    jobs: &JobChanges,
    held: Option<&HeldJob<'_>>,
) -> AppendStatement {
    let notifications: Vec<&NewNotification> = notified
        .iter()
        .map(|notified| &notified.notification)
        .collect();
    // Only then the statement's text with the webhooks' and mailboxes' queries: a move
    // that tells no one beyond the feeds (as every move of the load benchmark) sends the
    // shorter text; each text is prepared once per connection.
    let channels = notified
        .iter()
        .any(|notified| notified.mail_bit != 0 || notified.webhooks);
    let new_seq = append.new_seq();
    let events = &append.events;
    let event_seqs = (1..=events.len() as i64)
        .map(|offset| append.expected_seq + offset)
        .collect();
    let seats = &append.seat_updates;
    let mut pieces = vec![
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
            Param::Texts(payloads.into_iter().map(Cow::into_owned).collect()),
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
    ];
    if channels {
        pieces.extend(channel_pieces(&notified));
    }
    pieces.extend([
        // With the channels: the mails' end, then a delivery to each of the account's
        // webhooks, under a fresh random id (the `webhook-id` receivers deduplicate on) in
        // `delivery_id`'s form, `msg_` and 24 characters of `ID_ALPHABET` (its first 16).
        // Then the action's insert.
        (
            if channels {
                concat!(
                    "
    RETURNING due_at <= created_at AS due_now
), new_deliveries AS (
    INSERT INTO webhook_deliveries (id, webhook_id, notification_id, kind, payload, created_at, attempts, next_attempt_at)
    SELECT 'msg_' || translate(left(md5(gen_random_uuid()::text), 24), '0123456789abcdef', 'abcdefghijkmnpqr'),
        w.id, n.id, n.kind, n.payload, n.created_at, 0, n.created_at
    FROM new_notifications n
    JOIN listening l ON l.account_id = n.account_id AND l.kind = n.kind AND l.webhooks
    JOIN webhooks w ON w.account_id = n.account_id
    RETURNING 1",
                    new_action_start!()
                )
            } else {
                concat!(notifications_end!(), new_action_start!())
            },
            Param::BigInt(action.first_seq),
        ),
        (", ", Param::BigInt(action.last_seq)),
        (", ", Param::Integer(action.seat)),
        (", ", Param::NullableText(action.account_id.clone())),
        (", ", Param::Text(action.action.clone())),
        (", ", Param::NullableText(action.idempotency_key.clone())),
        (", ", Param::Text(request)),
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
    ]);
    // A job put again keeps its lease, unless it is the held job given back (both null
    // for any other append: then no row matches).
    let (held_kind, held_owner) = (
        held.map(|held| held.kind.as_str().to_owned()),
        held.map(|held| held.owner.to_owned()),
    );
    pieces.extend([
        (
            ") AS j (kind, due_at, interactive)
    ON CONFLICT (kind, game_id)
    DO UPDATE SET due_at = excluded.due_at, interactive = excluded.interactive,
        lease_owner = CASE WHEN jobs.kind = ",
            Param::NullableText(held_kind.clone()),
        ),
        (
            " AND jobs.lease_owner = ",
            Param::NullableText(held_owner.clone()),
        ),
        (
            " THEN NULL ELSE jobs.lease_owner END,
        lease_until = CASE WHEN jobs.kind = ",
            Param::NullableText(held_kind),
        ),
        (" AND jobs.lease_owner = ", Param::NullableText(held_owner)),
    ]);
    AppendStatement {
        pieces,
        game_id: append.game_id.clone(),
        new_seq,
        bot_due: jobs.bot_due,
        channels,
    }
}

/// The queries that pass the notifications on to the accounts' webhooks and mailboxes,
/// between the notifications' insert and the action's (see [`statement`]).
fn channel_pieces(notified: &[Notified]) -> Vec<(&'static str, Param)> {
    vec![
        (
            concat!(
                notifications_end!(),
                ", kind, payload, created_at
), listening AS (
    SELECT DISTINCT l.account_id, l.kind, l.mail_bit, l.webhooks FROM unnest("
            ),
            Param::Texts(notified.iter().map(|n| n.notification.account_id.clone()).collect()),
        ),
        (
            ", ",
            Param::Texts(notified.iter().map(|n| n.notification.kind.clone()).collect()),
        ),
        (
            ", ",
            Param::Integers(notified.iter().map(|n| n.mail_bit).collect()),
        ),
        (
            ", ",
            Param::Bools(notified.iter().map(|n| n.webhooks).collect()),
        ),
        // A mail per notification whose topic the account's confirmed address takes, due
        // at once or at the address's digest hour (`email::next_digest`), while fewer than
        // the most its outbox may hold wait there (counting this statement's own mails).
        (
            ") AS l (account_id, kind, mail_bit, webhooks)
), new_mail AS (
    INSERT INTO mail_outbox (account_id, address, kind, notification_id, payload, due_at, created_at)
    SELECT m.account_id, m.address, m.kind, m.id, m.payload,
        CASE WHEN NOT m.digest THEN m.created_at
            WHEN m.digest_today > m.created_at THEN m.digest_today
            ELSE m.digest_today + 86400000 END,
        m.created_at
    FROM (
        SELECT n.id, n.account_id, a.address, n.kind, n.payload, n.created_at, a.digest,
            n.created_at / 86400000 * 86400000 + a.digest_hour * 3600000::int8 AS digest_today,
            row_number() OVER (PARTITION BY n.account_id ORDER BY n.id) AS nth
        FROM new_notifications n
        JOIN listening l ON l.account_id = n.account_id AND l.kind = n.kind
        JOIN email_addresses a ON a.account_id = n.account_id
        WHERE a.confirmed_at IS NOT NULL AND a.topics & l.mail_bit <> 0
    ) m
    WHERE m.nth + (SELECT count(*) FROM mail_outbox o
        WHERE o.account_id = m.account_id AND o.sent_at IS NULL AND o.failed_at IS NULL) <= ",
            Param::BigInt(MOST_WAITING),
        ),
    ]
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
        out.push_sql(if self.channels {
            after_the_values!(
                "(SELECT count(*) FROM new_mail WHERE due_now)",
                "(SELECT count(*) FROM new_deliveries)"
            )
        } else {
            after_the_values!("0::int8", "0::int8")
        });
        Ok(())
    }
}

/// The statement as sent, `CHANNELS` telling which of its two texts it has: each text is
/// the same for every append that has it, so the connection's cache of prepared
/// statements may keep each under a type of its own.
#[derive(Clone, Copy)]
struct Sent<'a, const CHANNELS: bool>(&'a AppendStatement);

impl<const CHANNELS: bool> QueryFragment<Pg> for Sent<'_, CHANNELS> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}

impl<const CHANNELS: bool> QueryId for Sent<'_, CHANNELS> {
    type QueryId = Sent<'static, CHANNELS>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<const CHANNELS: bool> Query for Sent<'_, CHANNELS> {
    type SqlType = (BigInt, Array<BigInt>, Array<Text>, BigInt, BigInt);
}

impl<const CHANNELS: bool> RunQueryDsl<PgConnection> for Sent<'_, CHANNELS> {}
