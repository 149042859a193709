//! The bot workers: a bounded pool, each worker playing one bot move per claim. A game's
//! bot job is due again right after its move, behind the games that waited longer, so the
//! pool goes round-robin over games; claims also take turns between accounts, and a move
//! a person waits for comes first. Half the pool (at least one worker) may play games no
//! person plays any more; the rest wait for people's games only, so a person's opponent
//! answers at once however many bot-only games run. Each move thinks for at most
//! `move_time`.

use std::time::{Duration, Instant};

use super::{blocking, lease_ms, Workers};
use crate::games::bots::{choose_action_until, PlayoutBudget};
use crate::service::referee::{self, BotMove};
use crate::store::jobs::{Claim, ClaimedJob, JobKind};

/// A move that failed (the database was away) is tried again this much later.
const RETRY_FAILED: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
pub struct BotSettings {
    /// Workers on this instance (0: this instance plays no bot moves).
    pub workers: usize,
    /// The longest a playouts bot thinks about one move.
    pub move_time: Duration,
    /// How often an idle worker looks for due moves without being woken.
    pub poll: Duration,
}

/// Starts the pool.
pub fn start(workers: &Workers, settings: &BotSettings) {
    let any_game = (settings.workers / 2).max(1);
    for index in 0..settings.workers {
        actix_web::rt::spawn(work(workers.clone(), settings.clone(), index >= any_game));
    }
}

/// One worker, forever.
async fn work(workers: Workers, settings: BotSettings, people_only: bool) {
    loop {
        let woken = workers.hub.bot_due.notified();
        tokio::pin!(woken);
        // Registered before looking, so a move falling due meanwhile still wakes us.
        woken.as_mut().enable();
        let (turn, move_settings) = (workers.clone(), settings.clone());
        let played = blocking(move || turn.play_one(&move_settings, people_only)).await;
        if played != Some(true) {
            tokio::select! {
                _ = woken => {}
                _ = tokio::time::sleep(settings.poll) => {}
            }
        }
    }
}

impl Workers {
    /// Claims one due bot job and plays one move in it; whether there was one.
    pub fn play_one(&self, settings: &BotSettings, people_only: bool) -> bool {
        let now = self.clock.now_millis();
        let claim = Claim {
            kind: JobKind::Bot,
            owner: &self.instance,
            now,
            due_by: now,
            lease_until: now + lease_ms(),
            interactive_only: people_only,
        };
        let Some(job) = self.claim(&claim) else {
            return false;
        };
        self.play(&job, settings.move_time);
        true
    }

    fn play(&self, job: &ClaimedJob, move_time: Duration) {
        let think = |bot,
                     rules: &dyn crate::games::GameRules,
                     table: &dyn crate::games::Table,
                     seat,
                     rng: &mut dyn rand::RngCore| {
            let started = Instant::now();
            let out_of_time = || started.elapsed() >= move_time;
            choose_action_until(
                bot,
                PlayoutBudget::DEFAULT,
                rules,
                table,
                seat,
                rng,
                &out_of_time,
            )
        };
        let clock = self.clock.clone();
        match referee::play_bot_move(&self.db, &self.cache, job, &self.instance, &think, || {
            clock.now_millis()
        }) {
            Ok(BotMove::Appended(_)) => self
                .metrics
                .bot_moves
                .with_label_values(&["appended"])
                .inc(),
            Ok(BotMove::Discarded) => self
                .metrics
                .bot_moves
                .with_label_values(&["discarded"])
                .inc(),
            Ok(BotMove::Nothing) => {}
            Err(error) => {
                tracing::warn!(%error, game_id = job.game_id, "a bot move failed");
                let retry_at = self.clock.now_millis() + RETRY_FAILED.as_millis() as i64;
                let _ =
                    referee::postpone_job(&self.db, JobKind::Bot, job, &self.instance, retry_at);
            }
        }
    }
}
