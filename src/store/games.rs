use diesel::prelude::*;

use super::schema::{accounts, actions, events, games, seats};
use super::{DbConnection, StoreError};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = games)]
pub struct GameRow {
    pub id: String,
    pub kind: String,
    pub rules_version: i32,
    pub options: String,
    pub seat_count: i32,
    pub status: String,
    pub seed: String,
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub current_seq: i64,
    pub to_act: String,
    pub outcome: Option<String>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = seats)]
pub struct SeatRow {
    pub game_id: String,
    pub seat: i32,
    pub account_id: String,
    pub joined_at: i64,
}

#[derive(Debug, Clone)]
pub struct SeatWithName {
    pub seat: i32,
    pub account_id: String,
    pub account_name: String,
}

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = events)]
pub struct StoredEvent {
    pub seq: i64,
    pub created_at: i64,
    pub seat: Option<i32>,
    pub event_type: String,
    pub schema_version: i32,
    pub payload: String,
}

#[derive(Debug, Clone)]
pub struct NewEvent {
    pub seat: Option<i32>,
    pub event_type: String,
    pub schema_version: i32,
    pub payload: String,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = actions)]
pub struct ActionRow {
    pub game_id: String,
    pub first_seq: i64,
    pub last_seq: i64,
    pub seat: i32,
    pub account_id: String,
    pub action: String,
    pub idempotency_key: Option<String>,
    pub request: String,
    pub created_at: i64,
}

/// Everything one accepted command writes, appended atomically.
#[derive(Debug, Clone)]
pub struct Append {
    pub game_id: String,
    pub expected_seq: i64,
    pub events: Vec<NewEvent>,
    pub status: String,
    pub to_act: String,
    pub outcome: Option<String>,
    pub now: i64,
    /// The action that caused the events (none for a game's opening events).
    pub action: Option<ActionRow>,
}

#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    pub member: Option<String>,
    pub status: Option<String>,
    pub kind: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

pub fn insert_game(
    conn: &mut DbConnection,
    game: &GameRow,
    creator_seat: &SeatRow,
) -> Result<(), StoreError> {
    diesel::insert_into(games::table)
        .values(game)
        .execute(conn)
        .map_err(StoreError::from_insert)?;
    take_seat(conn, creator_seat)
}

pub fn find_game(conn: &mut DbConnection, id: &str) -> Result<Option<GameRow>, StoreError> {
    Ok(games::table
        .find(id)
        .select(GameRow::as_select())
        .first(conn)
        .optional()?)
}

/// Locks an open game's row for the rest of the transaction (Postgres), so that concurrent
/// joins are serialised and exactly one of them sees the table full. Returns false when the
/// game is not open (or does not exist).
pub fn lock_open_game(conn: &mut DbConnection, id: &str, now: i64) -> Result<bool, StoreError> {
    let updated = diesel::update(games::table.find(id).filter(games::status.eq("open")))
        .set(games::updated_at.eq(now))
        .execute(conn)?;
    Ok(updated == 1)
}

pub fn list_games(
    conn: &mut DbConnection,
    filter: &GameFilter,
) -> Result<Vec<GameRow>, StoreError> {
    let mut query = games::table.select(GameRow::as_select()).into_boxed();
    if let Some(member) = &filter.member {
        let member_games = seats::table
            .filter(seats::account_id.eq(member.clone()))
            .select(seats::game_id);
        query = query.filter(games::id.eq_any(member_games));
    }
    if let Some(status) = &filter.status {
        query = query.filter(games::status.eq(status.clone()));
    }
    if let Some(kind) = &filter.kind {
        query = query.filter(games::kind.eq(kind.clone()));
    }
    Ok(query
        .order((games::updated_at.desc(), games::id.asc()))
        .limit(filter.limit)
        .offset(filter.offset)
        .load(conn)?)
}

pub fn load_seats(conn: &mut DbConnection, game_id: &str) -> Result<Vec<SeatWithName>, StoreError> {
    let rows: Vec<(i32, String, String)> = seats::table
        .inner_join(accounts::table)
        .filter(seats::game_id.eq(game_id))
        .order(seats::seat.asc())
        .select((seats::seat, seats::account_id, accounts::name))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(seat, account_id, account_name)| SeatWithName {
            seat,
            account_id,
            account_name,
        })
        .collect())
}

/// [`StoreError::Duplicate`] when the seat is taken or the account already sits there.
pub fn take_seat(conn: &mut DbConnection, seat: &SeatRow) -> Result<(), StoreError> {
    diesel::insert_into(seats::table)
        .values(seat)
        .execute(conn)
        .map_err(StoreError::from_insert)?;
    Ok(())
}

/// The events with `seq <= up_to`, in order.
pub fn load_events(
    conn: &mut DbConnection,
    game_id: &str,
    up_to: i64,
) -> Result<Vec<StoredEvent>, StoreError> {
    Ok(events::table
        .filter(events::game_id.eq(game_id))
        .filter(events::seq.le(up_to))
        .order(events::seq.asc())
        .select(StoredEvent::as_select())
        .load(conn)?)
}

pub fn load_actions(conn: &mut DbConnection, game_id: &str) -> Result<Vec<ActionRow>, StoreError> {
    Ok(actions::table
        .filter(actions::game_id.eq(game_id))
        .order(actions::first_seq.asc())
        .select(ActionRow::as_select())
        .load(conn)?)
}

pub fn find_action_by_key(
    conn: &mut DbConnection,
    game_id: &str,
    account_id: &str,
    key: &str,
) -> Result<Option<ActionRow>, StoreError> {
    Ok(actions::table
        .filter(actions::game_id.eq(game_id))
        .filter(actions::account_id.eq(account_id))
        .filter(actions::idempotency_key.eq(key))
        .select(ActionRow::as_select())
        .first(conn)
        .optional()?)
}

/// Appends events if and only if the log is still at `expected_seq`; returns the new seq.
/// Must run inside a write transaction: the guarded update comes first, so it takes the
/// game's row lock before anything else is written.
pub fn append(conn: &mut DbConnection, append: &Append) -> Result<i64, StoreError> {
    let new_seq = append.expected_seq + append.events.len() as i64;
    let updated = diesel::update(
        games::table
            .find(&append.game_id)
            .filter(games::current_seq.eq(append.expected_seq)),
    )
    .set((
        games::current_seq.eq(new_seq),
        games::status.eq(&append.status),
        games::to_act.eq(&append.to_act),
        games::outcome.eq(&append.outcome),
        games::updated_at.eq(append.now),
    ))
    .execute(conn)?;
    if updated != 1 {
        let current = games::table
            .find(&append.game_id)
            .select(games::current_seq)
            .first::<i64>(conn)?;
        return Err(StoreError::StaleSeq { current });
    }
    for (offset, event) in append.events.iter().enumerate() {
        diesel::insert_into(events::table)
            .values((
                events::game_id.eq(&append.game_id),
                events::seq.eq(append.expected_seq + 1 + offset as i64),
                events::created_at.eq(append.now),
                events::seat.eq(event.seat),
                events::event_type.eq(&event.event_type),
                events::schema_version.eq(event.schema_version),
                events::payload.eq(&event.payload),
            ))
            .execute(conn)
            .map_err(|error| match StoreError::from_insert(error) {
                StoreError::Duplicate => StoreError::StaleSeq { current: new_seq },
                other => other,
            })?;
    }
    if let Some(action) = &append.action {
        diesel::insert_into(actions::table)
            .values(action)
            .execute(conn)
            .map_err(StoreError::from_insert)?;
    }
    Ok(new_seq)
}
