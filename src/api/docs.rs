//! The OpenAPI document (served, and committed as `openapi/openapi.json`) and the
//! interactive docs, which work offline because Swagger UI is vendored.

use std::sync::OnceLock;

use actix_web::{http::header, route, HttpResponse};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_swagger_ui::SwaggerUi;

use super::kinds::schema_prefix;
use crate::games::all_games;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "turnpost",
        description = "Play-by-web server for Euro board games: Tikal, Java and Eternal Palace.\n\n\
Every game is an append-only log of events folded through a pure rule engine. Register with \
`POST /v1/accounts`, get a bearer token from `POST /v1/tokens`, create or join a game, then \
loop: `GET /v1/games/{id}/legal-actions` and post one of them verbatim to \
`POST /v1/games/{id}/actions` with the `seq` you saw as `expected_seq`.\n\n\
Scripts and bots can use a personal token instead (`POST /v1/me/personal-tokens`): named, \
expiring, and limited to scopes (`games:read`, `games:play`, `webhooks:manage`, \
`account:manage`, `moderation`). Each operation's `security` names the scope it needs; a personal token \
without it gets 403 `missing_scope`. Sign-in tokens have every scope.\n\n\
Every error is `application/problem+json` (RFC 9457) with a stable `code`. Each game kind's \
actions, events, views and options are described by the `<Kind>Action`, `<Kind>LogEvent`, \
`<Kind>View` and `<Kind>Options` schemas.",
        license(name = "MIT"),
    ),
    paths(
        super::health::healthz,
        super::health::readyz,
        super::accounts::create_account,
        super::accounts::create_token,
        super::accounts::change_password,
        super::accounts::revoke_tokens,
        super::personal_tokens::create_personal_token,
        super::personal_tokens::list_personal_tokens,
        super::personal_tokens::revoke_personal_token,
        super::kinds::list_game_kinds,
        super::games::create_game,
        super::games::list_games,
        super::games::get_game,
        super::games::join_game,
        super::games::cancel_game,
        super::games::leave_game,
        super::games::resign,
        super::games::vote_to_abandon,
        super::invitations::list_invitations,
        super::invitations::decline_invitation,
        super::invitations::game_invitations,
        super::invitations::invite_to_game,
        super::invitations::ask_for_rematch,
        super::invitations::get_rematch,
        super::chat::read_chat,
        super::chat::write_chat,
        super::chat::delete_chat_message,
        super::play::get_view,
        super::play::get_legal_actions,
        super::play::get_legal_choices,
        super::play::preview_action,
        super::play::post_action,
        super::play::take_back,
        super::play::take_back_availability,
        super::play::list_events,
        super::live::stream_events,
        super::live::stream_notifications,
        super::webhooks::list_notifications,
        super::reminders::get_reminders,
        super::reminders::set_reminders,
        super::vacations::get_vacation,
        super::vacations::start_vacation,
        super::vacations::end_vacation,
        super::vacations::set_automatic_vacation,
        super::email::get_email,
        super::email::set_email,
        super::email::resend_confirmation,
        super::email::confirm_email,
        super::email::unsubscribe_email,
        super::webhooks::create_webhook,
        super::webhooks::list_webhooks,
        super::webhooks::delete_webhook,
        super::webhooks::list_deliveries,
        super::webhooks::test_webhook,
        super::web_push::vapid_public_key,
        super::web_push::create_push_subscription,
        super::web_push::list_push_subscriptions,
        super::web_push::set_push_topics,
        super::web_push::delete_push_subscription,
        super::web_push::test_push_subscription,
        super::play::export_game,
        super::transcript::get_transcript,
        super::board::get_board,
        super::profiles::get_player,
        super::profiles::get_profile,
        super::profiles::set_profile,
        super::follows::list_following,
        super::follows::follow_account,
        super::follows::unfollow_account,
        super::ratings::get_account_ratings,
        super::ratings::get_leaderboard,
        super::histories::bulk_export,
        super::moderation::list_blocks,
        super::moderation::block_account,
        super::moderation::unblock_account,
        super::moderation::file_report,
        super::moderation::list_reports,
        super::moderation::resolve_report,
        super::moderation::hide_message,
        super::moderation::mute_account,
        super::moderation::unmute_account,
        super::moderation::suspend_account,
        super::moderation::unsuspend_account,
        super::moderation::audit_log,
    ),
    components(schemas(
        crate::error::Problem,
        super::histories::ResultFilter,
        super::games::TimeControlKind,
        super::moderation::ReportStateQuery,
        crate::games::server_events::ServerEvent
    )),
    modifiers(&BearerSecurity),
    security(("bearer" = [])),
    tags(
        (name = "accounts", description = "Accounts, bearer tokens and personal tokens"),
        (name = "games", description = "Game kinds, the lobby and seats"),
        (name = "play", description = "Views, legal actions, acting, the log and exports"),
        (name = "notifications", description = "What concerns you across your games: a feed, a live stream, webhooks, Web Push, reminders and mail"),
        (name = "moderation", description = "Reports, and what moderators do about them: hide messages, mute and suspend accounts, with an audit log"),
        (name = "health", description = "Probes"),
    )
)]
struct ApiDoc;

