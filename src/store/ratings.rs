//! Ratings as stored: each account's rating per kind, what each rated game changed, and the
//! order rated games were counted in. A rated game changes its players' ratings in the
//! transaction that finishes it, one game at a time (the counter's row lock), so replaying
//! the finished rated games in their recorded order ([`rebuild`]) gives the same numbers.

use diesel::prelude::*;

use std::collections::HashMap;

use super::schema::{
    accounts, actions, blocks, game_settings, games, rating_changes, rating_counter, ratings, seats,
};
use super::{on_backend, DbConnection, GameStatus, StoreError};
use crate::games::server_events::{ServerEvent, Standing};
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
    /// The game is not public: the change names it to the account itself only.
    pub private: bool,
    /// Where the game stands in the order rated games were counted in.
    pub rating_order: i64,
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

/// Rated games that two accounts finish together within 24 hours and that count: a further
/// one in the same 24 hours counts for none of its players.
pub const PAIR_GAMES_PER_DAY: i64 = 3;
/// Accounts with fewer rated games of a kind are not on its leaderboard (yet).
pub const LEADERBOARD_MIN_GAMES: i32 = 5;
const DAY_MS: i64 = 24 * 60 * 60 * 1_000;

/// Whether a finished rated game with these persons (seat, account) counts for their
/// ratings: two persons or more, each of whom played the game (see
/// `Engine::RATED_AFTER_ACTIONS`), and no two of whom finished [`PAIR_GAMES_PER_DAY`]
/// counted games together in the 24 hours before `finished_at`.
fn counts(
    conn: &mut DbConnection,
    game_id: &str,
    kind: &str,
    players: &[(i32, String)],
    finished_at: i64,
) -> Result<bool, StoreError> {
    if players.len() < 2 {
        return Ok(false);
    }
    let needed = crate::games::find_game_rules(kind)
        .map(|rules| i64::from(rules.rated_after_actions()))
        .ok_or_else(|| StoreError::Corrupt(format!("game {game_id}: unknown kind {kind:?}")))?;
    let made = own_actions(conn, game_id)?;
    if players
        .iter()
        .any(|(seat, account)| made.get(&(*seat, account.clone())).copied().unwrap_or(0) < needed)
    {
        return Ok(false);
    }
    for (index, (_, first)) in players.iter().enumerate() {
        for (_, second) in &players[index + 1..] {
            if games_together(conn, first, second, finished_at)? >= PAIR_GAMES_PER_DAY {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The actions each (seat, account) of the game chose itself and did not take back.
fn own_actions(
    conn: &mut DbConnection,
    game_id: &str,
) -> Result<HashMap<(i32, String), i64>, StoreError> {
    let taken_back: Vec<(i64, i64)> = super::events::load_server_events(conn, game_id, i64::MAX)?
        .iter()
        .filter(|event| event.event_type == "actions_taken_back")
        .map(|event| match serde_json::from_str(&event.payload) {
            Ok(ServerEvent::ActionsTakenBack {
                from_seq, to_seq, ..
            }) => Ok((from_seq, to_seq)),
            _ => Err(StoreError::Corrupt(format!(
                "game {game_id}: take-back {} is corrupt",
                event.seq
            ))),
        })
        .collect::<Result<_, _>>()?;
    let rows: Vec<(i32, Option<String>, i64)> = actions::table
        .filter(actions::game_id.eq(game_id))
        .filter(actions::bot.is_null())
        .select((actions::seat, actions::account_id, actions::first_seq))
        .load(conn)?;
    let mut made = HashMap::new();
    for (seat, account, first_seq) in rows {
        let Some(account) = account else { continue };
        if taken_back
            .iter()
            .any(|(from, to)| (*from..=*to).contains(&first_seq))
        {
            continue;
        }
        *made.entry((seat, account)).or_default() += 1;
    }
    Ok(made)
}

/// Counted games `first` and `second` both played that finished in the 24 hours up to
/// `finished_at`.
fn games_together(
    conn: &mut DbConnection,
    first: &str,
    second: &str,
    finished_at: i64,
) -> Result<i64, StoreError> {
    let (first_games, second_games) = diesel::alias!(
        rating_changes as first_games,
        rating_changes as second_games
    );
    Ok(first_games
        .inner_join(
            second_games.on(second_games
                .field(rating_changes::game_id)
                .eq(first_games.field(rating_changes::game_id))),
        )
        .filter(first_games.field(rating_changes::account_id).eq(first))
        .filter(second_games.field(rating_changes::account_id).eq(second))
        .filter(
            first_games
                .field(rating_changes::created_at)
                .gt(finished_at - DAY_MS),
        )
        .filter(
            first_games
                .field(rating_changes::created_at)
                .le(finished_at),
        )
        .count()
        .get_result(conn)?)
}

/// Counts a game that just finished for its players' ratings when it is rated and counts
/// (see [`counts`]); in the finishing transaction, after its last action is stored.
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
    if !counts(conn, game_id, kind, &players, now)? {
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
/// counted, under today's rules of what counts: a game that no longer counts loses its
/// place in the order. Returns how many games it counted.
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
    let mut counted = 0;
    for (game_id, kind, outcome, order, finished_at) in &rated {
        let standing: Standing = outcome
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(|error| StoreError::Corrupt(format!("game {game_id}: outcome: {error}")))?
            .ok_or_else(|| StoreError::Corrupt(format!("game {game_id}: rated without outcome")))?;
        let players = persons(conn, game_id)?;
        if !counts(conn, game_id, kind, &players, *finished_at)? {
            diesel::update(game_settings::table.find(game_id))
                .set(game_settings::rating_order.eq(None::<i64>))
                .execute(conn)?;
            continue;
        }
        apply(
            conn,
            game_id,
            kind,
            &players,
            &standing.places,
            *order,
            *finished_at,
        )?;
        counted += 1;
    }
    Ok(counted)
}

/// A place on a leaderboard: after the player with this conservative rating (as its bits,
/// which survive a cursor's JSON exactly), this many games and this name key.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LeaderboardPosition {
    pub conservative_bits: u64,
    pub games: i32,
    pub name_key: String,
}

/// A leaderboard row: account id and name, rating, uncertainty, games, updated at,
/// conservative rating and name key.
type LeaderboardRow = (String, String, f64, f64, i32, i64, f64, String);

/// The kind's players with [`LEADERBOARD_MIN_GAMES`] rated games or more, best first by
/// their conservative rating (ties: more games first, then name); at most `limit` of them
/// after `after` (or skipping `offset`), each with its position, as `viewer` sees the board.
pub fn leaderboard(
    conn: &mut DbConnection,
    kind: &str,
    viewer: &str,
    limit: i64,
    offset: i64,
    after: Option<&LeaderboardPosition>,
) -> Result<Vec<(StoredRating, LeaderboardPosition)>, StoreError> {
    // Accounts the viewer blocks, or that block it, are left out, and ranks count the players
    // shown (as `rank_of` does).
    let blocked_by_viewer = blocks::table
        .filter(blocks::account_id.eq(viewer.to_owned()))
        .select(blocks::blocked_id);
    let blocking_viewer = blocks::table
        .filter(blocks::blocked_id.eq(viewer.to_owned()))
        .select(blocks::account_id);
    let mut query = ratings::table
        .inner_join(accounts::table)
        .filter(ratings::kind.eq(kind))
        .filter(ratings::games.ge(LEADERBOARD_MIN_GAMES))
        .filter(ratings::account_id.ne_all(blocked_by_viewer))
        .filter(ratings::account_id.ne_all(blocking_viewer))
        .into_boxed();
    if let Some(after) = after {
        let conservative = f64::from_bits(after.conservative_bits);
        query = query.filter(
            ratings::conservative
                .lt(conservative)
                .or(ratings::conservative.eq(conservative).and(
                    ratings::games.lt(after.games).or(ratings::games
                        .eq(after.games)
                        .and(accounts::name_key.gt(after.name_key.clone()))),
                )),
        );
    }
    let rows: Vec<LeaderboardRow> = query
        .order((
            ratings::conservative.desc(),
            ratings::games.desc(),
            accounts::name_key.asc(),
        ))
        .limit(limit)
        .offset(offset)
        .select(LEADERBOARD_COLUMNS)
        .load(conn)?;
    Ok(rows.into_iter().map(|row| board_entry(kind, row)).collect())
}

/// The columns of a [`LeaderboardRow`].
const LEADERBOARD_COLUMNS: (
    ratings::account_id,
    accounts::name,
    ratings::rating,
    ratings::uncertainty,
    ratings::games,
    ratings::updated_at,
    ratings::conservative,
    accounts::name_key,
) = (
    ratings::account_id,
    accounts::name,
    ratings::rating,
    ratings::uncertainty,
    ratings::games,
    ratings::updated_at,
    ratings::conservative,
    accounts::name_key,
);

/// A leaderboard row as a rating and its place in the board's order.
fn board_entry(kind: &str, row: LeaderboardRow) -> (StoredRating, LeaderboardPosition) {
    let (account_id, name, rating, uncertainty, games, updated_at, conservative, name_key) = row;
    (
        StoredRating {
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
        LeaderboardPosition {
            conservative_bits: conservative.to_bits(),
            games,
            name_key,
        },
    )
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

/// What the account's rated games did to its ratings, newest first, at most `limit`, from
/// before the game counted `before_order`.
pub fn changes_of(
    conn: &mut DbConnection,
    account_id: &str,
    limit: i64,
    before_order: Option<i64>,
) -> Result<Vec<RatingChange>, StoreError> {
    let mut query = rating_changes::table
        .inner_join(games::table)
        .filter(rating_changes::account_id.eq(account_id))
        .into_boxed();
    if let Some(before) = before_order {
        query = query.filter(rating_changes::rating_order.lt(before));
    }
    Ok(query
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
            games::private,
            rating_changes::rating_order,
        ))
        .load(conn)?)
}

/// The current ratings of these accounts, in every kind they have one: `(account id, kind,
/// rating, games)`.
pub fn current_ratings_of(
    conn: &mut DbConnection,
    account_ids: &[String],
) -> Result<Vec<(String, String, Rating, i32)>, StoreError> {
    if account_ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(String, String, f64, f64, i32)> = ratings::table
        .filter(ratings::account_id.eq_any(account_ids))
        .select((
            ratings::account_id,
            ratings::kind,
            ratings::rating,
            ratings::uncertainty,
            ratings::games,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(account, kind, rating, uncertainty, games)| {
            (
                account,
                kind,
                Rating {
                    rating,
                    uncertainty,
                },
                games,
            )
        })
        .collect())
}

/// The account's rating in `kind` and its rank on the kind's leaderboard as it sees the
/// board (see [`leaderboard`]): one more than the players ranked before it; `None` while it
/// has fewer rated games than the board needs.
pub fn rank_of(
    conn: &mut DbConnection,
    kind: &str,
    account_id: &str,
) -> Result<Option<(StoredRating, i64)>, StoreError> {
    let row: Option<LeaderboardRow> = ratings::table
        .inner_join(accounts::table)
        .filter(ratings::account_id.eq(account_id))
        .filter(ratings::kind.eq(kind))
        .filter(ratings::games.ge(LEADERBOARD_MIN_GAMES))
        .select(LEADERBOARD_COLUMNS)
        .first(conn)
        .optional()?;
    let Some((mine, position)) = row.map(|row| board_entry(kind, row)) else {
        return Ok(None);
    };
    // Compared as stored, not as computed again here.
    let conservative = f64::from_bits(position.conservative_bits);
    let name_key = position.name_key;
    let blocked_by_viewer = blocks::table
        .filter(blocks::account_id.eq(account_id.to_owned()))
        .select(blocks::blocked_id);
    let blocking_viewer = blocks::table
        .filter(blocks::blocked_id.eq(account_id.to_owned()))
        .select(blocks::account_id);
    let before: i64 = ratings::table
        .inner_join(accounts::table)
        .filter(ratings::kind.eq(kind))
        .filter(ratings::games.ge(LEADERBOARD_MIN_GAMES))
        .filter(ratings::account_id.ne_all(blocked_by_viewer))
        .filter(ratings::account_id.ne_all(blocking_viewer))
        .filter(
            ratings::conservative
                .gt(conservative)
                .or(ratings::conservative.eq(conservative).and(
                    ratings::games.gt(mine.games).or(ratings::games
                        .eq(mine.games)
                        .and(accounts::name_key.lt(name_key))),
                )),
        )
        .count()
        .get_result(conn)?;
    Ok(Some((mine, before + 1)))
}
