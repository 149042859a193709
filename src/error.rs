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
    /// A personal token without the scope the operation needs (`needed`; `None` for a
    /// route closed to personal tokens).
    #[error("{detail}")]
    MissingScope {
        detail: String,
        needed: Option<String>,
    },
    #[error("{detail}")]
    NotFound { code: &'static str, detail: String },
    #[error("{detail}")]
    /// The request is well formed but the resource's current state refuses it: the game
    /// moved on, the seat does not act now, the rules forbid the action (`rule`).
    Conflict {
        code: &'static str,
        detail: String,
        current_seq: Option<i64>,
        rule: Option<&'static str>,
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
            rule: None,
        }
    }

    pub fn stale_seq(current_seq: i64) -> Self {
        ApiError::Conflict {
            code: "stale_seq",
            detail: format!("the game has moved on: it is at seq {current_seq}"),
            current_seq: Some(current_seq),
            rule: None,
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

    /// The `WWW-Authenticate` challenge of RFC 6750 (section 3) for a refused bearer token:
    /// none given, one that is not (or no longer) good, or one without the scope needed. A
    /// wrong password at sign-in is no bearer token and gets none.
    pub fn bearer_challenge(&self) -> Option<String> {
        const REALM: &str = "Bearer realm=\"turnpost\"";
        match self {
            ApiError::Unauthorized {
                code: "missing_token",
                ..
            } => Some(REALM.to_owned()),
            ApiError::Unauthorized {
                code: "invalid_credentials",
                ..
            } => None,
            ApiError::Unauthorized { .. } => Some(format!("{REALM}, error=\"invalid_token\"")),
            ApiError::MissingScope { needed, .. } => Some(match needed {
                Some(scope) => format!("{REALM}, error=\"insufficient_scope\", scope=\"{scope}\""),
                None => format!("{REALM}, error=\"insufficient_scope\""),
            }),
            _ => None,
        }
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
            ApiError::Forbidden { .. } | ApiError::MissingScope { .. } => StatusCode::FORBIDDEN,
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
            ApiError::MissingScope { detail, .. } => ("missing_scope", detail.clone(), None, None),
            ApiError::Conflict {
                code,
                detail,
                current_seq,
                rule,
            } => (*code, detail.clone(), *rule, *current_seq),
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
        debug_assert!(
            is_documented_problem(code, status.as_u16()),
            "{code} with {status} is not in PROBLEM_CODES"
        );
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
        if let Some(challenge) = self.bearer_challenge() {
            response.insert_header((actix_web::http::header::WWW_AUTHENTICATE, challenge));
        }
        response
            .content_type("application/problem+json")
            .json(self.problem())
    }
}

impl From<RuleError> for ApiError {
    fn from(error: RuleError) -> Self {
        ApiError::Conflict {
            code: "illegal_action",
            detail: error.message,
            current_seq: None,
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

/// Every problem code the server answers with: its statuses and what it means. The spec's
/// per-operation `code` enums are checked against it, the README's table is made from it,
/// and a debug build refuses to answer with a code or status it does not list.
pub const PROBLEM_CODES: &[(&str, &[u16], &str)] = &[
    ("malformed_request", &[400], "the request line, a header or the body's framing is malformed (HTTP/1.1 also needs `Host`); the connection closes"),
    ("invalid_json", &[400], "the body is not JSON"),
    ("expected_json", &[400], "send the body with `Content-Type: application/json`"),
    ("invalid_body", &[400], "the body could not be read"),
    ("invalid_query", &[400], "a query parameter is malformed or out of range"),
    ("invalid_last_event_id", &[400], "`Last-Event-ID` is not an event or notification id"),
    ("missing_token", &[401], "no bearer token"),
    ("invalid_token", &[401], "the token is not one of this server's"),
    ("token_expired", &[401], "the token has expired: sign in again"),
    ("token_revoked", &[401], "the token was revoked: a sign-out everywhere, a new password, or a personal token revoked or never issued"),
    ("invalid_credentials", &[401], "wrong name or password"),
    ("unknown_account", &[401], "a valid token whose account is gone"),
    ("not_a_player", &[403], "only the game's players may do this"),
    ("not_your_seat", &[403], "the action names another seat than the caller's"),
    ("not_invited", &[403], "joining (or declining) an unlisted game the caller is not invited to; a private game they have no part in is `game_not_found`"),
    ("not_the_creator", &[403], "only the game's creator may cancel it or invite to it"),
    ("not_the_author", &[403], "only a chat message's author may delete it"),
    ("blocked", &[403], "one of the two accounts blocks the other: no invitation between them"),
    ("chat_muted", &[403], "a moderator muted the caller's chat for a while"),
    ("account_suspended", &[403], "a moderator suspended the account: it cannot sign in"),
    ("not_a_moderator", &[403], "only moderators may do this"),
    ("missing_scope", &[403], "a personal token without the scope the operation needs"),
    ("game_not_found", &[404], "no game has that id (or it is not the caller's to see)"),
    ("account_not_found", &[404], "no account has that name"),
    ("token_not_found", &[404], "no personal token of the caller's has that id"),
    ("webhook_not_found", &[404], "no webhook of the caller's has that id"),
    ("push_subscription_not_found", &[404], "no push subscription of the caller's has that id"),
    ("no_rematch", &[404], "nobody asked for a rematch of the game yet"),
    ("game_kind_not_found", &[404], "no game kind has that name (see `GET /v1/game-kinds`)"),
    ("message_not_found", &[404], "the game's chat has no message with that id"),
    ("not_blocked", &[404], "the caller does not block that account"),
    ("not_following", &[404], "the caller does not follow that account"),
    ("option_not_found", &[404], "no game kind (or not the one asked for) has that option or choice"),
    ("report_not_found", &[404], "no open report has that id"),
    ("cursor_not_found", &[404], "no page of this list has that `cursor`: pass a page's `next` back as given"),
    ("confirmation_not_found", &[404], "no confirmation waits for that token (it expired, was replaced, or was used)"),
    ("unsubscribe_not_found", &[404], "no mail address has that unsubscribe token (it changed or was removed)"),
    ("route_not_found", &[404], "no operation has that path"),
    ("method_not_allowed", &[405], "the path has no operation for that method (see `Allow`)"),
    ("head_timeout", &[408], "the request head did not arrive within the head timeout of connecting; the connection closes"),
    ("body_timeout", &[408], "the body did not arrive within the body timeout"),
    ("stale_seq", &[409], "the game has moved on (see `current_seq`): refetch and choose again"),
    ("game_not_started", &[409], "the game waits for players"),
    ("game_finished", &[409], "the game is over"),
    ("game_cancelled", &[409], "the game was cancelled"),
    ("game_abandoned", &[409], "every player agreed to abandon the game"),
    ("game_not_over", &[409], "a rematch is for a finished or abandoned game"),
    ("chat_full", &[409], "the game's chat holds as many messages as allowed"),
    ("game_not_open", &[409], "the game no longer takes players"),
    ("invitation_declined", &[409], "that account declined this game's invitation: it is not asked again"),
    ("invitation_quota", &[409], "the game has 4 invitations waiting, or has sent 12"),
    ("name_taken", &[409], "an account has that name (ignoring case)"),
    ("already_seated", &[409], "the caller has a seat in the game already"),
    ("seat_taken", &[409], "someone sits there"),
    ("game_full", &[409], "every seat is taken"),
    ("not_seated", &[409], "the caller has no seat to leave"),
    ("creator_cannot_leave", &[409], "the creator cancels instead of leaving"),
    ("seat_forfeited", &[409], "the seat has resigned or run out of time"),
    ("bot_seat", &[409], "a bot plays that seat"),
    ("deadline_passed", &[409], "the seat's deadline has passed; the timeout is being recorded (for a take-back: the deadline before the action has passed)"),
    ("nothing_to_take_back", &[409], "the game's last action is not the caller's"),
    ("other_seat_acted", &[409], "since the action another seat acted, forfeited or was taken over: it stays"),
    ("outcome_revealed", &[409], "the action revealed something hidden or random: it stays"),
    ("others_affected", &[409], "the action reached another seat (points or goods for or from it, a prize claimed, a scoring round begun): it stays"),
    ("turn_over", &[409], "the action ended the caller's turn or changed who has to act: it stays"),
    ("take_back_limit", &[409], "the caller took back 20 actions this turn already"),
    ("clock_stood_still", &[409], "the caller's clock stood still for a vacation during or since the action: it stays"),
    ("open_games_quota", &[409], "the account has as many open games waiting for players as allowed"),
    ("bot_games_quota", &[409], "the account leaves as many running games to the bots alone as allowed"),
    ("personal_token_quota", &[409], "the account has as many personal tokens as allowed"),
    ("webhook_quota", &[409], "the account has as many webhooks as allowed"),
    ("push_subscription_quota", &[409], "the account has as many push subscriptions (devices) as allowed"),
    ("follow_quota", &[409], "the account follows as many accounts as one may"),
    ("already_on_vacation", &[409], "the caller is on vacation already: end it first"),
    ("not_on_vacation", &[409], "the caller is not on vacation"),
    ("no_vacation_days", &[409], "fewer vacation days are left this year"),
    ("no_email_address", &[409], "the account has no mail address"),
    ("email_already_confirmed", &[409], "the mail address is confirmed already"),
    ("mail_not_configured", &[409], "this server sends no mail (no SMTP server is configured)"),
    ("conflict", &[409], "the request conflicts with what is stored"),
    ("payload_too_large", &[413], "bodies are limited to 64 KiB"),
    ("unsupported_content_encoding", &[415], "request bodies are accepted uncompressed only"),
    ("headers_too_large", &[431], "the request head is over 128 KiB or has more than 96 header fields; the connection closes"),
    ("invalid_request", &[422], "the JSON does not have the body's shape"),
    ("illegal_action", &[409], "the rules forbid the action in the game's state (see `rule`, one of the kind's `<Kind>RuleCode`)"),
    ("malformed_action", &[422], "not an action of the game's kind (its `<Kind>Action` schema): an unknown type, a field it does not have, a value of the wrong type"),
    ("not_your_turn", &[409], "the caller's seat does not have to act now"),
    ("invalid_name", &[422], "a name must be 1 to 32 of `A-Za-z0-9_-.`"),
    ("invalid_password", &[422], "a password must be 8 to 128 characters"),
    ("unknown_game_kind", &[422], "no such game kind (see `GET /v1/game-kinds`)"),
    ("invalid_seat_count", &[422], "the kind is not played by that many"),
    ("invalid_options", &[422], "the kind's options do not allow this"),
    ("invalid_seat", &[422], "no such seat in the game"),
    ("invalid_time_control", &[422], "the time control is out of its bounds"),
    ("invalid_bots", &[422], "bots need seats of their own, and a seat must be left for the creator"),
    ("invalid_invitations", &[422], "invitations are for unlisted and private games, to others than yourself"),
    ("invalid_visibility", &[422], "`private` and `visibility` given and disagreeing"),
    ("invalid_reminders", &[422], "at most 3 different reminder times, each 5 minutes to 7 days before the deadline"),
    ("invalid_chat_message", &[422], "a chat message shows something in at most 1,000 characters, without control characters (line ends and tabs allowed), direction controls, line or paragraph separators or tag characters"),
    ("invalid_vacation", &[422], "a vacation is 1 to 60 whole days"),
    ("invalid_email_address", &[422], "not a mail address like `name@example.org` (at most 254 characters)"),
    ("invalid_email_settings", &[422], "`digest_hour` is an hour of the day, 0 to 23"),
    ("invalid_profile", &[422], "`about` is not visible text of at most 600 characters, or `country` or `language` is not an ISO code"),
    ("invalid_title", &[422], "a game's title is not one line of visible text of at most 80 characters"),
    ("no_such_choice", &[409], "a `choice` is not among the options of its step, or the action was complete before it"),
    ("seq_out_of_range", &[409], "`at` is past the game's log"),
    ("cannot_block_yourself", &[409], "an account cannot block itself"),
    ("cannot_follow_yourself", &[409], "an account cannot follow itself"),
    ("cannot_report_yourself", &[409], "an account cannot report itself or its own message"),
    ("cannot_suspend_yourself", &[409], "a moderator cannot suspend their own account"),
    ("idempotency_key_reused", &[422], "the `Idempotency-Key` was used with another body"),
    ("invalid_idempotency_key", &[422], "an `Idempotency-Key` is 1 to 200 visible ASCII characters"),
    ("invalid_reason", &[422], "a reason shows something in at most 1,000 characters, with the characters a chat message may hold"),
    ("invalid_mute", &[422], "a mute lasts 1 to 365 days"),
    ("invalid_token_name", &[422], "a personal token's name shows something in at most 64 characters on one line, without control characters, direction controls, line or paragraph separators or tag characters"),
    ("invalid_scopes", &[422], "a personal token needs at least one known scope"),
    ("invalid_expiry", &[422], "a personal token lasts 1 to 365 days"),
    ("invalid_webhook_url", &[422], "the webhook URL is not an `http(s)` URL of a public address"),
    ("invalid_push_subscription", &[422], "a push subscription needs an `https` endpoint of a public host, `keys.p256dh` a P-256 point and `keys.auth` 16 bytes (base64url), and no `expirationTime` in the past"),
    ("rate_limited", &[429], "too many of these requests for now (see `Retry-After`)"),
    ("too_many_streams", &[429], "the account, its address or the instance holds as many streams and long polls as allowed (see `Retry-After`)"),
    ("too_many_connections", &[429], "the client's address holds as many connections to this instance as allowed; this one is closed after the answer (see `Retry-After`)"),
    ("too_many_requests_in_flight", &[429], "the account, or its address, has as many requests (or personal-token checks) under way as allowed and as many more waiting, or this one waited 10 s for its turn (see `Retry-After`)"),
    ("registration_in_progress", &[429], "another webhook registration of the account is still being checked"),
    ("internal_error", &[500], "a bug or corrupt stored data; the cause is logged, never sent"),
    ("database_unavailable", &[503], "the database cannot be reached (see `Retry-After`)"),
    ("server_busy", &[503], "the password-hash queue is full, or SQLite stayed locked by another process (see `Retry-After`)"),
    ("unsupported_rules_version", &[503], "the game was started under a rules version this server cannot play"),
];

/// Whether `code` is answered with `status`, as [`PROBLEM_CODES`] says.
pub fn is_documented_problem(code: &str, status: u16) -> bool {
    PROBLEM_CODES
        .iter()
        .any(|(known, statuses, _)| *known == code && statuses.contains(&status))
}

/// The README's table of problem codes, made from [`PROBLEM_CODES`].
pub fn problem_codes_table() -> String {
    let mut table = String::from("| Code | Status | Meaning |\n| --- | --- | --- |\n");
    for (code, statuses, meaning) in PROBLEM_CODES {
        let statuses: Vec<String> = statuses.iter().map(u16::to_string).collect();
        table.push_str(&format!(
            "| `{code}` | {} | {meaning} |\n",
            statuses.join(", ")
        ));
    }
    table
}
