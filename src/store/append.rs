//! Appending to a game's log: the one write of every accepted command. Its events, action,
//! head and seats are written at once, guarded by the expected seq, with the notifications
//! they cause and, when the game finishes, its ratings.

use diesel::prelude::*;

use super::compact_log::{self, LogForm};
use super::events::{stored_payloads, stored_request};
use super::games::{json_text, ActionRow, Append, GameStatus, Listener};
use super::jobs;
use super::on_backend;
use super::prepared_updates::{GameHeadUpdate, OneSeatToAct, SeatStateUpdate};
use super::schema::{actions, events, games, seats};
use super::{Change, DbConnection, StoreError};
use crate::games::bots::BotStrategy;
use crate::games::engine::Seat;
use crate::games::server_events::ForfeitReason;

/// Appends events if and only if the log is still at `expected_seq`; returns the new seq.
/// Must run inside a write transaction: the guarded update comes first, so it takes the
/// game's row lock before anything else is written. The payloads take the form the
/// database's setting names.
pub fn append(conn: &mut DbConnection, append: &Append) -> Result<i64, StoreError> {
    let form = compact_log::form(conn)?;
    append_in(conn, append, form)
}

/// The guarded `UPDATE games` of `append`; `STATUS_CHANGES` must say whether its status
/// differs from the previous one.
fn head_update<const STATUS_CHANGES: bool>(append: &Append) -> GameHeadUpdate<'_, STATUS_CHANGES> {
    GameHeadUpdate {
        game_id: &append.game_id,
        expected_seq: append.expected_seq,
        new_seq: append.new_seq(),
        previous_status: append.previous_status.as_str(),
        status: append.status.as_str(),
        to_act: json_text(&append.to_act),
        outcome: append.outcome.as_ref().map(json_text),
        updated_at: append.now,
    }
}

/// [`append`], the payloads stored in `form`.
pub(super) fn append_in(
    conn: &mut DbConnection,
    append: &Append,
    form: LogForm,
) -> Result<i64, StoreError> {
    let new_seq = append.new_seq();
    let updated = if append.status == append.previous_status {
        let update = head_update::<false>(append);
        on_backend!(conn, |c| update.execute(c))?
    } else {
        let update = head_update::<true>(append);
        on_backend!(conn, |c| update.execute(c))?
    };
    if updated != 1 {
        return Err(stale_seq(conn, &append.game_id)?);
    }
    let payloads = stored_payloads(&append.events, form)?;
    let rows: Vec<_> = append
        .events
        .iter()
        .zip(&payloads)
        .enumerate()
        .map(|(offset, (event, payload))| {
            (
                events::game_id.eq(&append.game_id),
                events::seq.eq(append.expected_seq + 1 + offset as i64),
                events::created_at.eq(append.now),
                events::seat.eq(event.seat),
                events::event_type.eq(&event.event_type),
                events::schema_version.eq(event.schema_version),
                events::payload.eq(payload.as_ref()),
                events::source.eq(event.source),
            )
        })
        .collect();
    // PostgreSQL: all of an action's events in one statement, one round trip. SQLite runs
    // in the process: a statement per event is prepared once and reused, where a statement
    // of as many rows as the action has events would be prepared for every action.
    match conn {
        DbConnection::Postgresql(c) => diesel::insert_into(events::table).values(&rows).execute(c),
        DbConnection::Sqlite(c) => rows.iter().try_fold(0, |inserted, row| {
            Ok(inserted + diesel::insert_into(events::table).values(row).execute(c)?)
        }),
    }
    .map_err(|error| match StoreError::from_insert(error) {
        StoreError::Duplicate => StoreError::StaleSeq { current: new_seq },
        other => other,
    })?;
    if append.to_act != append.previous_to_act {
        mark_seats_to_act(conn, &append.game_id, &append.to_act)?;
    }
    for update in &append.seat_updates {
        let update = SeatStateUpdate {
            game_id: &append.game_id,
            seat: i32::from(update.seat),
            deadline: update.clock.deadline_ms,
            bank_ms: update.clock.bank_ms,
            bot: update.bot.map(BotStrategy::as_str),
            forfeit: update.forfeit.map(ForfeitReason::as_str),
            vacation_until: update.vacation_until,
        };
        on_backend!(&mut *conn, |c| update.execute(c))?;
    }
    notify_seats(conn, append, new_seq)?;
    if let Some(action) = &append.action {
        let stored = ActionRow {
            request: stored_request(action, form)?.into_owned(),
            ..action.clone()
        };
        let insert = diesel::insert_into(actions::table).values(&stored);
        on_backend!(&mut *conn, |c| insert.execute(c)).map_err(StoreError::from_insert)?;
    }
    // After the action: the last one counts among the moves a rated game needs.
    if let Some(standing) = append.outcome.as_ref().filter(|_| append.rates()) {
        super::ratings::rate_finished_game(
            conn,
            &append.game_id,
            &append.kind,
            standing,
            append.now,
        )?;
    }
    jobs::follow_append(
        conn,
        &append.game_id,
        &append.created_by,
        &append.job_changes(),
    )?;
    super::changes::record(Change::Appended {
        game_id: append.game_id.clone(),
        seq: new_seq,
    });
    Ok(new_seq)
}

