//! Web Push: the server's public VAPID key, and an account's push subscriptions (one per
//! browser that asked for pushes).

use actix_web::{delete, post, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use super::paging::{page_response, PageQuery, PageRequest, Pager};
use super::rate_limit::RateLimits;
use crate::auth::user::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::service::format_time;
use crate::service::web_push::{self as push, NewSubscription};
use crate::store::email::MailTopic;
use crate::store::web_push::Subscription;
use crate::store::Db;
use crate::web_push::VapidKey;

/// The key browsers subscribe with.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VapidPublicKey {
    /// The server's P-256 public key, base64url (no padding) of the uncompressed point:
    /// `PushManager.subscribe({userVisibleOnly: true, applicationServerKey: <this>})`
    /// takes it as it is.
    #[schema(
        example = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        pattern = "^B[A-Za-z0-9_-]{86}$"
    )]
    pub public_key: String,
}

/// The server's Web Push (VAPID, RFC 8292) public key. Every push it sends is signed with
/// the private half, which every instance of the server shares.
#[utoipa::path(get, path = "/v1/push/vapid-public-key", tag = "notifications",
    responses((status = 200, body = VapidPublicKey)),
    security(()))]
#[route("/v1/push/vapid-public-key", method = "GET", method = "HEAD")]
pub async fn vapid_public_key(key: web::Data<VapidKey>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .json(VapidPublicKey {
            public_key: key.public_key().to_owned(),
        })
}

/// A subscription's keys, as the browser gives them.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushSubscriptionKeys {
    /// The browser's P-256 public key, base64url of the uncompressed point.
    #[schema(
        example = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        max_length = 100
    )]
    pub p256dh: String,
    /// The authentication secret, base64url of 16 bytes.
    #[schema(example = "BTBZMqHH6r4Tts7J_aSIgg", max_length = 30)]
    pub auth: String,
}

/// A browser's `PushSubscription` as its `toJSON()` gives it, and optionally the topics to
/// push to this device.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NewPushSubscription {
    /// The push service's URL for this browser: `https` (plain `http` only at an address
    /// written out inside a network the operator opened with `--webhooks-allow-networks`),
    /// whose host is public, at most 2,000 characters.
    #[schema(
        example = "https://fcm.googleapis.com/fcm/send/dXk3...",
        max_length = 2000
    )]
    pub endpoint: String,
    /// When the browser lets the subscription lapse, in milliseconds since the epoch;
    /// `null` when it does not say.
    #[serde(default)]
    #[schema(value_type = Option<f64>)]
    pub expiration_time: Option<f64>,
    pub keys: PushSubscriptionKeys,
    /// What to push to this device (the topics a mail address takes): all five when left
    /// out.
    #[serde(default)]
    #[schema(example = json!(["your_turn", "reminder", "invitation", "mention", "game_over"]))]
    pub topics: Option<Vec<MailTopic>>,
}

/// One of your devices that gets pushes.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushSubscription {
    #[schema(example = "ps_3k9x2m4q8r7t6y5v")]
    pub id: String,
    /// The push service's URL for the device.
    pub endpoint: String,
    /// The host (and port, when not the default) of `endpoint`: which push service
    /// carries the messages.
    #[schema(example = "fcm.googleapis.com")]
    pub push_service: String,
    /// The browser and system it was added from, as its `User-Agent` told.
    #[schema(example = "Chrome on Android")]
    pub device: String,
    #[schema(example = json!(["your_turn", "reminder", "invitation", "mention", "game_over"]))]
    pub topics: Vec<MailTopic>,
    /// RFC 3339.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// RFC 3339: when the browser lets it lapse (it is removed then).
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
    /// RFC 3339: the push service last took a message for it.
    #[schema(format = DateTime)]
    pub last_delivered_at: Option<String>,
    /// RFC 3339: the last message that failed, with why in `last_error`.
    #[schema(format = DateTime)]
    pub last_failed_at: Option<String>,
    /// `could not deliver: ` and a category (`timeout`, `no connection`, `refused
    /// address`, `HTTP <status>`, ...), never the network's own words.
    pub last_error: Option<String>,
}

