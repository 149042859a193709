//! The people at a game as lists and pages show them: each player's rating in the game's
//! kind now, and what a finished rated game did to it. Read for a page of games at once,
//! only for the answers that show them (not on the way of a move).

use std::collections::HashMap;

use super::LoadedGame;
use crate::error::ApiError;
use crate::ratings::Rating;
use crate::store::ratings::LEADERBOARD_MIN_GAMES;
use crate::store::{profiles, ratings, DbConnection, GameStatus, StoreError};

/// A player's rating in one kind, with the rated games it counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KindRating {
    pub rating: Rating,
    pub games: i32,
}

impl KindRating {
    /// Fewer rated games than a leaderboard needs: the number is still a guess.
    pub fn provisional(self) -> bool {
        self.games < LEADERBOARD_MIN_GAMES
    }
}

/// What a finished rated game did to one player's rating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameRatingChange {
    pub before: f64,
    pub after: f64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct People {
    /// By account id: the rating in the game's kind, for those who have one.
    pub ratings: HashMap<String, KindRating>,
    /// By account id: what the game did, once it finished rated.
    pub changes: HashMap<String, GameRatingChange>,
}

/// Reads [`People`] for every game given, in two statements whatever their number.
pub fn add_people<'a>(
    conn: &mut DbConnection,
    games: impl IntoIterator<Item = &'a mut LoadedGame>,
) -> Result<(), StoreError> {
    let mut games: Vec<&mut LoadedGame> = games.into_iter().collect();
    let mut accounts: Vec<String> = games
        .iter()
        .flat_map(|game| game.seats.iter().filter_map(|seat| seat.account_id.clone()))
        .collect();
    accounts.sort();
    accounts.dedup();
    let current = ratings::current_ratings_of(conn, &accounts)?;
    let finished: Vec<String> = games
        .iter()
        .filter(|game| game.game.status == GameStatus::Finished && game.game.settings.rated)
        .map(|game| game.game.id.clone())
        .collect();
    let changes = profiles::rating_changes_of_games(conn, &finished)?;
    for game in games.iter_mut() {
        let seated: Vec<&str> = game
            .seats
            .iter()
            .filter_map(|seat| seat.account_id.as_deref())
            .collect();
        game.people = People {
            ratings: current
                .iter()
                .filter(|(account, kind, _, _)| {
                    *kind == game.game.kind && seated.contains(&account.as_str())
                })
                .map(|(account, _, rating, games)| {
                    (
                        account.clone(),
                        KindRating {
                            rating: *rating,
                            games: *games,
                        },
                    )
                })
                .collect(),
            changes: changes
                .iter()
                .filter(|(game_id, _, _, _)| *game_id == game.game.id)
                .map(|(_, account, before, after)| {
                    (
                        account.clone(),
                        GameRatingChange {
                            before: *before,
                            after: *after,
                        },
                    )
                })
                .collect(),
        };
    }
    Ok(())
}

/// One game with its [`People`].
pub fn with_people(
    conn: &mut DbConnection,
    mut game: LoadedGame,
) -> Result<LoadedGame, StoreError> {
    add_people(conn, [&mut game])?;
    Ok(game)
}

impl LoadedGame {
    /// Who sits at the game, in seat order: names, and "a bot" for a bot seated at creation.
    fn sitting(&self) -> Vec<String> {
        self.seats
            .iter()
            .filter_map(|seat| match (&seat.account_name, seat.bot) {
                (Some(name), _) => Some(name.clone()),
                (None, Some(_)) => Some("a bot".to_owned()),
                (None, None) => None,
            })
            .collect()
    }

    /// The game's name for people: its title, or its kind and who sits at it.
    pub fn display_name(&self) -> String {
        if let Some(title) = &self.game.title {
            return title.clone();
        }
        let kind = self.rules.name();
        match self.sitting().as_slice() {
            [] => format!("{kind}, open game"),
            [creator] => format!("{kind}, open game by {creator}"),
            [first @ .., last] => format!("{kind}: {} and {last}", first.join(", ")),
        }
    }

    /// The game's name inside a sentence of a push or a mail ("Your turn in ..."): its
    /// title with its kind, its kind with its players, or while it waits for players "a
    /// game of" its kind.
    pub fn spoken_name(&self) -> String {
        let kind = self.rules.name();
        if let Some(title) = &self.game.title {
            return format!("\u{201c}{title}\u{201d} ({kind})");
        }
        match self.sitting().as_slice() {
            [first @ .., last] if !first.is_empty() && self.game.status != GameStatus::Open => {
                format!("{kind} with {} and {last}", first.join(", "))
            }
            _ => format!("a game of {kind}"),
        }
    }
}

/// The spoken names of these games (see [`LoadedGame::spoken_name`]), by id; ids of no game
/// are left out.
pub fn spoken_names(
    conn: &mut DbConnection,
    ids: &[&str],
) -> Result<HashMap<String, String>, ApiError> {
    let mut names = HashMap::new();
    for id in ids {
        if id.is_empty() || names.contains_key(*id) {
            continue;
        }
        if let Some((game, seats)) = crate::store::find_game_with_seats(conn, id)? {
            names.insert(
                (*id).to_owned(),
                LoadedGame::with_seats(game, seats)?.spoken_name(),
            );
        }
    }
    Ok(names)
}

/// A notification's payload (JSON text) with its game's spoken name added as `game_name`,
/// which the words of a push or a mail use; as it was when it is no JSON object.
pub fn with_game_name(payload: &str, name: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(payload) {
        Ok(serde_json::Value::Object(mut fields)) => {
            fields.insert("game_name".to_owned(), name.into());
            serde_json::Value::Object(fields).to_string()
        }
        _ => payload.to_owned(),
    }
}

/// Gives each payload of `items` (a game id and its payload) its game's spoken name: the
/// words of the pushes and mails about to be sent. A name that cannot be read leaves the
/// payload as it is (the words then name the game by its kind and id).
pub fn name_games_in<'a>(
    db: &crate::store::Db,
    items: impl IntoIterator<Item = (&'a str, &'a mut String)>,
) {
    let items: Vec<(&str, &mut String)> = items.into_iter().collect();
    let ids: Vec<&str> = items.iter().map(|(id, _)| *id).collect();
    let names = match db.read(|conn| spoken_names(conn, &ids)) {
        Ok(names) => names,
        Err(error) => {
            tracing::warn!(%error, "could not read the names of games to notify about");
            return;
        }
    };
    for (id, payload) in items {
        if let Some(name) = names.get(id) {
            *payload = with_game_name(payload, name);
        }
    }
}
