//! Games and their seats as stored: typed rows (status, seats, the cancel reason), creating,
//! finding and locking a game, taking and leaving seats, rematch links and abandon votes.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::AsyncPgConnection;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::jobs::{self, GameWork};
use super::on_backend;
use super::schema::{accounts, actions, events, game_settings, games, rematches, seats};
use super::settings::{settings_columns, GameSettings, SettingsColumns, Visibility};
use super::{DbConnection, StoreError};
use crate::games::bots::BotStrategy;
use crate::games::engine::Seat;
use crate::games::server_events::{ForfeitReason, SeatClock, Standing, TimeControl};

/// Where a game is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Waiting for players to take the open seats.
    Open,
    /// Every seat is taken and the game is being played.
    Running,
    /// The game is over; its export reveals everything, the seed included.
    Finished,
    /// The game never started: its creator cancelled it, or it expired waiting for players.
    Cancelled,
    /// Every seat a person played voted to stop: the game ended without a result. Its
    /// export reveals everything, as a finished game's does.
    Abandoned,
}

impl GameStatus {
    /// The stored (and wire) name.
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Open => "open",
            GameStatus::Running => "running",
            GameStatus::Finished => "finished",
            GameStatus::Cancelled => "cancelled",
            GameStatus::Abandoned => "abandoned",
        }
    }

    /// The game ended, with a result or abandoned: nothing is hidden any more.
    pub fn is_over(self) -> bool {
        matches!(self, GameStatus::Finished | GameStatus::Abandoned)
    }

    pub(super) fn parse(text: &str) -> Result<GameStatus, StoreError> {
        [
            GameStatus::Open,
            GameStatus::Running,
            GameStatus::Finished,
            GameStatus::Cancelled,
            GameStatus::Abandoned,
        ]
        .into_iter()
        .find(|status| status.as_str() == text)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown game status {text:?}")))
    }
}

/// A game as the rest of the server sees it: every column typed and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Game {
    pub id: String,
    pub kind: String,
    pub rules_version: u32,
    /// The options chosen at creation, with defaults filled in.
    pub options: Value,
    pub seat_count: u8,
    pub status: GameStatus,
    /// The secret seed (stored hex-encoded); revealed once the game is finished.
    pub seed: [u8; 32],
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub current_seq: i64,
    pub to_act: Vec<Seat>,
    pub outcome: Option<Standing>,
    pub time_control: TimeControl,
    /// Who may see it (and so who may join: only invited accounts unless it is public).
    pub visibility: Visibility,
    /// Why a cancelled game never started.
    pub cancel_reason: Option<CancelReason>,
    /// What it was created with beside its columns: chat, ratings.
    pub settings: GameSettings,
    /// The name its creator gave it, if any.
    pub title: Option<String>,
}

/// Why a game was cancelled before it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CancelReason {
    /// Its creator cancelled it.
    Creator,
    /// Nobody filled its seats in time.
    Expired,
    /// A moderator suspended its creator.
    Suspended,
}

impl CancelReason {
    pub fn as_str(self) -> &'static str {
        match self {
            CancelReason::Creator => "creator",
            CancelReason::Expired => "expired",
            CancelReason::Suspended => "suspended",
        }
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = games)]
pub(super) struct GameRow {
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
    pub time_control: String,
    /// The game is not public: listed only to its players and invitees, joined only by
    /// invitation. Its settings tell unlisted from private (see [`Visibility`]).
    pub private: bool,
    pub cancel_reason: Option<String>,
}

pub(super) fn corrupt(game: &str, column: &str, error: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("game {game}: column {column}: {error}"))
}

/// A game's row and its settings (nullable: from a left join), as loaded together.
pub(super) type GameWithSettings = (GameRow, SettingsColumns);

impl TryFrom<GameWithSettings> for Game {
    type Error = StoreError;

