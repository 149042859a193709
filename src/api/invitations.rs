//! Invitations as the invitee meets them (listed, declined; accepted by taking a seat) and
//! rematches.

use actix_web::{post, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use super::games::game_id;
use super::models::{AccountRef, GameSummary};
use super::paging::{page_response, PageQuery, PageRequest, Pager};
use super::rate_limit::{take_invitation_allowances, RateLimits};
use crate::auth::user::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::seeds::Seeds;
use crate::service::format_time;
use crate::service::{invitations, rematches};
use crate::store::Db;

/// An invitation to a private game waiting for your answer.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InvitationOut {
    pub game: GameSummary,
    /// The game's creator, who invited you.
    pub invited_by: AccountRef,
    /// RFC 3339.
    pub invited_at: String,
    /// When the game is a rematch: the game it plays again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "k3m9q2x7wa")]
    pub rematch_of: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct InvitationList {
    pub invitations: Vec<InvitationOut>,
    /// The next page's `cursor`; `null` on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const MY_INVITATIONS: Pager = Pager::new("invitations", 50, 200);
pub const GAME_INVITATIONS: Pager = Pager::new("game_invitations", 50, 200);

/// Your invitations waiting for an answer, newest first: open private games you are
/// invited to, have not declined and do not sit in yet. Accept one by taking a seat
/// (`POST /v1/games/{id}/seats`), decline it with `POST /v1/games/{id}/decline`. Each
/// invitation was also sent as an `invitation` notification.
#[utoipa::path(get, path = "/v1/me/invitations", tag = "games",
    params(PageQuery),
    responses(
        (status = 200, body = InvitationList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/invitations", method = "GET", method = "HEAD")]
pub async fn list_invitations(
    db: web::Data<Db>,
    user: AuthUser,
    query: web::Query<PageQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    // Newest first: a position is the last invitation's time and game id.
    let page: PageRequest<(i64, String)> =
        MY_INVITATIONS.request(query.cursor.as_deref(), query.limit)?;
    let (caller, rows, after) = (user.clone(), page.rows_to_read(), page.after.clone());
    let pending =
        blocking(move || invitations::pending(&db, &caller, rows, after.as_ref())).await?;
    let pending = page.cut(&MY_INVITATIONS, pending, |invitation| {
        (invitation.invited_at, invitation.game.game.id.clone())
    });
    let invitations = pending
        .items
        .into_iter()
        .map(|invitation| {
            let creator = &invitation.game.game.created_by;
            let invited_by = invitation
                .game
                .seats
                .iter()
                .find(|taken| taken.account_id.as_ref() == Some(creator))
                .and_then(|taken| taken.account_name.clone())
                .map(|name| AccountRef {
                    id: creator.clone(),
                    name,
                })
                .ok_or_else(|| {
                    ApiError::Internal(format!(
                        "the creator of game {} has no seat",
                        invitation.game.game.id
                    ))
                })?;
            Ok(InvitationOut {
                game: GameSummary::of(&invitation.game, &user),
                invited_by,
                invited_at: format_time(invitation.invited_at),
                rematch_of: invitation.rematch_of,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let body = InvitationList {
        invitations,
        next: pending.next.clone(),
    };
    Ok(page_response(&http, pending.next.as_deref(), &body))
}

/// Decline your invitation to an open private game. Its creator is told (an
/// `invitation_declined` notification); the game no longer admits you nor lists for you.
#[utoipa::path(post, path = "/v1/games/{id}/decline", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "The game you declined", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_invited`: no invitation of yours to this game waits for an answer", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_open`: the game started, finished or was cancelled; `already_seated`: you accepted already (leave the game instead)", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/decline")]
pub async fn decline_invitation(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let caller = user.clone();
    let now = clock.now_millis();
    let game = blocking(move || invitations::decline(&db, &id, &caller, now)).await?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&game, &user)))
}

/// Where an invitation to a game stands.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum InvitationState {
    /// Not answered yet.
    Waiting,
    /// The invitee took a seat.
    Seated,
    /// The invitee declined.
    Declined,
}

/// One account a game invited.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GameInvitation {
    pub account: AccountRef,
    pub state: InvitationState,
    /// RFC 3339.
    #[schema(format = DateTime)]
    pub invited_at: String,
    /// RFC 3339: when the invitee declined.
    #[schema(format = DateTime)]
    pub declined_at: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameInvitationList {
    /// Oldest first; a game sends at most 12.
    pub invitations: Vec<GameInvitation>,
    /// The next page's `cursor`; `null` on the last page (and always after an invitation is
    /// sent, whose answer lists them all).
    #[schema(required = true)]
    pub next: Option<String>,
}

/// More accounts to invite to an open game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewInvitations {
    /// Account names.
    #[schema(min_items = 1, max_items = 4, example = json!(["bob"]))]
    pub invite: Vec<String>,
}

fn invitation_list(
    sent: Vec<invitations::SentInvitation>,
    next: Option<String>,
) -> GameInvitationList {
    GameInvitationList {
        next,
        invitations: sent
            .into_iter()
            .map(|invitation| GameInvitation {
                account: AccountRef {
                    id: invitation.account_id,
                    name: invitation.name,
                },
                state: match invitation.status {
                    invitations::InvitationStatus::Waiting => InvitationState::Waiting,
                    invitations::InvitationStatus::Seated => InvitationState::Seated,
                    invitations::InvitationStatus::Declined => InvitationState::Declined,
                },
                invited_at: format_time(invitation.invited_at),
                declined_at: invitation.declined_at.map(format_time),
            })
            .collect(),
    }
}

/// Whom a game invited, and where each invitation stands (waiting, seated, declined): for
/// the game's players, so that a creator whose invitee declined sees it and can invite
/// someone else.
#[utoipa::path(get, path = "/v1/games/{id}/invitations", tag = "games",
    params(("id" = String, Path, description = "Game id"), PageQuery),
    responses(
        (status = 200, body = GameInvitationList),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: only the game's players see its invitations", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, `cursor_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/invitations", method = "GET", method = "HEAD")]
pub async fn game_invitations(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<PageQuery>,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let page: PageRequest<(i64, String)> =
        GAME_INVITATIONS.request(query.cursor.as_deref(), query.limit)?;
    let sent = blocking(move || invitations::of_game(&db, &id, &user)).await?;
    // The list's order: when they were invited, then by name (names are unique).
    let sent = page.page_of(&GAME_INVITATIONS, sent, |invitation| {
        (invitation.invited_at, invitation.name.clone())
    });
    let body = invitation_list(sent.items, sent.next.clone());
    Ok(page_response(&http, sent.next.as_deref(), &body))
}

/// Invite more accounts to your open unlisted or private game, say in the place of one who
/// declined: each is sent an `invitation` notification. An account already invited and
/// waiting stays invited (nothing is sent again); one that declined this game is not asked
/// again. A game has at most 4 invitations waiting and 12 in all; invitations reach an
/// invitee at the same rates as at creation.
#[utoipa::path(post, path = "/v1/games/{id}/invitations", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    request_body = NewInvitations,
    responses(
        (status = 200, description = "The game's invitations now", body = GameInvitationList),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_the_creator`: only the game's creator invites; `blocked`: an invited account blocks you, or you block it", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`; `account_not_found`: an invited name is no account", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_open`: the game started or ended; `invitation_declined`: that account declined this game; `invitation_quota`: the game has as many invitations as allowed", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_invitations`: the game is public (anyone may join), or you invited yourself", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many invitations from you to one invitee (5 an hour) or to one invitee from everyone (30 an hour); with `Retry-After`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/invitations")]
pub async fn invite_to_game(
    db: web::Data<Db>,
    limits: web::Data<RateLimits>,
    clock: web::Data<Clock>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<NewInvitations>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let names = body.into_inner().invite;
    if names.is_empty() || names.len() > 4 {
        return Err(ApiError::unprocessable(
            "invalid_invitations",
            "invite 1 to 4 accounts at a time",
        ));
    }
    take_invitation_allowances(&limits, &db, &user.account_id, &names).await?;
    let now = clock.now_millis();
    let sent = blocking(move || invitations::invite_more(&db, &id, &user, &names, now)).await?;
    Ok(HttpResponse::Ok().json(invitation_list(sent, None)))
}

/// Play a finished or abandoned game again: a new private game of the same kind, seat
/// count, options and time control under today's rules version, with you in your old seat,
/// the bots seated at the start in theirs, and every other player who sat at the table
/// invited (an `invitation` notification with `rematch_of`). A game has one rematch:
/// whoever asks after it exists gets that game (200) and joins it like any invitee.
#[utoipa::path(post, path = "/v1/games/{id}/rematch", tag = "games",
    params(("id" = String, Path, description = "The finished or abandoned game")),
    responses(
        (status = 201, description = "The rematch, created now; `Location` names it", body = GameSummary),
        (status = 200, description = "The rematch another player asked for first", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: you did not sit at this game's table", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_over`: the game is open, running or cancelled; `open_games_quota`: you have too many open games waiting for players", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_options`: today's rules no longer accept the game's options", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many new games from this account (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/rematch")]
pub async fn ask_for_rematch(
    db: web::Data<Db>,
    limits: web::Data<RateLimits>,
    clock: web::Data<Clock>,
    seeds: web::Data<Seeds>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    limits
        .game_creation_per_account
        .take(&db, &user.account_id)
        .await?;
    let quota = limits.open_games_per_account;
    let caller = user.clone();
    let now = clock.now_millis();
    let seed = seeds.next_seed();
    let rematch = blocking(move || rematches::rematch(&db, &id, &caller, quota, now, seed)).await?;
    let summary = GameSummary::of(&rematch.game, &user);
    Ok(if rematch.created {
        HttpResponse::Created()
            .insert_header((
                actix_web::http::header::LOCATION,
                format!("/v1/games/{}", summary.id),
            ))
            .json(summary)
    } else {
        HttpResponse::Ok().json(summary)
    })
}

/// The game that plays this one again, once a player asked for a rematch.
#[utoipa::path(get, path = "/v1/games/{id}/rematch", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "The rematch", body = GameSummary),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`; `no_rematch`: nobody asked for one yet", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/rematch", method = "GET", method = "HEAD")]
pub async fn get_rematch(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let caller = user.clone();
    let rematch = blocking(move || rematches::find_rematch(&db, &id, &caller))
        .await?
        .ok_or_else(|| {
            ApiError::not_found(
                "no_rematch",
                "nobody asked for a rematch of this game yet: POST to this path asks for one",
            )
        })?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&rematch, &user)))
}
