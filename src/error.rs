//! The API's closed set of errors, each rendered as an RFC 9457 problem document with a
//! stable `code` that clients branch on.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::games::engine::RuleError;
use crate::store::StoreError;

/// An RFC 9457 problem document (`application/problem+json`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Problem {
    /// URI identifying the problem type: `urn:turnpost:problem:<code>`.
    #[serde(rename = "type")]
    pub type_uri: String,
    /// Short summary of the problem type.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong this time, for people.
    pub detail: String,
    /// Stable machine-readable code, e.g. `stale_seq`, `not_your_turn`, `illegal_action`.
    pub code: String,
    /// For `illegal_action`: the game's rule code, e.g. `not_enough_action_points` (one of
    /// the kind's `<Kind>RuleCode` values, also listed by `GET /v1/game-kinds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// For `stale_seq`: the game's current seq, to refetch from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_seq: Option<i64>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request cannot be read (bad JSON, bad query or path parameter).
    #[error("{detail}")]
    BadRequest { code: &'static str, detail: String },
    #[error("{detail}")]
    Unauthorized { code: &'static str, detail: String },
    #[error("{detail}")]
    Forbidden { code: &'static str, detail: String },
    #[error("{detail}")]
    NotFound { code: &'static str, detail: String },
    #[error("{detail}")]
    Conflict {
        code: &'static str,
        detail: String,
        current_seq: Option<i64>,
    },
    #[error("{detail}")]
    MethodNotAllowed { detail: String, allow: String },
    #[error("{detail}")]
    PayloadTooLarge { detail: String },
    #[error("{detail}")]
    UnsupportedMediaType { code: &'static str, detail: String },
    /// The client did not send its request body in time.
    #[error("{detail}")]
    RequestTimeout { detail: String },
    /// Well-formed but not acceptable: invalid fields, malformed or illegal actions.
    #[error("{detail}")]
    Unprocessable {
        code: &'static str,
        detail: String,
        rule: Option<&'static str>,
    },
    /// A limit on how often a client may do something was reached.
    #[error("{detail}")]
    TooManyRequests {
        code: &'static str,
        detail: String,
        retry_after_seconds: u64,
    },
    /// The server sheds load it cannot take now (e.g. the password-hash queue is full).
    #[error("{detail}")]
    Busy {
        detail: String,
        retry_after_seconds: u64,
    },
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The game was started under a rules version this build cannot play (a newer server
    /// wrote it): another instance may serve it, so this is 503, not a guess at the state.
    #[error("{0}")]
    UnsupportedRulesVersion(String),
    /// Never shown to the client beyond "internal error"; the cause is logged.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> Self {
        ApiError::BadRequest {
            code,
            detail: detail.into(),
        }
    }

    pub fn unauthorized(code: &'static str, detail: impl Into<String>) -> Self {
        ApiError::Unauthorized {
            code,
            detail: detail.into(),
        }
    }

    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> Self {
        ApiError::Forbidden {
            code,
            detail: detail.into(),
        }
    }

    pub fn not_found(code: &'static str, detail: impl Into<String>) -> Self {
        ApiError::NotFound {
            code,
            detail: detail.into(),
        }
    }

    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        ApiError::Conflict {
            code,
            detail: detail.into(),
            current_seq: None,
        }
    }

    pub fn stale_seq(current_seq: i64) -> Self {
        ApiError::Conflict {
            code: "stale_seq",
            detail: format!("the game has moved on: it is at seq {current_seq}"),
            current_seq: Some(current_seq),
        }
    }

    pub fn too_many(
        code: &'static str,
        detail: impl Into<String>,
        retry_after_seconds: u64,
    ) -> Self {
        ApiError::TooManyRequests {
            code,
            detail: detail.into(),
            retry_after_seconds,
        }
    }

    pub fn unprocessable(code: &'static str, detail: impl Into<String>) -> Self {
        ApiError::Unprocessable {
            code,
            detail: detail.into(),
            rule: None,
        }
    }

    pub fn game_not_found(id: &str) -> Self {
        ApiError::not_found("game_not_found", format!("there is no game {id:?}"))
    }

    /// When a client may try again, for the `Retry-After` header.
    pub fn retry_after_seconds(&self) -> Option<u64> {
        match self {
            ApiError::TooManyRequests {
                retry_after_seconds,
                ..
            }
            | ApiError::Busy {
                retry_after_seconds,
                ..
            } => Some(*retry_after_seconds),
            ApiError::Unavailable(_) => Some(1),
            _ => None,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::RequestTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            ApiError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(_)
            | ApiError::Busy { .. }
            | ApiError::UnsupportedRulesVersion(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn problem(&self) -> Problem {
        let status = self.status();
        let (code, detail, rule, current_seq) = match self {
            ApiError::BadRequest { code, detail }
            | ApiError::Unauthorized { code, detail }
            | ApiError::Forbidden { code, detail }
            | ApiError::NotFound { code, detail } => (*code, detail.clone(), None, None),
            ApiError::Conflict {
                code,
                detail,
                current_seq,
            } => (*code, detail.clone(), None, *current_seq),
            ApiError::MethodNotAllowed { detail, .. } => {
                ("method_not_allowed", detail.clone(), None, None)
            }
            ApiError::PayloadTooLarge { detail } => {
                ("payload_too_large", detail.clone(), None, None)
            }
            ApiError::UnsupportedMediaType { code, detail } => (*code, detail.clone(), None, None),
            ApiError::RequestTimeout { detail } => ("body_timeout", detail.clone(), None, None),
            ApiError::Unprocessable { code, detail, rule } => (*code, detail.clone(), *rule, None),
            ApiError::Unavailable(_) => (
                "database_unavailable",
                "the database cannot be reached; try again shortly".to_owned(),
                None,
                None,
            ),
            ApiError::TooManyRequests { code, detail, .. } => (*code, detail.clone(), None, None),
            ApiError::Busy { detail, .. } => ("server_busy", detail.clone(), None, None),
            ApiError::UnsupportedRulesVersion(detail) => {
                ("unsupported_rules_version", detail.clone(), None, None)
            }
            ApiError::Internal(_) => (
                "internal_error",
                "internal error; it has been logged".to_owned(),
                None,
                None,
            ),
        };
        Problem {
            type_uri: format!("urn:turnpost:problem:{code}"),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail,
            code: code.to_owned(),
            rule: rule.map(str::to_owned),
            current_seq,
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status()
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Internal(cause) => tracing::error!(%cause, "internal error"),
            ApiError::Unavailable(cause) => tracing::warn!(%cause, "database unavailable"),
            ApiError::UnsupportedRulesVersion(cause) => tracing::warn!(%cause, "cannot play"),
            _ => {}
        }
        let mut response = HttpResponse::build(self.status());
        if let ApiError::MethodNotAllowed { allow, .. } = self {
            response.insert_header((actix_web::http::header::ALLOW, allow.as_str()));
        }
        if let Some(seconds) = self.retry_after_seconds() {
            response.insert_header((actix_web::http::header::RETRY_AFTER, seconds.to_string()));
        }
        response
            .content_type("application/problem+json")
            .json(self.problem())
    }
}

impl From<RuleError> for ApiError {
    fn from(error: RuleError) -> Self {
        ApiError::Unprocessable {
            code: "illegal_action",
            detail: error.message,
            rule: Some(error.code),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        use diesel::result::{DatabaseErrorKind, Error as DieselError};
        match error {
            StoreError::StaleSeq { current } => ApiError::stale_seq(current),
            StoreError::Duplicate => {
                ApiError::conflict("conflict", "that conflicts with what is already stored")
            }
            StoreError::Unavailable(cause) => ApiError::Unavailable(cause),
            StoreError::Database(DieselError::DatabaseError(
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
                info,
            )) => ApiError::Unavailable(info.message().to_owned()),
            // Every foreign key a request can supply is its token's account id.
            StoreError::Database(DieselError::DatabaseError(
                DatabaseErrorKind::ForeignKeyViolation,
                _,
            )) => ApiError::unauthorized(
                "unknown_account",
                "the token's account does not exist (any more); register again",
            ),
            StoreError::Database(DieselError::DatabaseError(_, info))
                if info.message().contains("database is locked") =>
            {
                ApiError::Busy {
                    detail: "the database is busy; try again shortly".to_owned(),
                    retry_after_seconds: 1,
                }
            }
            StoreError::Database(other) => ApiError::Internal(other.to_string()),
            StoreError::Corrupt(cause) => ApiError::Internal(cause),
        }
    }
}

impl From<diesel::result::Error> for ApiError {
    fn from(error: diesel::result::Error) -> Self {
        StoreError::Database(error).into()
    }
}

impl From<crate::games::ReplayError> for ApiError {
    fn from(error: crate::games::ReplayError) -> Self {
        match error {
            crate::games::ReplayError::UnsupportedRulesVersion { .. } => {
                ApiError::UnsupportedRulesVersion(error.to_string())
            }
            crate::games::ReplayError::Corrupt(_) => ApiError::Internal(error.to_string()),
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(error: actix_web::error::BlockingError) -> Self {
        ApiError::Internal(error.to_string())
    }
}