    fn try_from((row, settings): GameWithSettings) -> Result<Game, StoreError> {
        let id = row.id;
        Ok(Game {
            rules_version: u32::try_from(row.rules_version)
                .map_err(|error| corrupt(&id, "rules_version", error))?,
            options: serde_json::from_str(&row.options)
                .map_err(|error| corrupt(&id, "options", error))?,
            seat_count: u8::try_from(row.seat_count)
                .map_err(|error| corrupt(&id, "seat_count", error))?,
            status: GameStatus::parse(&row.status)?,
            to_act: serde_json::from_str(&row.to_act)
                .map_err(|error| corrupt(&id, "to_act", error))?,
            outcome: row
                .outcome
                .as_deref()
                .map(serde_json::from_str)
                .transpose()
                .map_err(|error| corrupt(&id, "outcome", error))?,
            seed: crate::games::decode_seed(&row.seed)
                .ok_or_else(|| corrupt(&id, "seed", "not 32 bytes of hex"))?,
            time_control: serde_json::from_str(&row.time_control)
                .map_err(|error| corrupt(&id, "time_control", error))?,
            visibility: GameSettings::visibility_of(&settings, row.private)
                .map_err(|text| corrupt(&id, "visibility", text))?,
            cancel_reason: match row.cancel_reason.as_deref() {
                None => None,
                Some("creator") => Some(CancelReason::Creator),
                Some("expired") => Some(CancelReason::Expired),
                Some("suspended") => Some(CancelReason::Suspended),
                Some(other) => return Err(corrupt(&id, "cancel_reason", other)),
            },

            title: GameSettings::title_of(&settings),
            kind: row.kind,
            created_by: row.created_by,
            created_at: row.created_at,
            updated_at: row.updated_at,
            current_seq: row.current_seq,
            settings: GameSettings::from_columns(settings),
            id,
        })
    }
}

impl From<&Game> for GameRow {
    fn from(game: &Game) -> GameRow {
        GameRow {
            id: game.id.clone(),
            kind: game.kind.clone(),
            rules_version: i32::try_from(game.rules_version).unwrap_or(i32::MAX),
            options: game.options.to_string(),
            seat_count: i32::from(game.seat_count),
            status: game.status.as_str().to_owned(),
            seed: crate::games::encode_seed(&game.seed),
            created_by: game.created_by.clone(),
            created_at: game.created_at,
            updated_at: game.updated_at,
            current_seq: game.current_seq,
            to_act: json_text(&game.to_act),
            outcome: game.outcome.as_ref().map(json_text),
            time_control: json_text(&game.time_control),
            private: game.visibility.invitation_only(),
            cancel_reason: game.cancel_reason.map(|reason| reason.as_str().to_owned()),
        }
    }
}

/// Plain data (numbers and strings) always serialises.
pub(super) fn json_text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A seat as it is taken: by an account, or by a bot at creation.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = seats)]
pub struct SeatRow {
    pub game_id: String,
    pub seat: i32,
    pub account_id: Option<String>,
    pub joined_at: i64,
    pub bot: Option<String>,
}

/// A taken seat with who sits there and its clock.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatWithName {
    pub seat: Seat,
    /// The account that sat down; `None` for a bot seated at creation. A seat a bot took
    /// over keeps the account that left it.
    pub account_id: Option<String>,
    pub account_name: Option<String>,
    /// Where the account's notifications went when the seat was read.
    pub channels: super::notifications::Channels,
    /// The bot that plays the seat, if one does.
    pub bot: Option<BotStrategy>,
    pub forfeit: Option<ForfeitReason>,
    pub clock: SeatClock,
    /// The seat's vote to abandon the game stands.
    pub abandon_vote: bool,
    /// Until when the seat's clock stands still for its player's vacation, as the log says.
    pub vacation_until: Option<i64>,
    /// Until when the seat's player is on vacation, as the account says (the next append
    /// brings the seat in line with it).
    pub account_vacation_until: Option<i64>,
}

impl SeatWithName {
    /// A person plays this seat: an account sat down, and no bot took over.
    pub fn is_person_in_play(&self) -> bool {
        self.account_id.is_some() && self.bot.is_none() && self.forfeit.is_none()
    }

    /// Who plays the seat, for people: the account's name, or the bot's, or both once a
    /// bot took the seat over.
    pub fn display_name(&self) -> Option<String> {
        match (&self.account_name, self.bot) {
            (Some(name), Some(bot)) => Some(format!("{name} ({} bot)", bot.as_str())),
            (Some(name), None) => Some(name.clone()),
            (None, Some(bot)) => Some(format!("{} bot", bot.as_str())),
            (None, None) => None,
        }
    }
}

