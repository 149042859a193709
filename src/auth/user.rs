//! Who a request is: the account, the credential it came with and what that credential may
//! do. Plain data that every service takes; reading it from a request is `super`'s.

use super::scopes::{self, Scopes};
use crate::error::ApiError;

/// The account behind a valid bearer token that may use the route. Taking it as a handler
/// argument makes the route answer 401 to anyone without one, and 403 `missing_scope` to a
/// personal token without the route's scope (see [`scopes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthUser {
    pub account_id: String,
    pub name: String,
    /// The account's token generation the request's token was issued in (for a personal
    /// token, the generation when it was checked): a stream opened with it ends once the
    /// account moves past it (sign-out everywhere, a new password).
    pub token_generation: i32,
    /// What the request proved itself with.
    pub credential: Credential,
}

/// The kind of bearer token a request carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// A sign-in token (from `POST /v1/tokens` or a password change): every scope.
    SignIn,
    /// A personal token: its scopes only.
    Personal(PersonalCredential),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonalCredential {
    pub token_id: String,
    pub scopes: Scopes,
    /// Unix milliseconds.
    pub expires_at: i64,
}

impl AuthUser {
    /// What the request's token may do.
    pub fn scopes(&self) -> Scopes {
        match &self.credential {
            Credential::SignIn => Scopes::EVERY,
            Credential::Personal(personal) => personal.scopes,
        }
    }

    /// The personal token the request carries, if it carries one.
    pub fn personal_token(&self) -> Option<&PersonalCredential> {
        match &self.credential {
            Credential::SignIn => None,
            Credential::Personal(personal) => Some(personal),
        }
    }

    /// Refuses a personal token the route's scope (from the table) was not given; a route
    /// the table does not list is refused to every personal token, so a route added without
    /// a scope stays closed to them rather than open.
    pub(super) fn may_use(&self, method: &str, pattern: Option<&str>) -> Result<(), ApiError> {
        let Some(personal) = self.personal_token() else {
            return Ok(());
        };
        let route = format!("{method} {}", pattern.unwrap_or("this route"));
        match pattern.and_then(|pattern| scopes::required_scope(method, pattern)) {
            Some(needed) if personal.scopes.contains(needed) => Ok(()),
            Some(needed) => Err(ApiError::MissingScope {
                detail: format!(
                    "{route} needs the scope {needed}; this personal token has: {}",
                    personal.scopes
                ),
                needed: Some(needed.to_string()),
            }),
            None => Err(ApiError::MissingScope {
                detail: format!(
                    "{route} is not open to personal tokens (this one has: {}); use a \
                     sign-in token",
                    personal.scopes
                ),
                needed: None,
            }),
        }
    }
}
