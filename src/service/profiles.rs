//! Accounts' public pages: what an account says about itself, when it was last seen, its
//! ratings and record, its latest public games, and how it fared against the reader.

use std::collections::BTreeMap;

use super::account_names::find_account;
use super::histories::{record_of, KindRecord};
use super::LoadedGame;
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::service::free_text::{self, Lines};
use crate::store::profiles::{self, HeadToHead, ProfileUpdate, StoredProfile};
use crate::store::ratings::{self, StoredRating};
use crate::store::{self, follows, moderation, Db, GameFilter, GameStatus};

/// The most characters of an account's text about itself.
pub const MOST_ABOUT_CHARACTERS: usize = 600;
/// How many of its latest finished public games an account's page shows.
pub const RECENT_GAMES: i64 = 10;

const COUNTRIES: &str = include_str!("../../data/places/countries.txt");
const LANGUAGES: &str = include_str!("../../data/places/languages.txt");

/// The codes of the data file `table` (its first column).
fn codes(table: &'static str) -> impl Iterator<Item = &'static str> {
    table
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split('\t').next())
}

/// Whether `code` is a code of the data file `table`.
fn listed(table: &'static str, code: &str) -> bool {
    codes(table).any(|listed| listed == code)
}

/// The country codes a profile takes (ISO 3166-1 alpha-2), for the schema's `enum`.
pub fn country_codes() -> impl Iterator<Item = &'static str> {
    codes(COUNTRIES)
}

/// The language codes a profile takes (ISO 639-1), for the schema's `enum`.
pub fn language_codes() -> impl Iterator<Item = &'static str> {
    codes(LANGUAGES)
}

/// An account's page as one reader sees it.
pub struct Profile {
    pub stored: StoredProfile,
    /// The day it was last seen, unless it hides it (or the reader may not see it).
    pub last_seen_day: Option<i64>,
    pub ratings: Vec<StoredRating>,
    pub kinds: BTreeMap<String, KindRecord>,
    /// Its latest finished public games, newest first.
    pub recent_games: Vec<LoadedGame>,
    /// The reader's finished games with it; `None` on the reader's own page.
    pub head_to_head: Option<HeadToHead>,
    pub you_follow: bool,
    pub followers: i64,
    pub following: i64,
    /// The account blocks the reader: its activity (games, record, last seen) is not shown.
    pub activity_hidden: bool,
}

/// The page of the account called `name` (any case) as `viewer` sees it.
pub fn profile(db: &Db, name: &str, viewer: &AuthUser) -> Result<Profile, ApiError> {
    db.read(|conn| {
        let account = find_account(conn, name)?;
        let stored = profiles::profile_of(conn, &account.id)?
            .ok_or_else(|| ApiError::Internal("an account vanished".into()))?;
        let own = account.id == viewer.account_id;
        let activity_hidden = !own
            && !moderation::blocked_among(
                conn,
                &account.id,
                std::slice::from_ref(&viewer.account_id),
            )?
            .is_empty();
        let (followers, following) = follows::counts(conn, &account.id)?;
        let ratings = ratings::ratings_of(conn, &account.id)?;
        if activity_hidden {
            return Ok(Profile {
                last_seen_day: None,
                ratings,
                kinds: BTreeMap::new(),
                recent_games: Vec::new(),
                head_to_head: None,
                you_follow: false,
                followers,
                following,
                activity_hidden,
                stored,
            });
        }
        let mut recent_games = store::list_games(
            conn,
            &GameFilter {
                viewer: viewer.account_id.clone(),
                member: Some(account.id.clone()),
                status: Some(GameStatus::Finished),
                public_only: true,
                limit: RECENT_GAMES,
                ..GameFilter::default()
            },
        )?
        .into_iter()
        .map(|(game, seats)| LoadedGame::with_seats(game, seats))
        .collect::<Result<Vec<LoadedGame>, ApiError>>()?;
        super::people::add_people(conn, &mut recent_games)?;
        Ok(Profile {
            last_seen_day: stored
                .last_seen_day
                .filter(|_| stored.show_last_seen || own),
            ratings,
            kinds: record_of(conn, &account, &viewer.account_id)?,
            recent_games,
            head_to_head: if own {
                None
            } else {
                Some(profiles::head_to_head(
                    conn,
                    &account.id,
                    &viewer.account_id,
                )?)
            },
            you_follow: follows::follows(conn, &viewer.account_id, &account.id)?,
            followers,
            following,
            activity_hidden,
            stored,
        })
    })
}

/// What the caller's page says.
pub fn own_profile(db: &Db, user: &AuthUser) -> Result<StoredProfile, ApiError> {
    db.read(|conn| {
        profiles::profile_of(conn, &user.account_id)?
            .ok_or_else(|| ApiError::Internal("an account vanished".into()))
    })
}

/// What an account asks to set on its page, before it is checked.
#[derive(Debug, Clone, Default)]
pub struct ProfileRequest {
    pub about: Option<String>,
    pub country: Option<String>,
    pub language: Option<String>,
    pub show_last_seen: bool,
}

/// Checks and stores the caller's page; returns it as others see it.
pub fn set_profile(
    db: &Db,
    user: &AuthUser,
    request: &ProfileRequest,
) -> Result<StoredProfile, ApiError> {
    let about = match &request.about {
        Some(about) => free_text::checked(about, Lines::Many, MOST_ABOUT_CHARACTERS)
            .map_err(|refusal| refusal.problem("invalid_profile", "`about`"))?,
        None => String::new(),
    };
    if let Some(country) = &request.country {
        if !listed(COUNTRIES, country) {
            return Err(ApiError::unprocessable(
                "invalid_profile",
                format!(
                    "`country` is a country's ISO 3166-1 alpha-2 code in capitals (DE, AT, \
                     CH, ...), not {country:?}"
                ),
            ));
        }
    }
    if let Some(language) = &request.language {
        if !listed(LANGUAGES, language) {
            return Err(ApiError::unprocessable(
                "invalid_profile",
                format!(
                    "`language` is a language's ISO 639-1 code in small letters (de, en, \
                     ...), not {language:?}"
                ),
            ));
        }
    }
    let update = ProfileUpdate {
        about,
        country: request.country.clone(),
        language: request.language.clone(),
        show_last_seen: request.show_last_seen,
    };
    db.write(|conn| {
        profiles::set_profile(conn, &user.account_id, &update)?;
        profiles::profile_of(conn, &user.account_id)?
            .ok_or_else(|| ApiError::Internal("an account vanished".into()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_tables_hold_codes_and_only_codes() {
        assert!(listed(COUNTRIES, "DE"));
        assert!(listed(COUNTRIES, "AT"));
        assert!(!listed(COUNTRIES, "de"));
        assert!(!listed(COUNTRIES, "XX"));
        assert!(!listed(COUNTRIES, "#"));
        assert!(listed(LANGUAGES, "de"));
        assert!(listed(LANGUAGES, "en"));
        assert!(!listed(LANGUAGES, "DE"));
        assert!(!listed(LANGUAGES, "deu"));
    }
}