/// A seat's changed columns after an append: its clock, and a bot and a forfeit once it
/// was taken over.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatUpdate {
    pub seat: Seat,
    pub clock: SeatClock,
    pub bot: Option<BotStrategy>,
    pub forfeit: Option<ForfeitReason>,
    /// Until when the seat's clock stands still for its player's vacation.
    pub vacation_until: Option<i64>,
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
    /// [`ENGINE_SOURCE`] or [`SERVER_SOURCE`].
    pub source: String,
}

impl StoredEvent {
    pub fn is_server_event(&self) -> bool {
        self.source == SERVER_SOURCE
    }
}

/// `events.source` of the server's own events (clocks, forfeits, take-overs); the engine's
/// are `engine`.
pub const SERVER_SOURCE: &str = "server";
pub const ENGINE_SOURCE: &str = "engine";

#[derive(Debug, Clone)]
pub struct NewEvent {
    pub seat: Option<i32>,
    pub event_type: String,
    pub schema_version: i32,
    pub payload: String,
    /// [`ENGINE_SOURCE`] or [`SERVER_SOURCE`].
    pub source: &'static str,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = actions)]
pub struct ActionRow {
    pub game_id: String,
    pub first_seq: i64,
    pub last_seq: i64,
    pub seat: i32,
    /// `None` for a bot's action.
    pub account_id: Option<String>,
    pub action: String,
    pub idempotency_key: Option<String>,
    pub request: String,
    pub created_at: i64,
    /// The bot that chose the action.
    pub bot: Option<String>,
}

/// A seated person who hears about an append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listener {
    pub seat: Seat,
    pub account_id: String,
    /// Where the account's notifications went when its seat was read.
    pub channels: super::notifications::Channels,
}

/// Everything one accepted command writes, appended atomically.
#[derive(Debug, Clone)]
pub struct Append {
    pub game_id: String,
    /// The game's kind, for the notifications.
    pub kind: String,
    /// The game's status and acting seats before these events, to tell whom they concern.
    pub previous_status: GameStatus,
    pub previous_to_act: Vec<Seat>,
    /// The seat whose action caused the events (none for the opening events).
    pub acting_seat: Option<Seat>,
    pub expected_seq: i64,
    pub events: Vec<NewEvent>,
    pub status: GameStatus,
    pub to_act: Vec<Seat>,
    pub outcome: Option<Standing>,
    pub now: i64,
    /// The action that caused the events (none for a game's opening events).
    pub action: Option<ActionRow>,
    /// Seats whose clock, bot or forfeit changed.
    pub seat_updates: Vec<SeatUpdate>,
    /// The seated people once the events are in, who hear about them: not bots, nor the
    /// accounts whose seats bots took over.
    pub listeners: Vec<Listener>,
    /// The account that created the game: whose turn it is when claims take turns.
    pub created_by: String,
    /// The background work the game had before these events, and has after them.
    pub work_before: GameWork,
    pub work_after: GameWork,
}

