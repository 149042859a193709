//! The instances' channel: one PostgreSQL connection per instance `LISTEN`s for what the
//! other instances' commits changed and publishes it to this instance's [`Hub`], and
//! `NOTIFY`s what this instance's commits changed. Changes are sent right after their
//! commit, gathered while the connection is busy and for [`GATHER`] after each statement,
//! in autocommitted statements of their own:
//! PostgreSQL serialises the commits of transactions that notify behind one lock, so a
//! `NOTIFY` inside each append would queue every append's durable commit behind the others
//! (measured with pgbench: a quarter of the plain rate; see docs/architecture.md).
//!
//! A change this instance committed and then failed to send (it died in between, or the
//! connection was lost) is still found by the slow re-read of everything followed, the
//! safety net: at once after the listening connection is made again, and otherwise every
//! `--follow-recheck-seconds`, one query per 500 games or accounts whatever the number of
//! followers.

use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use diesel::sql_types::{Integer, Text};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl};

use super::Hub;
use crate::store::{self, changes, Change, Db, StoreError};

/// How long the connection waits for changes to send before it looks for notifications
/// received. Looking only reads what the socket holds (no round trip to the server), so
/// this costs next to nothing and bounds how late a notification is seen.
const POLL: Duration = Duration::from_millis(10);
/// How often the listening connection is asked `SELECT 1`, so that a connection that died
/// silently (no reset ever came) is noticed and made again.
const PING: Duration = Duration::from_secs(10);
/// Waits between attempts to connect again, growing up to the last.
const RECONNECT: [Duration; 4] = [
    Duration::from_millis(100),
    Duration::from_millis(500),
    Duration::from_secs(2),
    Duration::from_secs(5),
];
/// How long changes gather after a statement before the next one goes. The first change after
/// a quiet spell leaves at once; while commits come faster, they leave a few at a time, so
/// the commits neither wake this thread nor cost a statement each: the `NOTIFY` of each of
/// them took a tenth of the server's CPU under load (docs/performance.md, "Changes sent
/// gathered"). Whoever follows on another instance learns of a change at most this much
/// later, on top of its own [`POLL`].
const GATHER: Duration = Duration::from_millis(5);
/// Games or accounts read in one statement of the re-check.
const RECHECK_CHUNK: usize = 500;
/// Changes waiting to be sent at most; beyond, the oldest are dropped (the other instances'
/// re-reads find them).
const MOST_WAITING: usize = 100_000;

/// Reads the current seq of every followed game, the newest message of every followed chat,
/// and the newest notification and token
/// generation of every followed account, and publishes them: whatever a lost notification
/// would have told, this tells too.
pub fn recheck(db: &Db, hub: &Hub) -> Result<(), StoreError> {
    let followed = hub.followed();
    let mut found = Vec::new();
    for chunk in followed.games.chunks(RECHECK_CHUNK) {
        let seqs = db.read_without_transaction(|conn| store::current_seqs(conn, chunk))?;
        found.extend(
            seqs.into_iter()
                .map(|(game_id, seq)| Change::Appended { game_id, seq }),
        );
    }
    for chunk in followed.chats.chunks(RECHECK_CHUNK) {
        let last =
            db.read_without_transaction(|conn| store::chat::last_message_ids(conn, chunk))?;
        found.extend(
            last.into_iter()
                .map(|(game_id, id)| Change::Chatted { game_id, id }),
        );
    }
    for chunk in followed.accounts.chunks(RECHECK_CHUNK) {
        let (last, generations) = db.read(|conn| {
            Ok::<_, StoreError>((
                store::notifications::last_notification_ids(conn, chunk)?,
                store::token_generations(conn, chunk)?,
            ))
        })?;
        found.extend(
            last.into_iter()
                .map(|(account_id, id)| Change::Notified { account_id, id }),
        );
        // Not a revocation (that would make the instance forget its token checks): only
        // what followers compare their token's generation with.
        for (account_id, generation) in generations {
            hub.account_generation_is(&account_id, generation);
        }
    }
    hub.publish(&found);
    Ok(())
}

/// This instance's committed changes waiting to be sent.
#[derive(Default)]
pub struct Outgoing {
    waiting: Mutex<Waiting>,
    added: Condvar,
}

#[derive(Default)]
struct Waiting {
    changes: Vec<Change>,
    /// Whether the channel's thread waits for changes: only then does a commit wake it (a
    /// wake is a system call even when nobody waits).
    listening: bool,
}

impl Outgoing {
    /// Queues `changes` for the other instances.
    pub fn send(&self, changes: &[Change]) {
        let mut waiting = self.lock();
        waiting.changes.extend_from_slice(changes);
        if waiting.changes.len() > MOST_WAITING {
            let excess = waiting.changes.len() - MOST_WAITING;
            waiting.changes.drain(..excess);
        }
        if waiting.listening {
            self.added.notify_one();
        }
    }

    /// What waits, once something does or `timeout` passed.
    fn take(&self, timeout: Duration) -> Vec<Change> {
        let mut waiting = self.lock();
        waiting.listening = true;
        let (mut waiting, _) = self
            .added
            .wait_timeout_while(waiting, timeout, |waiting| waiting.changes.is_empty())
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        waiting.listening = false;
        std::mem::take(&mut waiting.changes)
    }

