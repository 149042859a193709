//! The only place the server reads the time. Deadlines, timeouts and open-game expiry all go
//! through a [`Clock`], so tests move time forward instead of sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// Milliseconds since the Unix epoch, from the system or from a hand the tests move.
#[derive(Clone, Default)]
pub struct Clock {
    manual: Option<Arc<AtomicI64>>,
}

impl Clock {
    /// The system's clock (the default).
    pub fn system() -> Clock {
        Clock { manual: None }
    }

    /// A clock that stands at `start_ms` until it is moved.
    pub fn manual(start_ms: i64) -> Clock {
        Clock {
            manual: Some(Arc::new(AtomicI64::new(start_ms))),
        }
    }

    pub fn now_millis(&self) -> i64 {
        match &self.manual {
            Some(now) => now.load(Ordering::SeqCst),
            None => system_millis(),
        }
    }

    /// Moves a manual clock forward (a system clock cannot be moved; tests only).
    pub fn advance(&self, millis: i64) {
        if let Some(now) = &self.manual {
            now.fetch_add(millis, Ordering::SeqCst);
        }
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.manual {
            Some(now) => write!(f, "Clock::manual({})", now.load(Ordering::SeqCst)),
            None => f.write_str("Clock::system()"),
        }
    }
}

fn system_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told_and_clones_share_it() {
        let clock = Clock::manual(1_000);
        let shared = clock.clone();
        assert_eq!(clock.now_millis(), 1_000);
        shared.advance(500);
        assert_eq!(clock.now_millis(), 1_500);
        assert!(Clock::system().now_millis() > 1_700_000_000_000);
    }
}