impl PushSubscription {
    fn of(subscription: Subscription) -> PushSubscription {
        PushSubscription {
            id: subscription.id,
            endpoint: subscription.endpoint,
            push_service: subscription.service,
            device: subscription.device,
            topics: MailTopic::from_bits(subscription.topics),
            created_at: format_time(subscription.created_at),
            expires_at: subscription.expires_at.map(format_time),
            last_delivered_at: subscription.last_delivered_at.map(format_time),
            last_failed_at: subscription.last_failed_at.map(format_time),
            last_error: subscription.last_error,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushSubscriptionList {
    /// Oldest first.
    pub subscriptions: Vec<PushSubscription>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const PUSH_SUBSCRIPTIONS: Pager = Pager::new("push_subscriptions", 50, 200);

/// What to push to a device.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushTopics {
    #[schema(example = json!(["your_turn", "reminder"]))]
    pub topics: Vec<MailTopic>,
}

const SUBSCRIPTION_ID: &str = "The subscription's id";

/// Push your notifications to this browser: post its `PushSubscription` as `toJSON()`
/// gives it (`endpoint`, `expirationTime`, `keys.p256dh`, `keys.auth`). From then on the
/// server pushes, encrypted to the browser (RFC 8291, `aes128gcm`) and signed with its
/// VAPID key: your turn, a deadline near (the reminders you chose), an invitation, a chat
/// mention and the end of a game, each with the game's link (`url`). At most one push per
/// game until you have looked at it (read its summary, `GET /v1/games/{id}`, as a client
/// does when it opens a game), but reminders, which you asked for. The same browser subscribing again (even for another account) replaces
/// its subscription. Each push is a JSON object: `type` (the notification's), `game_id`,
/// `title`, `body`, `url` (the game's page) and `tag` (one per game). A subscription the
/// push service answers 404 or 410 for is removed.
#[utoipa::path(post, path = "/v1/me/push-subscriptions", tag = "notifications",
    request_body = NewPushSubscription,
    responses(
        (status = 201, description = "Added", body = PushSubscription),
        (status = 200, description = "The browser had subscribed already: keys and topics updated", body = PushSubscription),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`push_subscription_quota`: an account has at most 10", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_push_subscription`: an endpoint that is not `https`, or whose host is not public, keys that are not a P-256 point and 16 bytes, or an `expirationTime` in the past", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many subscriptions by this account (30 an hour by default); `registration_in_progress`: another of its endpoints or webhooks is being checked. With `Retry-After`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/me/push-subscriptions")]
pub async fn create_push_subscription(
    db: web::Data<Db>,
    outbound: web::Data<crate::outbound::Outbound>,
    limits: web::Data<RateLimits>,
    clock: web::Data<Clock>,
    request: HttpRequest,
    user: AuthUser,
    body: super::transport::Json<NewPushSubscription>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let device = push::device_name(
        request
            .headers()
            .get("user-agent")
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default(),
    );
    limits
        .push_subscriptions_per_account
        .take(&db, &user.account_id)
        .await?;
    let _checking = limits
        .webhook_checks_in_flight
        .enter(&user.account_id)
        .ok_or_else(|| {
            ApiError::too_many(
                "registration_in_progress",
                "another push endpoint or webhook of yours is being checked; try again when \
                 it has been answered",
                1,
            )
        })?;
    let url = push::check_endpoint(&outbound, &body.endpoint).await?;
    let new = NewSubscription {
        endpoint: body.endpoint,
        expiration_time: body.expiration_time,
        p256dh: body.keys.p256dh,
        auth: body.keys.auth,
        topics: body.topics,
    };
    let now = clock.now_millis();
    let (subscription, created) =
        blocking(move || push::subscribe(&db, &user, &url, &new, device, now)).await?;
    let out = PushSubscription::of(subscription);
    Ok(if created {
        HttpResponse::Created().json(out)
    } else {
        HttpResponse::Ok().json(out)
    })
}

/// Your devices that get pushes, oldest first.
#[utoipa::path(get, path = "/v1/me/push-subscriptions", tag = "notifications",
    params(PageQuery),
    responses(
        (status = 200, body = PushSubscriptionList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/push-subscriptions", method = "GET", method = "HEAD")]
pub async fn list_push_subscriptions(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<PageQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page: PageRequest<(i64, String)> =
        PUSH_SUBSCRIPTIONS.request(query.cursor.as_deref(), query.limit)?;
    let subscriptions = blocking(move || push::list(&db, &user)).await?;
    let subscriptions = page.page_of(&PUSH_SUBSCRIPTIONS, subscriptions, |subscription| {
        (subscription.created_at, subscription.id.clone())
    });
    let body = PushSubscriptionList {
        subscriptions: subscriptions
            .items
            .into_iter()
            .map(PushSubscription::of)
            .collect(),
        next: subscriptions.next.clone(),
    };
    Ok(page_response(&http, subscriptions.next.as_deref(), &body))
}

/// Choose what is pushed to one of your devices.
#[utoipa::path(put, path = "/v1/me/push-subscriptions/{subscription_id}/topics", tag = "notifications",
    params(("subscription_id" = String, Path, description = SUBSCRIPTION_ID)),
    request_body = PushTopics,
    responses(
        (status = 200, body = PushSubscription),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`push_subscription_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/push-subscriptions/{subscription_id}/topics", method = "PUT")]
pub async fn set_push_topics(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<PushTopics>,
) -> Result<HttpResponse, ApiError> {
    let (id, topics) = (path.into_inner(), body.into_inner().topics);
    let subscription = blocking(move || push::set_topics(&db, &user, &id, &topics)).await?;
    Ok(HttpResponse::Ok().json(PushSubscription::of(subscription)))
}

/// Stop pushing to one of your devices.
#[utoipa::path(delete, path = "/v1/me/push-subscriptions/{subscription_id}", tag = "notifications",
    params(("subscription_id" = String, Path, description = SUBSCRIPTION_ID)),
    responses(
        (status = 204, description = "Removed, with its waiting messages"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`push_subscription_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/v1/me/push-subscriptions/{subscription_id}")]
pub async fn delete_push_subscription(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    blocking(move || push::remove(&db, &user, &id)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Push a test message to one of your devices (`type: "test"`), to see that pushes reach
/// it; one waits at a time.
#[utoipa::path(post, path = "/v1/me/push-subscriptions/{subscription_id}/test", tag = "notifications",
    params(("subscription_id" = String, Path, description = SUBSCRIPTION_ID)),
    responses(
        (status = 202, description = "Queued"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`push_subscription_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: 10 tests an hour per account by default (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/me/push-subscriptions/{subscription_id}/test")]
pub async fn test_push_subscription(
    db: web::Data<Db>,
    limits: web::Data<RateLimits>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    limits
        .push_tests_per_account
        .take(&db, &user.account_id)
        .await?;
    let (id, now) = (path.into_inner(), clock.now_millis());
    blocking(move || push::send_test(&db, &user, &id, now)).await?;
    Ok(HttpResponse::Accepted().finish())
}