/// How many games `account_id` created that are still open (waiting for players).
pub fn count_open_games_created_by(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<i64, StoreError> {
    Ok(games::table
        .filter(games::created_by.eq(account_id))
        .filter(games::status.eq(GameStatus::Open.as_str()))
        .count()
        .get_result(conn)?)
}

/// Inserts a new (open) game with its first seats (the creator's and any bots'), and the
/// job that expires it should nobody fill its seats.
pub fn insert_game(
    conn: &mut DbConnection,
    game: &Game,
    seats: &[SeatRow],
) -> Result<(), StoreError> {
    diesel::insert_into(games::table)
        .values(GameRow::from(game))
        .execute(conn)
        .map_err(StoreError::from_insert)?;
    seats.iter().try_for_each(|seat| take_seat(conn, seat))?;
    jobs::add_expiry(conn, &game.id, &game.created_by, game.created_at)
}

pub fn find_game(conn: &mut DbConnection, id: &str) -> Result<Option<Game>, StoreError> {
    games::table
        .find(id)
        .left_join(game_settings::table)
        .select((GameRow::as_select(), settings_columns!().nullable()))
        .first::<GameWithSettings>(conn)
        .optional()?
        .map(Game::try_from)
        .transpose()
}

/// Locks an open game's row for the rest of the transaction (Postgres), so that concurrent
/// joins are serialised and exactly one of them sees the table full. Returns false when the
/// game is not open (or does not exist).
pub fn lock_open_game(conn: &mut DbConnection, id: &str, now: i64) -> Result<bool, StoreError> {
    let updated = diesel::update(
        games::table
            .find(id)
            .filter(games::status.eq(GameStatus::Open.as_str())),
    )
    .set(games::updated_at.eq(now))
    .execute(conn)?;
    Ok(updated == 1)
}

/// A taken seat as stored, with its account's name: seat, account, name, bot, forfeit,
/// deadline, time bank.
pub(super) type SeatColumns = (
    i32,
    Option<String>,
    Option<String>,
    Option<i32>,
    Option<i32>,
    Option<i32>,
    Option<String>,
    Option<String>,
    Option<i64>,
    i64,
    bool,
    Option<i64>,
    Option<i64>,
);

/// The columns of [`SeatColumns`] in a query that joins `seats` with `accounts`.
macro_rules! seat_columns {
    () => {
        (
            seats::seat,
            seats::account_id,
            accounts::name.nullable(),
            accounts::webhook_count.nullable(),
            accounts::mail_topics.nullable(),
            accounts::push_subscription_count.nullable(),
            seats::bot,
            seats::forfeit,
            seats::deadline,
            seats::bank_ms,
            seats::abandon_vote,
            seats::vacation_until,
            accounts::vacation_until.nullable(),
        )
    };
}

fn seat_from_columns(game_id: &str, columns: SeatColumns) -> Result<SeatWithName, StoreError> {
    let (
        seat,
        account_id,
        account_name,
        webhook_count,
        mail_topics,
        push_subscription_count,
        bot,
        forfeit,
        deadline,
        bank_ms,
        abandon_vote,
        vacation_until,
        account_vacation_until,
    ) = columns;
    let seat = Seat::try_from(seat).map_err(|error| corrupt(game_id, "seats.seat", error))?;
    let bot = bot
        .map(|bot| BotStrategy::parse(&bot).ok_or_else(|| corrupt(game_id, "seats.bot", bot)))
        .transpose()?;
    let forfeit = forfeit
        .map(|text| {
            ForfeitReason::parse(&text).ok_or_else(|| corrupt(game_id, "seats.forfeit", text))
        })
        .transpose()?;
    Ok(SeatWithName {
        seat,
        account_id,
        account_name,
        channels: super::notifications::Channels {
            webhooks: webhook_count.is_some_and(|count| count > 0),
            mail_topics: mail_topics.unwrap_or(0),
            push: push_subscription_count.is_some_and(|count| count > 0),
        },
        bot,
        forfeit,
        clock: SeatClock {
            deadline_ms: deadline,
            bank_ms,
        },
        abandon_vote,
        vacation_until,
        account_vacation_until,
    })
}

/// The taken seats of these games, by game, in seat order.
pub(super) fn seats_of(
    conn: &mut DbConnection,
    game_ids: Vec<String>,
) -> Result<HashMap<String, Vec<SeatWithName>>, StoreError> {
    let rows: Vec<(String, SeatColumns)> = seats::table
        .left_join(accounts::table)
        .filter(seats::game_id.eq_any(game_ids))
        .order((seats::game_id.asc(), seats::seat.asc()))
        .select((seats::game_id, seat_columns!()))
        .load(conn)?;
    let mut by_game: HashMap<String, Vec<SeatWithName>> = HashMap::new();
    for (game_id, columns) in rows {
        let seat = seat_from_columns(&game_id, columns)?;
        by_game.entry(game_id).or_default().push(seat);
    }
    Ok(by_game)
}

/// The rows a game with its seats is read as: the game once per taken seat, in seat order,
/// or once with no seat.
pub(super) type GameWithSeatsRows = Vec<(GameRow, SettingsColumns, Option<SeatColumns>)>;

/// The one statement that reads [`GameWithSeatsRows`] for the game `$id`. Joined flat, not
/// as `games ⟕ (seats ⟕ accounts)`: SQLite materialises a nested join by scanning every
/// seat of every game.
macro_rules! game_with_seats_rows {
    ($id:expr) => {
        games::table
            .left_join(game_settings::table)
            .left_join(seats::table)
            .left_join(accounts::table.on(seats::account_id.eq(accounts::id.nullable())))
            .filter(games::id.eq($id))
            .order(seats::seat.asc())
            .select((
                GameRow::as_select(),
                settings_columns!().nullable(),
                seat_columns!().nullable(),
            ))
    };
}

/// The game with its taken seats in seat order, read in one statement: one snapshot even
/// outside a transaction.
pub fn find_game_with_seats(
    conn: &mut DbConnection,
    id: &str,
) -> Result<Option<(Game, Vec<SeatWithName>)>, StoreError> {
    let rows: GameWithSeatsRows = on_backend!(conn, |c| game_with_seats_rows!(id).load(c))?;
    game_with_seats_from(id, rows)
}

/// [`find_game_with_seats`]'s statement on a worker thread's own connection
/// ([`super::worker_connections`]); [`game_with_seats_from`] reads its rows.
pub(super) async fn game_with_seats_rows_on(
    mut conn: &AsyncPgConnection,
    id: &str,
) -> Result<GameWithSeatsRows, diesel::result::Error> {
    let statement = GameReadWrittenOnce::new(id, game_with_seats_rows!(String::new()))?;
    diesel_async::RunQueryDsl::load(statement, &mut conn).await
}

/// [`game_with_seats_rows!`] with its SQL text written once per process. diesel-async writes
/// a query's text anew at every execution (and walks it again for its one parameter) even
/// when the statement is prepared: for this query of 40 quoted columns, 4 % of the server's
/// CPU under load (docs/performance.md, "The game read written once"). `Q` is the query's
/// type, whose rows this statement gives.
struct GameReadWrittenOnce<'a, Q> {
    before_id: &'static str,
    id: &'a str,
    after_id: &'static str,
    query: std::marker::PhantomData<Q>,
}

