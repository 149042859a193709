//! Which connections this instance keeps, so that neither one address, nor a crowd of
//! addresses in one network, nor a crowd of networks can take its `--max-connections` from
//! everyone else.
//!
//! - **Per network**: an address (an IPv6 /64) holds `--connections-per-address`; its wider
//!   networks hold a few times that together (an IPv6 /56 two, a /48 four; an IPv4 /24
//!   four, see [`networks_of`]), so rotating through the addresses of a /56 gains two
//!   shares, not 256.
//! - **A reserve for light clients**: the last `--connections-reserved` of the instance's
//!   connections go only to clients whose widest network holds fewer than
//!   [`LIGHT_NETWORK`] connections, so a newcomer gets in while a crowd holds the rest.
//! - **Eviction of idle connections**: where a connection would be refused (its network is
//!   at its cap, or the instance is full and it is light), an idle connection (no request
//!   under way, no stream) of that network, or of the instance's heaviest network, is
//!   closed instead: one that never carried a signed-in request first, then one of the
//!   account holding the most connections there, the longest idle first. So accounts
//!   behind one NAT address share its connections by account: one account's idle pile
//!   makes room for its neighbours.
//!
//! A connection refused is answered once, 429 `too_many_connections` with `Connection:
//! close`, so the client learns why, and closed; at most [`MOST_REFUSING`] such wait for
//! their answer at once (the oldest is closed without one). A trusted proxy's connections
//! are not counted: it speaks for many clients, whose requests the limits behind this one
//! tell apart by `X-Forwarded-For`.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::ConnectionType;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use ipnet::IpNet;

use super::rate_limit::networks_of;
use crate::error::ApiError;

/// A client whose widest network holds fewer connections than this is light: it may take
/// the instance's reserved connections.
pub const LIGHT_NETWORK: usize = 16;
/// Refused connections waiting for their one answer, at most.
pub const MOST_REFUSING: usize = 64;

/// The caps, from the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionCaps {
    /// Connections of one address (an IPv6 /64); wider networks hold a few times this.
    pub per_address: usize,
    /// Connections of the whole instance.
    pub total: usize,
    /// The last of `total` that only light clients take.
    pub reserved: usize,
}

/// The connections open on this instance, by network.
pub struct ConnectionCaps {
    caps: AdmissionCaps,
    trusted_proxies: Vec<IpNet>,
    state: Mutex<State>,
    started: Instant,
    next_id: AtomicU64,
    refused: AtomicU64,
    evicted: AtomicU64,
}

#[derive(Default)]
struct State {
    by_network: HashMap<String, usize>,
    open: HashMap<u64, Arc<Shared>>,
    refusing: VecDeque<Weak<Shared>>,
}

/// What the server knows of one connection while it is open: the networks it counts in,
/// whether a request is under way on it, whom its requests were signed in as, and whether
/// it was chosen to close.
pub struct Shared {
    id: u64,
    /// Narrowest first.
    networks: Vec<String>,
    in_flight: AtomicUsize,
    account: Mutex<Option<String>>,
    /// Milliseconds since the caps were made, when its last request ended.
    idle_since: AtomicU64,
    closing: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Shared {
    fn new(id: u64, networks: Vec<String>, now: u64) -> Shared {
        Shared {
            id,
            networks,
            in_flight: AtomicUsize::new(0),
            account: Mutex::new(None),
            idle_since: AtomicU64::new(now),
            closing: AtomicBool::new(false),
            waker: Mutex::new(None),
        }
    }

    fn is_idle(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0 && !self.closing.load(Ordering::SeqCst)
    }

    fn account(&self) -> Option<String> {
        self.account
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Closes the connection once no request is under way on it: its next read ends.
    fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        if let Some(waker) = self
            .waker
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
        {
            waker.wake();
        }
    }

    /// For the connection's reads: `true` once it is to close and idle (the read then ends
    /// the connection); otherwise remembers who to wake when it is chosen.
    pub fn poll_closed(&self, cx: &Context<'_>) -> bool {
        if self.closing.load(Ordering::SeqCst) && self.in_flight.load(Ordering::SeqCst) == 0 {
            return true;
        }
        *self
            .waker
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(cx.waker().clone());
        false
    }
}

/// What a connection's data records of its admission.
pub enum Connection {
    /// Counted against its networks until the connection closes (this is dropped with it).
    Counted(CountedConnection),
    /// From a trusted proxy, or of no known peer.
    Uncounted,
    /// Refused: answered once, then closed.
    OverCap { reason: String, shared: Arc<Shared> },
}

impl Connection {
    /// What the connection's reads and requests need to know of it.
    pub fn shared(&self) -> Option<Arc<Shared>> {
        match self {
            Connection::Counted(counted) => Some(counted.shared.clone()),
            Connection::OverCap { shared, .. } => Some(shared.clone()),
            Connection::Uncounted => None,
        }
    }

