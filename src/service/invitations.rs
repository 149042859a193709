//! Invitations to private games as their invitees meet them (notified, listed, accepted by
//! taking a seat, declined). A rematch invites its players too (see `super::rematches`).

use super::notices::{notify_account, Notice};
use super::{GameStatus, LoadedGame, Visibility};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::engine::Seat;
use crate::store::{self, Db, DbConnection, Game, PendingInvitation};

/// Tells each newly invited account of its invitation.
pub(super) fn notify_invited(
    conn: &mut DbConnection,
    game: &Game,
    invited: &[String],
    creator: &AuthUser,
    rematch_of: Option<&str>,
    now: i64,
) -> Result<(), ApiError> {
    let notice = Notice {
        kind: "invitation",
        by: Some(creator),
        rematch_of,
        ..Notice::default()
    };
    for account_id in invited {
        notify_account(conn, account_id, game, &notice, now)?;
    }
    Ok(())
}

/// Tells the creator of a private game that `invitee` took a seat.
pub(super) fn notify_accepted(
    conn: &mut DbConnection,
    game: &LoadedGame,
    invitee: &AuthUser,
    now: i64,
) -> Result<(), ApiError> {
    let notice = Notice {
        kind: "invitation_accepted",
        seat: creator_seat(game),
        by: Some(invitee),
        ..Notice::default()
    };
    notify_account(conn, &game.game.created_by, &game.game, &notice, now)
}

fn creator_seat(game: &LoadedGame) -> Option<Seat> {
    game.seats
        .iter()
        .find(|taken| taken.account_id.as_deref() == Some(game.game.created_by.as_str()))
        .map(|taken| taken.seat)
}

/// An invitation waiting for its invitee's answer.
pub struct Invitation {
    pub game: LoadedGame,
    pub invited_at: i64,
    /// The game the invitation's game plays again, when it is a rematch.
    pub rematch_of: Option<String>,
}

/// The account an invitation names, or 404 `account_not_found`.
pub(super) fn invitee_by_name(
    conn: &mut DbConnection,
    name: &str,
) -> Result<store::Account, ApiError> {
    let not_found = || {
        ApiError::not_found(
            "account_not_found",
            format!("there is no account named {name:?} to invite"),
        )
    };
    // A name no account could have (a NUL byte among them) is not looked up.
    if !super::account_names::is_valid_name(name) {
        return Err(not_found());
    }
    store::find_account_by_name(conn, name)?.ok_or_else(not_found)
}

/// The most invitations a game's creator may have waiting at once, and send in all.
pub const MOST_WAITING_PER_GAME: usize = 4;
pub const MOST_SENT_PER_GAME: usize = 12;

/// Where an invitation stands, as the game's players see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvitationStatus {
    /// Neither accepted nor declined yet.
    Waiting,
    /// The invitee took a seat.
    Seated,
    /// The invitee said no.
    Declined,
}

/// One invitation of a game.
#[derive(Debug, Clone)]
pub struct SentInvitation {
    pub account_id: String,
    pub name: String,
    pub invited_at: i64,
    pub declined_at: Option<i64>,
    pub status: InvitationStatus,
}

fn sent_invitations(
    conn: &mut DbConnection,
    game: &LoadedGame,
) -> Result<Vec<SentInvitation>, ApiError> {
    Ok(store::sent_invitations(conn, &game.game.id)?
        .into_iter()
        .map(|(account_id, name, invited_at, declined_at)| {
            let seated = game
                .seats
                .iter()
                .any(|taken| taken.account_id.as_deref() == Some(account_id.as_str()));
            let status = match (seated, declined_at) {
                (true, _) => InvitationStatus::Seated,
                (false, Some(_)) => InvitationStatus::Declined,
                (false, None) => InvitationStatus::Waiting,
            };
            SentInvitation {
                account_id,
                name,
                invited_at,
                declined_at,
                status,
            }
        })
        .collect())
}

fn require_seated(game: &LoadedGame, user: &AuthUser) -> Result<(), ApiError> {
    if game.seat_of(user).is_none() {
        return Err(ApiError::forbidden(
            "not_a_player",
            "only the game's players see whom it invited",
        ));
    }
    Ok(())
}

/// The invitations of a game, for its players: who was invited, who declined, who sat down.
pub fn of_game(db: &Db, game_id: &str, user: &AuthUser) -> Result<Vec<SentInvitation>, ApiError> {
    db.read(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        require_seated(&game, user)?;
        sent_invitations(conn, &game)
    })
}

