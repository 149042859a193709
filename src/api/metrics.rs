//! `GET /metrics` in Prometheus' text format: request latency per route, actions appended,
//! the fold cache's hits and misses, the database pool and its statements, open streams,
//! signed-in requests under way, waiting and refused for their slots, connections refused,
//! and the background work this instance did (timeouts, expiries, bot moves, webhook
//! attempts): summed over the instances, those tell whether any was done twice. Each server
//! has its own registry, so several servers in one process (the tests) do not mix their
//! figures.

use std::sync::atomic::Ordering;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{route, web, HttpResponse};
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts,
    Registry, TextEncoder,
};

use super::connection_caps::ConnectionCaps;
use super::request_slots::RequestSlots;
use crate::push::limits::Followers;
use crate::service::fold_cache::FoldCache;
use crate::store::Db;

pub struct Metrics {
    registry: Registry,
    requests: HistogramVec,
    pub actions_appended: IntCounter,
    /// Legal actions, views and moves, by where their statements ran (see [`PlayPath`]).
    play_requests: IntCounterVec,
    played_on_worker: IntCounter,
    played_on_pool: IntCounter,
    fold_cache_hits: IntCounter,
    fold_cache_misses: IntCounter,
    fold_cache_games: IntGauge,
    fold_cache_bytes: IntGauge,
    pool_connections: IntGauge,
    pool_idle: IntGauge,
    db_statements: IntCounter,
    open_followers: IntGauge,
    requests_under_way: IntGauge,
    requests_waiting: IntGauge,
    requests_refused: IntCounter,
    connections_refused: IntCounter,
    connections_evicted: IntCounter,
    pub timeouts_recorded: IntCounter,
    pub reminders_sent: IntCounter,
    pub games_expired: IntCounter,
    /// By `outcome`: `appended`, or `discarded` when the game moved on while the bot thought.
    pub bot_moves: IntCounterVec,
    /// By `outcome`: `delivered` or `failed`.
    pub webhook_attempts: IntCounterVec,
    /// By `outcome`: `sent`, `failed` (tried again later) or `given_up`.
    pub mails: IntCounterVec,
    /// By `outcome`: `delivered`, `failed` (tried again later, or dropped) or `gone` (the
    /// subscription was removed).
    pub push_attempts: IntCounterVec,
}

