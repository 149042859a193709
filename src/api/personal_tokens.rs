//! Personal tokens: named, scoped, expiring bearer tokens an account creates for its scripts
//! and bots, listed without their secrets and revoked one by one.

use actix_web::{delete, post, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use super::paging::{page_response, PageQuery, PageRequest, Pager};
use crate::auth::recent_checks::RecentChecks;
use crate::auth::scopes::{Scope, Scopes};
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::service::format_time;
use crate::service::personal_tokens::{self, NewToken, DEFAULT_EXPIRY_DAYS};
use crate::store::personal_tokens::PersonalToken;
use crate::store::Db;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPersonalToken {
    /// What the token is for, to tell it from the others: at most 64 characters on one
    /// line, showing something (not only spaces or invisible characters); no control
    /// characters, direction controls, line or paragraph separators or tag characters (as
    /// for a chat message); spaces around it are dropped.
    #[schema(example = "my tikal bot", min_length = 1, max_length = 64)]
    pub name: String,
    /// What the token may do: at least one scope.
    #[schema(min_items = 1, example = json!(["games:read", "games:play"]))]
    pub scopes: Vec<Scope>,
    /// Days until the token expires: 1 to 365 (90 when left out).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 365, example = 30)]
    pub expires_in_days: Option<u32>,
}

/// A personal token as listed: never its secret.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PersonalTokenOut {
    #[schema(example = "k3v9x2m4q8r7t6y5")]
    pub id: String,
    #[schema(example = "my tikal bot")]
    pub name: String,
    pub scopes: Vec<Scope>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339; the token is refused from then on (401 `token_expired`).
    pub expires_at: String,
    /// RFC 3339: when a request last used the token (noted at most about once a minute).
    pub last_used_at: Option<String>,
}

/// A personal token just created, with the token itself (shown this once).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PersonalTokenCreated {
    #[schema(example = "k3v9x2m4q8r7t6y5")]
    pub id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub expires_at: String,
    /// Send as `Authorization: Bearer <token>`. Only its hash is kept: it cannot be shown
    /// again.
    #[schema(
        example = "tpat_k3v9x2m4q8r7t6y5_9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    )]
    pub token: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PersonalTokenList {
    /// Oldest first.
    pub personal_tokens: Vec<PersonalTokenOut>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const PERSONAL_TOKENS: Pager = Pager::new("personal_tokens", 50, 200);

fn listed(token: &PersonalToken) -> PersonalTokenOut {
    PersonalTokenOut {
        id: token.id.clone(),
        name: token.name.clone(),
        scopes: Scopes::from_stored(&token.scopes).iter().collect(),
        created_at: format_time(token.created_at),
        expires_at: format_time(token.expires_at),
        last_used_at: token.last_used_at.map(format_time),
    }
}

/// Create a personal token.
///
/// A named bearer token for a script or bot, limited to its `scopes` (`games:read`,
/// `games:play`, `webhooks:manage`, `account:manage`) and expiring after `expires_in_days`.
/// A request it makes outside its scopes is answered 403 `missing_scope`. The answer
/// carries the token once; the server keeps only its hash. A personal token (with
/// `account:manage`) may create others only with scopes it has itself and expiring no
/// later than itself. An account has at most 50; expired ones are removed when it creates
/// another. Signing out everywhere and changing the password revoke every personal token.
#[utoipa::path(post, path = "/v1/me/personal-tokens", tag = "accounts",
    request_body = NewPersonalToken,
    responses(
        (status = 201, description = "The token, shown this once", body = PersonalTokenCreated),
        (status = 403, description = "`missing_scope` also when a personal token asks for a scope it does not have itself", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`personal_token_quota`: an account has at most 50 personal tokens", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_token_name` (1 to 64 characters, no control characters), `invalid_scopes` (none given; an unknown scope is `invalid_request`), `invalid_expiry` (1 to 365 days, and for a personal token no later than its own expiry)", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/me/personal-tokens")]
pub async fn create_personal_token(
    db: web::Data<Db>,
    user: AuthUser,
    body: super::transport::Json<NewPersonalToken>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let new = NewToken {
        name: body.name,
        scopes: Scopes::of(body.scopes),
        expires_in_days: body.expires_in_days.unwrap_or(DEFAULT_EXPIRY_DAYS),
    };
    let created = blocking(move || personal_tokens::create(&db, &user, new)).await?;
    let listed = listed(&created.stored);
    Ok(HttpResponse::Created().json(PersonalTokenCreated {
        id: listed.id,
        name: listed.name,
        scopes: listed.scopes,
        created_at: listed.created_at,
        expires_at: listed.expires_at,
        token: created.token,
    }))
}

/// Your personal tokens, oldest first, without their secrets.
#[utoipa::path(get, path = "/v1/me/personal-tokens", tag = "accounts",
    params(PageQuery),
    responses(
        (status = 200, body = PersonalTokenList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/personal-tokens", method = "GET", method = "HEAD")]
pub async fn list_personal_tokens(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<PageQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let page: PageRequest<(i64, String)> =
        PERSONAL_TOKENS.request(query.cursor.as_deref(), query.limit)?;
    let tokens = blocking(move || personal_tokens::list(&db, &user)).await?;
    let tokens = page.page_of(&PERSONAL_TOKENS, tokens, |token| {
        (token.created_at, token.id.clone())
    });
    let body = PersonalTokenList {
        personal_tokens: tokens.items.iter().map(listed).collect(),
        next: tokens.next.clone(),
    };
    Ok(page_response(&http, tokens.next.as_deref(), &body))
}

/// Revoke a personal token.
///
/// Refused at once on the server instance that answers, and on the other instances as soon
/// as the database's notification reaches them (should it be lost, within their token
/// recheck time, 1 s by default): 401 `token_revoked`. Streams opened with it close.
#[utoipa::path(delete, path = "/v1/me/personal-tokens/{token_id}", tag = "accounts",
    params(("token_id" = String, Path, description = "The token's id", example = "k3v9x2m4q8r7t6y5")),
    responses(
        (status = 204, description = "Revoked"),
        (status = 404, description = "`token_not_found`: you have no personal token with that id", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/v1/me/personal-tokens/{token_id}")]
pub async fn revoke_personal_token(
    db: web::Data<Db>,
    checks: web::Data<RecentChecks>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let revoked = id.clone();
    blocking(move || personal_tokens::revoke(&db, &user, &revoked)).await?;
    checks.forget_personal(&id);
    Ok(HttpResponse::NoContent().finish())
}