/// The creator of an open game that admits only the invited invites more accounts (say,
/// in the place of one who declined). An account invited and waiting stays invited; one
/// that declined this game is not asked again. Each newly invited account is notified.
pub fn invite_more(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    names: &[String],
    now: i64,
) -> Result<Vec<SentInvitation>, ApiError> {
    db.write(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        if game.game.created_by != user.account_id {
            return Err(ApiError::forbidden(
                "not_the_creator",
                "only the game's creator invites to it",
            ));
        }
        if game.game.status != GameStatus::Open {
            return Err(ApiError::conflict(
                "game_not_open",
                format!(
                    "game {game_id} is {}: only an open game takes invitations",
                    game.game.status.as_str()
                ),
            ));
        }
        if game.game.visibility == Visibility::Public {
            return Err(ApiError::unprocessable(
                "invalid_invitations",
                "anyone may join a public game: invitations are for unlisted and private ones",
            ));
        }
        let sent = sent_invitations(conn, &game)?;
        let mut newly = Vec::new();
        for name in names {
            let account = invitee_by_name(conn, name)?;
            if account.id == user.account_id {
                return Err(ApiError::unprocessable(
                    "invalid_invitations",
                    "you sit in this game already: invite others",
                ));
            }
            super::blocks::check_invitable(conn, &user.account_id, &account.id, &account.name)?;
            match sent.iter().find(|invitation| invitation.account_id == account.id) {
                Some(invitation) if invitation.status == InvitationStatus::Declined => {
                    return Err(ApiError::conflict(
                        "invitation_declined",
                        format!("{} declined this game's invitation", account.name),
                    ));
                }
                Some(_) => {}
                None if game
                    .seats
                    .iter()
                    .any(|taken| taken.account_id.as_deref() == Some(account.id.as_str())) => {}
                None if !newly.contains(&account.id) => newly.push(account.id),
                None => {}
            }
        }
        let waiting = sent
            .iter()
            .filter(|invitation| invitation.status == InvitationStatus::Waiting)
            .count();
        if waiting + newly.len() > MOST_WAITING_PER_GAME
            || sent.len() + newly.len() > MOST_SENT_PER_GAME
        {
            return Err(ApiError::conflict(
                "invitation_quota",
                format!(
                    "a game has at most {MOST_WAITING_PER_GAME} invitations waiting for an                      answer and {MOST_SENT_PER_GAME} in all"
                ),
            ));
        }
        let invited = store::invite(conn, game_id, &newly, now)?;
        notify_invited(conn, &game.game, &invited, user, None, now)?;
        let game = LoadedGame::load(conn, game_id)?;
        sent_invitations(conn, &game)
    })
}

/// The caller's invitations still waiting for an answer: open games they are invited to,
/// have not declined and do not sit in yet. Newest first: at most `limit`, after `after`
/// (an invitation's time and game id).
pub fn pending(
    db: &Db,
    user: &AuthUser,
    limit: i64,
    after: Option<&(i64, String)>,
) -> Result<Vec<Invitation>, ApiError> {
    db.read(|conn| {
        let pending = store::pending_invitations(conn, &user.account_id, limit, after)?;
        let ids: Vec<String> = pending.iter().map(|found| found.game.id.clone()).collect();
        let originals = store::rematched_games(conn, &ids)?;
        let mut invitations = pending
            .into_iter()
            .map(
                |PendingInvitation {
                     game,
                     seats,
                     invited_at,
                 }| {
                    let rematch_of = originals
                        .iter()
                        .find(|(rematch, _)| *rematch == game.id)
                        .map(|(_, original)| original.clone());
                    Ok(Invitation {
                        game: LoadedGame::with_seats(game, seats)?,
                        invited_at,
                        rematch_of,
                    })
                },
            )
            .collect::<Result<Vec<Invitation>, ApiError>>()?;
        super::people::add_people(conn, invitations.iter_mut().map(|found| &mut found.game))?;
        Ok(invitations)
    })
}

/// The caller declines their invitation to an open private game; its creator is told. The
/// game then no longer admits them nor shows to them in the lobby.
pub fn decline(db: &Db, game_id: &str, user: &AuthUser, now: i64) -> Result<LoadedGame, ApiError> {
    db.write(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        if game.seat_of(user).is_some() {
            return Err(ApiError::conflict(
                "already_seated",
                "you took a seat in this game: leave it instead (POST /v1/games/{id}/leave)",
            ));
        }
        if game.game.status != GameStatus::Open {
            return Err(ApiError::conflict(
                "game_not_open",
                format!(
                    "game {game_id} is {}: there is no invitation left to answer",
                    game.game.status.as_str()
                ),
            ));
        }
        if !store::decline_invitation(conn, game_id, &user.account_id, now)? {
            return Err(ApiError::forbidden(
                "not_invited",
                "you have no invitation to this game waiting for an answer",
            ));
        }
        let notice = Notice {
            kind: "invitation_declined",
            seat: creator_seat(&game),
            by: Some(user),
            ..Notice::default()
        };
        notify_account(conn, &game.game.created_by, &game.game, &notice, now)?;
        LoadedGame::load_shown(conn, game_id)
    })
}
