//! Persistence: the only module that speaks SQL. One diesel schema serves both the embedded
//! SQLite default and Postgres in production, through [`DbConnection`].

mod accounts;
mod append;
mod append_statement;
pub mod changes;
pub mod chat;
mod compact_log;
pub mod email;
mod events;
pub mod follows;
mod game_lists;
mod games;
mod invitations;
pub mod jobs;
pub mod limits;
pub mod moderation;
mod notice;
pub mod notifications;
pub mod personal_tokens;
mod prepared_updates;
pub mod profiles;
pub mod ratings;
pub mod reminders;
pub mod schema;
pub mod settings;
mod sqlite_checkpoints;
pub mod vacations;
pub mod web_push;
mod worker_connections;

use std::cell::RefCell;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use diesel::connection::{InstrumentationEvent, SimpleConnection};
use diesel::prelude::*;
use diesel::r2d2::{
    ConnectionManager, CustomizeConnection, ManageConnection, Pool, PooledConnection,
};
use diesel::result::DatabaseErrorKind;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

pub use accounts::{
    find_account_by_id, find_account_by_name, insert_account, lock_account, revoke_tokens,
    token_generations, Account,
};
pub use append::{append, current_seqs};
pub use changes::Change;
pub use compact_log::LogForm;
pub use events::{
    find_action_by_key, load_actions, load_events, load_events_between, load_server_events,
};
pub use game_lists::{
    finished_game_ids, games_played_by, list_games, GameFilter, GameListPosition, GameListStart,
    OptionFilter, PlayedGame,
};
pub use games::{
    cancel_open_game, count_open_games_created_by, find_game, find_game_with_seats, insert_game,
    leave_seat, link_rematch, lock_game, lock_open_game, rematch_of, rematched_games,
    set_abandon_vote, take_seat, ActionRow, Append, CancelReason, Game, GameStatus, Listener,
    NewEvent, SeatRow, SeatUpdate, SeatWithName, StoredEvent, ENGINE_SOURCE, SERVER_SOURCE,
};
pub use invitations::{
    decline_invitation, invitations, invite, pending_invitations, sent_invitations,
    PendingInvitation,
};
pub use settings::Visibility;
pub use worker_connections::Unanswered;

const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

/// Runs `$body` with `$backend` bound to the backend's own connection. The multi-backend
/// connection finds a query's prepared statement by writing its SQL text again on every
/// call; a backend's own connection finds it by the query's type. Used on the statements
/// of every move.
macro_rules! on_backend {
    ($conn:expr, |$backend:ident| $body:expr) => {
        match $conn {
            $crate::store::DbConnection::Postgresql($backend) => $body,
            $crate::store::DbConnection::Sqlite($backend) => $body,
        }
    };
}
pub(crate) use on_backend;

#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Postgresql(diesel::PgConnection),
    Sqlite(diesel::SqliteConnection),
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer got there first: the game's log is no longer at the expected seq.
    #[error("the game is at seq {current}, not the expected one")]
    StaleSeq { current: i64 },
    /// A unique constraint refused the row (name taken, seat taken, key reused...).
    #[error("duplicate row")]
    Duplicate,
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("database error: {0}")]
    Database(#[from] diesel::result::Error),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
}

