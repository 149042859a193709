//! The use cases between the HTTP layer and the store: accounts, the lobby, and playing a
//! game (load it with its seats, fold its log through the engine, decide and append). Every
//! function takes the database handle, runs its own transaction and returns domain results;
//! the handlers only translate them to and from JSON.

pub mod account_names;
pub mod accounts;
pub mod actions;
pub mod blocks;
pub mod chat;
pub mod email;
pub mod fold_cache;
pub mod follows;
pub mod free_text;
pub mod histories;
pub mod invitations;
pub mod lobby;
pub mod moderation;
pub mod notices;
pub mod notification_text;
pub mod people;
pub mod personal_tokens;
pub mod play;
pub mod play_on_worker;
pub mod profiles;
pub mod ratings;
pub mod referee;
pub mod rematches;
pub mod take_backs;
pub mod vacations;
pub mod web_push;
pub mod webhooks;

use std::sync::Arc;

use self::fold_cache::{Fold, FoldCache};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::bots::BotStrategy;
use crate::games::engine::{Seat, Viewer};
use crate::games::server_events::{
    too_few_remain, ClockTurn, Forfeit, ForfeitReason, SeatClock, ServerEvent, Standing,
};
use crate::games::take_back::TakeBackFold;
use crate::games::{encode_seed, seed_commitment};
use crate::games::{find_game_rules, GameRules, RecordedEvent, Table};
use crate::store::jobs::GameWork;
pub use crate::store::random_id;
use crate::store::{
    self, ActionRow, Append, DbConnection, Listener, NewEvent, SeatUpdate, StoredEvent,
    ENGINE_SOURCE, SERVER_SOURCE,
};

/// The bot that plays on for a seat whose player resigned or ran out of time.
pub const TAKE_OVER_BOT: BotStrategy = BotStrategy::Playouts;

/// RFC 3339 text for a stored millisecond timestamp (the games crate writes the times in the
/// server's event texts with it, so `turnpost verify` can write those texts again).
pub use crate::games::server_events::format_time;
pub use crate::store::{Game, GameStatus, SeatWithName, Visibility};

/// A game with its seats and its rules.
pub struct LoadedGame {
    pub game: Game,
    pub seats: Vec<SeatWithName>,
    pub rules: &'static dyn GameRules,
    /// The players' ratings, read for the answers that show them (see
    /// [`people::add_people`]); empty elsewhere.
    pub people: people::People,
}

impl LoadedGame {
    /// The game and its seats, read in one statement (so also consistent outside a
    /// transaction).
    fn load(conn: &mut DbConnection, id: &str) -> Result<LoadedGame, ApiError> {
        let (game, seats) =
            store::find_game_with_seats(conn, id)?.ok_or_else(|| ApiError::game_not_found(id))?;
        LoadedGame::with_seats(game, seats)
    }

    /// The game and its seats with [`people::People`], for an answer that shows the game.
    fn load_shown(conn: &mut DbConnection, id: &str) -> Result<LoadedGame, ApiError> {
        let game = LoadedGame::load(conn, id)?;
        Ok(people::with_people(conn, game)?)
    }

    /// The game `user` asks for by its id: a private game they have no part in is not
    /// found, exactly as an id no game has, so that its id tells an outsider nothing.
    fn load_for(
        conn: &mut DbConnection,
        id: &str,
        user: &AuthUser,
    ) -> Result<LoadedGame, ApiError> {
        let game = LoadedGame::load(conn, id)?;
        game.check_visible_to(conn, user)?;
        Ok(game)
    }

    /// Whether `user` may see the game at all: every game but a private one, and a private
    /// one to its seats (those that left a seat to a bot included) and, while it is open,
    /// to the accounts invited that have not declined.
    pub(crate) fn check_visible_to(
        &self,
        conn: &mut DbConnection,
        user: &AuthUser,
    ) -> Result<(), ApiError> {
        if self.visible_to(conn, user)? {
            Ok(())
        } else {
            Err(ApiError::game_not_found(&self.game.id))
        }
    }

