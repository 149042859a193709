//! Per-key rate limits (token buckets) for what an anonymous or hostile client could
//! repeat cheaply: sign-ins per address and per name from one address, registrations per
//! address, password changes, game creations, chat messages, invitations, reports, bulk
//! exports, email confirmations and webhook registrations. Each [`SharedLimiter`] holds
//! across the instances on one database: this instance's own bucket first, so that a flood
//! from one client stops here without touching the database, then the bucket in the
//! database ([`crate::store::limits`]), which every instance takes from, so N instances
//! give one allowance. Also: which address a request counts against, behind trusted
//! proxies.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::HttpRequest;
use ipnet::IpNet;

use crate::error::ApiError;
use crate::store::limits::BucketRate;
use crate::store::Db;

/// At most `count` events per `period` for one key, in bursts of up to `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub count: u32,
    pub period: Duration,
}

impl Rate {
    pub const fn per_minute(count: u32) -> Rate {
        Rate {
            count,
            period: Duration::from_secs(60),
        }
    }

    pub const fn per_hour(count: u32) -> Rate {
        Rate {
            count,
            period: Duration::from_secs(3600),
        }
    }
}

/// Keys tracked at most; beyond it the full buckets (keys that are not limited now) are
/// forgotten, so a flood of distinct keys cannot grow the table without bound.
const MAX_KEYS: usize = 100_000;

pub struct RateLimiter {
    rate: Rate,
    what: &'static str,
    buckets: Mutex<HashMap<String, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

impl RateLimiter {
    /// `what` names the limited thing in the refusal, e.g. "sign-ins for this name".
    pub fn new(rate: Rate, what: &'static str) -> RateLimiter {
        RateLimiter {
            rate,
            what,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one event for `key` now, or refuses with 429 and when to retry.
    pub fn take(&self, key: &str) -> Result<(), ApiError> {
        self.take_at(key, Instant::now())
    }

    fn take_at(&self, key: &str, now: Instant) -> Result<(), ApiError> {
        let capacity = f64::from(self.rate.count);
        let per_second = capacity / self.rate.period.as_secs_f64();
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if buckets.len() >= MAX_KEYS && !buckets.contains_key(key) {
            buckets.retain(|_, bucket| bucket.refilled(now, per_second, capacity) < capacity);
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: capacity,
            updated: now,
        });
        bucket.tokens = bucket.refilled(now, per_second, capacity);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - bucket.tokens) / per_second).ceil().max(1.0) as u64;
        Err(self.refusal(wait))
    }

    /// The 429 that says to wait `wait` seconds.
    fn refusal(&self, wait: u64) -> ApiError {
        ApiError::TooManyRequests {
            code: "rate_limited",
            detail: format!(
                "too many {} (at most {} per {} s); try again in {wait} s",
                self.what,
                self.rate.count,
                self.rate.period.as_secs()
            ),
            retry_after_seconds: wait,
        }
    }
}

/// A rate limit that holds across the instances sharing a database (see the module's
/// comment): at most its rate for one key, however many instances the requests reach.
pub struct SharedLimiter {
    /// The limit's name in the database.
    name: &'static str,
    local: RateLimiter,
}

impl SharedLimiter {
    /// `name` keys the limit's buckets in the database; `what` names the limited thing in
    /// the refusal.
    pub fn new(name: &'static str, rate: Rate, what: &'static str) -> SharedLimiter {
        SharedLimiter {
            name,
            local: RateLimiter::new(rate, what),
        }
    }

    /// Takes one event for `key`, or refuses with 429 `rate_limited` and when to retry.
    pub async fn take(&self, db: &actix_web::web::Data<Db>, key: &str) -> Result<(), ApiError> {
        self.local.take(key)?;
        let (db, name, key) = (db.clone(), self.name, key.to_owned());
        let rate = BucketRate {
            count: self.local.rate.count,
            period_ms: i64::try_from(self.local.rate.period.as_millis()).unwrap_or(i64::MAX),
        };
        let now = crate::service::now_millis();
        let wait_ms = super::blocking(move || {
            Ok(db.write(|conn| crate::store::limits::take(conn, name, &key, rate, now))?)
        })
        .await?;
        match wait_ms {
            None => Ok(()),
            Some(wait_ms) => Err(self
                .local
                .refusal(u64::try_from((wait_ms + 999) / 1_000).unwrap_or(1).max(1))),
        }
    }
}