impl<'a, Q: diesel::query_builder::QueryFragment<diesel::pg::Pg>> GameReadWrittenOnce<'a, Q> {
    /// `query`, the game read with any id, is written out the first time only.
    fn new(id: &'a str, query: Q) -> Result<Self, diesel::result::Error> {
        static TEXT: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
        let (before_id, after_id) = match TEXT.get() {
            Some(text) => text,
            None => {
                let text = split_at_only_parameter(&query)?;
                TEXT.get_or_init(|| text)
            }
        };
        Ok(GameReadWrittenOnce {
            before_id,
            id,
            after_id,
            query: std::marker::PhantomData,
        })
    }
}

/// The SQL text of `query`, whose one parameter is the game's id, before and after it.
fn split_at_only_parameter(
    query: &impl diesel::query_builder::QueryFragment<diesel::pg::Pg>,
) -> Result<(String, String), diesel::result::Error> {
    use diesel::query_builder::QueryBuilder;
    let mut builder = diesel::pg::PgQueryBuilder::default();
    query.to_sql(&mut builder, &diesel::pg::Pg)?;
    let text = builder.finish();
    match text.split_once("$1") {
        Some((before, after)) if !after.contains('$') => Ok((before.to_owned(), after.to_owned())),
        _ => Err(diesel::result::Error::QueryBuilderError(
            format!("the game read has other parameters than the id: {text}").into(),
        )),
    }
}

impl<Q> diesel::query_builder::QueryFragment<diesel::pg::Pg> for GameReadWrittenOnce<'_, Q> {
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, diesel::pg::Pg>,
    ) -> QueryResult<()> {
        out.push_sql(self.before_id);
        out.push_bind_param::<diesel::sql_types::Text, _>(self.id)?;
        out.push_sql(self.after_id);
        Ok(())
    }
}

impl<Q> diesel::query_builder::QueryId for GameReadWrittenOnce<'_, Q> {
    type QueryId = GameReadWrittenOnce<'static, ()>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<Q: diesel::query_builder::Query> diesel::query_builder::Query for GameReadWrittenOnce<'_, Q> {
    type SqlType = Q::SqlType;
}

/// The game and its seats from the rows that read them; `None` when there were none.
pub(super) fn game_with_seats_from(
    id: &str,
    rows: GameWithSeatsRows,
) -> Result<Option<(Game, Vec<SeatWithName>)>, StoreError> {
    let mut rows = rows.into_iter();
    let Some((game, settings, first_seat)) = rows.next() else {
        return Ok(None);
    };
    let seats = first_seat
        .into_iter()
        .chain(rows.filter_map(|(_, _, seat)| seat))
        .map(|columns| seat_from_columns(id, columns))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some((Game::try_from((game, settings))?, seats)))
}

