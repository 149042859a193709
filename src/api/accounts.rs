//! Accounts and the bearer tokens that prove them.

use actix_web::{post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::{Passwords, TokenKeys};
use crate::error::{ApiError, Problem};
use crate::service::{accounts, format_time, now_millis};
use crate::store::Db;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// 1 to 32 characters: letters, digits, `_`, `-` and `.`; unique regardless of case.
    #[schema(example = "alice")]
    pub name: String,
    /// 8 to 128 characters.
    #[schema(example = "correct horse battery")]
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
    )
)]
#[post("/v1/accounts")]
pub async fn create_account(
    db: web::Data<Db>,
    passwords: web::Data<Passwords>,
    body: web::Json<Credentials>,
) -> Result<HttpResponse, ApiError> {
    let credentials = body.into_inner();
    let account = accounts::register(
        db.into_inner(),
        &passwords,
        credentials.name,
        credentials.password,
    )
    .await?;
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
    )
)]
#[post("/v1/tokens")]
pub async fn create_token(
    db: web::Data<Db>,
    keys: web::Data<TokenKeys>,
    passwords: web::Data<Passwords>,
    body: web::Json<Credentials>,
) -> Result<HttpResponse, ApiError> {
    let credentials = body.into_inner();
    let user = accounts::sign_in(
        db.into_inner(),
        &passwords,
        credentials.name,
        credentials.password,
    )
    .await?;
    let now = (now_millis() / 1000) as u64;
    let issued = keys.issue(&user, now)?;
    Ok(HttpResponse::Ok().json(TokenIssued {
        token: issued.token,
        token_type: "Bearer".to_owned(),
        expires_at: issued.expires_at,
        account: super::models::AccountRef {
            id: user.account_id,
            name: user.name,
        },
    }))
}
