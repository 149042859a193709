//! Timeouts, reminders, open-game expiry and vacations' ends: cheap writes that must happen on time, so they have a
//! task of their own that no bot move or webhook post can hold up. Each pass takes every
//! due job, deadlines first.

use std::time::Duration;

use super::{blocking, lease_ms, Workers};
use crate::service::referee::{self, TIMEOUT_GRACE_MS};
use crate::service::vacations::{self, Allowance};
use crate::store::jobs::{Claim, JobKind};

/// How long a game pushed to an account that does not look at it keeps its next
/// notifications from being pushed.
const UNSEEN_FOR_MS: i64 = 30 * 24 * 3_600_000;

/// A job whose work failed (the database was away) is tried again this much later.
const RETRY_FAILED: Duration = Duration::from_secs(5);

/// Runs forever: a pass over the due jobs, then a pause of `poll`.
pub async fn run(workers: Workers, poll: Duration, open_game_ms: i64, allowance: Allowance) {
    let mut tidied_at = tokio::time::Instant::now();
    loop {
        let pass = workers.clone();
        blocking(move || pass.enforce_due(open_game_ms, allowance)).await;
        if tidied_at.elapsed() >= TIDY_EVERY {
            tidied_at = tokio::time::Instant::now();
            let tidy = workers.clone();
            blocking(move || {
                tidy.forget_idle_limits();
                tidy.forget_stale_pushes();
            })
            .await;
        }
        tokio::time::sleep(poll).await;
    }
}

/// How often the shared limits' idle rows, and lapsed push subscriptions, are forgotten.
const TIDY_EVERY: Duration = Duration::from_secs(60);

impl Workers {
    /// Records every timeout whose grace has passed (or starts a day of vacation instead,
    /// see `referee::enforce_deadline`), sends due reminders, expires every open game that
    /// waited `open_game_ms`, and brings games in step with their players' vacations.
    pub fn enforce_due(&self, open_game_ms: i64, allowance: Allowance) {
        let now = self.clock.now_millis();
        let margins = [
            (JobKind::Deadline, TIMEOUT_GRACE_MS),
            (JobKind::Reminder, 0),
            (JobKind::Expiry, open_game_ms),
        ];
        for (kind, margin) in margins {
            let claim = Claim {
                kind,
                owner: &self.instance,
                now,
                due_by: now.saturating_sub(margin),
                lease_until: now + lease_ms(),
                interactive_only: false,
            };
            while let Some(job) = self.claim(&claim) {
                let done = match kind {
                    JobKind::Deadline => referee::enforce_deadline(
                        &self.db,
                        &self.cache,
                        allowance,
                        &job,
                        &self.instance,
                        now,
                    )
                    .map(|appended| {
                        if appended.is_some() {
                            self.metrics.timeouts_recorded.inc();
                        }
                    }),
                    JobKind::Reminder => {
                        referee::send_reminders(&self.db, &job, &self.instance, now).map(|sent| {
                            self.metrics.reminders_sent.inc_by(u64::from(sent));
                        })
                    }
                    _ => referee::expire_open_game(&self.db, &job, &self.instance, now).map(
                        |expired| {
                            if expired {
                                self.metrics.games_expired.inc();
                            }
                        },
                    ),
                };
                if let Err(error) = done {
                    tracing::warn!(%error, game_id = job.game_id, kind = kind.as_str(), "a due job failed");
                    // Tried again at a later pass, and not in a loop in this one.
                    let retry_at = now + RETRY_FAILED.as_millis() as i64;
                    let _ = referee::postpone_job(&self.db, kind, &job, &self.instance, retry_at);
                    break;
                }
            }
        }
        vacations::bring_in_step(&self.db, &self.cache, None, self.clock.now_millis());
    }

    /// Forgets the shared limits' rows that read as untouched (full buckets, names left
    /// alone, sign-ins older than the guard remembers): any instance may, and it is the
    /// same whichever does.
    pub fn forget_idle_limits(&self) {
        let now = crate::service::now_millis();
        let known_since = now - crate::api::guessing::KNOWN_FOR_MS;
        if let Err(error) = self
            .db
            .write(|conn| crate::store::limits::forget_idle(conn, now, known_since))
        {
            tracing::warn!(%error, "forgetting idle limits failed");
        }
    }

    /// Removes the push subscriptions their browsers let lapse, and forgets games pushed to
    /// accounts that never looked within [`UNSEEN_FOR_MS`] (a game over since, mostly).
    pub fn forget_stale_pushes(&self) {
        let now = crate::service::now_millis();
        if let Err(error) = self.db.write(|conn| {
            crate::store::web_push::remove_expired(conn, now)?;
            crate::store::web_push::forget_unseen_before(conn, now - UNSEEN_FOR_MS)
        }) {
            tracing::warn!(%error, "forgetting stale pushes failed");
        }
    }

    /// The next due job of `claim.kind`, if any; asks with a read first, so an idle pass
    /// takes no write lock.
    pub(super) fn claim(&self, claim: &Claim<'_>) -> Option<crate::store::jobs::ClaimedJob> {
        match referee::any_due(&self.db, claim) {
            Ok(true) => {}
            Ok(false) => return None,
            Err(error) => {
                tracing::warn!(%error, "reading due jobs failed");
                return None;
            }
        }
        referee::claim_job(&self.db, claim).unwrap_or_else(|error| {
            tracing::warn!(%error, "claiming a job failed");
            None
        })
    }
}
