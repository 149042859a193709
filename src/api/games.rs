//! The lobby: create games, list them, take seats.

use actix_web::error::PayloadError;
use actix_web::{post, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::blocking;
use super::models::{GameStatus, GameSummary};
use super::moments::moment;
use super::paging::{page_response, PageRequest, Pager};
use super::rate_limit::RateLimits;
use crate::auth::user::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::games::bots::BotStrategy;
use crate::games::server_events::TimeControl;
use crate::seeds::Seeds;
use crate::service::fold_cache::FoldCache;
use crate::service::lobby::{self, GameQuery};
use crate::service::referee;
use crate::store::{Db, GameListPosition, GameListStart, OptionFilter, Visibility};

/// A `kind` filter names a hosted kind (anything else, a NUL byte included, never reaches
/// the database).
pub fn check_kind_filter(kind: Option<&str>) -> Result<(), ApiError> {
    match kind {
        Some(kind) if crate::games::find_game_rules(kind).is_none() => {
            Err(ApiError::unprocessable(
                "unknown_game_kind",
                "`kind` must be a kind from GET /v1/game-kinds",
            ))
        }
        _ => Ok(()),
    }
}

/// A game id from the path. Anything that cannot be an id is a game that does not exist.
pub fn game_id(path: web::Path<String>) -> Result<String, ApiError> {
    checked_game_id(path.into_inner())
}

/// A game id from anywhere a client writes one (see [`game_id`]).
pub fn checked_game_id(id: String) -> Result<String, ApiError> {
    if id.is_empty() || id.len() > 32 || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(ApiError::game_not_found(&id));
    }
    Ok(id)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// A kind from `GET /v1/game-kinds`.
    #[schema(example = "tikal")]
    pub kind: String,
    /// Number of seats (players), within the kind's player counts.
    #[schema(example = 3)]
    pub seats: u8,
    /// The kind's options (see `options_schema` in `GET /v1/game-kinds`); omitted fields
    /// take their defaults.
    #[serde(default = "empty_object")]
    #[schema(value_type = Object, example = json!({"auction": false}))]
    pub options: Value,
    /// The seat the creator takes; default: the lowest seat no bot takes (seat 0 moves
    /// first).
    #[serde(default)]
    pub seat: Option<u8>,
    /// How long players may think (default: no limit). A seat that misses its deadline
    /// forfeits like one that resigns.
    #[serde(default)]
    pub time_control: TimeControl,
    /// Seats filled at once with a built-in bot: play alone against the machine, or fill a
    /// table. The game starts when the creator and the bots fill every seat.
    #[serde(default)]
    #[schema(max_items = 4)]
    pub bots: Vec<BotSeat>,
    /// Who may see the game (default `public`): `public` games are listed and anyone may
    /// join and watch them; `unlisted` ones only the invited accounts may join, and anyone
    /// who has the id (a link) may watch, but they are in no list and in nobody's public
    /// history; `private` ones only the invited accounts may join and only the seats (and,
    /// while open, the invitees) see at all: to anyone else, on every route, the game does
    /// not exist (404 `game_not_found`).
    #[serde(default)]
    pub visibility: Option<Visibility>,
    /// `true` is `"visibility": "private"` (the older way to ask for it), `false` a public
    /// game unless `visibility` says otherwise; giving both, they must agree (422
    /// `invalid_visibility`).
    #[serde(default)]
    pub private: Option<bool>,
    /// Names of the accounts invited to an unlisted or private game.
    #[serde(default)]
    #[schema(max_items = 4)]
    pub invite: Vec<String>,
    /// Whether spectators may write in the game's chat too (players always may).
    #[serde(default)]
    pub spectator_chat: bool,
    /// Whether the game counts for its players' ratings in the kind (default `true`). Only
    /// persons are rated: a finished game counts once at least two persons sat down and
    /// each made the kind's `rated_after_actions` (`GET /v1/game-kinds`) themselves, unless
    /// two of them already finished 3 counted games together in the last 24 hours; bots
    /// seated at creation neither get a rating nor change anyone's.
    #[serde(default = "rated_by_default")]
    pub rated: bool,
    /// A name for the game, shown in lists and on its page instead of its kind and
    /// players; one line of at most 80 characters.
    #[schema(max_length = 80, example = "Friday league, round 3")]
    pub title: Option<String>,
}

fn rated_by_default() -> bool {
    true
}