    /// Puts changes that could not be sent back in front.
    fn put_back(&self, mut changes: Vec<Change>) {
        let mut waiting = self.lock();
        changes.append(&mut waiting.changes);
        changes.truncate(MOST_WAITING);
        waiting.changes = changes;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Starts the thread that keeps the channel to the PostgreSQL database at `url`; returns
/// where to queue this instance's changes. The thread ends once the server that owns
/// `db` and `hub` is gone.
pub fn spawn(url: String, db: &Arc<Db>, hub: &Arc<Hub>) -> std::io::Result<Arc<Outgoing>> {
    let outgoing = Arc::new(Outgoing::default());
    let channel = Channel {
        url,
        db: Arc::downgrade(db),
        hub: Arc::downgrade(hub),
        outgoing: Arc::downgrade(&outgoing),
    };
    std::thread::Builder::new()
        .name("turnpost-channel".into())
        .spawn(move || channel.run())?;
    Ok(outgoing)
}

struct Channel {
    url: String,
    db: Weak<Db>,
    hub: Weak<Hub>,
    outgoing: Weak<Outgoing>,
}

#[derive(QueryableByName)]
struct BackendPid {
    #[diesel(sql_type = Integer)]
    pid: i32,
}

impl Channel {
    fn server_is_gone(&self) -> bool {
        self.db.strong_count() == 0 || self.hub.strong_count() == 0
    }

    fn run(&self) {
        let mut failures = 0;
        while !self.server_is_gone() {
            match self.connect() {
                Ok((mut conn, own_pid)) => {
                    failures = 0;
                    // Whatever was written while nobody listened.
                    if let (Some(db), Some(hub)) = (self.db.upgrade(), self.hub.upgrade()) {
                        if let Err(error) = recheck(&db, &hub) {
                            tracing::warn!(%error, "re-reading followed games failed");
                        }
                    }
                    match self.serve(&mut conn, own_pid) {
                        Ok(()) => return,
                        Err(error) => tracing::warn!(
                            %error,
                            "the connection to the other instances was lost; connecting again"
                        ),
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot connect to the other instances' channel")
                }
            }
            std::thread::sleep(RECONNECT[failures.min(RECONNECT.len() - 1)]);
            failures += 1;
        }
    }

    /// A listening connection, and its backend's process id (what this instance sends
    /// comes back to it with that id).
    fn connect(&self) -> Result<(PgConnection, i32), StoreError> {
        let mut conn = PgConnection::establish(&self.url)
            .map_err(|error| StoreError::Unavailable(error.to_string()))?;
        diesel::sql_query(format!("LISTEN {}", changes::CHANNEL)).execute(&mut conn)?;
        let own = diesel::sql_query("SELECT pg_backend_pid() AS pid")
            .get_result::<BackendPid>(&mut conn)?;
        Ok((conn, own.pid))
    }

    /// Sends and receives until the connection fails (an error) or the server is gone.
    fn serve(&self, conn: &mut PgConnection, own_pid: i32) -> Result<(), StoreError> {
        let mut pinged = Instant::now();
        loop {
            let (Some(hub), Some(outgoing)) = (self.hub.upgrade(), self.outgoing.upgrade()) else {
                return Ok(());
            };
            if self.db.strong_count() == 0 {
                return Ok(());
            }
            let sending = outgoing.take(POLL);
            if !sending.is_empty() {
                let started = Instant::now();
                if let Err(error) = send(conn, &sending) {
                    outgoing.put_back(sending);
                    return Err(error);
                }
                pinged = Instant::now();
                std::thread::sleep(GATHER.saturating_sub(started.elapsed()));
            }
            for notification in conn.notifications_iter() {
                let notification = notification?;
                if notification.process_id != own_pid {
                    hub.publish(&changes::parse_payload(&notification.payload));
                }
            }
            if pinged.elapsed() >= PING {
                diesel::sql_query("SELECT 1").execute(conn)?;
                pinged = Instant::now();
            }
        }
    }
}

/// `NOTIFY`s `changes`, a few hundred to a statement.
fn send(conn: &mut PgConnection, changes: &[Change]) -> Result<(), StoreError> {
    for payload in changes::payloads(changes) {
        diesel::sql_query("SELECT pg_notify($1, $2)")
            .bind::<Text, _>(changes::CHANNEL)
            .bind::<Text, _>(payload)
            .execute(conn)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn appended(seq: i64) -> Change {
        Change::Appended {
            game_id: "g".into(),
            seq,
        }
    }

    #[test]
    fn a_change_queued_while_the_thread_waits_wakes_it() {
        let outgoing = Arc::new(Outgoing::default());
        let waiter = {
            let outgoing = outgoing.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                (outgoing.take(Duration::from_secs(120)), started.elapsed())
            })
        };
        while !outgoing.lock().listening {
            std::thread::yield_now();
        }
        outgoing.send(&[appended(1)]);
        let (taken, waited) = waiter.join().unwrap();
        assert_eq!(taken, vec![appended(1)]);
        // Not a speed check: a lost wake-up would return only at the timeout.
        assert!(waited < Duration::from_secs(60), "woken after {waited:?}");
        assert!(!outgoing.lock().listening);
    }

    #[test]
    fn changes_queued_while_nobody_waits_are_taken_at_once_in_order() {
        let outgoing = Outgoing::default();
        outgoing.send(&[appended(1)]);
        outgoing.send(&[appended(2), appended(3)]);
        assert_eq!(
            outgoing.take(Duration::from_secs(120)),
            vec![appended(1), appended(2), appended(3)]
        );
        outgoing.put_back(vec![appended(4)]);
        outgoing.send(&[appended(5)]);
        assert_eq!(
            outgoing.take(Duration::ZERO),
            vec![appended(4), appended(5)]
        );
        assert!(outgoing.take(Duration::ZERO).is_empty());
    }
}
