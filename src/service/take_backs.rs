//! Taking back one's last action within one's turn (see the games crate's
//! [`crate::games::take_back`] for what may be taken back): a server event appended under
//! the same seq guard as an action, with the seat's clock put back as it was before the
//! action, so an act and take-back never earns time.

use super::actions;
use super::fold_cache::FoldCache;
use super::play::{self, Accepted};
use super::LoadedGame;
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::engine::Seat;
use crate::games::server_events::{SeatClock, ServerEvent, ServerFold, TimeControl};
use crate::games::take_back::{self, LoggedAction, TakeBack, TakeBackRefusal, Taker};
use crate::games::{ReplayError, Table};
use crate::store::{self, Append, Db, DbConnection, StoreError};

/// A take-back checked, with what to append and the state it returns to.
struct Decided {
    game: LoadedGame,
    seat: Seat,
    table: Box<dyn Table>,
    append: Append,
}

/// Takes back `user`'s last action in game `game_id`, whose log must end at
/// `expected_seq`: the appended events and the player's view after them.
pub fn take_back(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    expected_seq: i64,
    now: i64,
) -> Result<Accepted, ApiError> {
    let Decided {
        game,
        seat,
        table,
        append,
    } =
        db.read_without_transaction(|conn| decide(conn, cache, game_id, user, expected_seq, now))?;
    let seq = db.write(|conn| match store::append(conn, &append) {
        Ok(seq) => Ok(seq),
        Err(StoreError::StaleSeq { current }) => Err(ApiError::stale_seq(current)),
        Err(other) => Err(other.into()),
    })?;
    let events = play::describe_appended(&append, Vec::new())?;
    Ok(actions::appended(
        cache, game, &append, seq, table, seat, events,
    ))
}

/// Whether `user` could take back their last action now; if not, the refusal a take-back
/// would answer (its code and why). Nothing is written: a page offers the take-back only
/// where it can succeed.
pub fn availability(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    now: i64,
) -> Result<Result<(), (&'static str, String)>, ApiError> {
    db.read_without_transaction(|conn| {
        let current_seq = LoadedGame::load_for(conn, game_id, user)?.game.current_seq;
        match decide(conn, cache, game_id, user, current_seq, now) {
            Ok(_) => Ok(Ok(())),
            Err(ApiError::Conflict { code, detail, .. } | ApiError::Forbidden { code, detail }) => {
                Ok(Err((code, detail)))
            }
            Err(other) => Err(other),
        }
    })
}

fn decide(
    conn: &mut DbConnection,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    expected_seq: i64,
    now: i64,
) -> Result<Decided, ApiError> {
    let game = LoadedGame::load_for(conn, game_id, user)?;
    let seat = game.seat_of(user).ok_or_else(|| {
        ApiError::forbidden(
            "not_a_player",
            "only a seated player can take back an action",
        )
    })?;
    actions::require_running(&game)?;
    let current_seq = game.game.current_seq;
    if expected_seq != current_seq {
        return Err(ApiError::stale_seq(current_seq));
    }
    actions::require_in_play(&game, seat, now)?;
    let now_table = game.state_at(conn, cache, current_seq)?;
    // Read outside a transaction: what was appended after the game was read is left out,
    // and the append's seq guard refuses this take-back then.
    let actions: Vec<LoggedAction> = store::load_actions(conn, game_id)?
        .iter()
        .filter(|row| row.first_seq <= current_seq)
        .map(|row| {
            Ok(LoggedAction {
                first_seq: row.first_seq,
                last_seq: row.last_seq,
                seat: Seat::try_from(row.seat).map_err(|_| {
                    ApiError::Internal(format!("the action at seq {} is corrupt", row.first_seq))
                })?,
            })
        })
        .collect::<Result<_, ApiError>>()?;
    // The whole log, once: its server events and the barriers of its engine events.
    let events = game.load_events(conn, current_seq)?;
    let server_events = play::read_server_events(&events)?;
    let rules = game.rules;
    let taker = Taker {
        seat,
        rules_version: game.game.rules_version,
    };
    let checked = take_back::check(
        seat,
        current_seq,
        now_table.table.to_act().contains(&seat),
        &actions,
        &server_events,
        |seq| {
            let event = usize::try_from(seq - 1)
                .ok()
                .and_then(|index| events.get(index))
                .filter(|event| event.seq == seq && !event.is_server_event());
            match event {
                Some(event) => {
                    let schema_version = u32::try_from(event.schema_version).map_err(|_| {
                        ReplayError::Corrupt(format!("event {seq} has a corrupt schema_version"))
                    })?;
                    rules.take_back_barrier(&event.payload, schema_version, taker)
                }
                None => Ok(None),
            }
        },
    )?
    .map_err(refused)?;
    let table = game.table_at(conn, cache, checked.from_seq - 1)?;
    if table.to_act() != now_table.table.to_act() {
        return Err(refused(TakeBackRefusal::TurnOver));
    }
    let clock = clock_before(&game, seat, checked, &server_events, now)?;
    let append = game.append_take_back(seat, checked.event(seat), clock, now);
    Ok(Decided {
        game,
        seat,
        table,
        append,
    })
}

fn refused(refusal: TakeBackRefusal) -> ApiError {
    ApiError::conflict(refusal.code(), refusal.message())
}

/// The seat's clock as it was before the action the take-back takes back, to put back;
/// `None` without a time control. Refused while the seat's clock stands still for a
/// vacation, or when a vacation began or ended since the action (the log keeps the time a
/// standing clock has left only where it stops, so the time before the action is not
/// known), and when the deadline before the action has passed.
fn clock_before(
    game: &LoadedGame,
    seat: Seat,
    taken_back: TakeBack,
    server_events: &[(i64, ServerEvent)],
    now: i64,
) -> Result<Option<SeatClock>, ApiError> {
    let control = game.game.time_control;
    if !control.is_timed() {
        return Ok(None);
    }
    let on_vacation = game
        .seat_row(seat)
        .is_some_and(|taken| taken.vacation_until.is_some());
    let vacation_since = server_events.iter().any(|(seq, event)| {
        *seq >= taken_back.from_seq
            && matches!(event,
                ServerEvent::VacationStarted { seat: away, .. }
                | ServerEvent::VacationEnded { seat: away } if *away == seat)
    });
    if on_vacation || vacation_since {
        return Err(ApiError::conflict(
            "clock_stood_still",
            "your clock stood still for a vacation during or since this action, so the time \
             it had before cannot be given back exactly: it cannot be taken back",
        ));
    }
    let mut fold = ServerFold::default();
    for (_, event) in server_events
        .iter()
        .take_while(|(seq, _)| *seq < taken_back.from_seq)
    {
        fold.apply(event);
    }
    let Some(deadline_ms) = fold
        .clocks
        .iter()
        .find(|(clocked, _)| *clocked == seat)
        .and_then(|(_, clock)| clock.deadline_ms)
    else {
        return Ok(None);
    };
    if deadline_ms <= now {
        return Err(ApiError::conflict(
            "deadline_passed",
            format!(
                "the deadline you had before this action, {}, has passed",
                super::format_time(deadline_ms)
            ),
        ));
    }
    Ok(Some(SeatClock {
        deadline_ms: Some(deadline_ms),
        bank_ms: match control {
            TimeControl::TimeBank { .. } => deadline_ms - now,
            _ => 0,
        },
    }))
}
