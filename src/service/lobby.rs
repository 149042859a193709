//! Creating games, listing them, taking seats, and starting a game once its table is full.

use serde_json::Value;

use super::{invitations, random_id, Game, GameStatus, LoadedGame, Visibility};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::bots::BotStrategy;
use crate::games::engine::Seat;
use crate::games::server_events::{ClockVersion, TimeControl};
use crate::games::{find_game_rules, rng_for, GameRules};
use crate::store::settings::GameSettings;
use crate::store::{self, CancelReason, Db, DbConnection, GameFilter, SeatRow, StoreError};

#[derive(Debug, Clone, Default)]
pub struct NewGame {
    pub kind: String,
    pub seats: u8,
    pub options: Value,
    /// The seat the creator takes (default 0).
    pub creator_seat: Option<u8>,
    pub time_control: TimeControl,
    /// Seats filled with a bot at once.
    pub bots: Vec<(Seat, BotStrategy)>,
    /// Who may see the game (and so who may join: only the invited accounts unless it is
    /// public).
    pub visibility: Visibility,
    /// Account names invited to join.
    pub invite: Vec<String>,
    /// Spectators may write in the game's chat too.
    pub spectator_chat: bool,
    /// The game counts for its players' ratings.
    pub rated: bool,
    /// The game's name, as its creator gave it (checked as a free text of one line).
    pub title: Option<String>,
}

/// The longest title a game may have, in characters.
pub const MOST_TITLE_CHARACTERS: usize = 80;

impl NewGame {
    /// The seat asked for, or the lowest one no bot takes.
    fn creator_seat(&self) -> u8 {
        self.creator_seat.unwrap_or_else(|| {
            (0..self.seats)
                .find(|seat| !self.bots.iter().any(|(bot_seat, _)| bot_seat == seat))
                .unwrap_or(0)
        })
    }
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
    request
        .time_control
        .check()
        .map_err(|message| ApiError::unprocessable("invalid_time_control", message))?;
    check_bots(request)?;
    if !request.invite.is_empty() && !request.visibility.invitation_only() {
        return Err(ApiError::unprocessable(
            "invalid_invitations",
            "invitations are for unlisted and private games, which only invited accounts \
             may join: set `visibility`",
        ));
    }
    Ok((rules, options))
}

/// The bots' seats: each within the table, each named once, and one seat left for the
/// creator (the one asked for with `seat`, or any). Two takers of one seat are a conflict
/// over it (409 `seat_taken`, as for joining a taken seat): JSON Schema can say how many
/// bots fit, but not (in a form fuzzers and generators take) that their seats differ.
fn check_bots(request: &NewGame) -> Result<(), ApiError> {
    let invalid_bots = |message: String| ApiError::unprocessable("invalid_bots", message);
    let seat_taken = |message: String| ApiError::conflict("seat_taken", message);
    for (index, (seat, _)) in request.bots.iter().enumerate() {
        if *seat >= request.seats {
            return Err(invalid_seat(*seat, request.seats));
        }
        if request.bots[..index].iter().any(|(s, _)| s == seat) {
            return Err(seat_taken(format!(
                "`bots` names seat {seat} twice; every bot needs a seat of its own"
            )));
        }
    }
    let has_bot = |seat: u8| request.bots.iter().any(|(s, _)| *s == seat);
    match request.creator_seat {
        Some(seat) if has_bot(seat) => Err(seat_taken(format!(
            "seat {seat} is the seat you asked for (`seat`) and a bot's too; give the bot \
             another seat or take another one yourself"
        ))),
        None if (0..request.seats).all(has_bot) => Err(invalid_bots(format!(
            "`bots` gives all {} seats to bots, but you take a seat in every game you \
             create: leave at least one seat without a bot",
            request.seats
        ))),
        _ => Ok(()),
    }
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
    now: i64,
) -> Result<LoadedGame, ApiError> {
    let seed = crate::seeds::Seeds::system().next_seed();
    create_game_with_seed(db, creator, request, open_games_quota, now, seed)
}

