//! Following a game or an account as it happens: long polls and Server-Sent Events streams.
//! A waiter reads the database when it starts and then only when this instance's [`Hub`]
//! says what it waits for has changed (woken by this instance's commits and, through
//! PostgreSQL's `NOTIFY`, by every other instance's), so an idle follower costs the
//! database nothing. Every stream and long poll holds a slot of the per-account,
//! per-address and per-instance caps while it waits; a stream ends after its lifetime, or
//! at once when its account signs out everywhere or changes its password, or when the
//! personal token it was opened with is revoked.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{route, web, HttpMessage, HttpRequest, HttpResponse};
use serde::Deserialize;
use tokio::sync::{watch, OnceCell};
use tokio::time::Instant;
use utoipa::IntoParams;

use super::blocking;
use super::games::game_id;
use super::models::EventOut;
use super::paging::{PageRequest, Pager};
use super::rate_limit::client_networks_of;
use super::request_slots::Slot;
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::games::engine::Viewer;
use crate::push::limits::{FollowerSlot, Followers};
use crate::push::{AccountState, Hub};
use crate::service::play;
use crate::service::GameStatus;
use crate::store::Db;

/// A stream sends a comment this often when nothing happens, so proxies keep it open.
pub const HEARTBEAT: Duration = Duration::from_secs(15);
/// The longest long poll.
pub const MAX_WAIT_SECONDS: u64 = 60;
/// What a stream sends first: clients reconnect one second after it closes.
const STREAM_PREAMBLE: &[u8] = b"retry: 1000\n\n";
/// What a stream sends when its lifetime is over, before it closes.
const STREAM_LIFETIME_OVER: &[u8] = b": this stream's time is up; resume with Last-Event-ID\n\n";
/// What a stream sends when it ends to make room for another account's on its network.
const STREAM_MADE_ROOM: &[u8] =
    b": this stream ended to make room for another account on your network; resume with \
      Last-Event-ID later\n\n";

/// The `after` of a page, long poll or stream: 0 when absent; a negative one is refused, as
/// the contract says, rather than read as 0.
pub fn cursor_after(after: Option<i64>) -> Result<i64, ApiError> {
    match after {
        Some(after) if after < 0 => Err(ApiError::bad_request(
            "invalid_query",
            "`after` must be at least 0",
        )),
        after => Ok(after.unwrap_or(0)),
    }
}

/// A page of a log (events, chat, notifications): from `cursor`, or after the id or seq
/// `after` names (the one a stream's `Last-Event-ID` gives); a cursor wins over `after`.
pub fn log_page(
    pager: &Pager,
    cursor: Option<&str>,
    limit: Option<i64>,
    after: Option<i64>,
) -> Result<PageRequest<i64>, ApiError> {
    let after = after.map(|after| cursor_after(Some(after))).transpose()?;
    pager.request_or(cursor, limit, after)
}

/// A slot of the followers' caps for the caller, or 429 `too_many_streams`. It takes the
/// place of the request's slot ([`super::request_slots`]).
pub fn admit(request: &HttpRequest, user: &AuthUser) -> Result<FollowerSlot, ApiError> {
    let followers = request
        .app_data::<web::Data<Followers>>()
        .ok_or_else(|| ApiError::Internal("no follower caps are configured".into()))?;
    let networks = client_networks_of(request);
    let slot = followers
        .clone()
        .into_inner()
        .admit(&user.account_id, &networks)?;
    // A follower waits long; it counts against the followers' caps from here on, and its
    // request slot goes back to the account's other requests.
    request.extensions_mut().remove::<Slot>();
    Ok(slot)
}

/// Whether the follower's token no longer holds: the account moved past the generation it
/// signed in with (sign-out everywhere, a new password), or it is a personal token that is
/// no longer stored. The database is asked only when one of the account's personal tokens
/// was revoked since `seen` (which this moves on), which is rare.
async fn token_revoked_since(
    db: &web::Data<Db>,
    account: &watch::Receiver<AccountState>,
    user: &AuthUser,
    seen: &mut u32,
) -> bool {
    let state = *account.borrow();
    if state
        .generation
        .is_some_and(|generation| generation != user.token_generation)
    {
        return true;
    }
    let Some(personal) = user.personal_token() else {
        return false;
    };
    if state.personal_tokens_revoked == *seen {
        return false;
    }
    *seen = state.personal_tokens_revoked;
    let (db, id) = (db.clone(), personal.token_id.clone());
    let still_stored = blocking(move || {
        db.read_without_transaction(|conn| {
            Ok(crate::store::personal_tokens::personal_token_exists(
                conn, &id,
            )?)
        })
    })
    .await;
    // When the database cannot say, the follower ends: its client comes back and is checked.
    !still_stored.unwrap_or(false)
}

