//! An account's notifications and its webhooks' outbox. Notifications are written by
//! [`super::append`] in the transaction of the events that cause them, and so is one
//! delivery per webhook of the account; deliveries are claimed by one instance at a time
//! with a guarded update, like appends are guarded by the expected seq.

use diesel::prelude::*;

use super::schema::{notifications, webhook_deliveries, webhooks};
use super::{DbConnection, StoreError};

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

#[derive(Debug, Clone, PartialEq, Insertable)]
#[diesel(table_name = notifications)]
pub struct NewNotification {
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
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = rand::thread_rng();
    let random: String = (0..24)
        .map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())]))
        .collect();
    format!("msg_{random}")
}

/// Stores `notification` and queues it for every webhook of its account.
pub fn notify(
    conn: &mut DbConnection,
    notification: &NewNotification,
    delivery_id: impl Fn() -> String,
) -> Result<i64, StoreError> {
    let id: i64 = diesel::insert_into(notifications::table)
        .values(notification)
        .returning(notifications::id)
        .get_result(conn)?;
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
        diesel::insert_into(webhook_deliveries::table)
            .values(&delivery)
            .execute(conn)?;
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

pub fn insert_webhook(conn: &mut DbConnection, webhook: &Webhook) -> Result<(), StoreError> {
    diesel::insert_into(webhooks::table)
        .values(webhook)
        .execute(conn)?;
    Ok(())
}

pub fn webhooks_of(conn: &mut DbConnection, account_id: &str) -> Result<Vec<Webhook>, StoreError> {
    Ok(webhooks::table
        .filter(webhooks::account_id.eq(account_id))
        .order(webhooks::created_at.asc())
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
    diesel::delete(webhooks::table.find(id)).execute(conn)?;
    Ok(())
}

pub fn insert_delivery(conn: &mut DbConnection, delivery: &Delivery) -> Result<(), StoreError> {
    diesel::insert_into(webhook_deliveries::table)
        .values(delivery)
        .execute(conn)?;
    Ok(())
}

/// A webhook's most recent deliveries, newest first.
pub fn recent_deliveries(
    conn: &mut DbConnection,
    webhook_id: &str,
    limit: i64,
) -> Result<Vec<Delivery>, StoreError> {
    Ok(webhook_deliveries::table
        .filter(webhook_deliveries::webhook_id.eq(webhook_id))
        .order((
            webhook_deliveries::created_at.desc(),
            webhook_deliveries::id.desc(),
        ))
        .limit(limit)
        .select(Delivery::as_select())
        .load(conn)?)
}

/// Deliveries due at `now` that no instance holds.
pub fn due_deliveries(
    conn: &mut DbConnection,
    now: i64,
    limit: i64,
) -> Result<Vec<(Delivery, Webhook)>, StoreError> {
    let due: Vec<Delivery> = webhook_deliveries::table
        .filter(webhook_deliveries::delivered_at.is_null())
        .filter(webhook_deliveries::failed_at.is_null())
        .filter(webhook_deliveries::next_attempt_at.le(now))
        .filter(
            webhook_deliveries::claimed_until
                .is_null()
                .or(webhook_deliveries::claimed_until.lt(now)),
        )
        .order(webhook_deliveries::created_at.asc())
        .limit(limit)
        .select(Delivery::as_select())
        .load(conn)?;
    let mut found = Vec::with_capacity(due.len());
    for delivery in due {
        if let Some(webhook) = find_webhook(conn, &delivery.webhook_id)? {
            found.push((delivery, webhook));
        }
    }
    Ok(found)
}

/// Takes `id` for this instance until `until`, if no other instance holds it and it is still
/// undelivered: true when this instance now owns the attempt.
pub fn claim_delivery(
    conn: &mut DbConnection,
    id: &str,
    now: i64,
    until: i64,
) -> Result<bool, StoreError> {
    let claimed = diesel::update(
        webhook_deliveries::table
            .find(id)
            .filter(webhook_deliveries::delivered_at.is_null())
            .filter(webhook_deliveries::failed_at.is_null())
            .filter(
                webhook_deliveries::claimed_until
                    .is_null()
                    .or(webhook_deliveries::claimed_until.lt(now)),
            ),
    )
    .set((
        webhook_deliveries::claimed_until.eq(until),
        webhook_deliveries::attempts.eq(webhook_deliveries::attempts + 1),
    ))
    .execute(conn)?;
    Ok(claimed == 1)
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

pub fn record_attempt(
    conn: &mut DbConnection,
    id: &str,
    now: i64,
    result: &AttemptResult,
) -> Result<(), StoreError> {
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
