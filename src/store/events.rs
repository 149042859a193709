//! A game's log as stored: its events (engine and server) and the actions that wrote them,
//! read back in the form they are written in (see [`super::compact_log`]).

use std::borrow::Cow;

use diesel::prelude::*;
use diesel_async::AsyncPgConnection;

use super::compact_log::{self, LogForm};
use super::games::{ActionRow, NewEvent, StoredEvent, SERVER_SOURCE};
use super::on_backend;
use super::schema::{actions, events};
use super::{DbConnection, StoreError};

/// The events with `seq <= up_to`, in order.
pub fn load_events(
    conn: &mut DbConnection,
    game_id: &str,
    up_to: i64,
) -> Result<Vec<StoredEvent>, StoreError> {
    Ok(restored(
        events::table
            .filter(events::game_id.eq(game_id))
            .filter(events::seq.le(up_to))
            .order(events::seq.asc())
            .select(StoredEvent::as_select())
            .load(conn)?,
    ))
}

/// The events with `after < seq <= up_to`, in order.
pub fn load_events_between(
    conn: &mut DbConnection,
    game_id: &str,
    after: i64,
    up_to: i64,
) -> Result<Vec<StoredEvent>, StoreError> {
    Ok(restored(on_backend!(conn, |c| events::table
        .filter(events::game_id.eq(game_id))
        .filter(events::seq.gt(after))
        .filter(events::seq.le(up_to))
        .order(events::seq.asc())
        .select(StoredEvent::as_select())
        .load(c))?))
}

/// The server's own events with `seq <= up_to`, in order.
pub fn load_server_events(
    conn: &mut DbConnection,
    game_id: &str,
    up_to: i64,
) -> Result<Vec<StoredEvent>, StoreError> {
    Ok(restored(
        events::table
            .filter(events::game_id.eq(game_id))
            .filter(events::seq.le(up_to))
            .filter(events::source.eq(SERVER_SOURCE))
            .order(events::seq.asc())
            .select(StoredEvent::as_select())
            .load(conn)?,
    ))
}

/// Events as read from their rows, with the payloads' types put back (see `compact_log`).
fn restored(mut events: Vec<StoredEvent>) -> Vec<StoredEvent> {
    for event in &mut events {
        let stored = std::mem::take(&mut event.payload);
        event.payload = compact_log::restored(&event.event_type, stored);
    }
    events
}

/// The payloads of `events` as their rows store them in `form` (see `compact_log`).
pub(super) fn stored_payloads(
    events: &[NewEvent],
    form: LogForm,
) -> Result<Vec<Cow<'_, str>>, StoreError> {
    events
        .iter()
        .map(|event| compact_log::stored(form, &event.event_type, &event.payload))
        .collect()
}

pub fn load_actions(conn: &mut DbConnection, game_id: &str) -> Result<Vec<ActionRow>, StoreError> {
    let rows: Vec<ActionRow> = actions::table
        .filter(actions::game_id.eq(game_id))
        .order(actions::first_seq.asc())
        .select(ActionRow::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(action_restored).collect())
}

/// The action `$account_id` posted to `$game_id` under the idempotency key `$key`.
macro_rules! action_by_key {
    ($game_id:expr, $account_id:expr, $key:expr) => {
        actions::table
            .filter(actions::game_id.eq($game_id))
            .filter(actions::account_id.eq($account_id))
            .filter(actions::idempotency_key.eq($key))
            .select(ActionRow::as_select())
    };
}

pub fn find_action_by_key(
    conn: &mut DbConnection,
    game_id: &str,
    account_id: &str,
    key: &str,
) -> Result<Option<ActionRow>, StoreError> {
    let row: Option<ActionRow> = action_by_key!(game_id, account_id, key)
        .first(conn)
        .optional()?;
    Ok(row.map(action_restored))
}

/// [`find_action_by_key`] on a worker thread's own connection
/// ([`super::worker_connections`]).
pub(super) async fn find_action_by_key_on(
    mut conn: &AsyncPgConnection,
    game_id: &str,
    account_id: &str,
    key: &str,
) -> Result<Option<ActionRow>, diesel::result::Error> {
    let row: Option<ActionRow> =
        diesel_async::RunQueryDsl::first(action_by_key!(game_id, account_id, key), &mut conn)
            .await
            .optional()?;
    Ok(row.map(action_restored))
}

/// An action as read from its row, with its request whole again (see `compact_log`).
fn action_restored(mut row: ActionRow) -> ActionRow {
    let stored = std::mem::take(&mut row.request);
    row.request = compact_log::restored_request(stored, &row.action);
    row
}

/// `action`'s request as its row stores it in `form` (see `compact_log`).
pub(super) fn stored_request(
    action: &ActionRow,
    form: LogForm,
) -> Result<Cow<'_, str>, StoreError> {
    compact_log::stored_request(form, &action.request, &action.action)
}
