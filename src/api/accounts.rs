//! Accounts and the bearer tokens that prove them.

use actix_web::{delete, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use super::rate_limit::RateLimits;
use crate::auth::password::Passwords;
use crate::auth::recent_checks::RecentChecks;
use crate::auth::token::TokenKeys;
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::service::accounts::{self, SignedIn};
use crate::service::{format_time, now_millis};
use crate::store::Db;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// 1 to 32 characters: letters, digits, `_`, `-` and `.`; unique regardless of case.
    #[schema(
        example = "alice",
        min_length = 1,
        max_length = 32,
        pattern = "^[A-Za-z0-9_.-]{1,32}$"
    )]
    pub name: String,
    /// 8 to 128 characters.
    #[schema(example = "correct horse battery", min_length = 8, max_length = 128)]
    pub password: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AccountCreated {
    pub id: String,
    pub name: String,
    /// RFC 3339.
    pub created_at: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TokenIssued {
    /// Send as `Authorization: Bearer <token>`.
    pub token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Unix seconds after which the token is refused.
    pub expires_at: u64,
    pub account: super::models::AccountRef,
}

/// Create an account.
///
/// No token needed. Then get a token with `POST /v1/tokens`.
#[utoipa::path(
    post, path = "/v1/accounts", tag = "accounts", security(()),
    request_body = Credentials,
    responses(
        (status = 201, description = "The account was created", body = AccountCreated),
        (status = 409, description = "`name_taken`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_name`, `invalid_password`, `invalid_request`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many registrations from this address, or too many of its password checks waiting (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`server_busy`: too many password hashes waiting (with `Retry-After`), `database_unavailable`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/accounts")]
pub async fn create_account(
    db: web::Data<Db>,
    passwords: web::Data<Passwords>,
    limits: web::Data<RateLimits>,
    request: HttpRequest,
    body: super::transport::Json<Credentials>,
) -> Result<HttpResponse, ApiError> {
    let address = limits.client_address(&request);
    limits.registration_per_address.take(&db, &address).await?;
    let credentials = body.into_inner();
    let account = accounts::register(
        db.clone().into_inner(),
        &passwords,
        &address,
        credentials.name,
        credentials.password,
    )
    .await?;
    // The address an account was made from is its owner's until they sign in elsewhere.
    limits
        .guessing
        .record_success(&db, &account.name.to_lowercase(), &address)
        .await;
    Ok(HttpResponse::Created().json(AccountCreated {
        id: account.id,
        name: account.name,
        created_at: format_time(account.created_at),
    }))
}

/// Sign in: trade a name and password for a bearer token.
#[utoipa::path(
    post, path = "/v1/tokens", tag = "accounts", security(()),
    request_body = Credentials,
    responses(
        (status = 200, description = "A fresh token", body = TokenIssued),
        (status = 401, description = "`invalid_credentials`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`account_suspended`: a moderator suspended the account (told only for the right password)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited` (with `Retry-After`): too many sign-ins from this address, or for this name from this address, or too many wrong passwords for this name from addresses it was never signed in from (those wait longer after each; the owner's own address is not held back), or too many of this address's password checks waiting", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`server_busy`: too many password hashes waiting (with `Retry-After`), `database_unavailable`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/tokens")]
pub async fn create_token(
    db: web::Data<Db>,
    keys: web::Data<TokenKeys>,
    passwords: web::Data<Passwords>,
    limits: web::Data<RateLimits>,
    request: HttpRequest,
    body: super::transport::Json<Credentials>,
) -> Result<HttpResponse, ApiError> {
    let credentials = body.into_inner();
    let address = limits.client_address(&request);
    limits.sign_in_per_address.take(&db, &address).await?;
    // Names longer than any account's cannot sign in anyway; cutting them keeps the
    // limiters' keys small whatever a client sends.
    let name_key = credentials
        .name
        .chars()
        .take(32)
        .collect::<String>()
        .to_lowercase();
    limits
        .sign_in_per_name_and_address
        .take(&db, &format!("{name_key} {address}"))
        .await?;
    limits.guessing.check(&db, &name_key, &address).await?;
    let signed_in = accounts::sign_in(
        db.clone().into_inner(),
        &passwords,
        &address,
        credentials.name,
        credentials.password,
    )
    .await;
    match &signed_in {
        Ok(_) => {
            limits
                .guessing
                .record_success(&db, &name_key, &address)
                .await
        }
        Err(ApiError::Unauthorized { .. }) => {
            limits
                .guessing
                .record_failure(&db, &name_key, &address)
                .await;
        }
        Err(_) => {}
    }
    token_issued(&keys, signed_in?)
}

fn token_issued(keys: &TokenKeys, signed_in: SignedIn) -> Result<HttpResponse, ApiError> {
    let now = (now_millis() / 1000) as u64;
    let issued = keys.issue(&signed_in.user, signed_in.token_generation, now)?;
    Ok(HttpResponse::Ok().json(TokenIssued {
        token: issued.token,
        token_type: "Bearer".to_owned(),
        expires_at: issued.expires_at,
        account: super::models::AccountRef {
            id: signed_in.user.account_id,
            name: signed_in.user.name,
        },
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    #[schema(example = "correct horse battery")]
    pub current_password: String,
    /// 8 to 128 characters.
    #[schema(example = "battery staple horse", min_length = 8, max_length = 128)]
    pub new_password: String,
}

/// Change your password.
///
/// Every token issued before is revoked (on every device), and so is every personal token;
/// the answer carries a fresh sign-in token. The revocation applies as for
/// `DELETE /v1/me/tokens`.
#[utoipa::path(
    post, path = "/v1/me/password", tag = "accounts",
    request_body = PasswordChange,
    responses(
        (status = 200, description = "Changed; a fresh token", body = TokenIssued),
        (status = 401, description = "`invalid_credentials` (the current password is wrong), `missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `unknown_account`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_password`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many password changes by this account, or too many of its password checks waiting (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`server_busy` (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/me/password")]
pub async fn change_password(
    db: web::Data<Db>,
    keys: web::Data<TokenKeys>,
    passwords: web::Data<Passwords>,
    checks: web::Data<RecentChecks>,
    limits: web::Data<RateLimits>,
    user: AuthUser,
    body: super::transport::Json<PasswordChange>,
) -> Result<HttpResponse, ApiError> {
    limits
        .password_changes_per_account
        .take(&db, &user.account_id)
        .await?;
    let change = body.into_inner();
    let account_id = user.account_id.clone();
    let signed_in = accounts::change_password(
        db.into_inner(),
        &passwords,
        &user,
        change.current_password,
        change.new_password,
    )
    .await?;
    checks.forget(&account_id);
    token_issued(&keys, signed_in)
}

/// Sign out everywhere: revoke every token of your account, this one included.
///
/// Every sign-in token and every personal token: the answer to an account that may have
/// been taken over. Applies at once on the server instance that answers, and on the other
/// instances of the same deployment as soon as the database's notification reaches them
/// (should one be lost, within their token recheck time, 1 s by default). Open streams of
/// the account close, and its long polls end with 401 `token_revoked`.
#[utoipa::path(
    delete, path = "/v1/me/tokens", tag = "accounts",
    responses(
        (status = 204, description = "Every token of the account is revoked, personal tokens included"),
        (status = 401, description = "`missing_token`, `invalid_token`, `token_expired`, `token_revoked`, `unknown_account`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/me/tokens")]
pub async fn revoke_tokens(
    db: web::Data<Db>,
    checks: web::Data<RecentChecks>,
    user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let account_id = user.account_id.clone();
    blocking(move || accounts::revoke_all_tokens(&db, &user)).await?;
    checks.forget(&account_id);
    Ok(HttpResponse::NoContent().finish())
}
