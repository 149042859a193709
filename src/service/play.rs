//! Reading a game as one viewer may see it: its view, legal actions, log, export and board
//! at any seq (acting in it is `super::actions`).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fold_cache::{Fold, FoldCache, Rendering, SharedJson};
use super::{format_time, GameStatus, LoadedGame};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::bots::BotStrategy;
use crate::games::choices::{ActionTree, Choices};
use crate::games::engine::{Seat, Viewer};
use crate::games::server_events::{ServerEvent, ServerFold};
use crate::games::take_back::{self, TakeBack, TakeBackFold};
use crate::games::Table;
use crate::store::{self, ActionRow, Append, Db, DbConnection, StoredEvent};

/// One event of a log as one viewer may see it.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribedEvent {
    pub seq: i64,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// The seat whose action caused it; `None` for the opening events.
    pub seat: Option<Seat>,
    pub event_type: String,
    pub schema_version: u32,
    /// The typed event, redacted for the viewer.
    pub payload: Value,
    /// One line for people.
    pub text: String,
    /// Written by the server (clocks, forfeits, take-overs), not the engine.
    pub from_server: bool,
}

/// The game at one seq as one viewer may see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewAt {
    pub game_id: String,
    pub kind: String,
    pub seq: i64,
    pub viewer: Viewer,
    pub to_act: Vec<Seat>,
    /// The running clocks at this seq: seat and deadline (ms since the epoch).
    pub deadlines: Vec<(Seat, i64)>,
    pub finished: bool,
    pub view: ViewJson,
}

/// A game's own view as JSON text, written straight from the engine's typed view and put
/// into responses as it is: no `Value` tree is built and written again. Shared: the view of
/// a cached fold is written once for all its readers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ViewJson(SharedJson);

impl ViewJson {
    /// Written from `table` for this caller alone (a past seq, a replayed answer).
    pub(super) fn of(table: &dyn Table, viewer: Viewer) -> ViewJson {
        ViewJson(Arc::new(table.view_json(viewer)))
    }

    /// Written once per fold and viewer while `fold` is the game's cached one.
    pub(super) fn cached(
        cache: &FoldCache,
        game: &LoadedGame,
        fold: &Arc<Fold>,
        viewer: Viewer,
    ) -> ViewJson {
        ViewJson(cache.rendered(
            &game.game.id,
            game.game.rules_version,
            fold,
            Rendering::View(viewer),
            |table| table.view_json(viewer),
        ))
    }

    pub fn get(&self) -> &str {
        self.0.get()
    }

    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.get()).unwrap_or(Value::Null)
    }
}

impl PartialEq for ViewJson {
    fn eq(&self, other: &ViewJson) -> bool {
        self.get() == other.get()
    }
}

/// An accepted action: the events it appended and the actor's view after them.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    pub seq: i64,
    pub events: Vec<DescribedEvent>,
    pub view: ViewAt,
    /// Whether this request appended the events (not a retry answered with an earlier
    /// attempt's result).
    pub appended: bool,
}

/// The redacted, described form of the `events` after seq `after`, folded from `table`, the
/// state just before the first of `events` (those up to `after` are only folded); the state
/// after them all is returned. A take-back among them puts the state back to before the
/// action it takes back, which must lie among `events` too.
pub(super) fn describe_log(
    table: Box<dyn Table>,
    events: &[StoredEvent],
    after: i64,
    viewer: Viewer,
) -> Result<(Box<dyn Table>, Vec<DescribedEvent>), ApiError> {
    let mut fold = TakeBackFold::new(table, super::take_back_returns(events)?);
    let mut described = Vec::with_capacity(events.len());
    for event in events {
        let schema_version = super::stored_schema_version(event)?;
        if event.is_server_event() {
            if let Some(from_seq) = super::take_back_of(event)? {
                fold.take_back(event.seq, from_seq)?;
            }
            if event.seq > after {
                let (payload, text) = describe_server_event(event)?;
                described.push(described_event(event, schema_version, payload, text)?);
            }
        } else if event.seq > after {
            let (payload, text) =
                fold.before(event.seq)
                    .redact_and_apply(&event.payload, schema_version, viewer)?;
            described.push(described_event(event, schema_version, payload, text)?);
        } else {
            fold.before(event.seq)
                .apply(&event.payload, schema_version)?;
        }
    }
    Ok((fold.into_table(), described))
}

