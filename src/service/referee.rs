//! What happens in a game without a request: a deadline passes, a bot must move, an open
//! game waits too long. Each is a job (`store::jobs`) that one instance claims at a time,
//! and each step is one guarded append like a player's action, so even a job claimed twice
//! (its lease lapsed while its instance was stalled) never records anything twice.

use rand::RngCore;
use serde_json::{json, Value};

use super::actions::decide;
use super::fold_cache::{Fold, FoldCache};
use super::notices::{notify_account, Notice};
use super::{GameStatus, LoadedGame};
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::bot_rng_for;
use crate::games::bots::BotStrategy;
use crate::games::engine::Seat;
use crate::games::server_events::{too_few_remain, Forfeit, ForfeitReason, ServerEvent};
use crate::games::{GameRules, Table};
use crate::store::jobs::{self, Claim, ClaimedJob, HeldJob, JobKind};
use crate::store::{self, ActionRow, CancelReason, Db, DbConnection, StoreError};

/// How long after a deadline the timeout is recorded: a move sent just before the deadline
/// has this long to commit first.
pub const TIMEOUT_GRACE_MS: i64 = 2_000;

/// What one append outside a player's action did: the game's new seq, and whether it ended
/// the game.
pub struct Appended {
    pub seq: i64,
    pub finished: bool,
}

/// Appends the forfeit of `forfeiting` to the game as loaded, guarded by its seq; `None`
/// when another writer got there first.
fn append_forfeits(
    conn: &mut DbConnection,
    cache: &FoldCache,
    game: &LoadedGame,
    forfeiting: &[Forfeit],
    now: i64,
) -> Result<Option<Appended>, ApiError> {
    let mut table = game.table_at(conn, cache, game.game.current_seq)?;
    let append = game.append_after(table.as_mut(), Vec::new(), None, forfeiting, now, None)?;
    match store::append(conn, &append) {
        Ok(seq) => Ok(Some(Appended {
            seq,
            finished: append.status == GameStatus::Finished,
        })),
        Err(StoreError::StaleSeq { .. }) => Ok(None),
        Err(other) => Err(other.into()),
    }
}

/// Refuses what only a running game takes: 409 `game_not_started` (saying `if_open`) or
/// `game_finished`.
fn require_running(game: &LoadedGame, if_open: &str) -> Result<(), ApiError> {
    match game.game.status {
        GameStatus::Running => Ok(()),
        GameStatus::Open => Err(ApiError::conflict("game_not_started", if_open)),
        GameStatus::Finished | GameStatus::Cancelled | GameStatus::Abandoned => {
            Err(ApiError::conflict("game_finished", "the game is over"))
        }
    }
}

/// The caller resigns their seat: in a two-player game the other seat wins at once; with
/// more players a bot plays the seat on and it ranks last. A resignation that would leave
/// a game to the bots alone is refused (409 `bot_games_quota`) while the caller already
/// left `most_left_to_bots` running games to them.
pub fn resign(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    user: &AuthUser,
    most_left_to_bots: u32,
    now: i64,
) -> Result<LoadedGame, ApiError> {
    db.write(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        let seat = game.seat_row_of(user).ok_or_else(|| {
            ApiError::forbidden("not_a_player", "only a seated player can resign")
        })?;
        require_running(
            &game,
            "an open game is left, not resigned: POST /v1/games/{id}/leave",
        )?;
        if seat.forfeit.is_some() {
            return Err(ApiError::conflict(
                "seat_forfeited",
                "your seat has already left the game",
            ));
        }
        let forfeiting = [Forfeit {
            seat: seat.seat,
            reason: ForfeitReason::Resigned,
        }];
        let mut forfeits = game.forfeits();
        forfeits.extend(forfeiting);
        let left_to_bots = !too_few_remain(game.game.seat_count, &forfeits)
            && !game
                .seats
                .iter()
                .any(|taken| taken.seat != seat.seat && taken.is_person_in_play());
        if left_to_bots
            && jobs::games_left_to_bots_by(conn, &user.account_id)? >= i64::from(most_left_to_bots)
        {
            return Err(ApiError::conflict(
                "bot_games_quota",
                format!(
                    "you left {most_left_to_bots} running games to the bots already; with \
                     this resignation only bots would play this one too: wait until one of \
                     them ends"
                ),
            ));
        }
        append_forfeits(conn, cache, &game, &forfeiting, now)?
            .ok_or_else(|| ApiError::stale_seq(game.game.current_seq))?;
        LoadedGame::load(conn, game_id)
    })
}

