//! Invitations to private games as their invitees meet them (notified, listed, accepted by
//! taking a seat, declined) and rematches: a finished game played again by the same seats.

use super::lobby::{self, Creation, NewGame};
use super::notices::{notify_account, Notice};
use super::{random_id, GameStatus, LoadedGame, Visibility};
use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::games::engine::Seat;
use crate::store::{self, Db, DbConnection, Game, PendingInvitation};

/// The most pending invitations one answer lists.
pub const MOST_LISTED: i64 = 100;

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

/// The caller's invitations still waiting for an answer: open games they are invited to,
/// have not declined and do not sit in yet. Newest first, at most [`MOST_LISTED`].
pub fn pending(db: &Db, user: &AuthUser) -> Result<Vec<Invitation>, ApiError> {
    db.read(|conn| {
        let pending = store::pending_invitations(conn, &user.account_id, MOST_LISTED)?;
        let ids: Vec<String> = pending.iter().map(|found| found.game.id.clone()).collect();
        let originals = store::rematched_games(conn, &ids)?;
        pending
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
            .collect()
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
        LoadedGame::load(conn, game_id)
    })
}

/// A rematch asked for: the new game, and whether this request created it (a rematch that
/// another player asked for first is returned as it stands).
pub struct Rematch {
    pub game: LoadedGame,
    pub created: bool,
}

/// Plays a finished or abandoned game again: a new private game of the same kind, options,
/// seat count and time control under today's rules, with the caller in their old seat, the
/// bots that were seated at the start in theirs, and every other person who sat at the
/// table invited. One rematch per game: whoever asks after the first gets that one.
pub fn rematch(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    open_games_quota: u32,
    now: i64,
    seed: [u8; 32],
) -> Result<Rematch, ApiError> {
    db.write(|conn| {
        let old = LoadedGame::load_for(conn, game_id, user)?;
        let seat = old.seat_of(user).ok_or_else(|| {
            ApiError::forbidden(
                "not_a_player",
                "only a player who sat at the table can ask for a rematch",
            )
        })?;
        if !old.game.status.is_over() {
            return Err(ApiError::conflict(
                "game_not_over",
                format!(
                    "game {game_id} is {}: a rematch is for a finished or abandoned game",
                    old.game.status.as_str()
                ),
            ));
        }
        // Held until the commit: a rematch asked for at the same time on any instance
        // waits here, then finds this one.
        store::lock_game(conn, game_id)?;
        if let Some(existing) = store::rematch_of(conn, game_id)? {
            return Ok(Rematch {
                game: LoadedGame::load(conn, &existing)?,
                created: false,
            });
        }
        let request = NewGame {
            kind: old.game.kind.clone(),
            seats: old.game.seat_count,
            options: old.game.options.clone(),
            creator_seat: Some(seat),
            time_control: old.game.time_control,
            bots: old
                .seats
                .iter()
                .filter(|taken| taken.account_id.is_none())
                .filter_map(|taken| Some((taken.seat, taken.bot?)))
                .collect(),
            // Only the old table is invited, so the rematch cannot be public (anyone could take
            // a seat); a public game's rematch is unlisted, watched by link as before.
            visibility: match old.game.visibility {
                Visibility::Public => Visibility::Unlisted,
                kept => kept,
            },
            invite: old
                .seats
                .iter()
                .filter(|taken| taken.account_id.as_deref() != Some(user.account_id.as_str()))
                .filter_map(|taken| taken.account_name.clone())
                .collect(),
            spectator_chat: old.game.settings.spectators_may_write,
            rated: old.game.settings.rated,
        };
        let creation = Creation {
            id: random_id(10),
            open_games: open_games_quota,
            now,
            seed,
        };
        let game =
            lobby::insert_new_game(conn, user, &request, &creation, Some(game_id.to_owned()))?;
        Ok(Rematch {
            game,
            created: true,
        })
    })
}

/// The game that plays `game_id` again, if anyone asked for one that `user` may see (404
/// `game_not_found` when `game_id` is no game `user` may see).
pub fn find_rematch(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
) -> Result<Option<LoadedGame>, ApiError> {
    db.read(|conn| {
        LoadedGame::load_for(conn, game_id, user)?;
        let Some(rematch) = store::rematch_of(conn, game_id)? else {
            return Ok(None);
        };
        let rematch = LoadedGame::load(conn, &rematch)?;
        Ok(rematch.visible_to(conn, user)?.then_some(rematch))
    })
}