/// The events `append` wrote, described: the engine's from `engine_described` (in order,
/// as [`LoadedGame::append_described_after`] made them), the server's read here.
pub(super) fn describe_appended(
    append: &Append,
    engine_described: Vec<(Value, String)>,
) -> Result<Vec<DescribedEvent>, ApiError> {
    let mut engine_described = engine_described.into_iter();
    describe_with(&appended_events(append), |event, _| {
        engine_described
            .next()
            .ok_or_else(|| ApiError::Internal(format!("event {} was not described", event.seq)))
    })
}

/// `events` described: the engine's by `describe_engine_event` (given the event and its
/// schema version), the server's, which are public, read here.
fn describe_with(
    events: &[StoredEvent],
    mut describe_engine_event: impl FnMut(&StoredEvent, u32) -> Result<(Value, String), ApiError>,
) -> Result<Vec<DescribedEvent>, ApiError> {
    events
        .iter()
        .map(|event| {
            let schema_version = super::stored_schema_version(event)?;
            let (payload, text) = if event.is_server_event() {
                describe_server_event(event)?
            } else {
                describe_engine_event(event, schema_version)?
            };
            described_event(event, schema_version, payload, text)
        })
        .collect()
}

fn corrupt(event: &StoredEvent, column: &str) -> ApiError {
    ApiError::Internal(format!("event {} has a corrupt {column}", event.seq))
}

/// The server's events are public: nothing to redact.
fn describe_server_event(event: &StoredEvent) -> Result<(Value, String), ApiError> {
    let parsed: ServerEvent =
        serde_json::from_str(&event.payload).map_err(|_| corrupt(event, "payload"))?;
    Ok((
        serde_json::to_value(&parsed).map_err(|_| corrupt(event, "payload"))?,
        parsed.describe(format_time),
    ))
}

fn described_event(
    event: &StoredEvent,
    schema_version: u32,
    payload: Value,
    text: String,
) -> Result<DescribedEvent, ApiError> {
    Ok(DescribedEvent {
        seq: event.seq,
        created_at: event.created_at,
        seat: event
            .seat
            .map(Seat::try_from)
            .transpose()
            .map_err(|_| corrupt(event, "seat"))?,
        event_type: event.event_type.clone(),
        schema_version,
        payload,
        text,
        from_server: event.is_server_event(),
    })
}

/// The game at `seq` as `viewer` sees it: `view` is the table's view for that viewer.
pub(super) fn view_at(
    game: &LoadedGame,
    table: &dyn Table,
    seq: i64,
    viewer: Viewer,
    deadlines: Vec<(Seat, i64)>,
    view: ViewJson,
) -> ViewAt {
    let finished = seq == game.game.current_seq && game.game.status.is_over();
    ViewAt {
        game_id: game.game.id.clone(),
        kind: game.game.kind.clone(),
        seq,
        viewer,
        to_act: if finished { Vec::new() } else { table.to_act() },
        deadlines,
        finished: finished || table.outcome().is_some(),
        view,
    }
}

/// The running clocks at `seq`: the seats' own columns for the current seq, the fold of the
/// server's clock events before it for a past one.
pub(super) fn deadlines_at(
    conn: &mut DbConnection,
    game: &LoadedGame,
    seq: i64,
) -> Result<Vec<(Seat, i64)>, ApiError> {
    if let Some(deadlines) = deadlines_in_row(game, seq) {
        return Ok(deadlines);
    }
    let mut fold = ServerFold::default();
    for (_, event) in server_events(conn, game, seq)? {
        fold.apply(&event);
    }
    let mut deadlines: Vec<(Seat, i64)> = fold
        .clocks
        .iter()
        .filter_map(|(seat, clock)| Some((*seat, clock.deadline_ms?)))
        .collect();
    deadlines.sort_unstable();
    Ok(deadlines)
}

