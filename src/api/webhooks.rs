//! The caller's notifications (a feed, a long poll and a live stream) and webhooks.

use actix_web::{delete, post, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::blocking;
pub use super::models::{NotificationKind, NotificationOut};
use super::paging::{page_response, PageQuery, PageRequest, Pager};
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::service::format_time;
use crate::service::webhooks;
use crate::store::notifications::{Delivery, Webhook};
use crate::store::Db;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct NotificationList {
    pub notifications: Vec<NotificationOut>,
    /// The next page's `cursor`; `null` on the last page (a long poll then continues with
    /// `after` = the last id).
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const NOTIFICATIONS: Pager = Pager::new("notifications", 100, 200);

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NotificationsQuery {
    /// At most this many (1 to 200, default 100).
    #[param(minimum = 1, maximum = 200, example = 100)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    /// Only notifications after this id (default 0: from the oldest), the id a stream's
    /// `Last-Event-ID` names; not with `cursor`.
    #[param(minimum = 0, example = 41)]
    pub after: Option<i64>,
    /// Long poll: when there is nothing after `after` yet, wait up to this many seconds (at
    /// most 60) for the next one.
    #[param(minimum = 0, maximum = 60, example = 30)]
    pub wait: Option<u64>,
}

/// What concerns you across your games, oldest first, a page at a time.
///
/// `game_started` when a game you sit in starts, `your_turn` when your seat must act (newly,
/// or after another seat acted), `game_finished` with the outcome, `game_cancelled` when an
/// open game you sat down at is cancelled or expires, `invitation`, `invitation_accepted`,
/// `invitation_declined`, `abandon_vote` and `game_abandoned` (see `NotificationKind`).
/// Written with the events or acts that cause them, so none is lost or made up. Page with `cursor`; `wait` long-polls.
#[utoipa::path(get, path = "/v1/me/notifications", tag = "notifications",
    params(NotificationsQuery),
    responses(
        (status = 200, body = NotificationList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`token_revoked` also when the account signs out everywhere or changes its password (or the personal token is revoked) during a long poll", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams` (a long poll, `wait` > 0, while the account, its address or the server holds as many streams and long polls as allowed; with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/notifications", method = "GET", method = "HEAD")]
pub async fn list_notifications(
    db: web::Data<Db>,
    hub: web::Data<crate::push::Hub>,
    user: AuthUser,
    query: web::Query<NotificationsQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let page = super::live::log_page(
        &NOTIFICATIONS,
        query.cursor.as_deref(),
        query.limit,
        query.after,
    )?;
    let after = page.after.unwrap_or(0);
    if let Some(wait) = query.wait.filter(|seconds| *seconds > 0) {
        if wait > super::live::MAX_WAIT_SECONDS {
            return Err(ApiError::bad_request(
                "invalid_query",
                "`wait` is at most 60 seconds",
            ));
        }
        let slot = super::live::admit(&request, &user)?;
        // A long poll ended to make room for another account's answers at once.
        tokio::select! {
            waited = super::live::wait_for_notification(
                &db,
                &hub,
                &user,
                after,
                std::time::Duration::from_secs(wait),
            ) => { waited?; }
            () = slot.ended() => {}
        }
    }
    let (account, rows) = (user.account_id.clone(), page.rows_to_read());
    let notifications = blocking(move || {
        db.read(|conn| {
            Ok(crate::store::notifications::notifications_after(
                conn, &account, after, rows,
            )?)
        })
    })
    .await?;
    let notifications = page.cut(&NOTIFICATIONS, notifications, |notification| {
        notification.id
    });
    let body = NotificationList {
        notifications: notifications
            .items
            .iter()
            .map(NotificationOut::of)
            .collect::<Result<Vec<_>, _>>()?,
        next: notifications.next.clone(),
    };
    Ok(page_response(
        &request,
        notifications.next.as_deref(),
        &body,
    ))
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewWebhook {
    /// Where to post: `http` or `https`; loopback and private addresses are refused unless
    /// the server allows them.
    #[schema(example = "https://bot.example.org/turnpost", max_length = 2000)]
    pub url: String,
}

/// A webhook as listed.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookOut {
    #[schema(example = "wh_k3v9x2m4q8r7t6y5")]
    pub id: String,
    pub url: String,
    /// RFC 3339.
    pub created_at: String,
}

/// A webhook just registered, with the secret its deliveries are signed with (shown once).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookCreated {
    pub id: String,
    pub url: String,
    /// RFC 3339.
    pub created_at: String,
    /// `whsec_` and base64 of 32 bytes (Standard Webhooks): verify each delivery's
    /// `webhook-signature` (`v1,` base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`
    /// keyed with the decoded bytes).
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
    pub secret: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookList {
    /// Oldest first.
    pub webhooks: Vec<WebhookOut>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const WEBHOOKS: Pager = Pager::new("webhooks", 50, 200);
pub const DELIVERIES: Pager = Pager::new("deliveries", 50, 200);

#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Not delivered yet; will be attempted (again) at `next_attempt_at`.
    Pending,
    Delivered,
    /// Given up after the last retry.
    Failed,
}

/// One delivery of a notification (or a test) to a webhook.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DeliveryOut {
    /// The `webhook-id` header it is posted with (the same on every retry).
    pub id: String,
    /// `game_started`, `your_turn`, `game_finished` or `test`.
    #[serde(rename = "type")]
    pub kind: String,
    pub state: DeliveryState,
    pub attempts: u32,
    /// RFC 3339: when the notification was queued.
    pub created_at: String,
    /// RFC 3339: when the receiver answered 2xx; `null` while not delivered.
    pub delivered_at: Option<String>,
    /// RFC 3339: the next attempt; `null` once delivered or given up.
    pub next_attempt_at: Option<String>,
    /// The receiver's HTTP status at the last attempt.
    pub last_status: Option<u16>,
    /// Why the last attempt failed: `could not deliver: ` and a category (`timeout`,
    /// `refused address`, `no connection`, `name does not resolve`, `name lookup timed
    /// out`, `name lookups busy` or `HTTP <status>`).
    #[schema(example = "could not deliver: HTTP 503")]
    pub last_error: Option<String>,
}

impl From<&Delivery> for DeliveryOut {
    fn from(delivery: &Delivery) -> DeliveryOut {
        let state = if delivery.delivered_at.is_some() {
            DeliveryState::Delivered
        } else if delivery.failed_at.is_some() {
            DeliveryState::Failed
        } else {
            DeliveryState::Pending
        };
        DeliveryOut {
            id: delivery.id.clone(),
            kind: delivery.kind.clone(),
            state,
            attempts: u32::try_from(delivery.attempts).unwrap_or_default(),
            created_at: format_time(delivery.created_at),
            delivered_at: delivery.delivered_at.map(format_time),
            next_attempt_at: matches!(state, DeliveryState::Pending)
                .then(|| format_time(delivery.next_attempt_at)),
            last_status: delivery
                .last_status
                .and_then(|status| u16::try_from(status).ok()),
            last_error: delivery.last_error.clone(),
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DeliveryList {
    /// Newest first.
    pub deliveries: Vec<DeliveryOut>,
    /// The next page's `cursor` (older deliveries); `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

fn listed(webhook: &Webhook) -> WebhookOut {
    WebhookOut {
        id: webhook.id.clone(),
        url: webhook.url.clone(),
        created_at: format_time(webhook.created_at),
    }
}

/// Register a webhook for your notifications.
///
/// Every notification (see `GET /v1/me/notifications`) of an action that starts after this
/// request is answered is then posted to `url` (an action already under way may be
/// recorded without it) as JSON
/// `{"type", "timestamp", "data"}` following the Standard Webhooks conventions: headers
/// `webhook-id` (the same on every retry: deduplicate on it), `webhook-timestamp` (Unix
/// seconds) and `webhook-signature`. A delivery is written to an outbox together with the
/// events that cause it and retried with backoff (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h)
/// until the receiver answers 2xx. Redirects are not followed.
///
/// Only public addresses are called: the host's name is looked up once for each attempt,
/// every address it gives must be globally reachable, and the connection goes to one of
/// exactly those addresses. A failed attempt is recorded as `could not deliver: ` and a
/// category (`timeout`, `refused address`, `no connection`, `name does not resolve`,
/// `name lookup timed out`, `HTTP <status>`), never the network's own error text.
#[utoipa::path(post, path = "/v1/me/webhooks", tag = "notifications",
    request_body = NewWebhook,
    responses(
        (status = 201, body = WebhookCreated),
        (status = 409, description = "`webhook_quota`: an account has at most 10 webhooks", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_webhook_url`: not an http(s) URL, credentials in it, or a host that is not public: an address outside the globally reachable ones (IANA's special-purpose registries; IPv4 inside IPv6 judged as the IPv4 address), or a name with any such address, or a name that does not resolve within 3 s", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many registrations by this account (30 an hour by default); `registration_in_progress`: another registration of this account is still being checked. With `Retry-After`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/me/webhooks")]
pub async fn create_webhook(
    db: web::Data<Db>,
    outbound: web::Data<crate::outbound::Outbound>,
    limits: web::Data<super::rate_limit::RateLimits>,
    user: AuthUser,
    body: super::transport::Json<NewWebhook>,
) -> Result<HttpResponse, ApiError> {
    let url = body.into_inner().url;
    // Everything that costs the server nothing comes before the lookup, which may wait on
    // a slow resolver (on threads of its own, within a few seconds).
    limits
        .webhook_registrations_per_account
        .take(&db, &user.account_id)
        .await?;
    let _checking = limits
        .webhook_checks_in_flight
        .enter(&user.account_id)
        .ok_or_else(|| {
            ApiError::too_many(
                "registration_in_progress",
                "another webhook registration of yours is being checked; try again when it \
                 has been answered",
                1,
            )
        })?;
    {
        let (db, user) = (db.clone(), user.clone());
        blocking(move || webhooks::ensure_room(&db, &user)).await?;
    }
    let checked = webhooks::check_url(&outbound, &url).await?;
    let webhook = blocking(move || webhooks::register(&db, &user, &checked)).await?;
    Ok(HttpResponse::Created().json(WebhookCreated {
        id: webhook.id,
        url: webhook.url,
        created_at: format_time(webhook.created_at),
        secret: webhook.secret,
    }))
}

/// Your webhooks, oldest first.
#[utoipa::path(get, path = "/v1/me/webhooks", tag = "notifications",
    params(PageQuery),
    responses(
        (status = 200, body = WebhookList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/webhooks", method = "GET", method = "HEAD")]
pub async fn list_webhooks(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<PageQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page: PageRequest<(i64, String)> =
        WEBHOOKS.request(query.cursor.as_deref(), query.limit)?;
    let hooks = blocking(move || webhooks::list(&db, &user)).await?;
    let hooks = page.page_of(&WEBHOOKS, hooks, |hook| (hook.created_at, hook.id.clone()));
    let body = WebhookList {
        webhooks: hooks.items.iter().map(listed).collect(),
        next: hooks.next.clone(),
    };
    Ok(page_response(&http, hooks.next.as_deref(), &body))
}

/// Remove a webhook (its pending deliveries are dropped).
#[utoipa::path(delete, path = "/v1/me/webhooks/{webhook_id}", tag = "notifications",
    params(("webhook_id" = String, Path, description = "Webhook id")),
    responses(
        (status = 204, description = "Removed"),
        (status = 404, description = "`webhook_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/v1/me/webhooks/{webhook_id}")]
pub async fn delete_webhook(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    blocking(move || webhooks::delete(&db, &user, &id)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A webhook's deliveries, newest first, with their results.
#[utoipa::path(get, path = "/v1/me/webhooks/{webhook_id}/deliveries", tag = "notifications",
    params(("webhook_id" = String, Path, description = "Webhook id"), PageQuery),
    responses(
        (status = 200, body = DeliveryList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`webhook_not_found`, `cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route(
    "/v1/me/webhooks/{webhook_id}/deliveries",
    method = "GET",
    method = "HEAD"
)]
pub async fn list_deliveries(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<PageQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    // Newest first: a position is the last delivery's creation time and id.
    let page: PageRequest<(i64, String)> =
        DELIVERIES.request(query.cursor.as_deref(), query.limit)?;
    let (rows, before) = (page.rows_to_read(), page.after.clone());
    let deliveries =
        blocking(move || webhooks::deliveries(&db, &user, &id, rows, before.as_ref())).await?;
    let deliveries = page.cut(&DELIVERIES, deliveries, |delivery| {
        (delivery.created_at, delivery.id.clone())
    });
    let body = DeliveryList {
        deliveries: deliveries.items.iter().map(DeliveryOut::from).collect(),
        next: deliveries.next.clone(),
    };
    Ok(page_response(&http, deliveries.next.as_deref(), &body))
}

/// Send a test delivery (`"type": "test"`) to a webhook.
#[utoipa::path(post, path = "/v1/me/webhooks/{webhook_id}/test", tag = "notifications",
    params(("webhook_id" = String, Path, description = "Webhook id")),
    responses(
        (status = 202, description = "Queued; its result shows in the deliveries", body = DeliveryOut),
        (status = 404, description = "`webhook_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many test deliveries from this account (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/me/webhooks/{webhook_id}/test")]
pub async fn test_webhook(
    db: web::Data<Db>,
    limits: web::Data<super::rate_limit::RateLimits>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    limits
        .webhook_tests_per_account
        .take(&db, &user.account_id)
        .await?;
    let id = path.into_inner();
    let delivery = blocking(move || webhooks::send_test(&db, &user, &id)).await?;
    Ok(HttpResponse::Accepted().json(DeliveryOut::from(&delivery)))
}
