//! Per-key rate limits (token buckets) for what an anonymous or hostile client could
//! repeat cheaply: sign-ins per name and per address, registrations per address, game
//! creations per account. Each instance counts for itself, so with several instances a
//! client gets up to that many times the limit; the limits are there to keep floods from
//! exhausting the server, not to count exactly.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::HttpRequest;

use crate::error::ApiError;

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
        Err(ApiError::TooManyRequests {
            code: "rate_limited",
            detail: format!(
                "too many {} (at most {} per {} s); try again in {wait} s",
                self.what,
                self.rate.count,
                self.rate.period.as_secs()
            ),
            retry_after_seconds: wait,
        })
    }
}

impl Bucket {
    fn refilled(&self, now: Instant, per_second: f64, capacity: f64) -> f64 {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        (self.tokens + elapsed * per_second).min(capacity)
    }
}

/// Every limit the API applies, configured at start.
pub struct RateLimits {
    pub sign_in_per_name: RateLimiter,
    pub sign_in_per_address: RateLimiter,
    pub registration_per_address: RateLimiter,
    pub game_creation_per_account: RateLimiter,
    pub bulk_exports_per_account: RateLimiter,
    pub webhook_tests_per_account: RateLimiter,
    /// Open (not yet started) games one account may have created at once.
    pub open_games_per_account: u32,
    /// Running games one account may have left to the bots alone (by resigning) at once.
    pub bot_games_per_account: u32,
    /// Whether the client address comes from `Forwarded` / `X-Forwarded-For` (only behind
    /// a proxy that sets them) instead of the connection's peer.
    pub behind_proxy: bool,
}

impl RateLimits {
    /// The address a request counts against.
    pub fn client_address(&self, request: &HttpRequest) -> String {
        if self.behind_proxy {
            if let Some(forwarded) = request.connection_info().realip_remote_addr() {
                let ip = forwarded
                    .parse::<std::net::SocketAddr>()
                    .map(|socket| socket.ip())
                    .or_else(|_| forwarded.trim_matches(['[', ']']).parse::<IpAddr>());
                return match ip {
                    Ok(ip) => network_of(ip),
                    // Not an address (e.g. an obfuscated `Forwarded` identifier): counted
                    // as it is, cut to a bounded key.
                    Err(_) => forwarded.chars().take(64).collect(),
                };
            }
        }
        request
            .peer_addr()
            .map(|peer| network_of(peer.ip()))
            .unwrap_or_default()
    }
}

/// IPv6 clients usually hold a whole /64: count them by it, or each could rotate through
/// addresses without end.
fn network_of(ip: IpAddr) -> String {
    match ip {
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

    fn limits(behind_proxy: bool) -> RateLimits {
        let limiter = || RateLimiter::new(Rate::per_minute(1), "tries");
        RateLimits {
            sign_in_per_name: limiter(),
            sign_in_per_address: limiter(),
            registration_per_address: limiter(),
            game_creation_per_account: limiter(),
            bulk_exports_per_account: limiter(),
            webhook_tests_per_account: limiter(),
            open_games_per_account: 1,
            bot_games_per_account: 1,
            behind_proxy,
        }
    }

    #[test]
    fn forwarded_addresses_count_only_behind_a_proxy() {
        let request = actix_web::test::TestRequest::default()
            .peer_addr("192.0.2.7:5000".parse().unwrap())
            .insert_header(("X-Forwarded-For", "2001:db8:5:6:7::1"))
            .to_http_request();
        assert_eq!(limits(false).client_address(&request), "192.0.2.7");
        assert_eq!(limits(true).client_address(&request), "2001:db8:5:6::/64");
        let garbage = actix_web::test::TestRequest::default()
            .insert_header(("X-Forwarded-For", "x".repeat(500)))
            .to_http_request();
        assert_eq!(limits(true).client_address(&garbage).len(), 64);
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        assert_eq!(network_of(a), network_of(b));
        assert_eq!(network_of("10.0.0.1".parse().unwrap()), "10.0.0.1");
    }
}
