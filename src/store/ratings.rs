//! Ratings as stored: each account's rating per kind, what each rated game changed, and the
//! order rated games were counted in. A rated game changes its players' ratings in the
//! transaction that finishes it, one game at a time (the counter's row lock), so replaying
//! the finished rated games in their recorded order ([`rebuild`]) gives the same numbers.

use diesel::prelude::*;

use super::schema::{
    accounts, game_settings, games, rating_changes, rating_counter, ratings, seats,
};
use super::{on_backend, DbConnection, GameStatus, StoreError};
use crate::games::server_events::Standing;
use crate::ratings::{after_game, Rating};

/// An account's current rating in one kind.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRating {
    pub account_id: String,
    pub name: String,
    pub kind: String,
    pub rating: Rating,
    pub games: i32,
    pub updated_at: i64,
}

/// What one rated game did to one player's rating.
#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct RatingChange {
    pub game_id: String,
    pub kind: String,
    pub seat: i32,
    pub place: i32,
    pub rating_before: f64,
    pub uncertainty_before: f64,
    pub rating_after: f64,
    pub uncertainty_after: f64,
    pub created_at: i64,
}

/// The persons who sat down at a game (bots seated at creation have no account and are
/// kept out), by seat.
fn persons(conn: &mut DbConnection, game_id: &str) -> Result<Vec<(i32, String)>, StoreError> {
    let rows: Vec<(i32, Option<String>)> = seats::table
        .filter(seats::game_id.eq(game_id))
        .filter(seats::account_id.is_not_null())
        .order(seats::seat.asc())
        .select((seats::seat, seats::account_id))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|(seat, account)| Some((seat, account?)))
        .collect())
}

/// Counts a game that just finished for its players' ratings, when it is rated and at least
/// two persons played it; in the finishing transaction.
pub fn rate_finished_game(
    conn: &mut DbConnection,
    game_id: &str,
    kind: &str,
    standing: &Standing,
    now: i64,
) -> Result<(), StoreError> {
    if !super::settings::of(conn, game_id)?.rated {
        return Ok(());
    }
    let players = persons(conn, game_id)?;
    if players.len() < 2 {
        return Ok(());
    }
    // Locks the counter's row until the commit: rating changes happen one game at a time.
    let next = diesel::update(rating_counter::table.find(1))
        .set(rating_counter::last.eq(rating_counter::last + 1))
        .returning(rating_counter::last);
    let order: i64 = on_backend!(&mut *conn, |c| next.get_result(c))?;
    diesel::update(game_settings::table.find(game_id))
        .set(game_settings::rating_order.eq(order))
        .execute(conn)?;
    apply(conn, game_id, kind, &players, &standing.places, order, now)
}