/// The visibility a creation asks for, with `private` as the older spelling of it.
fn visibility_of(
    visibility: Option<Visibility>,
    private: Option<bool>,
) -> Result<Visibility, ApiError> {
    match (visibility, private) {
        (None, private) => Ok(if private == Some(true) {
            Visibility::Private
        } else {
            Visibility::Public
        }),
        (Some(visibility), None) => Ok(visibility),
        (Some(visibility), Some(private)) if private == (visibility == Visibility::Private) => {
            Ok(visibility)
        }
        (Some(visibility), Some(private)) => Err(ApiError::unprocessable(
            "invalid_visibility",
            format!(
                "`private: {private}` and `visibility: {}` disagree; send `visibility` alone",
                visibility.as_str()
            ),
        )),
    }
}

/// A seat given to a bot when the game is created.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BotSeat {
    pub seat: u8,
    /// `random` picks any legal action; `playouts` tries the promising ones with random
    /// playouts (a few hundred milliseconds a move at most) and wins far more often.
    pub strategy: BotStrategy,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// Create a game; the creator takes a seat.
///
/// The game starts (its opening events are appended) when every seat is taken.
#[utoipa::path(post, path = "/v1/games", tag = "games",
    request_body = NewGame,
    responses(
        (status = 201, description = "The game, open for others to join (or started, when bots fill the other seats); `Location` names it", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`: an invited name is no account", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`blocked`: an invited account blocks you, or you block it", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_game_kind`, `invalid_seat_count`, `invalid_options`, `invalid_seat`, `invalid_time_control`, `invalid_bots`, `invalid_invitations`, `invalid_visibility`, `invalid_title`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`open_games_quota`: the account has too many open games waiting for players; `seat_taken`: two bots, or a bot and the creator, name the same seat", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many new games from this account, or too many invitations from it to one invitee (5 an hour) or to one invitee from everyone (30 an hour); with `Retry-After`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games")]
