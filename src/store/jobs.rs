//! Background work as rows of the `jobs` table: a deadline to enforce, a bot to move, an
//! open game to expire, one row per game and kind, written by the same transactions that
//! change the game (so a job can never be lost or outlive its cause).
//!
//! An instance claims a due row by writing its name and a lease into it. On PostgreSQL the
//! claim locks the chosen row `FOR UPDATE SKIP LOCKED`, so instances racing for work each
//! take a different row without waiting for each other; on SQLite, whose one writer is this
//! process, the same statement runs without it. The lease lapses when the instance dies, and
//! another one claims the row again. Claims take turns between accounts: among the due
//! rows, each account's oldest comes before any account's second.

use diesel::prelude::*;
use diesel::query_builder::SqlQuery;
use diesel::sql_types::{BigInt, Bool, Text};

use super::schema::jobs;
use super::{Change, DbConnection, StoreError};

/// What a job is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// A seat's clock runs; `due_at` is the earliest deadline.
    Deadline,
    /// A bot must move; `due_at` is when its turn came.
    Bot,
    /// An open game waits for players; `due_at` is when it was created.
    Expiry,
    /// A seat's clock runs and its player wants reminders; `due_at` is when the next one is
    /// due (or when a deadline changed, to work that out).
    Reminder,
}

impl JobKind {
    pub const ALL: [JobKind; 4] = [
        JobKind::Deadline,
        JobKind::Bot,
        JobKind::Expiry,
        JobKind::Reminder,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Deadline => "deadline",
            JobKind::Bot => "bot",
            JobKind::Expiry => "expiry",
            JobKind::Reminder => "reminder",
        }
    }
}

/// The background work a running game has, as its seats say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameWork {
    /// The earliest deadline of a running clock.
    pub deadline: Option<i64>,
    /// A bot must move; `Some(true)` when a person still plays the game and so waits for it.
    pub bot: Option<bool>,
}

/// A job this instance now holds.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct ClaimedJob {
    #[diesel(sql_type = Text)]
    pub game_id: String,
    #[diesel(sql_type = Text)]
    pub account_id: String,
    #[diesel(sql_type = BigInt)]
    pub due_at: i64,
    #[diesel(sql_type = Bool)]
    pub interactive: bool,
}

/// A job an instance holds while it works on it, to give back with the work's write.
#[derive(Debug, Clone, Copy)]
pub struct HeldJob<'a> {
    pub kind: JobKind,
    /// The holding instance's name: only its own lease is given back.
    pub owner: &'a str,
}

/// What to claim, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    pub kind: JobKind,
    /// The claiming instance's name.
    pub owner: &'a str,
    pub now: i64,
    /// Only jobs with `due_at` at or before this (now, less the worker's margin).
    pub due_by: i64,
    /// The lease lapses then.
    pub lease_until: i64,
    /// Only jobs a person waits for.
    pub interactive_only: bool,
}

/// A statement written with PostgreSQL's `$n` placeholders, for either backend (SQLite
/// reads `?n` the same way).
pub(super) fn statement(conn: &DbConnection, postgres_sql: &str) -> SqlQuery {
    match conn {
        DbConnection::Postgresql(_) => diesel::sql_query(postgres_sql),
        DbConnection::Sqlite(_) => diesel::sql_query(postgres_sql.replace('$', "?")),
    }
}

/// Runs a bound statement on either backend.
macro_rules! on_backend {
    ($conn:expr, $query:expr, $run:ident) => {
        match $conn {
            DbConnection::Postgresql(pg) => $query.$run(pg),
            DbConnection::Sqlite(sqlite) => $query.$run(sqlite),
        }
    };
}

/// Takes the due job of `claim.kind` that comes first: jobs a person waits for before the
/// others, then the job of the account with the fewest jobs in hand and waiting longer
/// (each account's oldest before any account's second, counting what it holds already),
/// then the oldest.
pub fn claim(conn: &mut DbConnection, claim: &Claim<'_>) -> Result<Option<ClaimedJob>, StoreError> {
    let skip_locked = match conn {
        DbConnection::Postgresql(_) => "FOR UPDATE OF candidate SKIP LOCKED",
        DbConnection::Sqlite(_) => "",
    };
    // An account's turn among the free jobs counts its jobs in hand: held ones rank first
    // in its partition, so a free job's rank is one more than the account's held jobs and
    // earlier free ones.
    let sql = format!(
        "UPDATE jobs SET lease_owner = $1, lease_until = $2
         WHERE kind = $3 AND game_id = (
             SELECT candidate.game_id FROM jobs candidate
             JOIN (SELECT game_id, row_number() OVER (
                       PARTITION BY account_id, interactive
                       ORDER BY (lease_until IS NOT NULL AND lease_until >= $5) DESC,
                           due_at, game_id) AS turn
                   FROM jobs
                   WHERE kind = $3
                     AND (due_at <= $4 OR (lease_until IS NOT NULL AND lease_until >= $5))
                     AND (interactive OR NOT $6)) ranked
               ON ranked.game_id = candidate.game_id
             WHERE candidate.kind = $3 AND candidate.due_at <= $4
               AND (candidate.lease_until IS NULL OR candidate.lease_until < $5)
             ORDER BY candidate.interactive DESC, ranked.turn, candidate.due_at,
                 candidate.game_id
             LIMIT 1
             {skip_locked})
         RETURNING game_id, account_id, due_at, interactive"
    );
    let query = statement(conn, &sql)
        .bind::<Text, _>(claim.owner)
        .bind::<BigInt, _>(claim.lease_until)
        .bind::<Text, _>(claim.kind.as_str())
        .bind::<BigInt, _>(claim.due_by)
        .bind::<BigInt, _>(claim.now)
        .bind::<Bool, _>(claim.interactive_only);
    let claimed: Vec<ClaimedJob> = on_backend!(conn, query, load)?;
    Ok(claimed.into_iter().next())
}

