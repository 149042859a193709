//! Password guessing spread over many addresses, held back without locking the owner out.
//!
//! Per address, sign-ins are limited by [`super::rate_limit`]. A guesser with many
//! addresses is held back here: each name may take so many wrong passwords per hour from
//! addresses that never signed in to it; beyond that, every further wrong one makes such
//! addresses wait twice as long as the last (1 s, 2 s, 4 s, ... up to 15 minutes) before
//! they may try that name again. An address that signed in to the name successfully (in
//! the last 30 days) is never made to wait by other addresses' guesses: the owner signs in
//! from where they always do. Both are kept in the database ([`crate::store::limits`]), so
//! they hold across instances and restarts; two instances counting a name's very first
//! wrong passwords at the same moment may count one of them once.

use crate::error::ApiError;
use crate::store::limits::{self, GuessedName};
use crate::store::Db;

/// How long an address stays known for a name after signing in to it.
pub const KNOWN_FOR_MS: i64 = 30 * 24 * 3_600_000;
/// The longest wait a guessed-at name imposes.
const MAX_DELAY_MS: i64 = 15 * 60 * 1_000;
const HOUR_MS: i64 = 3_600_000;

pub struct GuessingGuard {
    /// Wrong passwords per name per hour from unknown addresses before delays start.
    free_per_hour: u32,
}

impl GuessingGuard {
    pub fn new(free_per_hour: u32) -> GuessingGuard {
        GuessingGuard {
            free_per_hour: free_per_hour.max(1),
        }
    }

    /// Whether `address` may try a password for `name` now.
    pub async fn check(
        &self,
        db: &actix_web::web::Data<Db>,
        name: &str,
        address: &str,
    ) -> Result<(), ApiError> {
        let (db, name, address) = (db.clone(), name.to_owned(), address.to_owned());
        let now = crate::service::now_millis();
        let wait = super::blocking(move || {
            Ok(db.read(|conn| {
                if limits::signed_in_from(conn, &name, &address, now - KNOWN_FOR_MS)? {
                    return Ok::<_, crate::store::StoreError>(None);
                }
                Ok(wait_seconds(limits::guessed_name(conn, &name, false)?, now))
            })?)
        })
        .await?;
        match wait {
            None => Ok(()),
            Some(wait) => Err(ApiError::too_many(
                "rate_limited",
                format!(
                    "too many wrong passwords for this name from addresses it was not signed \
                     in from; try again in {wait} s"
                ),
                wait,
            )),
        }
    }

    /// Remembers a failed guess for `name` from `address`.
    pub async fn record_failure(&self, db: &actix_web::web::Data<Db>, name: &str, address: &str) {
        let (db, name, address) = (db.clone(), name.to_owned(), address.to_owned());
        let free = f64::from(self.free_per_hour);
        let now = crate::service::now_millis();
        let recorded = super::blocking(move || {
            Ok(db.write(|conn| {
                if limits::signed_in_from(conn, &name, &address, now - KNOWN_FOR_MS)? {
                    // The owner mistyping from home: their own address's limit is enough.
                    return Ok::<_, crate::store::StoreError>(());
                }
                let guessed = after_failure(limits::guessed_name(conn, &name, true)?, free, now);
                limits::record_guessed_name(conn, &name, &guessed)
            })?)
        })
        .await;
        if let Err(error) = recorded {
            tracing::warn!(%error, "could not count a wrong password");
        }
    }

    /// Remembers that `address` signed in to `name`: its attempts are not held back by
    /// others' guesses.
    pub async fn record_success(&self, db: &actix_web::web::Data<Db>, name: &str, address: &str) {
        let (db, name, address) = (db.clone(), name.to_owned(), address.to_owned());
        let now = crate::service::now_millis();
        let recorded = super::blocking(move || {
            Ok(db.write(|conn| limits::record_sign_in_from(conn, &name, &address, now))?)
        })
        .await;
        if let Err(error) = recorded {
            tracing::warn!(%error, "could not remember a sign-in's address");
        }
    }
}

/// How long an address that never signed in to the name waits, in whole seconds.
fn wait_seconds(guessed: Option<GuessedName>, now: i64) -> Option<u64> {
    let blocked_until = guessed?.blocked_until?;
    (blocked_until > now).then(|| {
        u64::try_from((blocked_until - now + 999) / 1_000)
            .unwrap_or(1)
            .max(1)
    })
}

/// What guessing has cost a name after one more wrong password at `now`, with `free` of
/// them an hour before waits start.
fn after_failure(guessed: Option<GuessedName>, free: f64, now: i64) -> GuessedName {
    let mut record = guessed.unwrap_or(GuessedName {
        allowance: free,
        overdrawn: 0,
        updated_at: now,
        blocked_until: None,
    });
    let quiet = (now - record.updated_at).max(0);
    if quiet >= HOUR_MS {
        record.overdrawn = 0;
    }
    record.allowance = (record.allowance + quiet as f64 * free / HOUR_MS as f64).min(free);
    record.updated_at = now;
    if record.allowance >= 1.0 {
        record.allowance -= 1.0;
        return record;
    }
    record.overdrawn = record.overdrawn.saturating_add(1);
    let delay = (1_000_i64 << (record.overdrawn - 1).clamp(0, 20)).min(MAX_DELAY_MS);
    record.blocked_until = Some(now + delay);
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wrong passwords at `times` (milliseconds), as one name's record.
    fn failures(free: f64, times: &[i64]) -> Option<GuessedName> {
        times
            .iter()
            .fold(None, |record, now| Some(after_failure(record, free, *now)))
    }

    #[test]
    fn wrong_passwords_past_the_allowance_earn_growing_waits() {
        // The allowance of 5 is used up; the sixth starts the waits, each twice the last.
        assert_eq!(wait_seconds(failures(5.0, &[0; 5]), 0), None);
        assert_eq!(wait_seconds(failures(5.0, &[0; 6]), 0), Some(1));
        let record = failures(5.0, &[0, 0, 0, 0, 0, 0, 1_000]);
        assert_eq!(wait_seconds(record, 1_000), Some(2));
        let record = after_failure(record, 5.0, 3_000);
        assert_eq!(wait_seconds(Some(record), 3_000), Some(4));
        assert_eq!(wait_seconds(Some(record), 7_000), None, "the wait is over");
    }

    #[test]
    fn the_waits_are_bounded_and_forgotten_after_a_quiet_hour() {
        let times: Vec<i64> = (0..40).map(|second| second * 1_000).collect();
        let record = failures(1.0, &times);
        assert_eq!(
            wait_seconds(record, 40_000),
            Some((MAX_DELAY_MS / 1_000 - 1) as u64)
        );
        let after_an_hour = 40_000 + HOUR_MS;
        assert_eq!(wait_seconds(record, after_an_hour), None);
        let record = after_failure(record, 1.0, after_an_hour);
        assert_eq!(
            wait_seconds(Some(record), after_an_hour),
            None,
            "a new allowance"
        );
    }
}