    /// Whether `user` may see the game (see [`LoadedGame::check_visible_to`]).
    pub(crate) fn visible_to(
        &self,
        conn: &mut DbConnection,
        user: &AuthUser,
    ) -> Result<bool, ApiError> {
        Ok(match self.visible_without_invitations(user) {
            Some(visible) => visible,
            None => store::invitations(conn, &self.game.id)?.contains(&user.account_id),
        })
    }

    /// [`LoadedGame::check_visible_to`] as far as the game and its seats tell: `None` when
    /// only the game's invitations can (an open private game, to someone not seated).
    pub(crate) fn visible_without_invitations(&self, user: &AuthUser) -> Option<bool> {
        if self.game.visibility != Visibility::Private || self.seat_row_of(user).is_some() {
            return Some(true);
        }
        if self.game.status == GameStatus::Open {
            return None;
        }
        Some(false)
    }

    fn with_seats(game: Game, seats: Vec<SeatWithName>) -> Result<LoadedGame, ApiError> {
        let rules = find_game_rules(&game.kind).ok_or_else(|| {
            ApiError::Internal(format!("game {} has unknown kind {:?}", game.id, game.kind))
        })?;
        Ok(LoadedGame {
            game,
            seats,
            rules,
            people: people::People::default(),
        })
    }

    pub fn seat_of(&self, user: &AuthUser) -> Option<Seat> {
        self.seat_row_of(user).map(|seat| seat.seat)
    }

    pub fn seat_row_of(&self, user: &AuthUser) -> Option<&SeatWithName> {
        self.seats
            .iter()
            .find(|seat| seat.account_id.as_deref() == Some(user.account_id.as_str()))
    }

    fn seat_row(&self, seat: Seat) -> Option<&SeatWithName> {
        self.seats.iter().find(|taken| taken.seat == seat)
    }

    /// The seats that forfeited so far.
    fn forfeits(&self) -> Vec<Forfeit> {
        self.seats
            .iter()
            .filter_map(|seat| {
                seat.forfeit.map(|reason| Forfeit {
                    seat: seat.seat,
                    reason,
                })
            })
            .collect()
    }

    /// Seated callers see their own secrets; everyone else gets the spectator view.
    pub fn viewer_for(&self, user: &AuthUser) -> Viewer {
        self.seat_of(user).map_or(Viewer::Spectator, Viewer::Seat)
    }

    /// The public commitment to the game's seed, fixed when the game was created.
    pub fn seed_commitment(&self) -> String {
        seed_commitment(&self.game.seed)
    }

    /// The state before any event.
    fn empty_table(&self) -> Result<Box<dyn Table>, ApiError> {
        Ok(self.rules.new_table(
            &self.game.options,
            self.game.seat_count,
            self.game.rules_version,
        )?)
    }

    /// The state after the stored events, folded from scratch.
    fn fold(&self, events: &[StoredEvent]) -> Result<Box<dyn Table>, ApiError> {
        fold_onto(self.empty_table()?, events)
    }

    /// The state at `seq` when the fold cache holds it at exactly that seq.
    fn cached_state_at(&self, cache: &FoldCache, seq: i64) -> Option<Arc<Fold>> {
        cache
            .get(&self.game.id, self.game.rules_version, seq)
            .filter(|fold| fold.seq == seq)
    }

    /// The fold of the first `seq` events: from the cache and the events after its copy
    /// when it has one at or before `seq`, from scratch otherwise (also when a take-back
    /// after the copy returns to before it). The fold of the game's current seq is kept for
    /// the next request.
    fn state_at(
        &self,
        conn: &mut DbConnection,
        cache: &FoldCache,
        seq: i64,
    ) -> Result<Arc<Fold>, ApiError> {
        let cached = cache.get(&self.game.id, self.game.rules_version, seq);
        if let Some(fold) = cached.as_ref().filter(|fold| fold.seq == seq) {
            return Ok(fold.clone());
        }
        let from = cached.as_ref().map_or(0, |fold| fold.seq);
        let mut events = store::load_events_between(conn, &self.game.id, from, seq)?;
        let returns_before_copy = take_back_returns(&events)?
            .into_iter()
            .any(|returns_to| returns_to <= from);
        let table = match cached {
            Some(fold) if !returns_before_copy => fold_onto(Fold::into_table(fold), &events)?,
            _ => {
                if from > 0 {
                    let mut all = self.load_events(conn, from)?;
                    all.append(&mut events);
                    events = all;
                }
                self.fold(&events)?
            }
        };
        let fold = Fold::new(seq, table);
        if seq == self.game.current_seq {
            cache.put(&self.game.id, self.game.rules_version, &fold);
        }
        Ok(fold)
    }