/// Gives a held job back: it stays due if its work is not done, and any instance may claim
/// it again.
pub fn release(
    conn: &mut DbConnection,
    kind: JobKind,
    game_id: &str,
    owner: &str,
) -> Result<(), StoreError> {
    diesel::update(
        jobs::table
            .find((kind.as_str(), game_id))
            .filter(jobs::lease_owner.eq(owner)),
    )
    .set((
        jobs::lease_owner.eq(None::<String>),
        jobs::lease_until.eq(None::<i64>),
    ))
    .execute(conn)?;
    Ok(())
}

/// Gives a held job whose work failed back, due again only at `retry_at`, so a job that
/// keeps failing does not keep a worker busy.
pub fn postpone(
    conn: &mut DbConnection,
    kind: JobKind,
    game_id: &str,
    owner: &str,
    retry_at: i64,
) -> Result<(), StoreError> {
    diesel::update(
        jobs::table
            .find((kind.as_str(), game_id))
            .filter(jobs::lease_owner.eq(owner)),
    )
    .set((
        jobs::due_at.eq(retry_at),
        jobs::lease_owner.eq(None::<String>),
        jobs::lease_until.eq(None::<i64>),
    ))
    .execute(conn)?;
    Ok(())
}

/// Gives a held job back due again at `due_at`, unless the game has given it new work since
/// it was claimed (its `due_at` moved): then it only gives it back.
pub fn reschedule(
    conn: &mut DbConnection,
    kind: JobKind,
    claimed: &ClaimedJob,
    owner: &str,
    due_at: i64,
) -> Result<(), StoreError> {
    diesel::update(
        jobs::table
            .find((kind.as_str(), &claimed.game_id))
            .filter(jobs::lease_owner.eq(owner))
            .filter(jobs::due_at.eq(claimed.due_at)),
    )
    .set(jobs::due_at.eq(due_at))
    .execute(conn)?;
    release(conn, kind, &claimed.game_id, owner)
}

/// Removes a held job that turned out to have nothing to do, unless the game has given it
/// new work since it was claimed (its `due_at` moved).
pub fn finish(
    conn: &mut DbConnection,
    kind: JobKind,
    claimed: &ClaimedJob,
    owner: &str,
) -> Result<(), StoreError> {
    diesel::delete(
        jobs::table
            .find((kind.as_str(), &claimed.game_id))
            .filter(jobs::lease_owner.eq(owner))
            .filter(jobs::due_at.eq(claimed.due_at)),
    )
    .execute(conn)?;
    release(conn, kind, &claimed.game_id, owner)
}

/// The earliest `due_at` of the jobs of `kind` nobody holds, for a worker deciding how long
/// it may sleep.
pub fn earliest_due(
    conn: &mut DbConnection,
    kind: JobKind,
    now: i64,
) -> Result<Option<i64>, StoreError> {
    Ok(jobs::table
        .filter(jobs::kind.eq(kind.as_str()))
        .filter(jobs::lease_until.is_null().or(jobs::lease_until.lt(now)))
        .select(diesel::dsl::min(jobs::due_at))
        .first::<Option<i64>>(conn)?)
}

/// Jobs of `kind` due by `due_by` that nobody holds (only those a person waits for, when
/// `interactive_only`).
pub fn count_due(
    conn: &mut DbConnection,
    kind: JobKind,
    due_by: i64,
    now: i64,
    interactive_only: bool,
) -> Result<i64, StoreError> {
    let mut query = jobs::table
        .filter(jobs::kind.eq(kind.as_str()))
        .filter(jobs::due_at.le(due_by))
        .filter(jobs::lease_until.is_null().or(jobs::lease_until.lt(now)))
        .into_boxed();
    if interactive_only {
        query = query.filter(jobs::interactive.eq(true));
    }
    Ok(query.count().get_result(conn)?)
}

fn put(
    conn: &mut DbConnection,
    kind: JobKind,
    game_id: &str,
    account_id: &str,
    due_at: i64,
    interactive: bool,
) -> Result<(), StoreError> {
    // The lease stays: an instance holding the job gives it back itself, once its own
    // append (which may be the one writing here) has committed.
    let query = statement(
        conn,
        "INSERT INTO jobs (kind, game_id, account_id, due_at, interactive)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (kind, game_id)
         DO UPDATE SET due_at = excluded.due_at, interactive = excluded.interactive",
    )
    .bind::<Text, _>(kind.as_str())
    .bind::<Text, _>(game_id)
    .bind::<Text, _>(account_id)
    .bind::<BigInt, _>(due_at)
    .bind::<Bool, _>(interactive);
    on_backend!(conn, query, execute)?;
    Ok(())
}

