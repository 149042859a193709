//! Delivering webhooks: a background task on every instance takes due deliveries from the
//! outbox, each claimed by one instance at a time (a guarded update in the database, so
//! several instances never post one delivery twice while it is claimed), signs them the
//! Standard Webhooks way and posts them, retrying with backoff.

use std::time::Duration;

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::service::now_millis;
use crate::service::webhooks::check_address;
use crate::store::notifications::{self, AttemptResult, Delivery, Webhook};
use crate::store::{Db, StoreError};

/// How long an instance holds a claimed delivery before another may retry it.
const LEASE_MILLIS: i64 = 60_000;
/// Delays before the 2nd, 3rd, ... attempt; after the last, the delivery is given up.
const BACKOFF_SECONDS: [i64; 7] = [5, 30, 120, 600, 1_800, 3_600, 10_800];

#[derive(Debug, Clone)]
pub struct DeliverySettings {
    pub allow_private: bool,
    pub poll: Duration,
    pub timeout: Duration,
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

/// Runs forever: takes due deliveries and posts them.
pub async fn run(db: actix_web::web::Data<Db>, settings: DeliverySettings) {
    let client = match reqwest::Client::builder()
        .timeout(settings.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "webhook deliveries are off: no HTTP client");
            return;
        }
    };
    loop {
        tokio::time::sleep(settings.poll).await;
        let due = {
            let db = db.clone();
            tokio::task::spawn_blocking(move || {
                db.read(|conn| notifications::due_deliveries(conn, now_millis(), 16))
            })
            .await
        };
        let due: Vec<(Delivery, Webhook)> = match due {
            Ok(Ok(due)) => due,
            Ok(Err(error)) => {
                tracing::warn!(%error, "reading due webhook deliveries failed");
                continue;
            }
            Err(_) => continue,
        };
        for (delivery, webhook) in due {
            let claimed = {
                let (db, id) = (db.clone(), delivery.id.clone());
                tokio::task::spawn_blocking(move || {
                    let now = now_millis();
                    db.write(|conn| {
                        notifications::claim_delivery(conn, &id, now, now + LEASE_MILLIS)
                    })
                })
                .await
            };
            if !matches!(claimed, Ok(Ok(true))) {
                continue;
            }
            let result = attempt(&client, &delivery, &webhook, &settings).await;
            let (db, id) = (db.clone(), delivery.id.clone());
            let recorded = tokio::task::spawn_blocking(move || {
                db.write(|conn| notifications::record_attempt(conn, &id, now_millis(), &result))
            })
            .await;
            if let Ok(Err::<(), StoreError>(error)) = recorded {
                tracing::warn!(%error, "recording a webhook attempt failed");
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
    // Checked again at each attempt: a name may resolve elsewhere than when it was registered.
    let url = {
        let (url, allow) = (webhook.url.clone(), settings.allow_private);
        match tokio::task::spawn_blocking(move || check_address(&url, allow)).await {
            Ok(Ok(url)) => url,
            Ok(Err(reason)) => return retry(None, reason),
            Err(_) => return retry(None, "address check failed".into()),
        }
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
            format!("the receiver answered {}", response.status()),
        ),
        Err(error) => retry(None, error.to_string()),
    }
}
