//! The requests a game is played by (its legal actions, its view, a move) answered on the
//! worker thread that took them, with the worker's own PostgreSQL connections
//! ([`crate::store::Db::find_game_with_seats_on_worker`]) and the fold cache, instead of
//! on a database thread of the pool. Each answers as [`play`]'s function of the same name
//! does, from the same code; what it cannot answer here ([`NotOnWorker::Elsewhere`]: a
//! state the fold cache does not hold, an idempotency key used before, an append the one
//! statement does not cover, no connection) the caller sends down the pool's path, which
//! answers every request.

use super::actions::{self, ActionRequest};
use super::fold_cache::FoldCache;
use super::play::{self, Accepted, ActionFilter, FromCache, LegalActions, NotOnWorker, ViewAt};
use super::LoadedGame;
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::store::Db;

/// [`play::view`] on the worker thread.
pub async fn view(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    at: Option<i64>,
) -> Result<ViewAt, NotOnWorker> {
    let game = load(db, game_id, user).await?;
    play::view_of(&game, cache, user, at, &mut FromCache(cache))
}

/// [`play::legal_actions`] on the worker thread.
pub async fn legal_actions(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    filter: &ActionFilter,
) -> Result<LegalActions, NotOnWorker> {
    let game = load(db, game_id, user).await?;
    play::legal_actions_of(&game, cache, user, filter, &mut FromCache(cache))
}

/// [`actions::act`] on the worker thread. A move whose game moved on meanwhile is left to the
/// pool's path too, which answers it with its first attempt's result or the game's seq.
pub async fn act(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    request: &ActionRequest,
    now: i64,
) -> Result<Accepted, NotOnWorker> {
    let game = load(db, game_id, user).await?;
    let seat = actions::acting_seat(&game, user, request)?;
    if let Some(key) = &request.idempotency_key {
        let first = db
            .find_action_by_key_on_worker(game_id, &user.account_id, key)
            .await?;
        if first.is_some() {
            return Err(NotOnWorker::Elsewhere);
        }
    }
    let decided =
        actions::decide_first_attempt(&mut FromCache(cache), game, seat, user, request, now)?;
    let seq = db.append_on_worker(&decided.append).await?;
    Ok(actions::accepted(cache, decided, seq)?)
}

/// The game `user` asks for, as [`LoadedGame::load_for`] reads it: an open private game's
/// invitations are left to the pool's path, which reads them.
async fn load(db: &Db, game_id: &str, user: &AuthUser) -> Result<LoadedGame, NotOnWorker> {
    let (game, seats) = db
        .find_game_with_seats_on_worker(game_id)
        .await?
        .ok_or_else(|| ApiError::game_not_found(game_id))?;
    let game = LoadedGame::with_seats(game, seats)?;
    match game.visible_without_invitations(user) {
        Some(true) => Ok(game),
        Some(false) => Err(ApiError::game_not_found(game_id).into()),
        None => Err(NotOnWorker::Elsewhere),
    }
}
