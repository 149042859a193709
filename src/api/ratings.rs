//! Ratings per game kind: leaderboards and each account's ratings with their history.

use actix_web::{route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::blocking;
use super::models::AccountRef;
use super::paging::{page_response, PageRequest, Pager};
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::service::format_time;
use crate::service::ratings;
use crate::store::ratings::{LeaderboardPosition, StoredRating, LEADERBOARD_MIN_GAMES};
use crate::store::Db;

/// A rating in one kind (Weng-Lin: players start at 25 with an uncertainty of 25/3).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingOut {
    #[schema(example = "tikal")]
    pub kind: String,
    /// The estimate of the player's skill.
    #[schema(example = 27.9)]
    pub rating: f64,
    /// How unsure the estimate still is; it shrinks with every rated game.
    #[schema(example = 7.1)]
    pub uncertainty: f64,
    /// `rating` minus three times `uncertainty`: what the player almost surely has at
    /// least, and what leaderboards rank by.
    #[schema(example = 6.6)]
    pub conservative: f64,
    /// Rated games counted.
    pub games: u32,
    /// Fewer rated games than a leaderboard needs (5): the rating is a first guess, and the
    /// player is not on the leaderboard yet.
    pub provisional: bool,
    /// RFC 3339: when a rated game last changed it.
    pub updated_at: String,
}

