//! Web Push subscriptions and the messages waiting for them. A notification (written by
//! [`super::notifications::notify_knowing`] in the transaction of what caused it) queues
//! one message per subscription of its account that takes its topic, unless the account
//! was pushed that game already and has not looked at it since (`push_unseen`): at most one
//! push per account and game until it looks, but for reminders, which it asked for. A
//! message not yet sent takes the text of a newer notification of its game instead of a
//! second message. A subscription is claimed by one instance at a time while one of its
//! messages is posted (see [`claim_next`]).

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

use super::jobs::statement;
use super::notice::{MailTopic, NewNotification};
use super::schema::{accounts, push_messages, push_subscriptions, push_unseen};
use super::{Change, DbConnection, StoreError};

/// Messages one subscription may have waiting: beyond them, notifications are not pushed
/// to it (its feed and other channels still have them). With at most one per game, only
/// an account in that many games at once that never looks meets it.
pub const MOST_WAITING: i64 = 100;

/// The kind of a message a player sends to a device to try it (`game_id` is empty).
pub const TEST_KIND: &str = "test";

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = push_subscriptions)]
pub struct Subscription {
    pub id: String,
    pub account_id: String,
    pub endpoint: String,
    /// The endpoint's host.
    pub service: String,
    pub p256dh: String,
    pub auth: String,
    pub expires_at: Option<i64>,
    /// Which browser on which system, as its `User-Agent` said when it subscribed.
    pub device: String,
    /// The topics pushed to it (bits of [`MailTopic`]).
    pub topics: i32,
    pub created_at: i64,
    pub last_delivered_at: Option<i64>,
    pub last_failed_at: Option<i64>,
    pub last_error: Option<String>,
    pub busy_until: Option<i64>,
    pub last_claimed_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = push_messages)]
pub struct Message {
    pub id: i64,
    pub subscription_id: String,
    pub game_id: String,
    pub kind: String,
    /// The notification's payload, as its feed has it.
    pub payload: String,
    pub created_at: i64,
    pub attempts: i32,
    pub next_attempt_at: i64,
}

/// Adds `subscription`, or, when its endpoint is known already, gives the endpoint to
/// this account with the new keys and topics (a browser has one endpoint per site: the
/// account that subscribed on it last gets its pushes). The subscription as stored, and
/// whether it is new to the account.
pub fn subscribe(
    conn: &mut DbConnection,
    subscription: &Subscription,
) -> Result<(Subscription, bool), StoreError> {
    let existing: Option<Subscription> = push_subscriptions::table
        .filter(push_subscriptions::endpoint.eq(&subscription.endpoint))
        .select(Subscription::as_select())
        .first(conn)
        .optional()?;
    match existing {
        Some(existing) if existing.account_id == subscription.account_id => {
            diesel::update(push_subscriptions::table.find(&existing.id))
                .set((
                    push_subscriptions::p256dh.eq(&subscription.p256dh),
                    push_subscriptions::auth.eq(&subscription.auth),
                    push_subscriptions::expires_at.eq(subscription.expires_at),
                    push_subscriptions::device.eq(&subscription.device),
                    push_subscriptions::topics.eq(subscription.topics),
                ))
                .execute(conn)?;
            let stored = find(conn, &existing.id)?
                .ok_or_else(|| StoreError::Corrupt("a push subscription vanished".into()))?;
            Ok((stored, false))
        }
        other => {
            if let Some(other) = other {
                delete(conn, &other)?;
            }
            diesel::insert_into(push_subscriptions::table)
                .values(subscription)
                .execute(conn)
                .map_err(StoreError::from_insert)?;
            count(conn, &subscription.account_id, 1)?;
            Ok((subscription.clone(), true))
        }
    }
}

/// Changes the account's count of subscriptions by `by`, under the row's lock.
fn count(conn: &mut DbConnection, account_id: &str, by: i32) -> Result<(), StoreError> {
    diesel::update(accounts::table.find(account_id))
        .set(accounts::push_subscription_count.eq(accounts::push_subscription_count + by))
        .execute(conn)?;
    Ok(())
}

/// Locks the account's row and counts its subscriptions: subscriptions made at once on
/// several instances count one another.
pub fn count_locked(conn: &mut DbConnection, account_id: &str) -> Result<i64, StoreError> {
    super::lock_account(conn, account_id)?;
    Ok(push_subscriptions::table
        .filter(push_subscriptions::account_id.eq(account_id))
        .count()
        .get_result(conn)?)
}

