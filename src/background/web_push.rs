//! Sending Web Push messages: a bounded pool of concurrent posts on every instance, like
//! the webhooks'. A subscription is claimed as a whole while one of its messages is posted
//! (`store::web_push::claim_next`), so a device has at most one message in flight;
//! subscriptions take turns, and so do accounts, each with at most a few in flight, and a
//! push service with at most its share of the pool, so one that hangs delays no other.
//! Each message is encrypted to its subscription (RFC 8291) and signed with the server's
//! VAPID key (RFC 8292); failures are retried with backoff, a subscription the push
//! service no longer knows (404, 410) is removed.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, Semaphore};

use super::{blocking, Workers};
use crate::outbound::Outbound;
use crate::service::now_millis;
use crate::service::people::name_games_in;
use crate::store::web_push::{self as stored, Message, Outcome, Subscription, TEST_KIND};
use crate::web_push::encryption::{self, Recipient};
use crate::web_push::VapidKey;

/// How long an instance holds a claimed subscription before another may retry its message.
const LEASE_MILLIS: i64 = 60_000;
/// Delays before the 2nd, 3rd, ... attempt; after the last, the message is dropped (it
/// would be stale by then).
const BACKOFF_SECONDS: [i64; 5] = [5, 30, 120, 600, 1_800];
/// The longest `Retry-After` honoured.
const MOST_RETRY_AFTER_SECONDS: i64 = 3_600;
/// How long a push service keeps a message for a device that is offline: a day, as the
/// turn it tells of usually waits that long.
const TTL_SECONDS: u32 = 86_400;
const TEST_TTL_SECONDS: u32 = 600;

#[derive(Debug, Clone)]
pub struct PushSettings {
    /// Where messages may go (names looked up and judged on every post).
    pub outbound: Outbound,
    pub vapid: VapidKey,
    /// The `sub` of every VAPID token: who push services may contact.
    pub contact: String,
    /// How often an idle pool looks for due messages without being woken.
    pub poll: Duration,
    /// How long a push service has to answer.
    pub timeout: Duration,
    /// Posts in flight at once on this instance.
    pub concurrency: usize,
    /// Subscriptions of one account in flight at once (over every instance).
    pub per_account: usize,
    /// Subscriptions of one push service in flight at once (over every instance).
    pub per_service: usize,
}

/// What the browser's service worker receives: the notification's type, its game, a title
/// and a sentence to show, the page to open and a tag (one notification per game).
pub fn message_text(message: &Message) -> String {
    let payload: serde_json::Value = serde_json::from_str(&message.payload).unwrap_or_default();
    let (title, body) = crate::service::notification_text::describe(&message.kind, &payload);
    let (url, tag) = if message.game_id.is_empty() {
        ("/".to_owned(), "turnpost".to_owned())
    } else {
        (
            format!("/games/{}", message.game_id),
            format!("game-{}", message.game_id),
        )
    };
    serde_json::json!({
        "type": message.kind,
        "game_id": (!message.game_id.is_empty()).then_some(&message.game_id),
        "title": title,
        "body": body,
        "url": url,
        "tag": tag,
    })
    .to_string()
}