/// The seat of `account_id` in running game `game_id` forfeits because a moderator
/// suspended its player (a bot plays on where the game goes on); nothing when it does not
/// play there any more. Tried again when a move got there first.
pub(super) fn forfeit_suspended(
    db: &Db,
    cache: &FoldCache,
    game_id: &str,
    account_id: &str,
    now: i64,
) -> Result<(), ApiError> {
    loop {
        let appended = db.write(|conn| {
            let game = LoadedGame::load(conn, game_id)?;
            let Some(seat) = game
                .seats
                .iter()
                .find(|taken| taken.account_id.as_deref() == Some(account_id))
                .filter(|taken| taken.is_person_in_play())
            else {
                return Ok(Some(()));
            };
            if game.game.status != GameStatus::Running {
                return Ok(Some(()));
            }
            let forfeiting = [Forfeit {
                seat: seat.seat,
                reason: ForfeitReason::Suspended,
            }];
            Ok::<_, ApiError>(append_forfeits(conn, cache, &game, &forfeiting, now)?.map(drop))
        })?;
        if appended.is_some() {
            return Ok(());
        }
    }
}

/// The caller votes to abandon the game, or with `agree` false takes their vote back. The
/// game ends without a result once every seat a person still plays has voted (a vote cast
/// again when that is already so ends it too: a seat that forfeited after the others voted
/// leaves them complete). The other players still in play are told of each vote. Voting
/// twice, or withdrawing no vote, changes nothing.
pub fn vote_to_abandon(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    agree: bool,
    now: i64,
) -> Result<LoadedGame, ApiError> {
    db.write(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        let seat = game.seat_row_of(user).ok_or_else(|| {
            ApiError::forbidden("not_a_player", "only a seated player can vote to abandon")
        })?;
        require_running(&game, "an open game is cancelled or left, not abandoned")?;
        if !seat.is_person_in_play() {
            return Err(ApiError::conflict(
                "seat_forfeited",
                "your seat has left the game: a bot plays it and does not vote",
            ));
        }
        let seat = seat.seat;
        let mut votes: Vec<Seat> = game
            .seats
            .iter()
            .filter(|taken| taken.abandon_vote)
            .map(|taken| taken.seat)
            .collect();
        let mut events = Vec::new();
        if agree && !votes.contains(&seat) {
            votes.push(seat);
            events.push(ServerEvent::AbandonVoted { seat });
        } else if !agree && votes.contains(&seat) {
            votes.retain(|voter| *voter != seat);
            events.push(ServerEvent::AbandonVoteWithdrawn { seat });
        }
        let everyone_agrees = game
            .seats
            .iter()
            .filter(|taken| taken.is_person_in_play())
            .all(|taken| votes.contains(&taken.seat));
        let abandoned = agree && everyone_agrees;
        if abandoned {
            events.push(ServerEvent::GameAbandoned {});
        }
        if events.is_empty() {
            return Ok(game);
        }
        let append = game.append_server_events(&events, abandoned, now);
        match store::append(conn, &append) {
            Ok(_) => {}
            Err(StoreError::StaleSeq { .. }) => {
                return Err(ApiError::stale_seq(game.game.current_seq))
            }
            Err(other) => return Err(other.into()),
        }
        if events
            .iter()
            .any(|event| !matches!(event, ServerEvent::GameAbandoned {}))
        {
            store::set_abandon_vote(conn, game_id, seat, agree)?;
        }
        let after = LoadedGame::load(conn, game_id)?;
        if agree && !abandoned {
            for other in after.seats.iter().filter(|taken| taken.seat != seat) {
                let Some(account_id) = other.account_id.as_deref() else {
                    continue;
                };
                if !other.is_person_in_play() {
                    continue;
                }
                let notice = Notice {
                    kind: "abandon_vote",
                    seat: Some(other.seat),
                    by: Some(user),
                    ..Notice::default()
                };
                notify_account(conn, account_id, &after.game, &notice, now)?;
            }
        }
        Ok(after)
    })
}

/// Whether a job of `claim.kind` is due and free, read without a write lock.
pub fn any_due(db: &Db, claim: &Claim<'_>) -> Result<bool, ApiError> {
    Ok(db.read_without_transaction(|conn| {
        jobs::count_due(
            conn,
            claim.kind,
            claim.due_by,
            claim.now,
            claim.interactive_only,
        )
    })? > 0)
}

/// Takes the next due job of `claim.kind` for this instance, if any.
pub fn claim_job(db: &Db, claim: &Claim<'_>) -> Result<Option<ClaimedJob>, ApiError> {
    Ok(db.write(|conn| jobs::claim(conn, claim))?)
}

