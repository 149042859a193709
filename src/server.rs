//! Wiring: open the database, load the signing secret, and build the HTTP server. Used by
//! `main` and by the integration tests, so both run the very same server.

use std::future::ready;
use std::net::TcpListener;
use std::time::Duration;

use actix_cors::Cors;
use actix_http::error::DispatchError;
use actix_http::{HttpService, KeepAlive};
use actix_service::{map_config, IntoServiceFactory, ServiceFactoryExt};
use actix_web::dev::{fn_service, AppConfig, Extensions, Server};
use actix_web::http::{header, Method};
use actix_web::middleware::{from_fn, Compress, Condition, ErrorHandlers, Logger};
use actix_web::rt::net::TcpStream;
use actix_web::{web, App};

use crate::api;
use crate::api::connection_caps::{self, refuse_connections_over_cap, ConnectionCaps};
use crate::api::live::SharedFrames;
use crate::api::metrics::{time_requests, Metrics};
use crate::api::static_answers::keep_static_answers;
use crate::api::transport::{etag_for_reads, guard_request_body, BodyDeadline};
use crate::auth::password::Passwords;
use crate::auth::token::{load_or_create_secret, TokenKeys};
use crate::background::{instance_name, Workers};
use crate::config::Config;
use crate::framework_errors::{CountRequests, ProblemIo};
use crate::push::limits::Followers;
use crate::push::Hub;
use crate::service::fold_cache::FoldCache;
use crate::store::Db;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("database: {0}")]
    Database(#[from] crate::store::StoreError),
    #[error("JWT secret: {0}")]
    Secret(String),
    #[error("Web Push key: {0}")]
    VapidKey(String),
    #[error("{0}")]
    Passwords(String),
    #[error("metrics: {0}")]
    Metrics(#[from] prometheus::Error),
    #[error("cannot start the thread that talks with the other instances: {0}")]
    Channel(std::io::Error),
    #[error("CORS origin {0:?} is not `*` or an origin such as https://example.org")]
    CorsOrigin(String),
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: String,
        source: std::io::Error,
    },
}

/// A server bound to its address, ready to be awaited.
pub struct Running {
    pub server: Server,
    pub address: std::net::SocketAddr,
}

