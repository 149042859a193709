//! Invitations as the invitee meets them (listed, declined; accepted by taking a seat) and
//! rematches.

use actix_web::{get, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use super::games::game_id;
use super::models::{AccountRef, GameSummary};
use super::rate_limit::RateLimits;
use crate::auth::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::seeds::Seeds;
use crate::service::format_time;
use crate::service::invitations;
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
}

/// Your invitations waiting for an answer, newest first (at most 100): open private games
/// you are invited to, have not declined and do not sit in yet. Accept one by taking a seat
/// (`POST /v1/games/{id}/seats`), decline it with `POST /v1/games/{id}/decline`. Each
/// invitation was also sent as an `invitation` notification.
#[utoipa::path(get, path = "/v1/me/invitations", tag = "games",
    responses(
        (status = 200, body = InvitationList),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/v1/me/invitations")]
pub async fn list_invitations(db: web::Data<Db>, user: AuthUser) -> Result<HttpResponse, ApiError> {
    let caller = user.clone();
    let pending = blocking(move || invitations::pending(&db, &caller)).await?;
    let invitations = pending
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
    Ok(HttpResponse::Ok().json(InvitationList { invitations }))
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
    let rematch =
        blocking(move || invitations::rematch(&db, &id, &caller, quota, now, seed)).await?;
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
#[get("/v1/games/{id}/rematch")]
pub async fn get_rematch(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let caller = user.clone();
    let rematch = blocking(move || invitations::find_rematch(&db, &id, &caller))
        .await?
        .ok_or_else(|| {
            ApiError::not_found(
                "no_rematch",
                "nobody asked for a rematch of this game yet: POST to this path asks for one",
            )
        })?;
    Ok(HttpResponse::Ok().json(GameSummary::of(&rematch, &user)))
}
