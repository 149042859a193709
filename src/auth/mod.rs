//! Who is calling: passwords, bearer tokens, and the extractor that makes a handler's
//! signature declare that it needs a signed-in account.

mod password;
mod token;

use std::future::{ready, Ready};

use actix_web::{web, FromRequest, HttpRequest};

pub use password::{PasswordCost, PasswordLimits, Passwords};
pub use token::{load_or_create_secret, IssuedToken, TokenKeys};

use crate::error::ApiError;

/// The account behind a valid bearer token. Taking it as a handler argument makes the route
/// answer 401 to anyone without one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthUser {
    pub account_id: String,
    pub name: String,
}

impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        ready(authenticate(request))
    }
}

fn authenticate(request: &HttpRequest) -> Result<AuthUser, ApiError> {
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