struct BearerSecurity;

impl Modify for BearerSecurity {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi
            .components
            .get_or_insert_with(Default::default)
            .add_security_scheme(
                "bearer",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .bearer_format("JWT or personal token")
                        .description(Some(
                            "A sign-in token (a JWT from `POST /v1/tokens`), which may do \
                             everything, or a personal token (`tpat_...`, from \
                             `POST /v1/me/personal-tokens`), which may do what its scopes \
                             allow: `games:read`, `games:play`, `webhooks:manage`, \
                             `account:manage`. The scope each operation needs is listed in its \
                             `security`; a personal token without it gets 403 `missing_scope`.",
                        ))
                        .build(),
                ),
            );
    }
}

/// The whole document: the routes plus every game kind's schemas, shaped into the typed
/// contract (see [`super::contract`]).
pub fn openapi() -> serde_json::Value {
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    let components = doc.components.get_or_insert_with(Default::default);
    for rules in all_games() {
        for (name, schema) in rules.schemas(&schema_prefix(rules.kind())) {
            components.schemas.insert(name, schema);
        }
    }
    let mut doc = serde_json::to_value(doc).unwrap_or_default();
    let kinds: Vec<_> = all_games()
        .iter()
        .map(|rules| super::contract::kind_contract(*rules))
        .collect();
    super::contract::shape(&mut doc, &kinds);
    doc
}

/// The document as served and committed, byte for byte.
pub fn spec_json() -> &'static str {
    static SPEC: OnceLock<String> = OnceLock::new();
    SPEC.get_or_init(|| {
        let mut text = serde_json::to_string_pretty(&openapi()).unwrap_or_default();
        text.push('\n');
        text
    })
}

/// The OpenAPI document.
#[route("/openapi.json", method = "GET", method = "HEAD")]
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(spec_json())
}

#[route("/docs", method = "GET", method = "HEAD")]
pub async fn docs_redirect() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, "/docs/"))
        .finish()
}

pub fn swagger_ui() -> SwaggerUi {
    SwaggerUi::new("/docs/{_:.*}").config(utoipa_swagger_ui::Config::new(["/openapi.json"]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_become_schema_prefixes() {
        assert_eq!(schema_prefix("tikal"), "Tikal");
        assert_eq!(schema_prefix("eternal_palace"), "EternalPalace");
    }

    #[test]
    fn every_rule_code_is_in_the_spec_and_on_its_rules_page() {
        let pages = [
            ("tikal", include_str!("../../docs/rules/tikal.md")),
            ("java", include_str!("../../docs/rules/java.md")),
            (
                "eternal_palace",
                include_str!("../../docs/rules/eternal-palace.md"),
            ),
        ];
        let spec = spec_json();
        for rules in all_games() {
            let (_, page) = pages
                .iter()
                .find(|(kind, _)| *kind == rules.kind())
                .unwrap_or_else(|| panic!("{} has no rules page", rules.kind()));
            let codes = rules.rule_codes();
            assert!(!codes.is_empty(), "{} declares no rule code", rules.kind());
            for (code, meaning) in codes {
                assert!(!meaning.is_empty(), "{code} has no meaning");
                assert!(
                    page.contains(&format!("`{code}`")),
                    "{code} of {} is not on its rules page",
                    rules.kind()
                );
                assert!(
                    spec.contains(&format!("\"{code}\"")),
                    "{code} of {} is not in the OpenAPI document",
                    rules.kind()
                );
            }
        }
    }

    #[test]
    fn no_two_games_define_one_schema_name_differently() {
        let mut seen: std::collections::BTreeMap<String, (String, serde_json::Value)> =
            Default::default();
        for rules in all_games() {
            for (name, schema) in rules.schemas(&schema_prefix(rules.kind())) {
                let schema = serde_json::to_value(schema).unwrap();
                if let Some((other_kind, other)) = seen.get(&name) {
                    assert_eq!(
                        other,
                        &schema,
                        "{} and {other_kind} both define schema {name}",
                        rules.kind()
                    );
                }
                seen.insert(name, (rules.kind().to_owned(), schema));
            }
        }
    }
}