pub fn find(conn: &mut DbConnection, id: &str) -> Result<Option<Subscription>, StoreError> {
    Ok(push_subscriptions::table
        .find(id)
        .select(Subscription::as_select())
        .first(conn)
        .optional()?)
}

/// The account's subscriptions, oldest first.
pub fn subscriptions_of(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<Vec<Subscription>, StoreError> {
    Ok(push_subscriptions::table
        .filter(push_subscriptions::account_id.eq(account_id))
        .order((
            push_subscriptions::created_at.asc(),
            push_subscriptions::id.asc(),
        ))
        .select(Subscription::as_select())
        .load(conn)?)
}

/// Removes a subscription with its waiting messages.
pub fn delete(conn: &mut DbConnection, subscription: &Subscription) -> Result<(), StoreError> {
    diesel::delete(
        push_messages::table.filter(push_messages::subscription_id.eq(&subscription.id)),
    )
    .execute(conn)?;
    let removed = diesel::delete(push_subscriptions::table.find(&subscription.id)).execute(conn)?;
    if removed > 0 {
        count(conn, &subscription.account_id, -1)?;
    }
    Ok(())
}

/// Sets the topics pushed to a subscription.
pub fn set_topics(conn: &mut DbConnection, id: &str, topics: i32) -> Result<(), StoreError> {
    diesel::update(push_subscriptions::table.find(id))
        .set(push_subscriptions::topics.eq(topics))
        .execute(conn)?;
    Ok(())
}

/// Queues `notification` (stored as `id`) for the account's subscriptions that take its
/// topic; `has_subscriptions` when the caller read whether it has any with the seats
/// (`None`: look). Nothing when the account was pushed the game and has not looked since,
/// but for a reminder; a message of the game still waiting takes the newer text.
pub fn queue_notification(
    conn: &mut DbConnection,
    notification: &NewNotification,
    has_subscriptions: Option<bool>,
) -> Result<(), StoreError> {
    if has_subscriptions == Some(false) {
        return Ok(());
    }
    let Some(topic) = MailTopic::of_notification(&notification.kind) else {
        return Ok(());
    };
    let account_id = &notification.account_id;
    let now = notification.created_at;
    let subscriptions: Vec<(String, i32, Option<i64>)> = push_subscriptions::table
        .filter(push_subscriptions::account_id.eq(account_id))
        .select((
            push_subscriptions::id,
            push_subscriptions::topics,
            push_subscriptions::expires_at,
        ))
        .load(conn)?;
    let subscriptions: Vec<String> = subscriptions
        .into_iter()
        .filter(|(_, topics, expires_at)| {
            topics & topic.bit() != 0 && expires_at.is_none_or(|at| at > now)
        })
        .map(|(id, _, _)| id)
        .collect();
    if subscriptions.is_empty() {
        return Ok(());
    }
    let unseen = push_unseen::table
        .find((account_id, &notification.game_id))
        .select(push_unseen::pushed_at)
        .first::<i64>(conn)
        .optional()?
        .is_some();
    if unseen && topic != MailTopic::Reminder {
        // Pushed already: only a message still waiting learns what happened since.
        diesel::update(
            push_messages::table
                .filter(push_messages::subscription_id.eq_any(&subscriptions))
                .filter(push_messages::game_id.eq(&notification.game_id)),
        )
        .set((
            push_messages::kind.eq(&notification.kind),
            push_messages::payload.eq(&notification.payload),
        ))
        .execute(conn)?;
        return Ok(());
    }
    if !unseen {
        diesel::insert_into(push_unseen::table)
            .values((
                push_unseen::account_id.eq(account_id),
                push_unseen::game_id.eq(&notification.game_id),
                push_unseen::pushed_at.eq(now),
            ))
            .execute(conn)?;
    }
    for subscription_id in subscriptions {
        queue(
            conn,
            &subscription_id,
            &notification.game_id,
            &notification.kind,
            &notification.payload,
            now,
        )?;
    }
    Ok(())
}

/// Queues a message of `game_id` for a subscription, or gives the one waiting the new
/// text, due now; nothing when the subscription has [`MOST_WAITING`] messages waiting.
pub fn queue(
    conn: &mut DbConnection,
    subscription_id: &str,
    game_id: &str,
    kind: &str,
    payload: &str,
    now: i64,
) -> Result<(), StoreError> {
    let waiting: i64 = push_messages::table
        .filter(push_messages::subscription_id.eq(subscription_id))
        .count()
        .get_result(conn)?;
    if waiting >= MOST_WAITING {
        return Ok(());
    }
    let query = statement(
        conn,
        "INSERT INTO push_messages (subscription_id, game_id, kind, payload, created_at,
             next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $5)
         ON CONFLICT (subscription_id, game_id)
         DO UPDATE SET kind = excluded.kind, payload = excluded.payload",
    )
    .bind::<Text, _>(subscription_id)
    .bind::<Text, _>(game_id)
    .bind::<Text, _>(kind)
    .bind::<Text, _>(payload)
    .bind::<BigInt, _>(now);
    match conn {
        DbConnection::Postgresql(pg) => query.execute(pg)?,
        DbConnection::Sqlite(sqlite) => query.execute(sqlite)?,
    };
    super::changes::record(Change::PushDue);
    Ok(())
}