impl StoreError {
    fn from_insert(error: diesel::result::Error) -> StoreError {
        match error {
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            ) => StoreError::Duplicate,
            other => StoreError::Database(other),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// The PostgreSQL advisory lock key held while migrations run ("turnpost" in ASCII).
const MIGRATION_LOCK: i64 = 0x7475_726e_706f_7374;

/// A connection that answered within this time is handed out without asking the database
/// first whether it still answers (unless a dead connection was met since).
const TRUSTED_FOR: Duration = Duration::from_secs(1);

/// How often work is tried on another connection when the one it got turns out dead before
/// anything ran on it.
const DEAD_CONNECTION_RETRIES: usize = 2;

/// What a connection's statements tell about it, written by diesel's instrumentation as
/// they finish.
#[derive(Default)]
struct Health {
    /// The server closed the connection (its backend was terminated, the database
    /// restarted): a dead connection.
    closed: AtomicBool,
    /// Statements that succeeded since the last [`Health::reset`].
    succeeded: AtomicU32,
}

impl Health {
    fn reset(&self) {
        self.closed.store(false, Ordering::Relaxed);
        self.succeeded.store(0, Ordering::Relaxed);
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

/// A pooled connection with when it last did its work without an error.
struct Tracked {
    conn: DbConnection,
    last_success: Option<Instant>,
    health: Arc<Health>,
}

impl Tracked {
    /// Runs `work`, noting whether it succeeded: a failure may mean the connection died.
    fn run<T, E>(&mut self, work: impl FnOnce(&mut DbConnection) -> Result<T, E>) -> Result<T, E> {
        self.health.reset();
        let result = work(&mut self.conn);
        self.last_success = result.is_ok().then(Instant::now);
        result
    }
}

/// When this pool last met a dead connection: every connection that has not answered since
/// is asked `SELECT 1` before it is handed out, so that one terminated backend does not
/// make the next requests fail one by one on its dead siblings.
#[derive(Default)]
struct LastDeath(Mutex<Option<Instant>>);

impl LastDeath {
    fn now(&self) {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Instant::now());
    }

    fn since(&self, moment: Instant) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .is_some_and(|death| death >= moment)
    }
}

/// r2d2 asks the database `SELECT 1` at every checkout, a round trip per request; this
/// manager asks only of connections idle for over [`TRUSTED_FOR`], of those whose last work
/// failed (which also drops a dead one when it goes back to the pool) and of all of them
/// once a dead one was met.
struct Connections {
    manager: ConnectionManager<DbConnection>,
    last_death: Arc<LastDeath>,
    statements: Arc<AtomicU64>,
}

impl ManageConnection for Connections {
    type Connection = Tracked;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<Tracked, diesel::r2d2::Error> {
        let mut conn = self.manager.connect()?;
        let health = Arc::new(Health::default());
        let watch = (health.clone(), self.statements.clone());
        let instrumentation = move |event: InstrumentationEvent<'_>| {
            if let InstrumentationEvent::FinishQuery { error, .. } = event {
                let (health, statements) = &watch;
                statements.fetch_add(1, Ordering::Relaxed);
                match error {
                    None => {
                        health.succeeded.fetch_add(1, Ordering::Relaxed);
                    }
                    Some(diesel::result::Error::DatabaseError(
                        DatabaseErrorKind::ClosedConnection
                        | DatabaseErrorKind::UnableToSendCommand,
                        _,
                    )) => health.closed.store(true, Ordering::Relaxed),
                    Some(_) => {}
                }
            }
        };
        match &mut conn {
            DbConnection::Postgresql(pg) => pg.set_instrumentation(instrumentation),
            DbConnection::Sqlite(sqlite) => sqlite.set_instrumentation(instrumentation),
        }
        Ok(Tracked {
            conn,
            last_success: Some(Instant::now()),
            health,
        })
    }

    fn is_valid(&self, tracked: &mut Tracked) -> Result<(), diesel::r2d2::Error> {
        match tracked.last_success {
            Some(at) if at.elapsed() < TRUSTED_FOR && !self.last_death.since(at) => Ok(()),
            _ => {
                self.manager.is_valid(&mut tracked.conn)?;
                tracked.last_success = Some(Instant::now());
                Ok(())
            }
        }
    }

    fn has_broken(&self, tracked: &mut Tracked) -> bool {
        if tracked.health.is_closed() || self.manager.has_broken(&mut tracked.conn) {
            return true;
        }
        if tracked.last_success.is_none() {
            if self.manager.is_valid(&mut tracked.conn).is_err() {
                return true;
            }
            tracked.last_success = Some(Instant::now());
        }
        false
    }
}

/// Called with what each write changed, once it has committed.
pub type CommitListener = Box<dyn Fn(Vec<Change>) + Send + Sync>;

/// A pool of connections to one database, with the writes serialised where the backend
/// needs it.
pub struct Db {
    pool: Pool<Connections>,
    backend: Backend,
    /// SQLite has one writer at a time; taking the lock in-process avoids SQLITE_BUSY on
    /// upgrading read transactions. Postgres serialises per game with row locks instead.
    sqlite_writer: Option<Mutex<()>>,
    last_death: Arc<LastDeath>,
    statements: Arc<AtomicU64>,
    on_commit: OnceLock<CommitListener>,
    /// How this instance's moves store their events' payloads and requests: the database's
    /// setting when the instance started (see `compact_log`; the rarer appends read it each
    /// time).
    log_form: LogForm,
    /// SQLite's log is copied back beside the writers, not inside a commit.
    _checkpointer: Option<sqlite_checkpoints::Checkpointer>,
    /// PostgreSQL's connections of the worker threads, for the statements of play.
    worker_connections: Option<worker_connections::WorkerConnections>,
}

/// How the database is used beyond its URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbOptions {
    /// How long a SQLite write waits for another process's lock before the request is
    /// answered 503 `server_busy`.
    pub sqlite_busy_timeout: Duration,
    /// Connections the pool holds at most.
    pub pool_size: u32,
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions {
            sqlite_busy_timeout: Duration::from_secs(5),
            pool_size: 16,
        }
    }
}

