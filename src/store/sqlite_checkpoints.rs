//! SQLite copies its write-ahead log back into the database file in checkpoints. Left to
//! itself it does so inside the commit that crosses a thousand pages, while that commit
//! holds the one writer's lock: that action, and every action queued behind it, waits for
//! the copy and its `fsync`. Here every pooled connection turns automatic checkpoints off
//! and one thread per database runs a passive checkpoint a few times a second on a
//! connection of its own, beside the writers instead of in front of them.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::{Connection, SqliteConnection};

use super::StoreError;

/// How often the log is copied back. A passive checkpoint of nothing new costs a few
/// microseconds; at a thousand actions a second a pass copies a few hundred pages.
const EVERY: Duration = Duration::from_millis(250);

/// Set on every pooled SQLite connection: no checkpoint inside a commit.
pub(super) const NO_AUTOMATIC_CHECKPOINT: &str = "PRAGMA wal_autocheckpoint = 0;";

/// The checkpointing thread of one database; stops (after a last checkpoint) when dropped.
#[derive(Debug)]
pub(super) struct Checkpointer {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts checkpointing the SQLite database at `path`, unless it lives in memory (no
    /// log). Without it the pooled connections' log would grow for ever, so the database is
    /// not opened when it cannot start.
    pub(super) fn start(path: &str) -> Result<Option<Checkpointer>, StoreError> {
        if path == ":memory:" || path.is_empty() {
            return Ok(None);
        }
        let unavailable = |error: &dyn std::fmt::Display| {
            StoreError::Unavailable(format!("SQLite checkpoints: {error}"))
        };
        let mut conn = SqliteConnection::establish(path).map_err(|error| unavailable(&error))?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoints".into())
            .spawn(move || loop {
                // Nothing is ever sent: the sender's drop is the signal to stop.
                let last = !matches!(stopped.recv_timeout(EVERY), Err(RecvTimeoutError::Timeout));
                // Passive: copies what no reader still needs and waits for nobody. A
                // failure (another checkpoint running) leaves the pages for the next pass.
                if let Err(error) = conn.batch_execute("PRAGMA wal_checkpoint(PASSIVE);") {
                    tracing::debug!(%error, "a SQLite checkpoint failed");
                }
                if last {
                    break;
                }
            });
        let thread = thread.map_err(|error| unavailable(&error))?;
        Ok(Some(Checkpointer {
            stop: Some(stop),
            thread: Some(thread),
        }))
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
