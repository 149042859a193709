//! Name lookups for outgoing calls: one lookup per call, judged by the address policy, and
//! the HTTP client connects to exactly the addresses that lookup gave (it is plugged into
//! the client as its resolver), so a name cannot answer one address to the check and
//! another to the connection (DNS rebinding).
//!
//! The system resolver (`getaddrinfo`) blocks its thread for as long as the DNS takes. It
//! runs on a few threads of its own, never on the threads that serve requests or talk to
//! the database, behind a bounded queue and a timeout: a slow resolver makes lookups fail,
//! it does not slow anything else.

use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::pin::Pin;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

use super::addresses::AddressPolicy;

pub type LookupFuture = Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send>>;

/// Finds a host name's addresses. The server uses the system's resolver; tests plug in
/// doubles (a name that answers differently on each lookup, one that never answers).
pub trait HostLookup: Send + Sync + 'static {
    fn lookup(&self, host: &str) -> LookupFuture;
}

/// A shareable lookup, for settings that must be `Debug` and `Clone`.
#[derive(Clone)]
pub struct SharedLookup(pub Arc<dyn HostLookup>);

impl std::fmt::Debug for SharedLookup {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("SharedLookup")
    }
}

/// Why an outgoing call's address was not used. Shown to the account as a category only:
/// the transport's own message would tell it which private addresses answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The name or literal address is not globally reachable (or one of its addresses).
    NotPublic,
    /// The name has no address.
    Unresolvable,
    /// The lookup took longer than allowed.
    LookupTimeout,
    /// Too many lookups are waiting for the resolver.
    Busy,
}

impl Refusal {
    /// A stable category, for delivery records and problem details.
    pub fn category(self) -> &'static str {
        match self {
            Refusal::NotPublic => "refused address",
            Refusal::Unresolvable => "name does not resolve",
            Refusal::LookupTimeout => "name lookup timed out",
            Refusal::Busy => "name lookups busy",
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.category())
    }
}

impl std::error::Error for Refusal {}

type Job = (String, oneshot::Sender<io::Result<Vec<IpAddr>>>);

/// The system resolver on `threads` threads of its own, with at most `queue` lookups
/// waiting for one.
pub struct SystemLookup {
    jobs: mpsc::SyncSender<Job>,
}

impl SystemLookup {
    pub fn new(threads: usize, queue: usize) -> SystemLookup {
        let (jobs, receiver) = mpsc::sync_channel::<Job>(queue);
        let receiver = Arc::new(Mutex::new(receiver));
        for index in 0..threads.max(1) {
            let receiver = Arc::clone(&receiver);
            let spawned = std::thread::Builder::new()
                .name(format!("dns-lookup-{index}"))
                .spawn(move || loop {
                    let job = {
                        let receiver = receiver
                            .lock()
                            .unwrap_or_else(|poisoned| poisoned.into_inner());
                        receiver.recv()
                    };
                    let Ok((host, answer)) = job else { return };
                    let addresses = (host.as_str(), 0)
                        .to_socket_addrs()
                        .map(|found| found.map(|socket| socket.ip()).collect());
                    let _ = answer.send(addresses);
                });
            if let Err(error) = spawned {
                tracing::error!(%error, "a name lookup thread could not start");
            }
        }
        SystemLookup { jobs }
    }
}

impl HostLookup for SystemLookup {
    fn lookup(&self, host: &str) -> LookupFuture {
        let (answer, answered) = oneshot::channel();
        let queued = self.jobs.try_send((host.to_owned(), answer));
        Box::pin(async move {
            if queued.is_err() {
                return Err(io::Error::new(io::ErrorKind::WouldBlock, "lookups busy"));
            }
            answered
                .await
                .unwrap_or_else(|_| Err(io::Error::other("the lookup thread ended")))
        })
    }
}