/// Why an append guarded by its expected seq wrote nothing: the game's seq has moved on.
pub(super) fn stale_seq(conn: &mut DbConnection, game_id: &str) -> Result<StoreError, StoreError> {
    let current = games::table
        .find(game_id)
        .select(games::current_seq)
        .first::<i64>(conn)?;
    Ok(StoreError::StaleSeq { current })
}

impl Append {
    /// The game's seq once the events are in.
    pub(super) fn new_seq(&self) -> i64 {
        self.expected_seq + self.events.len() as i64
    }

    /// What the append writes in its game's jobs.
    pub(super) fn job_changes(&self) -> jobs::JobChanges {
        jobs::AfterAppend {
            started: self.previous_status == GameStatus::Open,
            running: self.status == GameStatus::Running,
            before: self.work_before,
            after: self.work_after,
            clocks_changed: !self.seat_updates.is_empty(),
            now: self.now,
        }
        .job_changes()
    }

    /// The append finishes its game with a standing, which the ratings take in.
    pub(super) fn rates(&self) -> bool {
        self.previous_status != GameStatus::Finished
            && self.status == GameStatus::Finished
            && self.outcome.is_some()
    }
}

/// Tells the seated accounts what the append means for them (see [`seat_notifications`]).
fn notify_seats(conn: &mut DbConnection, append: &Append, seq: i64) -> Result<(), StoreError> {
    for (listener, notification) in seat_notifications(append, seq) {
        super::notifications::notify_knowing(
            conn,
            &notification,
            super::notifications::delivery_id,
            Some(listener.channels),
        )?;
    }
    Ok(())
}

/// What the append means for each seated person: the game started, it is their turn (newly,
/// or after another seat acted), the game finished.
pub(super) fn seat_notifications(
    append: &Append,
    seq: i64,
) -> Vec<(&Listener, super::notifications::NewNotification)> {
    let started = append.previous_status == GameStatus::Open && append.status != GameStatus::Open;
    let finished =
        append.previous_status != GameStatus::Finished && append.status == GameStatus::Finished;
    let abandoned =
        append.previous_status != GameStatus::Abandoned && append.status == GameStatus::Abandoned;
    let mut notifications = Vec::new();
    for listener in &append.listeners {
        let seat = listener.seat;
        let turn = append.to_act.contains(&seat)
            && (!append.previous_to_act.contains(&seat) || append.acting_seat != Some(seat));
        let kinds = [
            (started, "game_started"),
            (turn, "your_turn"),
            (finished, "game_finished"),
            (abandoned, "game_abandoned"),
        ];
        for (_, kind) in kinds.into_iter().filter(|(happened, _)| *happened) {
            let mut payload = serde_json::json!({
                "type": kind,
                "game_id": append.game_id,
                "game_kind": append.kind,
                "seq": seq,
                "seat": seat,
                "to_act": append.to_act,
            });
            if let Some(outcome) = &append.outcome {
                payload["outcome"] = serde_json::json!({
                    "scores": outcome.scores,
                    "places": outcome.places,
                    "forfeits": outcome.forfeits,
                });
            }
            notifications.push((
                listener,
                super::notifications::NewNotification {
                    account_id: listener.account_id.clone(),
                    game_id: append.game_id.clone(),
                    kind: kind.to_owned(),
                    seq,
                    payload: payload.to_string(),
                    created_at: append.now,
                },
            ));
        }
    }
    notifications
}

/// Keeps `seats.must_act` equal to the game's `to_act`, so "games where it is my turn" is
/// one indexed query.
fn mark_seats_to_act(
    conn: &mut DbConnection,
    game_id: &str,
    to_act: &[Seat],
) -> Result<(), StoreError> {
    let acting: Vec<i32> = to_act.iter().map(|&seat| i32::from(seat)).collect();
    let game_seats = seats::table.filter(seats::game_id.eq(game_id));
    // One acting seat, the usual case, as a statement kept prepared; `IN (?, ?)` would be
    // written anew for every count of seats.
    match acting.as_slice() {
        [one] => {
            let update = OneSeatToAct {
                game_id,
                seat: *one,
            };
            on_backend!(conn, |c| update.execute(c))?
        }
        _ => {
            let update =
                diesel::update(game_seats).set(seats::must_act.eq(seats::seat.eq_any(acting)));
            on_backend!(conn, |c| update.execute(c))?
        }
    };
    Ok(())
}

/// The `current_seq` of each of these games that exists.
pub fn current_seqs(
    conn: &mut DbConnection,
    ids: &[String],
) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(games::table
        .filter(games::id.eq_any(ids))
        .select((games::id, games::current_seq))
        .load(conn)?)
}
