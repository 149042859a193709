//! PostgreSQL reached from the request's own worker thread, for the statements of the three
//! requests a game is played by (its legal actions, its view, a move): the game read with
//! its seats, an idempotency key's first attempt, and a move's one statement
//! ([`super::append_statement`]). Through the pool, each of them costs a hand-over to a
//! database thread and back, and that thread's sleep and wake-up while PostgreSQL answers;
//! under load those waits and switches took more of the server's CPU than anything else
//! (`docs/performance.md`, "PostgreSQL without a thread per request"). Here the worker
//! sends the statement on a connection of its own and goes on with other requests until
//! the answer comes; the statements of several requests share a connection, sent one
//! after the other without waiting (pipelined).
//!
//! A worker thread opens its connections when it first needs them, at most
//! [`PER_WORKER`], a new one only while all it has are waiting for answers. What this path
//! cannot do as the pool's path would (no connection could be opened, an append the one
//! statement does not cover, a statement that failed for any reason) is left to the pool's
//! path ([`Unanswered::Elsewhere`]): this one only ever saves work, and the only statement
//! it may leave unknown, an append sent on a connection that died, is guarded by the
//! game's seq, so the pool's path may run it again.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, AsyncPgConnection};

use super::games::{self, ActionRow, Append, Game, SeatWithName};
use super::{append_statement, events, Db, StoreError};

/// Connections a worker thread holds at most. PostgreSQL runs a connection's statements
/// one after the other; a few per worker let a move that waits for its game's row lock
/// hold up only the statements queued behind it on its own connection.
const PER_WORKER: usize = 4;

/// How long a worker leaves its own connections alone after one could not be opened.
const AFTER_A_FAILED_CONNECT: Duration = Duration::from_secs(2);

/// Why a statement got no answer on the worker thread.
#[derive(Debug)]
pub enum Unanswered {
    /// What it read cannot be what was asked for (a corrupt row), as the pool's path would
    /// find too.
    Refused(StoreError),
    /// The pool's path answers instead: no connection here, or it died, or the statement
    /// is not one this path sends.
    Elsewhere,
}

impl From<StoreError> for Unanswered {
    fn from(error: StoreError) -> Unanswered {
        Unanswered::Refused(error)
    }
}

/// One database's connections on the worker threads that have used them.
pub struct WorkerConnections {
    url: String,
    /// Tells this database's connections apart from another's on the same thread (tests
    /// run several servers in one process).
    id: u64,
    statements: Arc<AtomicU64>,
}

struct WorkerConnection {
    conn: AsyncPgConnection,
    /// Statements sent on it and not answered yet.
    waiting: Cell<usize>,
}

/// A worker thread's connections to one database.
#[derive(Default)]
struct OnThisWorker {
    open: Vec<Rc<WorkerConnection>>,
    opening: usize,
    failed_at: Option<Instant>,
}

