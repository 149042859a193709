//! Who is waiting for which game to move on. An append on this instance wakes its waiters
//! at once; appends by other instances sharing the database are seen by the waiters' own
//! periodic re-read of the game's seq (see `api::live`), so no waiter depends on this
//! process having made the change.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::{watch, Notify};

#[derive(Default)]
pub struct GameChanges {
    games: Mutex<HashMap<String, watch::Sender<i64>>>,
    /// Wakes the referee (bots to move) after any local append.
    pub appended: Notify,
}

impl GameChanges {
    /// Tells this instance's waiters that `game_id` reached `seq`.
    pub fn published(&self, game_id: &str, seq: i64) {
        self.appended.notify_one();
        let mut games = self
            .games
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(sender) = games.get(game_id) {
            sender.send_if_modified(|known| {
                let newer = seq > *known;
                if newer {
                    *known = seq;
                }
                newer
            });
        }
        // Forget games nobody waits for any more, so the map stays as small as the waiters.
        games.retain(|_, sender| sender.receiver_count() > 0);
    }

    /// A receiver that changes when this instance appends to `game_id`.
    pub fn subscribe(&self, game_id: &str, seq: i64) -> watch::Receiver<i64> {
        let mut games = self
            .games
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        games
            .entry(game_id.to_owned())
            .or_insert_with(|| watch::channel(seq).0)
            .subscribe()
    }
}
