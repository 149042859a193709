//! How many streams and long polls may wait at once: per account, per client address and on
//! the whole instance, so that one account (or one address with many accounts) can hold only
//! a small share of the connections and everyone else can still reach the server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::ApiError;

/// The caps, from the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowerCaps {
    pub per_account: usize,
    pub per_address: usize,
    /// On the whole instance: kept below the connection limit, so ordinary requests always
    /// find room.
    pub total: usize,
    /// A stream ends after this long; the client resumes it with `Last-Event-ID`.
    pub stream_lifetime: Duration,
}

#[derive(Default)]
struct Open {
    by_account: HashMap<String, usize>,
    by_address: HashMap<String, usize>,
    total: usize,
}

/// The streams and long polls open on this instance.
pub struct Followers {
    caps: FollowerCaps,
    open: Mutex<Open>,
}

/// One admitted stream or long poll; it counts until dropped.
pub struct FollowerSlot {
    followers: Arc<Followers>,
    account: String,
    address: String,
}

/// A client is told to retry this much later.
const RETRY_AFTER_SECONDS: u64 = 5;

impl Followers {
    pub fn new(caps: FollowerCaps) -> Followers {
        Followers {
            caps,
            open: Mutex::new(Open::default()),
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

    /// Admits one more follower of `account` from `address`, or refuses with 429
    /// `too_many_streams` (and `Retry-After`) when a cap is reached.
    pub fn admit(self: &Arc<Self>, account: &str, address: &str) -> Result<FollowerSlot, ApiError> {
        let mut open = self.open();
        let refused = |detail: String| ApiError::TooManyRequests {
            code: "too_many_streams",
            detail,
            retry_after_seconds: RETRY_AFTER_SECONDS,
        };
        if open.by_account.get(account).copied().unwrap_or(0) >= self.caps.per_account {
            return Err(refused(format!(
                "an account may hold {} streams and long polls at once; close one first",
                self.caps.per_account
            )));
        }
        if open.by_address.get(address).copied().unwrap_or(0) >= self.caps.per_address {
            return Err(refused(format!(
                "one address may hold {} streams and long polls at once; close one first",
                self.caps.per_address
            )));
        }
        if open.total >= self.caps.total {
            return Err(refused(
                "this server holds as many streams and long polls as it may; try again soon"
                    .to_owned(),
            ));
        }
        *open.by_account.entry(account.to_owned()).or_default() += 1;
        *open.by_address.entry(address.to_owned()).or_default() += 1;
        open.total += 1;
        Ok(FollowerSlot {
            followers: self.clone(),
            account: account.to_owned(),
            address: address.to_owned(),
        })
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
        release(&mut open.by_account, &self.account);
        release(&mut open.by_address, &self.address);
        open.total = open.total.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn followers() -> Arc<Followers> {
        Arc::new(Followers::new(FollowerCaps {
            per_account: 2,
            per_address: 3,
            total: 4,
            stream_lifetime: Duration::from_secs(60),
        }))
    }

    fn code(refused: Result<FollowerSlot, ApiError>) -> &'static str {
        match refused {
            Err(ApiError::TooManyRequests { code, .. }) => code,
            _ => panic!("admitted"),
        }
    }

    #[test]
    fn each_cap_refuses_and_a_closed_slot_frees_its_place() {
        let followers = followers();
        let first = followers.admit("a", "10.0.0.1").unwrap();
        let _second = followers.admit("a", "10.0.0.1").unwrap();
        assert_eq!(code(followers.admit("a", "10.0.0.2")), "too_many_streams");
        let _third = followers.admit("b", "10.0.0.1").unwrap();
        assert!(followers.admit("c", "10.0.0.1").is_err(), "per address");
        let _fourth = followers.admit("c", "10.0.0.2").unwrap();
        assert!(followers.admit("d", "10.0.0.3").is_err(), "in total");
        assert_eq!(followers.count(), 4);
        drop(first);
        assert_eq!(followers.count(), 3);
        let _again = followers.admit("a", "10.0.0.3").unwrap();
    }
}