    /// What the connection's requests find in its data.
    pub fn handle(&self) -> ConnectionHandle {
        ConnectionHandle {
            shared: match self {
                Connection::Counted(counted) => Some(counted.shared.clone()),
                _ => None,
            },
            refused: match self {
                Connection::OverCap { reason, .. } => Some(reason.clone()),
                _ => None,
            },
        }
    }
}

/// A connection's admission as its requests see it (in the connection's data).
#[derive(Clone)]
pub struct ConnectionHandle {
    shared: Option<Arc<Shared>>,
    refused: Option<String>,
}

impl ConnectionHandle {
    /// The account a request on this connection was signed in as: an idle connection of
    /// the account that holds the most is closed first under pressure.
    pub fn signed_in_as(&self, account: &str) {
        if let Some(shared) = &self.shared {
            let mut known = shared
                .account
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if known.as_deref() != Some(account) {
                *known = Some(account.to_owned());
            }
        }
    }

    /// The connection is busy until the returned guard is dropped (with the answer's
    /// body): a stream's connection is never idle.
    pub fn busy(&self) -> Option<Busy> {
        let shared = self.shared.clone()?;
        shared.in_flight.fetch_add(1, Ordering::SeqCst);
        Some(Busy { shared })
    }
}

/// Keeps a connection busy while it lives.
pub struct Busy {
    shared: Arc<Shared>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        if self.shared.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            // Wakes a read that waits to close the connection.
            if self.shared.closing.load(Ordering::SeqCst) {
                self.shared.close();
            }
        }
    }
}

/// One connection counted against its networks.
pub struct CountedConnection {
    caps: Arc<ConnectionCaps>,
    shared: Arc<Shared>,
}

