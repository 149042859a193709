//! What the handlers do with a game, between the HTTP layer and the store: load a game with
//! its seats, fold its log through the engine, decide and append new events.

pub mod lobby;
pub mod play;

use serde_json::Value;

use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::games::engine::{Seat, Viewer};
use crate::games::{find_game_rules, GameRules, RecordedEvent, Table};
use crate::store::{
    self, ActionRow, Append, DbConnection, GameRow, NewEvent, SeatWithName, StoredEvent,
};

pub const STATUS_OPEN: &str = "open";
pub const STATUS_RUNNING: &str = "running";
pub const STATUS_FINISHED: &str = "finished";

/// A game row with its seats and its rules.
pub struct LoadedGame {
    pub row: GameRow,
    pub seats: Vec<SeatWithName>,
    pub rules: &'static dyn GameRules,
}

impl LoadedGame {
    pub fn load(conn: &mut DbConnection, id: &str) -> Result<LoadedGame, ApiError> {
        let row = store::find_game(conn, id)?.ok_or_else(|| ApiError::game_not_found(id))?;
        let rules = find_game_rules(&row.kind).ok_or_else(|| {
            ApiError::Internal(format!("game {id} has unknown kind {:?}", row.kind))
        })?;
        let seats = store::load_seats(conn, id)?;
        Ok(LoadedGame { row, seats, rules })
    }

    pub fn seat_of(&self, user: &AuthUser) -> Option<Seat> {
        self.seats
            .iter()
            .find(|seat| seat.account_id == user.account_id)
            .and_then(|seat| Seat::try_from(seat.seat).ok())
    }

    /// Seated callers see their own secrets; everyone else gets the spectator view.
    pub fn viewer_for(&self, user: &AuthUser) -> Viewer {
        self.seat_of(user).map_or(Viewer::Spectator, Viewer::Seat)
    }

    pub fn options(&self) -> Result<Value, ApiError> {
        serde_json::from_str(&self.row.options)
            .map_err(|error| ApiError::Internal(format!("stored options are corrupt: {error}")))
    }

    pub fn seat_count(&self) -> u8 {
        u8::try_from(self.row.seat_count).unwrap_or_default()
    }

    pub fn seed(&self) -> Result<[u8; 32], ApiError> {
        decode_seed(&self.row.seed)
            .ok_or_else(|| ApiError::Internal(format!("game {} has a corrupt seed", self.row.id)))
    }

    pub fn to_act(&self) -> Vec<Seat> {
        serde_json::from_str(&self.row.to_act).unwrap_or_default()
    }

    /// The state before any event.
    pub fn empty_table(&self) -> Result<Box<dyn Table>, ApiError> {
        Ok(self.rules.new_table(&self.options()?, self.seat_count())?)
    }

    /// The state after the stored events, folded from scratch.
    pub fn fold(&self, events: &[StoredEvent]) -> Result<Box<dyn Table>, ApiError> {
        let mut table = self.empty_table()?;
        for event in events {
            table.apply(&event.payload)?;
        }
        Ok(table)
    }

    pub fn load_events(
        &self,
        conn: &mut DbConnection,
        up_to: i64,
    ) -> Result<Vec<StoredEvent>, ApiError> {
        Ok(store::load_events(conn, &self.row.id, up_to)?)
    }
}

impl LoadedGame {
    /// Folds freshly decided `events` into `table` (the state at `expected_seq`) and returns
    /// everything to append: the events and the game's new status, turn and outcome.
    pub fn append_after(
        &self,
        table: &mut dyn Table,
        events: Vec<RecordedEvent>,
        seat: Option<Seat>,
        now: i64,
        action: Option<ActionRow>,
    ) -> Result<Append, ApiError> {
        let mut stored = Vec::with_capacity(events.len());
        for event in events {
            let payload = event.payload.to_string();
            table.apply(&payload)?;
            stored.push(NewEvent {
                seat: seat.map(i32::from),
                event_type: event.event_type,
                schema_version: self.rules.event_schema_version() as i32,
                payload,
            });
        }
        let outcome = table.outcome();
        Ok(Append {
            game_id: self.row.id.clone(),
            expected_seq: self.row.current_seq,
            events: stored,
            status: if outcome.is_some() {
                STATUS_FINISHED
            } else {
                STATUS_RUNNING
            }
            .to_owned(),
            to_act: serde_json::to_string(&table.to_act()).unwrap_or_else(|_| "[]".into()),
            outcome: outcome.map(|outcome| serde_json::to_string(&outcome).unwrap_or_default()),
            now,
            action,
        })
    }
}

pub fn encode_seed(seed: &[u8; 32]) -> String {
    seed.iter().map(|byte| format!("{byte:02x}")).collect()
}

pub fn decode_seed(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut seed = [0u8; 32];
    for (index, byte) in seed.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * index..2 * index + 2], 16).ok()?;
    }
    Some(seed)
}

/// A random identifier of `len` characters from [a-z0-9], for games and accounts.
pub fn random_id(len: usize) -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut rng = rand::thread_rng();
    (0..len)
        .map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())]))
        .collect()
}

/// RFC 3339 text for a stored millisecond timestamp.
pub fn format_time(millis: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .and_then(|moment| {
            moment
                .format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_round_trip_through_hex() {
        let seed: [u8; 32] = std::array::from_fn(|index| (index * 7) as u8);
        assert_eq!(decode_seed(&encode_seed(&seed)), Some(seed));
        assert_eq!(decode_seed("zz"), None);
        assert_eq!(decode_seed(&"é".repeat(32)), None);
    }

    #[test]
    fn times_are_rfc3339_utc() {
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
    }
}