thread_local! {
    static ON_THIS_WORKER: RefCell<HashMap<u64, OnThisWorker>> = RefCell::default();
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A connection lent to one statement, counted as waiting until the statement is done.
struct Lent(Rc<WorkerConnection>);

impl Drop for Lent {
    fn drop(&mut self) {
        self.0.waiting.set(self.0.waiting.get() - 1);
    }
}

impl WorkerConnections {
    /// `None` for a URL whose connections this path cannot open as libpq would (one that
    /// asks for TLS, or that tokio-postgres does not read): the pool then serves alone.
    pub(super) fn for_url(url: &str, statements: Arc<AtomicU64>) -> Option<WorkerConnections> {
        let config = match tokio_postgres::Config::from_str(url) {
            Ok(config) => config,
            Err(error) => {
                tracing::info!("every statement goes through the pool: {error}");
                return None;
            }
        };
        if config.get_ssl_mode() == tokio_postgres::config::SslMode::Require {
            tracing::info!("every statement goes through the pool: the database URL asks for TLS");
            return None;
        }
        Some(WorkerConnections {
            url: url.to_owned(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            statements,
        })
    }

    /// Runs `statement` on one of this worker's connections. A statement that fails is
    /// left to the pool's path, whatever the error: the path exists to save work, and
    /// that path tells a dead connection from a refusal and answers as always. The
    /// connection is closed, since it may be the one that died.
    async fn run<T>(
        &self,
        statement: impl AsyncFnOnce(&AsyncPgConnection) -> Result<T, DieselError>,
    ) -> Result<T, Unanswered> {
        let lent = self.lend().await?;
        self.statements.fetch_add(1, Ordering::Relaxed);
        statement(&lent.0.conn).await.map_err(|error| {
            tracing::info!("a statement on a worker thread's connection failed: {error}");
            self.forget(&lent.0);
            Unanswered::Elsewhere
        })
    }

    async fn lend(&self) -> Result<Lent, Unanswered> {
        let ready = ON_THIS_WORKER.with_borrow_mut(|workers| {
            let worker = workers.entry(self.id).or_default();
            if worker
                .failed_at
                .is_some_and(|at| at.elapsed() < AFTER_A_FAILED_CONNECT)
            {
                return Err(Unanswered::Elsewhere);
            }
            let least_busy = worker
                .open
                .iter()
                .min_by_key(|conn| conn.waiting.get())
                .cloned();
            let full = worker.open.len() + worker.opening >= PER_WORKER;
            match least_busy {
                Some(conn) if conn.waiting.get() == 0 || full => Ok(Some(conn)),
                None if full => Err(Unanswered::Elsewhere),
                _ => {
                    worker.opening += 1;
                    Ok(None)
                }
            }
        })?;
        let conn = match ready {
            Some(conn) => conn,
            None => self.open().await?,
        };
        conn.waiting.set(conn.waiting.get() + 1);
        Ok(Lent(conn))
    }

    async fn open(&self) -> Result<Rc<WorkerConnection>, Unanswered> {
        let opened = AsyncPgConnection::establish(&self.url).await;
        ON_THIS_WORKER.with_borrow_mut(|workers| {
            let worker = workers.entry(self.id).or_default();
            worker.opening -= 1;
            match opened {
                Ok(conn) => {
                    let conn = Rc::new(WorkerConnection {
                        conn,
                        waiting: Cell::new(0),
                    });
                    worker.open.push(conn.clone());
                    Ok(conn)
                }
                Err(error) => {
                    tracing::warn!(
                        "a worker thread could not open its own database connection, the pool \
                         answers meanwhile: {error}"
                    );
                    worker.failed_at = Some(Instant::now());
                    Err(Unanswered::Elsewhere)
                }
            }
        })
    }

    fn forget(&self, dead: &Rc<WorkerConnection>) {
        ON_THIS_WORKER.with_borrow_mut(|workers| {
            if let Some(worker) = workers.get_mut(&self.id) {
                worker.open.retain(|conn| !Rc::ptr_eq(conn, dead));
            }
        });
    }
}

impl Drop for WorkerConnections {
    /// Closes this thread's connections; other workers' close when their threads end.
    fn drop(&mut self) {
        let _ = ON_THIS_WORKER.try_with(|workers| workers.borrow_mut().remove(&self.id));
    }
}

impl Db {
    fn worker_connections(&self) -> Result<&WorkerConnections, Unanswered> {
        self.worker_connections
            .as_ref()
            .ok_or(Unanswered::Elsewhere)
    }

    /// [`games::find_game_with_seats`] on this worker's own connection.
    pub async fn find_game_with_seats_on_worker(
        &self,
        id: &str,
    ) -> Result<Option<(Game, Vec<SeatWithName>)>, Unanswered> {
        let rows = self
            .worker_connections()?
            .run(async |conn| games::game_with_seats_rows_on(conn, id).await)
            .await?;
        Ok(games::game_with_seats_from(id, rows)?)
    }

    /// [`games::find_action_by_key`] on this worker's own connection.
    pub async fn find_action_by_key_on_worker(
        &self,
        game_id: &str,
        account_id: &str,
        key: &str,
    ) -> Result<Option<ActionRow>, Unanswered> {
        self.worker_connections()?
            .run(async |conn| events::find_action_by_key_on(conn, game_id, account_id, key).await)
            .await
    }

    /// [`Db::append`] as one statement on this worker's own connection. An append the
    /// statement does not cover, and one whose game had moved on (the pool's path tells
    /// the caller its first attempt or the seq), are [`Unanswered::Elsewhere`].
    pub async fn append_on_worker(&self, append: &Append) -> Result<i64, Unanswered> {
        let connections = self.worker_connections()?;
        let statement = append_statement::statement_for(append, None, self.log_form)
            .ok_or(Unanswered::Elsewhere)?;
        let changed = connections
            .run(async |conn| append_statement::append_on(conn, &statement).await)
            .await?;
        let changes = changed.ok_or(Unanswered::Elsewhere)?;
        self.committed(changes);
        Ok(append.new_seq())
    }
}