fn token_revoked() -> ApiError {
    ApiError::unauthorized("token_revoked", "this token was revoked; sign in again")
}

/// Game `id`'s seq and status now, read off the async workers; a game `user` may not see
/// is not found.
async fn progress(
    db: &web::Data<Db>,
    id: &str,
    user: &AuthUser,
) -> Result<(i64, GameStatus), ApiError> {
    let (db, id, user) = (db.clone(), id.to_owned(), user.clone());
    blocking(move || play::progress(&db, &id, &user)).await
}

/// The id of `account`'s newest notification (0 when none), read off the async workers.
async fn last_notification(db: &web::Data<Db>, account: &str) -> Result<i64, ApiError> {
    let (db, account) = (db.clone(), account.to_owned());
    blocking(move || {
        db.read_without_transaction(|conn| {
            Ok(crate::store::notifications::last_notification_id(
                conn, &account,
            )?)
        })
    })
    .await
}

/// Waits until game `id` is past `after` or `wait` has passed; returns the seq and status
/// then. The database is read once now and once more when the hub says the game moved.
pub async fn wait_past(
    db: &web::Data<Db>,
    hub: &Hub,
    user: &AuthUser,
    id: &str,
    after: i64,
    wait: Duration,
) -> Result<(i64, GameStatus), ApiError> {
    let deadline = Instant::now() + wait;
    // Subscribed before the read, so an append between the two still wakes the wait.
    let mut game = hub.follow_game(id);
    let mut account = hub.follow_account(&user.account_id);
    let mut token_revocations_seen = account.borrow().personal_tokens_revoked;
    loop {
        let progress = progress(db, id, user).await?;
        if progress.0 > after {
            return Ok(progress);
        }
        loop {
            tokio::select! {
                moved = game.changed() => {
                    if moved.is_err() || *game.borrow_and_update() > after {
                        break;
                    }
                }
                _ = account.changed() => {
                    if token_revoked_since(db, &account, user, &mut token_revocations_seen).await {
                        return Err(token_revoked());
                    }
                }
                _ = tokio::time::sleep_until(deadline) => return Ok(progress),
            }
        }
    }
}

/// Waits until game `id`'s chat has a message after `after` or `wait` has passed. The
/// database is read once now; then the hub says when a message was written anywhere.
pub async fn wait_for_chat(
    db: &web::Data<Db>,
    hub: &Hub,
    user: &AuthUser,
    id: &str,
    after: i64,
    wait: Duration,
) -> Result<(), ApiError> {
    let deadline = Instant::now() + wait;
    // Subscribed before the read, so a message between the two still wakes the wait.
    let mut chat = hub.follow_chat(id);
    let mut account = hub.follow_account(&user.account_id);
    let mut token_revocations_seen = account.borrow().personal_tokens_revoked;
    let (reader, game, reading) = (db.clone(), id.to_owned(), user.clone());
    let newest =
        blocking(move || crate::service::chat::newest_message(&reader, &game, &reading)).await?;
    if newest > after {
        return Ok(());
    }
    loop {
        tokio::select! {
            written = chat.changed() => {
                if written.is_err() || *chat.borrow_and_update() > after {
                    return Ok(());
                }
            }
            _ = account.changed() => {
                if token_revoked_since(db, &account, user, &mut token_revocations_seen).await {
                    return Err(token_revoked());
                }
            }
            _ = tokio::time::sleep_until(deadline) => return Ok(()),
        }
    }
}