    /// [`Self::state_at`] as a table of the caller's own, to fold on.
    fn table_at(
        &self,
        conn: &mut DbConnection,
        cache: &FoldCache,
        seq: i64,
    ) -> Result<Box<dyn Table>, ApiError> {
        Ok(Fold::into_table(self.state_at(conn, cache, seq)?))
    }

    fn load_events(
        &self,
        conn: &mut DbConnection,
        up_to: i64,
    ) -> Result<Vec<StoredEvent>, ApiError> {
        Ok(store::load_events(conn, &self.game.id, up_to)?)
    }

    /// Folds freshly decided engine `events` into `table` (the state at `current_seq`),
    /// adds what the server writes with them (forfeits and what follows from them, clocks)
    /// and returns everything to append: the events, the game's new status, turn and
    /// outcome, and the seats' new clocks.
    fn append_after(
        &self,
        table: &mut dyn Table,
        events: Vec<RecordedEvent>,
        seat: Option<Seat>,
        forfeiting: &[Forfeit],
        now: i64,
        action: Option<ActionRow>,
    ) -> Result<Append, ApiError> {
        self.append_described_after(table, events, seat, forfeiting, now, action, None)
            .map(|(append, _)| append)
    }

    /// [`Self::append_after`], and each engine event as `describe_for` may see it with its
    /// one-line text (from the same parse that folds it), when a viewer is given.
    #[allow(clippy::too_many_arguments)] // append_after's, and the viewer
    fn append_described_after(
        &self,
        table: &mut dyn Table,
        events: Vec<RecordedEvent>,
        seat: Option<Seat>,
        forfeiting: &[Forfeit],
        now: i64,
        action: Option<ActionRow>,
        describe_for: Option<Viewer>,
    ) -> Result<(Append, Vec<(serde_json::Value, String)>), ApiError> {
        let schema_version = self.rules.event_schema_version();
        let mut stored = Vec::with_capacity(events.len() + 2);
        let mut described = Vec::new();
        let ends_turn = events.iter().any(|event| event.ends_turn);
        for event in events {
            let payload = event.payload.to_string();
            match describe_for {
                Some(viewer) => {
                    described.push(table.redact_and_apply(&payload, schema_version, viewer)?)
                }
                None => table.apply(&payload, schema_version)?,
            }
            stored.push(NewEvent {
                seat: seat.map(i32::from),
                event_type: event.event_type,
                schema_version: schema_version as i32,
                payload,
                source: ENGINE_SOURCE,
            });
        }
        let mut server_events = Vec::new();
        let mut forfeits = self.forfeits();
        let mut updates: Vec<SeatUpdate> = self
            .seats
            .iter()
            .map(|taken| SeatUpdate {
                seat: taken.seat,
                clock: taken.clock,
                bot: taken.bot,
                forfeit: taken.forfeit,
                vacation_until: taken.vacation_until,
            })
            .collect();
        let mut ended_by_forfeit = None;
        for forfeit in forfeiting {
            server_events.push(match forfeit.reason {
                ForfeitReason::Resigned => ServerEvent::SeatResigned { seat: forfeit.seat },
                ForfeitReason::Suspended => ServerEvent::SeatSuspended { seat: forfeit.seat },
                ForfeitReason::TimedOut => ServerEvent::SeatTimedOut {
                    seat: forfeit.seat,
                    deadline_ms: self
                        .seat_row(forfeit.seat)
                        .and_then(|taken| taken.clock.deadline_ms)
                        .unwrap_or(now),
                },
            });
            forfeits.push(*forfeit);
            if let Some(update) = updates.iter_mut().find(|u| u.seat == forfeit.seat) {
                update.forfeit = Some(forfeit.reason);
            }
        }
        if !forfeiting.is_empty() {
            if too_few_remain(self.game.seat_count, &forfeits) {
                let standing = Standing::by_forfeit(table.scores(), &forfeits);
                server_events.push(ServerEvent::GameEndedByForfeit {
                    scores: standing.scores.clone(),
                    places: standing.places.clone(),
                });
                ended_by_forfeit = Some(standing);
            } else {
                for forfeit in forfeiting {
                    server_events.push(ServerEvent::SeatTakenOver {
                        seat: forfeit.seat,
                        bot: TAKE_OVER_BOT,
                    });
                    if let Some(update) = updates.iter_mut().find(|u| u.seat == forfeit.seat) {
                        update.bot = Some(TAKE_OVER_BOT);
                    }
                }
            }
        }
        let outcome = ended_by_forfeit.or_else(|| {
            table
                .outcome()
                .map(|outcome| Standing::after_play(&outcome, &forfeits))
        });
        let to_act = if outcome.is_some() {
            Vec::new()
        } else {
            table.to_act()
        };
        let starting = self.game.status == GameStatus::Open;
        let control = self.game.time_control;
        for update in &mut updates {
            let before = if starting {
                SeatClock {
                    deadline_ms: None,
                    bank_ms: control.initial_bank_ms(),
                }
            } else {
                update.clock
            };
            if update.bot.is_some() || outcome.is_some() {
                // Bots and finished games have no clock; a clock that ran stops silently
                // (the forfeit or the end says why), and so does a vacation.
                update.clock = SeatClock {
                    deadline_ms: None,
                    ..before
                };
                update.vacation_until = None;
                continue;
            }
            // The seat follows its player's vacation: the log says when it starts, moves
            // or ends, before the clock event it causes.
            let away_until = self
                .seat_row(update.seat)
                .and_then(|taken| taken.account_vacation_until)
                .filter(|until| *until > now);
            if away_until != update.vacation_until {
                server_events.push(match away_until {
                    Some(until_ms) => ServerEvent::VacationStarted {
                        seat: update.seat,
                        until_ms,
                    },
                    None => ServerEvent::VacationEnded { seat: update.seat },
                });
                update.vacation_until = away_until;
            }
            let is_acting = to_act.contains(&update.seat);
            let turn = ClockTurn {
                was_acting: !starting && self.game.to_act.contains(&update.seat),
                is_acting,
                turn_ended: self.game.settings.clock_version.turn_ended(
                    seat == Some(update.seat),
                    is_acting,
                    ends_turn,
                ),
                paused: away_until.is_some(),
            };
            let (clock, events) = control.advance(update.seat, before, turn, now);
            update.clock = clock;
            server_events.extend(events);
        }
        for event in server_events {
            stored.push(NewEvent {
                seat: None,
                event_type: event.event_type().to_owned(),
                schema_version: event.schema_version() as i32,
                payload: serde_json::to_string(&event).unwrap_or_default(),
                source: SERVER_SOURCE,
            });
        }
        let unchanged = |update: &SeatUpdate| {
            self.seat_row(update.seat).is_some_and(|taken| {
                taken.clock == update.clock
                    && taken.bot == update.bot
                    && taken.forfeit == update.forfeit
                    && taken.vacation_until == update.vacation_until
            })
        };
        let status = if outcome.is_some() {
            GameStatus::Finished
        } else {
            GameStatus::Running
        };
        let work_after = GameWork::of(
            updates.iter().map(|update| SeatWork {
                deadline: update.clock.deadline_ms,
                bot: update.bot.is_some(),
                person: update.bot.is_none()
                    && update.forfeit.is_none()
                    && self
                        .seat_row(update.seat)
                        .is_some_and(|taken| taken.account_id.is_some()),
                acting: to_act.contains(&update.seat),
            }),
            status,
        );
        let listeners = updates
            .iter()
            .filter(|update| update.bot.is_none())
            .filter_map(|update| {
                let taken = self.seat_row(update.seat)?;
                Some(Listener {
                    seat: update.seat,
                    account_id: taken.account_id.clone()?,
                    channels: taken.channels,
                })
            })
            .collect();
        updates.retain(|update| !unchanged(update));
        let append = Append {
            game_id: self.game.id.clone(),
            kind: self.game.kind.clone(),
            previous_status: self.game.status,
            previous_to_act: self.game.to_act.clone(),
            acting_seat: seat,
            expected_seq: self.game.current_seq,
            events: stored,
            status,
            to_act,
            outcome,
            now,
            action,
            seat_updates: updates,
            listeners,
            created_by: self.game.created_by.clone(),
            work_before: self.work(),
            work_after,
        };
        Ok((append, described))
    }