impl RatingOut {
    pub(super) fn of(stored: &StoredRating) -> RatingOut {
        RatingOut {
            kind: stored.kind.clone(),
            rating: stored.rating.rating,
            uncertainty: stored.rating.uncertainty,
            conservative: stored.rating.conservative(),
            games: u32::try_from(stored.games).unwrap_or(0),
            provisional: stored.games < LEADERBOARD_MIN_GAMES,
            updated_at: format_time(stored.updated_at),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardEntry {
    /// 1 for the best; counted over the whole board, not the page.
    pub rank: u32,
    pub account: AccountRef,
    pub rating: RatingOut,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Leaderboard {
    pub kind: String,
    /// Rated games a player needs to be on the board; with fewer the rating is provisional.
    pub minimum_games: u32,
    /// Your own place on the board; `null` while you have fewer rated games of the kind than
    /// `minimum_games`.
    #[schema(required = true)]
    pub you: Option<LeaderboardEntry>,
    pub players: Vec<LeaderboardEntry>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardQuery {
    /// At most this many players (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200, example = 20)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    /// Skip this many players. Deprecated: page with `cursor`.
    #[param(minimum = 0, example = 0)]
    pub offset: Option<i64>,
}

pub const LEADERBOARD: Pager = Pager::new("leaderboard", 50, 200);

/// The kind's rated players with at least 5 rated games, best first by their conservative
/// rating (ties: more games, then name), without the accounts you block or that block you
/// (ranks count the players shown), and your own place. Only persons are rated, and a rated game counts
/// only when two or more persons sat at it, each of them made the kind's
/// `rated_after_actions` themselves (a game resigned before that is no rated game), and no
/// two of them already finished 3 counted games together in the 24 hours before it.
#[utoipa::path(get, path = "/v1/leaderboards/{kind}", tag = "accounts",
    params(("kind" = String, Path, description = "A kind from `GET /v1/game-kinds`", example = "tikal"), LeaderboardQuery),
    responses(
        (status = 200, body = Leaderboard),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_kind_not_found`, `cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/leaderboards/{kind}", method = "GET", method = "HEAD")]
pub async fn get_leaderboard(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<LeaderboardQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let kind = path.into_inner();
    if crate::games::find_game_rules(&kind).is_none() {
        return Err(ApiError::not_found(
            "game_kind_not_found",
            "no game kind has that name; see GET /v1/game-kinds",
        ));
    }
    if query.offset.is_some_and(|offset| offset < 0) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "`offset` is at least 0",
        ));
    }
    // The position after a page's last player, with that player's rank; a cursor wins
    // over `offset`.
    let page: PageRequest<(i64, LeaderboardPosition)> =
        LEADERBOARD.request(query.cursor.as_deref(), query.limit)?;
    let offset = query.offset.unwrap_or(0);
    let (ranked_before, after) = match page.after.clone() {
        Some((rank, position)) => (rank, Some(position)),
        None => (offset, None),
    };
    let board_kind = kind.clone();
    let rows = page.rows_to_read();
    let (players, you) = blocking(move || {
        Ok::<_, ApiError>((
            ratings::leaderboard(
                &db,
                &board_kind,
                &user.account_id,
                rows,
                if after.is_some() { 0 } else { offset },
                after.as_ref(),
            )?,
            ratings::rank_of(&db, &board_kind, &user.account_id)?,
        ))
    })
    .await?;
    let ranked: Vec<(i64, StoredRating, LeaderboardPosition)> = players
        .into_iter()
        .zip(1_i64..)
        .map(|((stored, position), index)| (ranked_before.saturating_add(index), stored, position))
        .collect();
    let players = page.cut(&LEADERBOARD, ranked, |(rank, _, position)| {
        (*rank, position.clone())
    });
    let entry = |rank: i64, stored: &StoredRating| LeaderboardEntry {
        rank: u32::try_from(rank).unwrap_or(u32::MAX),
        account: AccountRef {
            id: stored.account_id.clone(),
            name: stored.name.clone(),
        },
        rating: RatingOut::of(stored),
    };
    let body = Leaderboard {
        kind,
        minimum_games: u32::try_from(LEADERBOARD_MIN_GAMES).unwrap_or(0),
        you: you.map(|(stored, rank)| entry(rank, &stored)),
        players: players
            .items
            .iter()
            .map(|(rank, stored, _)| entry(*rank, stored))
            .collect(),
        next: players.next.clone(),
    };
    Ok(page_response(&http, players.next.as_deref(), &body))
}

/// What one rated game did to one player's rating.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingChangeOut {
    /// The game; `null` for an unlisted or private game, which only the account itself
    /// sees named in its history.
    pub game_id: Option<String>,
    #[schema(example = "tikal")]
    pub kind: String,
    /// The player's seat; `null` where `game_id` is.
    pub seat: Option<u8>,
    /// The player's place in the game's final standing (forfeited seats share the last).
    pub place: u8,
    pub rating_before: f64,
    pub uncertainty_before: f64,
    pub rating_after: f64,
    pub uncertainty_after: f64,
    /// RFC 3339: when the game finished.
    pub at: String,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AccountRatings {
    pub name: String,
    /// One per kind the account played a rated game of.
    pub ratings: Vec<RatingOut>,
    /// A page of the rated games' changes, newest first.
    pub history: Vec<RatingChangeOut>,
    /// The `cursor` of the history's next page; `null` on its last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RatingHistoryQuery {
    /// At most this many changes in `history` (1 to 200, default 100).
    #[param(minimum = 1, maximum = 200, example = 100)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

pub const RATING_HISTORY: Pager = Pager::new("rating_history", 100, 200);

/// A player's ratings per kind and their history, a page at a time.
#[utoipa::path(get, path = "/v1/accounts/{name}/ratings", tag = "accounts",
    params(("name" = String, Path, description = "Account name (any case)", example = "alice"), RatingHistoryQuery),
    responses(
        (status = 200, body = AccountRatings),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`, `cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/accounts/{name}/ratings", method = "GET", method = "HEAD")]
pub async fn get_account_ratings(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<RatingHistoryQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    let page: PageRequest<i64> = RATING_HISTORY.request(query.cursor.as_deref(), query.limit)?;
    let (rows, before) = (page.rows_to_read(), page.after);
    let found =
        blocking(move || ratings::of_account(&db, &name, &user.account_id, rows, before)).await?;
    let history = page.cut(&RATING_HISTORY, found.changes, |shown| {
        shown.change.rating_order
    });
    let body = AccountRatings {
        name: found.name,
        ratings: found.ratings.iter().map(RatingOut::of).collect(),
        history: history
            .items
            .into_iter()
            .map(|shown| (shown.named, shown.change))
            .map(|(named, change)| RatingChangeOut {
                game_id: named.then_some(change.game_id),
                kind: change.kind,
                seat: named.then(|| u8::try_from(change.seat).unwrap_or(0)),
                place: u8::try_from(change.place).unwrap_or(0),
                rating_before: change.rating_before,
                uncertainty_before: change.uncertainty_before,
                rating_after: change.rating_after,
                uncertainty_after: change.uncertainty_after,
                at: format_time(change.created_at),
            })
            .collect(),
        next: history.next.clone(),
    };
    Ok(page_response(&http, history.next.as_deref(), &body))
}