/// [`create_game`] with the game's secret seed given (the server draws it from its
/// [`crate::seeds::Seeds`]).
pub fn create_game_with_seed(
    db: &Db,
    creator: &AuthUser,
    request: &NewGame,
    open_games_quota: u32,
    now: i64,
    seed: [u8; 32],
) -> Result<LoadedGame, ApiError> {
    db.write(|conn| {
        insert_new_game(
            conn,
            creator,
            request,
            &Creation {
                id: random_id(10),
                open_games: open_games_quota,
                now,
                seed,
            },
            None,
        )
    })
}

/// What a new game is created with beside its settings: its id, the creator's quota of open
/// games, the time and the game's secret seed.
pub(super) struct Creation {
    pub id: String,
    pub open_games: u32,
    pub now: i64,
    pub seed: [u8; 32],
}

/// Writes a new game (a rematch of `rematch_of`, if given) in the caller's transaction and
/// notifies whoever it invites.
pub(super) fn insert_new_game(
    conn: &mut DbConnection,
    creator: &AuthUser,
    request: &NewGame,
    creation: &Creation,
    rematch_of: Option<String>,
) -> Result<LoadedGame, ApiError> {
    let now = creation.now;
    let (rules, options) = validate_new_game(request)?;
    let game = Game {
        id: creation.id.clone(),
        kind: rules.kind().to_owned(),
        rules_version: rules.newest_rules_version(),
        options,
        seat_count: request.seats,
        status: GameStatus::Open,
        seed: creation.seed,
        created_by: creator.account_id.clone(),
        created_at: now,
        updated_at: now,
        current_seq: 0,
        to_act: Vec::new(),
        outcome: None,
        time_control: request.time_control.normalised(),
        visibility: request.visibility,
        cancel_reason: None,
        title: match &request.title {
            Some(title) => Some(
                super::free_text::checked(
                    title,
                    super::free_text::Lines::One,
                    MOST_TITLE_CHARACTERS,
                )
                .map_err(|refusal| refusal.problem("invalid_title", "a game's title"))?,
            ),
            None => None,
        },
        settings: GameSettings {
            spectators_may_write: request.spectator_chat,
            rated: request.rated,
            clock_version: ClockVersion::NEWEST,
        },
    };
    let mut seats = vec![SeatRow {
        game_id: game.id.clone(),
        seat: i32::from(request.creator_seat()),
        account_id: Some(creator.account_id.clone()),
        joined_at: now,
        bot: None,
    }];
    seats.extend(request.bots.iter().map(|(seat, bot)| SeatRow {
        game_id: game.id.clone(),
        seat: i32::from(*seat),
        account_id: None,
        joined_at: now,
        bot: Some(bot.as_str().to_owned()),
    }));
    let invited = request
        .invite
        .iter()
        .map(|name| {
            invitations::invitee_by_name(conn, name).map(|account| (account.id, account.name))
        })
        .filter(|invitee| {
            invitee
                .as_ref()
                .map_or(true, |(id, _)| *id != creator.account_id)
        })
        .collect::<Result<Vec<(String, String)>, ApiError>>()?;
    // Between accounts one of which blocks the other there are no invitations: asked for,
    // one is refused; a rematch leaves such a player out of its table's invitations.
    let mut invitable = Vec::with_capacity(invited.len());
    for (id, name) in invited {
        match super::blocks::check_invitable(conn, &creator.account_id, &id, &name) {
            Ok(()) => invitable.push(id),
            Err(_) if rematch_of.is_some() => {}
            Err(refusal) => return Err(refusal),
        }
    }
    let invited = invitable;
    // Held until the game is written: creations at once on other instances cannot all
    // take the last open place.
    store::lock_account(conn, &creator.account_id)?;
    if store::count_open_games_created_by(conn, &creator.account_id)?
        >= i64::from(creation.open_games)
    {
        return Err(ApiError::conflict(
            "open_games_quota",
            format!(
                "you already have {} open games waiting for players; wait until one of \
                 them starts",
                creation.open_games
            ),
        ));
    }
    store::insert_game(conn, &game, &seats)?;
    store::settings::insert(
        conn,
        &game.id,
        game.settings,
        game.visibility,
        game.title.as_deref(),
    )?;
    if let Some(original) = rematch_of.as_deref() {
        store::link_rematch(conn, original, &game.id)?;
    }
    let invited = store::invite(conn, &game.id, &invited, now)?;
    invitations::notify_invited(conn, &game, &invited, creator, rematch_of.as_deref(), now)?;
    start_if_full(conn, &game.id, now)?;
    LoadedGame::load_shown(conn, &game.id)
}

