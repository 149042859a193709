//! Folded states kept between requests, so that a read late in a long game folds only the
//! events it has not seen instead of the whole log.
//!
//! An entry is the fold of a game's first `seq` events under its rules version. The log is
//! append-only and a committed event never changes, so an entry stays exactly the fold of
//! the stored log at that seq forever, whichever instance appended the events: a reader
//! takes a copy, applies the events after it from the database in its own transaction, and
//! has the fold at the seq it wants. Only folds of committed events are put in.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::games::Table;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    game_id: String,
    rules_version: u32,
}

struct Entry {
    seq: i64,
    table: Box<dyn Table>,
    last_used: u64,
}

/// At most `capacity` games' states, the least recently used forgotten first.
pub struct FoldCache {
    capacity: usize,
    entries: Mutex<(HashMap<Key, Entry>, u64)>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// How the cache has been used since start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoldCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub games: usize,
}

impl FoldCache {
    /// A cache of `capacity` games (0 turns it off).
    pub fn new(capacity: usize) -> FoldCache {
        FoldCache {
            capacity,
            entries: Mutex::new((HashMap::new(), 0)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<Key, Entry>, u64)> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A copy of the cached fold of the game, with its seq, if it is at or before
    /// `at_most`.
    pub fn get(
        &self,
        game_id: &str,
        rules_version: u32,
        at_most: i64,
    ) -> Option<(i64, Box<dyn Table>)> {
        let key = Key {
            game_id: game_id.to_owned(),
            rules_version,
        };
        let mut guard = self.lock();
        let (entries, clock) = &mut *guard;
        *clock += 1;
        let found = entries
            .get_mut(&key)
            .filter(|entry| entry.seq <= at_most)
            .map(|entry| {
                entry.last_used = *clock;
                (entry.seq, entry.table.clone_table())
            });
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps a copy of `table`, the fold of the game's first `seq` committed events, unless
    /// a later one is kept already.
    pub fn put(&self, game_id: &str, rules_version: u32, seq: i64, table: &dyn Table) {
        if self.capacity == 0 {
            return;
        }
        let key = Key {
            game_id: game_id.to_owned(),
            rules_version,
        };
        let mut guard = self.lock();
        let (entries, clock) = &mut *guard;
        *clock += 1;
        if entries.get(&key).is_some_and(|entry| entry.seq >= seq) {
            return;
        }
        if !entries.contains_key(&key) && entries.len() >= self.capacity {
            let oldest = entries
                .iter()
                .min_by_key(|(_, entry)| entry.last_used)
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest {
                entries.remove(&oldest);
            }
        }
        entries.insert(
            key,
            Entry {
                seq,
                table: table.clone_table(),
                last_used: *clock,
            },
        );
    }

    pub fn stats(&self) -> FoldCacheStats {
        FoldCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            games: self.lock().0.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Box<dyn Table> {
        let rules = crate::games::find_game_rules("tikal").unwrap();
        rules
            .new_table(&rules.default_options(), 2, rules.newest_rules_version())
            .unwrap()
    }

    #[test]
    fn a_fold_is_served_at_or_after_its_seq_and_the_least_recent_goes_first() {
        let cache = FoldCache::new(2);
        assert!(cache.get("a", 1, 10).is_none());
        cache.put("a", 1, 5, table().as_ref());
        assert_eq!(cache.get("a", 1, 10).map(|(seq, _)| seq), Some(5));
        assert!(
            cache.get("a", 1, 4).is_none(),
            "not a fold past the wanted seq"
        );
        assert!(cache.get("a", 2, 10).is_none(), "another rules version");
        cache.put("a", 1, 3, table().as_ref());
        assert_eq!(
            cache.get("a", 1, 10).map(|(seq, _)| seq),
            Some(5),
            "kept the later"
        );
        cache.put("b", 1, 1, table().as_ref());
        assert!(cache.get("a", 1, 10).is_some());
        cache.put("c", 1, 1, table().as_ref());
        assert!(
            cache.get("b", 1, 10).is_none(),
            "b was the least recently used"
        );
        assert!(cache.get("a", 1, 10).is_some());
        let stats = cache.stats();
        assert_eq!(stats.games, 2);
        assert_eq!((stats.hits, stats.misses), (4, 4));
    }

    #[test]
    fn a_cache_of_no_games_keeps_nothing() {
        let cache = FoldCache::new(0);
        cache.put("a", 1, 5, table().as_ref());
        assert!(cache.get("a", 1, 10).is_none());
        assert_eq!(cache.stats().games, 0);
    }
}
