//! What a game was created with beside its columns: who writes in its chat, and whether it
//! counts for ratings. Games from before a setting have no row, and take its default.

use diesel::prelude::*;

use super::schema::game_settings;
use super::{DbConnection, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameSettings {
    /// Spectators may write in the game's chat (players always may).
    pub spectators_may_write: bool,
    /// The game counts for its players' ratings.
    pub rated: bool,
}

/// [`GameSettings`] as a left join reads them: none when the game has no row.
pub type SettingsColumns = Option<(bool, bool)>;

impl GameSettings {
    /// The settings as read with a left join: none stored means the defaults.
    pub fn from_columns(columns: SettingsColumns) -> GameSettings {
        columns.map_or_else(GameSettings::default, |(spectators_may_write, rated)| {
            GameSettings {
                spectators_may_write,
                rated,
            }
        })
    }
}

/// The columns of [`GameSettings`], to select (nullable) beside a game.
macro_rules! settings_columns {
    () => {
        (
            $crate::store::schema::game_settings::spectators_may_write,
            $crate::store::schema::game_settings::rated,
        )
    };
}
pub(crate) use settings_columns;

/// Records a new game's settings.
pub fn insert(
    conn: &mut DbConnection,
    game_id: &str,
    settings: GameSettings,
) -> Result<(), StoreError> {
    diesel::insert_into(game_settings::table)
        .values((
            game_settings::game_id.eq(game_id),
            game_settings::spectators_may_write.eq(settings.spectators_may_write),
            game_settings::rated.eq(settings.rated),
        ))
        .execute(conn)?;
    Ok(())
}

/// The game's settings.
pub fn of(conn: &mut DbConnection, game_id: &str) -> Result<GameSettings, StoreError> {
    let columns: Option<(bool, bool)> = game_settings::table
        .find(game_id)
        .select(settings_columns!())
        .first(conn)
        .optional()?;
    Ok(GameSettings::from_columns(columns))
}
