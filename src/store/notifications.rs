//! An account's notifications and its webhooks' outbox. Notifications are written by
//! [`super::append`] in the transaction of the events that cause them, and so is one
//! delivery per webhook of the account. A webhook is claimed by one instance at a time
//! while it posts one of its deliveries (see [`claim_next_delivery`]).

use diesel::prelude::*;

pub use super::notice::NewNotification;
use super::schema::{accounts, notifications, webhook_deliveries, webhooks};
use super::{Change, DbConnection, StoreError};

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = notifications)]
pub struct Notification {
    pub id: i64,
    pub account_id: String,
    pub game_id: String,
    pub kind: String,
    pub seq: i64,
    pub payload: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = webhooks)]
pub struct Webhook {
    pub id: String,
    pub account_id: String,
    pub url: String,
    pub secret: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = webhook_deliveries)]
pub struct Delivery {
    pub id: String,
    pub webhook_id: String,
    pub notification_id: Option<i64>,
    pub kind: String,
    pub payload: String,
    pub created_at: i64,
    pub attempts: i32,
    pub next_attempt_at: i64,
    pub claimed_until: Option<i64>,
    pub delivered_at: Option<i64>,
    pub failed_at: Option<i64>,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
}

impl Delivery {
    /// A delivery due now, not yet attempted.
    pub fn pending(
        id: String,
        webhook_id: String,
        notification_id: Option<i64>,
        kind: String,
        payload: String,
        now: i64,
    ) -> Delivery {
        Delivery {
            id,
            webhook_id,
            notification_id,
            kind,
            payload,
            created_at: now,
            attempts: 0,
            next_attempt_at: now,
            claimed_until: None,
            delivered_at: None,
            failed_at: None,
            last_status: None,
            last_error: None,
        }
    }
}

/// A fresh delivery id (the `webhook-id` a receiver deduplicates on).
pub fn delivery_id() -> String {
    format!("msg_{}", super::random_id(24))
}

/// Where an account's notifications go beside its feed, as read with the account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Channels {
    /// The account has a webhook.
    pub webhooks: bool,
    /// The topics mailed to its confirmed address (see [`super::email::MailTopic`]).
    pub mail_topics: i32,
    /// The account has Web Push subscriptions.
    pub push: bool,
}

/// Stores `notification`, queues it for every webhook of its account, for its mail when
/// the account has its topic mailed, and for its Web Push subscriptions.
pub fn notify(
    conn: &mut DbConnection,
    notification: &NewNotification,
    delivery_id: impl Fn() -> String,
) -> Result<i64, StoreError> {
    notify_knowing(conn, notification, delivery_id, None)
}

/// [`notify`], told by `channels` where the account's notifications go when the caller
/// read that with what it acts on (`None`: look them up). A webhook registered or an
/// address confirmed after that read gets the notifications that come after it.
pub fn notify_knowing(
    conn: &mut DbConnection,
    notification: &NewNotification,
    delivery_id: impl Fn() -> String,
    channels: Option<Channels>,
) -> Result<i64, StoreError> {
    let insert = diesel::insert_into(notifications::table)
        .values(notification)
        .returning(notifications::id);
    let id: i64 = super::on_backend!(&mut *conn, |c| insert.get_result(c))?;
    super::changes::record(Change::Notified {
        account_id: notification.account_id.clone(),
        id,
    });
    super::email::queue_notification(
        conn,
        notification,
        id,
        channels.map(|channels| channels.mail_topics),
    )?;
    super::web_push::queue_notification(
        conn,
        notification,
        channels.map(|channels| channels.push),
    )?;
    if channels.is_some_and(|channels| !channels.webhooks) {
        return Ok(id);
    }
    let hooks: Vec<String> = webhooks::table
        .filter(webhooks::account_id.eq(&notification.account_id))
        .select(webhooks::id)
        .load(conn)?;
    for webhook_id in hooks {
        let delivery = Delivery::pending(
            delivery_id(),
            webhook_id,
            Some(id),
            notification.kind.clone(),
            notification.payload.clone(),
            notification.created_at,
        );
        insert_delivery(conn, &delivery)?;
    }
    Ok(id)
}

