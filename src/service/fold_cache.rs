//! Folded states kept between requests, so that a read late in a long game folds only the
//! events it has not seen instead of the whole log.
//!
//! An entry is the fold of a game's first `seq` events under its rules version. The log is
//! append-only and a committed event never changes, so an entry stays exactly the fold of
//! the stored log at that seq forever, whichever instance appended the events: a reader
//! takes a copy, applies the events after it from the database in its own transaction, and
//! has the fold at the seq it wants. Only folds of committed events are put in.

use std::collections::{BTreeMap, HashMap};
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
    /// What the entry takes: the table's own count plus the key and the map's slots.
    bytes: usize,
    last_used: u64,
}

/// What an entry costs besides its table: its key's text and its slots in both maps.
fn overhead(key: &Key) -> usize {
    key.game_id.capacity()
        + 2 * std::mem::size_of::<Key>()
        + std::mem::size_of::<Entry>()
        + std::mem::size_of::<u64>()
}

#[derive(Default)]
struct Entries {
    by_key: HashMap<Key, Entry>,
    /// Keys by when they were last used, the least recent first.
    by_use: BTreeMap<u64, Key>,
    bytes: usize,
    clock: u64,
}

impl Entries {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn remove(&mut self, key: &Key) {
        if let Some(entry) = self.by_key.remove(key) {
            self.by_use.remove(&entry.last_used);
            self.bytes -= entry.bytes;
        }
    }

    fn forget_least_recent(&mut self) {
        if let Some((_, key)) = self.by_use.pop_first() {
            if let Some(entry) = self.by_key.remove(&key) {
                self.bytes -= entry.bytes;
            }
        }
    }
}

/// At most `games` games' states taking at most `bytes` in all, the least recently used
/// forgotten first.
pub struct FoldCache {
    games: usize,
    bytes: usize,
    entries: Mutex<Entries>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// How the cache has been used since start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoldCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub games: usize,
    /// What the cached states take (each table's [`Table::memory_bytes`] and the cache's own
    /// bookkeeping; not the allocator's overhead).
    pub bytes: usize,
}

impl FoldCache {
    /// A cache of at most `games` games and `bytes` bytes (either 0 turns it off).
    pub fn new(games: usize, bytes: usize) -> FoldCache {
        FoldCache {
            games,
            bytes,
            entries: Mutex::new(Entries::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
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
        let entries = &mut *guard;
        let now = entries.tick();
        let found = match entries.by_key.get_mut(&key) {
            Some(entry) if entry.seq <= at_most => {
                entries.by_use.remove(&entry.last_used);
                entry.last_used = now;
                let copy = (entry.seq, entry.table.clone_table());
                entries.by_use.insert(now, key);
                Some(copy)
            }
            _ => None,
        };
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps a copy of `table`, the fold of the game's first `seq` committed events, unless
    /// a later one is kept already or it alone would exceed the bound.
    pub fn put(&self, game_id: &str, rules_version: u32, seq: i64, table: &dyn Table) {
        if self.games == 0 || self.bytes == 0 {
            return;
        }
        let key = Key {
            game_id: game_id.to_owned(),
            rules_version,
        };
        if self
            .lock()
            .by_key
            .get(&key)
            .is_some_and(|entry| entry.seq >= seq)
        {
            return;
        }
        // Copied and measured outside the lock; a clone holds no spare capacity, so it is
        // what the cache keeps that is measured.
        let table = table.clone_table();
        let bytes = table.memory_bytes() + overhead(&key);
        if bytes > self.bytes {
            return;
        }
        let mut guard = self.lock();
        let entries = &mut *guard;
        if entries
            .by_key
            .get(&key)
            .is_some_and(|entry| entry.seq >= seq)
        {
            return;
        }
        entries.remove(&key);
        while (entries.by_key.len() >= self.games || entries.bytes + bytes > self.bytes)
            && !entries.by_use.is_empty()
        {
            entries.forget_least_recent();
        }
        let now = entries.tick();
        entries.by_use.insert(now, key.clone());
        entries.bytes += bytes;
        entries.by_key.insert(
            key,
            Entry {
                seq,
                table,
                bytes,
                last_used: now,
            },
        );
    }

    pub fn stats(&self) -> FoldCacheStats {
        let entries = self.lock();
        FoldCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            games: entries.by_key.len(),
            bytes: entries.bytes,
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
        let cache = FoldCache::new(2, usize::MAX);
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
    fn the_cache_stays_within_its_bytes_and_counts_them() {
        let one = table().clone_table().memory_bytes()
            + overhead(&Key {
                game_id: "a".to_owned(),
                rules_version: 1,
            });
        let cache = FoldCache::new(100, 2 * one + one / 2);
        cache.put("a", 1, 1, table().as_ref());
        cache.put("b", 1, 1, table().as_ref());
        assert_eq!(cache.stats().bytes, 2 * one);
        assert!(cache.get("a", 1, 10).is_some());
        cache.put("c", 1, 1, table().as_ref());
        let stats = cache.stats();
        assert_eq!((stats.games, stats.bytes), (2, 2 * one), "{stats:?}");
        assert!(cache.get("b", 1, 10).is_none(), "b was the least recent");
        cache.put("a", 1, 2, table().as_ref());
        assert_eq!(cache.stats().bytes, 2 * one, "a replaced, not added");

        let too_small = FoldCache::new(100, one - 1);
        too_small.put("a", 1, 1, table().as_ref());
        assert_eq!(too_small.stats().games, 0, "a state over the whole bound");
    }

    #[test]
    fn a_cache_of_no_games_keeps_nothing() {
        let cache = FoldCache::new(0, usize::MAX);
        cache.put("a", 1, 5, table().as_ref());
        assert!(cache.get("a", 1, 10).is_none());
        assert_eq!(cache.stats().games, 0);
    }
}