/// Changes the ratings of `players` (seat, account) by their places in the game.
fn apply(
    conn: &mut DbConnection,
    game_id: &str,
    kind: &str,
    players: &[(i32, String)],
    places: &[u8],
    order: i64,
    now: i64,
) -> Result<(), StoreError> {
    let mut before = Vec::with_capacity(players.len());
    for (seat, account_id) in players {
        let stored: Option<(f64, f64, i32)> = ratings::table
            .find((account_id, kind))
            .select((ratings::rating, ratings::uncertainty, ratings::games))
            .first(conn)
            .optional()?;
        let place = usize::try_from(*seat)
            .ok()
            .and_then(|seat| places.get(seat))
            .copied()
            .ok_or_else(|| {
                StoreError::Corrupt(format!("game {game_id}: no place for seat {seat}"))
            })?;
        let (rating, games) =
            stored.map_or((Rating::initial(), 0), |(rating, uncertainty, games)| {
                (
                    Rating {
                        rating,
                        uncertainty,
                    },
                    games,
                )
            });
        before.push((rating, place, games));
    }
    let after = after_game(
        &before
            .iter()
            .map(|(rating, place, _)| (*rating, *place))
            .collect::<Vec<_>>(),
    );
    for (((seat, account_id), (old, place, games)), new) in players.iter().zip(&before).zip(after) {
        let exists = *games > 0;
        if exists {
            diesel::update(ratings::table.find((account_id, kind)))
                .set((
                    ratings::rating.eq(new.rating),
                    ratings::uncertainty.eq(new.uncertainty),
                    ratings::conservative.eq(new.conservative()),
                    ratings::games.eq(games + 1),
                    ratings::updated_at.eq(now),
                ))
                .execute(conn)?;
        } else {
            diesel::insert_into(ratings::table)
                .values((
                    ratings::account_id.eq(account_id),
                    ratings::kind.eq(kind),
                    ratings::rating.eq(new.rating),
                    ratings::uncertainty.eq(new.uncertainty),
                    ratings::conservative.eq(new.conservative()),
                    ratings::games.eq(1),
                    ratings::updated_at.eq(now),
                ))
                .execute(conn)?;
        }
        diesel::insert_into(rating_changes::table)
            .values((
                rating_changes::game_id.eq(game_id),
                rating_changes::account_id.eq(account_id),
                rating_changes::kind.eq(kind),
                rating_changes::seat.eq(seat),
                rating_changes::place.eq(i32::from(*place)),
                rating_changes::rating_before.eq(old.rating),
                rating_changes::uncertainty_before.eq(old.uncertainty),
                rating_changes::rating_after.eq(new.rating),
                rating_changes::uncertainty_after.eq(new.uncertainty),
                rating_changes::rating_order.eq(order),
                rating_changes::created_at.eq(now),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Forgets every rating and counts every finished rated game again, in the order they were
/// counted; returns how many games it counted.
pub fn rebuild(conn: &mut DbConnection) -> Result<usize, StoreError> {
    diesel::delete(rating_changes::table).execute(conn)?;
    diesel::delete(ratings::table).execute(conn)?;
    let rated: Vec<(String, String, Option<String>, i64, i64)> = game_settings::table
        .inner_join(games::table)
        .filter(game_settings::rating_order.is_not_null())
        .filter(games::status.eq(GameStatus::Finished.as_str()))
        .order(game_settings::rating_order.asc())
        .select((
            games::id,
            games::kind,
            games::outcome,
            game_settings::rating_order.assume_not_null(),
            games::updated_at,
        ))
        .load(conn)?;
    for (game_id, kind, outcome, order, finished_at) in &rated {
        let standing: Standing = outcome
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(|error| StoreError::Corrupt(format!("game {game_id}: outcome: {error}")))?
            .ok_or_else(|| StoreError::Corrupt(format!("game {game_id}: rated without outcome")))?;
        let players = persons(conn, game_id)?;
        apply(
            conn,
            game_id,
            kind,
            &players,
            &standing.places,
            *order,
            *finished_at,
        )?;
    }
    Ok(rated.len())
}

/// The kind's players, best first by their conservative rating (ties: more games first,
/// then name); a page of them.
pub fn leaderboard(
    conn: &mut DbConnection,
    kind: &str,
    limit: i64,
    offset: i64,
) -> Result<Vec<StoredRating>, StoreError> {
    let rows: Vec<(String, String, f64, f64, i32, i64)> = ratings::table
        .inner_join(accounts::table)
        .filter(ratings::kind.eq(kind))
        .order((
            ratings::conservative.desc(),
            ratings::games.desc(),
            accounts::name_key.asc(),
        ))
        .limit(limit)
        .offset(offset)
        .select((
            ratings::account_id,
            accounts::name,
            ratings::rating,
            ratings::uncertainty,
            ratings::games,
            ratings::updated_at,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(
            |(account_id, name, rating, uncertainty, games, updated_at)| StoredRating {
                account_id,
                name,
                kind: kind.to_owned(),
                rating: Rating {
                    rating,
                    uncertainty,
                },
                games,
                updated_at,
            },
        )
        .collect())
}

/// The account's ratings, by kind.
pub fn ratings_of(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<Vec<StoredRating>, StoreError> {
    let rows: Vec<(String, String, f64, f64, i32, i64)> = ratings::table
        .inner_join(accounts::table)
        .filter(ratings::account_id.eq(account_id))
        .order(ratings::kind.asc())
        .select((
            ratings::kind,
            accounts::name,
            ratings::rating,
            ratings::uncertainty,
            ratings::games,
            ratings::updated_at,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(
            |(kind, name, rating, uncertainty, games, updated_at)| StoredRating {
                account_id: account_id.to_owned(),
                name,
                kind,
                rating: Rating {
                    rating,
                    uncertainty,
                },
                games,
                updated_at,
            },
        )
        .collect())
}

/// What the account's rated games did to its ratings, newest first, at most `limit`.
pub fn changes_of(
    conn: &mut DbConnection,
    account_id: &str,
    limit: i64,
) -> Result<Vec<RatingChange>, StoreError> {
    Ok(rating_changes::table
        .filter(rating_changes::account_id.eq(account_id))
        .order(rating_changes::rating_order.desc())
        .limit(limit)
        .select((
            rating_changes::game_id,
            rating_changes::kind,
            rating_changes::seat,
            rating_changes::place,
            rating_changes::rating_before,
            rating_changes::uncertainty_before,
            rating_changes::rating_after,
            rating_changes::uncertainty_after,
            rating_changes::created_at,
        ))
        .load(conn)?)
}
