//! Password guessing spread over many addresses, held back without locking the owner out.
//!
//! Per address, sign-ins are limited by [`super::rate_limit`]. A guesser with many
//! addresses is held back here: each name may take so many wrong passwords per hour from
//! addresses that never signed in to it; beyond that, every further wrong one makes such
//! addresses wait twice as long as the last (1 s, 2 s, 4 s, ... up to 15 minutes) before
//! they may try that name again. An address that signed in to the name successfully (in
//! the last 30 days, on this instance) is never made to wait by other addresses' guesses:
//! the owner signs in from where they always do.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::ApiError;

/// How long an address stays known for a name after signing in to it.
const KNOWN_FOR: Duration = Duration::from_secs(30 * 24 * 3600);
/// The longest wait a guessed-at name imposes.
const MAX_DELAY: Duration = Duration::from_secs(15 * 60);
/// Names and (name, address) pairs tracked at most: beyond it the stalest are forgotten.
const MAX_ENTRIES: usize = 100_000;

pub struct GuessingGuard {
    /// Wrong passwords per name per hour from unknown addresses before delays start.
    free_per_hour: u32,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    names: HashMap<String, NameRecord>,
    known: HashMap<(String, String), Instant>,
}

#[derive(Debug, Clone, Copy)]
struct NameRecord {
    /// Wrong passwords left before delays start (refilled over the hour).
    allowance: f64,
    /// Wrong passwords past the allowance since the name was last left alone for an hour.
    overdrawn: u32,
    updated: Instant,
    blocked_until: Option<Instant>,
}

impl GuessingGuard {
    pub fn new(free_per_hour: u32) -> GuessingGuard {
        GuessingGuard {
            free_per_hour: free_per_hour.max(1),
            state: Mutex::new(State::default()),
        }
    }

    /// Whether `address` may try a password for `name` now.
    pub fn check(&self, name: &str, address: &str) -> Result<(), ApiError> {
        self.check_at(name, address, Instant::now())
    }

    /// Remembers a failed guess for `name` from `address`.
    pub fn record_failure(&self, name: &str, address: &str) {
        self.record_failure_at(name, address, Instant::now());
    }

    /// Remembers that `address` signed in to `name`: its attempts are not held back by
    /// others' guesses.
    pub fn record_success(&self, name: &str, address: &str) {
        let now = Instant::now();
        let mut state = self.lock();
        if state.known.len() >= MAX_ENTRIES {
            state
                .known
                .retain(|_, since| now.saturating_duration_since(*since) < KNOWN_FOR);
            if state.known.len() >= MAX_ENTRIES {
                if let Some(oldest) = state
                    .known
                    .iter()
                    .min_by_key(|(_, since)| **since)
                    .map(|(key, _)| key.clone())
                {
                    state.known.remove(&oldest);
                }
            }
        }
        state
            .known
            .insert((name.to_owned(), address.to_owned()), now);
    }

    fn check_at(&self, name: &str, address: &str, now: Instant) -> Result<(), ApiError> {
        let state = self.lock();
        if state.is_known(name, address, now) {
            return Ok(());
        }
        let Some(blocked_until) = state
            .names
            .get(name)
            .and_then(|record| record.blocked_until)
        else {
            return Ok(());
        };
        if blocked_until <= now {
            return Ok(());
        }
        let wait = (blocked_until - now).as_secs_f64().ceil().max(1.0) as u64;
        Err(ApiError::too_many(
            "rate_limited",
            format!(
                "too many wrong passwords for this name from addresses it was not signed in \
                 from; try again in {wait} s"
            ),
            wait,
        ))
    }

