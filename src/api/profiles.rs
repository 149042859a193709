//! Players' public pages, and the caller's own page settings.

use actix_web::{put, route, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use super::models::GameSummary;
use super::rate_limit::RateLimits;
use super::ratings::RatingOut;
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::service::format_time;
use crate::service::profiles::{self, ProfileRequest, MOST_ABOUT_CHARACTERS};
use crate::store::profiles::StoredProfile;
use crate::store::Db;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerPage {
    #[schema(example = "alice")]
    pub name: String,
    /// RFC 3339: member since.
    #[schema(format = DateTime)]
    pub created_at: String,
    /// What the player says about themselves (empty when nothing).
    pub about: String,
    /// ISO 3166-1 alpha-2, if the player gave one.
    #[schema(example = "DE")]
    pub country: Option<String>,
    /// ISO 639-1, if the player gave one.
    #[schema(example = "de")]
    pub language: Option<String>,
    /// The day (UTC) the player was last signed in; `null` when they hide it, were never
    /// seen since this was kept, or block you.
    #[schema(format = Date, example = "2026-12-04")]
    pub last_seen: Option<String>,
    /// One per kind the player has a rated game of.
    pub ratings: Vec<RatingOut>,
    /// One entry per game kind the player has sat down to, in kind order (public games,
    /// and on your own page all of yours).
    pub kinds: Vec<KindRecordOut>,
    /// The player's latest finished public games, newest first (at most 10; the archive,
    /// `GET /v1/games?status=finished&public=true&players=NAME`, has them all).
    pub recent_games: Vec<GameSummary>,
    /// Your finished games with the player; `null` on your own page and when they block
    /// you.
    pub head_to_head: Option<HeadToHeadOut>,
    /// You follow the player.
    pub you_follow: bool,
    /// How many accounts follow the player.
    pub followers: u32,
    /// How many accounts the player follows.
    pub following: u32,
    /// The player blocks you: their games, record and last day seen are not shown.
    pub activity_hidden: bool,
    /// Where the player's finished games stream as NDJSON exports.
    #[schema(example = "/v1/exports?player=alice")]
    pub finished_games: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct KindRecordOut {
    #[schema(example = "tikal")]
    pub kind: String,
    /// Games played to the end.
    pub finished: u32,
    /// Finished games in first place (a shared first place counts).
    pub won: u32,
    /// Games in progress.
    pub running: u32,
    /// Games still waiting for players.
    pub open: u32,
    /// Games every player agreed to abandon (no result).
    pub abandoned: u32,
}

/// Your finished games with a player, public or not.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HeadToHeadOut {
    pub games: u32,
    /// Games in which you placed before the player.
    pub you_ahead: u32,
    /// Games in which the player placed before you.
    pub they_ahead: u32,
}

/// The day a day number (since 1970-01-01) is, as `YYYY-MM-DD`.
fn day_text(day: i64) -> String {
    format_time(day.saturating_mul(86_400_000))
        .split('T')
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// A player's page: what they say about themselves, when they were last seen, their
/// ratings and record per kind, their latest public games, and your games with them.
#[utoipa::path(get, path = "/v1/accounts/{name}", tag = "accounts",
    params(("name" = String, Path, description = "Account name (any case)", example = "alice")),
    responses(
        (status = 200, body = PlayerPage),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/accounts/{name}", method = "GET", method = "HEAD")]
pub async fn get_player(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    let caller = user.clone();
    let page = blocking(move || profiles::profile(&db, &name, &caller)).await?;
    let count = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(HttpResponse::Ok().json(PlayerPage {
        finished_games: format!("/v1/exports?player={}", page.stored.name),
        name: page.stored.name.clone(),
        created_at: format_time(page.stored.created_at),
        about: page.stored.about.clone(),
        country: page.stored.country.clone(),
        language: page.stored.language.clone(),
        last_seen: page.last_seen_day.map(day_text),
        ratings: page.ratings.iter().map(RatingOut::of).collect(),
        kinds: page
            .kinds
            .into_iter()
            .map(|(kind, counts)| KindRecordOut {
                kind,
                finished: counts.finished,
                won: counts.won,
                abandoned: counts.abandoned,
                running: counts.running,
                open: counts.open,
            })
            .collect(),
        recent_games: page
            .recent_games
            .iter()
            .map(|game| GameSummary::of(game, &user))
            .collect(),
        head_to_head: page.head_to_head.map(|record| HeadToHeadOut {
            games: record.games,
            you_ahead: record.behind,
            they_ahead: record.ahead,
        }),
        you_follow: page.you_follow,
        followers: count(page.followers),
        following: count(page.following),
        activity_hidden: page.activity_hidden,
    }))
}

/// What you say about yourself on your page, and whether others see the day you were last
/// signed in.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// A few lines about you, at most 600 characters; `null` for none.
    #[schema(max_length = 600, example = "Tikal since 1999. Slow but steady.")]
    pub about: Option<String>,
    /// ISO 3166-1 alpha-2 in capitals; `null` for none.
    #[schema(example = "AT", min_length = 2, max_length = 2)]
    pub country: Option<String>,
    /// ISO 639-1 in small letters; `null` for none.
    #[schema(example = "de", min_length = 2, max_length = 2)]
    pub language: Option<String>,
    /// Others see the day you were last signed in.
    #[schema(example = true)]
    pub show_last_seen: bool,
}

impl Profile {
    fn of(stored: &StoredProfile) -> Profile {
        Profile {
            about: Some(stored.about.clone()).filter(|about| !about.is_empty()),
            country: stored.country.clone(),
            language: stored.language.clone(),
            show_last_seen: stored.show_last_seen,
        }
    }
}

/// Your page's settings.
#[utoipa::path(get, path = "/v1/me/profile", tag = "accounts",
    responses(
        (status = 200, body = Profile),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/profile", method = "GET", method = "HEAD")]
pub async fn get_profile(db: web::Data<Db>, user: AuthUser) -> Result<HttpResponse, ApiError> {
    let stored = blocking(move || profiles::own_profile(&db, &user)).await?;
    Ok(HttpResponse::Ok().json(Profile::of(&stored)))
}

/// Set your page: every field at once. Limited per hour (429 `rate_limited`).
#[utoipa::path(put, path = "/v1/me/profile", tag = "accounts",
    request_body = Profile,
    responses(
        (status = 200, body = Profile),
        (status = 400, description = "`invalid_json`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_profile`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`", body = Problem, content_type = "application/problem+json"),
    ))]
#[put("/v1/me/profile")]
pub async fn set_profile(
    db: web::Data<Db>,
    limits: web::Data<RateLimits>,
    user: AuthUser,
    body: web::Json<Profile>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    limits
        .profile_changes_per_account
        .take(&db, &user.account_id)
        .await?;
    let request = ProfileRequest {
        about: body.about,
        country: body.country,
        language: body.language,
        show_last_seen: body.show_last_seen,
    };
    let stored = blocking(move || profiles::set_profile(&db, &user, &request)).await?;
    Ok(HttpResponse::Ok().json(Profile::of(&stored)))
}

const _: () = assert!(MOST_ABOUT_CHARACTERS == 600);