/// The running clocks at `seq` when the game's row tells them: an untimed game has none,
/// and the seats hold the deadlines of the game's current seq. `None` for a past seq of a
/// timed game, whose clocks are in its log.
fn deadlines_in_row(game: &LoadedGame, seq: i64) -> Option<Vec<(Seat, i64)>> {
    if !game.game.time_control.is_timed() {
        return Some(Vec::new());
    }
    (seq == game.game.current_seq).then(|| {
        game.seats
            .iter()
            .filter_map(|taken| Some((taken.seat, taken.clock.deadline_ms?)))
            .collect()
    })
}

/// Where a request finds what the game's row does not hold: the game's state at a seq,
/// and its clocks at a past seq. [`FromLog`] finds both, in the fold cache or else in the
/// log; the requests answered on their worker thread ([`super::play_on_worker`]) look in
/// the cache and the row alone.
pub(super) trait GameReads {
    type Error: From<ApiError>;

    fn state_at(&mut self, game: &LoadedGame, seq: i64) -> Result<Arc<Fold>, Self::Error>;

    fn deadlines_at(
        &mut self,
        game: &LoadedGame,
        seq: i64,
    ) -> Result<Vec<(Seat, i64)>, Self::Error>;

    /// The state at `seq`, the caller's own to change.
    fn table_at(&mut self, game: &LoadedGame, seq: i64) -> Result<Box<dyn Table>, Self::Error> {
        Ok(Fold::into_table(self.state_at(game, seq)?))
    }
}

/// The fold cache, then the game's log on a pooled connection.
pub(super) struct FromLog<'a> {
    pub(super) conn: &'a mut DbConnection,
    pub(super) cache: &'a FoldCache,
}

impl GameReads for FromLog<'_> {
    type Error = ApiError;

    fn state_at(&mut self, game: &LoadedGame, seq: i64) -> Result<Arc<Fold>, ApiError> {
        game.state_at(self.conn, self.cache, seq)
    }

    fn deadlines_at(&mut self, game: &LoadedGame, seq: i64) -> Result<Vec<(Seat, i64)>, ApiError> {
        deadlines_at(self.conn, game, seq)
    }
}

/// The fold cache and the game's row alone: what they do not hold is left to the pool's
/// path.
pub(super) struct FromCache<'a>(pub &'a FoldCache);

impl GameReads for FromCache<'_> {
    type Error = NotOnWorker;

    fn state_at(&mut self, game: &LoadedGame, seq: i64) -> Result<Arc<Fold>, NotOnWorker> {
        game.cached_state_at(self.0, seq)
            .ok_or(NotOnWorker::Elsewhere)
    }

    fn deadlines_at(
        &mut self,
        game: &LoadedGame,
        seq: i64,
    ) -> Result<Vec<(Seat, i64)>, NotOnWorker> {
        deadlines_in_row(game, seq).ok_or(NotOnWorker::Elsewhere)
    }
}

/// Why a request was not answered on the worker thread that took it.
#[derive(Debug)]
pub enum NotOnWorker {
    /// The answer is this refusal, as the pool's path would give it.
    Refused(ApiError),
    /// The pool's path answers: what the request needs is not in the fold cache, or the
    /// database could not be reached from the worker thread.
    Elsewhere,
}

impl From<ApiError> for NotOnWorker {
    fn from(error: ApiError) -> NotOnWorker {
        NotOnWorker::Refused(error)
    }
}

impl From<store::Unanswered> for NotOnWorker {
    fn from(unanswered: store::Unanswered) -> NotOnWorker {
        match unanswered {
            store::Unanswered::Refused(error) => NotOnWorker::Refused(error.into()),
            store::Unanswered::Elsewhere => NotOnWorker::Elsewhere,
        }
    }
}

/// The running clocks once `append` is committed.
pub(super) fn deadlines_after(game: &LoadedGame, append: &Append) -> Vec<(Seat, i64)> {
    game.seats
        .iter()
        .filter_map(|taken| {
            let clock = append
                .seat_updates
                .iter()
                .find(|update| update.seat == taken.seat)
                .map_or(taken.clock, |update| update.clock);
            Some((taken.seat, clock.deadline_ms?))
        })
        .collect()
}

