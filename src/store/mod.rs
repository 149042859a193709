//! Persistence: the only module that speaks SQL. One diesel schema serves both the embedded
//! SQLite default and Postgres in production, through [`DbConnection`].

mod accounts;
mod games;
pub mod notifications;
pub mod schema;

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{
    ConnectionManager, CustomizeConnection, ManageConnection, Pool, PooledConnection,
};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

pub use accounts::{
    find_account_by_id, find_account_by_name, insert_account, revoke_tokens, Account,
};
pub use games::{
    append, cancel_open_game, count_open_games_created_by, find_action_by_key, find_game,
    find_game_with_seats, finished_game_ids, games_awaiting_a_bot, games_past_deadline,
    games_played_by, insert_game, invitations, invite, leave_seat, list_games, load_actions,
    load_events, load_events_between, load_server_events, lock_open_game,
    open_games_created_before, take_seat, ActionRow, Append, CancelReason, Game, GameFilter,
    GameStatus, NewEvent, PlayedGame, SeatRow, SeatUpdate, SeatWithName, StoredEvent,
    ENGINE_SOURCE, SERVER_SOURCE,
};

const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

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

/// A connection that answered within this time is handed out without asking the database
/// first whether it still answers.
const TRUSTED_FOR: Duration = Duration::from_secs(1);

/// A pooled connection with when it last did its work without an error.
struct Tracked {
    conn: DbConnection,
    last_success: Option<Instant>,
}

impl Tracked {
    /// Runs `work`, noting whether it succeeded: a failure may mean the connection died.
    fn run<T, E>(&mut self, work: impl FnOnce(&mut DbConnection) -> Result<T, E>) -> Result<T, E> {
        let result = work(&mut self.conn);
        self.last_success = result.is_ok().then(Instant::now);
        result
    }
}

/// r2d2 asks the database `SELECT 1` at every checkout, a round trip per request; this
/// manager asks only of connections idle for over [`TRUSTED_FOR`] and of those whose last
/// work failed, which also drops a dead one when it goes back to the pool.
struct Connections(ConnectionManager<DbConnection>);

impl ManageConnection for Connections {
    type Connection = Tracked;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<Tracked, diesel::r2d2::Error> {
        Ok(Tracked {
            conn: self.0.connect()?,
            last_success: Some(Instant::now()),
        })
    }

    fn is_valid(&self, tracked: &mut Tracked) -> Result<(), diesel::r2d2::Error> {
        match tracked.last_success {
            Some(at) if at.elapsed() < TRUSTED_FOR => Ok(()),
            _ => self.0.is_valid(&mut tracked.conn),
        }
    }

    fn has_broken(&self, tracked: &mut Tracked) -> bool {
        if self.0.has_broken(&mut tracked.conn) {
            return true;
        }
        if tracked.last_success.is_none() {
            if self.0.is_valid(&mut tracked.conn).is_err() {
                return true;
            }
            tracked.last_success = Some(Instant::now());
        }
        false
    }
}

/// A pool of connections to one database, with the writes serialised where the backend
/// needs it.
pub struct Db {
    pool: Pool<Connections>,
    backend: Backend,
    /// SQLite has one writer at a time; taking the lock in-process avoids SQLITE_BUSY on
    /// upgrading read transactions. Postgres serialises per game with row locks instead.
    sqlite_writer: Option<Mutex<()>>,
}

/// How the database is used beyond its URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbOptions {
    /// How long a SQLite write waits for another process's lock before the request is
    /// answered 503 `server_busy`.
    pub sqlite_busy_timeout: Duration,
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions {
            sqlite_busy_timeout: Duration::from_secs(5),
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
                 PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
                self.busy_timeout.as_millis()
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
        let (backend, target) =
            if url.starts_with("postgres://") || url.starts_with("postgresql://") {
                (Backend::Postgres, url.to_owned())
            } else {
                let path = url.strip_prefix("sqlite://").unwrap_or(url);
                create_private_sqlite_file(Path::new(path))?;
                (Backend::Sqlite, path.to_owned())
            };
        // The pool's multi-backend connect hides why a connection failed; one direct
        // attempt first turns a bad URL, password or host into a clear start-up error.
        match backend {
            Backend::Postgres => diesel::PgConnection::establish(&target).map(drop),
            Backend::Sqlite => diesel::SqliteConnection::establish(&target).map(drop),
        }
        .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        let manager = Connections(ConnectionManager::<DbConnection>::new(target));
        let builder = Pool::builder().connection_timeout(Duration::from_secs(5));
        let pool = match backend {
            Backend::Postgres => builder.max_size(16).build(manager),
            Backend::Sqlite => builder
                .max_size(8)
                .connection_customizer(Box::new(SqlitePragmas {
                    busy_timeout: options.sqlite_busy_timeout,
                }))
                .build(manager),
        }
        .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        let db = Db {
            pool,
            backend,
            sqlite_writer: (backend == Backend::Sqlite).then(|| Mutex::new(())),
        };
        db.migrate()?;
        Ok(db)
    }

    /// Connections the pool holds now, and how many of them are idle.
    pub fn pool_state(&self) -> (u32, u32) {
        let state = self.pool.state();
        (state.connections, state.idle_connections)
    }

    pub fn backend(&self) -> Backend {
        self.backend
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
                conn.run_pending_migrations(POSTGRES_MIGRATIONS).map(drop)
            }
            DbConnection::Sqlite(conn) => conn.run_pending_migrations(SQLITE_MIGRATIONS).map(drop),
        };
        result.map_err(|error| StoreError::Unavailable(format!("migrations failed: {error}")))
    }

    /// Runs `work` in one read transaction, so it sees one consistent snapshot.
    pub fn read<T, E: From<StoreError> + From<diesel::result::Error>>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.connection()?
            .run(|conn| conn.transaction(|conn| work(conn)))
    }

    /// Runs `work` on one connection without a transaction: each statement sees the
    /// database as it is when it runs. For readers whose statements agree anyway, which
    /// saves Postgres two round trips: a game read in one statement, then only its events
    /// up to the seq that statement saw (a committed event never changes, and events
    /// commit with the seq that covers them).
    pub fn read_without_transaction<T, E: From<StoreError>>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.connection()?.run(work)
    }

    /// Runs `work` in one write transaction: all of it is committed, or nothing.
    pub fn write<T, E: From<StoreError> + From<diesel::result::Error>>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
    ) -> Result<T, E> {
        // A poisoned lock only means another writer panicked; the database rolled it back.
        let _writer = self
            .sqlite_writer
            .as_ref()
            .map(|lock| lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        self.connection()?.run(|conn| match conn {
            DbConnection::Sqlite(_) => sqlite_immediate_transaction(conn, work),
            DbConnection::Postgresql(_) => conn.transaction(|conn| work(conn)),
        })
    }

    /// Whether the database answers a trivial query.
    pub fn is_ready(&self) -> bool {
        self.connection()
            .and_then(|mut tracked| {
                tracked.run(|conn| conn.batch_execute("SELECT 1").map_err(StoreError::from))
            })
            .is_ok()
    }
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
}