impl ConnectionCaps {
    pub fn new(caps: AdmissionCaps, trusted_proxies: Vec<IpNet>) -> ConnectionCaps {
        ConnectionCaps {
            caps: AdmissionCaps {
                per_address: caps.per_address.max(1),
                total: caps.total.max(1),
                reserved: caps.reserved.min(caps.total.saturating_sub(1)),
            },
            trusted_proxies,
            state: Mutex::new(State::default()),
            started: Instant::now(),
            next_id: AtomicU64::new(1),
            refused: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Counts a connection just accepted from `peer`, closing an idle one to make room
    /// where that is fair, or refuses it.
    pub fn admit(self: &Arc<Self>, peer: Option<IpAddr>) -> Connection {
        let Some(ip) = peer else {
            return Connection::Uncounted;
        };
        if self.trusted_proxies.iter().any(|proxy| proxy.contains(&ip)) {
            return Connection::Uncounted;
        }
        let networks = networks_of(ip);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(Shared::new(
            id,
            networks.iter().map(|network| network.key.clone()).collect(),
            self.now(),
        ));
        let mut state = self.lock();
        if let Err(reason) = self.make_room(&mut state, &networks) {
            self.refused.fetch_add(1, Ordering::Relaxed);
            state
                .refusing
                .retain(|refusing| refusing.strong_count() > 0);
            if state.refusing.len() >= MOST_REFUSING {
                if let Some(oldest) = state
                    .refusing
                    .pop_front()
                    .and_then(|oldest| oldest.upgrade())
                {
                    oldest.close();
                }
            }
            state.refusing.push_back(Arc::downgrade(&shared));
            return Connection::OverCap { reason, shared };
        }
        for network in &networks {
            *state.by_network.entry(network.key.clone()).or_default() += 1;
        }
        state.open.insert(id, shared.clone());
        Connection::Counted(CountedConnection {
            caps: self.clone(),
            shared,
        })
    }

    /// Whether a connection of `networks` fits now, after closing an idle connection where
    /// one may be closed for it; otherwise why not.
    fn make_room(
        &self,
        state: &mut State,
        networks: &[super::rate_limit::Network],
    ) -> Result<(), String> {
        let held = |state: &State, key: &str| state.by_network.get(key).copied().unwrap_or(0);
        for network in networks {
            let cap = self.caps.per_address.saturating_mul(network.shares);
            if held(state, &network.key) >= cap {
                // Within the full network: its own idle connections make room.
                if !self.close_idle(state, Some(&network.key)) {
                    return Err(format!(
                        "your network ({}) holds its {cap} connections to this server",
                        network.key
                    ));
                }
            }
        }
        let total = self.open_now(state);
        let widest = networks
            .last()
            .map_or(0, |network| held(state, &network.key));
        let light = widest < LIGHT_NETWORK;
        if total >= self.caps.total.saturating_sub(self.caps.reserved) && !light {
            return Err(
                "this server keeps its last connections for clients that hold few; close one \
                 of yours"
                    .to_owned(),
            );
        }
        if total >= self.caps.total {
            // A light client takes the place of an idle connection of the heaviest network.
            let heaviest = state
                .open
                .values()
                .filter_map(|shared| shared.networks.last())
                .max_by_key(|key| held(state, key))
                .cloned();
            if !self.close_idle(state, heaviest.as_deref()) {
                return Err("this server holds as many connections as it may".to_owned());
            }
        }
        Ok(())
    }

    /// Connections counted now, less those chosen to close.
    fn open_now(&self, state: &State) -> usize {
        state
            .open
            .values()
            .filter(|shared| !shared.closing.load(Ordering::SeqCst))
            .count()
    }

    /// Closes an idle connection of `network` (of any, without one): one that never
    /// carried a signed-in request first, then one of the account holding the most
    /// connections there, the longest idle first. Whether there was one.
    fn close_idle(&self, state: &State, network: Option<&str>) -> bool {
        let within: Vec<&Arc<Shared>> = state
            .open
            .values()
            .filter(|shared| network.is_none_or(|key| shared.networks.iter().any(|n| n == key)))
            .collect();
        let mut per_account: HashMap<Option<String>, usize> = HashMap::new();
        for shared in &within {
            *per_account.entry(shared.account()).or_default() += 1;
        }
        let victim = within
            .iter()
            .filter(|shared| shared.is_idle())
            .min_by_key(|shared| {
                let account = shared.account();
                let signed_in = account.is_some();
                let held = per_account.get(&account).copied().unwrap_or(0);
                (
                    signed_in,
                    std::cmp::Reverse(held),
                    shared.idle_since.load(Ordering::SeqCst),
                    shared.id,
                )
            });
        match victim {
            Some(victim) => {
                victim.close();
                self.evicted.fetch_add(1, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    /// Connections counted against networks now (those closing included).
    #[cfg(test)]
    fn counted(&self) -> usize {
        self.lock().open.len()
    }

    /// Connections refused since the start.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Idle connections closed to make room since the start.
    pub fn evicted(&self) -> u64 {
        self.evicted.load(Ordering::Relaxed)
    }
}

impl Drop for CountedConnection {
    fn drop(&mut self) {
        let mut state = self.caps.lock();
        state.open.remove(&self.shared.id);
        for key in &self.shared.networks {
            if let Some(count) = state.by_network.get_mut(key) {
                *count -= 1;
                if *count == 0 {
                    state.by_network.remove(key);
                }
            }
        }
    }
}

/// Answers a request on a refused connection with 429 `too_many_connections` and closes the
/// connection; on a counted one, keeps the connection busy until the answer's body is sent.
pub async fn refuse_connections_over_cap(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let handle = request.conn_data::<ConnectionHandle>().cloned();
    if let Some(reason) = handle.as_ref().and_then(|handle| handle.refused.clone()) {
        let refusal = ApiError::too_many(
            "too_many_connections",
            format!("{reason}; send requests on one connection (keep-alive) or close one"),
            1,
        );
        let mut response = request.error_response(refusal);
        response
            .response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
        return Ok(response);
    }
    let busy = handle.as_ref().and_then(ConnectionHandle::busy);
    let response = next.call(request).await?;
    Ok(match busy {
        Some(busy) => response.map_body(|_, body| {
            BoxBody::new(BusyBody {
                body: body.boxed(),
                _busy: busy,
            })
        }),
        None => response.map_into_boxed_body(),
    })
}

/// An answer's body that keeps its connection busy until it is sent (or dropped).
struct BusyBody {
    body: BoxBody,
    _busy: Busy,
}

impl MessageBody for BusyBody {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    fn caps(per_address: usize, total: usize, reserved: usize) -> Arc<ConnectionCaps> {
        Arc::new(ConnectionCaps::new(
            AdmissionCaps {
                per_address,
                total,
                reserved,
            },
            vec!["10.9.0.0/16".parse().unwrap()],
        ))
    }

    fn counted(connection: &Connection) -> bool {
        matches!(connection, Connection::Counted(_))
    }

    /// Marks the connection busy for good (as a stream would).
    fn keep_busy(connection: &Connection) {
        std::mem::forget(connection.handle().busy());
    }

    fn closing(connection: &Connection) -> bool {
        connection
            .shared()
            .is_some_and(|shared| shared.closing.load(Ordering::SeqCst))
    }

    #[test]
    fn an_address_holds_its_share_and_a_closed_connection_frees_its_place() {
        let caps = caps(2, 100, 0);
        let first = caps.admit(ip("192.0.2.1"));
        let second = caps.admit(ip("192.0.2.1"));
        keep_busy(&first);
        keep_busy(&second);
        assert!(matches!(
            caps.admit(ip("192.0.2.1")),
            Connection::OverCap { .. }
        ));
        assert!(counted(&caps.admit(ip("192.0.2.2"))));
        for _ in 0..5 {
            assert!(matches!(caps.admit(ip("10.9.1.1")), Connection::Uncounted));
        }
        drop(first);
        assert!(counted(&caps.admit(ip("192.0.2.1"))));
        assert_eq!(caps.refused(), 1);
    }

    #[test]
    fn a_crowd_in_one_network_shares_the_networks_cap() {
        let caps = caps(2, 100, 0);
        let mut held = Vec::new();
        // Sixteen /64s of one /56: the /56 holds two addresses' share, four connections.
        for index in 0..16 {
            let connection = caps.admit(ip(&format!("2001:db8:0:{index:x}::1")));
            if counted(&connection) {
                keep_busy(&connection);
            }
            held.push(connection);
        }
        assert_eq!(held.iter().filter(|c| counted(c)).count(), 4);
        // Another /56 of the same /48 gets its own four, then the /48's eight are full.
        for index in 0..16 {
            let connection = caps.admit(ip(&format!("2001:db8:0:{:x}::1", 0x100 + index)));
            if counted(&connection) {
                keep_busy(&connection);
            }
            held.push(connection);
        }
        assert_eq!(held.iter().filter(|c| counted(c)).count(), 8);
        assert!(!counted(&caps.admit(ip("2001:db8:0:ff00::1"))));
        // Another /48 is untouched; IPv4 counts by /24 four times an address's share.
        assert!(counted(&caps.admit(ip("2001:db9::1"))));
        let v4: Vec<Connection> = (1..=20)
            .map(|host| {
                let connection = caps.admit(ip(&format!("198.51.100.{host}")));
                if counted(&connection) {
                    keep_busy(&connection);
                }
                connection
            })
            .collect();
        assert_eq!(v4.iter().filter(|c| counted(c)).count(), 8);
    }

    #[test]
    fn the_reserve_takes_light_clients_only_and_idle_crowds_make_room() {
        let caps = caps(100, 40, 10);
        // Two networks hold 30, the instance's unreserved share: one of them heavy (20).
        let mut heavy = Vec::new();
        for index in 0..30 {
            let network = if index < 20 { "192.0.2" } else { "198.51.100" };
            heavy.push(caps.admit(ip(&format!("{network}.{}", index + 1))));
        }
        assert!(heavy.iter().all(counted));
        for connection in &heavy[..10] {
            keep_busy(connection);
        }
        // A heavy network gets none of the reserve ...
        assert!(!counted(&caps.admit(ip("192.0.2.200"))));
        // ... a newcomer does, up to the total ...
        let newcomers: Vec<Connection> = (1..=10)
            .map(|index| caps.admit(ip(&format!("203.0.113.{index}"))))
            .collect();
        assert!(newcomers.iter().all(counted));
        assert_eq!(caps.counted(), 40);
        // ... and beyond it an idle connection of the heaviest network closes for the next.
        let next = caps.admit(ip("203.0.114.1"));
        assert!(counted(&next));
        let closed: Vec<&Connection> = heavy.iter().filter(|c| closing(c)).collect();
        assert_eq!(closed.len(), 1);
        assert!(
            heavy[10..20].iter().any(closing),
            "an idle one of the heaviest"
        );
    }

    #[test]
    fn behind_one_address_the_account_with_the_most_idle_connections_makes_room() {
        let caps = caps(4, 100, 0);
        let hog: Vec<Connection> = (0..3).map(|_| caps.admit(ip("192.0.2.1"))).collect();
        for connection in &hog {
            connection.handle().signed_in_as("hog");
        }
        let neighbour = caps.admit(ip("192.0.2.1"));
        neighbour.handle().signed_in_as("neighbour");
        // The address is full; a fifth connection closes one of the hog's idle ones.
        let next = caps.admit(ip("192.0.2.1"));
        assert!(counted(&next));
        assert_eq!(hog.iter().filter(|c| closing(c)).count(), 1);
        assert!(!closing(&neighbour));
    }

    #[test]
    fn a_connection_that_never_signed_in_closes_first() {
        let caps = caps(2, 100, 0);
        let signed = caps.admit(ip("192.0.2.1"));
        signed.handle().signed_in_as("someone");
        let anonymous = caps.admit(ip("192.0.2.1"));
        assert!(counted(&caps.admit(ip("192.0.2.1"))));
        assert!(closing(&anonymous));
        assert!(!closing(&signed));
    }

    #[test]
    fn a_busy_connection_is_closed_only_once_its_answer_is_sent() {
        let caps = caps(1, 100, 0);
        let first = caps.admit(ip("192.0.2.1"));
        let handle = first.handle();
        let busy = handle.busy();
        assert!(
            !counted(&caps.admit(ip("192.0.2.1"))),
            "nothing idle to close"
        );
        drop(busy);
        assert!(counted(&caps.admit(ip("192.0.2.1"))));
        assert!(closing(&first));
        let waker = futures_util::task::noop_waker();
        let shared = first.shared().unwrap();
        assert!(shared.poll_closed(&Context::from_waker(&waker)));
    }
}
