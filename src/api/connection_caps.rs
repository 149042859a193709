//! How many connections one client address (an IPv6 /64) may hold open on this instance,
//! so that one address cannot take the instance's `--max-connections` from everyone
//! else. A connection accepted beyond its address's share is answered once, 429
//! `too_many_connections` with `Connection: close`, so the client learns why, and then
//! closed. A trusted proxy's connections are not counted: it speaks for many clients,
//! whose requests the caps behind this one tell apart by `X-Forwarded-For`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::ConnectionType;
use actix_web::middleware::Next;
use ipnet::IpNet;

use super::rate_limit::network_of;
use crate::error::ApiError;

/// The connections open on this instance, by address.
pub struct ConnectionCaps {
    per_address: usize,
    trusted_proxies: Vec<IpNet>,
    open: Mutex<HashMap<String, usize>>,
    refused: AtomicU64,
}

/// What a connection's data records of its admission.
pub enum Connection {
    /// Counted against its address until the connection closes (this is dropped with it).
    Counted(CountedConnection),
    /// From a trusted proxy, or of no known peer.
    Uncounted,
    /// Its address held its share when it was accepted.
    OverCap { per_address: usize },
}

/// One connection counted against its address.
pub struct CountedConnection {
    caps: Arc<ConnectionCaps>,
    key: String,
}

impl ConnectionCaps {
    pub fn new(per_address: usize, trusted_proxies: Vec<IpNet>) -> ConnectionCaps {
        ConnectionCaps {
            per_address: per_address.max(1),
            trusted_proxies,
            open: Mutex::new(HashMap::new()),
            refused: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts a connection just accepted from `peer`.
    pub fn admit(self: &Arc<Self>, peer: Option<IpAddr>) -> Connection {
        let Some(ip) = peer else {
            return Connection::Uncounted;
        };
        if self.trusted_proxies.iter().any(|proxy| proxy.contains(&ip)) {
            return Connection::Uncounted;
        }
        let key = network_of(ip);
        let mut open = self.lock();
        let count = open.entry(key.clone()).or_default();
        if *count >= self.per_address {
            self.refused.fetch_add(1, Ordering::Relaxed);
            return Connection::OverCap {
                per_address: self.per_address,
            };
        }
        *count += 1;
        Connection::Counted(CountedConnection {
            caps: self.clone(),
            key,
        })
    }

    /// Connections counted against addresses now.
    #[cfg(test)]
    fn counted(&self) -> usize {
        self.lock().values().sum()
    }

    /// Connections refused since the start.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}

impl Drop for CountedConnection {
    fn drop(&mut self) {
        let mut open = self.caps.lock();
        if let Some(count) = open.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// Answers a request on a connection accepted beyond its address's share with 429
/// `too_many_connections` and closes the connection.
pub async fn refuse_connections_over_cap(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let over_cap = match request.conn_data::<Connection>() {
        Some(Connection::OverCap { per_address }) => Some(*per_address),
        _ => None,
    };
    if let Some(per_address) = over_cap {
        let refusal = ApiError::too_many(
            "too_many_connections",
            format!(
                "your address holds {per_address} connections to this server; send requests \
                 on one of them (keep-alive) or close one"
            ),
            1,
        );
        let mut response = request.error_response(refusal);
        response
            .response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
        return Ok(response);
    }
    next.call(request)
        .await
        .map(ServiceResponse::map_into_boxed_body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    #[test]
    fn an_address_holds_its_share_and_a_closed_connection_frees_its_place() {
        let caps = Arc::new(ConnectionCaps::new(2, vec!["10.9.0.0/16".parse().unwrap()]));
        let first = caps.admit(ip("192.0.2.1"));
        let _second = caps.admit(ip("192.0.2.1"));
        assert!(matches!(
            caps.admit(ip("192.0.2.1")),
            Connection::OverCap { per_address: 2 }
        ));
        assert!(matches!(
            caps.admit(ip("192.0.2.2")),
            Connection::Counted(_)
        ));
        // One IPv6 /64 is one address.
        let _v6 = caps.admit(ip("2001:db8::1"));
        let _v6_again = caps.admit(ip("2001:db8::2"));
        assert!(matches!(
            caps.admit(ip("2001:db8::3")),
            Connection::OverCap { .. }
        ));
        for _ in 0..5 {
            assert!(matches!(caps.admit(ip("10.9.1.1")), Connection::Uncounted));
        }
        assert_eq!(caps.counted(), 4);
        assert_eq!(caps.refused(), 2);
        drop(first);
        assert!(matches!(
            caps.admit(ip("192.0.2.1")),
            Connection::Counted(_)
        ));
    }
}