impl Bucket {
    fn refilled(&self, now: Instant, per_second: f64, capacity: f64) -> f64 {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        (self.tokens + elapsed * per_second).min(capacity)
    }
}

/// Keys with something under way, at most one each (e.g. an account's webhook address
/// being looked up): a client cannot pile up slow work by sending it many times at once.
#[derive(Default)]
pub struct InFlight {
    keys: Mutex<HashSet<String>>,
}

/// `key`'s place in an [`InFlight`] set, given back when dropped.
pub struct InFlightGuard<'a> {
    set: &'a InFlight,
    key: String,
}

impl InFlight {
    /// Takes `key`'s place, or `None` while it has something under way.
    pub fn enter(&self, key: &str) -> Option<InFlightGuard<'_>> {
        let inserted = self.lock().insert(key.to_owned());
        inserted.then(|| InFlightGuard {
            set: self,
            key: key.to_owned(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.keys
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for InFlightGuard<'_> {
    fn drop(&mut self) {
        self.set.lock().remove(&self.key);
    }
}

/// Every limit the API applies, configured at start.
pub struct RateLimits {
    /// Sign-in attempts from one address, whatever the name.
    pub sign_in_per_address: SharedLimiter,
    /// Sign-in attempts for one name from one address: a stranger guessing a name from
    /// their address does not use up the owner's attempts from theirs.
    pub sign_in_per_name_and_address: SharedLimiter,
    /// Wrong passwords for one name from all addresses it was never signed in from.
    pub guessing: super::guessing::GuessingGuard,
    pub registration_per_address: SharedLimiter,
    pub password_changes_per_account: SharedLimiter,
    pub game_creation_per_account: SharedLimiter,
    pub chat_per_account: SharedLimiter,
    pub bulk_exports_per_account: SharedLimiter,
    pub webhook_tests_per_account: SharedLimiter,
    pub webhook_registrations_per_account: SharedLimiter,
    pub push_subscriptions_per_account: SharedLimiter,
    pub push_tests_per_account: SharedLimiter,
    /// Invitations from one account to one other (keyed `inviter invitee`).
    pub invitations_per_invitee: SharedLimiter,
    /// Invitations to one account from everyone.
    pub invitations_per_account: SharedLimiter,
    /// Reports filed by one account.
    pub reports_per_account: SharedLimiter,
    /// Guesses at mail confirmation tokens from one address.
    pub email_confirmations_per_address: SharedLimiter,
    /// Webhook addresses being looked up, one per account at a time on each instance (a
    /// bound on this instance's resolver threads; the registrations' rate is shared).
    pub webhook_checks_in_flight: InFlight,
    /// Open (not yet started) games one account may have created at once.
    pub open_games_per_account: u32,
    /// Follows and unfollows by one account.
    pub follows_per_account: SharedLimiter,
    /// Accounts one account may follow at once.
    pub follows_per_account_quota: u32,
    /// Changes of one account's public page.
    pub profile_changes_per_account: SharedLimiter,
    /// Running games one account may have left to the bots alone (by resigning) at once.
    pub bot_games_per_account: u32,
    /// Proxies whose `X-Forwarded-For` entries are believed (see [`client_ip`]).
    pub trusted_proxies: Vec<IpNet>,
}

impl RateLimits {
    /// The address a request counts against, as a key: an IPv6 client by its /64.
    pub fn client_address(&self, request: &HttpRequest) -> String {
        let peer = request.peer_addr().map(|peer| peer.ip());
        let forwarded = request
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|value| value.to_str().ok());
        match client_ip(peer, forwarded, &self.trusted_proxies) {
            ClientIp::Address(ip) => network_of(ip),
            // Not an address although a trusted proxy wrote it (e.g. `unknown`): counted as
            // it is, cut to a bounded key.
            ClientIp::Unparsed(text) => text.chars().take(64).collect(),
            ClientIp::Unknown => String::new(),
        }
    }
}

/// The networks `request`'s client counts in (see [`networks_of`]), from the configured
/// [`RateLimits`]: none when there are none, or the client is not known.
pub fn client_networks_of(request: &HttpRequest) -> Vec<Network> {
    let Some(limits) = request.app_data::<actix_web::web::Data<RateLimits>>() else {
        return Vec::new();
    };
    let peer = request.peer_addr().map(|peer| peer.ip());
    let forwarded = request
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|value| value.to_str().ok());
    match client_ip(peer, forwarded, &limits.trusted_proxies) {
        ClientIp::Address(ip) => networks_of(ip),
        ClientIp::Unparsed(text) => vec![Network {
            key: text.chars().take(64).collect(),
            shares: 1,
        }],
        ClientIp::Unknown => Vec::new(),
    }
}

/// The address `request` counts against, from the configured [`RateLimits`]; empty when
/// there are none (an app built without them, in unit tests).
pub fn client_address_of(request: &HttpRequest) -> String {
    request
        .app_data::<actix_web::web::Data<RateLimits>>()
        .map(|limits| limits.client_address(request))
        .unwrap_or_default()
}

/// Who sent a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientIp {
    Address(IpAddr),
    Unparsed(String),
    Unknown,
}

