//! How many streams and long polls may wait at once: per account, per client network and on
//! the whole instance, so that one account, one address with many accounts, or a crowd of
//! addresses can hold only a share of the connections and everyone else can still follow.
//!
//! - An account holds `--streams-per-account` wherever it connects from.
//! - A client address (an IPv6 /64) holds `--streams-per-address`; its wider networks a few
//!   times that together, as for connections (`api::connection_caps`): a /56 two shares, a
//!   /48 and an IPv4 /24 four.
//! - The last of the instance's streams (`--streams-reserved`, a quarter by default) go only
//!   to light followers: an account that holds fewer than [`LIGHT_ACCOUNT`] from a network
//!   that holds fewer than [`LIGHT_NETWORK`].
//! - Accounts behind one full network share it: an account that holds at least two fewer
//!   of its streams than the account holding the most there takes the place of that
//!   account's oldest, which ends (its client resumes with `Last-Event-ID`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use crate::api::rate_limit::Network;
use crate::error::ApiError;

/// An account holding fewer streams than this is light.
pub const LIGHT_ACCOUNT: usize = 2;
/// A network holding fewer streams than this is light.
pub const LIGHT_NETWORK: usize = 16;

/// The caps, from the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowerCaps {
    pub per_account: usize,
    pub per_address: usize,
    /// On the whole instance: kept below the connection limit, so ordinary requests always
    /// find room.
    pub total: usize,
    /// The last of `total` that only light followers take.
    pub reserved: usize,
    /// A stream ends after this long; the client resumes it with `Last-Event-ID`.
    pub stream_lifetime: Duration,
}

#[derive(Default)]
struct Open {
    by_account: HashMap<String, usize>,
    by_network: HashMap<String, usize>,
    total: usize,
    slots: HashMap<u64, Arc<SlotState>>,
}

/// The streams and long polls open on this instance.
pub struct Followers {
    caps: FollowerCaps,
    open: Mutex<Open>,
    next_id: AtomicU64,
}

/// What the caps know of one admitted follower.
struct SlotState {
    id: u64,
    account: String,
    /// Narrowest first.
    networks: Vec<String>,
    ended: AtomicBool,
    end: Notify,
}

/// One admitted stream or long poll; it counts until dropped.
pub struct FollowerSlot {
    followers: Arc<Followers>,
    state: Arc<SlotState>,
}

impl FollowerSlot {
    /// Completes once the slot was ended to make room for another account's follower on
    /// the same network: a stream then closes, a long poll answers.
    pub async fn ended(&self) {
        loop {
            let notified = self.state.end.notified();
            if self.state.ended.load(Ordering::SeqCst) {
                return;
            }
            notified.await;
        }
    }
}

/// A client is told to retry this much later.
const RETRY_AFTER_SECONDS: u64 = 5;

fn refused(detail: String) -> ApiError {
    ApiError::TooManyRequests {
        code: "too_many_streams",
        detail,
        retry_after_seconds: RETRY_AFTER_SECONDS,
    }
}

impl Followers {
    pub fn new(caps: FollowerCaps) -> Followers {
        Followers {
            caps,
            open: Mutex::new(Open::default()),
            next_id: AtomicU64::new(1),
        }
    }

