//! An account's Web Push subscriptions: one per browser (device) that asked for pushes,
//! added from the browser's `PushSubscription` as it is, listed, tuned to the topics the
//! player wants on that device, tried with a test message and removed. And what counts as
//! the account having looked at a game, after which that game's next notification is
//! pushed again.

use serde::Deserialize;

use super::random_id;
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::outbound::Outbound;
use crate::store::email::MailTopic;
use crate::store::web_push::{self, Subscription, TEST_KIND};
use crate::store::{Db, DbConnection};
use crate::web_push::Recipient;

/// Subscriptions one account may have: its devices.
pub const SUBSCRIPTIONS_PER_ACCOUNT: i64 = 10;
/// The longest endpoint taken; browsers' are a few hundred characters.
const MOST_ENDPOINT_CHARACTERS: usize = 2_000;

/// A browser's `PushSubscription` (its `toJSON()`), and the topics to push to it.
#[derive(Debug, Clone, Deserialize)]
pub struct NewSubscription {
    pub endpoint: String,
    /// Milliseconds since the epoch when the browser lets the subscription lapse.
    pub expiration_time: Option<f64>,
    pub p256dh: String,
    pub auth: String,
    /// Every topic when not given.
    pub topics: Option<Vec<MailTopic>>,
}

fn invalid(detail: impl Into<String>) -> ApiError {
    ApiError::unprocessable("invalid_push_subscription", detail)
}

/// Checks the endpoint: an `https` URL whose host is public (looked up now, and again on
/// every post), or a plain `http` one only at an address written out in a network the
/// operator opened (`--webhooks-allow-networks`), as a push service on the operator's own
/// network or in tests is.
pub async fn check_endpoint(outbound: &Outbound, endpoint: &str) -> Result<reqwest::Url, ApiError> {
    if endpoint.len() > MOST_ENDPOINT_CHARACTERS {
        return Err(invalid("the endpoint is longer than 2,000 characters"));
    }
    let url = crate::outbound::parse_url(endpoint)
        .map_err(|problem| invalid(format!("the endpoint: {problem}")))?;
    if url.scheme() == "http" && !opened_address(outbound, &url) {
        return Err(invalid(
            "the endpoint must be https (plain http only to an address in a network the \
             operator opened)",
        ));
    }
    outbound
        .check_url(endpoint)
        .await
        .map_err(|problem| invalid(format!("the endpoint: {problem}")))
}

/// Whether `url`'s host is an address written out inside a network the operator opened.
pub fn opened_address(outbound: &Outbound, url: &reqwest::Url) -> bool {
    let address = match url.host() {
        Some(url::Host::Ipv4(v4)) => std::net::IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => std::net::IpAddr::V6(v6),
        _ => return false,
    };
    outbound.policy.allow_all
        || outbound
            .policy
            .allowed_networks
            .iter()
            .any(|network| network.contains(&address))
}

fn topic_bits(topics: Option<&[MailTopic]>) -> i32 {
    topics.map_or(MailTopic::bits(&MailTopic::ALL), MailTopic::bits)
}

/// Adds the caller's subscription from its checked endpoint `url`; the subscription and
/// whether it is new to the account (the same browser subscribing again updates its keys
/// and topics). Refused past [`SUBSCRIPTIONS_PER_ACCOUNT`], counted with the account's row
/// held, so that subscriptions made at once on several instances count one another.
pub fn subscribe(
    db: &Db,
    user: &AuthUser,
    url: &reqwest::Url,
    new: &NewSubscription,
    device: String,
    now: i64,
) -> Result<(Subscription, bool), ApiError> {
    Recipient::from_base64url(&new.p256dh, &new.auth)
        .map_err(|problem| invalid(problem.to_string()))?;
    let expires_at = match new.expiration_time {
        None => None,
        Some(at) if at.is_finite() && at > now as f64 && at < 1e15 => Some(at as i64),
        Some(_) => {
            return Err(invalid(
                "`expirationTime` is not a time in the future (milliseconds since the epoch)",
            ))
        }
    };
    let subscription = Subscription {
        id: format!("ps_{}", random_id(16)),
        account_id: user.account_id.clone(),
        endpoint: new.endpoint.clone(),
        service: match url.port() {
            Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
            None => url.host_str().unwrap_or_default().to_owned(),
        },
        p256dh: new.p256dh.trim_end_matches('=').to_owned(),
        auth: new.auth.trim_end_matches('=').to_owned(),
        expires_at,
        device,
        topics: topic_bits(new.topics.as_deref()),
        created_at: now,
        last_delivered_at: None,
        last_failed_at: None,
        last_error: None,
        busy_until: None,
        last_claimed_at: None,
    };
    db.write(|conn| {
        let known = web_push::subscriptions_of(conn, &user.account_id)?
            .iter()
            .any(|existing| existing.endpoint == subscription.endpoint);
        if !known && web_push::count_locked(conn, &user.account_id)? >= SUBSCRIPTIONS_PER_ACCOUNT {
            return Err(ApiError::conflict(
                "push_subscription_quota",
                format!(
                    "an account has at most {SUBSCRIPTIONS_PER_ACCOUNT} push subscriptions: \
                     remove one of a device you no longer use"
                ),
            ));
        }
        Ok(web_push::subscribe(conn, &subscription)?)
    })
}

