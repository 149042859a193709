//! Who is calling: passwords, bearer tokens (sign-in JWTs and personal tokens), scopes, and
//! the extractor that makes a handler's signature declare that it needs a signed-in account
//! with the scope its route needs.

pub mod password;
pub mod personal;
pub mod recent_checks;
pub mod scopes;
pub mod token;
pub mod user;

use std::future::Future;
use std::pin::Pin;

use actix_web::{web, FromRequest, HttpMessage, HttpRequest};

pub use password::{PasswordCost, PasswordLimits, Passwords};
pub use recent_checks::RecentChecks;
pub use scopes::{Scope, Scopes};
pub use token::{load_or_create_secret, IssuedToken, SignedToken, TokenKeys};
pub use user::{AuthUser, Credential, PersonalCredential};

use crate::api::connection_caps::ConnectionHandle;
use crate::api::rate_limit::client_address_of;
use crate::api::request_slots::{RequestSlots, Slot};
use crate::error::ApiError;
use crate::store::Db;

/// A bearer token as the request presents it, before the database has had its say.
enum Presented {
    SignIn(SignedToken),
    Personal(personal::PresentedToken),
}

impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    /// A sign-in token's signature is checked at once; then the database must still know
    /// the account at the token's generation, so a deleted account or "sign out everywhere"
    /// revokes it. A personal token must be in the database with the same secret and not
    /// have expired. A confirmation is reused for a moment (see [`RecentChecks`]). Then the
    /// route's scope is checked.
    fn from_request(request: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let presented = presented_token(request);
        let method = request.method().as_str().to_owned();
        let pattern = request.match_pattern();
        let db = request.app_data::<web::Data<Db>>().cloned();
        let checks = request.app_data::<web::Data<RecentChecks>>().cloned();
        let request = request.clone();
        Box::pin(async move {
            let user = match presented? {
                Presented::SignIn(signed) => sign_in_user(signed, db, checks).await?,
                Presented::Personal(token) => {
                    personal_token_user(token, db, checks, &request).await?
                }
            };
            user.may_use(&method, pattern.as_deref())?;
            if let Some(connection) = request.conn_data::<ConnectionHandle>() {
                connection.signed_in_as(&user.account_id);
            }
            take_request_slot(&request, &user).await?;
            Ok(user)
        })
    }
}

/// The request's slot of its account and address ([`RequestSlots`]), kept in its
/// extensions until actix drops the request with its answer.
async fn take_request_slot(request: &HttpRequest, user: &AuthUser) -> Result<(), ApiError> {
    let Some(slots) = request.app_data::<web::Data<RequestSlots>>() else {
        return Ok(());
    };
    if request.extensions().contains::<Slot>() {
        return Ok(());
    }
    let slot = slots
        .take(&user.account_id, &client_address_of(request))
        .await?;
    request.extensions_mut().insert(slot);
    Ok(())
}

async fn sign_in_user(
    signed: SignedToken,
    db: Option<web::Data<Db>>,
    checks: Option<web::Data<RecentChecks>>,
) -> Result<AuthUser, ApiError> {
    if let Some(user) = checks.as_ref().and_then(|checks| checks.confirmed(&signed)) {
        return Ok(user);
    }
    let db = db.ok_or_else(|| ApiError::Internal("no database is configured".into()))?;
    let generation = signed.generation;
    let asked_at = std::time::Instant::now();
    let user = web::block(move || crate::service::accounts::authenticate(&db, signed)).await??;
    if let Some(checks) = checks {
        checks.remember(&user, generation, asked_at);
    }
    Ok(user)
}

async fn personal_token_user(
    token: personal::PresentedToken,
    db: Option<web::Data<Db>>,
    checks: Option<web::Data<RecentChecks>>,
    request: &HttpRequest,
) -> Result<AuthUser, ApiError> {
    let now = crate::service::now_millis();
    if let Some(user) = checks
        .as_ref()
        .and_then(|checks| checks.confirmed_personal(&token, now))
    {
        return Ok(user);
    }
    let db = db.ok_or_else(|| ApiError::Internal("no database is configured".into()))?;
    // Anyone may present a made-up token: its lookup takes a slot of the client's address.
    let _lookup = match request.app_data::<web::Data<RequestSlots>>() {
        Some(slots) => Some(slots.take_token_lookup(&client_address_of(request)).await?),
        None => None,
    };
    let asked_at = std::time::Instant::now();
    let checked = token.clone();
    let user =
        web::block(move || crate::service::personal_tokens::authenticate(&db, &checked)).await??;
    if let Some(checks) = checks {
        checks.remember_personal(&user, &token, asked_at);
    }
    Ok(user)
}

fn presented_token(request: &HttpRequest) -> Result<Presented, ApiError> {
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
    if token.starts_with(personal::PREFIX) {
        return personal::PresentedToken::parse(token).map(Presented::Personal);
    }
    let keys = request
        .app_data::<web::Data<TokenKeys>>()
        .ok_or_else(|| ApiError::Internal("token keys are not configured".into()))?;
    keys.verify(token).map(Presented::SignIn)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user_with(credential: Credential) -> AuthUser {
        AuthUser {
            account_id: "a1".into(),
            name: "ada".into(),
            token_generation: 0,
            credential,
        }
    }

    fn personal(scopes: &[Scope]) -> AuthUser {
        user_with(Credential::Personal(PersonalCredential {
            token_id: "t1".into(),
            scopes: Scopes::of(scopes.iter().copied()),
            expires_at: i64::MAX,
        }))
    }

    fn refusal(result: Result<(), ApiError>) -> String {
        match result {
            Err(ApiError::MissingScope { detail, .. }) => detail,
            other => panic!("not missing_scope: {other:?}"),
        }
    }

    #[test]
    fn a_sign_in_token_may_use_every_route_even_unlisted_ones() {
        let user = user_with(Credential::SignIn);
        assert_eq!(user.scopes(), Scopes::EVERY);
        assert!(user.may_use("POST", Some("/v1/games/{id}/actions")).is_ok());
        assert!(user.may_use("GET", Some("/v1/not-in-the-table")).is_ok());
        assert!(user.may_use("GET", None).is_ok());
    }

    #[test]
    fn a_personal_token_may_use_the_routes_of_its_scopes_only() {
        let reader = personal(&[Scope::GamesRead]);
        assert!(reader.may_use("GET", Some("/v1/games/{id}/view")).is_ok());
        assert!(reader.may_use("HEAD", Some("/v1/games/{id}/view")).is_ok());
        let detail = refusal(reader.may_use("POST", Some("/v1/games/{id}/actions")));
        assert!(detail.contains("games:play"), "{detail}");
        assert!(detail.contains("games:read"), "{detail}");
        refusal(reader.may_use("POST", Some("/v1/me/webhooks")));
    }

    #[test]
    fn a_personal_token_is_refused_a_route_the_table_does_not_list() {
        let everything = personal(&Scope::ALL);
        let detail = refusal(everything.may_use("GET", Some("/v1/not-in-the-table")));
        assert!(detail.contains("not open to personal tokens"), "{detail}");
        refusal(everything.may_use("GET", None));
    }
}