    fn record_failure_at(&self, name: &str, address: &str, now: Instant) {
        let free = f64::from(self.free_per_hour);
        let mut state = self.lock();
        if state.is_known(name, address, now) {
            // The owner mistyping from home: their own address's limit is enough.
            return;
        }
        if state.names.len() >= MAX_ENTRIES && !state.names.contains_key(name) {
            state
                .names
                .retain(|_, record| record.blocked_until.is_some_and(|until| until > now));
            if state.names.len() >= MAX_ENTRIES {
                if let Some(soonest) = state
                    .names
                    .iter()
                    .min_by_key(|(_, record)| record.blocked_until)
                    .map(|(name, _)| name.clone())
                {
                    state.names.remove(&soonest);
                }
            }
        }
        let record = state.names.entry(name.to_owned()).or_insert(NameRecord {
            allowance: free,
            overdrawn: 0,
            updated: now,
            blocked_until: None,
        });
        let quiet = now.saturating_duration_since(record.updated);
        if quiet >= Duration::from_secs(3600) {
            record.overdrawn = 0;
        }
        record.allowance = (record.allowance + quiet.as_secs_f64() * free / 3600.0).min(free);
        record.updated = now;
        if record.allowance >= 1.0 {
            record.allowance -= 1.0;
            return;
        }
        record.overdrawn = record.overdrawn.saturating_add(1);
        let delay = Duration::from_secs(1u64 << (record.overdrawn - 1).min(20)).min(MAX_DELAY);
        record.blocked_until = Some(now + delay);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl State {
    fn is_known(&self, name: &str, address: &str, now: Instant) -> bool {
        self.known
            .get(&(name.to_owned(), address.to_owned()))
            .is_some_and(|since| now.saturating_duration_since(*since) < KNOWN_FOR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry_after(result: Result<(), ApiError>) -> Option<u64> {
        match result {
            Ok(()) => None,
            Err(error) => error.retry_after_seconds(),
        }
    }

    #[test]
    fn guesses_from_many_addresses_earn_growing_waits_but_not_for_the_owner() {
        let guard = GuessingGuard::new(5);
        let start = Instant::now();
        guard.record_success("alice", "home");
        for index in 0..5 {
            let address = format!("bot{index}");
            assert!(guard.check_at("alice", &address, start).is_ok());
            guard.record_failure_at("alice", &address, start);
        }
        // The allowance is used up; the next wrong password starts the waits.
        assert!(guard.check_at("alice", "bot9", start).is_ok());
        guard.record_failure_at("alice", "bot9", start);
        assert_eq!(
            retry_after(guard.check_at("alice", "bot10", start)),
            Some(1)
        );
        let later = start + Duration::from_secs(1);
        guard.record_failure_at("alice", "bot11", later);
        assert_eq!(
            retry_after(guard.check_at("alice", "bot12", later)),
            Some(2)
        );
        let later = later + Duration::from_secs(2);
        guard.record_failure_at("alice", "bot13", later);
        assert_eq!(
            retry_after(guard.check_at("alice", "bot14", later)),
            Some(4)
        );
        // The owner's address and other names are not held back.
        assert!(guard.check_at("alice", "home", later).is_ok());
        assert!(guard.check_at("bob", "bot14", later).is_ok());
        // The owner mistyping does not add to the waits.
        guard.record_failure_at("alice", "home", later);
        assert_eq!(
            retry_after(guard.check_at("alice", "bot14", later)),
            Some(4)
        );
    }

    #[test]
    fn the_waits_are_bounded_and_forgotten_after_a_quiet_hour() {
        let guard = GuessingGuard::new(1);
        let mut now = Instant::now();
        for _ in 0..40 {
            guard.record_failure_at("alice", "bot", now);
            now += Duration::from_secs(1);
        }
        assert_eq!(
            retry_after(guard.check_at("alice", "bot", now)),
            Some(MAX_DELAY.as_secs() - 1)
        );
        let after_an_hour = now + Duration::from_secs(3600);
        assert!(guard.check_at("alice", "bot", after_an_hour).is_ok());
        guard.record_failure_at("alice", "bot", after_an_hour);
        assert!(guard.check_at("alice", "bot", after_an_hour).is_ok());
    }
}
