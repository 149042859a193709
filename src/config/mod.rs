//! Typed configuration from flags and environment variables; every setting has a default,
//! so `turnpost` runs with no configuration at all.

mod derived;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Clone, Parser)]
#[command(
    name = "turnpost",
    version,
    about = "Play-by-web server for Euro board games"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub config: Config,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Run the server (the default).
    Serve,
    /// Print the OpenAPI document (what `openapi/openapi.json` holds) and exit.
    Openapi,
    /// Check a finished game's export offline: the seed against its commitment, and every
    /// event (its payload, seq, seat, type and text; not its time) and the outcome by
    /// replaying the actions.
    ///
    /// Exit status: 0 verified; 1 NOT VERIFIED (the export was read but does not replay
    /// exactly: tampered, divergent or not an export), with the first differing seq where
    /// there is one; 2 a wrong command line; 3 cannot read file (missing or unreadable:
    /// nothing was checked).
    Verify {
        /// The export document (`GET /v1/games/{id}/export` of a finished game).
        export: PathBuf,
    },
    /// Forget every rating and count every finished rated game again, in the order the
    /// server counted them, from the games alone; prints how many games it counted. Run it
    /// on the database the server uses (`--database-url`), as the ratings' check or repair.
    RebuildRatings,
    /// Store new events and actions compact (an event's payload without the `type` member
    /// its row's `event_type` holds, an action's request without the action its row holds)
    /// in a database that still stores them whole because it held events when this version
    /// first migrated it. Run it on the database the server uses (`--database-url`) once
    /// every instance sharing it runs this version or a later one, which read both forms;
    /// instances started before keep storing whole rows until they restart.
    CompactLog,
    /// Make an account a moderator, on the database the server uses (`--database-url`):
    /// it may then list reports, hide chat messages, mute and suspend accounts. Written into
    /// the moderators' audit log with the reason given.
    GrantModerator {
        /// The account's name.
        name: String,
        /// Why, for the audit log.
        #[arg(long)]
        reason: String,
    },
    /// Make a moderator an ordinary player again (see `grant-moderator`).
    RevokeModerator {
        /// The account's name.
        name: String,
        /// Why, for the audit log.
        #[arg(long)]
        reason: String,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// Address and port to listen on.
    #[arg(long, env = "TURNPOST_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,

    /// Directory for the embedded database and the generated JWT secret.
    // Global, as the database's: `turnpost rebuild-ratings --data-dir /srv/tp` works.
    #[arg(long, env = "TURNPOST_DATA_DIR", default_value = "data", global = true)]
    pub data_dir: PathBuf,

    /// `postgres://user@host/db` for Postgres, or a SQLite file path.
    /// Default: `<data-dir>/turnpost.sqlite`.
    #[arg(long, env = "DATABASE_URL", global = true)]
    pub database_url: Option<String>,

    /// Secret for signing tokens. Default: generated once and kept in
    /// `<data-dir>/jwt-secret`, so tokens survive a restart.
    #[arg(long, env = "TURNPOST_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,

    /// How long an access token stays valid, in seconds.
    #[arg(long, env = "TURNPOST_TOKEN_TTL_SECONDS", default_value_t = 7 * 24 * 3600)]
    pub token_ttl_seconds: u64,

    /// Log filter (tracing's EnvFilter syntax), e.g. `info` or `turnpost=debug`.
    #[arg(long, env = "TURNPOST_LOG", default_value = "info")]
    pub log: String,

    /// Number of HTTP worker threads (default: one per core).
    #[arg(long, env = "TURNPOST_WORKERS")]
    pub workers: Option<usize>,

    /// Origins whose browser pages may call the API (CORS), comma-separated, or `*` for
    /// any: tokens travel in the Authorization header, never in cookies, so any origin is
    /// safe to allow unless you want to limit which sites embed clients.
    #[arg(long, env = "TURNPOST_CORS_ORIGINS", default_value = "*")]
    pub cors_origins: String,

    /// Seconds a client has to send a request's head once connected (then 408).
    #[arg(long, env = "TURNPOST_HEAD_TIMEOUT_SECONDS", default_value_t = 5)]
    pub head_timeout_seconds: u64,

    /// Seconds a client has to send a request's body once its head arrived (then 408
    /// `body_timeout`).
    #[arg(long, env = "TURNPOST_BODY_TIMEOUT_SECONDS", default_value_t = 10)]
    pub body_timeout_seconds: u64,

    /// Open connections the server keeps at most (over all workers); more wait in the
    /// listen backlog.
    #[arg(long, env = "TURNPOST_MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,

    /// Sign-in attempts per minute for one account name from one client address (429
    /// beyond); a stranger guessing from elsewhere does not use up the owner's.
    #[arg(
        long,
        env = "TURNPOST_SIGN_INS_PER_MINUTE_PER_NAME_AND_ADDRESS",
        default_value_t = 10
    )]
    pub sign_ins_per_minute_per_name_and_address: u32,

    /// Wrong passwords per hour for one account name, from all the addresses it was never
    /// signed in from together, before each further one makes them wait twice as long (from
    /// 1 s up to 15 min). Addresses that signed in to it are not held back.
    #[arg(
        long,
        env = "TURNPOST_WRONG_PASSWORDS_PER_HOUR_PER_NAME",
        default_value_t = 20
    )]
    pub wrong_passwords_per_hour_per_name: u32,

    /// Password changes per hour for one account (each costs two password hashes).
    #[arg(
        long,
        env = "TURNPOST_PASSWORD_CHANGES_PER_HOUR_PER_ACCOUNT",
        default_value_t = 10
    )]
    pub password_changes_per_hour_per_account: u32,

    /// Sign-in attempts per minute from one client address (an IPv6 client by its /64).
    #[arg(
        long,
        env = "TURNPOST_SIGN_INS_PER_MINUTE_PER_ADDRESS",
        default_value_t = 60
    )]
    pub sign_ins_per_minute_per_address: u32,

    /// Registrations per hour from one client address.
    #[arg(
        long,
        env = "TURNPOST_REGISTRATIONS_PER_HOUR_PER_ADDRESS",
        default_value_t = 30
    )]
    pub registrations_per_hour_per_address: u32,

    /// Games one account may create per hour.
    #[arg(
        long,
        env = "TURNPOST_GAMES_PER_HOUR_PER_ACCOUNT",
        default_value_t = 60
    )]
    pub games_per_hour_per_account: u32,

    /// Chat messages one account may write per minute, in all games together.
    #[arg(
        long,
        env = "TURNPOST_CHAT_MESSAGES_PER_MINUTE_PER_ACCOUNT",
        default_value_t = 10
    )]
    pub chat_messages_per_minute_per_account: u32,

    /// Invitations one account may send one other account per hour (a rematch's count).
    #[arg(
        long,
        env = "TURNPOST_INVITATIONS_PER_HOUR_PER_INVITEE",
        default_value_t = 5
    )]
    pub invitations_per_hour_per_invitee: u32,

    /// Invitations one account may receive per hour from everyone together.
    #[arg(
        long,
        env = "TURNPOST_INVITATIONS_PER_HOUR_PER_ACCOUNT",
        default_value_t = 30
    )]
    pub invitations_per_hour_per_account: u32,

    /// Reports (of an account or a chat message) one account may file per hour.
    #[arg(
        long,
        env = "TURNPOST_REPORTS_PER_HOUR_PER_ACCOUNT",
        default_value_t = 10
    )]
    pub reports_per_hour_per_account: u32,

    /// Mail confirmation tokens one client address may try per hour (`POST
    /// /v1/email/confirm`).
    #[arg(
        long,
        env = "TURNPOST_EMAIL_CONFIRMATIONS_PER_HOUR_PER_ADDRESS",
        default_value_t = 20
    )]
    pub email_confirmations_per_hour_per_address: u32,

    /// Bulk exports (`GET /v1/exports`) one account may start per hour.
    #[arg(
        long,
        env = "TURNPOST_BULK_EXPORTS_PER_HOUR_PER_ACCOUNT",
        default_value_t = 30
    )]
    pub bulk_exports_per_hour_per_account: u32,

    /// Open games (waiting for players) one account may have created at once.
    #[arg(long, env = "TURNPOST_OPEN_GAMES_PER_ACCOUNT", default_value_t = 20)]
    pub open_games_per_account: u32,

    /// Accounts one account may follow at once.
    #[arg(long, env = "TURNPOST_FOLLOWS_PER_ACCOUNT", default_value_t = 500)]
    pub follows_per_account: u32,

    /// Follows and unfollows one account may make per hour.
    #[arg(
        long,
        env = "TURNPOST_FOLLOWS_PER_HOUR_PER_ACCOUNT",
        default_value_t = 300
    )]
    pub follows_per_hour_per_account: u32,

    /// Changes of its public page one account may make per hour.
    #[arg(
        long,
        env = "TURNPOST_PROFILE_CHANGES_PER_HOUR_PER_ACCOUNT",
        default_value_t = 30
    )]
    pub profile_changes_per_hour_per_account: u32,

    /// Proxies (addresses or ranges, comma-separated) whose `X-Forwarded-For` is believed:
    /// a request from one counts against the rightmost entry that is not such a proxy.
    #[arg(
        long,
        env = "TURNPOST_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_parser = parse_network
    )]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Short for `--trusted-proxies` with loopback and the private ranges (127.0.0.0/8,
    /// ::1, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7): a proxy on the same host
    /// or network.
    #[arg(long, env = "TURNPOST_BEHIND_PROXY")]
    pub behind_proxy: bool,

    /// Milliseconds for which this instance reuses the database's word that a token's
    /// account exists at the token's generation (0: ask on every request). A revocation made
    /// through this instance applies at once; one made through another instance applies
    /// here within this time.
    #[arg(long, env = "TURNPOST_TOKEN_RECHECK_MS", default_value_t = 1000)]
    pub token_recheck_ms: u64,

    /// Games whose folded state is kept in memory between requests (least recently used
    /// forgotten first; 0 turns the cache off).
    #[arg(long, env = "TURNPOST_FOLD_CACHE_GAMES", default_value_t = 10_000)]
    pub fold_cache_games: usize,

    /// Memory the cached states may take in all, in MiB, counted by the engines (a state
    /// takes about 4 to 8 KiB; the allocator's own overhead comes on top; 0 turns the cache
    /// off).
    #[arg(long, env = "TURNPOST_FOLD_CACHE_MIB", default_value_t = 128)]
    pub fold_cache_mib: usize,

    /// Password hashes computed at once (each holds `--password-memory-kib` of memory;
    /// default: one per core).
    #[arg(long, env = "TURNPOST_PASSWORD_HASHES")]
    pub password_hashes: Option<usize>,

    /// Sign-ins and registrations that may wait for a hash; more get 503 `server_busy`.
    #[arg(long, env = "TURNPOST_PASSWORD_QUEUE", default_value_t = 64)]
    pub password_queue: usize,

    /// How long a SQLite write waits for another process's lock, in milliseconds, before
    /// the request is answered 503 `server_busy`.
    #[arg(long, env = "TURNPOST_SQLITE_BUSY_TIMEOUT_MS", default_value_t = 5000)]
    pub sqlite_busy_timeout_ms: u64,

    /// Memory of one argon2id password hash, in KiB (OWASP: 19456).
    #[arg(long, env = "TURNPOST_PASSWORD_MEMORY_KIB", default_value_t = 19 * 1024)]
    pub password_memory_kib: u32,

    /// Let webhooks call loopback and private addresses (off: a public server must not be
    /// made to call into its own network; tests and closed networks turn it on).
    #[arg(long, env = "TURNPOST_WEBHOOKS_ALLOW_PRIVATE")]
    pub webhooks_allow_private: bool,

    /// Networks webhooks may call although they are not public, e.g. `10.1.2.0/24` for a
    /// receiver on the operator's own network (comma-separated list of addresses or ranges).
    #[arg(
        long,
        env = "TURNPOST_WEBHOOKS_ALLOW_NETWORKS",
        value_delimiter = ',',
        value_parser = parse_network
    )]
    pub webhooks_allow_networks: Vec<ipnet::IpNet>,

    /// Webhooks one account may register per hour (each registration looks its name up).
    #[arg(
        long,
        env = "TURNPOST_WEBHOOK_REGISTRATIONS_PER_HOUR_PER_ACCOUNT",
        default_value_t = 30
    )]
    pub webhook_registrations_per_hour_per_account: u32,

    /// How often an idle webhook pool looks for due deliveries without being woken, in
    /// milliseconds; 0 turns delivering off on this instance (others on the same database
    /// still deliver).
    #[arg(long, env = "TURNPOST_WEBHOOK_POLL_MS", default_value_t = 500)]
    pub webhook_poll_ms: u64,

    /// How often this instance looks for passed deadlines and open games to expire, and
    /// how often an idle bot worker looks for moves without being woken, in milliseconds;
    /// 0 turns all three off on this instance (others on the same database still do them).
    #[arg(long, env = "TURNPOST_REFEREE_POLL_MS", default_value_t = 1000)]
    pub referee_poll_ms: u64,

    /// Hours an open game waits for its players before it is cancelled as expired.
    #[arg(long, env = "TURNPOST_OPEN_GAME_HOURS", default_value_t = 14 * 24)]
    pub open_game_hours: u64,

    /// Database connections this instance's pool holds at most (on SQLite at most 8). On
    /// PostgreSQL each worker thread holds up to four more of its own for the requests of
    /// play. Size PostgreSQL's `max_connections` for every instance's pool, its workers'
    /// connections and one listening connection each.
    #[arg(long, env = "TURNPOST_DB_CONNECTIONS", default_value_t = 16)]
    pub db_connections: u32,

    /// Bot moves this instance computes at once (default: one per core; 0: none here, others
    /// on the same database still play them). Half of them, at least one, may play games no
    /// person plays any more; the others keep to games where a person waits.
    #[arg(long, env = "TURNPOST_BOT_WORKERS")]
    pub bot_workers: Option<usize>,

    /// The longest a playouts bot thinks about one move, in milliseconds.
    #[arg(long, env = "TURNPOST_BOT_MOVE_MS", default_value_t = 300)]
    pub bot_move_ms: u64,

    /// Running games one account may leave to the bots alone at once: the resignation that
    /// would leave one more game with only bots playing is refused (409 `bot_games_quota`).
    #[arg(long, env = "TURNPOST_BOT_GAMES_PER_ACCOUNT", default_value_t = 3)]
    pub bot_games_per_account: u32,

    /// Webhook posts this instance makes at once.
    #[arg(long, env = "TURNPOST_WEBHOOK_CONCURRENCY", default_value_t = 16)]
    pub webhook_concurrency: usize,

    /// Webhooks of one account this instance posts to at once (each webhook has at most
    /// one delivery in flight anyway).
    #[arg(
        long,
        env = "TURNPOST_WEBHOOKS_IN_FLIGHT_PER_ACCOUNT",
        default_value_t = 2
    )]
    pub webhooks_in_flight_per_account: usize,

    /// Seconds a webhook receiver has to answer.
    #[arg(long, env = "TURNPOST_WEBHOOK_TIMEOUT_SECONDS", default_value_t = 10)]
    pub webhook_timeout_seconds: u64,

    /// Test deliveries (`POST /v1/me/webhooks/{id}/test`) one account may queue per hour.
    #[arg(
        long,
        env = "TURNPOST_WEBHOOK_TESTS_PER_HOUR_PER_ACCOUNT",
        default_value_t = 30
    )]
    pub webhook_tests_per_hour_per_account: u32,

    /// Connections one client address (an IPv6 /64) may hold open to this instance; its
    /// networks hold a few times this together (an IPv6 /56 twice, a /48 and an IPv4 /24
    /// four times). One more closes an idle connection of the network, or is answered 429
    /// `too_many_connections` and closed. A trusted proxy's connections are not counted.
    #[arg(long, env = "TURNPOST_CONNECTIONS_PER_ADDRESS", default_value_t = 128)]
    pub connections_per_address: usize,

    /// The last of `--max-connections` kept for clients whose network holds fewer than 16
    /// connections (default: a quarter), so a newcomer gets in while a crowd holds the rest.
    #[arg(long, env = "TURNPOST_CONNECTIONS_RESERVED")]
    pub connections_reserved: Option<usize>,

    /// Requests of one account under way at once on this instance; more wait their turn
    /// (see `--requests-waiting-per-account`).
    #[arg(
        long,
        env = "TURNPOST_REQUESTS_IN_FLIGHT_PER_ACCOUNT",
        default_value_t = 4
    )]
    pub requests_in_flight_per_account: usize,

    /// Requests of one account that may wait for one of its slots at once; beyond them,
    /// and after 10 s of waiting, 429 `too_many_requests_in_flight`.
    #[arg(
        long,
        env = "TURNPOST_REQUESTS_WAITING_PER_ACCOUNT",
        default_value_t = 64
    )]
    pub requests_waiting_per_account: usize,

    /// Signed-in requests from one client address (an IPv6 /64), whatever their accounts,
    /// under way at once on this instance. Behind a proxy, list it in `--trusted-proxies`,
    /// or every client counts as the proxy's address.
    #[arg(
        long,
        env = "TURNPOST_REQUESTS_IN_FLIGHT_PER_ADDRESS",
        default_value_t = 64
    )]
    pub requests_in_flight_per_address: usize,

    /// Signed-in requests from one client address that may wait for a slot at once.
    #[arg(
        long,
        env = "TURNPOST_REQUESTS_WAITING_PER_ADDRESS",
        default_value_t = 512
    )]
    pub requests_waiting_per_address: usize,

    /// Streams and long polls one account may hold open at once on this instance.
    #[arg(long, env = "TURNPOST_STREAMS_PER_ACCOUNT", default_value_t = 16)]
    pub streams_per_account: usize,

    /// Streams and long polls one client address (an IPv6 /64) may hold open at once.
    #[arg(long, env = "TURNPOST_STREAMS_PER_ADDRESS", default_value_t = 64)]
    pub streams_per_address: usize,

    /// Streams and long polls this instance holds at most (default: three quarters of
    /// `--max-connections`, so ordinary requests always find a connection).
    #[arg(long, env = "TURNPOST_MAX_STREAMS")]
    pub max_streams: Option<usize>,

    /// The last of `--max-streams` kept for accounts holding fewer than 2 streams from
    /// networks holding fewer than 16 (default: a quarter), so a newcomer can follow while
    /// a crowd holds the rest.
    #[arg(long, env = "TURNPOST_STREAMS_RESERVED")]
    pub streams_reserved: Option<usize>,

    /// Seconds a stream lasts at most; then it closes and the client resumes with
    /// `Last-Event-ID`.
    #[arg(
        long,
        env = "TURNPOST_STREAM_LIFETIME_SECONDS",
        default_value_t = 3_600
    )]
    pub stream_lifetime_seconds: u64,

    /// Seconds between re-reads of everything this instance's streams follow, a safety net
    /// behind PostgreSQL's notifications (and the listening connection's own re-read after
    /// it reconnects).
    #[arg(long, env = "TURNPOST_FOLLOW_RECHECK_SECONDS", default_value_t = 10)]
    pub follow_recheck_seconds: u64,

    /// Vacation days each account has per calendar year (UTC): its clocks stand still in
    /// every game while it is away.
    #[arg(long, env = "TURNPOST_VACATION_DAYS_PER_YEAR", default_value_t = 30)]
    pub vacation_days_per_year: u32,

    /// The SMTP server mail goes through: `smtp://host:25` (plain), `smtp://host:587?tls=required`
    /// (STARTTLS), `smtps://host:465`, with `user:password@` before the host when it wants
    /// them. Without it the server sends no mail and refuses mail addresses.
    #[arg(long, env = "TURNPOST_SMTP_URL")]
    pub smtp_url: Option<String>,

    /// The sender of every mail.
    #[arg(
        long,
        env = "TURNPOST_MAIL_FROM",
        default_value = "turnpost <turnpost@localhost>"
    )]
    pub mail_from: String,

    /// The address people reach this server at, for the links in mails (default:
    /// `http://` and `--bind`).
    #[arg(long, env = "TURNPOST_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Seconds between two mails to one account: what comes between waits and goes in the
    /// next mail together.
    #[arg(long, env = "TURNPOST_MAIL_SPACING_SECONDS", default_value_t = 60)]
    pub mail_spacing_seconds: u64,

    /// Mails this instance sends at once (each to another account).
    #[arg(long, env = "TURNPOST_MAIL_CONCURRENCY", default_value_t = 4)]
    pub mail_concurrency: usize,

    /// How often idle mail workers look for due mail without being woken, in milliseconds;
    /// 0: this instance sends no mail.
    #[arg(long, env = "TURNPOST_MAIL_POLL_MS", default_value_t = 1000)]
    pub mail_poll_ms: u64,

    /// Seconds the SMTP server has for each step of sending one mail.
    #[arg(long, env = "TURNPOST_MAIL_TIMEOUT_SECONDS", default_value_t = 30)]
    pub mail_timeout_seconds: u64,

    /// The Web Push (VAPID) private key, 32 bytes of base64url, which every instance of
    /// one deployment must share (browsers subscribe to the public half). Default: made
    /// once into `vapid-private-key` in the data directory.
    #[arg(long, env = "TURNPOST_VAPID_PRIVATE_KEY", hide_env_values = true)]
    pub vapid_private_key: Option<String>,

    /// Who push services may contact about this server's pushes, a `mailto:` or `https:`
    /// URL (the `sub` of every VAPID token). Default: `--public-url`, else the address of
    /// `--mail-from`.
    #[arg(long, env = "TURNPOST_PUSH_CONTACT")]
    pub push_contact: Option<String>,

    /// How often an idle push sender looks for due messages without being woken, in
    /// milliseconds; 0: this instance pushes nothing (others on the database still do).
    #[arg(long, env = "TURNPOST_PUSH_POLL_MS", default_value_t = 500)]
    pub push_poll_ms: u64,

    /// Push messages this instance posts at once.
    #[arg(long, env = "TURNPOST_PUSH_CONCURRENCY", default_value_t = 16)]
    pub push_concurrency: usize,

    /// Devices of one account posted to at once, over every instance.
    #[arg(long, env = "TURNPOST_PUSH_IN_FLIGHT_PER_ACCOUNT", default_value_t = 2)]
    pub push_in_flight_per_account: usize,

    /// Posts to one push service (one endpoint host) in flight at once, over every
    /// instance: a push service that hangs holds at most these (default: half of
    /// `--push-concurrency`).
    #[arg(long, env = "TURNPOST_PUSH_IN_FLIGHT_PER_SERVICE")]
    pub push_in_flight_per_service: Option<usize>,

    /// Seconds a push service has to answer.
    #[arg(long, env = "TURNPOST_PUSH_TIMEOUT_SECONDS", default_value_t = 10)]
    pub push_timeout_seconds: u64,

    /// Push subscriptions one account may add per hour (each looks its endpoint up).
    #[arg(
        long,
        env = "TURNPOST_PUSH_SUBSCRIPTIONS_PER_HOUR_PER_ACCOUNT",
        default_value_t = 30
    )]
    pub push_subscriptions_per_hour_per_account: u32,

    /// Test pushes (`POST /v1/me/push-subscriptions/{id}/test`) one account may ask for per
    /// hour.
    #[arg(
        long,
        env = "TURNPOST_PUSH_TESTS_PER_HOUR_PER_ACCOUNT",
        default_value_t = 10
    )]
    pub push_tests_per_hour_per_account: u32,

    /// Test builds only (see `crate::seeds`): derive every game's seed from this text, so
    /// a scripted run deals the same games every time. Hidden, with no environment variable;
    /// release builds refuse it.
    #[arg(long, hide = true, value_parser = crate::seeds::parse_insecure_test_seeds)]
    pub insecure_test_seeds: Option<String>,

    /// Where the time comes from: the system, except in tests, which move it by hand.
    #[arg(skip)]
    pub clock: crate::clock::Clock,

    /// How webhook host names are looked up: the system resolver, except in tests, which
    /// answer as they need (e.g. differently on each lookup).
    #[arg(skip)]
    pub webhook_host_lookup: Option<crate::outbound::SharedLookup>,
}

