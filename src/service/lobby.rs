//! Creating games, taking seats, and starting a game once its table is full.

use serde_json::Value;

use super::{encode_seed, random_id, LoadedGame, STATUS_OPEN};
use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::games::{find_game_rules, rng_for, GameRules};
use crate::store::{self, DbConnection, GameRow, SeatRow, StoreError};

pub struct NewGame {
    pub kind: String,
    pub seats: u8,
    pub options: Value,
    /// The seat the creator takes (default 0).
    pub creator_seat: Option<u8>,
}

/// Checks a creation request without touching the database.
fn validate_new_game(request: &NewGame) -> Result<(&'static dyn GameRules, Value), ApiError> {
    let rules = find_game_rules(&request.kind).ok_or_else(|| {
        ApiError::unprocessable(
            "unknown_game_kind",
            format!(
                "there is no game kind {:?}; see GET /v1/game-kinds",
                request.kind
            ),
        )
    })?;
    let counts = rules.player_counts();
    if !counts.contains(&request.seats) {
        return Err(ApiError::unprocessable(
            "invalid_seat_count",
            format!(
                "{} is played by {} to {} players, not {}",
                rules.name(),
                counts.start(),
                counts.end(),
                request.seats
            ),
        ));
    }
    let options = rules
        .normalize_options(&request.options)
        .map_err(|message| ApiError::unprocessable("invalid_options", message))?;
    // The engine may refuse an option combination only at set-up; find out now, not when
    // the last player joins.
    let mut probe_rng = rng_for([0; 32], 0);
    rules
        .setup(&options, request.seats, &mut probe_rng)
        .map_err(|error| ApiError::unprocessable("invalid_options", error.message))?;
    if let Some(seat) = request.creator_seat {
        if seat >= request.seats {
            return Err(invalid_seat(seat, request.seats));
        }
    }
    Ok((rules, options))
}

fn invalid_seat(seat: u8, seats: u8) -> ApiError {
    ApiError::unprocessable(
        "invalid_seat",
        format!(
            "seat {seat} does not exist; seats are 0 to {}",
            seats.saturating_sub(1)
        ),
    )
}

pub fn create_game(
    conn: &mut DbConnection,
    creator: &AuthUser,
    request: &NewGame,
    now: i64,
) -> Result<String, ApiError> {
    let (rules, options) = validate_new_game(request)?;
    let mut seed = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut seed);
    let row = GameRow {
        id: random_id(10),
        kind: rules.kind().to_owned(),
        rules_version: rules.rules_version() as i32,
        options: options.to_string(),
        seat_count: i32::from(request.seats),
        status: STATUS_OPEN.to_owned(),
        seed: encode_seed(&seed),
        created_by: creator.account_id.clone(),
        created_at: now,
        updated_at: now,
        current_seq: 0,
        to_act: "[]".to_owned(),
        outcome: None,
    };
    let seat = SeatRow {
        game_id: row.id.clone(),
        seat: i32::from(request.creator_seat.unwrap_or(0)),
        account_id: creator.account_id.clone(),
        joined_at: now,
    };
    store::insert_game(conn, &row, &seat)?;
    start_if_full(conn, &row.id, now)?;
    Ok(row.id)
}

/// Seats `user` at the requested seat or the lowest open one; starts the game when that was
/// the last open seat.
pub fn join_game(
    conn: &mut DbConnection,
    game_id: &str,
    user: &AuthUser,
    requested_seat: Option<u8>,
    now: i64,
) -> Result<(), ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    if !store::lock_open_game(conn, game_id, now)? {
        return Err(ApiError::conflict(
            "game_not_open",
            format!(
                "game {game_id} is {} and takes no more players",
                game.row.status
            ),
        ));
    }
    // Reload under the lock: another join may have committed since the first read.
    let game = LoadedGame::load(conn, game_id)?;
    if game.seat_of(user).is_some() {
        return Err(ApiError::conflict(
            "already_seated",
            "you already have a seat in this game",
        ));
    }
    let taken: Vec<i32> = game.seats.iter().map(|seat| seat.seat).collect();
    let seat = match requested_seat {
        Some(seat) if seat >= game.seat_count() => {
            return Err(invalid_seat(seat, game.seat_count()))
        }
        Some(seat) if taken.contains(&i32::from(seat)) => {
            return Err(ApiError::conflict(
                "seat_taken",
                format!("seat {seat} is taken"),
            ))
        }
        Some(seat) => i32::from(seat),
        None => (0..game.row.seat_count)
            .find(|seat| !taken.contains(seat))
            .ok_or_else(|| ApiError::conflict("game_full", "every seat is taken"))?,
    };
    store::take_seat(
        conn,
        &SeatRow {
            game_id: game_id.to_owned(),
            seat,
            account_id: user.account_id.clone(),
            joined_at: now,
        },
    )
    .map_err(|error| match error {
        StoreError::Duplicate => ApiError::conflict("seat_taken", format!("seat {seat} is taken")),
        other => other.into(),
    })?;
    start_if_full(conn, game_id, now)
}

/// Appends the engine's opening events once every seat is taken.
fn start_if_full(conn: &mut DbConnection, game_id: &str, now: i64) -> Result<(), ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    if game.row.status != STATUS_OPEN || game.seats.len() < usize::from(game.seat_count()) {
        return Ok(());
    }
    let options = game.options()?;
    let events = game
        .rules
        .setup(&options, game.seat_count(), &mut rng_for(game.seed()?, 0))
        .map_err(|error| ApiError::Internal(format!("set-up failed: {error}")))?;
    let mut table = game.empty_table()?;
    let append = game.append_after(table.as_mut(), events, None, now, None)?;
    store::append(conn, &append)?;
    Ok(())
}