    /// The append of server events that leave the engine's state alone (votes to abandon),
    /// ending the game without a result when `abandoned`: every clock stops, nobody acts
    /// any more and the game's background work goes.
    fn append_server_events(&self, events: &[ServerEvent], abandoned: bool, now: i64) -> Append {
        let stored = events
            .iter()
            .map(|event| NewEvent {
                seat: None,
                event_type: event.event_type().to_owned(),
                schema_version: event.schema_version() as i32,
                payload: serde_json::to_string(event).unwrap_or_default(),
                source: SERVER_SOURCE,
            })
            .collect();
        let seat_updates = if abandoned {
            self.seats
                .iter()
                .filter(|taken| taken.clock.deadline_ms.is_some())
                .map(|taken| SeatUpdate {
                    seat: taken.seat,
                    clock: SeatClock {
                        deadline_ms: None,
                        ..taken.clock
                    },
                    bot: taken.bot,
                    forfeit: taken.forfeit,
                    vacation_until: taken.vacation_until,
                })
                .collect()
        } else {
            Vec::new()
        };
        let (status, to_act, work_after) = if abandoned {
            (GameStatus::Abandoned, Vec::new(), GameWork::default())
        } else {
            (self.game.status, self.game.to_act.clone(), self.work())
        };
        let listeners = self
            .seats
            .iter()
            .filter(|taken| taken.bot.is_none())
            .filter_map(|taken| {
                Some(Listener {
                    seat: taken.seat,
                    account_id: taken.account_id.clone()?,
                    channels: taken.channels,
                })
            })
            .collect();
        Append {
            game_id: self.game.id.clone(),
            kind: self.game.kind.clone(),
            previous_status: self.game.status,
            previous_to_act: self.game.to_act.clone(),
            acting_seat: None,
            expected_seq: self.game.current_seq,
            events: stored,
            status,
            to_act,
            outcome: None,
            now,
            action: None,
            seat_updates,
            listeners,
            created_by: self.game.created_by.clone(),
            work_before: self.work(),
            work_after,
        }
    }