/// The account's notifications after `after`, oldest first.
pub fn notifications_after(
    conn: &mut DbConnection,
    account_id: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<Notification>, StoreError> {
    Ok(notifications::table
        .filter(notifications::account_id.eq(account_id))
        .filter(notifications::id.gt(after))
        .order(notifications::id.asc())
        .limit(limit)
        .select(Notification::as_select())
        .load(conn)?)
}

/// The id of the account's newest notification (0 when none).
pub fn last_notification_id(conn: &mut DbConnection, account_id: &str) -> Result<i64, StoreError> {
    Ok(notifications::table
        .filter(notifications::account_id.eq(account_id))
        .select(diesel::dsl::max(notifications::id))
        .first::<Option<i64>>(conn)?
        .unwrap_or(0))
}

/// Adds the webhook and counts it with its account; in the caller's transaction.
pub fn insert_webhook(conn: &mut DbConnection, webhook: &Webhook) -> Result<(), StoreError> {
    diesel::insert_into(webhooks::table)
        .values(webhook)
        .execute(conn)?;
    count_webhooks(conn, &webhook.account_id, 1)
}

/// Changes the account's count of webhooks by `by`: an increment under the row's lock, so
/// that concurrent registrations and removals add up.
fn count_webhooks(conn: &mut DbConnection, account_id: &str, by: i32) -> Result<(), StoreError> {
    diesel::update(accounts::table.find(account_id))
        .set(accounts::webhook_count.eq(accounts::webhook_count + by))
        .execute(conn)?;
    Ok(())
}

pub fn webhooks_of(conn: &mut DbConnection, account_id: &str) -> Result<Vec<Webhook>, StoreError> {
    Ok(webhooks::table
        .filter(webhooks::account_id.eq(account_id))
        .order((webhooks::created_at.asc(), webhooks::id.asc()))
        .select(Webhook::as_select())
        .load(conn)?)
}

pub fn find_webhook(conn: &mut DbConnection, id: &str) -> Result<Option<Webhook>, StoreError> {
    Ok(webhooks::table
        .find(id)
        .select(Webhook::as_select())
        .first(conn)
        .optional()?)
}

/// Removes a webhook with its deliveries.
pub fn delete_webhook(conn: &mut DbConnection, id: &str) -> Result<(), StoreError> {
    diesel::delete(webhook_deliveries::table.filter(webhook_deliveries::webhook_id.eq(id)))
        .execute(conn)?;
    let removed: Vec<String> = diesel::delete(webhooks::table.find(id))
        .returning(webhooks::account_id)
        .get_results(conn)?;
    for account_id in removed {
        count_webhooks(conn, &account_id, -1)?;
    }
    Ok(())
}

pub fn insert_delivery(conn: &mut DbConnection, delivery: &Delivery) -> Result<(), StoreError> {
    diesel::insert_into(webhook_deliveries::table)
        .values(delivery)
        .execute(conn)?;
    super::changes::record(Change::DeliveryDue);
    Ok(())
}

/// A webhook's most recent deliveries, newest first: at most `limit`, older than `before`
/// (a delivery's creation time and id).
pub fn recent_deliveries(
    conn: &mut DbConnection,
    webhook_id: &str,
    limit: i64,
    before: Option<&(i64, String)>,
) -> Result<Vec<Delivery>, StoreError> {
    let mut query = webhook_deliveries::table
        .filter(webhook_deliveries::webhook_id.eq(webhook_id))
        .into_boxed();
    if let Some((created_at, id)) = before {
        query = query.filter(
            webhook_deliveries::created_at
                .lt(*created_at)
                .or(webhook_deliveries::created_at
                    .eq(*created_at)
                    .and(webhook_deliveries::id.lt(id.clone()))),
        );
    }
    Ok(query
        .order((
            webhook_deliveries::created_at.desc(),
            webhook_deliveries::id.desc(),
        ))
        .limit(limit)
        .select(Delivery::as_select())
        .load(conn)?)
}

/// Takes the next delivery to post, with its webhook, for this instance until
/// `lease_until`: the webhook is claimed as a whole, so a receiver never has two deliveries
/// in flight; webhooks take turns (the one served longest ago first, each account's before
/// any account's second), and an account with `most_per_account` webhooks in flight waits.
/// On PostgreSQL the webhook is locked `FOR UPDATE SKIP LOCKED`, so instances claiming at
/// once take different webhooks. Must run in a write transaction.
pub fn claim_next_delivery(
    conn: &mut DbConnection,
    now: i64,
    lease_until: i64,
    most_per_account: i64,
) -> Result<Option<(Delivery, Webhook)>, StoreError> {
    use diesel::sql_types::{BigInt, Text};
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
        "UPDATE webhooks SET busy_until = $1, last_claimed_at = $2
         WHERE id = (
             SELECT candidate.id FROM webhooks candidate
             JOIN (SELECT w.id, row_number() OVER (PARTITION BY w.account_id
                       ORDER BY w.last_claimed_at NULLS FIRST, w.id) AS turn
                   FROM webhooks w
                   WHERE (w.busy_until IS NULL OR w.busy_until < $2)
                     AND EXISTS (SELECT 1 FROM webhook_deliveries due
                         WHERE due.webhook_id = w.id AND due.delivered_at IS NULL
                           AND due.failed_at IS NULL AND due.next_attempt_at <= $2)
                     AND (SELECT COUNT(*) FROM webhooks busy
                          WHERE busy.account_id = w.account_id
                            AND busy.busy_until >= $2) < $3) ranked
               ON ranked.id = candidate.id
             WHERE candidate.busy_until IS NULL OR candidate.busy_until < $2
             ORDER BY ranked.turn, candidate.last_claimed_at NULLS FIRST, candidate.id
             LIMIT 1
             {skip_locked})
         RETURNING id"
    );
    let query = |sql: String| {
        diesel::sql_query(sql)
            .bind::<BigInt, _>(lease_until)
            .bind::<BigInt, _>(now)
            .bind::<BigInt, _>(most_per_account)
    };
    let claimed: Vec<Claimed> = match conn {
        DbConnection::Postgresql(pg) => query(sql).load(pg)?,
        DbConnection::Sqlite(sqlite) => query(sql.replace('$', "?")).load(sqlite)?,
    };
    let Some(claimed) = claimed.into_iter().next() else {
        return Ok(None);
    };
    let Some(webhook) = find_webhook(conn, &claimed.id)? else {
        return Ok(None);
    };
    let delivery: Option<Delivery> = webhook_deliveries::table
        .filter(webhook_deliveries::webhook_id.eq(&webhook.id))
        .filter(webhook_deliveries::delivered_at.is_null())
        .filter(webhook_deliveries::failed_at.is_null())
        .filter(webhook_deliveries::next_attempt_at.le(now))
        // In the order the notifications were written.
        .order((
            webhook_deliveries::created_at.asc(),
            webhook_deliveries::notification_id.asc(),
            webhook_deliveries::id.asc(),
        ))
        .select(Delivery::as_select())
        .first(conn)
        .optional()?;
    let Some(mut delivery) = delivery else {
        release_webhook(conn, &webhook.id)?;
        return Ok(None);
    };
    diesel::update(webhook_deliveries::table.find(&delivery.id))
        .set((
            webhook_deliveries::claimed_until.eq(lease_until),
            webhook_deliveries::attempts.eq(webhook_deliveries::attempts + 1),
        ))
        .execute(conn)?;
    delivery.claimed_until = Some(lease_until);
    Ok(Some((delivery, webhook)))
}

