//! Following accounts: a list of the players one wants to see, invite and watch.

use actix_web::{delete, put, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use super::models::AccountRef;
use super::paging::{page_response, PageQuery, PageRequest, Pager};
use super::rate_limit::RateLimits;
use crate::auth::user::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::service::{follows, format_time};
use crate::store::follows::FollowedAccount;
use crate::store::Db;

/// An account you follow.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FollowOut {
    pub account: AccountRef,
    /// RFC 3339: since when.
    #[schema(format = DateTime)]
    pub since: String,
    /// Its public games waiting for players now (`GET /v1/games?following=true&status=open`
    /// lists them).
    pub open_games: u32,
}

impl FollowOut {
    fn of(entry: FollowedAccount) -> FollowOut {
        FollowOut {
            account: AccountRef {
                id: entry.account_id,
                name: entry.name,
            },
            since: format_time(entry.since),
            open_games: u32::try_from(entry.open_games).unwrap_or(u32::MAX),
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FollowList {
    /// By name.
    pub following: Vec<FollowOut>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const FOLLOWING: Pager = Pager::new("following", 50, 200);

const NAME_PARAM: &str = "Account name (any case)";

/// The accounts you follow, by name, each with how many public games it waits in for
/// players.
#[utoipa::path(get, path = "/v1/me/following", tag = "accounts",
    params(PageQuery),
    responses(
        (status = 200, body = FollowList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/following", method = "GET", method = "HEAD")]
pub async fn list_following(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<PageQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page: PageRequest<String> = FOLLOWING.request(query.cursor.as_deref(), query.limit)?;
    let (after, rows) = (page.after.clone(), page.rows_to_read());
    let found = blocking(move || follows::list(&db, &user, after.as_deref(), rows)).await?;
    let found = page.cut(&FOLLOWING, found, |entry| entry.name_key.clone());
    let body = FollowList {
        following: found.items.into_iter().map(FollowOut::of).collect(),
        next: found.next.clone(),
    };
    Ok(page_response(&http, found.next.as_deref(), &body))
}

/// Follow an account: it shows in your list with its open games, its games can be listed
/// (`GET /v1/games?following=true`), and the page offers it when you invite. It needs no
/// consent and is not told. Following again changes nothing. An account follows at most
/// 500 others (the server's `--follows-per-account`); follows and unfollows together are
/// limited per hour (429 `rate_limited`). Not between accounts one of which blocks the
/// other (403 `blocked`); a block ends following either way.
#[utoipa::path(put, path = "/v1/me/following/{name}", tag = "accounts",
    params(("name" = String, Path, description = NAME_PARAM, example = "bob")),
    responses(
        (status = 201, description = "Followed now", body = FollowOut),
        (status = 200, description = "Followed already", body = FollowOut),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`blocked`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`cannot_follow_yourself`, `follow_quota`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`", body = Problem, content_type = "application/problem+json"),
    ))]
#[put("/v1/me/following/{name}")]
pub async fn follow_account(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    limits: web::Data<RateLimits>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    limits
        .follows_per_account
        .take(&db, &user.account_id)
        .await?;
    let now = clock.now_millis();
    let most = limits.follows_per_account_quota;
    let (entry, new) = blocking(move || follows::follow(&db, &user, &name, now, most)).await?;
    Ok(if new {
        HttpResponse::Created().json(FollowOut::of(entry))
    } else {
        HttpResponse::Ok().json(FollowOut::of(entry))
    })
}

/// Stop following an account.
#[utoipa::path(delete, path = "/v1/me/following/{name}", tag = "accounts",
    params(("name" = String, Path, description = NAME_PARAM, example = "bob")),
    responses(
        (status = 204, description = "No longer followed"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`; `not_following`: you do not follow that account", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/v1/me/following/{name}")]
pub async fn unfollow_account(
    db: web::Data<Db>,
    limits: web::Data<RateLimits>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    limits
        .follows_per_account
        .take(&db, &user.account_id)
        .await?;
    blocking(move || follows::unfollow(&db, &user, &name)).await?;
    Ok(HttpResponse::NoContent().finish())
}