/// The client behind a chain of proxies: the connection's peer, unless it is a trusted
/// proxy; then the `X-Forwarded-For` entries from the right (each proxy appends the address
/// it was connected from), skipping trusted proxies, up to the first that is not one. The
/// entries left of it were written by whoever sent the request, so they are never read: a
/// client cannot choose its own address by sending the header.
pub fn client_ip<'a>(
    peer: Option<IpAddr>,
    forwarded_headers: impl DoubleEndedIterator<Item = &'a str>,
    trusted: &[IpNet],
) -> ClientIp {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|network| network.contains(&ip));
    let Some(mut client) = peer else {
        return ClientIp::Unknown;
    };
    if !is_trusted(client) {
        return ClientIp::Address(client);
    }
    for header in forwarded_headers.rev() {
        for entry in header.rsplit(',').map(str::trim) {
            if entry.is_empty() {
                continue;
            }
            let Some(ip) = parse_forwarded_entry(entry) else {
                return ClientIp::Unparsed(entry.to_owned());
            };
            client = ip;
            if !is_trusted(ip) {
                return ClientIp::Address(ip);
            }
        }
    }
    ClientIp::Address(client)
}

/// An `X-Forwarded-For` entry: an address, possibly with a port (`[v6]:port`, `v4:port`).
fn parse_forwarded_entry(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| {
            entry
                .parse::<std::net::SocketAddr>()
                .ok()
                .map(|socket| socket.ip())
        })
        .or_else(|| entry.trim_matches(['[', ']']).parse::<IpAddr>().ok())
        .map(|ip| match ip {
            // A v4 client seen by a dual-stack proxy: counted as the v4 address it is.
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            IpAddr::V4(_) => ip,
        })
}

/// A network a client address counts in, and how many times an address's share of
/// connections or streams the whole network may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    pub key: String,
    pub shares: usize,
}

/// The networks a client address counts in for connections and streams, narrowest first:
/// an IPv6 client by its /64 (one share), its /56 (two) and its /48 (four); an IPv4 client
/// by its address (one) and its /24 (four: a softer tier, since one /24 is often many
/// unrelated people). A crowd of addresses in one network shares the network's cap, so
/// rotating through a /56 gains a client two shares, not 256.
pub(crate) fn networks_of(ip: IpAddr) -> Vec<Network> {
    let network = |key: String, shares: usize| Network { key, shares };
    match canonical(ip) {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            vec![
                network(v4.to_string(), 1),
                network(format!("{a}.{b}.{c}.0/24"), 4),
            ]
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            vec![
                network(
                    format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3]),
                    1,
                ),
                network(
                    format!("{:x}:{:x}:{:x}:{:x}::/56", s[0], s[1], s[2], s[3] & 0xff00),
                    2,
                ),
                network(format!("{:x}:{:x}:{:x}::/48", s[0], s[1], s[2]), 4),
            ]
        }
    }
}

/// A v4 client on a dual-stack socket (`::ffff:a.b.c.d`) is the v4 address it is.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// IPv6 clients usually hold a whole /64: count them by it, or each could rotate through
/// addresses without end.
pub(crate) fn network_of(ip: IpAddr) -> String {
    match canonical(ip) {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let segments = v6.segments();
            format!(
                "{:x}:{:x}:{:x}:{:x}::/64",
                segments[0], segments[1], segments[2], segments[3]
            )
        }
    }
}