/// Lets other deliveries to webhook `id` be claimed.
fn release_webhook(conn: &mut DbConnection, id: &str) -> Result<(), StoreError> {
    diesel::update(webhooks::table.find(id))
        .set(webhooks::busy_until.eq(None::<i64>))
        .execute(conn)?;
    Ok(())
}

/// Deliveries due by `now` that no instance is posting.
pub fn count_due_deliveries(conn: &mut DbConnection, now: i64) -> Result<i64, StoreError> {
    Ok(webhook_deliveries::table
        .filter(webhook_deliveries::delivered_at.is_null())
        .filter(webhook_deliveries::failed_at.is_null())
        .filter(webhook_deliveries::next_attempt_at.le(now))
        .count()
        .get_result(conn)?)
}

/// When the next delivery falls due, if any waits.
pub fn next_delivery_due(conn: &mut DbConnection) -> Result<Option<i64>, StoreError> {
    Ok(webhook_deliveries::table
        .filter(webhook_deliveries::delivered_at.is_null())
        .filter(webhook_deliveries::failed_at.is_null())
        .select(diesel::dsl::min(webhook_deliveries::next_attempt_at))
        .first::<Option<i64>>(conn)?)
}

/// What one attempt came to.
pub enum AttemptResult {
    Delivered {
        status: i32,
    },
    /// Try again at `next_attempt_at`, or never (`give_up`).
    Failed {
        status: Option<i32>,
        error: String,
        next_attempt_at: i64,
        give_up: bool,
    },
}

/// Records how the attempt at delivery `id` went and lets its webhook be claimed again.
pub fn record_attempt(
    conn: &mut DbConnection,
    id: &str,
    webhook_id: &str,
    now: i64,
    result: &AttemptResult,
) -> Result<(), StoreError> {
    release_webhook(conn, webhook_id)?;
    let target = webhook_deliveries::table.find(id);
    match result {
        AttemptResult::Delivered { status } => diesel::update(target)
            .set((
                webhook_deliveries::delivered_at.eq(Some(now)),
                webhook_deliveries::claimed_until.eq(None::<i64>),
                webhook_deliveries::last_status.eq(Some(*status)),
                webhook_deliveries::last_error.eq(None::<String>),
            ))
            .execute(conn)?,
        AttemptResult::Failed {
            status,
            error,
            next_attempt_at,
            give_up,
        } => diesel::update(target)
            .set((
                webhook_deliveries::next_attempt_at.eq(*next_attempt_at),
                webhook_deliveries::claimed_until.eq(None::<i64>),
                webhook_deliveries::failed_at.eq(give_up.then_some(now)),
                webhook_deliveries::last_status.eq(*status),
                webhook_deliveries::last_error.eq(Some(error.clone())),
            ))
            .execute(conn)?,
    };
    Ok(())
}

/// The newest notification id of each of these accounts that has any.
pub fn last_notification_ids(
    conn: &mut DbConnection,
    account_ids: &[String],
) -> Result<Vec<(String, i64)>, StoreError> {
    let rows: Vec<(String, Option<i64>)> = notifications::table
        .filter(notifications::account_id.eq_any(account_ids))
        .group_by(notifications::account_id)
        .select((
            notifications::account_id,
            diesel::dsl::max(notifications::id),
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|(account, id)| Some((account, id?)))
        .collect())
}
