//! Creating games, listing them, taking seats, and starting a game once its table is full.

use serde_json::Value;

use super::{now_millis, random_id, Game, GameStatus, LoadedGame};
use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::games::{find_game_rules, rng_for, GameRules};
use crate::store::{self, Db, DbConnection, GameFilter, SeatRow, StoreError};

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
    // serde would read a struct from an array too (`[true]`); options are an object.
    if !request.options.is_object() {
        return Err(ApiError::unprocessable(
            "invalid_options",
            "`options` must be a JSON object; see the kind's options schema",
        ));
    }
    let options = rules
        .normalize_options(&request.options)
        .map_err(|message| ApiError::unprocessable("invalid_options", message))?;
    // The engine may refuse an option combination only at set-up; find out now, not when
    // the last player joins.
    let mut probe_rng = rng_for([0; 32], 0);
    rules
        .setup(
            &options,
            request.seats,
            rules.newest_rules_version(),
            None,
            &mut probe_rng,
        )
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

/// Creates a game with the creator in a seat; returns it as it stands after (started at
/// once when the creator fills the only open seat). An account may have at most
/// `open_games_quota` open games of its own at once.
pub fn create_game(
    db: &Db,
    creator: &AuthUser,
    request: &NewGame,
    open_games_quota: u32,
) -> Result<LoadedGame, ApiError> {
    let (rules, options) = validate_new_game(request)?;
    let mut seed = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut seed);
    let now = now_millis();
    let game = Game {
        id: random_id(10),
        kind: rules.kind().to_owned(),
        rules_version: rules.newest_rules_version(),
        options,
        seat_count: request.seats,
        status: GameStatus::Open,
        seed,
        created_by: creator.account_id.clone(),
        created_at: now,
        updated_at: now,
        current_seq: 0,
        to_act: Vec::new(),
        outcome: None,
    };
    let seat = SeatRow {
        game_id: game.id.clone(),
        seat: i32::from(request.creator_seat.unwrap_or(0)),
        account_id: creator.account_id.clone(),
        joined_at: now,
    };
    db.write(|conn| {
        if store::count_open_games_created_by(conn, &creator.account_id)?
            >= i64::from(open_games_quota)
        {
            return Err(ApiError::conflict(
                "open_games_quota",
                format!(
                    "you already have {open_games_quota} open games waiting for players; \
                     wait until one of them starts"
                ),
            ));
        }
        store::insert_game(conn, &game, &seat)?;
        start_if_full(conn, &game.id, now)?;
        LoadedGame::load(conn, &game.id)
    })
}

/// One game with its seats.
pub fn get_game(db: &Db, game_id: &str) -> Result<LoadedGame, ApiError> {
    db.read(|conn| LoadedGame::load(conn, game_id))
}

/// Which games to list.
#[derive(Debug, Clone, Default)]
pub struct GameQuery {
    /// Only games the caller sits in.
    pub mine: bool,
    /// Only games where the caller must act now (implies `mine` and running).
    pub my_turn: bool,
    pub status: Option<GameStatus>,
    pub kind: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// One page of games, most recently active first; filtered and paged by the database.
pub fn list_games(
    db: &Db,
    caller: &AuthUser,
    query: &GameQuery,
) -> Result<Vec<LoadedGame>, ApiError> {
    let filter = GameFilter {
        member: query.mine.then(|| caller.account_id.clone()),
        to_act: query.my_turn.then(|| caller.account_id.clone()),
        status: if query.my_turn {
            Some(GameStatus::Running)
        } else {
            query.status
        },
        kind: query.kind.clone(),
        limit: query.limit,
        offset: query.offset,
    };
    db.read(|conn| {
        store::list_games(conn, &filter)?
            .into_iter()
            .map(|(game, seats)| LoadedGame::with_seats(game, seats))
            .collect()
    })
}

/// Seats `user` at the requested seat or the lowest open one; starts the game when that was
/// the last open seat. Returns the game as it stands after.
pub fn join_game(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    requested_seat: Option<u8>,
) -> Result<LoadedGame, ApiError> {
    let now = now_millis();
    db.write(|conn| {
        take_seat(conn, game_id, user, requested_seat, now)?;
        start_if_full(conn, game_id, now)?;
        LoadedGame::load(conn, game_id)
    })
}

fn take_seat(
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
                game.game.status.as_str()
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
    let seat_count = game.game.seat_count;
    let taken: Vec<u8> = game.seats.iter().map(|seat| seat.seat).collect();
    let seat = match requested_seat {
        Some(seat) if seat >= seat_count => return Err(invalid_seat(seat, seat_count)),
        Some(seat) if taken.contains(&seat) => {
            return Err(ApiError::conflict(
                "seat_taken",
                format!("seat {seat} is taken"),
            ))
        }
        Some(seat) => seat,
        None => (0..seat_count)
            .find(|seat| !taken.contains(seat))
            .ok_or_else(|| ApiError::conflict("game_full", "every seat is taken"))?,
    };
    store::take_seat(
        conn,
        &SeatRow {
            game_id: game_id.to_owned(),
            seat: i32::from(seat),
            account_id: user.account_id.clone(),
            joined_at: now,
        },
    )
    .map_err(|error| match error {
        StoreError::Duplicate => ApiError::conflict("seat_taken", format!("seat {seat} is taken")),
        other => other.into(),
    })
}

/// Appends the engine's opening events once every seat is taken.
fn start_if_full(conn: &mut DbConnection, game_id: &str, now: i64) -> Result<(), ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    if game.game.status != GameStatus::Open || game.seats.len() < usize::from(game.game.seat_count)
    {
        return Ok(());
    }
    // Refuses a rules version this build cannot play before anything is decided.
    let mut table = game.empty_table()?;
    let events = game
        .rules
        .setup(
            &game.game.options,
            game.game.seat_count,
            game.game.rules_version,
            Some(&game.seed_commitment()),
            &mut rng_for(game.game.seed, 0),
        )
        .map_err(|error| ApiError::Internal(format!("set-up failed: {error}")))?;
    let append = game.append_after(table.as_mut(), events, None, now, None)?;
    store::append(conn, &append)?;
    Ok(())
}
