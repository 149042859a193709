//! Reminders before deadlines: what each account asked for, and which were sent.

use diesel::prelude::*;

use super::schema::{account_settings, reminders_sent};
use super::{on_backend, DbConnection, StoreError};

/// How long before each deadline an account is reminded when it chose nothing: a day and an
/// hour.
pub const DEFAULT_MINUTES: [u32; 2] = [24 * 60, 60];

/// Minutes before each deadline at which `account_id` wants a reminder, longest first.
pub fn reminder_minutes(conn: &mut DbConnection, account_id: &str) -> Result<Vec<u32>, StoreError> {
    let stored: Option<String> = account_settings::table
        .find(account_id)
        .select(account_settings::reminder_minutes)
        .first(conn)
        .optional()?;
    match stored {
        None => Ok(DEFAULT_MINUTES.to_vec()),
        Some(text) => serde_json::from_str(&text).map_err(|error| {
            StoreError::Corrupt(format!("account {account_id}: reminder_minutes: {error}"))
        }),
    }
}

/// Stores the account's choice (longest first).
pub fn set_reminder_minutes(
    conn: &mut DbConnection,
    account_id: &str,
    minutes: &[u32],
) -> Result<(), StoreError> {
    let text = serde_json::to_string(minutes).unwrap_or_default();
    let updated = diesel::update(account_settings::table.find(account_id))
        .set(account_settings::reminder_minutes.eq(&text))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(account_settings::table)
            .values((
                account_settings::account_id.eq(account_id),
                account_settings::reminder_minutes.eq(&text),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Records the reminder `minutes` before `deadline` for the seat; false when it was sent
/// already (by this or another instance).
pub fn mark_sent(
    conn: &mut DbConnection,
    game_id: &str,
    seat: i32,
    deadline: i64,
    minutes: u32,
) -> Result<bool, StoreError> {
    let insert = diesel::insert_into(reminders_sent::table)
        .values((
            reminders_sent::game_id.eq(game_id),
            reminders_sent::seat.eq(seat),
            reminders_sent::deadline.eq(deadline),
            reminders_sent::minutes.eq(i32::try_from(minutes).unwrap_or(i32::MAX)),
        ))
        .on_conflict_do_nothing();
    let inserted = on_backend!(conn, |c| insert.execute(c))?;
    Ok(inserted == 1)
}