/// Waits until the caller has a notification after `after` or `wait` has passed.
pub async fn wait_for_notification(
    db: &web::Data<Db>,
    hub: &Hub,
    user: &AuthUser,
    after: i64,
    wait: Duration,
) -> Result<i64, ApiError> {
    let deadline = Instant::now() + wait;
    let mut account = hub.follow_account(&user.account_id);
    let mut token_revocations_seen = account.borrow().personal_tokens_revoked;
    let last = last_notification(db, &user.account_id).await?;
    if last > after {
        return Ok(last);
    }
    loop {
        tokio::select! {
            changed = account.changed() => {
                if changed.is_err() {
                    return Ok(last);
                }
                if token_revoked_since(db, &account, user, &mut token_revocations_seen).await {
                    return Err(token_revoked());
                }
                let seen = account.borrow_and_update().last_notification;
                if seen > after {
                    return Ok(seen);
                }
            }
            _ = tokio::time::sleep_until(deadline) => return Ok(last),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Start after this seq (default 0: the whole log); a `Last-Event-ID` header wins.
    #[param(minimum = 0, example = 12)]
    pub after: Option<i64>,
    /// Close the stream after this many seconds (1 to 3600; never later than the server's
    /// stream lifetime). For a client that cannot read a body piece by piece, such as a
    /// generated one: it gets everything sent meanwhile as one body, then resumes with
    /// `after` = the last id it read.
    #[param(minimum = 1, maximum = 3600, example = 30)]
    pub max_seconds: Option<i64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NotificationStreamQuery {
    /// Start after this notification id (0: every stored notification); without it, and
    /// without a `Last-Event-ID` header, the stream sends only what happens from now on. A
    /// `Last-Event-ID` header wins.
    #[param(minimum = 0, example = 41)]
    pub after: Option<i64>,
    /// Close the stream after this many seconds (1 to 3600; never later than the server's
    /// stream lifetime). For a client that cannot read a body piece by piece, such as a
    /// generated one: it gets everything sent meanwhile as one body, then resumes with
    /// `after` = the last id it read.
    #[param(minimum = 1, maximum = 3600, example = 30)]
    pub max_seconds: Option<i64>,
}

/// How a stream is written: Server-Sent Events unless the client asks for NDJSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `text/event-stream`: `id:`, `event:` and `data:` lines, comments as heartbeats.
    EventStream,
    /// `application/x-ndjson`: one JSON document a line, empty lines as heartbeats.
    Ndjson,
}

pub const NDJSON: &str = "application/x-ndjson";

impl Framing {
    /// NDJSON when `Accept` names `application/x-ndjson` (and prefers it to
    /// `text/event-stream`, when it names both with weights); otherwise Server-Sent Events.
    pub fn of(request: &HttpRequest) -> Framing {
        let Some(accept) = request
            .headers()
            .get(header::ACCEPT)
            .and_then(|value| value.to_str().ok())
        else {
            return Framing::EventStream;
        };
        let weight = |media: &str| -> Option<f32> {
            accept.split(',').find_map(|range| {
                let mut parts = range.split(';').map(str::trim);
                let name = parts.next()?;
                if !name.eq_ignore_ascii_case(media) {
                    return None;
                }
                let quality = parts
                    .find_map(|parameter| parameter.strip_prefix("q="))
                    .and_then(|quality| quality.parse::<f32>().ok())
                    .unwrap_or(1.0);
                Some(quality)
            })
        };
        match (weight(NDJSON), weight("text/event-stream")) {
            (Some(ndjson), events) if ndjson > 0.0 && ndjson >= events.unwrap_or(0.0) => {
                Framing::Ndjson
            }
            _ => Framing::EventStream,
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Framing::EventStream => "text/event-stream",
            Framing::Ndjson => NDJSON,
        }
    }

    /// The bytes `frame` is written as, or `None` where this framing has nothing for it.
    fn render(self, frame: &Frame) -> Option<Bytes> {
        match (self, frame) {
            (Framing::EventStream, Frame::Item { event, .. }) => Some(event.clone()),
            (Framing::Ndjson, Frame::Item { line, .. }) => Some(line.clone()),
            (Framing::EventStream, Frame::Preamble) => Some(Bytes::from_static(STREAM_PREAMBLE)),
            (Framing::EventStream, Frame::Heartbeat) => {
                Some(Bytes::from_static(b": heartbeat\n\n"))
            }
            (Framing::Ndjson, Frame::Heartbeat) => Some(Bytes::from_static(b"\n")),
            (Framing::EventStream, Frame::End) => {
                Some(Bytes::from_static(b"event: end\ndata: {}\n\n"))
            }
            (Framing::EventStream, Frame::LifetimeOver) => {
                Some(Bytes::from_static(STREAM_LIFETIME_OVER))
            }
            (Framing::EventStream, Frame::MadeRoom) => Some(Bytes::from_static(STREAM_MADE_ROOM)),
            (
                Framing::Ndjson,
                Frame::Preamble | Frame::End | Frame::LifetimeOver | Frame::MadeRoom,
            ) => None,
        }
    }
}

/// One thing a stream sends, whatever its framing.
#[derive(Debug, Clone)]
enum Frame {
    /// What the stream opens with.
    Preamble,
    /// An event or notification, written once in each framing (shared by every follower
    /// of a page): as a Server-Sent Event (its id for resuming, its type, its JSON) and as
    /// an NDJSON line.
    Item { event: Bytes, line: Bytes },
    /// Nothing happened for a while.
    Heartbeat,
    /// The game is finished and every event sent.
    End,
    /// The stream's lifetime is over; the client resumes.
    LifetimeOver,
    /// The stream ended to make room for another account's on the same network (see
    /// `push::limits`); the client resumes later.
    MadeRoom,
}

/// A game's events after a seq up to another, as one viewer sees them, ready to send.
type Frames = Arc<Vec<(i64, Frame)>>;

/// The frames a game's new events make, shared by every follower of that game with the
/// same viewer and cursor: a hundred spectators of one game cost one fold per append, not a
/// hundred. Recent pages only; each is computed once however many followers ask at once.
#[derive(Default)]
pub struct SharedFrames {
    pages: Mutex<SharedPages>,
}

type PageKey = (String, Viewer, i64, i64);

#[derive(Default)]
struct SharedPages {
    by_key: HashMap<PageKey, Arc<OnceCell<Frames>>>,
    order: VecDeque<PageKey>,
}

/// Pages kept for followers that wake a little later than the others.
const SHARED_PAGES: usize = 512;
/// Longer pages (a follower catching up on a whole log) are made for their follower alone:
/// kept, they could hold the logs of 512 games.
const MOST_SHARED_EVENTS: i64 = 64;

impl SharedFrames {
    fn cell(&self, key: PageKey) -> Arc<OnceCell<Frames>> {
        let mut pages = self
            .pages
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(cell) = pages.by_key.get(&key) {
            return cell.clone();
        }
        if pages.order.len() >= SHARED_PAGES {
            if let Some(oldest) = pages.order.pop_front() {
                pages.by_key.remove(&oldest);
            }
        }
        let cell = Arc::new(OnceCell::new());
        pages.by_key.insert(key.clone(), cell.clone());
        pages.order.push_back(key);
        cell
    }

    /// The frames of game `id`'s events with `after < seq <= up_to` for `viewer`.
    async fn frames(
        &self,
        db: &web::Data<Db>,
        id: &str,
        viewer: Viewer,
        after: i64,
        up_to: i64,
    ) -> Result<Frames, ApiError> {
        let load = || async {
            let (db, id) = (db.clone(), id.to_owned());
            let events = blocking(move || play::events_for(&db, &id, viewer, after, up_to)).await?;
            Ok::<_, ApiError>(Arc::new(
                events
                    .into_iter()
                    .map(EventOut::from)
                    .map(|event| (event.seq, event_frame(&event)))
                    .collect::<Vec<_>>(),
            ))
        };
        if up_to - after > MOST_SHARED_EVENTS {
            return load().await;
        }
        let cell = self.cell((id.to_owned(), viewer, after, up_to));
        cell.get_or_try_init(load).await.cloned()
    }
}

/// What one game stream still has to send.
struct Follower {
    db: web::Data<Db>,
    shared: web::Data<SharedFrames>,
    game: watch::Receiver<i64>,
    account: watch::Receiver<AccountState>,
    /// The account's personal-token revocations this stream has looked at.
    token_revocations_seen: u32,
    user: AuthUser,
    id: String,
    cursor: i64,
    pending: VecDeque<Frame>,
    finished: bool,
    ended: bool,
    ends_at: Instant,
    _slot: FollowerSlot,
}

impl Follower {
    /// Queues what the caller may see after the cursor, up to the game's seq now.
    async fn load(&mut self) -> Result<(), ApiError> {
        let (db, id, user) = (self.db.clone(), self.id.clone(), self.user.clone());
        let (viewer, seq, status) = blocking(move || play::viewer_now(&db, &id, &user)).await?;
        self.finished = status.is_over();
        if seq > self.cursor {
            let frames = self
                .shared
                .frames(&self.db, &self.id, viewer, self.cursor, seq)
                .await?;
            self.pending
                .extend(frames.iter().map(|(_, frame)| frame.clone()));
            self.cursor = frames
                .last()
                .map_or(seq, |(last, _)| *last)
                .max(self.cursor);
        }
        Ok(())
    }

    /// The next frame, or `None` when the stream is over.
    async fn next_frame(&mut self) -> Option<Frame> {
        // Fifteen seconds after the last frame, whatever woke the stream meanwhile without
        // anything to send.
        let heartbeat = (Instant::now() + HEARTBEAT).min(self.ends_at);
        loop {
            if let Some(frame) = self.pending.pop_front() {
                return Some(frame);
            }
            if self.ended
                || token_revoked_since(
                    &self.db,
                    &self.account,
                    &self.user,
                    &mut self.token_revocations_seen,
                )
                .await
            {
                return None;
            }
            if self.finished {
                self.ended = true;
                return Some(Frame::End);
            }
            if Instant::now() >= self.ends_at {
                self.ended = true;
                return Some(Frame::LifetimeOver);
            }
            tokio::select! {
                moved = self.game.changed() => {
                    if moved.is_err() {
                        return None;
                    }
                    if *self.game.borrow_and_update() > self.cursor {
                        self.load().await.ok()?;
                    }
                }
                _ = self.account.changed() => {}
                _ = self._slot.ended() => {
                    self.ended = true;
                    return Some(Frame::MadeRoom);
                }
                _ = tokio::time::sleep_until(heartbeat) => {
                    if Instant::now() < self.ends_at {
                        return Some(Frame::Heartbeat);
                    }
                }
            }
        }
    }
}

/// One event as a frame: its seq as the id (for `Last-Event-ID`), its type as the event
/// name, and the `EventOut` JSON (one line) as the data.
fn event_frame(event: &EventOut) -> Frame {
    item_frame(event.seq, &event.event_type, event)
}

/// A frame of `document` with `id` and the event name `name`, in both framings.
fn item_frame(id: i64, name: &str, document: &impl serde::Serialize) -> Frame {
    let json = serde_json::to_string(document).unwrap_or_default();
    Frame::Item {
        event: Bytes::from(format!("id: {id}\nevent: {name}\ndata: {json}\n\n")),
        line: Bytes::from(json + "\n"),
    }
}

/// The game's events as Server-Sent Events, live.
///
/// Every event the caller may see (redacted exactly like `/events`), in order, from `after`
/// or the `Last-Event-ID` the browser sends when it reconnects, then each new one as it is
/// appended by any instance. Frames: `id: <seq>`, `event: <type>`, `data: <EventOut JSON>`
/// (the `data` of each frame is the kind's `<Kind>EventOut`; see `GameStreamFrame`).
/// A `: heartbeat` comment every 15 seconds keeps proxies from closing the stream; once the
/// game is finished and every event sent, an `end` event (`data: {}`) closes it. The server
/// writes only as fast as the client reads.
///
/// With `Accept: application/x-ndjson` the same events come as NDJSON instead: one
/// `<Kind>EventOut` a line, an empty line as the heartbeat, and the stream simply ends when
/// the game is finished (its last event is `game_finished`) or its lifetime is over (resume
/// with `after` = the last seq received). HEAD answers the head a GET would, without
/// opening a stream.
///
/// A stream lasts at most the server's stream lifetime (an hour unless configured): then
/// it closes, and the client resumes with `Last-Event-ID` (browsers' `EventSource` does so
/// by itself, one second later). It closes at once when the account signs out everywhere
/// or changes its password, or when the personal token it was opened with is revoked. An
/// account, a client address and the server each hold a limited number of streams and long
/// polls at once; beyond that the answer is 429 `too_many_streams` with `Retry-After`.
#[utoipa::path(get, path = "/v1/games/{id}/stream", tag = "play",
    params(
        ("id" = String, Path, description = "Game id"),
        StreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The seq of the last event received; the stream resumes after it"),
    ),
    responses(
        (status = 200, description = "The event stream", content_type = "text/event-stream", body = String,
            example = "retry: 1000\n\nid: 5\nevent: turn_started\ndata: {\"seq\":5,\"time\":\"2026-11-24T10:00:00.000Z\",\"seat\":null,\"type\":\"turn_started\",\"schema_version\":2,\"payload\":{\"type\":\"turn_started\",\"seat\":0},\"text\":\"Red begins a turn\"}\n\n: heartbeat\n\n"),
        (status = 400, description = "`invalid_last_event_id`: not a seq or notification id; `invalid_query`: `after` below 0 or `max_seconds` outside 1 to 3600", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams`: the account, its address or the server holds as many streams and long polls as allowed (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/stream", method = "GET", method = "HEAD")]
pub async fn stream_events(
    db: web::Data<Db>,
    hub: web::Data<Hub>,
    shared: web::Data<SharedFrames>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<StreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let after = cursor_after(query.after)?;
    let cursor = last_event_id(&request)?.unwrap_or(after);
    let lifetime = lifetime(&request, query.max_seconds)?;
    let framing = Framing::of(&request);
    if request.method() == actix_web::http::Method::HEAD {
        // What a GET would answer, without holding a slot or sending a frame.
        let (db, user) = (db.clone(), user.clone());
        blocking(move || play::viewer_now(&db, &id, &user)).await?;
        return Ok(stream_response(framing).finish());
    }
    let slot = admit(&request, &user)?;
    let account = hub.follow_account(&user.account_id);
    let token_revocations_seen = account.borrow().personal_tokens_revoked;
    let mut follower = Follower {
        game: hub.follow_game(&id),
        token_revocations_seen,
        account,
        db,
        shared,
        user,
        id,
        cursor,
        pending: VecDeque::new(),
        finished: false,
        ended: false,
        ends_at: Instant::now() + lifetime,
        _slot: slot,
    };
    follower.load().await?;
    Ok(stream_of(follower, framing))
}

/// How long a stream may last: the server's stream lifetime, or less when the client asks.
fn lifetime(request: &HttpRequest, max_seconds: Option<i64>) -> Result<Duration, ApiError> {
    let server = request
        .app_data::<web::Data<Followers>>()
        .map_or(Duration::from_secs(3_600), |followers| {
            followers.caps().stream_lifetime
        });
    match max_seconds {
        None => Ok(server),
        Some(seconds @ 1..=3_600) => Ok(server.min(Duration::from_secs(seconds.unsigned_abs()))),
        Some(_) => Err(ApiError::bad_request(
            "invalid_query",
            "`max_seconds` must be 1 to 3600",
        )),
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
    account: watch::Receiver<AccountState>,
    /// The account's personal-token revocations this stream has looked at.
    token_revocations_seen: u32,
    user: AuthUser,
    cursor: i64,
    pending: VecDeque<Frame>,
    ended: bool,
    ends_at: Instant,
    _slot: FollowerSlot,
}

impl AccountFollower {
    /// Queues the caller's notifications after the cursor.
    async fn load(&mut self) -> Option<()> {
        let (db, account, after) = (self.db.clone(), self.user.account_id.clone(), self.cursor);
        let stored = blocking(move || {
            db.read_without_transaction(|conn| {
                Ok(crate::store::notifications::notifications_after(
                    conn, &account, after, 100,
                )?)
            })
        })
        .await
        .ok()?;
        for notification in &stored {
            let notification = super::models::NotificationOut::of(notification).ok()?;
            self.cursor = notification.id;
            let kind = serde_json::to_value(notification.kind).unwrap_or_default();
            self.pending.push_back(item_frame(
                notification.id,
                kind.as_str().unwrap_or_default(),
                &notification,
            ));
        }
        Some(())
    }

    async fn next_frame(&mut self) -> Option<Frame> {
        let heartbeat = (Instant::now() + HEARTBEAT).min(self.ends_at);
        loop {
            if let Some(frame) = self.pending.pop_front() {
                return Some(frame);
            }
            if self.ended
                || token_revoked_since(
                    &self.db,
                    &self.account,
                    &self.user,
                    &mut self.token_revocations_seen,
                )
                .await
            {
                return None;
            }
            if Instant::now() >= self.ends_at {
                self.ended = true;
                return Some(Frame::LifetimeOver);
            }
            tokio::select! {
                changed = self.account.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                    if self.account.borrow_and_update().last_notification > self.cursor {
                        self.load().await?;
                    }
                }
                _ = self._slot.ended() => {
                    self.ended = true;
                    return Some(Frame::MadeRoom);
                }
                _ = tokio::time::sleep_until(heartbeat) => {
                    if Instant::now() < self.ends_at {
                        return Some(Frame::Heartbeat);
                    }
                }
            }
        }
    }
}

/// Everything that concerns you across your games, live, as Server-Sent Events.
///
/// The notifications of `GET /v1/me/notifications`, of every type `NotificationKind` lists
/// (from `game_started` and `your_turn` to `mention` and `reminder`), as they are written by
/// any instance:
/// `id: <notification id>`, `event: <type>`, `data: <NotificationOut JSON>` (or, with
/// `Accept: application/x-ndjson`, one `NotificationOut` a line and an empty line as the
/// heartbeat; resume with `after` = the last id received). Resumes after the
/// `Last-Event-ID` a reconnecting client sends, or after `after`; with neither it sends only
/// what happens from now on. A `: heartbeat` comment every 15 seconds keeps proxies from
/// closing it. Like a game's stream it lasts at most the server's stream lifetime, closes
/// when the account signs out everywhere or changes its password (or the personal token it
/// was opened with is revoked), and counts against the caps on streams and long polls (429
/// `too_many_streams`).
#[utoipa::path(get, path = "/v1/me/stream", tag = "notifications",
    params(
        NotificationStreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The id of the last notification received; the stream resumes after it"),
    ),
    responses(
        (status = 200, description = "The notification stream", content_type = "text/event-stream", body = String,
            example = "retry: 1000\n\nid: 42\nevent: your_turn\ndata: {\"id\":42,\"type\":\"your_turn\",\"game_id\":\"bktgir262m\",\"game_kind\":\"tikal\",\"seq\":4,\"seat\":0,\"to_act\":[0],\"created_at\":\"2026-11-24T10:00:00.000Z\"}\n\n"),
        (status = 400, description = "`invalid_last_event_id`: not a seq or notification id; `invalid_query`: `after` below 0 or `max_seconds` outside 1 to 3600", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams`: the account, its address or the server holds as many streams and long polls as allowed (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/stream", method = "GET", method = "HEAD")]
pub async fn stream_notifications(
    db: web::Data<Db>,
    hub: web::Data<Hub>,
    user: AuthUser,
    query: web::Query<NotificationStreamQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let after = query
        .after
        .map(|after| cursor_after(Some(after)))
        .transpose()?;
    let resume = last_event_id(&request)?.or(after);
    let lifetime = lifetime(&request, query.max_seconds)?;
    let framing = Framing::of(&request);
    if request.method() == actix_web::http::Method::HEAD {
        return Ok(stream_response(framing).finish());
    }
    let slot = admit(&request, &user)?;
    let account = hub.follow_account(&user.account_id);
    let cursor = match resume {
        Some(cursor) => cursor,
        None => last_notification(&db, &user.account_id).await?,
    };
    let token_revocations_seen = account.borrow().personal_tokens_revoked;
    let mut follower = AccountFollower {
        db,
        token_revocations_seen,
        account,
        user,
        cursor,
        pending: VecDeque::new(),
        ended: false,
        ends_at: Instant::now() + lifetime,
        _slot: slot,
    };
    follower
        .load()
        .await
        .ok_or_else(|| ApiError::Unavailable("the notifications could not be read".into()))?;
    Ok(stream_of(follower, framing))
}

/// What a stream's follower yields: its frames, `None` once the stream is over.
trait FrameSource {
    async fn next_frame(&mut self) -> Option<Frame>;
}

impl FrameSource for Follower {
    async fn next_frame(&mut self) -> Option<Frame> {
        Follower::next_frame(self).await
    }
}

impl FrameSource for AccountFollower {
    async fn next_frame(&mut self) -> Option<Frame> {
        AccountFollower::next_frame(self).await
    }
}

/// The response streaming `follower`'s frames in `framing`, after the preamble.
fn stream_of(follower: impl FrameSource + 'static, framing: Framing) -> HttpResponse {
    let preamble = futures_util::stream::iter(framing.render(&Frame::Preamble).map(Ok));
    let frames = futures_util::stream::unfold(follower, move |mut follower| async move {
        loop {
            let frame = follower.next_frame().await?;
            if let Some(bytes) = framing.render(&frame) {
                return Some((Ok::<_, actix_web::Error>(bytes), follower));
            }
        }
    });
    stream_response(framing).streaming(futures_util::StreamExt::chain(preamble, frames))
}

/// The head of a stream's response in `framing`.
fn stream_response(framing: Framing) -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Ok();
    response
        .content_type(framing.content_type())
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Compressing would hold frames back until a block fills.
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"));
    response
}