pub(super) fn require_started(game: &LoadedGame) -> Result<(), ApiError> {
    if matches!(game.game.status, GameStatus::Open | GameStatus::Cancelled) {
        return Err(ApiError::conflict(
            "game_not_started",
            "the game starts when every seat is taken",
        ));
    }
    Ok(())
}

/// `at`, or the current seq when it is absent, if the log has reached it.
fn seq_within(at: Option<i64>, current_seq: i64) -> Result<i64, ApiError> {
    let seq = at.unwrap_or(current_seq);
    if seq < 0 {
        return Err(ApiError::bad_request(
            "invalid_query",
            "`at` must be at least 0",
        ));
    }
    if seq > current_seq {
        return Err(ApiError::conflict(
            "seq_out_of_range",
            format!("`at` must be between 0 and {current_seq}"),
        ));
    }
    Ok(seq)
}

/// The view at `at` (default: now).
pub fn view(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    at: Option<i64>,
) -> Result<ViewAt, ApiError> {
    db.read_without_transaction(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        view_of(&game, cache, user, at, &mut FromLog { conn, cache })
    })
}

/// [`view`] of a game read already.
pub(super) fn view_of<R: GameReads>(
    game: &LoadedGame,
    cache: &FoldCache,
    user: &AuthUser,
    at: Option<i64>,
    reads: &mut R,
) -> Result<ViewAt, R::Error> {
    require_started(game)?;
    let seq = seq_within(at, game.game.current_seq)?;
    let fold = reads.state_at(game, seq)?;
    let deadlines = reads.deadlines_at(game, seq)?;
    let viewer = game.viewer_for(user);
    let view = ViewJson::cached(cache, game, &fold, viewer);
    Ok(view_at(
        game,
        fold.table.as_ref(),
        seq,
        viewer,
        deadlines,
        view,
    ))
}

pub struct LegalActions {
    pub kind: String,
    pub seq: i64,
    pub seat: Option<Seat>,
    /// The actions as one JSON array: written straight from the engine's typed actions when
    /// nothing is filtered out, since Java's opening list is 190 KB, and once per seq.
    pub actions_json: SharedJson,
}

/// Which of the legal actions a client asks for, so that a UI can ask for what one click
/// can mean instead of every action (Java's opening lists hundreds).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionFilter {
    /// Only actions with this `type` tag.
    pub action_type: Option<String>,
    /// Only actions that name this space anywhere (`space`, `from`, `to`, `rice`, ...).
    pub space: Option<String>,
    /// Only actions whose `tile` is this tile kind.
    pub tile: Option<String>,
}

impl ActionFilter {
    fn keeps(&self, action: &Value) -> bool {
        let field_is = |field: &str, wanted: &Option<String>| {
            wanted
                .as_deref()
                .is_none_or(|wanted| action.get(field).and_then(Value::as_str) == Some(wanted))
        };
        field_is("type", &self.action_type)
            && field_is("tile", &self.tile)
            && self
                .space
                .as_deref()
                .is_none_or(|space| names(action, space))
    }
}

/// Whether `value` holds the string `name` anywhere.
fn names(value: &Value, name: &str) -> bool {
    match value {
        Value::String(text) => text == name,
        Value::Array(items) => items.iter().any(|item| names(item, name)),
        Value::Object(fields) => fields.values().any(|field| names(field, name)),
        _ => false,
    }
}

/// What the caller's seat may do now (nothing for a spectator or a seat that need not act),
/// as far as `filter` keeps.
pub fn legal_actions(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    filter: &ActionFilter,
) -> Result<LegalActions, ApiError> {
    db.read_without_transaction(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        legal_actions_of(&game, cache, user, filter, &mut FromLog { conn, cache })
    })
}