    pub fn caps(&self) -> FollowerCaps {
        self.caps
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Streams and long polls open now.
    pub fn count(&self) -> usize {
        self.open().total
    }

    /// Admits one more follower of `account` from a client in `networks` (narrowest
    /// first), or refuses with 429 `too_many_streams` (and `Retry-After`).
    pub fn admit(
        self: &Arc<Self>,
        account: &str,
        networks: &[Network],
    ) -> Result<FollowerSlot, ApiError> {
        let mut open = self.open();
        let held =
            |counts: &HashMap<String, usize>, key: &str| counts.get(key).copied().unwrap_or(0);
        let account_holds = held(&open.by_account, account);
        if account_holds >= self.caps.per_account {
            return Err(refused(format!(
                "an account may hold {} streams and long polls at once; close one first",
                self.caps.per_account
            )));
        }
        for network in networks {
            let cap = self.caps.per_address.saturating_mul(network.shares);
            if held(&open.by_network, &network.key) >= cap
                && !end_for_a_lighter_account(&open, &network.key, account)
            {
                return Err(refused(format!(
                    "your network ({}) holds its {cap} streams and long polls; close one first",
                    network.key
                )));
            }
        }
        let widest = networks
            .last()
            .map_or(0, |network| held(&open.by_network, &network.key));
        let light = account_holds < LIGHT_ACCOUNT && widest < LIGHT_NETWORK;
        let live = open
            .slots
            .values()
            .filter(|slot| !slot.ended.load(Ordering::SeqCst))
            .count();
        if live >= self.caps.total
            || (live >= self.caps.total.saturating_sub(self.caps.reserved) && !light)
        {
            return Err(refused(
                "this server holds as many streams and long polls as it may (its last ones \
                 are kept for followers that hold few); try again soon"
                    .to_owned(),
            ));
        }
        let state = Arc::new(SlotState {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            account: account.to_owned(),
            networks: networks.iter().map(|network| network.key.clone()).collect(),
            ended: AtomicBool::new(false),
            end: Notify::new(),
        });
        *open.by_account.entry(account.to_owned()).or_default() += 1;
        for network in &state.networks {
            *open.by_network.entry(network.clone()).or_default() += 1;
        }
        open.total += 1;
        open.slots.insert(state.id, state.clone());
        Ok(FollowerSlot {
            followers: self.clone(),
            state,
        })
    }
}

/// In the full `network`, ends the oldest follower of the account holding the most there,
/// if `account` holds at least two fewer; whether it did.
fn end_for_a_lighter_account(open: &Open, network: &str, account: &str) -> bool {
    let within: Vec<&Arc<SlotState>> = open
        .slots
        .values()
        .filter(|slot| !slot.ended.load(Ordering::SeqCst))
        .filter(|slot| slot.networks.iter().any(|key| key == network))
        .collect();
    let mut per_account: HashMap<&str, usize> = HashMap::new();
    for slot in &within {
        *per_account.entry(slot.account.as_str()).or_default() += 1;
    }
    let mine = per_account.get(account).copied().unwrap_or(0);
    let Some((heaviest, most)) = per_account
        .iter()
        .max_by_key(|(name, count)| (**count, std::cmp::Reverse(**name)))
        .map(|(name, count)| (name.to_string(), *count))
    else {
        return false;
    };
    if mine + 2 > most {
        return false;
    }
    match within
        .iter()
        .filter(|slot| slot.account == heaviest)
        .min_by_key(|slot| slot.id)
    {
        Some(oldest) => {
            oldest.ended.store(true, Ordering::SeqCst);
            oldest.end.notify_waiters();
            true
        }
        None => false,
    }
}

fn release(counts: &mut HashMap<String, usize>, key: &str) {
    if let Some(count) = counts.get_mut(key) {
        *count -= 1;
        if *count == 0 {
            counts.remove(key);
        }
    }
}

impl Drop for FollowerSlot {
    fn drop(&mut self) {
        let mut open = self.followers.open();
        release(&mut open.by_account, &self.state.account);
        for network in &self.state.networks {
            release(&mut open.by_network, network);
        }
        open.total = open.total.saturating_sub(1);
        open.slots.remove(&self.state.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::rate_limit::networks_of;

    fn followers(per_account: usize, per_address: usize, total: usize) -> Arc<Followers> {
        Arc::new(Followers::new(FollowerCaps {
            per_account,
            per_address,
            total,
            reserved: total / 4,
            stream_lifetime: Duration::from_secs(60),
        }))
    }

    fn at(address: &str) -> Vec<Network> {
        networks_of(address.parse().unwrap())
    }

    fn code(refused: Result<FollowerSlot, ApiError>) -> &'static str {
        match refused {
            Err(ApiError::TooManyRequests { code, .. }) => code,
            _ => panic!("admitted"),
        }
    }

    #[test]
    fn each_cap_refuses_and_a_closed_slot_frees_its_place() {
        let followers = followers(2, 3, 8);
        let first = followers.admit("a", &at("10.0.0.1")).unwrap();
        let _second = followers.admit("a", &at("10.0.0.1")).unwrap();
        assert_eq!(
            code(followers.admit("a", &at("10.0.0.2"))),
            "too_many_streams"
        );
        let _third = followers.admit("b", &at("10.0.0.1")).unwrap();
        assert!(
            followers.admit("b", &at("10.0.0.1")).is_err(),
            "per address"
        );
        assert_eq!(followers.count(), 3);
        drop(first);
        assert_eq!(followers.count(), 2);
        let _again = followers.admit("a", &at("10.0.0.1")).unwrap();
    }

    #[test]
    fn a_crowd_of_addresses_in_one_network_shares_its_cap() {
        let followers = followers(100, 4, 1000);
        let mut held = Vec::new();
        for index in 0..16 {
            let networks = at(&format!("2001:db8:0:{index:x}::1"));
            held.extend((0..4).filter_map(|_| followers.admit("crowd", &networks).ok()));
        }
        // The /56 holds two addresses' shares.
        assert_eq!(held.len(), 8);
        assert!(followers.admit("victim", &at("2001:db9::1")).is_ok());
    }

    #[test]
    fn the_last_quarter_is_for_light_followers() {
        let followers = followers(100, 100, 8);
        let heavy: Vec<FollowerSlot> = (0..6)
            .map(|_| followers.admit("heavy", &at("192.0.2.1")).unwrap())
            .collect();
        assert_eq!(heavy.len(), 6);
        // 6 of 8 open: the last two are the reserve; the heavy account gets none of it.
        assert!(followers.admit("heavy", &at("192.0.2.1")).is_err());
        let _victim = followers.admit("victim", &at("203.0.113.1")).unwrap();
        let _another = followers.admit("another", &at("198.51.100.1")).unwrap();
        assert!(
            followers.admit("third", &at("198.51.100.2")).is_err(),
            "full"
        );
    }

    #[tokio::test]
    async fn behind_one_full_address_a_lighter_account_takes_the_heaviests_oldest_place() {
        let followers = followers(100, 4, 100);
        let address = at("192.0.2.1");
        let hog: Vec<FollowerSlot> = (0..4)
            .map(|_| followers.admit("hog", &address).unwrap())
            .collect();
        let neighbour = followers.admit("neighbour", &address).unwrap();
        // The hog's oldest ended to make room; it is told.
        tokio::time::timeout(Duration::from_secs(1), hog[0].ended())
            .await
            .expect("the oldest ends");
        drop(hog);
        let _second = followers.admit("neighbour", &address).unwrap();
        drop(neighbour);
        // An account holding as many as the heaviest takes no one's place.
        let even = Arc::new(Followers::new(FollowerCaps {
            per_address: 2,
            ..followers.caps()
        }));
        let _a = even.admit("a", &address).unwrap();
        let _b = even.admit("b", &address).unwrap();
        assert!(
            even.admit("c", &address).is_err(),
            "a holds only one more than c"
        );
    }
}
