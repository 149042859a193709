//! Delivering webhooks: a bounded pool of concurrent posts on every instance. A webhook is
//! claimed as a whole while one of its deliveries is posted (see
//! `store::notifications::claim_next_delivery`), so a receiver has at most one delivery in
//! flight and a hanging one holds one slot of the pool for at most the timeout; webhooks
//! take turns, and so do accounts, each with at most a few webhooks in flight. Deliveries
//! are signed the Standard Webhooks way and retried with backoff.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio::sync::{Notify, Semaphore};

use super::{blocking, Workers};
use crate::outbound::Outbound;
use crate::service::now_millis;
use crate::store::notifications::{self, AttemptResult, Delivery, Webhook};

/// How long an instance holds a claimed webhook before another may retry its delivery.
const LEASE_MILLIS: i64 = 60_000;
/// Delays before the 2nd, 3rd, ... attempt; after the last, the delivery is given up.
const BACKOFF_SECONDS: [i64; 7] = [5, 30, 120, 600, 1_800, 3_600, 10_800];

#[derive(Debug, Clone)]
pub struct DeliverySettings {
    /// Where deliveries may go; names are looked up once per attempt and connected to as
    /// judged.
    pub outbound: Outbound,
    /// How often an idle pool looks for due deliveries without being woken.
    pub poll: Duration,
    /// How long a receiver has to answer.
    pub timeout: Duration,
    /// Posts in flight at once on this instance.
    pub concurrency: usize,
    /// Webhooks of one account in flight at once (on each instance).
    pub per_account: usize,
}

/// The `webhook-signature` of `body`: `v1,` and base64 of HMAC-SHA256 over
/// `{id}.{timestamp}.{body}` keyed with the secret's decoded bytes.
pub fn signature(secret: &str, id: &str, timestamp: i64, body: &str) -> String {
    let encoded = secret.strip_prefix("whsec_").unwrap_or(secret);
    let key = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap_or_else(|_| encoded.as_bytes().to_vec());
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes keys of any length");
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    )
}

/// The body posted for `delivery`: its type, when, and the notification.
pub fn body(delivery: &Delivery) -> String {
    let data: serde_json::Value = serde_json::from_str(&delivery.payload).unwrap_or_default();
    serde_json::json!({
        "type": delivery.kind,
        "timestamp": crate::service::format_time(delivery.created_at),
        "data": data,
    })
    .to_string()
}

/// Runs forever: claims due deliveries while the pool has room, and posts each in a task
/// of its own.
pub async fn run(workers: Workers, settings: DeliverySettings) {
    let client = match settings.outbound.client(settings.timeout) {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "webhook deliveries are off: no HTTP client");
            return;
        }
    };
    let pool = Arc::new(Semaphore::new(settings.concurrency.max(1)));
    // A post that ended frees its webhook, whose next delivery may be due already.
    let ended = Arc::new(Notify::new());
    loop {
        let Ok(slot) = pool.clone().acquire_owned().await else {
            return;
        };
        let woken = workers.hub.delivery_due.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let (db, per_account) = (workers.db.clone(), settings.per_account as i64);
        let claimed = blocking(move || {
            let now = now_millis();
            let due =
                db.read_without_transaction(|conn| notifications::count_due_deliveries(conn, now));
            if !matches!(due, Ok(count) if count > 0) {
                return Ok(None);
            }
            db.write(|conn| {
                notifications::claim_next_delivery(conn, now, now + LEASE_MILLIS, per_account)
            })
        })
        .await;
        match claimed {
            Some(Ok(Some((delivery, webhook)))) => {
                let (workers, client, settings, ended) = (
                    workers.clone(),
                    client.clone(),
                    settings.clone(),
                    ended.clone(),
                );
                actix_web::rt::spawn(async move {
                    let result = attempt(&client, &delivery, &webhook, &settings).await;
                    let outcome = match result {
                        AttemptResult::Delivered { .. } => "delivered",
                        AttemptResult::Failed { .. } => "failed",
                    };
                    workers
                        .metrics
                        .webhook_attempts
                        .with_label_values(&[outcome])
                        .inc();
                    let db = workers.db.clone();
                    let recorded = blocking(move || {
                        db.write(|conn| {
                            notifications::record_attempt(
                                conn,
                                &delivery.id,
                                &webhook.id,
                                now_millis(),
                                &result,
                            )
                        })
                    })
                    .await;
                    if let Some(Err(error)) = recorded {
                        tracing::warn!(%error, "recording a webhook attempt failed");
                    }
                    drop(slot);
                    ended.notify_one();
                });
            }
            other => {
                drop(slot);
                if let Some(Err(error)) = other {
                    tracing::warn!(%error, "claiming a webhook delivery failed");
                }
                tokio::select! {
                    _ = woken => {}
                    _ = ended.notified() => {}
                    _ = tokio::time::sleep(settings.poll) => {}
                }
            }
        }
    }
}

/// Posts `delivery` once.
async fn attempt(
    client: &reqwest::Client,
    delivery: &Delivery,
    webhook: &Webhook,
    settings: &DeliverySettings,
) -> AttemptResult {
    let attempts = delivery.attempts + 1;
    let retry = |status: Option<i32>, error: String| {
        let delay = usize::try_from(attempts - 1)
            .ok()
            .and_then(|index| BACKOFF_SECONDS.get(index));
        AttemptResult::Failed {
            status,
            error,
            next_attempt_at: now_millis() + delay.copied().unwrap_or(0) * 1_000,
            give_up: delay.is_none(),
        }
    };
    // A name is judged by the client's resolver on the lookup it connects with; an address
    // written out is never looked up, so it is judged here (again: the policy may have
    // changed since the webhook was registered).
    let url = match crate::outbound::parse_url(&webhook.url) {
        Ok(url) if settings.outbound.check_literal(&url).is_ok() => url,
        _ => return retry(None, could_not_deliver("refused address")),
    };
    let body = body(delivery);
    let timestamp = now_millis() / 1_000;
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header(
            "user-agent",
            concat!("turnpost-webhooks/", env!("CARGO_PKG_VERSION")),
        )
        .header("webhook-id", &delivery.id)
        .header("webhook-timestamp", timestamp.to_string())
        .header(
            "webhook-signature",
            signature(&webhook.secret, &delivery.id, timestamp, &body),
        )
        .body(body)
        .send()
        .await;
    match response {
        Ok(response) if response.status().is_success() => AttemptResult::Delivered {
            status: i32::from(response.status().as_u16()),
        },
        Ok(response) => retry(
            Some(i32::from(response.status().as_u16())),
            could_not_deliver(&format!("HTTP {}", response.status().as_u16())),
        ),
        Err(error) => {
            tracing::debug!(%error, webhook = %webhook.id, "a webhook delivery failed");
            retry(
                None,
                could_not_deliver(crate::outbound::failure_category(&error)),
            )
        }
    }
}

/// The error an account sees for a failed attempt: a category, not the transport's words.
fn could_not_deliver(category: &str) -> String {
    format!("could not deliver: {category}")
}