/// [`legal_actions`] in a game read already.
pub(super) fn legal_actions_of<R: GameReads>(
    game: &LoadedGame,
    cache: &FoldCache,
    user: &AuthUser,
    filter: &ActionFilter,
    reads: &mut R,
) -> Result<LegalActions, R::Error> {
    let seat = game.seat_of(user);
    let seq = game.game.current_seq;
    let actions_json = match seat_choosing(game, user) {
        Some(seat) => {
            let fold = reads.state_at(game, seq)?;
            if *filter == ActionFilter::default() {
                all_legal_actions(cache, game, &fold, seat)
            } else {
                let mut actions = fold.table.legal_actions(seat);
                actions.retain(|action| filter.keeps(action));
                json_array(&actions)?
            }
        }
        None => json_array(&[])?,
    };
    Ok(LegalActions {
        kind: game.game.kind.clone(),
        seq,
        seat,
        actions_json,
    })
}

/// Where a seat's picks lead among its legal actions now.
#[derive(Debug)]
pub struct LegalChoices {
    pub kind: String,
    pub seq: i64,
    pub seat: Option<Seat>,
    pub choices: Choices,
}

/// The step `picks` lead to in the tree of the caller's legal actions ([`ActionTree`]).
/// `at_seq`, when given, must be the game's seq: picks made at another seq mean nothing.
pub fn legal_choices(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    picks: &[String],
    at_seq: Option<i64>,
) -> Result<LegalChoices, ApiError> {
    db.read_without_transaction(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        let seat = game.seat_of(user);
        let seq = game.game.current_seq;
        if at_seq.is_some_and(|at| at != seq) {
            return Err(ApiError::stale_seq(seq));
        }
        let tree = match seat_choosing(&game, user) {
            Some(seat) => {
                let fold = game.state_at(conn, cache, seq)?;
                let actions = all_legal_actions(cache, &game, &fold, seat);
                ActionTree::from_json(actions.get()).map_err(|error| {
                    ApiError::Internal(format!("legal actions are not a list: {error}"))
                })?
            }
            None => ActionTree::default(),
        };
        let choices = tree.choose(picks).map_err(|error| {
            ApiError::conflict(
                "no_such_choice",
                format!("{error} (the legal actions are those at seq {seq})"),
            )
        })?;
        Ok(LegalChoices {
            kind: game.game.kind.clone(),
            seq,
            seat,
            choices,
        })
    })
}

/// The caller's seat if it has something to choose now: it must act in a running game and
/// no bot plays it.
fn seat_choosing(game: &LoadedGame, user: &AuthUser) -> Option<Seat> {
    let taken = game.seat_row_of(user)?;
    (game.game.status == GameStatus::Running
        && game.game.to_act.contains(&taken.seat)
        && taken.bot.is_none())
    .then_some(taken.seat)
}

/// Every legal action of `seat` in `fold`, written once per fold.
fn all_legal_actions(
    cache: &FoldCache,
    game: &LoadedGame,
    fold: &Arc<Fold>,
    seat: Seat,
) -> SharedJson {
    cache.rendered(
        &game.game.id,
        game.game.rules_version,
        fold,
        Rendering::LegalActions(seat),
        |table| table.legal_actions_json(seat),
    )
}

fn json_array(values: &[Value]) -> Result<SharedJson, ApiError> {
    serde_json::value::to_raw_value(values)
        .map(Arc::new)
        .map_err(|error| ApiError::Internal(format!("actions are not JSON: {error}")))
}

/// The events after some seq, as the caller may see them.
pub struct EventPage {
    pub kind: String,
    /// The game's seq now.
    pub current_seq: i64,
    pub events: Vec<DescribedEvent>,
}

/// The log after `after`, as the caller may see it: at most `limit` events, those with
/// `after < seq <= after + limit`.
pub fn events(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    after: i64,
    limit: i64,
) -> Result<EventPage, ApiError> {
    db.read(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        let current_seq = game.game.current_seq;
        let up_to = current_seq.min(after.saturating_add(limit));
        let events = described_between(conn, &game, game.viewer_for(user), after, up_to)?;
        Ok(EventPage {
            kind: game.game.kind.clone(),
            current_seq,
            events,
        })
    })
}

/// The events with `after < seq <= up_to` as `viewer` sees them, each with its text.
fn described_between(
    conn: &mut DbConnection,
    game: &LoadedGame,
    viewer: Viewer,
    after: i64,
    up_to: i64,
) -> Result<Vec<DescribedEvent>, ApiError> {
    let stored = game.load_events(conn, up_to)?;
    Ok(describe_log(game.empty_table()?, &stored, after, viewer)?.1)
}

