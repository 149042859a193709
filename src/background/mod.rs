//! The work no request makes, done by every instance as claimed jobs, so that several
//! instances on one PostgreSQL share it and each piece is done by one of them at a time:
//!
//! - [`deadlines`]: records timeouts once a deadline's grace has passed, and expires open
//!   games nobody joined. Its own task, never behind a bot or a webhook.
//! - [`bots`]: a bounded pool of workers, each playing one bot move per claim (round-robin
//!   over games, each account's games taking turns with the others'), a person's game
//!   first, each move within a time budget.
//! - [`deliveries`]: a bounded pool of concurrent webhook posts, at most one in flight per
//!   webhook, webhooks and accounts taking turns.
//!
//! - [`mail`]: a bounded pool of SMTP sends, one account's mail at a time, accounts taking
//!   turns and each mailed at most once per spacing.
//!
//! A job's lease lapses when its instance dies, and another instance takes it over. The
//! workers wait on this instance's [`Hub`], which any instance's commit wakes, and look
//! again every poll interval whatever happens.

pub mod bots;
pub mod deadlines;
pub mod deliveries;
pub mod mail;
pub mod web_push;

use std::sync::Arc;
use std::time::Duration;

use actix_web::web::Data;

use crate::api::metrics::Metrics;
use crate::clock::Clock;
use crate::push::Hub;
use crate::service::fold_cache::FoldCache;
use crate::store::Db;

/// How each kind of background work runs on this instance.
#[derive(Debug, Clone)]
pub struct BackgroundSettings {
    /// Timeouts and expiry: how often to look for due jobs; `None`: not on this instance.
    pub deadline_poll: Option<Duration>,
    /// How long an open game waits for its players.
    pub open_game_ms: i64,
    /// Vacation days per account and year (automatic vacation days come from them).
    pub vacation: crate::service::vacations::Allowance,
    pub bots: bots::BotSettings,
    /// `None`: this instance does not deliver webhooks.
    pub deliveries: Option<deliveries::DeliverySettings>,
    /// `None`: this instance sends no mail.
    pub mail: Option<mail::MailSettings>,
    /// `None`: this instance sends no Web Push messages.
    pub web_push: Option<web_push::PushSettings>,
}

/// What the workers share.
#[derive(Clone)]
pub struct Workers {
    pub db: Data<Db>,
    pub cache: Data<FoldCache>,
    pub hub: Data<Hub>,
    pub metrics: Data<Metrics>,
    pub clock: Clock,
    /// This instance's name in the leases it takes: unique per process start.
    pub instance: Arc<str>,
}

impl Workers {
    /// Starts every kind of background work the settings turn on, as tasks of the current
    /// runtime: they end with the server.
    pub fn start(self, settings: BackgroundSettings) {
        if let Some(poll) = settings.deadline_poll {
            actix_web::rt::spawn(deadlines::run(
                self.clone(),
                poll,
                settings.open_game_ms,
                settings.vacation,
            ));
        }
        bots::start(&self, &settings.bots);
        if let Some(delivery) = settings.deliveries {
            actix_web::rt::spawn(deliveries::run(self.clone(), delivery));
        }
        if let Some(mail) = settings.mail {
            actix_web::rt::spawn(mail::run(self.clone(), mail));
        }
        if let Some(push) = settings.web_push {
            actix_web::rt::spawn(web_push::run(self.clone(), push));
        }
    }
}

/// A name for this process in the leases it takes.
pub fn instance_name() -> Arc<str> {
    format!("{}-{}", std::process::id(), crate::service::random_id(8)).into()
}

/// Runs blocking database work off the async workers.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    tokio::task::spawn_blocking(work).await.ok()
}

/// How long a claimed job stays this instance's before another may take it over.
const LEASE: Duration = Duration::from_secs(30);

fn lease_ms() -> i64 {
    LEASE.as_millis() as i64
}