/// An address (a single-address network) or a range in CIDR form.
pub fn parse_network(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{text:?} is neither an address nor a range like 10.0.0.0/8"))
}

impl Config {
    /// Every setting at its default, as with no flags and no environment (for tests).
    pub fn defaults() -> Config {
        Config {
            bind: "127.0.0.1:8080".into(),
            data_dir: PathBuf::from("data"),
            database_url: None,
            jwt_secret: None,
            token_ttl_seconds: 7 * 24 * 3600,
            log: "info".into(),
            workers: None,
            cors_origins: "*".into(),
            head_timeout_seconds: 5,
            body_timeout_seconds: 10,
            max_connections: 1024,
            sign_ins_per_minute_per_name_and_address: 10,
            wrong_passwords_per_hour_per_name: 20,
            password_changes_per_hour_per_account: 10,
            sign_ins_per_minute_per_address: 60,
            registrations_per_hour_per_address: 30,
            games_per_hour_per_account: 60,
            chat_messages_per_minute_per_account: 10,
            invitations_per_hour_per_invitee: 5,
            invitations_per_hour_per_account: 30,
            reports_per_hour_per_account: 10,
            email_confirmations_per_hour_per_address: 20,
            bulk_exports_per_hour_per_account: 30,
            open_games_per_account: 20,
            follows_per_account: 500,
            follows_per_hour_per_account: 300,
            profile_changes_per_hour_per_account: 30,
            trusted_proxies: Vec::new(),
            behind_proxy: false,
            token_recheck_ms: 1000,
            fold_cache_games: 10_000,
            fold_cache_mib: 128,
            password_hashes: None,
            password_queue: 64,
            sqlite_busy_timeout_ms: 5000,
            password_memory_kib: 19 * 1024,
            webhooks_allow_private: false,
            webhooks_allow_networks: Vec::new(),
            webhook_registrations_per_hour_per_account: 30,
            webhook_poll_ms: 500,
            referee_poll_ms: 1000,
            open_game_hours: 14 * 24,
            db_connections: 16,
            bot_workers: None,
            bot_move_ms: 300,
            bot_games_per_account: 3,
            webhook_concurrency: 16,
            webhooks_in_flight_per_account: 2,
            webhook_timeout_seconds: 10,
            webhook_tests_per_hour_per_account: 30,
            connections_per_address: 128,
            connections_reserved: None,
            requests_in_flight_per_account: 4,
            requests_waiting_per_account: 64,
            requests_in_flight_per_address: 64,
            requests_waiting_per_address: 512,
            streams_per_account: 16,
            streams_per_address: 64,
            max_streams: None,
            streams_reserved: None,
            stream_lifetime_seconds: 3_600,
            follow_recheck_seconds: 10,
            vacation_days_per_year: 30,
            smtp_url: None,
            mail_from: "turnpost <turnpost@localhost>".into(),
            public_url: None,
            mail_spacing_seconds: 60,
            mail_concurrency: 4,
            mail_poll_ms: 1000,
            mail_timeout_seconds: 30,
            insecure_test_seeds: None,
            clock: crate::clock::Clock::system(),
            webhook_host_lookup: None,
            vapid_private_key: None,
            push_contact: None,
            push_poll_ms: 500,
            push_concurrency: 16,
            push_in_flight_per_account: 2,
            push_in_flight_per_service: None,
            push_timeout_seconds: 10,
            push_subscriptions_per_hour_per_account: 30,
            push_tests_per_hour_per_account: 10,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::derived::mask_password;
    use super::*;

    #[test]
    fn passwords_are_masked_in_logged_urls() {
        assert_eq!(
            mask_password("postgres://app:s3cret@db:5432/turnpost"),
            "postgres://app:***@db:5432/turnpost"
        );
        assert_eq!(
            mask_password("postgres://app@db/turnpost"),
            "postgres://app@db/turnpost"
        );
        assert_eq!(
            mask_password("data/turnpost.sqlite"),
            "data/turnpost.sqlite"
        );
    }

    #[test]
    fn the_defaults_are_what_clap_gives_with_no_flags() {
        let environment_sets_some = std::env::vars()
            .any(|(name, _)| name.starts_with("TURNPOST_") || name == "DATABASE_URL");
        if environment_sets_some {
            return;
        }
        let parsed = Cli::try_parse_from(["turnpost"]).unwrap().config;
        assert_eq!(format!("{parsed:?}"), format!("{:?}", Config::defaults()));
    }

    #[test]
    fn the_database_may_be_named_after_a_subcommand_that_uses_it() {
        for command in ["rebuild-ratings", "compact-log"] {
            let cli = Cli::try_parse_from([
                "turnpost",
                command,
                "--database-url",
                "postgres://db/tp",
                "--data-dir",
                "/srv/tp",
            ])
            .unwrap();
            assert!(cli.command.is_some(), "{command}");
            assert_eq!(cli.config.database_url.as_deref(), Some("postgres://db/tp"));
            assert_eq!(cli.config.data_dir, PathBuf::from("/srv/tp"));
        }
    }

    #[test]
    fn without_a_database_url_the_sqlite_file_lives_in_the_data_dir() {
        // Explicit flags, so the test does not depend on the environment it runs in.
        let cli = Cli::try_parse_from([
            "turnpost",
            "--bind",
            "0.0.0.0:9000",
            "--data-dir",
            "/srv/tp",
            "openapi",
        ])
        .unwrap();
        assert_eq!(cli.config.bind, "0.0.0.0:9000");
        assert!(matches!(cli.command, Some(Command::Openapi)));
        let config = Config {
            database_url: None,
            ..cli.config
        };
        assert_eq!(config.database_url(), "/srv/tp/turnpost.sqlite");
    }
}
