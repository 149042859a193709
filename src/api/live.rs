//! Following a game as it happens: a long poll on the event log and a Server-Sent Events
//! stream. A waiter wakes at once for appends made by this instance and re-reads the game's
//! seq every quarter second for appends made by any other instance on the same database.

use std::collections::VecDeque;
use std::time::Duration;

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{route, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use super::blocking;
use super::games::game_id;
use super::models::EventOut;
use crate::auth::AuthUser;
use crate::error::{ApiError, Problem};
use crate::service::changes::GameChanges;
use crate::service::play;
use crate::service::GameStatus;
use crate::store::Db;

/// How often a waiter re-reads the game's seq for appends by other instances.
const RECHECK: Duration = Duration::from_millis(250);
/// A stream sends a comment this often when nothing happens, so proxies keep it open.
pub const HEARTBEAT: Duration = Duration::from_secs(15);
/// The longest long poll.
pub const MAX_WAIT_SECONDS: u64 = 60;

/// Game `id`'s seq and status now, read off the async workers.
async fn progress(db: &web::Data<Db>, id: &str) -> Result<(i64, GameStatus), ApiError> {
    let (db, id) = (db.clone(), id.to_owned());
    blocking(move || play::progress(&db, &id)).await
}

/// The id of `account`'s newest notification (0 when none), read off the async workers.
async fn last_notification(db: &web::Data<Db>, account: &str) -> Result<i64, ApiError> {
    let (db, account) = (db.clone(), account.to_owned());
    blocking(move || {
        db.read(|conn| {
            Ok(crate::store::notifications::last_notification_id(
                conn, &account,
            )?)
        })
    })
    .await
}

/// Waits until game `id` is past `after` or `wait` has passed; returns the seq and status
/// then.
pub async fn wait_past(
    db: &web::Data<Db>,
    changes: &web::Data<GameChanges>,
    id: &str,
    after: i64,
    wait: Duration,
) -> Result<(i64, GameStatus), ApiError> {
    let deadline = tokio::time::Instant::now() + wait;
    let mut local = changes.subscribe(id, after);
    loop {
        let progress = progress(db, id).await?;
        let now = tokio::time::Instant::now();
        if progress.0 > after || now >= deadline {
            return Ok(progress);
        }
        let pause = RECHECK.min(deadline - now);
        tokio::select! {
            _ = local.changed() => {}
            _ = tokio::time::sleep(pause) => {}
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Start after this seq (default 0: the whole log); a `Last-Event-ID` header wins.
    #[param(minimum = 0, example = 12)]
    pub after: Option<i64>,
}

/// What one stream still has to send.
struct Follower {
    db: web::Data<Db>,
    changes: web::Data<GameChanges>,
    user: AuthUser,
    id: String,
    cursor: i64,
    pending: VecDeque<EventOut>,
    finished: bool,
    ended: bool,
}

impl Follower {
    /// Loads what the caller may see after the cursor.
    async fn load(&mut self) -> Result<(), ApiError> {
        let (db, id, user, after) = (
            self.db.clone(),
            self.id.clone(),
            self.user.clone(),
            self.cursor,
        );
        let page = blocking(move || play::events(&db, &id, &user, after)).await?;
        self.pending
            .extend(page.events.into_iter().map(EventOut::from));
        Ok(())
    }

    /// The next frame, or `None` when the stream is over.
    async fn next_frame(&mut self) -> Option<Bytes> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                self.cursor = event.seq;
                return Some(event_frame(&event));
            }
            if self.ended {
                return None;
            }
            if self.finished {
                self.ended = true;
                return Some(Bytes::from_static(b"event: end\ndata: {}\n\n"));
            }
            match wait_past(&self.db, &self.changes, &self.id, self.cursor, HEARTBEAT).await {
                Ok((seq, status)) if seq > self.cursor => {
                    self.load().await.ok()?;
                    self.finished = status == GameStatus::Finished;
                }
                Ok(_) => return Some(Bytes::from_static(b": heartbeat\n\n")),
                Err(_) => return None,
            }
        }
    }
}

/// One event as an SSE frame: its seq as the id (for `Last-Event-ID`), its type as the
/// event name, and the `EventOut` JSON (one line) as the data.
fn event_frame(event: &EventOut) -> Bytes {
    let data = serde_json::to_string(event).unwrap_or_default();
    Bytes::from(format!(
        "id: {}\nevent: {}\ndata: {data}\n\n",
        event.seq, event.event_type
    ))
}

/// The game's events as Server-Sent Events, live.
///
/// Every event the caller may see (redacted exactly like `/events`), in order, from `after`
/// or the `Last-Event-ID` the browser sends when it reconnects, then each new one as it is
/// appended by any instance. Frames: `id: <seq>`, `event: <type>`, `data: <EventOut JSON>`.
/// A `: heartbeat` comment every 15 seconds keeps proxies from closing the stream; once the
/// game is finished and every event sent, an `end` event closes it. The server writes only as
/// fast as the client reads.
#[utoipa::path(get, path = "/v1/games/{id}/stream", tag = "play",
    params(
        ("id" = String, Path, description = "Game id"),
        StreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The seq of the last event received; the stream resumes after it"),
    ),
    responses(
        (status = 200, description = "The event stream", content_type = "text/event-stream", body = String,
            example = "id: 5\nevent: turn_started\ndata: {\"seq\":5,\"time\":\"2026-11-24T10:00:00.000Z\",\"seat\":null,\"type\":\"turn_started\",\"schema_version\":2,\"payload\":{\"type\":\"turn_started\",\"seat\":0},\"text\":\"Red begins a turn\"}\n\n: heartbeat\n\n"),
        (status = 400, description = "`invalid_last_event_id`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/stream", method = "GET")]
