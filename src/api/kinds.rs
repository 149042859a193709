//! The games this server hosts.

use actix_web::{route, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::auth::user::AuthUser;
use crate::error::Problem;
use crate::games::all_games;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameKind {
    /// Identifier used in `POST /v1/games`, e.g. `tikal`.
    pub kind: String,
    pub name: String,
    pub min_players: u8,
    pub max_players: u8,
    /// The actions each person at the table must make themselves (bots' and taken-back
    /// ones not counting) for a finished rated game to count for ratings: about a turn.
    pub rated_after_actions: u32,
    /// Version of the rules new games start with (the last of `rules_versions`).
    pub rules_version: u32,
    /// Every rules version this server still plays, oldest first. A game keeps the version
    /// it started with to its end (its summary and export name it), so a later rules fix
    /// never changes a stored game.
    pub rules_versions: Vec<RulesVersionInfo>,
    /// Version of the JSON shape of this kind's events.
    pub event_schema_version: u32,
    /// The options object new games take, as JSON Schema.
    #[schema(value_type = Object)]
    pub options_schema: Value,
    /// The options a game gets when `options` is omitted.
    #[schema(value_type = Object)]
    pub default_options: Value,
    /// Every rule code an action of this kind can be refused with (the `rule` of an
    /// `illegal_action` problem), shared codes first.
    pub rule_codes: Vec<RuleCodeInfo>,
    /// Names of this kind's schemas in the OpenAPI document.
    pub schemas: KindSchemas,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RulesVersionInfo {
    pub version: u32,
    /// The day new games started on it (ISO 8601 date).
    #[schema(example = "2026-11-24")]
    pub date: String,
    /// What changed against the version before.
    pub changes: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RuleCodeInfo {
    /// Stable code, e.g. `not_your_turn`.
    pub code: String,
    /// What it means.
    pub meaning: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct KindSchemas {
    pub action: String,
    pub event: String,
    pub view: String,
    pub options: String,
    pub rule_code: String,
}

/// Every game kind with its player counts, options and rules version.
#[utoipa::path(get, path = "/v1/game-kinds", tag = "games",
    responses(
        (status = 200, body = Vec<GameKind>),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/game-kinds", method = "GET", method = "HEAD")]
pub async fn list_game_kinds(_user: AuthUser) -> HttpResponse {
    let kinds: Vec<GameKind> = all_games()
        .iter()
        .map(|rules| {
            let counts = rules.player_counts();
            let prefix = schema_prefix(rules.kind());
            GameKind {
                kind: rules.kind().to_owned(),
                name: rules.name().to_owned(),
                min_players: *counts.start(),
                max_players: *counts.end(),
                rated_after_actions: rules.rated_after_actions(),
                rules_version: rules.newest_rules_version(),
                rules_versions: rules
                    .rules_versions()
                    .iter()
                    .map(|release| RulesVersionInfo {
                        version: release.version,
                        date: release.date.to_owned(),
                        changes: release.changes.to_owned(),
                    })
                    .collect(),
                event_schema_version: rules.event_schema_version(),
                options_schema: serde_json::to_value(rules.options_schema()).unwrap_or_default(),
                default_options: rules.default_options(),
                rule_codes: rules
                    .rule_codes()
                    .into_iter()
                    .map(|(code, meaning)| RuleCodeInfo {
                        code: code.to_owned(),
                        meaning: meaning.to_owned(),
                    })
                    .collect(),
                schemas: KindSchemas {
                    action: format!("{prefix}Action"),
                    event: format!("{prefix}Event"),
                    view: format!("{prefix}View"),
                    options: format!("{prefix}Options"),
                    rule_code: format!("{prefix}RuleCode"),
                },
            }
        })
        .collect();
    HttpResponse::Ok().json(kinds)
}

/// `tikal` -> `Tikal`, `eternal_palace` -> `EternalPalace`: the prefix of a kind's schemas.
pub fn schema_prefix(kind: &str) -> String {
    kind.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