pub fn list(db: &Db, user: &AuthUser) -> Result<Vec<Subscription>, ApiError> {
    db.read(|conn| Ok(web_push::subscriptions_of(conn, &user.account_id)?))
}

/// The caller's subscription `id`; anyone else's is not found.
fn own(conn: &mut DbConnection, user: &AuthUser, id: &str) -> Result<Subscription, ApiError> {
    web_push::find(conn, id)?
        .filter(|subscription| subscription.account_id == user.account_id)
        .ok_or_else(|| {
            ApiError::not_found(
                "push_subscription_not_found",
                format!("you have no push subscription {id:?}"),
            )
        })
}

pub fn remove(db: &Db, user: &AuthUser, id: &str) -> Result<(), ApiError> {
    db.write(|conn| {
        let subscription = own(conn, user, id)?;
        Ok(web_push::delete(conn, &subscription)?)
    })
}

/// Sets the topics pushed to the caller's subscription `id`.
pub fn set_topics(
    db: &Db,
    user: &AuthUser,
    id: &str,
    topics: &[MailTopic],
) -> Result<Subscription, ApiError> {
    db.write(|conn| {
        own(conn, user, id)?;
        web_push::set_topics(conn, id, MailTopic::bits(topics))?;
        own(conn, user, id)
    })
}

/// Queues a test message to the caller's subscription `id` (one waits at a time).
pub fn send_test(db: &Db, user: &AuthUser, id: &str, now: i64) -> Result<(), ApiError> {
    db.write(|conn| {
        own(conn, user, id)?;
        let payload = serde_json::json!({"type": TEST_KIND}).to_string();
        Ok(web_push::queue(conn, id, "", TEST_KIND, &payload, now)?)
    })
}

/// The caller read game `game_id`: its next notification of the game is pushed again.
/// Only a caller the game was pushed to writes anything.
pub fn looked(db: &Db, account_id: &str, game_id: &str) -> Result<(), ApiError> {
    let unseen = db.read_without_transaction(|conn| {
        Ok::<_, ApiError>(web_push::is_unseen(conn, account_id, game_id)?)
    })?;
    if unseen {
        db.write(|conn| Ok::<_, ApiError>(web_push::looked(conn, account_id, game_id)?))?;
    }
    Ok(())
}

/// A short name for the device a `User-Agent` describes, to tell an account's
/// subscriptions apart: "Firefox on Android".
pub fn device_name(user_agent: &str) -> String {
    let browser = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("SamsungBrowser/", "Samsung Internet"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    .into_iter()
    .find(|(token, _)| user_agent.contains(token))
    .map_or("A browser", |(_, name)| name);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find(|(token, _)| user_agent.contains(token))
    .map(|(_, name)| name);
    match system {
        Some(system) => format!("{browser} on {system}"),
        None => browser.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_are_named_by_browser_and_system() {
        let android_chrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 \
                              (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
        assert_eq!(device_name(android_chrome), "Chrome on Android");
        let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 \
                      (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
        assert_eq!(device_name(iphone), "Safari on iPhone");
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
        assert_eq!(device_name(firefox), "Firefox on Linux");
        assert_eq!(device_name(""), "A browser");
    }
}