/// How `user` sees game `game_id` (as a seat or a spectator), and its seq and status now:
/// one statement. A running game's seats do not change, so the viewer holds for every
/// event up to that seq.
pub fn viewer_now(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
) -> Result<(Viewer, i64, GameStatus), ApiError> {
    db.read_without_transaction(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        Ok((
            game.viewer_for(user),
            game.game.current_seq,
            game.game.status,
        ))
    })
}

/// The events with `after < seq <= up_to` as `viewer` sees them: what a stream sends its
/// followers, the same for every follower with that viewer.
pub fn events_for(
    db: &Db,
    game_id: &str,
    viewer: Viewer,
    after: i64,
    up_to: i64,
) -> Result<Vec<DescribedEvent>, ApiError> {
    db.read_without_transaction(|conn| {
        let game = LoadedGame::load(conn, game_id)?;
        described_between(conn, &game, viewer, after, up_to.min(game.game.current_seq))
    })
}

/// An accepted action as recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedAction {
    pub first_seq: i64,
    pub last_seq: i64,
    pub seat: Seat,
    pub action: Value,
    /// The bot that chose it; `None` for a player's action.
    pub bot: Option<BotStrategy>,
}

/// A game's whole history as one viewer may see it.
pub struct Export {
    pub game: LoadedGame,
    pub viewer: Viewer,
    pub events: Vec<DescribedEvent>,
    /// Finished games only.
    pub actions: Option<Vec<RecordedAction>>,
    /// Finished games only.
    pub seed: Option<String>,
    /// The game's chat, when asked for.
    pub chat: Option<Vec<crate::store::chat::ChatMessage>>,
}

/// The whole history: every secret once the game is finished, otherwise the caller's view;
/// the chat too when `with_chat`.
pub fn export(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    with_chat: bool,
) -> Result<Export, ApiError> {
    db.read(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        let finished = game.game.status.is_over();
        let viewer = if finished {
            Viewer::Omniscient
        } else {
            game.viewer_for(user)
        };
        let stored = game.load_events(conn, game.game.current_seq)?;
        let (_, events) = describe_log(game.empty_table()?, &stored, 0, viewer)?;
        let (actions, seed) = if finished {
            (
                Some(recorded_actions(store::load_actions(conn, game_id)?)?),
                Some(super::encode_seed(&game.game.seed)),
            )
        } else {
            (None, None)
        };
        let chat = if with_chat {
            Some(crate::store::chat::messages_after(
                conn,
                game_id,
                0,
                i64::MAX,
            )?)
        } else {
            None
        };
        Ok(Export {
            game,
            viewer,
            events,
            actions,
            seed,
            chat,
        })
    })
}

fn recorded_actions(rows: Vec<ActionRow>) -> Result<Vec<RecordedAction>, ApiError> {
    rows.into_iter()
        .map(|row| {
            let corrupt = || {
                ApiError::Internal(format!(
                    "the action stored at seq {} of game {} is corrupt",
                    row.first_seq, row.game_id
                ))
            };
            Ok(RecordedAction {
                first_seq: row.first_seq,
                last_seq: row.last_seq,
                seat: Seat::try_from(row.seat).map_err(|_| corrupt())?,
                action: serde_json::from_str(&row.action).map_err(|_| corrupt())?,
                bot: row
                    .bot
                    .as_deref()
                    .map(|bot| BotStrategy::parse(bot).ok_or_else(corrupt))
                    .transpose()?,
            })
        })
        .collect()
}

/// The game at one seq for a picture: the view, the events of the action that led there
/// (or the opening events), both as the viewer may see them, and who sits where.
pub struct BoardAt {
    pub view: ViewAt,
    pub last_events: Vec<DescribedEvent>,
    pub seat_names: Vec<Option<String>>,
}

