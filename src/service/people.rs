//! The people at a game as lists and pages show them: each player's rating in the game's
//! kind now, and what a finished rated game did to it. Read for a page of games at once,
//! only for the answers that show them (not on the way of a move).

use std::collections::HashMap;

use super::LoadedGame;
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
pub fn with_people(conn: &mut DbConnection, game: LoadedGame) -> Result<LoadedGame, StoreError> {
    let mut game = game;
    add_people(conn, [&mut game])?;
    Ok(game)
}

impl LoadedGame {
    /// The game's name for people: its title, or its kind and who sits at it.
    pub fn display_name(&self) -> String {
        if let Some(title) = &self.game.title {
            return title.clone();
        }
        let kind = self.rules.name();
        let players: Vec<String> = self
            .seats
            .iter()
            .filter_map(|seat| match (&seat.account_name, seat.bot) {
                (Some(name), _) => Some(name.clone()),
                (None, Some(_)) => Some("a bot".to_owned()),
                (None, None) => None,
            })
            .collect();
        match players.as_slice() {
            [] => format!("{kind}, open game"),
            [creator] => format!("{kind}, open game by {creator}"),
            [first @ .., last] => format!("{kind}: {} and {last}", first.join(", ")),
        }
    }
}