/// Invitations reach their invitee at a rate: from each inviter, and from everyone.
pub async fn take_invitation_allowances(
    limits: &RateLimits,
    db: &actix_web::web::Data<Db>,
    inviter: &str,
    names: &[String],
) -> Result<(), ApiError> {
    for invitee in names {
        let invitee = invitee.chars().take(32).collect::<String>().to_lowercase();
        limits
            .invitations_per_invitee
            .take(db, &format!("{inviter} {invitee}"))
            .await?;
        limits.invitations_per_account.take(db, &invitee).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_refills_at_its_rate() {
        let limiter = RateLimiter::new(Rate::per_minute(3), "tries");
        let start = Instant::now();
        for _ in 0..3 {
            limiter.take_at("k", start).unwrap();
        }
        match limiter.take_at("k", start) {
            Err(ApiError::TooManyRequests {
                retry_after_seconds,
                ..
            }) => assert_eq!(retry_after_seconds, 20),
            other => panic!("{other:?}"),
        }
        limiter.take_at("other key", start).unwrap();
        limiter
            .take_at("k", start + Duration::from_secs(20))
            .unwrap();
        assert!(limiter
            .take_at("k", start + Duration::from_secs(21))
            .is_err());
    }

    #[test]
    fn the_table_of_keys_stays_bounded() {
        let limiter = RateLimiter::new(Rate::per_minute(5), "tries");
        let start = Instant::now();
        for index in 0..(MAX_KEYS + 10) {
            limiter.take_at(&index.to_string(), start).unwrap();
        }
        let later = start + Duration::from_secs(60);
        limiter.take_at("new", later).unwrap();
        assert!(limiter.buckets.lock().unwrap().len() <= MAX_KEYS);
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn networks(list: &[&str]) -> Vec<IpNet> {
        list.iter()
            .map(|text| crate::config::parse_network(text).unwrap())
            .collect()
    }

    #[test]
    fn the_client_is_the_rightmost_forwarded_entry_that_is_not_a_trusted_proxy() {
        let proxies = networks(&["10.0.0.0/8", "192.0.2.1"]);
        let from = |peer: &str, headers: &[&str]| {
            client_ip(Some(ip(peer)), headers.iter().copied(), &proxies)
        };
        // A client writing its own header before the proxy appends the real address.
        assert_eq!(
            from("10.0.0.5", &["1.2.3.4, 203.0.113.9"]),
            ClientIp::Address(ip("203.0.113.9"))
        );
        // Two proxies of ours, one header each or one list.
        assert_eq!(
            from("10.0.0.5", &["6.6.6.6, 203.0.113.9", "192.0.2.1"]),
            ClientIp::Address(ip("203.0.113.9"))
        );
        assert_eq!(
            from("10.0.0.5", &["203.0.113.9:4711, 10.9.9.9"]),
            ClientIp::Address(ip("203.0.113.9"))
        );
        assert_eq!(
            from("10.0.0.5", &["[2001:db8::1]:443"]),
            ClientIp::Address(ip("2001:db8::1"))
        );
        // Not from a trusted proxy: the header is the client's own words and ignored.
        assert_eq!(
            from("198.51.100.3", &["1.2.3.4"]),
            ClientIp::Address(ip("198.51.100.3"))
        );
        // No header, or every entry one of ours: the leftmost proxy seen.
        assert_eq!(from("10.0.0.5", &[]), ClientIp::Address(ip("10.0.0.5")));
        assert_eq!(
            from("10.0.0.5", &["10.1.1.1"]),
            ClientIp::Address(ip("10.1.1.1"))
        );
        assert_eq!(
            from("10.0.0.5", &["unknown"]),
            ClientIp::Unparsed("unknown".into())
        );
        assert_eq!(
            from("10.0.0.5", &["::ffff:203.0.113.9"]),
            ClientIp::Address(ip("203.0.113.9"))
        );
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        assert_eq!(network_of(a), network_of(b));
        assert_eq!(network_of("10.0.0.1".parse().unwrap()), "10.0.0.1");
        assert_eq!(network_of("::ffff:10.0.0.1".parse().unwrap()), "10.0.0.1");
        let keys = |text: &str| -> Vec<String> {
            networks_of(text.parse().unwrap())
                .into_iter()
                .map(|network| network.key)
                .collect()
        };
        assert_eq!(
            keys("2001:db8:aa:12ff::1"),
            [
                "2001:db8:aa:12ff::/64",
                "2001:db8:aa:1200::/56",
                "2001:db8:aa::/48"
            ]
        );
        assert_eq!(keys("192.0.2.77"), ["192.0.2.77", "192.0.2.0/24"]);
        assert_eq!(keys("::ffff:192.0.2.77"), ["192.0.2.77", "192.0.2.0/24"]);
    }
}
