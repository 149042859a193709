//! What a game was created with beside its columns: who writes in its chat, whether it
//! counts for ratings, and who sees it. Games from before a setting have no row, and take
//! its default.

use diesel::prelude::*;

use super::games::Visibility;
use super::schema::game_settings;
use super::{DbConnection, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameSettings {
    /// Spectators may write in the game's chat (players always may).
    pub spectators_may_write: bool,
    /// The game counts for its players' ratings.
    pub rated: bool,
}

/// [`GameSettings`] and the game's visibility as a left join reads them: none when the game
/// has no row.
pub type SettingsColumns = Option<(bool, bool, String)>;

impl GameSettings {
    /// The settings as read with a left join: none stored means the defaults.
    pub fn from_columns(columns: SettingsColumns) -> GameSettings {
        columns.map_or_else(GameSettings::default, |(spectators_may_write, rated, _)| {
            GameSettings {
                spectators_may_write,
                rated,
            }
        })
    }

    /// Who sees the game: its row's visibility, or for a game from before rows had one (or
    /// rows were kept), public unless it was created private. A game's `private` column
    /// says whether it is public at all for every game, so lists filter on it alone.
    pub fn visibility_of(columns: &SettingsColumns, private: bool) -> Result<Visibility, String> {
        match columns {
            Some((_, _, visibility)) => {
                Visibility::parse(visibility).ok_or_else(|| visibility.clone())
            }
            None if private => Ok(Visibility::Private),
            None => Ok(Visibility::Public),
        }
    }
}

/// The columns of [`GameSettings`], to select (nullable) beside a game.
macro_rules! settings_columns {
    () => {
        (
            $crate::store::schema::game_settings::spectators_may_write,
            $crate::store::schema::game_settings::rated,
            $crate::store::schema::game_settings::visibility,
        )
    };
}
pub(crate) use settings_columns;

/// Records a new game's settings and visibility.
pub fn insert(
    conn: &mut DbConnection,
    game_id: &str,
    settings: GameSettings,
    visibility: Visibility,
) -> Result<(), StoreError> {
    diesel::insert_into(game_settings::table)
        .values((
            game_settings::game_id.eq(game_id),
            game_settings::spectators_may_write.eq(settings.spectators_may_write),
            game_settings::rated.eq(settings.rated),
            game_settings::visibility.eq(visibility.as_str()),
        ))
        .execute(conn)?;
    Ok(())
}

/// The game's settings.
pub fn of(conn: &mut DbConnection, game_id: &str) -> Result<GameSettings, StoreError> {
    let columns: SettingsColumns = game_settings::table
        .find(game_id)
        .select(settings_columns!())
        .first(conn)
        .optional()?;
    Ok(GameSettings::from_columns(columns))
}
