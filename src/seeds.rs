//! Where the secret seeds of new games come from: the operating system's random source.
//!
//! Test builds (debug assertions on, as in `cargo test` and `cargo build --profile test`)
//! also accept the hidden flag `--insecure-test-seeds TEXT`: every game's seed is then
//! derived from TEXT and how many games this process created before it, so a scripted run
//! against a fresh server (`scripts/readme-examples`) deals the same games every time.
//! Such seeds are foreseeable, and anyone who knows TEXT knows every shuffle before it
//! happens, so release builds refuse the flag when parsing the command line, and a test
//! build that takes it says so in its log at start.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the seeds of new games are drawn from.
#[derive(Clone, Default)]
pub struct Seeds {
    fixed: Option<Arc<FixedSeeds>>,
}

struct FixedSeeds {
    text: String,
    created: AtomicU64,
}

impl Seeds {
    /// The operating system's random source (the default, and the only one in release
    /// builds).
    pub fn system() -> Seeds {
        Seeds { fixed: None }
    }

    /// Seeds derived from `text` and the number of games created so far (the value of
    /// `--insecure-test-seeds`, which only test builds accept).
    pub fn insecure_for_tests(text: &str) -> Seeds {
        Seeds {
            fixed: Some(Arc::new(FixedSeeds {
                text: text.to_owned(),
                created: AtomicU64::new(0),
            })),
        }
    }

    pub fn is_insecure(&self) -> bool {
        self.fixed.is_some()
    }

    /// The seed of the next game created.
    pub fn next_seed(&self) -> [u8; 32] {
        match &self.fixed {
            None => {
                let mut seed = [0u8; 32];
                rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut seed);
                seed
            }
            Some(fixed) => {
                use sha2::{Digest, Sha256};
                let index = fixed.created.fetch_add(1, Ordering::SeqCst);
                let mut hasher = Sha256::new();
                hasher.update(b"turnpost insecure test seed\n");
                hasher.update(fixed.text.as_bytes());
                hasher.update(format!("\n{index}").as_bytes());
                hasher.finalize().into()
            }
        }
    }
}

impl std::fmt::Debug for Seeds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.fixed {
            Some(fixed) => write!(f, "Seeds::insecure_for_tests({:?})", fixed.text),
            None => f.write_str("Seeds::system()"),
        }
    }
}

/// clap's parser for `--insecure-test-seeds`: the text in test builds, an error in release
/// builds.
pub fn parse_insecure_test_seeds(text: &str) -> Result<String, String> {
    if cfg!(debug_assertions) {
        Ok(text.to_owned())
    } else {
        Err("only test builds (debug assertions on) take foreseeable seeds".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insecure_seeds_repeat_from_run_to_run_and_differ_from_game_to_game() {
        let first = Seeds::insecure_for_tests("readme");
        let again = Seeds::insecure_for_tests("readme");
        let (a, b) = (first.next_seed(), first.next_seed());
        assert_ne!(a, b);
        assert_eq!([a, b], [again.next_seed(), again.next_seed()]);
        assert_ne!(a, Seeds::insecure_for_tests("other").next_seed());
    }

    #[test]
    fn system_seeds_differ() {
        let seeds = Seeds::system();
        assert!(!seeds.is_insecure());
        assert_ne!(seeds.next_seed(), seeds.next_seed());
    }

    #[test]
    fn only_test_builds_take_the_flag() {
        assert_eq!(
            parse_insecure_test_seeds("x").is_ok(),
            cfg!(debug_assertions)
        );
    }
}