fn remove(conn: &mut DbConnection, kind: JobKind, game_id: &str) -> Result<(), StoreError> {
    diesel::delete(jobs::table.find((kind.as_str(), game_id))).execute(conn)?;
    Ok(())
}

/// An open game waits for players from `created_at` on.
pub fn add_expiry(
    conn: &mut DbConnection,
    game_id: &str,
    account_id: &str,
    created_at: i64,
) -> Result<(), StoreError> {
    put(
        conn,
        JobKind::Expiry,
        game_id,
        account_id,
        created_at,
        false,
    )
}

/// The game no longer waits for players (it started or was cancelled).
pub fn remove_expiry(conn: &mut DbConnection, game_id: &str) -> Result<(), StoreError> {
    remove(conn, JobKind::Expiry, game_id)
}

/// What an append changes in its game's jobs.
pub struct AfterAppend {
    pub started: bool,
    pub running: bool,
    pub before: GameWork,
    pub after: GameWork,
    /// A seat's clock started or stopped: its reminders are worked out again.
    pub clocks_changed: bool,
    pub now: i64,
}

/// A job row written by an append: inserted, or its due time and flag replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PutJob {
    pub kind: JobKind,
    pub due_at: i64,
    pub interactive: bool,
}

/// The rows an append writes in its game's jobs, worked out once for both ways of writing
/// an append (statement by statement, or PostgreSQL's single statement).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobChanges {
    /// Kinds whose row of the game goes (none of them is also put).
    pub removed: Vec<JobKind>,
    pub put: Vec<PutJob>,
    /// A bot has to move: the bot workers are woken once the append has committed.
    pub bot_due: bool,
}

impl AfterAppend {
    /// Brings the game's jobs in line with its seats; no change when its work did not
    /// change.
    pub fn job_changes(&self) -> JobChanges {
        let mut changes = JobChanges::default();
        if self.started {
            changes.removed.push(JobKind::Expiry);
        }
        if !self.running {
            if self.before != GameWork::default() {
                changes.removed = JobKind::ALL.to_vec();
            }
            return changes;
        }
        if self.after.deadline != self.before.deadline {
            match self.after.deadline {
                Some(deadline) => changes.put.push(PutJob {
                    kind: JobKind::Deadline,
                    due_at: deadline,
                    interactive: false,
                }),
                None => changes.removed.push(JobKind::Deadline),
            }
        }
        if self.clocks_changed && self.after.deadline.is_some() {
            changes.put.push(PutJob {
                kind: JobKind::Reminder,
                due_at: self.now,
                interactive: false,
            });
        }
        match self.after.bot {
            // Due from now: behind the account's other games whose bots waited longer.
            Some(interactive) => {
                changes.put.push(PutJob {
                    kind: JobKind::Bot,
                    due_at: self.now,
                    interactive,
                });
                changes.bot_due = true;
            }
            None if self.before.bot.is_some() => changes.removed.push(JobKind::Bot),
            None => {}
        }
        changes
    }
}

/// Writes `changes` to the game's jobs (see [`AfterAppend::job_changes`]).
pub fn follow_append(
    conn: &mut DbConnection,
    game_id: &str,
    account_id: &str,
    changes: &JobChanges,
) -> Result<(), StoreError> {
    if !changes.removed.is_empty() {
        let kinds: Vec<&str> = changes.removed.iter().map(|kind| kind.as_str()).collect();
        diesel::delete(
            jobs::table
                .filter(jobs::game_id.eq(game_id))
                .filter(jobs::kind.eq_any(kinds)),
        )
        .execute(conn)?;
    }
    for job in &changes.put {
        put(
            conn,
            job.kind,
            game_id,
            account_id,
            job.due_at,
            job.interactive,
        )?;
    }
    if changes.bot_due {
        super::changes::record(Change::BotDue);
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    count: i64,
}

/// Running games in which `account_id` forfeited its seat and no person plays any more:
/// games it left to the bots.
pub fn games_left_to_bots_by(conn: &mut DbConnection, account_id: &str) -> Result<i64, StoreError> {
    let query = statement(
        conn,
        "SELECT COUNT(*) AS count FROM seats mine JOIN games ON games.id = mine.game_id
         WHERE mine.account_id = $1 AND mine.forfeit IS NOT NULL AND games.status = 'running'
           AND NOT EXISTS (SELECT 1 FROM seats person WHERE person.game_id = games.id
               AND person.account_id IS NOT NULL AND person.bot IS NULL
               AND person.forfeit IS NULL)",
    )
    .bind::<Text, _>(account_id);
    let counted: Vec<Count> = on_backend!(conn, query, load)?;
    Ok(counted.first().map_or(0, |row| row.count))
}
