//! Hearing the other instances: one PostgreSQL connection per instance `LISTEN`s on the
//! channel every write transaction notifies (see `store::changes`), and publishes what it
//! hears to this instance's [`Hub`]. A slow re-read of everything followed here is the
//! safety net: after the listening connection was lost and made again, at once; otherwise
//! every `recheck` interval, one query per 500 games or accounts whatever the number of
//! followers.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use diesel::{Connection, PgConnection, RunQueryDsl};

use super::Hub;
use crate::store::{self, changes, Change, Db, StoreError};

/// How often the listening connection is asked for notifications it received. Asking only
/// reads what the socket holds (no round trip to the server), so this costs next to
/// nothing and bounds how late a notification is seen.
const POLL: Duration = Duration::from_millis(10);
/// How often the listening connection is asked `SELECT 1`, so that a connection that died
/// silently (no reset ever came) is noticed and made again.
const PING: Duration = Duration::from_secs(10);
/// Waits between attempts to connect again, doubling up to the last.
const RECONNECT: [Duration; 4] = [
    Duration::from_millis(100),
    Duration::from_millis(500),
    Duration::from_secs(2),
    Duration::from_secs(5),
];
/// Games or accounts read in one statement of the re-check.
const RECHECK_CHUNK: usize = 500;

/// Reads the current seq of every followed game and the newest notification and token
/// generation of every followed account, and publishes them: whatever a lost notification
/// would have told, this tells too.
pub fn recheck(db: &Db, hub: &Hub) -> Result<(), StoreError> {
    let (games, accounts) = hub.followed();
    let mut found = Vec::new();
    for chunk in games.chunks(RECHECK_CHUNK) {
        let seqs = db.read_without_transaction(|conn| store::current_seqs(conn, chunk))?;
        found.extend(
            seqs.into_iter()
                .map(|(game_id, seq)| Change::Appended { game_id, seq }),
        );
    }
    for chunk in accounts.chunks(RECHECK_CHUNK) {
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
        found.extend(
            generations
                .into_iter()
                .map(|(account_id, generation)| Change::Revoked {
                    account_id,
                    generation,
                }),
        );
    }
    hub.publish(&found);
    Ok(())
}

/// Starts the listening thread for the PostgreSQL database at `url`. It ends once the
/// server that owns `db` and `hub` is gone.
pub fn spawn(url: String, db: &Arc<Db>, hub: &Arc<Hub>) -> std::io::Result<()> {
    let (db, hub) = (Arc::downgrade(db), Arc::downgrade(hub));
    std::thread::Builder::new()
        .name("turnpost-listen".into())
        .spawn(move || listen(&url, &db, &hub))
        .map(drop)
}

fn listen(url: &str, db: &Weak<Db>, hub: &Weak<Hub>) {
    let mut failures = 0;
    loop {
        if db.strong_count() == 0 || hub.strong_count() == 0 {
            return;
        }
        match connect(url) {
            Ok(mut conn) => {
                failures = 0;
                // Whatever was written while nobody listened.
                if let (Some(db), Some(hub)) = (db.upgrade(), hub.upgrade()) {
                    if let Err(error) = recheck(&db, &hub) {
                        tracing::warn!(%error, "re-reading followed games failed");
                    }
                }
                match receive(&mut conn, hub) {
                    Ok(()) => return,
                    Err(error) => {
                        tracing::warn!(%error, "the listening connection was lost; connecting again")
                    }
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for other instances' changes");
            }
        }
        std::thread::sleep(RECONNECT[failures.min(RECONNECT.len() - 1)]);
        failures += 1;
    }
}

fn connect(url: &str) -> Result<PgConnection, StoreError> {
    let mut conn =
        PgConnection::establish(url).map_err(|error| StoreError::Unavailable(error.to_string()))?;
    diesel::sql_query(format!("LISTEN {}", changes::CHANNEL)).execute(&mut conn)?;
    Ok(conn)
}

/// Publishes what arrives until the connection fails (an error) or the hub is gone.
fn receive(conn: &mut PgConnection, hub: &Weak<Hub>) -> Result<(), StoreError> {
    let mut pinged = Instant::now();
    loop {
        let Some(hub) = hub.upgrade() else {
            return Ok(());
        };
        for notification in conn.notifications_iter() {
            hub.publish(&changes::parse_payload(&notification?.payload));
        }
        drop(hub);
        if pinged.elapsed() >= PING {
            diesel::sql_query("SELECT 1").execute(conn)?;
            pinged = Instant::now();
        }
        std::thread::sleep(POLL);
    }
}