    /// The append of a take-back by `seat` (`event`), with the seat's clock put back to
    /// `clock` where that differs from its clock now (and the event that says so). The
    /// seats to act stay those before the action, which are those of now.
    fn append_take_back(
        &self,
        seat: Seat,
        event: ServerEvent,
        clock: Option<SeatClock>,
        now: i64,
    ) -> Append {
        let mut events = vec![event];
        let mut seat_updates = Vec::new();
        if let (Some(clock), Some(taken)) = (clock, self.seat_row(seat)) {
            if clock != taken.clock {
                // A clock that counts turns kept its deadline through the action: nothing
                // to write but the seat's row.
                if let Some(deadline_ms) = clock
                    .deadline_ms
                    .filter(|_| clock.deadline_ms != taken.clock.deadline_ms)
                {
                    events.push(ServerEvent::ClockStarted {
                        seat,
                        deadline_ms,
                        time_left_ms: (deadline_ms - now).max(0),
                    });
                }
                seat_updates.push(SeatUpdate {
                    seat,
                    clock,
                    bot: taken.bot,
                    forfeit: taken.forfeit,
                    vacation_until: taken.vacation_until,
                });
            }
        }
        let mut append = self.append_server_events(&events, false, now);
        append.acting_seat = Some(seat);
        append.work_after = self.work_with(&seat_updates);
        append.seat_updates = seat_updates;
        append
    }