impl Metrics {
    pub fn new() -> Result<Metrics, prometheus::Error> {
        let registry = Registry::new_custom(Some("turnpost".to_owned()), None)?;
        let requests = HistogramVec::new(
            HistogramOpts::new(
                "http_request_duration_seconds",
                "Time to answer a request, by route pattern, method and status",
            )
            .buckets(vec![
                0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
            ]),
            &["route", "method", "status"],
        )?;
        let play_requests = IntCounterVec::new(
            Opts::new(
                "play_requests_total",
                "Legal actions, views and moves answered, by where their statements ran: \
                 `worker`, on the worker thread's own database connection, or `pool`, on a \
                 database thread of the pool",
            ),
            &["path"],
        )?;
        let gauge = |name: &str, help: &str| IntGauge::with_opts(Opts::new(name, help));
        let metrics = Metrics {
            actions_appended: IntCounter::new(
                "actions_appended_total",
                "Actions accepted and appended to a game's log by this instance",
            )?,
            fold_cache_hits: IntCounter::new(
                "fold_cache_hits_total",
                "Folds that started from a cached state",
            )?,
            fold_cache_misses: IntCounter::new("fold_cache_misses_total", "Folds from scratch")?,
            fold_cache_games: gauge("fold_cache_games", "Games whose folded state is cached")?,
            fold_cache_bytes: gauge(
                "fold_cache_bytes",
                "Memory the cached states take, as the engines count it",
            )?,
            pool_connections: gauge("db_pool_connections", "Database connections held")?,
            pool_idle: gauge("db_pool_idle_connections", "Database connections idle")?,
            db_statements: IntCounter::new(
                "db_statements_total",
                "Statements this instance sent to the database, through its pool and on its worker \
                 threads' own connections",
            )?,
            open_followers: gauge(
                "open_followers",
                "Streams and long polls open on this instance",
            )?,
            requests_under_way: gauge(
                "requests_under_way",
                "Signed-in requests holding their account's and address's slots on this instance",
            )?,
            requests_waiting: gauge(
                "requests_waiting",
                "Requests waiting for a slot of their account or address, personal-token checks \
                 included",
            )?,
            connections_refused: IntCounter::new(
                "connections_refused_total",
                "Connections answered 429 `too_many_connections` and closed: their network held \
                 its share, or the instance was full",
            )?,
            connections_evicted: IntCounter::new(
                "connections_evicted_total",
                "Idle connections closed to make room for another of their network, or for a \
                 light client when the instance was full",
            )?,
            requests_refused: IntCounter::new(
                "requests_refused_in_flight_total",
                "Requests refused 429 `too_many_requests_in_flight`, personal-token checks included",
            )?,
            timeouts_recorded: IntCounter::new(
                "timeouts_recorded_total",
                "Appends of timed-out seats made by this instance",
            )?,
            reminders_sent: IntCounter::new(
                "reminders_sent_total",
                "Reminders before deadlines this instance sent",
            )?,
            games_expired: IntCounter::new(
                "games_expired_total",
                "Open games this instance cancelled as expired",
            )?,
            played_on_worker: play_requests.with_label_values(&["worker"]),
            played_on_pool: play_requests.with_label_values(&["pool"]),
            play_requests,
            bot_moves: IntCounterVec::new(
                Opts::new(
                    "bot_moves_total",
                    "Bot moves this instance computed, by whether they were appended",
                ),
                &["outcome"],
            )?,
            webhook_attempts: IntCounterVec::new(
                Opts::new(
                    "webhook_attempts_total",
                    "Webhook posts this instance made, by outcome",
                ),
                &["outcome"],
            )?,
            push_attempts: IntCounterVec::new(
                Opts::new(
                    "push_attempts_total",
                    "Web Push posts this instance made, by outcome",
                ),
                &["outcome"],
            )?,
            mails: IntCounterVec::new(
                Opts::new(
                    "mails_total",
                    "Mails this instance tried to send, by outcome",
                ),
                &["outcome"],
            )?,
            requests,
            registry,
        };

        metrics
            .registry
            .register(Box::new(metrics.requests.clone()))?;
        for counter in [
            &metrics.actions_appended,
            &metrics.fold_cache_hits,
            &metrics.fold_cache_misses,
            &metrics.db_statements,
            &metrics.requests_refused,
            &metrics.connections_refused,
            &metrics.connections_evicted,
            &metrics.timeouts_recorded,
            &metrics.reminders_sent,
            &metrics.games_expired,
        ] {
            metrics.registry.register(Box::new(counter.clone()))?;
        }
        for collector in [
            &metrics.fold_cache_games,
            &metrics.fold_cache_bytes,
            &metrics.pool_connections,
            &metrics.pool_idle,
            &metrics.open_followers,
            &metrics.requests_under_way,
            &metrics.requests_waiting,
        ] {
            metrics.registry.register(Box::new(collector.clone()))?;
        }
        for counters in [
            &metrics.play_requests,
            &metrics.bot_moves,
            &metrics.webhook_attempts,
            &metrics.mails,
            &metrics.push_attempts,
        ] {
            metrics.registry.register(Box::new(counters.clone()))?;
        }
        // Both outcomes show from the start, so a sum over instances never misses a series.
        for outcome in ["appended", "discarded"] {
            metrics.bot_moves.with_label_values(&[outcome]);
        }
        for outcome in ["delivered", "failed"] {
            metrics.webhook_attempts.with_label_values(&[outcome]);
        }
        for outcome in ["sent", "failed", "given_up"] {
            metrics.mails.with_label_values(&[outcome]);
        }
        for outcome in ["delivered", "failed", "gone"] {
            metrics.push_attempts.with_label_values(&[outcome]);
        }
        Ok(metrics)
    }