pub async fn create_game(
    db: web::Data<Db>,
    limits: web::Data<RateLimits>,
    clock: web::Data<Clock>,
    seeds: web::Data<Seeds>,
    user: AuthUser,
    body: super::transport::Json<NewGame>,
) -> Result<HttpResponse, ApiError> {
    limits
        .game_creation_per_account
        .take(&db, &user.account_id)
        .await?;
    let quota = limits.open_games_per_account;
    let body = body.into_inner();
    if body.bots.len() > 4 || body.invite.len() > 4 {
        return Err(ApiError::unprocessable(
            "invalid_request",
            "at most 4 bots and 4 invitations: no game has more than 5 seats",
        ));
    }
    super::rate_limit::take_invitation_allowances(&limits, &db, &user.account_id, &body.invite)
        .await?;
    let request = lobby::NewGame {
        kind: body.kind,
        seats: body.seats,
        options: body.options,
        creator_seat: body.seat,
        time_control: body.time_control,
        bots: body
            .bots
            .iter()
            .map(|bot| (bot.seat, bot.strategy))
            .collect(),
        visibility: visibility_of(body.visibility, body.private)?,
        invite: body.invite,
        spectator_chat: body.spectator_chat,
        rated: body.rated,
        title: body.title,
    };
    let caller = user.clone();
    let now = clock.now_millis();
    let seed = seeds.next_seed();
    let game =
        blocking(move || lobby::create_game_with_seed(&db, &caller, &request, quota, now, seed))
            .await?;
    Ok(HttpResponse::Created()
        .insert_header((
            actix_web::http::header::LOCATION,
            format!("/v1/games/{}", game.game.id),
        ))
        .json(GameSummary::of(&game, &user)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GameListQuery {
    /// Only games the caller has a seat in.
    #[serde(default)]
    pub mine: bool,
    /// Only games whose status is this.
    pub status: Option<GameStatus>,
    /// Only games where the caller must act now (implies `mine` and `status=running`),
    /// nearest deadline first (games without a deadline last, most recently active first).
    #[serde(default)]
    pub my_turn: bool,
    /// Only (private) games the caller is invited to.
    #[serde(default)]
    pub invited: bool,
    /// Only games of this kind.
    pub kind: Option<String>,
    /// Only public games, leaving out the unlisted and private ones you have a part in: the
    /// archive (`status=finished&public=true`) and the games to watch
    /// (`status=running&public=true`).
    #[serde(default)]
    pub public: bool,
    /// Only games an account you follow (`PUT /v1/me/following/{name}`) sits at.
    #[serde(default)]
    pub following: bool,
    /// Only games all of these accounts sat at: names (any case), separated by commas.
    #[param(example = "alice,bob")]
    pub players: Option<String>,
    /// Only finished games this account (a name, any case) won: first place, shared or not.
    #[param(example = "alice")]
    pub winner: Option<String>,
    /// Only games with all of these options, separated by commas: a yes/no option's name for
    /// yes, a list option's name for any choice of it, `name:choice` for one choice
    /// (`river_market`, `location_tiles:academy`). Names are those of the options schemas in
    /// `GET /v1/game-kinds` (of `kind`'s, when given); another is 404 `option_not_found`.
    #[param(example = "river_market,location_tiles:academy")]
    pub options: Option<String>,
    /// Only games with this kind of time control.
    pub time_control: Option<TimeControlKind>,
    /// Only games last active (finished, for finished games) at or after this moment
    /// (RFC 3339).
    #[param(format = DateTime, example = "2026-11-01T00:00:00Z")]
    pub since: Option<String>,
    /// Only games last active before this moment (RFC 3339).
    #[param(format = DateTime, example = "2026-12-01T00:00:00Z")]
    pub until: Option<String>,
    /// Only finished rated games whose every player was rated at least this before it.
    #[param(example = 20.0)]
    pub min_rating: Option<f64>,
    /// Only finished rated games whose every player was rated at most this before it.
    #[param(example = 35.0)]
    pub max_rating: Option<f64>,
    /// At most this many games (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200, example = 20)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    /// Skip this many games. Deprecated: page with `cursor`, which neither skips nor repeats
    /// a game because new ones were created meanwhile (one that moves takes its new place).
    #[param(minimum = 0, example = 0)]
    pub offset: Option<i64>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameList {
    pub games: Vec<GameSummary>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const GAMES: Pager = Pager::new("games", 50, 200);

/// The kinds of time control, as `time_control.type` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeControlKind {
    None,
    DaysPerMove,
    TimeBank,
}

impl TimeControlKind {
    fn as_str(self) -> &'static str {
        match self {
            TimeControlKind::None => "none",
            TimeControlKind::DaysPerMove => "days_per_move",
            TimeControlKind::TimeBank => "time_bank",
        }
    }
}

/// The option filters of `options`, checked against the options of `kind` (of any kind
/// without one): a name alone is a yes/no option that is yes, else a list option with any
/// choice; `name:choice` a choice. One no kind has is 404 `option_not_found`.
fn option_filters(kind: Option<&str>, text: Option<&str>) -> Result<Vec<OptionFilter>, ApiError> {
    let Some(text) = text.filter(|text| !text.is_empty()) else {
        return Ok(Vec::new());
    };
    let kinds: Vec<&'static dyn crate::games::GameRules> = match kind {
        Some(kind) => crate::games::find_game_rules(kind).into_iter().collect(),
        None => crate::games::all_games().to_vec(),
    };
    let accepts = |options: serde_json::Value| {
        kinds
            .iter()
            .any(|rules| rules.normalize_options(&options).is_ok())
    };
    text.split(',')
        .map(|item| match item.split_once(':') {
            None if accepts(serde_json::json!({ item: true })) => {
                Ok(OptionFilter::On(item.to_owned()))
            }
            None if accepts(serde_json::json!({ item: [] })) => {
                Ok(OptionFilter::AnyOf(item.to_owned()))
            }
            Some((name, choice)) if accepts(serde_json::json!({ name: [choice] })) => {
                Ok(OptionFilter::Holds(name.to_owned(), choice.to_owned()))
            }
            _ => Err(ApiError::not_found(
                "option_not_found",
                format!(
                    "{} no option {item:?}; see the options schemas in GET /v1/game-kinds",
                    kind.and_then(crate::games::find_game_rules).map_or_else(
                        || "no game kind has".to_owned(),
                        |rules| format!("{} has", rules.name())
                    )
                ),
            )),
        })
        .collect()
}

/// List games, most recently active first. The same list is the lobby (`status=open`),
/// your games (`mine`), the games to watch (`status=running&public=true`, those of the
/// accounts you follow with `following=true`) and the archive of finished public games
/// (`status=finished&public=true`), with filters for each.
#[utoipa::path(get, path = "/v1/games", tag = "games", params(GameListQuery),
    responses(
        (status = 200, body = GameList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`; `account_not_found`: a name of `players` or `winner`; `option_not_found`: a name of `options`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_game_kind`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games", method = "GET", method = "HEAD")]
pub async fn list_games(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<GameListQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    if query.offset.is_some_and(|offset| offset < 0) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "`offset` is at least 0",
        ));
    }
    let page: PageRequest<GameListPosition> =
        GAMES.request(query.cursor.as_deref(), query.limit)?;
    // A cursor says where the previous page ended: it wins over `offset`.
    let start = match (page.after.clone(), query.offset) {
        (Some(position), _) => GameListStart::After(position),
        (None, Some(offset)) => GameListStart::Offset(offset),
        (None, None) => GameListStart::First,
    };
    check_kind_filter(query.kind.as_deref())?;
    let my_turn = query.my_turn;
    let rating_bound = |name: &str, value: Option<f64>| match value {
        Some(value) if !value.is_finite() => Err(ApiError::bad_request(
            "invalid_query",
            format!("`{name}` is a number"),
        )),
        _ => Ok(value),
    };
    let request = GameQuery {
        mine: query.mine || query.my_turn,
        my_turn,
        invited: query.invited,
        status: query.status,
        public_only: query.public,
        following: query.following,
        players: query
            .players
            .as_deref()
            .map(|names| {
                names
                    .split(',')
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        winner: query.winner.clone(),
        options: option_filters(query.kind.as_deref(), query.options.as_deref())?,
        time_control: query.time_control.map(TimeControlKind::as_str),
        since: moment(query.since.as_deref(), "since")?,
        until: moment(query.until.as_deref(), "until")?,
        min_rating: rating_bound("min_rating", query.min_rating)?,
        max_rating: rating_bound("max_rating", query.max_rating)?,
        kind: query.kind,
        limit: page.rows_to_read(),
        start,
    };
    let caller = user.clone();
    let games = blocking(move || lobby::list_games(&db, &caller, &request)).await?;
    let games = page.cut(&GAMES, games, |game| GameListPosition {
        deadline: my_turn.then(|| {
            game.seat_row_of(&user)
                .and_then(|seat| seat.clock.deadline_ms)
                .unwrap_or(i64::MAX)
        }),
        updated_at: game.game.updated_at,
        id: game.game.id.clone(),
    });
    let body = GameList {
        games: games
            .items
            .iter()
            .map(|game| GameSummary::of(game, &user))
            .collect(),
        next: games.next.clone(),
    };
    Ok(page_response(&http, games.next.as_deref(), &body))
}

/// A game's summary: kind, seats, status, current seq, who must act, the outcome. Reading
/// it counts as having looked at the game: the game's next notification is pushed to your
/// devices again (see `POST /v1/me/push-subscriptions`).
#[utoipa::path(get, path = "/v1/games/{id}", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}", method = "GET", method = "HEAD")]
pub async fn get_game(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let caller = user.clone();
    let game = blocking(move || {
        let game = lobby::get_game(&db, &id, &caller)?;
        crate::service::web_push::looked(&db, &caller.account_id, &id)?;
        Ok::<_, ApiError>(game)
    })
    .await?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&game, &user)))
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSeat {
    /// The seat to take; default: the lowest open seat.
    #[serde(default)]
    pub seat: Option<u8>,
}

/// Take a seat. Taking the last open seat starts the game.
#[utoipa::path(post, path = "/v1/games/{id}/seats", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    request_body(content = Option<NewSeat>, description = "Optional; `{}` takes the lowest open seat"),
    responses(
        (status = 200, description = "Seated; the game's new summary", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_invited`: only invited accounts may join this unlisted game (a private game the caller is not invited to answers 404, as if it did not exist)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_open`, `already_seated`, `seat_taken`, `game_full`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_seat`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`: the game was started under a rules version this server cannot play (a newer server started it); another instance may serve it", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/seats")]
pub async fn join_game(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
    request: HttpRequest,
    body: Result<web::Bytes, actix_web::Error>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let seat = optional_json_body::<NewSeat>(&request, body)?.seat;
    let caller = user.clone();
    let now = clock.now_millis();
    let game = blocking(move || lobby::join_game(&db, &id, &caller, seat, now)).await?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&game, &user)))
}