#[derive(Debug)]
struct SqlitePragmas {
    busy_timeout: Duration,
}

impl CustomizeConnection<Tracked, diesel::r2d2::Error> for SqlitePragmas {
    fn on_acquire(&self, tracked: &mut Tracked) -> Result<(), diesel::r2d2::Error> {
        if let DbConnection::Sqlite(conn) = &mut tracked.conn {
            conn.batch_execute(&format!(
                "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = {}; \
                 PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; {}",
                self.busy_timeout.as_millis(),
                sqlite_checkpoints::NO_AUTOMATIC_CHECKPOINT,
            ))
            .map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(())
    }
}

/// The SQLite file holds password hashes and the seeds of running games: create it (and
/// its directory) owner-only before SQLite does, whose journal files then take the same
/// permissions.
fn create_private_sqlite_file(path: &Path) -> Result<(), StoreError> {
    let unavailable = |what: &Path, error: std::io::Error| {
        StoreError::Unavailable(format!("cannot create {}: {error}", what.display()))
    };
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        crate::private_files::create_dir(parent).map_err(|error| unavailable(parent, error))?;
    }
    if path.as_os_str() != ":memory:" {
        crate::private_files::open_for_writing(path, false)
            .map_err(|error| unavailable(path, error))?;
    }
    Ok(())
}

impl Db {
    /// Opens `url` (`postgres://...` or a SQLite file path, optionally prefixed `sqlite://`)
    /// and brings its schema up to date.
    pub fn open(url: &str) -> Result<Db, StoreError> {
        Db::open_with(url, DbOptions::default())
    }

    pub fn open_with(url: &str, options: DbOptions) -> Result<Db, StoreError> {
        let (backend, target) = match postgres_url(url) {
            Some(url) => (Backend::Postgres, url.to_owned()),
            None => {
                let path = url.strip_prefix("sqlite://").unwrap_or(url);
                create_private_sqlite_file(Path::new(path))?;
                (Backend::Sqlite, path.to_owned())
            }
        };
        // The pool's multi-backend connect hides why a connection failed; one direct
        // attempt first turns a bad URL, password or host into a clear start-up error.
        match backend {
            Backend::Postgres => diesel::PgConnection::establish(&target).map(drop),
            Backend::Sqlite => diesel::SqliteConnection::establish(&target).map(drop),
        }
        .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        let last_death = Arc::new(LastDeath::default());
        let statements = Arc::new(AtomicU64::new(0));
        let manager = Connections {
            manager: ConnectionManager::<DbConnection>::new(target.clone()),
            last_death: last_death.clone(),
            statements: statements.clone(),
        };
        let builder = Pool::builder()
            .connection_timeout(Duration::from_secs(5))
            .max_size(options.pool_size.max(1));
        let pool = match backend {
            Backend::Postgres => builder.build(manager),
            Backend::Sqlite => builder
                .max_size(options.pool_size.clamp(1, 8))
                .connection_customizer(Box::new(SqlitePragmas {
                    busy_timeout: options.sqlite_busy_timeout,
                }))
                .build(manager),
        }
        .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        let worker_connections = match backend {
            Backend::Postgres => {
                worker_connections::WorkerConnections::for_url(&target, statements.clone())
            }
            Backend::Sqlite => None,
        };
        let mut db = Db {
            pool,
            backend,
            sqlite_writer: (backend == Backend::Sqlite).then(|| Mutex::new(())),
            last_death,
            statements,
            on_commit: OnceLock::new(),
            log_form: LogForm::Whole,
            _checkpointer: None,
            worker_connections,
        };
        db.migrate()?;
        db.log_form = db.read_without_transaction(compact_log::form)?;
        // Started once the pool's connections have put the file in WAL mode.
        if backend == Backend::Sqlite {
            db._checkpointer = sqlite_checkpoints::Checkpointer::start(&target)?;
        }
        Ok(db)
    }