/// The board at `at` (default: now) as `user` may see it.
pub fn board(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    at: Option<i64>,
) -> Result<BoardAt, ApiError> {
    db.read(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        require_started(&game)?;
        let seq = seq_within(at, game.game.current_seq)?;
        // The last action standing at `seq` with what the server wrote after it (its clock
        // events, a timeout, take-backs of later actions): an action's range ends with its
        // own events, so a seq past them still belongs to it. Only before the first action
        // is it the opening events.
        let taken_back = taken_back_ranges(conn, &game, seq)?;
        let first = store::load_actions(conn, &game.game.id)?
            .iter()
            .filter(|action| action.first_seq <= seq)
            .filter(|action| {
                !taken_back
                    .iter()
                    .any(|range| range.takes_back(action.first_seq))
            })
            .map(|action| action.first_seq)
            .max()
            .unwrap_or(1)
            .min(seq.max(1));
        let table = game.table_at(conn, cache, first - 1)?;
        let events = store::load_events_between(conn, &game.game.id, first - 1, seq)?;
        let viewer = game.viewer_for(user);
        let (table, mut last_events) = describe_log(table, &events, first - 1, viewer)?;
        // What a take-back took back is no longer what the board shows.
        last_events.retain(|event| !taken_back.iter().any(|range| range.takes_back(event.seq)));
        let deadlines = deadlines_at(conn, &game, seq)?;
        let view = ViewJson::of(table.as_ref(), viewer);
        let view = view_at(&game, table.as_ref(), seq, viewer, deadlines, view);
        Ok(BoardAt {
            view,
            last_events,
            seat_names: seat_names(&game),
        })
    })
}

/// Who sits at each seat, for a picture.
pub(super) fn seat_names(game: &LoadedGame) -> Vec<Option<String>> {
    (0..game.game.seat_count)
        .map(|seat| {
            game.seats
                .iter()
                .find(|taken| taken.seat == seat)
                .and_then(|taken| taken.display_name())
        })
        .collect()
}

/// The ranges of events the take-backs up to `seq` took back.
fn taken_back_ranges(
    conn: &mut DbConnection,
    game: &LoadedGame,
    seq: i64,
) -> Result<Vec<TakeBack>, ApiError> {
    let events = server_events(conn, game, seq)?;
    Ok(take_back::taken_back(events.iter().map(|(_, event)| event))
        .into_iter()
        .map(|(_, range)| range)
        .collect())
}

/// The server's events up to `seq`, read, with their seqs.
pub(super) fn server_events(
    conn: &mut DbConnection,
    game: &LoadedGame,
    seq: i64,
) -> Result<Vec<(i64, ServerEvent)>, ApiError> {
    read_server_events(&store::load_server_events(conn, &game.game.id, seq)?)
}

/// The server's events among `events`, read, with their seqs.
pub(super) fn read_server_events(
    events: &[StoredEvent],
) -> Result<Vec<(i64, ServerEvent)>, ApiError> {
    events
        .iter()
        .filter(|event| event.is_server_event())
        .map(|event| {
            let parsed: ServerEvent =
                serde_json::from_str(&event.payload).map_err(|_| corrupt(event, "payload"))?;
            Ok((event.seq, parsed))
        })
        .collect()
}

/// A game's seq and status now (what a waiter re-reads to notice appends made by any
/// instance).
pub fn progress(db: &Db, game_id: &str, user: &AuthUser) -> Result<(i64, GameStatus), ApiError> {
    db.read(|conn| {
        let game =
            store::find_game(conn, game_id)?.ok_or_else(|| ApiError::game_not_found(game_id))?;
        if game.visibility == super::Visibility::Private {
            LoadedGame::load_for(conn, game_id, user)?;
        }
        Ok((game.current_seq, game.status))
    })
}

/// The events of `append` as they now stand in the log.
pub(super) fn appended_events(append: &Append) -> Vec<StoredEvent> {
    append
        .events
        .iter()
        .enumerate()
        .map(|(offset, event)| StoredEvent {
            seq: append.expected_seq + 1 + offset as i64,
            created_at: append.now,
            seat: event.seat,
            event_type: event.event_type.clone(),
            schema_version: event.schema_version,
            payload: event.payload.clone(),
            source: event.source.to_owned(),
        })
        .collect()
}