/// Loads or creates the token secret, opens the database (running migrations) and binds
/// the listener. Blocking: call it before the async runtime serves requests.
pub fn start(config: &Config) -> Result<Running, StartError> {
    // The secret first: a refused one stops the start before anything is created.
    let secret = load_or_create_secret(config.jwt_secret.as_deref(), &config.data_dir)
        .map_err(StartError::Secret)?;
    let vapid = crate::web_push::vapid::load_or_create(
        config.vapid_private_key.as_deref(),
        &config.data_dir,
    )
    .map_err(StartError::VapidKey)?;
    let database_url = config.database_url();
    let db = web::Data::new(Db::open_with(&database_url, config.db_options())?);
    // Every commit wakes this instance's waiters at once, and the other instances' through
    // the database (PostgreSQL's LISTEN/NOTIFY).
    let hub = web::Data::new(Hub::default());
    let outgoing = match crate::store::postgres_url(&database_url) {
        Some(url) => Some(
            crate::push::channel::spawn(
                url.to_owned(),
                &db.clone().into_inner(),
                &hub.clone().into_inner(),
            )
            .map_err(StartError::Channel)?,
        ),
        None => None,
    };
    {
        let hub = hub.clone();
        db.on_commit(Box::new(move |changes| {
            hub.publish(&changes);
            if let Some(outgoing) = &outgoing {
                outgoing.send(&changes);
            }
        }));
    }
    let followers = web::Data::new(Followers::new(config.follower_caps()));
    let request_slots = web::Data::new(config.request_slots());
    let connection_caps = web::Data::new(ConnectionCaps::new(
        config.admission_caps(),
        config.trusted_proxy_networks(),
    ));
    let shared_frames = web::Data::new(SharedFrames::default());
    let keys = web::Data::new(TokenKeys::new(&secret, config.token_ttl_seconds));
    let passwords = web::Data::new(
        Passwords::new(config.password_cost(), config.password_limits())
            .map_err(StartError::Passwords)?,
    );
    tracing::info!(
        memory_bound_mib = passwords.memory_bound() / (1024 * 1024),
        "password hashing"
    );
    let listener = TcpListener::bind(&config.bind).map_err(|source| StartError::Bind {
        address: config.bind.clone(),
        source,
    })?;
    let address = listener.local_addr().map_err(|source| StartError::Bind {
        address: config.bind.clone(),
        source,
    })?;
    let rate_limits = web::Data::new(config.rate_limits());
    let fold_cache = web::Data::new(FoldCache::new(
        config.fold_cache_games,
        config.fold_cache_mib.saturating_mul(1 << 20),
    ));
    let recent_checks = web::Data::new(crate::auth::recent_checks::RecentChecks::new(
        Duration::from_millis(config.token_recheck_ms),
    ));
    {
        // A revocation through any instance applies here at once, not only when this
        // instance's reused check of the account runs out.
        let checks = recent_checks.clone();
        hub.on_revoked(Box::new(move |account| checks.forget(account)));
        let checks = recent_checks.clone();
        hub.on_personal_token_revoked(Box::new(move |token| checks.forget_personal(token)));
    }
    let outbound = config.outbound();
    let metrics = web::Data::new(Metrics::new()?);
    let body_deadline = web::Data::new(BodyDeadline(Duration::from_secs(
        config.body_timeout_seconds,
    )));
    let cors_origins = config.cors_origins.clone();
    if let Some(bad) = cors_origins
        .split(',')
        .map(str::trim)
        .find(|origin| !origin.is_empty() && *origin != "*" && !is_origin(origin))
    {
        return Err(StartError::CorsOrigin(bad.to_owned()));
    }
    let workers = config.workers.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let clock = web::Data::new(config.clock.clone());
    let seeds = web::Data::new(config.seeds());
    let mail_links = web::Data::new(config.mail_links());
    let vacation_allowance = web::Data::new(config.vacation_allowance());
    if seeds.is_insecure() {
        tracing::warn!(
            "--insecure-test-seeds: every new game's seed is foreseeable; for tests only, never \
             for real games"
        );
    }
    // Every instance does background work; each job is claimed by one instance at a time.
    Workers {
        db: db.clone(),
        cache: fold_cache.clone(),
        hub: hub.clone(),
        metrics: metrics.clone(),
        clock: config.clock.clone(),
        instance: instance_name(),
    }
    .start(config.background_settings(outbound.clone(), vapid.clone()));
    let vapid = web::Data::new(vapid);
    let outbound = web::Data::new(outbound);
    actix_web::rt::spawn(recheck_followed(
        db.clone(),
        hub.clone(),
        Duration::from_secs(config.follow_recheck_seconds.max(1)),
    ));
    let head_timeout_seconds = config.head_timeout_seconds;
    // The access log's middleware renders parts of every request as it comes, whether or not
    // its line is logged in the end; an instance that does not log it skips the middleware.
    let access_log =
        tracing::enabled!(target: "actix_web::middleware::logger", tracing::Level::INFO);
    let builder = Server::build()
        .workers(workers)
        // Requests wait for the database on blocking threads, one per connection the pool
        // may hold: more threads only wait for a connection or SQLite's one writer, where
        // late writes overtook early ones (with four times as many, SQLite's slowest answers
        // under load took three times as long), and hold their memory (docs/performance.md,
        // "Threads and their switches"). The password hashes that may run at once have
        // threads of their own on top, so that a flood of sign-ins does not take the
        // database's from everyone else. Bounded, a burst of requests (a reconnect storm of
        // streams) queues as cheap tasks instead of starting a thread each (up to 256 per
        // worker by default, whose memory the allocator then keeps).
        .worker_max_blocking_threads(
            (db.most_connections() as usize + passwords.most_at_once())
                .div_ceil(workers)
                .max(4),
        )
        // Above the instance's own cap (`connection_caps`), which refuses or closes what
        // is beyond it: those connections need a place until they are answered and closed.
        .max_concurrent_connections(
            (config.max_connections + connection_caps::MOST_REFUSING * 2)
                .div_ceil(workers)
                .max(1),
        );
    let shutdown = builder.graceful_shutdown_signal();
    // What `HttpServer::listen` builds, with each connection wrapped so that the answers
    // actix-http writes without the app leave as problems too (see `framework_errors`).
    let builder = builder
        .listen("turnpost", listener, move || {
            let app = App::new()
                .app_data(db.clone())
                .app_data(keys.clone())
                .app_data(passwords.clone())
                .app_data(body_deadline.clone())
                .app_data(rate_limits.clone())
                .app_data(fold_cache.clone())
                .app_data(recent_checks.clone())
                .app_data(hub.clone())
                .app_data(followers.clone())
                .app_data(request_slots.clone())
                .app_data(connection_caps.clone())
                .app_data(shared_frames.clone())
                .app_data(clock.clone())
                .app_data(seeds.clone())
                .app_data(mail_links.clone())
                .app_data(vacation_allowance.clone())
                .app_data(outbound.clone())
                .app_data(vapid.clone())
                .app_data(metrics.clone())
                .wrap(from_fn(guard_request_body))
                .wrap(from_fn(etag_for_reads))
                .wrap(ErrorHandlers::new().default_handler(api::problem_for_foreign_errors))
                .wrap(Compress::default())
                .wrap(from_fn(keep_static_answers))
                // Outside the kept answers, which would otherwise answer a connection over
                // its address's share.
                .wrap(from_fn(refuse_connections_over_cap))
                .wrap(cors(&cors_origins))
                .wrap(from_fn(steady_expose_headers))
                .wrap(from_fn(time_requests))
                .wrap(Condition::new(
                    access_log,
                    Logger::new("%a \"%r\" %s %b %Dms"),
                ))
                // Outermost: it must see every request the app is handed.
                .wrap(CountRequests)
                .configure(api::configure);
            let shutdown = shutdown.clone();
            let connection_caps_for_accepts = connection_caps.clone().into_inner();
            let http = HttpService::build()
                .graceful_shutdown_signal(move || {
                    let shutdown = shutdown.clone();
                    async move { shutdown.notified().await }
                })
                .keep_alive(KeepAlive::default())
                .client_request_timeout(Duration::from_secs(head_timeout_seconds))
                .client_disconnect_timeout(Duration::from_secs(1))
                // A client that closes its side is gone: without this, a stream it left open
                // would hold its slot (and its memory) until the next heartbeat failed to
                // write.
                .h1_allow_half_closed(false)
                .local_addr(address)
                .on_connect_ext(move |io: &ProblemIo<TcpStream>, data: &mut Extensions| {
                    data.insert(io.ledger());
                    data.insert(io.admission());
                })
                .h1(map_config(
                    app.into_factory().map_err(|error| error.error_response()),
                    // The configuration `HttpServer` gives an app on a plain listener.
                    move |()| AppConfig::__priv_test_new(false, address.to_string(), address),
                ));
            let admitting = connection_caps_for_accepts.clone();
            fn_service(move |stream: TcpStream| {
                answer_without_delay(&stream);
                let peer = stream.peer_addr().ok();
                let admission = admitting.admit(peer.map(|peer| peer.ip()));
                ready(Ok::<_, DispatchError>((
                    ProblemIo::new(stream, head_timeout_seconds).admitted(admission),
                    peer,
                )))
            })
            .and_then(http)
        })
        .map_err(|source| StartError::Bind {
            address: config.bind.clone(),
            source,
        })?;
    Ok(Running {
        server: builder.run(),
        address,
    })
}