    /// The background work the game has as loaded: its earliest running deadline, and
    /// whether a bot must move.
    pub fn work(&self) -> GameWork {
        self.work_with(&[])
    }

    /// [`Self::work`] once the seats' `updates` are in.
    fn work_with(&self, updates: &[SeatUpdate]) -> GameWork {
        GameWork::of(
            self.seats.iter().map(|taken| SeatWork {
                deadline: updates
                    .iter()
                    .find(|update| update.seat == taken.seat)
                    .map_or(taken.clock, |update| update.clock)
                    .deadline_ms,
                bot: taken.bot.is_some(),
                person: taken.is_person_in_play(),
                acting: self.game.to_act.contains(&taken.seat),
            }),
            self.game.status,
        )
    }

    /// The bots that must act now, lowest seat first.
    pub fn bots_to_act(&self) -> Vec<(Seat, BotStrategy)> {
        self.seats
            .iter()
            .filter(|taken| self.game.to_act.contains(&taken.seat))
            .filter_map(|taken| taken.bot.map(|bot| (taken.seat, bot)))
            .collect()
    }
}

/// What one seat adds to its game's background work.
struct SeatWork {
    deadline: Option<i64>,
    bot: bool,
    /// A person plays the seat.
    person: bool,
    /// The seat must act now.
    acting: bool,
}

impl GameWork {
    fn of(seats: impl Iterator<Item = SeatWork>, status: GameStatus) -> GameWork {
        if status != GameStatus::Running {
            return GameWork::default();
        }
        let mut work = GameWork::default();
        let mut bot_acts = false;
        let mut person = false;
        for seat in seats {
            work.deadline = match (work.deadline, seat.deadline) {
                (Some(earliest), Some(deadline)) => Some(earliest.min(deadline)),
                (earliest, deadline) => earliest.or(deadline),
            };
            bot_acts |= seat.bot && seat.acting;
            person |= seat.person;
        }
        work.bot = bot_acts.then_some(person);
        work
    }
}

/// Folds stored events onto `table`, the state just before the first of them. The server's
/// own events do not concern the engine, but for a take-back, which puts the state back to
/// before the action it takes back (an action that must lie among `events`).
fn fold_onto(table: Box<dyn Table>, events: &[StoredEvent]) -> Result<Box<dyn Table>, ApiError> {
    let mut fold = TakeBackFold::new(table, take_back_returns(events)?);
    for event in events {
        if !event.is_server_event() {
            fold.before(event.seq)
                .apply(&event.payload, stored_schema_version(event)?)?;
        } else if let Some(from_seq) = take_back_of(event)? {
            fold.take_back(event.seq, from_seq)?;
        }
    }
    Ok(fold.into_table())
}

/// The seq a stored take-back returns to (the first seq it takes back); `None` for every
/// other event.
fn take_back_of(event: &StoredEvent) -> Result<Option<i64>, ApiError> {
    if !event.is_server_event() || event.event_type != "actions_taken_back" {
        return Ok(None);
    }
    match serde_json::from_str(&event.payload) {
        Ok(ServerEvent::ActionsTakenBack { from_seq, .. }) => Ok(Some(from_seq)),
        _ => Err(ApiError::Internal(format!(
            "event {} has a corrupt payload",
            event.seq
        ))),
    }
}

/// The seqs the take-backs among `events` return to.
fn take_back_returns(events: &[StoredEvent]) -> Result<Vec<i64>, ApiError> {
    events
        .iter()
        .filter_map(|event| take_back_of(event).transpose())
        .collect()
}

/// The schema version a stored event was written in.
fn stored_schema_version(event: &StoredEvent) -> Result<u32, ApiError> {
    u32::try_from(event.schema_version).map_err(|_| {
        ApiError::Internal(format!("event {} has a corrupt schema_version", event.seq))
    })
}

/// Milliseconds since the Unix epoch: the only clock the services read.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or_default()
}
