//! SQLite copies its write-ahead log back into the database file in checkpoints. Left to
//! itself it does so inside the commit that crosses a thousand pages, while that commit
//! holds the one writer's lock: that action, and every action queued behind it, waits for
//! the copy and its `fsync`. Here every pooled connection turns automatic checkpoints off
//! and one thread per database runs a passive checkpoint on a connection of its own, beside
//! the writers instead of in front of them: often and small while moves come in (each pass
//! ends with an `fsync`, and the writes that meet it wait for as much as it flushes), rarely
//! while nothing does.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use diesel::{Connection, QueryableByName, RunQueryDsl, SqliteConnection};

use super::StoreError;

/// How soon the log is copied back after a pass that found it grown. Paced at 1,500 moves a
/// second on the reference machine's disk, the POST p99 was 2.3-2.6 ms with a pass every
/// 20 ms, 2.5-3.6 ms every 50 ms, 3.4-5.0 ms every 250 ms and 3.6-6.6 ms every second
/// (`docs/performance.md`, "SQLite's checkpoints beside the writers", "Small and often"): a
/// pass's `fsync` holds up the writes that meet it for as long as it takes, and a small pass
/// is over sooner.
const WHILE_WRITTEN: Duration = Duration::from_millis(20);

/// The longest wait between passes: the wait doubles from [`WHILE_WRITTEN`] up to this
/// while the log stays as it was, so that an idle database is looked at four times a second.
const WHILE_IDLE: Duration = Duration::from_millis(250);

/// The wait before the next pass, after one that found the log `grown` since the pass before
/// it, and had waited `waited`.
fn next_wait(grown: bool, waited: Duration) -> Duration {
    if grown {
        WHILE_WRITTEN
    } else {
        (waited * 2).clamp(WHILE_WRITTEN, WHILE_IDLE)
    }
}

/// What a passive checkpoint tells: the log's frames, and how many of them are in the file.
#[derive(QueryableByName, PartialEq, Eq, Clone, Copy, Debug)]
struct Pass {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    log: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    checkpointed: i64,
}

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
            .spawn(move || {
                let mut wait = WHILE_IDLE;
                let mut last_pass = None;
                loop {
                    // Nothing is ever sent: the sender's drop is the signal to stop.
                    let last =
                        !matches!(stopped.recv_timeout(wait), Err(RecvTimeoutError::Timeout));
                    // Passive: copies what no reader still needs and waits for nobody. A
                    // failure (another checkpoint running) leaves the pages for the next
                    // pass.
                    let pass = diesel::sql_query("PRAGMA wal_checkpoint(PASSIVE)")
                        .get_result::<Pass>(&mut conn)
                        .inspect_err(|error| tracing::debug!(%error, "a SQLite checkpoint failed"))
                        .ok();
                    if last {
                        break;
                    }
                    wait = next_wait(pass.is_some() && pass != last_pass, wait);
                    last_pass = pass;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_come_often_while_the_log_grows_and_back_off_while_it_does_not() {
        assert_eq!(next_wait(true, WHILE_IDLE), WHILE_WRITTEN);
        let mut wait = WHILE_WRITTEN;
        let mut waits = Vec::new();
        for _ in 0..6 {
            wait = next_wait(false, wait);
            waits.push(wait.as_millis());
        }
        assert_eq!(waits, [40, 80, 160, 250, 250, 250]);
        assert_eq!(next_wait(true, wait), WHILE_WRITTEN);
    }

    #[test]
    fn a_pass_tells_whether_the_log_grew() {
        use diesel::connection::SimpleConnection;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let mut writer = SqliteConnection::establish(path.to_str().unwrap()).unwrap();
        writer
            .batch_execute(&format!(
                "PRAGMA journal_mode = WAL; {NO_AUTOMATIC_CHECKPOINT} CREATE TABLE t (x TEXT);"
            ))
            .unwrap();
        let mut checkpoints = SqliteConnection::establish(path.to_str().unwrap()).unwrap();
        let mut pass = || {
            diesel::sql_query("PRAGMA wal_checkpoint(PASSIVE)")
                .get_result::<Pass>(&mut checkpoints)
                .unwrap()
        };
        let first = pass();
        assert_eq!(pass(), first, "nothing written, nothing new");
        writer
            .batch_execute("INSERT INTO t VALUES (zeroblob(10000));")
            .unwrap();
        let grown = pass();
        assert!(grown.log > first.log, "{grown:?} after {first:?}");
        assert_eq!(grown.checkpointed, grown.log, "all of it copied back");
        assert_eq!(pass(), grown);
    }
}