/// Turns off Nagle's algorithm on an accepted connection. A compressed answer or a stream's
/// frame leaves in several writes; with Nagle's algorithm on, every write after the first
/// waited for the client's delayed acknowledgement, 40 ms on Linux, so every answer to a
/// client that accepts gzip (browsers, httpx, requests) took 40 ms more.
/// actix-http sets no option on connections it does not accept itself.
fn answer_without_delay(stream: &TcpStream) {
    if let Err(error) = stream.set_nodelay(true) {
        // The connection still works, only slower; a socket that refuses this is gone.
        tracing::debug!(%error, "could not turn off Nagle's algorithm on a connection");
    }
}

/// The safety net behind the hub's notifications: re-reads what this instance's followers
/// follow every `every`, forever.
async fn recheck_followed(db: web::Data<Db>, hub: web::Data<Hub>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        let (db, hub) = (db.clone(), hub.clone());
        let checked =
            tokio::task::spawn_blocking(move || crate::push::channel::recheck(&db, &hub)).await;
        if let Ok(Err(error)) = checked {
            tracing::warn!(%error, "re-reading followed games failed");
        }
    }
}

/// `scheme://host[:port]` and nothing more, as a browser sends it in `Origin`.
fn is_origin(text: &str) -> bool {
    actix_web::http::Uri::try_from(text).is_ok_and(|uri| {
        uri.scheme().is_some()
            && uri.host().is_some()
            && uri
                .path_and_query()
                .is_none_or(|rest| rest.as_str() == "/" && !text.ends_with('/'))
    })
}

/// The response headers a page of another origin may read, in one order: the CORS layer
/// keeps them in a set whose order differs between workers, so the same answer would read
/// differently from one request to the next.
const EXPOSED_HEADERS: &str = "allow, etag, link, location, retry-after, www-authenticate";

async fn steady_expose_headers(
    request: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let mut response = next.call(request).await?;
    let headers = response.headers_mut();
    if headers.contains_key(header::ACCESS_CONTROL_EXPOSE_HEADERS) {
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            header::HeaderValue::from_static(EXPOSED_HEADERS),
        );
    }
    Ok(response)
}

/// Browser pages of `origins` (comma-separated, or `*`) may call the API with a bearer token.
fn cors(origins: &str) -> Cors {
    let mut cors = Cors::default()
        .allowed_methods([
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PUT,
            Method::DELETE,
        ])
        .allowed_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::IF_NONE_MATCH,
            header::HeaderName::from_static("idempotency-key"),
        ])
        .expose_headers([
            header::RETRY_AFTER,
            header::ETAG,
            header::ALLOW,
            header::LINK,
            header::LOCATION,
            header::WWW_AUTHENTICATE,
        ])
        .max_age(3600);
    for origin in origins
        .split(',')
        .map(str::trim)
        .filter(|origin| !origin.is_empty())
    {
        cors = if origin == "*" {
            cors.allow_any_origin()
        } else {
            cors.allowed_origin(origin)
        };
    }
    cors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_send_small_writes_at_once() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let _client = std::net::TcpStream::connect(address).unwrap();
        let (accepted, _) = listener.accept().unwrap();
        accepted.set_nonblocking(true).unwrap();
        let stream = TcpStream::from_std(accepted).unwrap();
        assert!(
            !stream.nodelay().unwrap(),
            "Nagle's algorithm is on by default"
        );
        answer_without_delay(&stream);
        assert!(stream.nodelay().unwrap());
    }
}
