//! How many requests one account, and one client address, may have under way at once on
//! this instance: the fair share of the worker threads, the database pool and the
//! database that every signed-in request needs.
//!
//! A request takes a slot of its account and then one of its address once its token is
//! checked ([`crate::auth::user::AuthUser`]'s extractor) and gives both back when its answer is
//! ready: the slot lives in the request's extensions, which actix drops with the request,
//! before the body is written. Beyond its slots a request waits, in its own account's (or
//! address's) queue, at most [`WAIT_AT_MOST`]; when the queue is full, or after that
//! wait, it is refused with 429 `too_many_requests_in_flight`. So an account that sends a
//! thousand requests at once queues behind itself: it holds a few slots, and another
//! account's request finds its own at once. Streams and long polls give theirs back when
//! they are admitted, since they count against the followers' caps instead
//! ([`crate::push::limits`]). Each instance counts for itself.
//!
//! Before a request has an account, a personal token that was not confirmed a moment ago
//! is looked up in the database; such lookups take a slot of the client's address too
//! ([`TOKEN_LOOKUPS`]), held for the lookup only, so that made-up tokens from one address
//! cannot fill the pool with lookups.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// How long a request waits for a slot before it is refused.
pub const WAIT_AT_MOST: Duration = Duration::from_secs(10);

/// Personal-token lookups one address may have under way, and waiting, at once.
pub const TOKEN_LOOKUPS: SlotCaps = SlotCaps {
    under_way: 4,
    waiting: 64,
};

/// A client refused is told to try again this much later.
const RETRY_AFTER_SECONDS: u64 = 1;

/// One key's slots and queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotCaps {
    /// Requests under way at once.
    pub under_way: usize,
    /// Requests waiting for a slot at once; beyond them, refused at once.
    pub waiting: usize,
}

/// The slots of every account and address on this instance.
pub struct RequestSlots {
    accounts: Arc<Queues>,
    addresses: Arc<Queues>,
    token_lookups: Arc<Queues>,
    wait_at_most: Duration,
    counts: Arc<Counts>,
}

/// What the metrics show of the slots.
#[derive(Debug, Default)]
pub struct Counts {
    /// Requests holding their slots.
    pub under_way: AtomicUsize,
    /// Requests waiting for a slot of their account or address.
    pub waiting: AtomicUsize,
    /// Requests refused 429 `too_many_requests_in_flight` since the start.
    pub refused: AtomicU64,
}

/// A request's slots, given back when dropped.
pub struct Slot {
    _account: Held,
    _address: Held,
    counts: Arc<Counts>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.counts.under_way.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A slot for one token lookup of an address, given back when dropped.
pub struct LookupSlot {
    _held: Held,
}

/// Counts a request as waiting while it lives.
struct Waiting<'a>(&'a Counts);