/// Cancel an open game you created; it never starts. Whoever sat down is notified.
#[utoipa::path(post, path = "/v1/games/{id}/cancel", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "The game, now `cancelled`", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_the_creator`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_open`: it started, finished or was cancelled already", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/cancel")]
pub async fn cancel_game(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let caller = user.clone();
    let now = clock.now_millis();
    let game = blocking(move || lobby::cancel_game(&db, &id, &caller, now)).await?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&game, &user)))
}

/// Leave an open game you sat down at (its creator cancels it instead).
#[utoipa::path(post, path = "/v1/games/{id}/leave", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "The game without you", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_open` (a running game is resigned instead), `creator_cannot_leave`, `not_seated`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/leave")]
pub async fn leave_game(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let caller = user.clone();
    let now = clock.now_millis();
    let game = blocking(move || lobby::leave_game(&db, &id, &caller, now)).await?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&game, &user)))
}

/// Resign. In a two-player game the other seat wins at once; with more players a bot
/// plays your seat to the end so the others can finish, and your seat ranks last whatever
/// its score (`outcome.forfeits` names it).
#[utoipa::path(post, path = "/v1/games/{id}/resign", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "The game after the resignation", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_started` (leave an open game instead), `game_finished`, `seat_forfeited`, `stale_seq` (the game moved at that instant: try again), `bot_games_quota` (only bots would play on, and you already left as many running games to bots as the server allows)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/resign")]
pub async fn resign(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    clock: web::Data<Clock>,
    limits: web::Data<RateLimits>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let caller = user.clone();
    let now = clock.now_millis();
    let most = limits.bot_games_per_account;
    let game = blocking(move || referee::resign(&db, &cache, &id, &caller, most, now)).await?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&game, &user)))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AbandonVote {
    /// `true` (the default) votes to abandon; `false` takes your vote back.
    #[serde(default = "agree_by_default")]
    #[schema(example = true)]
    pub agree: bool,
}