/// Gives a claimed job whose work failed back, to be tried again at `retry_at`.
pub fn postpone_job(
    db: &Db,
    kind: JobKind,
    job: &ClaimedJob,
    owner: &str,
    retry_at: i64,
) -> Result<(), ApiError> {
    Ok(db.write(|conn| jobs::postpone(conn, kind, &job.game_id, owner, retry_at))?)
}

/// Records, at `now`, the timeout of every seat of the claimed game whose deadline is at
/// least [`TIMEOUT_GRACE_MS`] past, and gives the job back; a job with nothing late left
/// (a move came in time) ends. A late seat whose player chose automatic vacation and has a
/// day left starts a day of vacation instead: its clock stands still with the time it had
/// (none), and the day's end brings the deadline back.
pub fn enforce_deadline(
    db: &Db,
    cache: &FoldCache,
    allowance: super::vacations::Allowance,
    job: &ClaimedJob,
    owner: &str,
    now: i64,
) -> Result<Option<Appended>, ApiError> {
    let late_by = now - TIMEOUT_GRACE_MS;
    db.write(|conn| {
        let mut game = LoadedGame::load(conn, &job.game_id)?;
        let late_seats = |game: &LoadedGame| -> Vec<(Seat, Option<String>)> {
            let running = game.game.status == GameStatus::Running;
            game.seats
                .iter()
                .filter(|taken| running && taken.bot.is_none() && taken.forfeit.is_none())
                .filter(|taken| {
                    taken
                        .clock
                        .deadline_ms
                        .is_some_and(|deadline| deadline <= late_by)
                })
                .map(|taken| (taken.seat, taken.account_id.clone()))
                .collect()
        };
        let mut away = false;
        for (_, account_id) in late_seats(&game) {
            if let Some(account_id) = account_id {
                away |= super::vacations::start_automatic_day(conn, allowance, &account_id, now)?;
            }
        }
        if away {
            // The seats now follow their players' vacations (this append stops their
            // clocks); the players' other games follow later in the same pass
            // (`vacations::bring_in_step`).
            game = LoadedGame::load(conn, &job.game_id)?;
        }
        let late: Vec<Forfeit> = late_seats(&game)
            .into_iter()
            .filter(|(seat, _)| {
                game.seat_row(*seat)
                    .and_then(|taken| taken.account_vacation_until)
                    .is_none_or(|until| until <= now)
            })
            .map(|(seat, _)| Forfeit {
                seat,
                reason: ForfeitReason::TimedOut,
            })
            .collect();
        if late.is_empty() && !away {
            jobs::finish(conn, JobKind::Deadline, job, owner)?;
            return Ok(None);
        }
        let appended = append_forfeits(conn, cache, &game, &late, now)?;
        jobs::release(conn, JobKind::Deadline, &job.game_id, owner)?;
        // A day of vacation instead is no timeout.
        Ok(appended.filter(|_| !late.is_empty()))
    })
}

/// Sends, at `now`, every reminder of the claimed game that is due and not sent yet (each
/// person whose clock runs, at each time before its deadline the person asked for, when the
/// clock gave the seat more time than that), and gives the job back due at the next one;
/// ends it when none is left. Returns how many it sent. A reminder is sent once whatever
/// instance finds it (the database records each).
pub fn send_reminders(db: &Db, job: &ClaimedJob, owner: &str, now: i64) -> Result<u32, ApiError> {
    db.write(|conn| {
        let game = LoadedGame::load(conn, &job.game_id)?;
        let mut sent = 0;
        let mut next: Option<i64> = None;
        if game.game.status == GameStatus::Running {
            for taken in game.seats.iter().filter(|taken| taken.is_person_in_play()) {
                let (Some(deadline), Some(account_id)) =
                    (taken.clock.deadline_ms, taken.account_id.as_deref())
                else {
                    continue;
                };
                // The time the clock gave: a reminder that would come when the clock started,
                // or before, says nothing the turn itself did not.
                let given_ms = game.game.time_control.time_given_ms(taken.clock);
                for minutes in store::reminders::reminder_minutes(conn, account_id)? {
                    let lead_ms = i64::from(minutes) * 60_000;
                    if lead_ms >= given_ms {
                        continue;
                    }
                    let due_at = deadline - lead_ms;
                    if due_at > now {
                        next = Some(next.map_or(due_at, |earliest| earliest.min(due_at)));
                        continue;
                    }
                    if now >= deadline
                        || !store::reminders::mark_sent(
                            conn,
                            &game.game.id,
                            i32::from(taken.seat),
                            deadline,
                            minutes,
                        )?
                    {
                        continue;
                    }
                    let notice = Notice {
                        kind: "reminder",
                        seat: Some(taken.seat),
                        deadline: Some(deadline),
                        ..Notice::default()
                    };
                    notify_account(conn, account_id, &game.game, &notice, now)?;
                    sent += 1;
                }
            }
        }
        match next {
            Some(due_at) => jobs::reschedule(conn, JobKind::Reminder, job, owner, due_at)?,
            None => jobs::finish(conn, JobKind::Reminder, job, owner)?,
        }
        Ok(sent)
    })
}

