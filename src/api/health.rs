//! Liveness and readiness probes for orchestrators.

use actix_web::{route, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use crate::error::{ApiError, Problem};
use crate::store::Db;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "health", security(()),
    responses((status = 200, body = Health)))]
#[route("/healthz", method = "GET", method = "HEAD")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok".into(),
    })
}

/// The database answers.
#[utoipa::path(get, path = "/readyz", tag = "health", security(()),
    responses(
        (status = 200, body = Health),
        (status = 503, description = "`database_unavailable`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/readyz", method = "GET", method = "HEAD")]
pub async fn readyz(db: web::Data<Db>) -> Result<HttpResponse, ApiError> {
    let ready = blocking(move || Ok(db.is_ready())).await?;
    if !ready {
        return Err(ApiError::Unavailable("readiness probe failed".into()));
    }
    Ok(HttpResponse::Ok().json(Health {
        status: "ok".into(),
    }))
}