/// Runs forever: claims due messages while the pool has room, and posts each in a task of
/// its own.
pub async fn run(workers: Workers, settings: PushSettings) {
    let client = match settings.outbound.client(settings.timeout) {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "Web Push is off: no HTTP client");
            return;
        }
    };
    let pool = Arc::new(Semaphore::new(settings.concurrency.max(1)));
    let ended = Arc::new(Notify::new());
    loop {
        let Ok(slot) = pool.clone().acquire_owned().await else {
            return;
        };
        let woken = workers.hub.push_due.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let (db, per_account, per_service) = (
            workers.db.clone(),
            settings.per_account as i64,
            settings.per_service as i64,
        );
        let claimed = blocking(move || {
            let now = now_millis();
            let due = db.read_without_transaction(|conn| stored::count_due(conn, now));
            if !matches!(due, Ok(count) if count > 0) {
                return Ok(None);
            }
            let claimed = db.write(|conn| {
                stored::claim_next(conn, now, now + LEASE_MILLIS, per_account, per_service)
            });
            claimed.map(|claimed| {
                claimed.map(|(mut message, subscription)| {
                    let game_id = message.game_id.clone();
                    name_games_in(&db, [(game_id.as_str(), &mut message.payload)]);
                    (message, subscription)
                })
            })
        })
        .await;
        match claimed {
            Some(Ok(Some((message, subscription)))) => {
                let (workers, client, settings, ended) = (
                    workers.clone(),
                    client.clone(),
                    settings.clone(),
                    ended.clone(),
                );
                actix_web::rt::spawn(async move {
                    let outcome = post(&client, &message, &subscription, &settings).await;
                    let label = match &outcome {
                        Outcome::Delivered => "delivered",
                        Outcome::Failed { .. } => "failed",
                        Outcome::Gone => "gone",
                    };
                    workers
                        .metrics
                        .push_attempts
                        .with_label_values(&[label])
                        .inc();
                    let db = workers.db.clone();
                    let recorded = blocking(move || {
                        db.write(|conn| {
                            stored::record(conn, &message, &subscription, now_millis(), &outcome)
                        })
                    })
                    .await;
                    if let Some(Err(error)) = recorded {
                        tracing::warn!(%error, "recording a push attempt failed");
                    }
                    drop(slot);
                    ended.notify_one();
                });
            }
            other => {
                drop(slot);
                if let Some(Err(error)) = other {
                    tracing::warn!(%error, "claiming a push message failed");
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

/// Posts `message` to its subscription once.
async fn post(
    client: &reqwest::Client,
    message: &Message,
    subscription: &Subscription,
    settings: &PushSettings,
) -> Outcome {
    let retry = |error: String, retry_after: Option<i64>| {
        let delay = usize::try_from(message.attempts - 1)
            .ok()
            .and_then(|index| BACKOFF_SECONDS.get(index))
            .copied();
        Outcome::Failed {
            error,
            retry_at: delay.map(|delay| {
                let wait =
                    retry_after.map_or(delay, |asked| asked.clamp(delay, MOST_RETRY_AFTER_SECONDS));
                now_millis() + wait * 1_000
            }),
        }
    };
    let give_up = |error: String| Outcome::Failed {
        error,
        retry_at: None,
    };
    // The policy may have changed since the subscription was added: judged again.
    let url = match crate::outbound::parse_url(&subscription.endpoint) {
        Ok(url)
            if settings.outbound.check_literal(&url).is_ok()
                && (url.scheme() == "https"
                    || crate::service::web_push::opened_address(&settings.outbound, &url)) =>
        {
            url
        }
        _ => return give_up(could_not_deliver("refused address")),
    };
    let Ok(recipient) = Recipient::from_base64url(&subscription.p256dh, &subscription.auth) else {
        return Outcome::Gone;
    };
    let Some(body) = encryption::encrypt(message_text(message).as_bytes(), &recipient) else {
        return give_up(could_not_deliver("message too long"));
    };
    let (ttl, urgency) = match message.kind.as_str() {
        TEST_KIND => (TEST_TTL_SECONDS, "normal"),
        "your_turn" | "reminder" => (TTL_SECONDS, "high"),
        _ => (TTL_SECONDS, "normal"),
    };
    let mut request = client
        .post(url.clone())
        .header("content-type", "application/octet-stream")
        .header("content-encoding", "aes128gcm")
        .header("ttl", ttl.to_string())
        .header("urgency", urgency)
        .header(
            "authorization",
            settings
                .vapid
                .authorization(&url, &settings.contact, now_millis() / 1_000),
        );
    if let Some(topic) = topic(&message.game_id) {
        // The push service keeps only the newest message of a topic for an offline device.
        request = request.header("topic", topic);
    }
    match request.body(body).send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.trim().parse::<i64>().ok());
            match status {
                200..=299 => Outcome::Delivered,
                404 | 410 => Outcome::Gone,
                429 | 500..=599 => retry(could_not_deliver(&format!("HTTP {status}")), retry_after),
                _ => give_up(could_not_deliver(&format!("HTTP {status}"))),
            }
        }
        Err(error) => {
            tracing::debug!(%error, subscription = %subscription.id, "a push failed");
            retry(
                could_not_deliver(crate::outbound::failure_category(&error)),
                None,
            )
        }
    }
}

/// The `Topic` of a game's messages (RFC 8030 section 5.4: at most 32 base64url
/// characters), so that a push service replaces an undelivered one with the next.
fn topic(game_id: &str) -> Option<String> {
    let topic: String = format!("game{game_id}").chars().take(32).collect();
    (!game_id.is_empty()
        && topic
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then_some(topic)
}

/// The error an account sees for a failed attempt: a category, not the transport's words.
fn could_not_deliver(category: &str) -> String {
    format!("could not deliver: {category}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(kind: &str, game_id: &str, payload: serde_json::Value) -> Message {
        Message {
            id: 1,
            subscription_id: "ps_1".into(),
            game_id: game_id.into(),
            kind: kind.into(),
            payload: payload.to_string(),
            created_at: 0,
            attempts: 1,
            next_attempt_at: 0,
        }
    }

    #[test]
    fn a_message_names_the_game_and_opens_its_page() {
        let text = message_text(&message(
            "your_turn",
            "g7k2",
            serde_json::json!({"game_id": "g7k2", "game_kind": "java"}),
        ));
        let read: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            read["title"], "Your turn in Java game g7k2",
            "without a name read"
        );
        let named = crate::service::people::with_game_name(
            r#"{"game_id": "g7k2", "game_kind": "java"}"#,
            "Java with ada and bo",
        );
        let text = message_text(&Message {
            payload: named,
            ..message("your_turn", "g7k2", serde_json::json!({}))
        });
        let read: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(read["title"], "Your turn in Java with ada and bo");
        assert_eq!(read["body"], "It is your turn in Java with ada and bo.");
        assert_eq!(read["url"], "/games/g7k2");
        assert_eq!(read["tag"], "game-g7k2");
        assert_eq!(read["type"], "your_turn");
        let test = message_text(&message(TEST_KIND, "", serde_json::json!({"type": "test"})));
        let read: serde_json::Value = serde_json::from_str(&test).unwrap();
        assert_eq!(read["url"], "/");
        assert_eq!(read["game_id"], serde_json::Value::Null);
    }

    #[test]
    fn topics_are_short_base64url_words() {
        assert_eq!(topic("abc123").as_deref(), Some("gameabc123"));
        assert_eq!(topic(""), None);
        assert_eq!(topic(&"x".repeat(40)).unwrap().len(), 32);
    }
}