/// One game with its seats, if `user` may see it.
pub fn get_game(db: &Db, game_id: &str, user: &AuthUser) -> Result<LoadedGame, ApiError> {
    db.read(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        Ok(super::people::with_people(conn, game)?)
    })
}

/// Which games to list.
#[derive(Debug, Clone, Default)]
pub struct GameQuery {
    /// Only games the caller sits in.
    pub mine: bool,
    /// Only games where the caller must act now (implies `mine` and running), nearest
    /// deadline first.
    pub my_turn: bool,
    /// Only games the caller is invited to.
    pub invited: bool,
    pub status: Option<GameStatus>,
    pub kind: Option<String>,
    /// Only public games, whoever lists (the archive, the games to watch).
    pub public_only: bool,
    /// Only games an account the caller follows sits in.
    pub following: bool,
    /// Only games all these accounts (names, any case) sit in.
    pub players: Vec<String>,
    /// Only finished games this account (a name, any case) placed first in.
    pub winner: Option<String>,
    pub options: Vec<store::OptionFilter>,
    pub time_control: Option<&'static str>,
    pub since: Option<i64>,
    pub until: Option<i64>,
    pub min_rating: Option<f64>,
    pub max_rating: Option<f64>,
    pub limit: i64,
    pub start: store::GameListStart,
}

/// One page of games, most recently active first; filtered and paged by the database.
/// `query.limit` rows at most: ask for one more than a page to learn whether more follow.
pub fn list_games(
    db: &Db,
    caller: &AuthUser,
    query: &GameQuery,
) -> Result<Vec<LoadedGame>, ApiError> {
    let filter = GameFilter {
        viewer: caller.account_id.clone(),
        member: query.mine.then(|| caller.account_id.clone()),
        invited: query.invited.then(|| caller.account_id.clone()),
        to_act: query.my_turn.then(|| caller.account_id.clone()),
        status: if query.my_turn {
            Some(GameStatus::Running)
        } else {
            query.status
        },
        kind: query.kind.clone(),
        public_only: query.public_only,
        followed_by: query.following.then(|| caller.account_id.clone()),
        players: Vec::new(),
        won_by: None,
        options: query.options.clone(),
        time_control: query.time_control,
        since: query.since,
        until: query.until,
        min_rating: query.min_rating,
        max_rating: query.max_rating,
        limit: query.limit,
        start: query.start.clone(),
    };
    db.read(|conn| {
        let mut filter = filter;
        for name in &query.players {
            filter
                .players
                .push(super::account_names::find_account(conn, name)?.id);
        }
        if let Some(name) = &query.winner {
            filter.won_by = Some(super::account_names::find_account(conn, name)?.id);
        }
        let mut games = store::list_games(conn, &filter)?
            .into_iter()
            .map(|(game, seats)| LoadedGame::with_seats(game, seats))
            .collect::<Result<Vec<LoadedGame>, ApiError>>()?;
        super::people::add_people(conn, &mut games)?;
        Ok(games)
    })
}

/// Seats `user` at the requested seat or the lowest open one; starts the game when that was
/// the last open seat. Returns the game as it stands after.
pub fn join_game(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    requested_seat: Option<u8>,
    now: i64,
) -> Result<LoadedGame, ApiError> {
    db.write(|conn| {
        take_seat(conn, game_id, user, requested_seat, now)?;
        start_if_full(conn, game_id, now)?;
        LoadedGame::load_shown(conn, game_id)
    })
}

/// Seats `user` in an open game; tells the creator of a private game when an invitee
/// accepted.
fn take_seat(
    conn: &mut DbConnection,
    game_id: &str,
    user: &AuthUser,
    requested_seat: Option<u8>,
    now: i64,
) -> Result<(), ApiError> {
    let game = seat_the_caller(conn, game_id, user, requested_seat, now)?;
    if game.game.visibility.invitation_only() && game.game.created_by != user.account_id {
        invitations::notify_accepted(conn, &game, user, now)?;
    }
    Ok(())
}

