//! Webhooks an account registers for its notifications: registering (the address checked,
//! a signing secret issued once), listing, removing, recent deliveries and test deliveries.

use base64::Engine as _;

use super::{now_millis, random_id};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::outbound::Outbound;
use crate::store::notifications::{self, Delivery, Webhook};
use crate::store::Db;

/// Webhooks one account may have.
pub const WEBHOOKS_PER_ACCOUNT: usize = 10;

/// A new signing secret in the Standard Webhooks form: `whsec_` and base64 of 32 random bytes.
fn new_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Refuses when the caller has as many webhooks as allowed: asked before the address is
/// looked up, so an account at its quota costs no lookup.
pub fn ensure_room(db: &Db, user: &AuthUser) -> Result<(), ApiError> {
    db.read(|conn| {
        if notifications::webhooks_of(conn, &user.account_id)?.len() >= WEBHOOKS_PER_ACCOUNT {
            return Err(quota_reached());
        }
        Ok(())
    })
}

fn quota_reached() -> ApiError {
    ApiError::conflict(
        "webhook_quota",
        format!("an account has at most {WEBHOOKS_PER_ACCOUNT} webhooks"),
    )
}

/// Checks `url` as a webhook address (see [`Outbound::check_url`]).
pub async fn check_url(outbound: &Outbound, url: &str) -> Result<reqwest::Url, ApiError> {
    if url.len() > 2_000 {
        return Err(ApiError::unprocessable(
            "invalid_webhook_url",
            "the URL is longer than 2,000 characters",
        ));
    }
    outbound
        .check_url(url)
        .await
        .map_err(|problem| ApiError::unprocessable("invalid_webhook_url", problem.to_string()))
}

/// Registers the checked `url` for the caller's notifications; returns the webhook with
/// its secret. The quota is checked again in the write, with the account's row held: two
/// registrations at once cannot both take the last place.
pub fn register(db: &Db, user: &AuthUser, url: &reqwest::Url) -> Result<Webhook, ApiError> {
    db.write(|conn| {
        crate::store::lock_account(conn, &user.account_id)?;
        if notifications::webhooks_of(conn, &user.account_id)?.len() >= WEBHOOKS_PER_ACCOUNT {
            return Err(quota_reached());
        }
        let webhook = Webhook {
            id: format!("wh_{}", random_id(16)),
            account_id: user.account_id.clone(),
            url: url.to_string(),
            secret: new_secret(),
            created_at: now_millis(),
        };
        notifications::insert_webhook(conn, &webhook)?;
        Ok(webhook)
    })
}

pub fn list(db: &Db, user: &AuthUser) -> Result<Vec<Webhook>, ApiError> {
    db.read(|conn| Ok(notifications::webhooks_of(conn, &user.account_id)?))
}

/// The caller's webhook `id`; anyone else's is not found.
fn own(
    conn: &mut crate::store::DbConnection,
    user: &AuthUser,
    id: &str,
) -> Result<Webhook, ApiError> {
    notifications::find_webhook(conn, id)?
        .filter(|webhook| webhook.account_id == user.account_id)
        .ok_or_else(|| {
            ApiError::not_found("webhook_not_found", format!("you have no webhook {id:?}"))
        })
}

pub fn delete(db: &Db, user: &AuthUser, id: &str) -> Result<(), ApiError> {
    db.write(|conn| {
        own(conn, user, id)?;
        notifications::delete_webhook(conn, id)?;
        Ok(())
    })
}

pub fn deliveries(
    db: &Db,
    user: &AuthUser,
    id: &str,
    limit: i64,
    before: Option<&(i64, String)>,
) -> Result<Vec<Delivery>, ApiError> {
    db.read(|conn| {
        own(conn, user, id)?;
        Ok(notifications::recent_deliveries(conn, id, limit, before)?)
    })
}

/// Queues a `test` delivery to webhook `id`.
pub fn send_test(db: &Db, user: &AuthUser, id: &str) -> Result<Delivery, ApiError> {
    db.write(|conn| {
        let webhook = own(conn, user, id)?;
        let now = now_millis();
        let payload = serde_json::json!({"type": "test", "webhook_id": webhook.id});
        let delivery = Delivery::pending(
            notifications::delivery_id(),
            webhook.id,
            None,
            "test".into(),
            payload.to_string(),
            now,
        );
        notifications::insert_delivery(conn, &delivery)?;
        Ok(delivery)
    })
}
