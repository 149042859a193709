//! Webhooks an account registers for its notifications: registering (the address checked,
//! a signing secret issued once), listing, removing, recent deliveries and test deliveries.

use std::net::{IpAddr, ToSocketAddrs};

use base64::Engine as _;

use super::{now_millis, random_id};
use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::store::notifications::{self, Delivery, Webhook};
use crate::store::Db;

/// Webhooks one account may have.
pub const WEBHOOKS_PER_ACCOUNT: usize = 10;

/// Whether `address` is one a public server must not be made to call: loopback, private,
/// link-local, unspecified, multicast, documentation or shared ranges.
pub fn is_private(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || (a == 100 && (64..128).contains(&b))
                || a == 0
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| is_private(IpAddr::V4(v4)))
        }
    }
}

/// Checks a webhook address: `http` or `https`, a host, and (unless the operator allows
/// private addresses) every address the host resolves to public.
pub fn check_address(url: &str, allow_private: bool) -> Result<reqwest::Url, String> {
    let parsed = reqwest::Url::parse(url).map_err(|error| format!("not a URL: {error}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err("the URL must be http or https".into());
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("the URL must not carry credentials".into());
    }
    let host = parsed.host_str().ok_or("the URL has no host")?.to_owned();
    if allow_private {
        return Ok(parsed);
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let addresses: Vec<IpAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|error| format!("{host} does not resolve: {error}"))?
        .map(|address| address.ip())
        .collect();
    if addresses.is_empty() || addresses.iter().any(|address| is_private(*address)) {
        return Err(format!(
            "{host} is a loopback or private address; this server only calls public ones"
        ));
    }
    Ok(parsed)
}

/// A new signing secret in the Standard Webhooks form: `whsec_` and base64 of 32 random bytes.
fn new_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Registers `url` for the caller's notifications; returns the webhook with its secret.
pub fn register(
    db: &Db,
    user: &AuthUser,
    url: &str,
    allow_private: bool,
) -> Result<Webhook, ApiError> {
    if url.len() > 2_000 {
        return Err(ApiError::unprocessable(
            "invalid_webhook_url",
            "the URL is longer than 2,000 characters",
        ));
    }
    let parsed = check_address(url, allow_private)
        .map_err(|reason| ApiError::unprocessable("invalid_webhook_url", reason))?;
    db.write(|conn| {
        if notifications::webhooks_of(conn, &user.account_id)?.len() >= WEBHOOKS_PER_ACCOUNT {
            return Err(ApiError::conflict(
                "webhook_quota",
                format!("an account has at most {WEBHOOKS_PER_ACCOUNT} webhooks"),
            ));
        }
        let webhook = Webhook {
            id: format!("wh_{}", random_id(16)),
            account_id: user.account_id.clone(),
            url: parsed.to_string(),
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

pub fn deliveries(db: &Db, user: &AuthUser, id: &str) -> Result<Vec<Delivery>, ApiError> {
    db.read(|conn| {
        own(conn, user, id)?;
        Ok(notifications::recent_deliveries(conn, id, 50)?)
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
