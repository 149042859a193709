//! Rematches: a finished game played again by the same seats, created once whoever asks
//! first, with the other players invited.

use super::lobby::{self, Creation, NewGame};
use super::{random_id, LoadedGame, Visibility};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::store::{self, Db};

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
                game: LoadedGame::load_shown(conn, &existing)?,
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
            title: old.game.title.clone(),
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
        let rematch = LoadedGame::load_shown(conn, &rematch)?;
        Ok(rematch.visible_to(conn, user)?.then_some(rematch))
    })
}