/// [`StoreError::Duplicate`] when the seat is taken or the account already sits there.
pub fn take_seat(conn: &mut DbConnection, seat: &SeatRow) -> Result<(), StoreError> {
    diesel::insert_into(seats::table)
        .values(seat)
        .execute(conn)
        .map_err(StoreError::from_insert)?;
    Ok(())
}

/// Frees `account_id`'s seat in an open game; whether it sat there.
pub fn leave_seat(
    conn: &mut DbConnection,
    game_id: &str,
    account_id: &str,
) -> Result<bool, StoreError> {
    let deleted = diesel::delete(
        seats::table
            .filter(seats::game_id.eq(game_id))
            .filter(seats::account_id.eq(account_id)),
    )
    .execute(conn)?;
    Ok(deleted == 1)
}

/// Marks an open game cancelled; false when it is no longer open.
pub fn cancel_open_game(
    conn: &mut DbConnection,
    game_id: &str,
    reason: CancelReason,
    now: i64,
) -> Result<bool, StoreError> {
    let updated = diesel::update(
        games::table
            .find(game_id)
            .filter(games::status.eq(GameStatus::Open.as_str())),
    )
    .set((
        games::status.eq(GameStatus::Cancelled.as_str()),
        games::cancel_reason.eq(reason.as_str()),
        games::updated_at.eq(now),
    ))
    .execute(conn)?;
    if updated == 1 {
        jobs::remove_expiry(conn, game_id)?;
    }
    Ok(updated == 1)
}

/// The games these games play again, as (rematch, original) pairs, for those that do.
pub fn rematched_games(
    conn: &mut DbConnection,
    rematch_ids: &[String],
) -> Result<Vec<(String, String)>, StoreError> {
    Ok(rematches::table
        .filter(rematches::rematch_id.eq_any(rematch_ids))
        .select((rematches::rematch_id, rematches::game_id))
        .load(conn)?)
}

/// Records whether `seat`'s vote to abandon its game stands (with the vote's event).
pub fn set_abandon_vote(
    conn: &mut DbConnection,
    game_id: &str,
    seat: Seat,
    agree: bool,
) -> Result<(), StoreError> {
    diesel::update(
        seats::table
            .filter(seats::game_id.eq(game_id))
            .filter(seats::seat.eq(i32::from(seat))),
    )
    .set(seats::abandon_vote.eq(agree))
    .execute(conn)?;
    Ok(())
}

/// Holds game `id`'s row until the transaction ends (PostgreSQL; SQLite has one writer).
pub fn lock_game(conn: &mut DbConnection, id: &str) -> Result<(), StoreError> {
    if let DbConnection::Postgresql(pg) = conn {
        games::table
            .find(id)
            .select(games::id)
            .for_update()
            .first::<String>(pg)
            .optional()?;
    }
    Ok(())
}

/// The game that plays `game_id` again, if one was asked for.
pub fn rematch_of(conn: &mut DbConnection, game_id: &str) -> Result<Option<String>, StoreError> {
    Ok(rematches::table
        .find(game_id)
        .select(rematches::rematch_id)
        .first(conn)
        .optional()?)
}

/// Records `rematch_id` as the game that plays `game_id` again.
pub fn link_rematch(
    conn: &mut DbConnection,
    game_id: &str,
    rematch_id: &str,
) -> Result<(), StoreError> {
    diesel::insert_into(rematches::table)
        .values((
            rematches::game_id.eq(game_id),
            rematches::rematch_id.eq(rematch_id),
        ))
        .execute(conn)
        .map_err(StoreError::from_insert)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_read_written_once_is_the_diesel_query_with_its_id() {
        for id in ["g1", "another game"] {
            let once = GameReadWrittenOnce::new(id, game_with_seats_rows!(String::new())).unwrap();
            assert_eq!(
                diesel::debug_query::<diesel::pg::Pg, _>(&once).to_string(),
                diesel::debug_query::<diesel::pg::Pg, _>(&game_with_seats_rows!(id)).to_string()
            );
        }
    }
}
