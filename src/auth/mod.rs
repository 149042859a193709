//! Who is calling: passwords, bearer tokens, and the extractor that makes a handler's
//! signature declare that it needs a signed-in account.

mod password;
mod recent_checks;
mod token;

use std::future::Future;
use std::pin::Pin;

use actix_web::{web, FromRequest, HttpRequest};

pub use password::{PasswordCost, PasswordLimits, Passwords};
pub use recent_checks::RecentChecks;
pub use token::{load_or_create_secret, IssuedToken, SignedToken, TokenKeys};

use crate::error::ApiError;
use crate::store::Db;

/// The account behind a valid bearer token. Taking it as a handler argument makes the route
/// answer 401 to anyone without one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthUser {
    pub account_id: String,
    pub name: String,
    /// The account's token generation the request's token was issued in: a stream opened
    /// with it ends once the account moves past it (sign-out everywhere, a new password).
    pub token_generation: i32,
}

impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    /// The signature is checked at once; then the database must still know the account at
    /// the token's generation, so a deleted account or "sign out everywhere" revokes it. A
    /// confirmation is reused for a moment (see [`RecentChecks`]).
    fn from_request(request: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let signed = signed_token(request);
        let db = request.app_data::<web::Data<Db>>().cloned();
        let checks = request.app_data::<web::Data<RecentChecks>>().cloned();
        Box::pin(async move {
            let signed = signed?;
            if let Some(user) = checks.as_ref().and_then(|checks| checks.confirmed(&signed)) {
                return Ok(user);
            }
            let db = db.ok_or_else(|| ApiError::Internal("no database is configured".into()))?;
            let generation = signed.generation;
            let asked_at = std::time::Instant::now();
            let user =
                web::block(move || crate::service::accounts::authenticate(&db, signed)).await??;
            if let Some(checks) = checks {
                checks.remember(&user, generation, asked_at);
            }
            Ok(user)
        })
    }
}

fn signed_token(request: &HttpRequest) -> Result<SignedToken, ApiError> {
    let keys = request
        .app_data::<web::Data<TokenKeys>>()
        .ok_or_else(|| ApiError::Internal("token keys are not configured".into()))?;
    let header = request
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .ok_or_else(|| {
            ApiError::unauthorized(
                "missing_token",
                "this route needs an Authorization: Bearer token",
            )
        })?;
    let token = header
        .to_str()
        .ok()
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .ok_or_else(|| {
            ApiError::unauthorized(
                "invalid_token",
                "the Authorization header must be `Bearer <token>`",
            )
        })?;
    keys.verify(token)
}