/// Looks `host` up once within `timeout` and judges every address it gives: all must be
/// permitted (a name that also points inward is refused as a whole).
pub async fn resolve_checked(
    lookup: &dyn HostLookup,
    policy: &AddressPolicy,
    host: &str,
    timeout: Duration,
) -> Result<Vec<IpAddr>, Refusal> {
    let addresses = match tokio::time::timeout(timeout, lookup.lookup(host)).await {
        Err(_) => return Err(Refusal::LookupTimeout),
        Ok(Err(error)) if error.kind() == io::ErrorKind::WouldBlock => return Err(Refusal::Busy),
        Ok(Err(_)) => return Err(Refusal::Unresolvable),
        Ok(Ok(addresses)) => addresses,
    };
    if addresses.is_empty() {
        return Err(Refusal::Unresolvable);
    }
    if !addresses.iter().all(|address| policy.permits(*address)) {
        return Err(Refusal::NotPublic);
    }
    Ok(addresses)
}

/// The HTTP client's resolver: [`resolve_checked`] on every connection it opens.
pub struct CheckedResolver {
    pub lookup: Arc<dyn HostLookup>,
    pub policy: AddressPolicy,
    pub timeout: Duration,
}

impl reqwest::dns::Resolve for CheckedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (lookup, policy, timeout) =
            (Arc::clone(&self.lookup), self.policy.clone(), self.timeout);
        Box::pin(async move {
            let addresses = resolve_checked(&*lookup, &policy, name.as_str(), timeout).await?;
            // The port is the URL's; the client sets it on each address.
            let sockets: reqwest::dns::Addrs = Box::new(
                addresses
                    .into_iter()
                    .map(|address| SocketAddr::new(address, 0)),
            );
            Ok(sockets)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<IpAddr>);

    impl HostLookup for Fixed {
        fn lookup(&self, _: &str) -> LookupFuture {
            let addresses = self.0.clone();
            Box::pin(async move { Ok(addresses) })
        }
    }

    struct Never;

    impl HostLookup for Never {
        fn lookup(&self, _: &str) -> LookupFuture {
            Box::pin(std::future::pending())
        }
    }

    fn ips(list: &[&str]) -> Vec<IpAddr> {
        list.iter().map(|text| text.parse().unwrap()).collect()
    }

    #[tokio::test]
    async fn every_address_of_a_name_must_be_public() {
        let policy = AddressPolicy::default();
        let second = Duration::from_secs(1);
        let public = Fixed(ips(&["8.8.8.8", "2001:4860:4860::8888"]));
        assert_eq!(
            resolve_checked(&public, &policy, "a.example", second).await,
            Ok(ips(&["8.8.8.8", "2001:4860:4860::8888"]))
        );
        let mixed = Fixed(ips(&["8.8.8.8", "127.0.0.1"]));
        assert_eq!(
            resolve_checked(&mixed, &policy, "a.example", second).await,
            Err(Refusal::NotPublic)
        );
        assert_eq!(
            resolve_checked(&Fixed(Vec::new()), &policy, "a.example", second).await,
            Err(Refusal::Unresolvable)
        );
    }

    #[tokio::test]
    async fn a_lookup_that_never_answers_times_out() {
        let started = std::time::Instant::now();
        let result = resolve_checked(
            &Never,
            &AddressPolicy::default(),
            "slow.example",
            Duration::from_millis(100),
        )
        .await;
        assert_eq!(result, Err(Refusal::LookupTimeout));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn the_system_lookup_finds_localhost_and_the_policy_judges_it() {
        let lookup = SystemLookup::new(1, 1);
        let policy = AddressPolicy {
            allow_all: true,
            allowed_networks: Vec::new(),
        };
        let found = resolve_checked(&lookup, &policy, "localhost", Duration::from_secs(5)).await;
        assert!(
            matches!(found, Ok(ref addresses) if !addresses.is_empty()),
            "{found:?}"
        );
        let refused = resolve_checked(
            &lookup,
            &AddressPolicy::default(),
            "localhost",
            Duration::from_secs(5),
        )
        .await;
        assert_eq!(refused, Err(Refusal::NotPublic));
    }
}