impl<'a> Waiting<'a> {
    fn new(counts: &'a Counts) -> Waiting<'a> {
        counts.waiting.fetch_add(1, Ordering::Relaxed);
        Waiting(counts)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}

impl RequestSlots {
    pub fn new(per_account: SlotCaps, per_address: SlotCaps) -> RequestSlots {
        RequestSlots::with_wait(per_account, per_address, WAIT_AT_MOST)
    }

    fn with_wait(
        per_account: SlotCaps,
        per_address: SlotCaps,
        wait_at_most: Duration,
    ) -> RequestSlots {
        RequestSlots {
            accounts: Queues::new(per_account, "This account", "requests"),
            addresses: Queues::new(per_address, "Your address", "requests"),
            token_lookups: Queues::new(TOKEN_LOOKUPS, "Your address", "token checks"),
            wait_at_most,
            counts: Arc::default(),
        }
    }

    /// A slot of `address` for looking up a personal token, or 429
    /// `too_many_requests_in_flight`.
    pub async fn take_token_lookup(&self, address: &str) -> Result<LookupSlot, ApiError> {
        let held = self
            .token_lookups
            .take(address, &self.counts, self.wait_at_most)
            .await?;
        Ok(LookupSlot { _held: held })
    }

    /// Requests under way, waiting and refused, for the metrics.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// A slot of `account` and of `address`, once both have one free; or 429
    /// `too_many_requests_in_flight` (with `Retry-After`) when a queue is full or the wait
    /// ran out. The account's slot is taken first, so one account's requests waiting for
    /// the address hold only that account's own slots.
    pub async fn take(&self, account: &str, address: &str) -> Result<Slot, ApiError> {
        let account = self
            .accounts
            .take(account, &self.counts, self.wait_at_most)
            .await?;
        let address = self
            .addresses
            .take(address, &self.counts, self.wait_at_most)
            .await?;
        self.counts.under_way.fetch_add(1, Ordering::Relaxed);
        Ok(Slot {
            _account: account,
            _address: address,
            counts: self.counts.clone(),
        })
    }
}

/// The slots of one kind of key.
struct Queues {
    caps: SlotCaps,
    /// Names the key in a refusal, capitalised.
    whose: &'static str,
    /// Names what it holds, in a refusal.
    what: &'static str,
    keys: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    slots: Arc<Semaphore>,
    /// Requests under way and waiting: the entry goes when none is left, so keys seen once
    /// do not pile up.
    holders: usize,
}

/// A slot of one key with the request's place among its holders; both go when dropped,
/// the slot first (fields drop in order).
struct Held {
    _slot: OwnedSemaphorePermit,
    _place: Place,
}

/// A request's place among a key's holders, while it waits and while it holds a slot.
struct Place {
    queues: Arc<Queues>,
    key: String,
}

impl Queues {
    fn new(caps: SlotCaps, whose: &'static str, what: &'static str) -> Arc<Queues> {
        Arc::new(Queues {
            caps: SlotCaps {
                under_way: caps.under_way.max(1),
                waiting: caps.waiting,
            },
            whose,
            what,
            keys: Mutex::new(HashMap::new()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.keys
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    async fn take(
        self: &Arc<Self>,
        key: &str,
        counts: &Counts,
        wait_at_most: Duration,
    ) -> Result<Held, ApiError> {
        let (slots, place) = {
            let mut keys = self.lock();
            let entry = match keys.get_mut(key) {
                Some(entry) => entry,
                None => keys.entry(key.to_owned()).or_insert_with(|| Entry {
                    slots: Arc::new(Semaphore::new(self.caps.under_way)),
                    holders: 0,
                }),
            };
            if entry.holders >= self.caps.under_way + self.caps.waiting {
                return Err(self.refusal(counts, "as many more waiting as allowed"));
            }
            entry.holders += 1;
            (
                entry.slots.clone(),
                Place {
                    queues: self.clone(),
                    key: key.to_owned(),
                },
            )
        };
        // The common case, a free slot, sets no timer.
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                let _waiting = Waiting::new(counts);
                match actix_web::rt::time::timeout(wait_at_most, slots.acquire_owned()).await {
                    Ok(Ok(slot)) => slot,
                    // The semaphore is never closed; a closed one refuses as a long wait.
                    Ok(Err(_)) | Err(_) => {
                        return Err(self.refusal(counts, "this one waited its turn too long"))
                    }
                }
            }
        };
        Ok(Held {
            _slot: slot,
            _place: place,
        })
    }

    /// 429 `too_many_requests_in_flight`, counted for the metrics.
    fn refusal(&self, counts: &Counts, why: &str) -> ApiError {
        counts.refused.fetch_add(1, Ordering::Relaxed);
        ApiError::too_many(
            "too_many_requests_in_flight",
            format!(
                "{} has {} {} under way on this server and {why}; send the next once an \
                 answer has come",
                self.whose, self.caps.under_way, self.what
            ),
            RETRY_AFTER_SECONDS,
        )
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut keys = self.queues.lock();
        if let Some(entry) = keys.get_mut(&self.key) {
            entry.holders -= 1;
            if entry.holders == 0 {
                keys.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACCOUNT: SlotCaps = SlotCaps {
        under_way: 2,
        waiting: 1,
    };
    const ADDRESS: SlotCaps = SlotCaps {
        under_way: 3,
        waiting: 1,
    };

    fn code(result: Result<Slot, ApiError>) -> &'static str {
        match result {
            Err(ApiError::TooManyRequests { code, .. }) => code,
            Err(other) => panic!("unexpected error {other:?}"),
            Ok(_) => panic!("a slot was given"),
        }
    }

    fn keys(queues: &Queues) -> usize {
        queues.lock().len()
    }

    #[actix_web::test]
    async fn an_account_beyond_its_slots_waits_and_beyond_its_queue_is_refused() {
        let slots = Arc::new(RequestSlots::with_wait(
            ACCOUNT,
            ADDRESS,
            Duration::from_secs(60),
        ));
        let first = slots.take("a", "10.0.0.1").await.unwrap();
        let _second = slots.take("a", "10.0.0.1").await.unwrap();
        let waiting = {
            let slots = slots.clone();
            actix_web::rt::spawn(async move { slots.take("a", "10.0.0.1").await.is_ok() })
        };
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "the third request waits");
        assert_eq!(
            code(slots.take("a", "10.0.0.2").await),
            "too_many_requests_in_flight",
            "the queue holds one"
        );
        let other = slots.take("b", "10.0.0.2").await;
        assert!(other.is_ok(), "another account has its own slots");
        let counts = slots.counts();
        assert_eq!(counts.under_way.load(Ordering::Relaxed), 3);
        assert_eq!(counts.waiting.load(Ordering::Relaxed), 1);
        assert_eq!(counts.refused.load(Ordering::Relaxed), 1);
        drop(first);
        assert!(
            waiting.await.unwrap(),
            "a slot given back goes to the waiter"
        );
        assert_eq!(counts.waiting.load(Ordering::Relaxed), 0);
        drop(other);
        assert_eq!(counts.under_way.load(Ordering::Relaxed), 1, "the second");
    }

    #[actix_web::test]
    async fn an_address_caps_its_accounts_together() {
        let slots = RequestSlots::with_wait(ACCOUNT, ADDRESS, Duration::from_millis(30));
        let _a = slots.take("a", "10.0.0.1").await.unwrap();
        let _b = slots.take("b", "10.0.0.1").await.unwrap();
        let _c = slots.take("c", "10.0.0.1").await.unwrap();
        assert_eq!(
            code(slots.take("d", "10.0.0.1").await),
            "too_many_requests_in_flight",
            "the fourth waits its 30 ms and is refused"
        );
        assert_eq!(
            keys(&slots.accounts),
            3,
            "the refused account's place is gone"
        );
        assert!(slots.take("d", "10.0.0.2").await.is_ok());
    }

    #[actix_web::test]
    async fn token_lookups_of_an_address_are_capped_apart_from_its_requests() {
        let slots = RequestSlots::with_wait(ACCOUNT, ADDRESS, Duration::from_millis(30));
        let held: Vec<LookupSlot> = futures_util::future::join_all(
            (0..TOKEN_LOOKUPS.under_way).map(|_| slots.take_token_lookup("10.0.0.1")),
        )
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
        assert!(
            slots.take_token_lookup("10.0.0.1").await.is_err(),
            "the next waits its 30 ms and is refused"
        );
        assert!(slots.take_token_lookup("10.0.0.2").await.is_ok());
        assert!(
            slots.take("a", "10.0.0.1").await.is_ok(),
            "the address's requests have slots of their own"
        );
        drop(held);
        assert!(slots.take_token_lookup("10.0.0.1").await.is_ok());
    }

    #[actix_web::test]
    async fn a_wait_that_ends_or_is_dropped_gives_its_place_back() {
        let slots = Arc::new(RequestSlots::with_wait(
            ACCOUNT,
            ADDRESS,
            Duration::from_millis(30),
        ));
        let first = slots.take("a", "10.0.0.1").await.unwrap();
        let second = slots.take("a", "10.0.0.1").await.unwrap();
        assert_eq!(
            code(slots.take("a", "10.0.0.1").await),
            "too_many_requests_in_flight",
            "waited 30 ms"
        );
        let abandoned = {
            let slots = slots.clone();
            actix_web::rt::spawn(async move {
                let _ = slots.take("a", "10.0.0.1").await;
            })
        };
        actix_web::rt::time::sleep(Duration::from_millis(5)).await;
        abandoned.abort();
        let _ = abandoned.await;
        drop((first, second));
        assert_eq!(keys(&slots.accounts), 0, "nothing is left of account a");
        assert_eq!(keys(&slots.addresses), 0);
        let _again = slots.take("a", "10.0.0.1").await.unwrap();
        let _and_again = slots.take("a", "10.0.0.1").await.unwrap();
    }
}