/// How a bot chooses its action: its strategy, the game's rules, the state, its seat and
/// the random stream of its move.
pub type BotThinking<'a> =
    dyn Fn(BotStrategy, &dyn GameRules, &dyn Table, Seat, &mut dyn RngCore) -> Value + 'a;

/// What playing one bot move came to.
pub enum BotMove {
    /// The move is in the log.
    Appended(Appended),
    /// The bot chose, but the game moved on meanwhile (a person acted in a simultaneous
    /// phase): the choice was thrown away and the job is due again.
    Discarded,
    /// No bot had to move.
    Nothing,
}

/// Plays one move for the first bot that must act in the claimed game. The bot thinks
/// outside any transaction, for as long as `think` allows, on the state it read; its move
/// is decided on that state and appended only if the game has not moved since, in the
/// write that gives the job back (on PostgreSQL one statement).
pub fn play_bot_move(
    db: &Db,
    cache: &FoldCache,
    job: &ClaimedJob,
    owner: &str,
    think: &BotThinking<'_>,
    now: impl Fn() -> i64,
) -> Result<BotMove, ApiError> {
    let game_id = job.game_id.as_str();
    // The game in one statement, then its events up to the seq it read: they agree
    // without a transaction (see `Db::read_without_transaction`).
    let thinking = db.read_without_transaction(|conn| {
        let game = LoadedGame::load(conn, game_id)?;
        if game.game.status != GameStatus::Running {
            return Ok(None);
        }
        let Some(&(seat, bot)) = game.bots_to_act().first() else {
            return Ok(None);
        };
        let fold = game.state_at(conn, cache, game.game.current_seq)?;
        Ok::<_, ApiError>(Some((game, fold, seat, bot)))
    })?;
    let Some((game, fold, seat, bot)) = thinking else {
        db.write(|conn| jobs::finish(conn, JobKind::Bot, job, owner))?;
        return Ok(BotMove::Nothing);
    };
    let seq = game.game.current_seq;
    let mut rng = bot_rng_for(game.game.seed, (seq + 1) as u64);
    let action = think(bot, game.rules, fold.table.as_ref(), seat, &mut rng);
    let now = now();
    let mut table = Fold::into_table(fold);
    let (action, events) = decide(&game, table.as_ref(), seat, &action)?;
    let bot_name = bot.as_str();
    let row = ActionRow {
        game_id: game_id.to_owned(),
        first_seq: seq + 1,
        last_seq: seq + events.len() as i64,
        seat: i32::from(seat),
        account_id: None,
        action: action.to_string(),
        idempotency_key: None,
        request: json!({"bot": bot_name, "action": action}).to_string(),
        created_at: now,
        bot: Some(bot_name.to_owned()),
    };
    let append = game.append_after(table.as_mut(), events, Some(seat), &[], now, Some(row))?;
    let held = HeldJob {
        kind: JobKind::Bot,
        owner,
    };
    match db.append_giving_back(&append, &held) {
        Ok(new_seq) => {
            let game = game.game;
            cache.put(&game.id, game.rules_version, &Fold::new(new_seq, table));
            Ok(BotMove::Appended(Appended {
                seq: new_seq,
                finished: append.status == GameStatus::Finished,
            }))
        }
        Err(StoreError::StaleSeq { .. }) => {
            db.write(|conn| jobs::release(conn, JobKind::Bot, game_id, owner))?;
            Ok(BotMove::Discarded)
        }
        Err(other) => Err(other.into()),
    }
}

/// Cancels the claimed open game as `expired` (it waited `due_at` plus the open-game time);
/// whether it was still open.
pub fn expire_open_game(
    db: &Db,
    job: &ClaimedJob,
    owner: &str,
    now: i64,
) -> Result<bool, ApiError> {
    db.write(|conn| {
        let cancelled = store::cancel_open_game(conn, &job.game_id, CancelReason::Expired, now)?;
        if cancelled {
            super::lobby::notify_cancelled(conn, &job.game_id, None, now)?;
        } else {
            jobs::finish(conn, JobKind::Expiry, job, owner)?;
        }
        Ok(cancelled)
    })
}
