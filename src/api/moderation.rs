//! Blocks, reports, and what moderators do (`/v1/moderation`, for accounts an operator
//! made moderators with `turnpost grant-moderator`).

use actix_web::{delete, post, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::blocking;
use super::games::checked_game_id;
use super::models::AccountRef;
use super::paging::{page_response, PageQuery, PageRequest, Pager};
use super::rate_limit::RateLimits;
use crate::auth::user::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::service::fold_cache::FoldCache;
use crate::service::moderation::{self, Reported, MOST_MUTE_DAYS};
use crate::service::{blocks, format_time};
use crate::store::moderation::{Blocked, LoggedEntry, Report, ReportState};
use crate::store::Db;

/// An account you block.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockOut {
    pub account: AccountRef,
    /// RFC 3339: since when.
    #[schema(format = DateTime)]
    pub since: String,
}

impl BlockOut {
    fn of(blocked: Blocked) -> BlockOut {
        BlockOut {
            account: AccountRef {
                id: blocked.account_id,
                name: blocked.name,
            },
            since: format_time(blocked.since),
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockList {
    /// By name.
    pub blocked: Vec<BlockOut>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const BLOCKS: Pager = Pager::new("blocks", 50, 200);
pub const REPORTS: Pager = Pager::new("reports", 50, 200);
pub const AUDIT_LOG: Pager = Pager::new("audit_log", 50, 200);

const NAME_PARAM: &str = "Account name (any case)";

/// The accounts you block, by name.
#[utoipa::path(get, path = "/v1/me/blocks", tag = "accounts",
    params(PageQuery),
    responses(
        (status = 200, body = BlockList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/blocks", method = "GET", method = "HEAD")]
pub async fn list_blocks(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<PageQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page: PageRequest<String> = BLOCKS.request(query.cursor.as_deref(), query.limit)?;
    let (after, rows) = (page.after.clone(), page.rows_to_read());
    let blocked = blocking(move || blocks::list(&db, &user, after.as_deref(), rows)).await?;
    let blocked = page.cut(&BLOCKS, blocked, |entry| entry.name_key.clone());
    let body = BlockList {
        blocked: blocked.items.into_iter().map(BlockOut::of).collect(),
        next: blocked.next.clone(),
    };
    Ok(page_response(&http, blocked.next.as_deref(), &body))
}

/// Block an account: from now on no invitation, rematch offer, chat message or mention of
/// theirs reaches you (their messages in a chat you read arrive with `hidden: "blocked"`),
/// the invitations standing between you are declined, and neither of you may invite the
/// other or join the other's unlisted or private games. They are not told. Blocking again
/// changes nothing.
#[utoipa::path(put, path = "/v1/me/blocks/{name}", tag = "accounts",
    params(("name" = String, Path, description = NAME_PARAM, example = "mallory")),
    responses(
        (status = 201, description = "Blocked now", body = BlockOut),
        (status = 200, description = "Blocked already", body = BlockOut),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`cannot_block_yourself`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/blocks/{name}", method = "PUT")]
pub async fn block_account(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    let now = clock.now_millis();
    let (blocked, new) = blocking(move || blocks::block(&db, &user, &name, now)).await?;
    let answer = if new {
        HttpResponse::Created().json(BlockOut::of(blocked))
    } else {
        HttpResponse::Ok().json(BlockOut::of(blocked))
    };
    Ok(answer)
}

/// Stop blocking an account.
#[utoipa::path(delete, path = "/v1/me/blocks/{name}", tag = "accounts",
    params(("name" = String, Path, description = NAME_PARAM, example = "mallory")),
    responses(
        (status = 204, description = "No longer blocked"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`; `not_blocked`: you do not block that account", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/v1/me/blocks/{name}")]
pub async fn unblock_account(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    blocking(move || blocks::unblock(&db, &user, &name)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A chat message, by its game and id.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageRef {
    pub game_id: String,
    #[schema(minimum = 1)]
    pub message_id: i64,
}

/// A report of an account, and perhaps of one of its chat messages.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewReport {
    /// The account reported, by name.
    #[schema(example = "mallory")]
    pub account: String,
    /// One of the account's chat messages, in a game you may read: kept for the moderators
    /// as it read when reported.
    #[serde(default)]
    pub message: Option<MessageRef>,
    /// What is wrong, for the moderators: at most 1,000 characters, showing something; the
    /// same characters as a chat message.
    #[schema(example = "insults in the chat", min_length = 1, max_length = 1000)]
    pub reason: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportFiled {
    pub id: i64,
}

/// Report an account to the moderators, with a reason, and perhaps one of its chat
/// messages: that message is kept as it read, for the moderators, even if its author
/// deletes it. Each account files at most 10 reports an hour.
#[utoipa::path(post, path = "/v1/reports", tag = "accounts",
    request_body = NewReport,
    responses(
        (status = 201, description = "Filed", body = ReportFiled),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`; `game_not_found`; `message_not_found`: the game's chat has no such message by that account", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`cannot_report_yourself`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_reason`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited` (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/reports")]
pub async fn file_report(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    limits: web::Data<RateLimits>,
    user: AuthUser,
    body: super::transport::Json<NewReport>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let message = match body.message {
        Some(message) => Some((checked_game_id(message.game_id)?, message.message_id)),
        None => None,
    };
    let reported = Reported {
        account: body.account,
        message,
    };
    limits
        .reports_per_account
        .take(&db, &user.account_id)
        .await?;
    let now = clock.now_millis();
    let id = blocking(move || moderation::report(&db, &user, &reported, &body.reason, now)).await?;
    Ok(HttpResponse::Created().json(ReportFiled { id }))
}

/// A report as moderators read it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportOut {
    pub id: i64,
    pub reporter: AccountRef,
    /// The account reported (a message's author).
    pub account: AccountRef,
    /// The message reported, as it read when reported.
    pub message: Option<ReportedMessage>,
    pub reason: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// `null` while open.
    #[schema(format = DateTime)]
    pub resolved_at: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportedMessage {
    pub game_id: String,
    pub message_id: i64,
    pub text: String,
}

impl ReportOut {
    fn of(report: Report) -> ReportOut {
        let account = |(id, name): (String, String)| AccountRef { id, name };
        ReportOut {
            id: report.id,
            reporter: account(report.reporter),
            account: account(report.account),
            message: match (report.game_id, report.message_id) {
                (Some(game_id), Some(message_id)) => Some(ReportedMessage {
                    game_id,
                    message_id,
                    text: report.message_text.unwrap_or_default(),
                }),
                _ => None,
            },
            reason: report.reason,
            created_at: format_time(report.created_at),
            resolved_at: report.resolved_at.map(format_time),
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportList {
    /// Oldest first.
    pub reports: Vec<ReportOut>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

/// Which reports a moderator lists.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportStateQuery {
    Open,
    Resolved,
    All,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportQuery {
    /// `open` (the default), `resolved` or `all`.
    pub state: Option<ReportStateQuery>,
    /// Only reports of this account (by name).
    pub account: Option<String>,
    /// At most this many (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    /// Only reports after this id. Deprecated: page with `cursor`.
    #[param(minimum = 0)]
    pub after: Option<i64>,
}

/// A page of a list ordered by id, from `cursor` or the older `after`.
fn id_page(
    pager: &Pager,
    cursor: Option<&str>,
    limit: Option<i64>,
    after: Option<i64>,
) -> Result<PageRequest<i64>, ApiError> {
    if after.is_some_and(|after| after < 0) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "`after` is at least 0",
        ));
    }
    pager.request_or(cursor, limit, after)
}

const MODERATORS_ONLY: &str = "`not_a_moderator`";

/// A stored id in a path: a positive whole number (anything else names nothing stored).
fn positive_id(text: &str) -> Option<i64> {
    text.parse().ok().filter(|id: &i64| *id > 0)
}

/// The reports, for moderators: open ones by default, oldest first.
#[utoipa::path(get, path = "/v1/moderation/reports", tag = "moderation",
    params(ReportQuery),
    responses(
        (status = 200, body = ReportList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = MODERATORS_ONLY, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`, `cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/moderation/reports", method = "GET", method = "HEAD")]
pub async fn list_reports(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<ReportQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let page = id_page(&REPORTS, query.cursor.as_deref(), query.limit, query.after)?;
    let (after, limit) = (page.after.unwrap_or(0), page.rows_to_read());
    let state = match query.state.unwrap_or(ReportStateQuery::Open) {
        ReportStateQuery::Open => ReportState::Open,
        ReportStateQuery::Resolved => ReportState::Resolved,
        ReportStateQuery::All => ReportState::All,
    };
    let reports = blocking(move || {
        moderation::reports(&db, &user, state, query.account.as_deref(), after, limit)
    })
    .await?;
    let reports = page.cut(&REPORTS, reports, |report| report.id);
    let body = ReportList {
        reports: reports.items.into_iter().map(ReportOut::of).collect(),
        next: reports.next.clone(),
    };
    Ok(page_response(&http, reports.next.as_deref(), &body))
}

/// Why a moderator acts, for the audit log.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModerationReason {
    /// At most 1,000 characters, showing something; the same characters as a chat
    /// message.
    #[schema(example = "insults, see report 12", min_length = 1, max_length = 1000)]
    pub reason: String,
}

/// A mute: for how long, and why.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMute {
    #[schema(minimum = 1, maximum = 365, example = 7)]
    pub days: u32,
    /// As for every moderator's action.
    #[schema(example = "insults, see report 12", min_length = 1, max_length = 1000)]
    pub reason: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MuteOut {
    /// RFC 3339: the account writes no chat until then; `null` once lifted.
    #[schema(format = DateTime)]
    pub until: Option<String>,
}

/// Close a report (moderators).
#[utoipa::path(post, path = "/v1/moderation/reports/{report_id}/resolve", tag = "moderation",
    params(("report_id" = i64, Path, description = "Report id")),
    request_body = ModerationReason,
    responses(
        (status = 204, description = "Resolved"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = MODERATORS_ONLY, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`report_not_found`: no open report has that id", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_reason`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/moderation/reports/{report_id}/resolve")]
pub async fn resolve_report(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<ModerationReason>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let id = positive_id(&id).ok_or_else(|| moderation::report_not_found(&id))?;
    let (reason, now) = (body.into_inner().reason, clock.now_millis());
    blocking(move || moderation::resolve(&db, &user, id, &reason, now)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Hide a chat message (moderators), in any game: it stays as a tombstone with `hidden:
/// "moderator"` for every reader.
#[utoipa::path(post, path = "/v1/moderation/games/{id}/chat/{message_id}/hide", tag = "moderation",
    params(("id" = String, Path, description = "Game id"), ("message_id" = i64, Path, description = "Message id")),
    request_body = ModerationReason,
    responses(
        (status = 204, description = "Hidden"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = MODERATORS_ONLY, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`; `message_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_reason`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/moderation/games/{id}/chat/{message_id}/hide")]
pub async fn hide_message(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<(String, String)>,
    body: super::transport::Json<ModerationReason>,
) -> Result<HttpResponse, ApiError> {
    let (game, message) = path.into_inner();
    let game = checked_game_id(game)?;
    let message_id =
        positive_id(&message).ok_or_else(|| moderation::message_not_found(&game, &message))?;
    let (reason, now) = (body.into_inner().reason, clock.now_millis());
    blocking(move || moderation::hide_message(&db, &user, &game, message_id, &reason, now)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Mute an account's chat for some days (moderators): its messages are refused with 403
/// `chat_muted` until then. Muting again sets a new end.
#[utoipa::path(post, path = "/v1/moderation/accounts/{name}/mute", tag = "moderation",
    params(("name" = String, Path, description = NAME_PARAM)),
    request_body = NewMute,
    responses(
        (status = 200, body = MuteOut),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = MODERATORS_ONLY, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_mute`; `invalid_reason`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/moderation/accounts/{name}/mute")]
pub async fn mute_account(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<NewMute>,
) -> Result<HttpResponse, ApiError> {
    let (name, body, now) = (path.into_inner(), body.into_inner(), clock.now_millis());
    if !(1..=MOST_MUTE_DAYS).contains(&body.days) {
        return Err(ApiError::unprocessable(
            "invalid_mute",
            format!("a mute lasts 1 to {MOST_MUTE_DAYS} days"),
        ));
    }
    let until =
        blocking(move || moderation::mute(&db, &user, &name, Some(body.days), &body.reason, now))
            .await?;
    Ok(HttpResponse::Ok().json(MuteOut {
        until: until.map(format_time),
    }))
}

/// Lift an account's chat mute (moderators).
#[utoipa::path(post, path = "/v1/moderation/accounts/{name}/unmute", tag = "moderation",
    params(("name" = String, Path, description = NAME_PARAM)),
    request_body = ModerationReason,
    responses(
        (status = 200, body = MuteOut),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = MODERATORS_ONLY, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_reason`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/moderation/accounts/{name}/unmute")]
pub async fn unmute_account(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<ModerationReason>,
) -> Result<HttpResponse, ApiError> {
    let (name, reason, now) = (
        path.into_inner(),
        body.into_inner().reason,
        clock.now_millis(),
    );
    blocking(move || moderation::mute(&db, &user, &name, None, &reason, now)).await?;
    Ok(HttpResponse::Ok().json(MuteOut { until: None }))
}

/// Suspend an account (moderators): its sign-in is refused (403 `account_suspended`), every
/// token it holds stops working at once on every instance, the open games it created are
/// cancelled (`cancel_reason: suspended`) and it leaves the others, and its seats in
/// running games are forfeited (`seat_suspended`): a bot plays on where the game goes on.
#[utoipa::path(post, path = "/v1/moderation/accounts/{name}/suspend", tag = "moderation",
    params(("name" = String, Path, description = NAME_PARAM)),
    request_body = ModerationReason,
    responses(
        (status = 204, description = "Suspended"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = MODERATORS_ONLY, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`cannot_suspend_yourself`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_reason`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/moderation/accounts/{name}/suspend")]
pub async fn suspend_account(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<ModerationReason>,
) -> Result<HttpResponse, ApiError> {
    let (name, reason, now) = (
        path.into_inner(),
        body.into_inner().reason,
        clock.now_millis(),
    );
    blocking(move || moderation::suspend(&db, &cache, &user, &name, &reason, now)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Lift an account's suspension (moderators): it signs in again; its forfeited seats stay
/// forfeited.
#[utoipa::path(post, path = "/v1/moderation/accounts/{name}/unsuspend", tag = "moderation",
    params(("name" = String, Path, description = NAME_PARAM)),
    request_body = ModerationReason,
    responses(
        (status = 204, description = "No longer suspended"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = MODERATORS_ONLY, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_reason`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/moderation/accounts/{name}/unsuspend")]
pub async fn unsuspend_account(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<ModerationReason>,
) -> Result<HttpResponse, ApiError> {
    let (name, reason, now) = (
        path.into_inner(),
        body.into_inner().reason,
        clock.now_millis(),
    );
    blocking(move || moderation::unsuspend(&db, &user, &name, &reason, now)).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// One entry of the audit log.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LogEntryOut {
    pub id: i64,
    /// The moderator; `null` for an operator's command (`turnpost grant-moderator`).
    pub moderator: Option<AccountRef>,
    /// `resolve_report`, `hide_message`, `mute`, `unmute`, `suspend`, `unsuspend`,
    /// `grant_moderator` or `revoke_moderator`.
    #[schema(example = "mute")]
    pub action: String,
    pub account: Option<AccountRef>,
    pub game_id: Option<String>,
    pub message_id: Option<i64>,
    pub report_id: Option<i64>,
    pub reason: String,
    /// RFC 3339: the end of a mute.
    #[schema(format = DateTime)]
    pub until: Option<String>,
    #[schema(format = DateTime)]
    pub at: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditLog {
    /// Oldest first.
    pub entries: Vec<LogEntryOut>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LogQuery {
    /// At most this many (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    /// Only entries after this id. Deprecated: page with `cursor`.
    #[param(minimum = 0)]
    pub after: Option<i64>,
}

/// The audit log of every moderator's action and every grant, with who and why
/// (moderators).
#[utoipa::path(get, path = "/v1/moderation/log", tag = "moderation",
    params(LogQuery),
    responses(
        (status = 200, body = AuditLog),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = MODERATORS_ONLY, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/moderation/log", method = "GET", method = "HEAD")]
pub async fn audit_log(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<LogQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page = id_page(
        &AUDIT_LOG,
        query.cursor.as_deref(),
        query.limit,
        query.after,
    )?;
    let (after, limit) = (page.after.unwrap_or(0), page.rows_to_read());
    let entries = blocking(move || moderation::audit_log(&db, &user, after, limit)).await?;
    let entries = page.cut(&AUDIT_LOG, entries, |logged| logged.id);
    let entry = |logged: LoggedEntry| {
        let named = |id: Option<String>, name: Option<String>| {
            Some(AccountRef {
                id: id?,
                name: name.unwrap_or_default(),
            })
        };
        let entry = logged.entry;
        LogEntryOut {
            id: logged.id,
            moderator: named(entry.moderator_id, logged.moderator_name),
            action: entry.action,
            account: named(entry.account_id, logged.account_name),
            game_id: entry.game_id,
            message_id: entry.message_id,
            report_id: entry.report_id,
            reason: entry.reason,
            until: entry.until.map(format_time),
            at: format_time(entry.created_at),
        }
    };
    let body = AuditLog {
        entries: entries.items.into_iter().map(entry).collect(),
        next: entries.next.clone(),
    };
    Ok(page_response(&http, entries.next.as_deref(), &body))
}