/// Whether the account was pushed the game and has not looked since.
pub fn is_unseen(
    conn: &mut DbConnection,
    account_id: &str,
    game_id: &str,
) -> Result<bool, StoreError> {
    Ok(push_unseen::table
        .find((account_id, game_id))
        .select(push_unseen::pushed_at)
        .first::<i64>(conn)
        .optional()?
        .is_some())
}

/// The account looked at the game: its next notification is pushed again, and a message
/// of the game still waiting is not sent (it would only tell what the account has seen).
pub fn looked(conn: &mut DbConnection, account_id: &str, game_id: &str) -> Result<(), StoreError> {
    diesel::delete(push_unseen::table.find((account_id, game_id))).execute(conn)?;
    let subscriptions = push_subscriptions::table
        .filter(push_subscriptions::account_id.eq(account_id))
        .select(push_subscriptions::id);
    diesel::delete(
        push_messages::table
            .filter(push_messages::game_id.eq(game_id))
            .filter(push_messages::subscription_id.eq_any(subscriptions)),
    )
    .execute(conn)?;
    Ok(())
}

/// Takes the next message to post, with its subscription, for this instance until
/// `lease_until`: the subscription is claimed as a whole, so a device never has two
/// messages in flight; subscriptions take turns (the one served longest ago first, each
/// account's before any account's second), an account with `most_per_account`
/// subscriptions in flight waits, and so does a push service with `most_per_service`.
/// On PostgreSQL the subscription is locked `FOR UPDATE SKIP LOCKED`, so instances
/// claiming at once take different ones. Must run in a write transaction.
pub fn claim_next(
    conn: &mut DbConnection,
    now: i64,
    lease_until: i64,
    most_per_account: i64,
    most_per_service: i64,
) -> Result<Option<(Message, Subscription)>, StoreError> {
    #[derive(QueryableByName)]
    struct Claimed {
        #[diesel(sql_type = Text)]
        id: String,
    }
    let skip_locked = match conn {
        DbConnection::Postgresql(_) => "FOR UPDATE OF candidate SKIP LOCKED",
        DbConnection::Sqlite(_) => "",
    };
    let sql = format!(
        "UPDATE push_subscriptions SET busy_until = $1, last_claimed_at = $2
         WHERE id = (
             SELECT candidate.id FROM push_subscriptions candidate
             JOIN (SELECT s.id, row_number() OVER (PARTITION BY s.account_id
                       ORDER BY s.last_claimed_at NULLS FIRST, s.id) AS turn
                   FROM push_subscriptions s
                   WHERE (s.busy_until IS NULL OR s.busy_until < $2)
                     AND EXISTS (SELECT 1 FROM push_messages due
                         WHERE due.subscription_id = s.id AND due.next_attempt_at <= $2)
                     AND (SELECT COUNT(*) FROM push_subscriptions busy
                          WHERE busy.account_id = s.account_id
                            AND busy.busy_until >= $2) < $3
                     AND (SELECT COUNT(*) FROM push_subscriptions busy
                          WHERE busy.service = s.service
                            AND busy.busy_until >= $2) < $4) ranked
               ON ranked.id = candidate.id
             WHERE candidate.busy_until IS NULL OR candidate.busy_until < $2
             ORDER BY ranked.turn, candidate.last_claimed_at NULLS FIRST, candidate.id
             LIMIT 1
             {skip_locked})
         RETURNING id"
    );
    let query = statement(conn, &sql)
        .bind::<BigInt, _>(lease_until)
        .bind::<BigInt, _>(now)
        .bind::<BigInt, _>(most_per_account)
        .bind::<BigInt, _>(most_per_service);
    let claimed: Vec<Claimed> = match conn {
        DbConnection::Postgresql(pg) => query.load(pg)?,
        DbConnection::Sqlite(sqlite) => query.load(sqlite)?,
    };
    let Some(claimed) = claimed.into_iter().next() else {
        return Ok(None);
    };
    let Some(subscription) = find(conn, &claimed.id)? else {
        return Ok(None);
    };
    let message: Option<Message> = push_messages::table
        .filter(push_messages::subscription_id.eq(&subscription.id))
        .filter(push_messages::next_attempt_at.le(now))
        .order((push_messages::created_at.asc(), push_messages::id.asc()))
        .select(Message::as_select())
        .first(conn)
        .optional()?;
    let Some(mut message) = message else {
        release(conn, &subscription.id)?;
        return Ok(None);
    };
    diesel::update(push_messages::table.find(message.id))
        .set(push_messages::attempts.eq(push_messages::attempts + 1))
        .execute(conn)?;
    message.attempts += 1;
    Ok(Some((message, subscription)))
}

