//! The referee: a background task on every instance that records timeouts once deadlines
//! pass, plays the bots' moves and expires open games. It wakes after this instance's own
//! appends (so a bot answers at once) and at every poll (for other instances' appends and
//! for the clock). Everything it writes is a guarded append, so instances sharing a
//! database never record a timeout or a bot move twice.

use std::time::Duration;

use actix_web::web::Data;

use crate::clock::Clock;
use crate::service::changes::GameChanges;
use crate::service::fold_cache::FoldCache;
use crate::service::referee::{self, TIMEOUT_GRACE_MS};
use crate::store::{self, Db};

#[derive(Debug, Clone)]
pub struct RefereeSettings {
    pub poll: Duration,
    /// How long an open game waits for its players.
    pub open_game_ms: i64,
}

/// Moves one bot may make in a row in a round before other games get their turn.
const BOT_MOVES_PER_GAME_AND_ROUND: usize = 50;

/// What the referee needs; cheap to clone into a blocking task.
#[derive(Clone)]
pub struct Referee {
    pub db: Data<Db>,
    pub cache: Data<FoldCache>,
    pub changes: Data<GameChanges>,
    pub clock: Clock,
    pub settings: RefereeSettings,
}

impl Referee {
    /// Runs forever.
    pub async fn run(self) {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(self.settings.poll) => {}
                _ = self.changes.appended.notified() => {}
            }
            let referee = self.clone();
            if let Err(error) = tokio::task::spawn_blocking(move || referee.one_round()).await {
                tracing::error!(%error, "a referee round failed");
            }
        }
    }

    /// One pass over everything due now.
    pub fn one_round(&self) {
        let now = self.clock.now_millis();
        let late = self
            .db
            .read(|conn| store::games_past_deadline(conn, now - TIMEOUT_GRACE_MS, 32));
        for game_id in late.unwrap_or_else(|error| {
            tracing::warn!(%error, "reading passed deadlines failed");
            Vec::new()
        }) {
            match referee::record_timeouts(&self.db, &self.cache, &game_id, now) {
                Ok(Some(appended)) => self.changes.published(&game_id, appended.seq),
                Ok(None) => {}
                Err(error) => tracing::warn!(%error, game_id, "recording a timeout failed"),
            }
        }
        let waiting = self.db.read(|conn| store::games_awaiting_a_bot(conn, 32));
        for game_id in waiting.unwrap_or_else(|error| {
            tracing::warn!(%error, "reading games awaiting a bot failed");
            Vec::new()
        }) {
            for _ in 0..BOT_MOVES_PER_GAME_AND_ROUND {
                match referee::play_bot_move(&self.db, &self.cache, &game_id, || {
                    self.clock.now_millis()
                }) {
                    Ok(Some(appended)) => {
                        self.changes.published(&game_id, appended.seq);
                        if appended.finished {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(error) => {
                        tracing::warn!(%error, game_id, "a bot move failed");
                        break;
                    }
                }
            }
        }
        let created_before = now.saturating_sub(self.settings.open_game_ms);
        if let Err(error) = referee::expire_open_games(&self.db, created_before, now) {
            tracing::warn!(%error, "expiring open games failed");
        }
    }
}
