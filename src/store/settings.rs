//! What a game was created with beside its columns: who writes in its chat, whether it
//! counts for ratings, who sees it, and how its clock counts. Games from before a setting
//! have no row, and take its default (for the clock: version 1, as they were played).

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::schema::game_settings;
use super::{DbConnection, StoreError};
use crate::games::server_events::ClockVersion;

/// Who may see a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Listed in the lobby and in its players' histories; anyone signed in may watch it.
    #[default]
    Public,
    /// Anyone who has its id (a link) may watch it, but it is in no list nor in anyone's
    /// public history; only the creator and the invited accounts may join.
    Unlisted,
    /// Only its seats (and, while it is open, its invitees) see it at all, on every route;
    /// to anyone else it does not exist. Only the creator and the invited accounts may join.
    Private,
}

impl Visibility {
    /// The stored (and wire) name.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Unlisted => "unlisted",
            Visibility::Private => "private",
        }
    }

    pub(super) fn parse(text: &str) -> Option<Visibility> {
        [
            Visibility::Public,
            Visibility::Unlisted,
            Visibility::Private,
        ]
        .into_iter()
        .find(|visibility| visibility.as_str() == text)
    }

    /// Only the creator and the invited accounts may join.
    pub fn invitation_only(self) -> bool {
        self != Visibility::Public
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameSettings {
    /// Spectators may write in the game's chat (players always may).
    pub spectators_may_write: bool,
    /// The game counts for its players' ratings.
    pub rated: bool,
    /// How its clock counts: as when it was created.
    pub clock_version: ClockVersion,
}

impl Default for GameSettings {
    /// A game from before settings were stored.
    fn default() -> GameSettings {
        GameSettings {
            spectators_may_write: false,
            rated: false,
            clock_version: ClockVersion::PerAction,
        }
    }
}

/// [`GameSettings`] and the game's visibility as a left join reads them: none when the game
/// has no row.
pub type SettingsColumns = Option<(bool, bool, String, i32, Option<String>)>;

impl GameSettings {
    /// The settings as read with a left join: none stored means the defaults. A clock
    /// version this build does not know reads as the newest it knows (a newer instance
    /// wrote it during an upgrade; this one plays that game as it plays new games).
    pub fn from_columns(columns: SettingsColumns) -> GameSettings {
        columns.map_or_else(
            GameSettings::default,
            |(spectators_may_write, rated, _, clock_version, _)| GameSettings {
                spectators_may_write,
                rated,
                clock_version: u32::try_from(clock_version)
                    .ok()
                    .and_then(ClockVersion::from_number)
                    .unwrap_or(ClockVersion::NEWEST),
            },
        )
    }

    /// Who sees the game: its row's visibility, or for a game from before rows had one (or
    /// rows were kept), public unless it was created private. A game's `private` column
    /// says whether it is public at all for every game, so lists filter on it alone.
    pub fn visibility_of(columns: &SettingsColumns, private: bool) -> Result<Visibility, String> {
        match columns {
            Some((_, _, visibility, _, _)) => {
                Visibility::parse(visibility).ok_or_else(|| visibility.clone())
            }
            None if private => Ok(Visibility::Private),
            None => Ok(Visibility::Public),
        }
    }

    /// The title the game was created with, if any.
    pub fn title_of(columns: &SettingsColumns) -> Option<String> {
        columns
            .as_ref()
            .and_then(|(_, _, _, _, title)| title.clone())
    }
}

/// The columns of [`GameSettings`], to select (nullable) beside a game.
macro_rules! settings_columns {
    () => {
        (
            $crate::store::schema::game_settings::spectators_may_write,
            $crate::store::schema::game_settings::rated,
            $crate::store::schema::game_settings::visibility,
            $crate::store::schema::game_settings::clock_version,
            $crate::store::schema::game_settings::title,
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
    title: Option<&str>,
) -> Result<(), StoreError> {
    diesel::insert_into(game_settings::table)
        .values((
            game_settings::game_id.eq(game_id),
            game_settings::spectators_may_write.eq(settings.spectators_may_write),
            game_settings::rated.eq(settings.rated),
            game_settings::visibility.eq(visibility.as_str()),
            game_settings::clock_version.eq(settings.clock_version.number() as i32),
            game_settings::title.eq(title),
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
