//! The HTTP API: thin handlers that extract, authorise, call the service layer in a blocking
//! task and map the result to JSON. Every error leaves as problem+json.

pub mod accounts;
mod blocking;
pub mod board;
pub mod chat;
pub mod connection_caps;
pub mod contract;
pub mod docs;
pub mod email;
pub mod follows;
pub mod games;
pub mod guessing;
pub mod health;
pub mod histories;
pub mod invitations;
pub mod kinds;
pub mod live;
pub mod metrics;
pub mod models;
pub mod moderation;
pub mod moments;
pub mod paging;
pub mod personal_tokens;
pub mod play;
pub mod profiles;
pub mod rate_limit;
pub mod ratings;
pub mod reminders;
pub mod request_slots;
pub mod static_answers;
pub mod transcript;
pub mod transport;
pub mod vacations;
pub mod web_push;
pub mod webhooks;

use actix_web::body::MessageBody;
use actix_web::dev::ServiceResponse;
use actix_web::http::header;
use actix_web::middleware::ErrorHandlerResponse;
use actix_web::{error, web, HttpRequest, HttpResponse};

pub use self::blocking::blocking;
use crate::error::ApiError;

/// Largest request body accepted (actions are small; this leaves room for long names).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Registers every route.
pub fn configure(config: &mut web::ServiceConfig) {
    config
        .app_data(json_config())
        // Bodies read as bytes (the optional join body) have the same limit as JSON ones.
        .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
        .app_data(web::PathConfig::default().error_handler(|error, _| {
            // A path segment that cannot be what the route names: no such resource.
            ApiError::not_found("route_not_found", error.to_string()).into()
        }))
        .app_data(web::QueryConfig::default().error_handler(|error, _| {
            ApiError::bad_request("invalid_query", error.to_string()).into()
        }))
        // A request tries the routes in this order, and each pattern with a segment such
        // as `{id}` is a regular expression: the routes every move uses come first.
        .service(play::get_view)
        .service(play::get_legal_actions)
        .service(play::post_action)
        .service(play::get_legal_choices)
        .service(play::preview_action)
        .service(play::take_back)
        .service(play::take_back_availability)
        .service(health::healthz)
        .service(health::readyz)
        .service(metrics::get_metrics)
        .service(docs::openapi_json)
        .service(docs::docs_redirect)
        .service(docs::swagger_ui())
        .service(accounts::create_account)
        .service(accounts::create_token)
        .service(accounts::change_password)
        .service(accounts::revoke_tokens)
        .service(personal_tokens::create_personal_token)
        .service(personal_tokens::list_personal_tokens)
        .service(personal_tokens::revoke_personal_token)
        .service(kinds::list_game_kinds)
        .service(games::create_game)
        .service(games::list_games)
        .service(games::get_game)
        .service(games::join_game)
        .service(games::cancel_game)
        .service(games::leave_game)
        .service(games::resign)
        .service(games::vote_to_abandon)
        .service(invitations::list_invitations)
        .service(invitations::decline_invitation)
        .service(invitations::game_invitations)
        .service(invitations::invite_to_game)
        .service(invitations::ask_for_rematch)
        .service(invitations::get_rematch)
        .service(chat::read_chat)
        .service(chat::write_chat)
        .service(chat::delete_chat_message)
        .service(play::list_events)
        .service(live::stream_events)
        .service(live::stream_notifications)
        .service(webhooks::list_notifications)
        .service(reminders::get_reminders)
        .service(reminders::set_reminders)
        .service(vacations::get_vacation)
        .service(vacations::start_vacation)
        .service(vacations::end_vacation)
        .service(vacations::set_automatic_vacation)
        .service(email::get_email)
        .service(email::set_email)
        .service(email::resend_confirmation)
        .service(email::confirm_email)
        .service(email::unsubscribe_email)
        .service(crate::web::email_links::confirm_page)
        .service(crate::web::email_links::unsubscribe_page)
        .service(webhooks::create_webhook)
        .service(webhooks::list_webhooks)
        .service(webhooks::delete_webhook)
        .service(webhooks::list_deliveries)
        .service(webhooks::test_webhook)
        .service(web_push::vapid_public_key)
        .service(web_push::create_push_subscription)
        .service(web_push::list_push_subscriptions)
        .service(web_push::set_push_topics)
        .service(web_push::delete_push_subscription)
        .service(web_push::test_push_subscription)
        .service(play::export_game)
        .service(transcript::get_transcript)
        .service(board::get_board)
        .service(crate::web::home)
        .service(crate::web::game_page)
        .service(crate::web::script)
        .service(crate::web::people_script)
        .service(crate::web::player_page)
        .service(crate::web::leaderboards_page)
        .service(crate::web::leaderboard_page)
        .service(crate::web::archive_page)
        .service(crate::web::watch_page)
        .service(crate::web::style)
        .service(crate::web::service_worker_script)
        .service(crate::web::manifest)
        .service(crate::web::icon)
        .service(crate::web::rules::rules_page)
        .service(ratings::get_account_ratings)
        .service(profiles::get_player)
        .service(profiles::get_profile)
        .service(profiles::set_profile)
        .service(follows::list_following)
        .service(follows::follow_account)
        .service(follows::unfollow_account)
        .service(ratings::get_leaderboard)
        .service(histories::bulk_export)
        .service(moderation::list_blocks)
        .service(moderation::block_account)
        .service(moderation::unblock_account)
        .service(moderation::file_report)
        .service(moderation::list_reports)
        .service(moderation::resolve_report)
        .service(moderation::hide_message)
        .service(moderation::mute_account)
        .service(moderation::unmute_account)
        .service(moderation::suspend_account)
        .service(moderation::unsuspend_account)
        .service(moderation::audit_log)
        .default_service(web::to(route_not_found));
}

fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_BODY_BYTES)
        .error_handler(|error, _| {
            let api_error = match &error {
                error::JsonPayloadError::Overflow { .. }
                | error::JsonPayloadError::OverflowKnownLength { .. } => {
                    ApiError::PayloadTooLarge {
                        detail: format!("request bodies are limited to {MAX_BODY_BYTES} bytes"),
                    }
                }
                error::JsonPayloadError::Payload(payload) => {
                    transport::body_error(payload, MAX_BODY_BYTES)
                }
                error::JsonPayloadError::ContentType => ApiError::bad_request(
                    "expected_json",
                    "send the body as JSON with Content-Type: application/json",
                ),
                error::JsonPayloadError::Deserialize(inner) if inner.is_data() => {
                    ApiError::unprocessable("invalid_request", inner.to_string())
                }
                other => ApiError::bad_request("invalid_json", other.to_string()),
            };
            api_error.into()
        })
}

async fn route_not_found(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    let path = request.path();
    let allowed: Vec<&str> = documented_routes()
        .iter()
        .filter(|(route, _)| route.is_match(path))
        .flat_map(|(_, methods)| methods.iter().map(String::as_str))
        .collect();
    if !allowed.is_empty() {
        return Err(ApiError::MethodNotAllowed {
            detail: format!(
                "{} {path} is not a route; allowed: {}",
                request.method(),
                allowed.join(", ")
            ),
            allow: allowed.join(", "),
        });
    }
    Err(ApiError::not_found(
        "route_not_found",
        format!("no route {} {path}; see /docs", request.method()),
    ))
}

/// Every documented path with its methods, to tell a wrong method from a wrong path.
fn documented_routes() -> &'static [(actix_web::dev::ResourceDef, Vec<String>)] {
    static ROUTES: std::sync::OnceLock<Vec<(actix_web::dev::ResourceDef, Vec<String>)>> =
        std::sync::OnceLock::new();
    ROUTES.get_or_init(|| {
        let spec: serde_json::Value = serde_json::from_str(docs::spec_json()).unwrap_or_default();
        spec["paths"]
            .as_object()
            .map(|paths| {
                paths
                    .iter()
                    .map(|(path, operations)| {
                        let mut methods: Vec<String> = operations
                            .as_object()
                            .map(|ops| ops.keys().map(|method| method.to_uppercase()).collect())
                            .unwrap_or_default();
                        // Every GET route answers HEAD too.
                        if methods.iter().any(|method| method == "GET") {
                            methods.push("HEAD".to_owned());
                        }
                        (actix_web::dev::ResourceDef::new(path.as_str()), methods)
                    })
                    .collect()
            })
            .unwrap_or_default()
    })
}

/// Rewrites any error response that is not already problem+json (from actix itself or a
/// middleware) into one, so clients meet a single error shape.
pub fn problem_for_foreign_errors<B: MessageBody + 'static>(
    response: ServiceResponse<B>,
) -> actix_web::Result<ErrorHandlerResponse<B>> {
    let content_type = response
        .response()
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    // A problem already, or one of the server's own pages for people (a mail link's page
    // saying the link does not work), which a browser shows as it is.
    if content_type.starts_with("application/problem+json") || content_type.starts_with("text/html")
    {
        return Ok(ErrorHandlerResponse::Response(
            response.map_into_left_body(),
        ));
    }
    let status = response.status();
    let api_error = if status.is_server_error() {
        ApiError::Internal(format!("{status} from the framework"))
    } else {
        let detail = status
            .canonical_reason()
            .unwrap_or("bad request")
            .to_owned();
        match status.as_u16() {
            404 => ApiError::NotFound {
                code: "route_not_found",
                detail,
            },
            413 => ApiError::PayloadTooLarge { detail },
            _ => ApiError::BadRequest {
                code: "malformed_request",
                detail,
            },
        }
    };
    let mut problem = api_error.problem();
    problem.status = status.as_u16();
    problem.title = status.canonical_reason().unwrap_or("Error").to_owned();
    let (request, _) = response.into_parts();
    let new_response = HttpResponse::build(status)
        .content_type("application/problem+json")
        .json(problem)
        .map_into_boxed_body();
    Ok(ErrorHandlerResponse::Response(
        ServiceResponse::new(request, new_response).map_into_right_body(),
    ))
}