    /// Hands every committed write's changes to `listener` from now on (once per `Db`).
    pub fn on_commit(&self, listener: CommitListener) {
        let _ = self.on_commit.set(listener);
    }

    /// Connections the pool holds now, and how many of them are idle.
    pub fn pool_state(&self) -> (u32, u32) {
        let state = self.pool.state();
        (state.connections, state.idle_connections)
    }

    /// The most connections the pool holds (SQLite's keeps at most 8, fewer than configured).
    pub fn most_connections(&self) -> u32 {
        self.pool.max_size()
    }

    /// Statements sent to the database by this pool so far.
    pub fn statements(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The form in which this instance's moves store their events' payloads and requests.
    pub fn log_form(&self) -> LogForm {
        self.log_form
    }

    /// Stores new events' payloads and actions' requests compact from now on (instances
    /// started before keep writing them whole until they restart; every instance reads both
    /// forms). Returns whether they were stored whole until now.
    pub fn compact_log(&self) -> Result<bool, StoreError> {
        self.write(|conn| {
            let was_whole = compact_log::form(conn)? == LogForm::Whole;
            compact_log::make_compact(conn)?;
            Ok(was_whole)
        })
    }

    fn connection(&self) -> Result<PooledConnection<Connections>, StoreError> {
        self.pool
            .get()
            .map_err(|error| StoreError::Unavailable(error.to_string()))
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let _writer = self.sqlite_writer.as_ref().map(|lock| lock.lock());
        let mut tracked = self.connection()?;
        let result = match &mut tracked.conn {
            DbConnection::Postgresql(conn) => {
                // Instances starting at once on a new database take turns: each finds the
                // migrations its predecessor ran. The lock is the session's, and goes with
                // it should the process die.
                conn.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK})"))
                    .map_err(|error| StoreError::Unavailable(format!("migrations: {error}")))?;
                let migrated = conn.run_pending_migrations(POSTGRES_MIGRATIONS).map(drop);
                let _ = conn.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})"));
                migrated
            }
            DbConnection::Sqlite(conn) => conn.run_pending_migrations(SQLITE_MIGRATIONS).map(drop),
        };
        result.map_err(|error| StoreError::Unavailable(format!("migrations failed: {error}")))
    }

    /// Runs `attempt` on a pooled connection; when that connection turns out dead and
    /// `may_retry` says nothing of the work ran yet (or it may run twice), the pool checks
    /// its other connections and `attempt` runs again on a live one. A database that is
    /// really gone still fails, as [`StoreError::Unavailable`].
    fn on_live_connection<T, E: From<StoreError>>(
        &self,
        mut attempt: impl FnMut(&mut Tracked) -> Result<T, E>,
        may_retry: impl Fn() -> bool,
    ) -> Result<T, E> {
        let mut retries = 0;
        loop {
            let mut tracked = self.connection()?;
            let result = attempt(&mut tracked);
            if result.is_err() && tracked.health.is_closed() {
                self.last_death.now();
                if retries < DEAD_CONNECTION_RETRIES && may_retry() {
                    retries += 1;
                    tracing::warn!("a database connection was found dead; trying a fresh one");
                    continue;
                }
            }
            return result;
        }
    }

    /// Runs `work` in one read transaction, so it sees one consistent snapshot.
    pub fn read<T, E: From<StoreError> + From<diesel::result::Error>>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E> {
        // Taken by the transaction once its BEGIN succeeded: a connection found dead at
        // BEGIN ran nothing, and the work is tried again.
        let work = RefCell::new(Some(work));
        self.on_live_connection(
            |tracked| {
                tracked.run(|conn| {
                    conn.transaction(|conn| {
                        let work = work.borrow_mut().take().ok_or_else(|| {
                            StoreError::Unavailable("the read was already tried".into())
                        })?;
                        work(conn)
                    })
                })
            },
            || work.borrow().is_some(),
        )
    }

    /// Runs `work` on one connection without a transaction: each statement sees the
    /// database as it is when it runs. For readers whose statements agree anyway, which
    /// saves Postgres two round trips: a game read in one statement, then only its events
    /// up to the seq that statement saw (a committed event never changes, and events
    /// commit with the seq that covers them). Reading twice does no harm, so `work` runs
    /// again on a fresh connection when its first one was dead.
    pub fn read_without_transaction<T, E: From<StoreError>>(
        &self,
        mut work: impl FnMut(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.on_live_connection(|tracked| tracked.run(&mut work), || true)
    }

    /// Runs `work` in one write transaction: all of it is committed, or nothing. What it
    /// changed goes to the [`Db::on_commit`] listener once it has committed.
    pub fn write<T, E: From<StoreError> + From<diesel::result::Error>>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E> {
        // A poisoned lock only means another writer panicked; the database rolled it back.
        let _writer = self
            .sqlite_writer
            .as_ref()
            .map(|lock| lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        changes::take();
        // Taken once BEGIN succeeded: only a connection found dead at BEGIN, before any of
        // the work ran, is replaced and the write tried again.
        let work = RefCell::new(Some(work));
        let result = self.on_live_connection(
            |tracked| {
                let run = |conn: &mut DbConnection| {
                    let work = work.borrow_mut().take().ok_or_else(|| {
                        StoreError::Unavailable("the write was already tried".into())
                    })?;
                    work(conn)
                };
                tracked.run(|conn| match conn {
                    DbConnection::Sqlite(_) => sqlite_immediate_transaction(conn, run),
                    DbConnection::Postgresql(_) => conn.transaction(run),
                })
            },
            || work.borrow().is_some(),
        );
        self.hand_over_changes(result.is_ok());
        result
    }

    /// Commits `append` (see [`games::append`]) and returns the game's new seq. On
    /// PostgreSQL, an append that one statement covers ([`append_statement`]) is that
    /// statement alone, outside a transaction; any other, and every append on SQLite, runs
    /// in a write transaction.
    pub fn append(&self, append: &Append) -> Result<i64, StoreError> {
        self.append_holding(append, None)
    }

    /// [`Db::append`], giving `held` back with it (as [`jobs::release`] does), all or
    /// nothing: the instance that made a bot move holds its game's bot job until the move
    /// is in. A stale seq writes nothing and gives nothing back.
    pub fn append_giving_back(
        &self,
        append: &Append,
        held: &jobs::HeldJob<'_>,
    ) -> Result<i64, StoreError> {
        self.append_holding(append, Some(held))
    }

    fn append_holding(
        &self,
        append: &Append,
        held: Option<&jobs::HeldJob<'_>>,
    ) -> Result<i64, StoreError> {
        let statement = match self.backend {
            Backend::Postgres => append_statement::statement_for(append, held, self.log_form),
            Backend::Sqlite => None,
        };
        match statement {
            Some(statement) => self.write_alone(|conn| append_statement::append(conn, &statement)),
            None => self.write(|conn| {
                let seq = append::append_in(conn, append, self.log_form)?;
                if let Some(held) = held {
                    jobs::release(conn, held.kind, &append.game_id, held.owner)?;
                }
                Ok(seq)
            }),
        }
    }

    /// Runs `work`, one statement that commits on its own, outside a transaction (which
    /// would add `BEGIN` and `COMMIT`, two round trips); what it changed goes to the
    /// [`Db::on_commit`] listener once it has succeeded. A connection that dies before the
    /// answer comes leaves it unknown whether the statement committed, so it runs again on
    /// a fresh connection: `work` must be harmless when run twice (an append's guard by seq
    /// refuses the second run).
    fn write_alone<T>(
        &self,
        mut work: impl FnMut(&mut DbConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        changes::take();
        let result = self.on_live_connection(|tracked| tracked.run(&mut work), || true);
        self.hand_over_changes(result.is_ok());
        result
    }

    /// Hands the changes recorded on this thread since the write began to the
    /// [`Db::on_commit`] listener when the write `committed`, and forgets them either way.
    fn hand_over_changes(&self, committed: bool) {
        let changes = changes::take();
        if committed {
            self.committed(changes);
        }
    }

    /// Hands the `changes` of a write that committed to the [`Db::on_commit`] listener.
    fn committed(&self, changes: Vec<Change>) {
        if !changes.is_empty() {
            if let Some(listener) = self.on_commit.get() {
                listener(changes);
            }
        }
    }

    /// Whether the database answers a trivial query.
    pub fn is_ready(&self) -> bool {
        self.read_without_transaction(|conn| {
            conn.batch_execute("SELECT 1").map_err(StoreError::from)
        })
        .is_ok()
    }
}

/// The characters of random identifiers (games, accounts, webhook deliveries): lowercase
/// letters and digits without the look-alikes 0, 1, l and o.
pub const ID_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";

/// A random identifier of `len` characters from [`ID_ALPHABET`].
pub fn random_id(len: usize) -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..len)
        .map(|_| char::from(ID_ALPHABET[rng.gen_range(0..ID_ALPHABET.len())]))
        .collect()
}