    /// Counts a legal actions, view or move request answered by way of `path`.
    pub fn played(&self, path: PlayPath) {
        match path {
            PlayPath::Worker => self.played_on_worker.inc(),
            PlayPath::Pool => self.played_on_pool.inc(),
        }
    }

    fn observe(&self, route: &str, method: &str, status: u16, seconds: f64) {
        let status = format!("{}xx", status / 100);
        let histogram: Histogram = self.requests.with_label_values(&[route, method, &status]);
        histogram.observe(seconds);
    }
}

/// Where a play request's statements ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayPath {
    /// On the worker thread's own database connection (PostgreSQL).
    Worker,
    /// On a database thread of the pool: always on SQLite, and on PostgreSQL what the
    /// worker could not answer alone.
    Pool,
}

/// Times every request under its route pattern (`/v1/games/{id}/view`), so that the
/// number of series stays bounded whatever paths clients send.
pub async fn time_requests(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = std::time::Instant::now();
    let metrics = request.app_data::<web::Data<Metrics>>().cloned();
    let method = request.method().as_str().to_owned();
    let response = next.call(request).await?;
    if let Some(metrics) = metrics {
        let route = response
            .request()
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_owned());
        metrics.observe(
            &route,
            &method,
            response.status().as_u16(),
            started.elapsed().as_secs_f64(),
        );
    }
    Ok(response)
}

/// Prometheus metrics of this instance (no token needed; keep it to your network).
#[route("/metrics", method = "GET", method = "HEAD")]
pub async fn get_metrics(
    metrics: web::Data<Metrics>,
    cache: web::Data<FoldCache>,
    db: web::Data<Db>,
    followers: web::Data<Followers>,
    slots: web::Data<RequestSlots>,
    connection_caps: web::Data<ConnectionCaps>,
) -> HttpResponse {
    let stats = cache.stats();
    // The cache counts for itself; the counters catch up at every scrape.
    let hits = &metrics.fold_cache_hits;
    hits.inc_by(stats.hits.saturating_sub(hits.get()));
    let misses = &metrics.fold_cache_misses;
    misses.inc_by(stats.misses.saturating_sub(misses.get()));
    metrics.fold_cache_games.set(stats.games as i64);
    metrics.fold_cache_bytes.set(stats.bytes as i64);
    let (connections, idle) = db.pool_state();
    metrics.pool_connections.set(i64::from(connections));
    metrics.pool_idle.set(i64::from(idle));
    let statements = &metrics.db_statements;
    statements.inc_by(db.statements().saturating_sub(statements.get()));
    metrics.open_followers.set(followers.count() as i64);
    let slots = slots.counts();
    let gauge = |count: &std::sync::atomic::AtomicUsize| count.load(Ordering::Relaxed) as i64;
    metrics.requests_under_way.set(gauge(&slots.under_way));
    metrics.requests_waiting.set(gauge(&slots.waiting));
    let counter = &metrics.connections_refused;
    counter.inc_by(connection_caps.refused().saturating_sub(counter.get()));
    let evicted = &metrics.connections_evicted;
    evicted.inc_by(connection_caps.evicted().saturating_sub(evicted.get()));
    let refused = &metrics.requests_refused;
    refused.inc_by(
        slots
            .refused
            .load(Ordering::Relaxed)
            .saturating_sub(refused.get()),
    );
    let mut text = Vec::new();
    if let Err(error) = TextEncoder::new().encode(&metrics.registry.gather(), &mut text) {
        tracing::error!(%error, "metrics could not be encoded");
        return HttpResponse::InternalServerError().finish();
    }
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(text)
}