impl Default for AbandonVote {
    fn default() -> AbandonVote {
        AbandonVote { agree: true }
    }
}

fn agree_by_default() -> bool {
    true
}

/// Vote to abandon the game, or take your vote back with `{"agree": false}`. Each vote is an
/// event in the game's log (`abandon_voted`, `abandon_vote_withdrawn`) and the other
/// players still in play get an `abandon_vote` notification. Once every seat a person still
/// plays has voted (bots and seats that forfeited have no vote), the game ends without a
/// result: a `game_abandoned` event, status `abandoned`, no outcome, every clock stopped, a
/// `game_abandoned` notification. A vote stands until withdrawn or the game ends; voting
/// again, or withdrawing no vote, changes nothing unless every vote is in (when a seat that
/// had not voted forfeited since, voting again ends the game).
#[utoipa::path(post, path = "/v1/games/{id}/abandon", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    request_body(content = Option<AbandonVote>, description = "Optional; no body votes to abandon"),
    responses(
        (status = 200, description = "The game after the vote (`abandoned` when it was the last one)", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_started` (leave or cancel an open game instead), `game_finished` (finished, abandoned or cancelled), `seat_forfeited` (your seat left the game; its bot does not vote), `stale_seq` (the game moved at that instant: vote again)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_request`: the body is not an `AbandonVote`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/abandon")]
pub async fn vote_to_abandon(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    request: HttpRequest,
    user: AuthUser,
    path: web::Path<String>,
    body: Result<web::Bytes, actix_web::Error>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let agree = optional_json_body::<AbandonVote>(&request, body)?.agree;
    let caller = user.clone();
    let now = clock.now_millis();
    let game = blocking(move || referee::vote_to_abandon(&db, &id, &caller, agree, now)).await?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&game, &user)))
}

/// A body that may be left out entirely; when present it must be JSON of the right shape,
/// with the same errors as every other JSON body.
fn optional_json_body<T: Default + serde::de::DeserializeOwned>(
    request: &HttpRequest,
    body: Result<web::Bytes, actix_web::Error>,
) -> Result<T, ApiError> {
    let body = body.map_err(|error| match error.as_error::<PayloadError>() {
        Some(payload) => super::transport::body_error(payload, super::MAX_BODY_BYTES),
        None => ApiError::bad_request("invalid_body", error.to_string()),
    })?;
    // No body at all takes the defaults; a body that is there must be JSON (whitespace
    // alone is not: found by schemathesis).
    if body.is_empty() {
        return Ok(T::default());
    }
    let is_json = request
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if !is_json {
        return Err(ApiError::bad_request(
            "expected_json",
            "send the body as JSON with Content-Type: application/json",
        ));
    }
    let value = serde_json::from_slice(&body)
        .map_err(|error| ApiError::bad_request("invalid_json", error.to_string()))?;
    super::transport::from_json_value(value)
}