/// `url` when it names a PostgreSQL database.
pub fn postgres_url(url: &str) -> Option<&str> {
    (url.starts_with("postgres://") || url.starts_with("postgresql://")).then_some(url)
}

/// A SQLite write transaction that takes the write lock when it begins (`BEGIN IMMEDIATE`),
/// waiting up to the busy timeout for another process to let go. A deferred one would
/// read first and then fail at once when another process had written in between, since
/// its snapshot can no longer become a writer.
fn sqlite_immediate_transaction<T, E: From<StoreError> + From<diesel::result::Error>>(
    conn: &mut DbConnection,
    work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E> {
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    fn inner(conn: &mut DbConnection) -> &mut diesel::SqliteConnection {
        match conn {
            DbConnection::Sqlite(sqlite) => sqlite,
            DbConnection::Postgresql(_) => unreachable!("only called on SQLite connections"),
        }
    }
    AnsiTransactionManager::begin_transaction_sql(inner(conn), "BEGIN IMMEDIATE")?;
    match work(conn) {
        Ok(value) => match AnsiTransactionManager::commit_transaction(inner(conn)) {
            Ok(()) => Ok(value),
            Err(error) => {
                let _ = AnsiTransactionManager::rollback_transaction(inner(conn));
                Err(error.into())
            }
        },
        Err(error) => {
            let _ = AnsiTransactionManager::rollback_transaction(inner(conn));
            Err(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_postgres_is_reported_with_its_cause() {
        match Db::open("postgres://nobody@127.0.0.1:1/none") {
            Err(StoreError::Unavailable(cause)) => {
                assert!(
                    cause.contains("127.0.0.1") || cause.contains("connect"),
                    "{cause}"
                )
            }
            Err(other) => panic!("unexpected error {other}"),
            Ok(_) => panic!("nothing listens on port 1"),
        }
    }

    #[test]
    fn a_sqlite_file_is_created_with_its_directory_and_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/dir/db.sqlite");
        let db = Db::open(path.to_str().unwrap()).unwrap();
        assert!(path.exists());
        assert_eq!(db.backend(), Backend::Sqlite);
        assert!(db.is_ready());
        // Opening again finds the schema current and keeps the data.
        drop(db);
        assert!(Db::open(&format!("sqlite://{}", path.display()))
            .unwrap()
            .is_ready());
    }

    #[derive(QueryableByName)]
    struct Line {
        #[diesel(sql_type = diesel::sql_types::Text)]
        line: String,
    }

    /// Every row of the games' logs (events, then actions), one line of all its columns per
    /// row, in key order.
    fn log_rows(conn: &mut diesel::SqliteConnection) -> Vec<String> {
        let lines = |sql: &str, conn: &mut diesel::SqliteConnection| {
            diesel::sql_query(sql)
                .load::<Line>(conn)
                .unwrap()
                .into_iter()
                .map(|row| row.line)
        };
        lines(
            "SELECT concat_ws('|', game_id, seq, created_at, quote(seat), event_type, \
             schema_version, payload, source) AS line FROM events ORDER BY game_id, seq",
            conn,
        )
        .chain(lines(
            "SELECT concat_ws('|', game_id, first_seq, last_seq, seat, quote(account_id), action, \
             quote(idempotency_key), request, created_at, quote(bot)) AS line FROM actions \
             ORDER BY game_id, first_seq",
            conn,
        ))
        .collect()
    }

    #[test]
    fn sqlite_logs_move_into_tables_ordered_by_game_with_every_row_and_constraint() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn =
            diesel::SqliteConnection::establish(dir.path().join("db.sqlite").to_str().unwrap())
                .unwrap();
        conn.batch_execute("PRAGMA foreign_keys = ON;").unwrap();
        for migration in &conn.pending_migrations(SQLITE_MIGRATIONS).unwrap() {
            if migration
                .name()
                .to_string()
                .ends_with("logs_clustered_by_game")
            {
                break;
            }
            conn.run_migration(migration).unwrap();
        }
        conn.batch_execute(
            "INSERT INTO accounts (id, name, name_key, password_hash, created_at)
                 VALUES ('a1', 'Ada', 'ada', 'h', 1), ('a2', 'Bo', 'bo', 'h', 1);
             INSERT INTO games (id, kind, rules_version, options, seat_count, status, seed,
                                created_by, created_at, updated_at, current_seq, to_act)
                 VALUES ('g2', 'tikal', 1, '{}', 2, 'running', '00', 'a1', 1, 5, 3, '[1]'),
                        ('g1', 'java', 1, '{}', 2, 'running', '00', 'a2', 1, 5, 2, '[0]');
             INSERT INTO events (game_id, seq, created_at, seat, event_type, schema_version,
                                 payload, source)
                 VALUES ('g2', 2, 3, 0, 'moved', 1, '{\"type\":\"moved\"}', 'engine'),
                        ('g1', 1, 2, NULL, 'setup', 1, '{\"type\":\"setup\"}', 'engine'),
                        ('g2', 1, 2, NULL, 'setup', 2, '{\"type\":\"setup\"}', 'engine'),
                        ('g2', 3, 4, NULL, 'clock', 1, '{\"type\":\"clock\"}', 'server'),
                        ('g1', 2, 4, 1, 'moved', 1, '{\"type\":\"moved\"}', 'engine');
             INSERT INTO actions (game_id, first_seq, last_seq, seat, account_id, action,
                                  idempotency_key, request, created_at, bot)
                 VALUES ('g2', 2, 3, 0, 'a1', '{}', 'key-1', '{\"action\":{}}', 3, NULL),
                        ('g1', 2, 2, 1, NULL, '{}', NULL, '{}', 4, 'random');",
        )
        .unwrap();
        let before = log_rows(&mut conn);
        assert_eq!(before.len(), 7);

        conn.run_pending_migrations(SQLITE_MIGRATIONS).unwrap();
        assert_eq!(log_rows(&mut conn), before, "every row kept as it was");
        let clustered: Vec<Line> = diesel::sql_query(
            "SELECT name AS line FROM pragma_table_list WHERE wr = 1 ORDER BY name",
        )
        .load(&mut conn)
        .unwrap();
        let clustered: Vec<String> = clustered.into_iter().map(|row| row.line).collect();
        assert_eq!(
            clustered,
            ["actions", "events"],
            "no hidden row id beside the key"
        );
        for refused in [
            "INSERT INTO events (game_id, seq, created_at, event_type, schema_version, payload)
                 VALUES ('g2', 3, 5, 'again', 1, '{}')",
            "INSERT INTO events (game_id, seq, created_at, event_type, schema_version, payload)
                 VALUES ('nowhere', 1, 5, 'setup', 1, '{}')",
            "INSERT INTO actions (game_id, first_seq, last_seq, seat, account_id, action,
                                  idempotency_key, request, created_at)
                 VALUES ('g2', 4, 4, 0, 'a1', '{}', 'key-1', '{}', 5)",
        ] {
            assert!(conn.batch_execute(refused).is_err(), "{refused}");
        }
        // A new event lands in its game's order, with the source's default.
        conn.batch_execute(
            "INSERT INTO events (game_id, seq, created_at, event_type, schema_version, payload)
                 VALUES ('g1', 3, 5, 'moved', 1, '{}')",
        )
        .unwrap();
        assert_eq!(log_rows(&mut conn)[2], "g1|3|5|NULL|moved|1|{}|engine");
    }

    #[test]
    fn a_database_that_held_events_keeps_its_log_whole_and_going_back_makes_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        let setting = |conn: &mut diesel::SqliteConnection| -> Vec<String> {
            lines("SELECT value AS line FROM store_settings", conn)
        };
        let fresh = dir.path().join("fresh.sqlite");
        let mut conn = diesel::SqliteConnection::establish(fresh.to_str().unwrap()).unwrap();
        conn.run_pending_migrations(SQLITE_MIGRATIONS).unwrap();
        assert_eq!(setting(&mut conn), ["compact"], "a database without events");

        let used = dir.path().join("used.sqlite");
        let mut conn = diesel::SqliteConnection::establish(used.to_str().unwrap()).unwrap();
        for migration in &conn.pending_migrations(SQLITE_MIGRATIONS).unwrap() {
            if migration.name().to_string().ends_with("compact_log") {
                break;
            }
            conn.run_migration(migration).unwrap();
        }
        conn.batch_execute(
            "INSERT INTO accounts (id, name, name_key, password_hash, created_at)
                 VALUES ('a1', 'Ada', 'ada', 'h', 1);
             INSERT INTO games (id, kind, rules_version, options, seat_count, status, seed,
                                created_by, created_at, updated_at, current_seq, to_act)
                 VALUES ('g1', 'tikal', 1, '{}', 2, 'running', '00', 'a1', 1, 5, 1, '[0]');
             INSERT INTO events (game_id, seq, created_at, event_type, schema_version, payload)
                 VALUES ('g1', 1, 2, 'setup', 1, '{\"type\":\"setup\",\"n\":1}');",
        )
        .unwrap();
        conn.run_pending_migrations(SQLITE_MIGRATIONS).unwrap();
        assert_eq!(setting(&mut conn), ["whole"], "a database that held events");

        conn.batch_execute(
            "INSERT INTO events (game_id, seq, created_at, event_type, schema_version, payload)
                 VALUES ('g1', 2, 3, 'moved', 1, '{\"to\":\"A1\"}'),
                        ('g1', 3, 4, 'ended', 1, '{}');
             INSERT INTO actions (game_id, first_seq, last_seq, seat, account_id, action,
                                  idempotency_key, request, created_at)
                 VALUES ('g1', 2, 2, 0, 'a1', '{\"type\":\"move\"}', NULL,
                         '{\"expected_seq\":1,\"seat\":null}', 3),
                        ('g1', 3, 3, 0, 'a1', '{\"type\":\"end\"}', NULL, '{}', 4),
                        ('g1', 4, 4, 0, 'a1', '{\"type\":\"pass\"}', NULL,
                         '{\"action\":{\"type\":\"pass\",\"x\":1}}', 5);",
        )
        .unwrap();
        // Back to before the compact log, through whatever came after it.
        while !conn
            .revert_last_migration(SQLITE_MIGRATIONS)
            .unwrap()
            .to_string()
            .ends_with("000016")
        {}
        assert_eq!(
            lines(
                "SELECT request AS line FROM actions ORDER BY first_seq",
                &mut conn
            ),
            [
                r#"{"expected_seq":1,"seat":null,"action":{"type":"move"}}"#,
                r#"{"action":{"type":"end"}}"#,
                r#"{"action":{"type":"pass","x":1}}"#
            ]
        );
        assert_eq!(
            lines("SELECT payload AS line FROM events ORDER BY seq", &mut conn),
            [
                r#"{"type":"setup","n":1}"#,
                r#"{"type":"moved","to":"A1"}"#,
                r#"{"type":"ended"}"#
            ]
        );
    }

    fn lines(sql: &str, conn: &mut diesel::SqliteConnection) -> Vec<String> {
        diesel::sql_query(sql)
            .load::<Line>(conn)
            .unwrap()
            .into_iter()
            .map(|row| row.line)
            .collect()
    }

    #[derive(QueryableByName)]
    struct AutomaticCheckpoint {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        wal_autocheckpoint: i64,
    }

    #[test]
    fn sqlite_commits_leave_checkpoints_to_the_checkpoint_thread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let db = Db::open(path.to_str().unwrap()).unwrap();
        let automatic: AutomaticCheckpoint = db
            .read::<_, StoreError>(|conn| match conn {
                DbConnection::Sqlite(conn) => {
                    Ok(diesel::sql_query("PRAGMA wal_autocheckpoint").get_result(conn)?)
                }
                DbConnection::Postgresql(_) => unreachable!("a SQLite file"),
            })
            .unwrap();
        assert_eq!(automatic.wal_autocheckpoint, 0, "commits never checkpoint");

        // About 8 MB in 2,000 commits: more than a thousand pages of log.
        let file_before = std::fs::metadata(&path).unwrap().len();
        for n in 0..2_000 {
            let account = Account {
                id: format!("id-{n}"),
                name: format!("player{n}"),
                name_key: format!("player{n}"),
                password_hash: "h".repeat(4_000),
                created_at: 0,
                token_generation: 0,
                last_seen_day: None,
            };
            db.write(|conn| insert_account(conn, &account)).unwrap();
        }
        // The thread copies the log into the file beside the writes; nothing else would.
        let until = Instant::now() + Duration::from_secs(10);
        while std::fs::metadata(&path).unwrap().len() < file_before + 8_000_000 {
            assert!(Instant::now() < until, "the log was not copied back");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
