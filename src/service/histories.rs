//! Players' records and the selection of finished games for bulk export.

use std::collections::BTreeMap;

use super::account_names::find_account;
use crate::error::ApiError;
use crate::store::{self, Db, GameStatus, PlayedGame};

/// How an account has fared in one game kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindRecord {
    pub finished: u32,
    /// Finished games in which the account took first place (shared first places count).
    pub won: u32,
    pub running: u32,
    pub open: u32,
    /// Games every player agreed to abandon: no result.
    pub abandoned: u32,
}

fn won(game: &PlayedGame) -> bool {
    game.outcome
        .as_ref()
        .and_then(|outcome| outcome.places.get(usize::from(game.seat)))
        == Some(&1)
}

/// Whether `game` shows in a list of `account`'s games that `viewer` reads: an account's
/// public history holds its public games only, its own view all of them.
fn listed_for(game: &PlayedGame, account: &store::Account, viewer: &str) -> bool {
    game.public || account.id == viewer
}

/// `account`'s record by kind, in kind order, as `viewer` (an account id) sees it.
pub fn record_of(
    conn: &mut store::DbConnection,
    account: &store::Account,
    viewer: &str,
) -> Result<BTreeMap<String, KindRecord>, ApiError> {
    let mut kinds: BTreeMap<String, KindRecord> = BTreeMap::new();
    for game in store::games_played_by(conn, &account.id)?
        .into_iter()
        .filter(|game| listed_for(game, account, viewer))
    {
        let record = kinds.entry(game.kind.clone()).or_default();
        match game.status {
            GameStatus::Open => record.open += 1,
            GameStatus::Running => record.running += 1,
            GameStatus::Finished => {
                record.finished += 1;
                record.won += u32::from(won(&game));
            }
            GameStatus::Abandoned => record.abandoned += 1,
            // A game that never started is no part of anyone's record.
            GameStatus::Cancelled => {}
        }
    }
    Ok(kinds)
}

/// A player's result in a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    Won,
    Lost,
}

/// Which finished games a bulk export holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSelection {
    /// Only games this account played (by name, any case).
    pub player: Option<String>,
    pub kind: Option<String>,
    /// Finished at or after (milliseconds since the epoch).
    pub since: i64,
    /// Finished before.
    pub until: i64,
    /// The player's result; needs `player`.
    pub result: Option<GameResult>,
    /// The account that asks: besides public games, the selection holds the games it sat
    /// at (with `player`: only when it names the caller).
    pub viewer: String,
}

/// The ids of the selected finished (and abandoned) games, in the order they ended.
pub fn select_finished_games(
    db: &Db,
    selection: &ExportSelection,
) -> Result<Vec<String>, ApiError> {
    let in_window = |at: i64| (selection.since..selection.until).contains(&at);
    db.read(|conn| {
        let Some(name) = &selection.player else {
            return Ok(store::finished_game_ids(
                conn,
                selection.kind.as_deref(),
                selection.since,
                selection.until,
                &selection.viewer,
            )?);
        };
        let account = find_account(conn, name)?;
        Ok(store::games_played_by(conn, &account.id)?
            .into_iter()
            .filter(|game| listed_for(game, &account, &selection.viewer))
            .filter(|game| game.status.is_over() && in_window(game.updated_at))
            .filter(|game| {
                selection
                    .kind
                    .as_deref()
                    .is_none_or(|kind| kind == game.kind)
            })
            .filter(|game| match selection.result {
                None => true,
                Some(GameResult::Won) => won(game),
                // An abandoned game has no result: neither won nor lost.
                Some(GameResult::Lost) => game.outcome.is_some() && !won(game),
            })
            .map(|game| game.game_id)
            .collect())
    })
}
