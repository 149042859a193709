//! What an account says about itself on its public page, and the day it was last seen.

use diesel::prelude::*;

use super::schema::{accounts, games, profiles, rating_changes, seats};
use super::{on_backend, DbConnection, GameStatus, StoreError};

/// An account's public page as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredProfile {
    pub id: String,
    pub name: String,
    pub created_at: i64,
    pub about: String,
    pub country: Option<String>,
    pub language: Option<String>,
    /// Days since 1970-01-01 (UTC).
    pub last_seen_day: Option<i64>,
    pub show_last_seen: bool,
}

/// A profile as read: the account's columns, then its profile's (none without a row).
type ProfileRow = (
    String,
    String,
    i64,
    Option<i64>,
    Option<(String, Option<String>, Option<String>, bool)>,
);

/// The account's page; `None` when there is no such account.
pub fn profile_of(conn: &mut DbConnection, id: &str) -> Result<Option<StoredProfile>, StoreError> {
    let row: Option<ProfileRow> = accounts::table
        .left_join(profiles::table)
        .filter(accounts::id.eq(id))
        .select((
            accounts::id,
            accounts::name,
            accounts::created_at,
            accounts::last_seen_day,
            (
                profiles::about,
                profiles::country,
                profiles::language,
                profiles::show_last_seen,
            )
                .nullable(),
        ))
        .first(conn)
        .optional()?;
    Ok(row.map(|(id, name, created_at, last_seen_day, profile)| {
        let (about, country, language, show_last_seen) =
            profile.unwrap_or((String::new(), None, None, true));
        StoredProfile {
            id,
            name,
            created_at,
            about,
            country,
            language,
            last_seen_day,
            show_last_seen,
        }
    }))
}

/// What an account sets on its page; every field is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileUpdate {
    pub about: String,
    pub country: Option<String>,
    pub language: Option<String>,
    pub show_last_seen: bool,
}

pub fn set_profile(
    conn: &mut DbConnection,
    id: &str,
    update: &ProfileUpdate,
) -> Result<(), StoreError> {
    let values = (
        profiles::account_id.eq(id),
        profiles::about.eq(&update.about),
        profiles::country.eq(&update.country),
        profiles::language.eq(&update.language),
        profiles::show_last_seen.eq(update.show_last_seen),
    );
    let upsert = diesel::insert_into(profiles::table)
        .values(values)
        .on_conflict(profiles::account_id)
        .do_update()
        .set((
            profiles::about.eq(&update.about),
            profiles::country.eq(&update.country),
            profiles::language.eq(&update.language),
            profiles::show_last_seen.eq(update.show_last_seen),
        ));
    on_backend!(&mut *conn, |c| upsert.execute(c))?;
    Ok(())
}

/// The account was seen on `day`: written once a day at most (a later day only).
pub fn seen_on(conn: &mut DbConnection, id: &str, day: i64) -> Result<(), StoreError> {
    diesel::update(accounts::table.find(id))
        .filter(
            accounts::last_seen_day
                .is_null()
                .or(accounts::last_seen_day.lt(day)),
        )
        .set(accounts::last_seen_day.eq(day))
        .execute(conn)?;
    Ok(())
}

/// Two accounts' finished games together: how many, and how often each placed
/// before the other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeadToHead {
    pub games: u32,
    pub ahead: u32,
    pub behind: u32,
}

/// The finished games `account` and `other` both sat at, and who placed before whom in
/// each; unlisted and private ones too, as `other` (the reader) sat at them. Reads one row
/// per such game.
pub fn head_to_head(
    conn: &mut DbConnection,
    account: &str,
    other: &str,
) -> Result<HeadToHead, StoreError> {
    let other_seat = diesel::alias!(seats as other_seat);
    let rows: Vec<(Option<String>, i32, i32)> = seats::table
        .inner_join(games::table)
        .inner_join(
            other_seat.on(other_seat
                .field(seats::game_id)
                .eq(seats::game_id)
                .and(other_seat.field(seats::account_id).eq(other))),
        )
        .filter(seats::account_id.eq(account))
        .filter(games::status.eq(GameStatus::Finished.as_str()))
        .select((games::outcome, seats::seat, other_seat.field(seats::seat)))
        .load(conn)?;
    let mut record = HeadToHead::default();
    for (outcome, seat, other) in rows {
        let Some(outcome) = outcome else { continue };
        let standing: crate::games::server_events::Standing = serde_json::from_str(&outcome)
            .map_err(|error| StoreError::Corrupt(format!("game outcome: {error}")))?;
        let place = |seat: i32| {
            usize::try_from(seat)
                .ok()
                .and_then(|seat| standing.places.get(seat).copied())
        };
        let (Some(mine), Some(theirs)) = (place(seat), place(other)) else {
            continue;
        };
        record.games += 1;
        record.ahead += u32::from(mine < theirs);
        record.behind += u32::from(mine > theirs);
    }
    Ok(record)
}

/// What one finished rated game did to one player, by game: `(game id, account id, rating
/// before, rating after)`, for the games given.
pub fn rating_changes_of_games(
    conn: &mut DbConnection,
    game_ids: &[String],
) -> Result<Vec<(String, String, f64, f64)>, StoreError> {
    if game_ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(rating_changes::table
        .filter(rating_changes::game_id.eq_any(game_ids))
        .select((
            rating_changes::game_id,
            rating_changes::account_id,
            rating_changes::rating_before,
            rating_changes::rating_after,
        ))
        .load(conn)?)
}