/// The game as read before the caller took a seat.
fn seat_the_caller(
    conn: &mut DbConnection,
    game_id: &str,
    user: &AuthUser,
    requested_seat: Option<u8>,
    now: i64,
) -> Result<LoadedGame, ApiError> {
    let game = LoadedGame::load_for(conn, game_id, user)?;
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
    if game.game.visibility.invitation_only()
        && game.game.created_by != user.account_id
        && (!store::invitations(conn, game_id)?.contains(&user.account_id)
            || store::moderation::blocked_either_way(
                conn,
                &game.game.created_by,
                &user.account_id,
            )?)
    {
        return Err(ApiError::forbidden(
            "not_invited",
            "this game is private: only invited accounts may join",
        ));
    }
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
            account_id: Some(user.account_id.clone()),
            joined_at: now,
            bot: None,
        },
    )
    .map_err(|error| match error {
        StoreError::Duplicate => ApiError::conflict("seat_taken", format!("seat {seat} is taken")),
        other => other.into(),
    })?;
    Ok(game)
}

/// Appends the engine's opening events once every seat is taken.
pub(super) fn start_if_full(
    conn: &mut DbConnection,
    game_id: &str,
    now: i64,
) -> Result<(), ApiError> {
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
    let append = game.append_after(table.as_mut(), events, None, &[], now, None)?;
    store::append(conn, &append)?;
    Ok(())
}

/// The creator cancels their open game; whoever sat down hears of it.
pub fn cancel_game(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    now: i64,
) -> Result<LoadedGame, ApiError> {
    db.write(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        if game.game.created_by != user.account_id {
            return Err(ApiError::forbidden(
                "not_the_creator",
                "only the game's creator can cancel it",
            ));
        }
        if !store::cancel_open_game(conn, game_id, CancelReason::Creator, now)? {
            return Err(not_open(&game));
        }
        notify_cancelled(conn, game_id, Some(&user.account_id), now)?;
        LoadedGame::load_shown(conn, game_id)
    })
}

/// A seated player other than the creator gives up their seat in an open game.
pub fn leave_game(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    now: i64,
) -> Result<LoadedGame, ApiError> {
    db.write(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        if !store::lock_open_game(conn, game_id, now)? {
            return Err(not_open(&game));
        }
        if game.game.created_by == user.account_id {
            return Err(ApiError::conflict(
                "creator_cannot_leave",
                "the creator cannot leave their own game; cancel it instead \
                 (POST /v1/games/{id}/cancel)",
            ));
        }
        if !store::leave_seat(conn, game_id, &user.account_id)? {
            return Err(ApiError::conflict(
                "not_seated",
                "you have no seat in this game",
            ));
        }
        LoadedGame::load_shown(conn, game_id)
    })
}

fn not_open(game: &LoadedGame) -> ApiError {
    ApiError::conflict(
        "game_not_open",
        format!(
            "game {} is {}; only an open game can be cancelled or left",
            game.game.id,
            game.game.status.as_str()
        ),
    )
}

/// Tells the accounts seated at a cancelled game (but `except` the one who cancelled it).
pub(super) fn notify_cancelled(
    conn: &mut DbConnection,
    game_id: &str,
    except: Option<&str>,
    now: i64,
) -> Result<(), ApiError> {
    let game = LoadedGame::load(conn, game_id)?;
    for seat in &game.seats {
        let Some(account_id) = seat.account_id.as_deref() else {
            continue;
        };
        if Some(account_id) == except {
            continue;
        }
        let payload = serde_json::json!({
            "type": "game_cancelled",
            "game_id": game_id,
            "game_kind": game.game.kind,
            "seq": game.game.current_seq,
            "seat": seat.seat,
            "to_act": [],
            "reason": game.game.cancel_reason.map(CancelReason::as_str),
        });
        let notification = store::notifications::NewNotification {
            account_id: account_id.to_owned(),
            game_id: game_id.to_owned(),
            kind: "game_cancelled".to_owned(),
            seq: game.game.current_seq,
            payload: payload.to_string(),
            created_at: now,
        };
        store::notifications::notify(conn, &notification, store::notifications::delivery_id)?;
    }
    Ok(())
}