fn release(conn: &mut DbConnection, subscription_id: &str) -> Result<(), StoreError> {
    diesel::update(push_subscriptions::table.find(subscription_id))
        .set(push_subscriptions::busy_until.eq(None::<i64>))
        .execute(conn)?;
    Ok(())
}

/// Messages due by `now` whose subscription no instance is posting to.
pub fn count_due(conn: &mut DbConnection, now: i64) -> Result<i64, StoreError> {
    Ok(push_messages::table
        .inner_join(push_subscriptions::table)
        .filter(push_messages::next_attempt_at.le(now))
        .filter(
            push_subscriptions::busy_until
                .is_null()
                .or(push_subscriptions::busy_until.lt(now)),
        )
        .count()
        .get_result(conn)?)
}

/// How one post of a message went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The push service took it.
    Delivered,
    /// Try again at `retry_at`, or never (`None`): the message is dropped.
    Failed {
        error: String,
        retry_at: Option<i64>,
    },
    /// The subscription is gone (404 or 410): it is removed with its messages.
    Gone,
}

/// Records how the post of `message` went and lets its subscription be claimed again.
pub fn record(
    conn: &mut DbConnection,
    message: &Message,
    subscription: &Subscription,
    now: i64,
    outcome: &Outcome,
) -> Result<(), StoreError> {
    match outcome {
        Outcome::Gone => return delete(conn, subscription),
        Outcome::Delivered => {
            diesel::delete(push_messages::table.find(message.id)).execute(conn)?;
            diesel::update(push_subscriptions::table.find(&subscription.id))
                .set(push_subscriptions::last_delivered_at.eq(Some(now)))
                .execute(conn)?;
        }
        Outcome::Failed { error, retry_at } => {
            match retry_at {
                Some(at) => diesel::update(push_messages::table.find(message.id))
                    .set(push_messages::next_attempt_at.eq(*at))
                    .execute(conn)?,
                None => diesel::delete(push_messages::table.find(message.id)).execute(conn)?,
            };
            diesel::update(push_subscriptions::table.find(&subscription.id))
                .set((
                    push_subscriptions::last_failed_at.eq(Some(now)),
                    push_subscriptions::last_error.eq(Some(error)),
                ))
                .execute(conn)?;
        }
    }
    release(conn, &subscription.id)
}

/// Forgets the games pushed before `before` whose account never looked: their next
/// notification is pushed again.
pub fn forget_unseen_before(conn: &mut DbConnection, before: i64) -> Result<(), StoreError> {
    diesel::delete(push_unseen::table.filter(push_unseen::pushed_at.lt(before))).execute(conn)?;
    Ok(())
}

/// Removes the subscriptions whose browser said they expire by `now`: a push to them
/// would only be refused.
pub fn remove_expired(conn: &mut DbConnection, now: i64) -> Result<usize, StoreError> {
    let expired: Vec<Subscription> = push_subscriptions::table
        .filter(push_subscriptions::expires_at.le(now))
        .select(Subscription::as_select())
        .limit(500)
        .load(conn)?;
    for subscription in &expired {
        delete(conn, subscription)?;
    }
    Ok(expired.len())
}
