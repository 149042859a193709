//! A game's chat: read it (a page, or a long poll for the next message), write in it, delete
//! your own message.

use std::time::Duration;

use actix_web::{delete, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::blocking;
use super::games::game_id;
use super::models::AccountRef;
use super::paging::{page_response, Pager};
use super::rate_limit::RateLimits;
use crate::auth::user::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::push::Hub;
use crate::service::chat;
use crate::service::format_time;
use crate::store::chat::ChatMessage;
use crate::store::Db;

/// A message in a game's chat.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatMessageOut {
    /// Increasing per game: long-poll with `after` = the last one read.
    pub id: i64,
    pub author: AccountRef,
    /// The author's seat when they wrote; `null` for a spectator.
    pub seat: Option<u8>,
    /// `null` once the author deleted it, or while it is `hidden`.
    #[schema(example = "good luck, @bob")]
    pub text: Option<String>,
    /// Why its text is not shown: `moderator` (a moderator hid it, for everyone) or
    /// `blocked` (you block its author); `null` when nothing hides it.
    pub hidden: Option<ChatHidden>,
    /// The players the message named (`@name`), who were notified.
    pub mentions: Vec<String>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339, once deleted: the message stays as a tombstone.
    pub deleted_at: Option<String>,
}

/// Why a chat message's text is not shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChatHidden {
    Moderator,
    Blocked,
}

impl ChatMessageOut {
    /// The message as its reader sees it, who blocks the authors in `blocked`.
    pub fn for_reader(message: &ChatMessage, blocked: &[String]) -> ChatMessageOut {
        let mut out = ChatMessageOut::of(message);
        if out.hidden.is_none() && blocked.contains(&message.account_id) {
            out.hidden = Some(ChatHidden::Blocked);
            out.text = None;
            out.mentions = Vec::new();
        }
        out
    }

    pub fn of(message: &ChatMessage) -> ChatMessageOut {
        let hidden = message.hidden_at.map(|_| ChatHidden::Moderator);
        ChatMessageOut {
            id: message.id,
            author: AccountRef {
                id: message.account_id.clone(),
                name: message.author.clone(),
            },
            seat: message.seat.and_then(|seat| u8::try_from(seat).ok()),
            text: (message.deleted_at.is_none() && hidden.is_none()).then(|| message.body.clone()),
            hidden,
            mentions: serde_json::from_str(&message.mentions).unwrap_or_default(),
            created_at: format_time(message.created_at),
            deleted_at: message.deleted_at.map(format_time),
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ChatLog {
    pub game_id: String,
    /// Whether spectators may write too (players always may), chosen at creation.
    pub spectators_may_write: bool,
    /// Oldest first.
    pub messages: Vec<ChatMessageOut>,
    /// The next page's `cursor`; `null` on the last page (a long poll then continues with
    /// `after` = the last id).
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const CHAT: Pager = Pager::new("chat", 100, 200);

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChatQuery {
    /// At most this many messages (1 to 200, default 100).
    #[param(minimum = 1, maximum = 200, example = 100)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    /// Only messages after this id (default 0: from the first); not with `cursor`.
    #[param(minimum = 0, example = 12)]
    pub after: Option<i64>,
    /// Long poll: when nothing is past `after` yet, wait up to this many seconds (at most
    /// 60) for the next message, written on any instance.
    #[param(minimum = 0, maximum = 60, example = 30)]
    pub wait: Option<u64>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewChatMessage {
    /// At most 1,000 characters, showing something (not only spaces or invisible
    /// characters such as zero-width spaces); no control characters but line ends and tabs,
    /// no direction controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069),
    /// no line or paragraph separators (U+2028, U+2029), no tag characters (U+E0000 to
    /// U+E007F); spaces and line ends around it are dropped. `@name` notifies that player.
    #[schema(example = "good luck, @bob", min_length = 1, max_length = 1000)]
    pub text: String,
}

/// The game's chat, oldest first, a page at a time. Anyone who may read the game may read
/// its chat.
#[utoipa::path(get, path = "/v1/games/{id}/chat", tag = "play",
    params(("id" = String, Path, description = "Game id"), ChatQuery),
    responses(
        (status = 200, body = ChatLog),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, `cursor_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams` (a long poll, `wait` > 0, while the account, its address or the server holds as many streams and long polls as allowed; with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/chat", method = "GET", method = "HEAD")]
pub async fn read_chat(
    db: web::Data<Db>,
    hub: web::Data<Hub>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<ChatQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let query = query.into_inner();
    let page = super::live::log_page(&CHAT, query.cursor.as_deref(), query.limit, query.after)?;
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
            waited = super::live::wait_for_chat(&db, &hub, &user, &id, after, Duration::from_secs(wait)) => waited?,
            () = slot.ended() => {}
        }
    }
    let (game_id, rows) = (id.clone(), page.rows_to_read());
    let read = blocking(move || chat::messages(&db, &id, &user, after, rows)).await?;
    let messages = page.cut(&CHAT, read.messages, |message| message.id);
    let body = ChatLog {
        game_id,
        spectators_may_write: read.spectators_may_write,
        messages: messages
            .items
            .iter()
            .map(|message| ChatMessageOut::for_reader(message, &read.blocked_authors))
            .collect(),
        next: messages.next.clone(),
    };
    Ok(page_response(&request, messages.next.as_deref(), &body))
}

/// Write in the game's chat: its players may (seated, or once seated), and spectators when
/// the game was created with `spectator_chat`. Each player named with `@name` gets a
/// `mention` notification, every other player a `chat_message` one (not the author; bots
/// none). An account writes at most 10 messages a minute in all games together (the
/// server's setting), a game's chat holds at most 5,000.
#[utoipa::path(post, path = "/v1/games/{id}/chat", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    request_body = NewChatMessage,
    responses(
        (status = 201, description = "The message as stored", body = ChatMessageOut),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: spectators may not write in this game's chat; `chat_muted`: a moderator muted your chat for a while", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`chat_full`: the game's chat holds as many messages as allowed", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_chat_message`: empty, too long, or holding control characters", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many messages from this account (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/chat", method = "POST")]
pub async fn write_chat(
    db: web::Data<Db>,
    limits: web::Data<RateLimits>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<NewChatMessage>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    limits.chat_per_account.take(&db, &user.account_id).await?;
    let text = body.into_inner().text;
    let now = clock.now_millis();
    let message = blocking(move || chat::post(&db, &id, &user, &text, now)).await?;
    Ok(HttpResponse::Created().json(ChatMessageOut::of(&message)))
}

/// Delete your message: its text goes, a tombstone with its time stays (`text` null,
/// `deleted_at` set). Deleting it again changes nothing.
#[utoipa::path(delete, path = "/v1/games/{id}/chat/{message_id}", tag = "play",
    params(
        ("id" = String, Path, description = "Game id"),
        ("message_id" = i64, Path, description = "The message's id"),
    ),
    responses(
        (status = 200, description = "The tombstone", body = ChatMessageOut),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_the_author`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, `message_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/v1/games/{id}/chat/{message_id}")]
pub async fn delete_chat_message(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, message) = path.into_inner();
    let id = game_id(web::Path::from(id))?;
    let message_id: i64 = message
        .parse()
        .ok()
        .filter(|id: &i64| *id > 0)
        .ok_or_else(|| {
            ApiError::not_found(
                "message_not_found",
                format!("game {id}'s chat has no message {message:?}"),
            )
        })?;
    let now = clock.now_millis();
    let message = blocking(move || chat::delete(&db, &id, message_id, &user, now)).await?;
    Ok(HttpResponse::Ok().json(ChatMessageOut::of(&message)))
}