pub async fn stream_events(
    db: web::Data<Db>,
    changes: web::Data<GameChanges>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let cursor = last_event_id(&request)?.or(query.after).unwrap_or(0).max(0);
    let status = progress(&db, &id).await?.1;
    let mut follower = Follower {
        db,
        changes,
        user,
        id,
        cursor,
        pending: VecDeque::new(),
        finished: status == GameStatus::Finished,
        ended: false,
    };
    follower.load().await?;
    let frames = futures_util::stream::unfold(follower, |mut follower| async move {
        let frame = follower.next_frame().await?;
        Some((Ok::<_, actix_web::Error>(frame), follower))
    });
    Ok(event_stream(frames))
}

/// Waits until the caller has a notification after `after` or `wait` has passed.
pub async fn wait_for_notification(
    db: &web::Data<Db>,
    user: &AuthUser,
    after: i64,
    wait: Duration,
) -> Result<i64, ApiError> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let last = last_notification(db, &user.account_id).await?;
        let now = tokio::time::Instant::now();
        if last > after || now >= deadline {
            return Ok(last);
        }
        tokio::time::sleep(RECHECK.min(deadline - now)).await;
    }
}

/// The `Last-Event-ID` a reconnecting client sends, if any.
fn last_event_id(request: &HttpRequest) -> Result<Option<i64>, ApiError> {
    request
        .headers()
        .get("Last-Event-ID")
        .map(|value| {
            value
                .to_str()
                .ok()
                .and_then(|text| text.trim().parse::<i64>().ok())
                .filter(|id| *id >= 0)
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "invalid_last_event_id",
                        "Last-Event-ID must be the id of an event of this stream",
                    )
                })
        })
        .transpose()
}

/// What an account stream still has to send.
struct AccountFollower {
    db: web::Data<Db>,
    user: AuthUser,
    cursor: i64,
    pending: VecDeque<super::webhooks::NotificationOut>,
}

impl AccountFollower {
    async fn next_frame(&mut self) -> Option<Bytes> {
        loop {
            if let Some(notification) = self.pending.pop_front() {
                self.cursor = notification.id;
                let data = serde_json::to_string(&notification).unwrap_or_default();
                let kind = serde_json::to_value(notification.kind).unwrap_or_default();
                return Some(Bytes::from(format!(
                    "id: {}\nevent: {}\ndata: {data}\n\n",
                    notification.id,
                    kind.as_str().unwrap_or_default()
                )));
            }
            let last = wait_for_notification(&self.db, &self.user, self.cursor, HEARTBEAT)
                .await
                .ok()?;
            if last <= self.cursor {
                return Some(Bytes::from_static(b": heartbeat\n\n"));
            }
            let (db, account, after) = (self.db.clone(), self.user.account_id.clone(), self.cursor);
            let stored = blocking(move || {
                db.read(|conn| {
                    Ok(crate::store::notifications::notifications_after(
                        conn, &account, after, 100,
                    )?)
                })
            })
            .await
            .ok()?;
            for notification in &stored {
                self.pending
                    .push_back(super::webhooks::NotificationOut::of(notification).ok()?);
            }
        }
    }
}

/// Everything that concerns you across your games, live, as Server-Sent Events.
///
/// The notifications of `GET /v1/me/notifications` (`game_started`, `your_turn`,
/// `game_finished`) as they are written by any instance: `id: <notification id>`,
/// `event: <type>`, `data: <Notification JSON>`. Resumes after `after` or the
/// `Last-Event-ID` a reconnecting client sends (default: only what happens from now on).
/// A `: heartbeat` comment every 15 seconds keeps proxies from closing it.
#[utoipa::path(get, path = "/v1/me/stream", tag = "notifications",
    params(
        StreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The id of the last notification received; the stream resumes after it"),
    ),
    responses(
        (status = 200, description = "The notification stream", content_type = "text/event-stream", body = String,
            example = "id: 42\nevent: your_turn\ndata: {\"id\":42,\"type\":\"your_turn\",\"game_id\":\"bktgir262m\",\"game_kind\":\"tikal\",\"seq\":4,\"seat\":0,\"to_act\":[0],\"created_at\":\"2026-11-24T10:00:00.000Z\"}\n\n"),
        (status = 400, description = "`invalid_last_event_id`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/stream", method = "GET")]
pub async fn stream_notifications(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let cursor = match last_event_id(&request)?.or(query.after) {
        Some(cursor) => cursor.max(0),
        None => last_notification(&db, &user.account_id).await?,
    };
    let follower = AccountFollower {
        db,
        user,
        cursor,
        pending: VecDeque::new(),
    };
    let frames = futures_util::stream::unfold(follower, |mut follower| async move {
        let frame = follower.next_frame().await?;
        Some((Ok::<_, actix_web::Error>(frame), follower))
    });
    Ok(event_stream(frames))
}

/// A response streaming `frames` as Server-Sent Events.
fn event_stream(
    frames: impl futures_core::Stream<Item = Result<Bytes, actix_web::Error>> + 'static,
) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Compressing would hold frames back until a block fills.
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(frames)
}
