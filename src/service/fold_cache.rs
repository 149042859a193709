//! Folded states kept between requests, so that a read late in a long game folds only the
//! events it has not seen instead of the whole log.
//!
//! An entry is the fold of a game's first `seq` events under its rules version. The log is
//! append-only and a committed event never changes, so an entry stays exactly the fold of
//! the stored log at that seq forever, whichever instance appended the events. Readers at
//! the entry's seq share it; a reader that wants a later seq, or must fold on (an action),
//! takes a copy and applies the events after it from the database. Only folds of committed
//! events are put in.
//!
//! What depends only on the fold and a seat or viewer (the legal actions, the view) is
//! written as JSON once per entry and handed to every reader of it, counted in the bound.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;

use crate::games::engine::{Seat, Viewer};
use crate::games::Table;

/// The fold of a game's first `seq` committed events. Shared, never changed: a reader that
/// must go on from it folds into its own copy ([`Fold::into_table`]).
pub struct Fold {
    pub seq: i64,
    pub table: Box<dyn Table>,
}

impl Fold {
    pub fn new(seq: i64, table: Box<dyn Table>) -> Arc<Fold> {
        Arc::new(Fold { seq, table })
    }

    /// The table to fold on: this one when nobody else holds the fold, a copy otherwise.
    pub fn into_table(fold: Arc<Fold>) -> Box<dyn Table> {
        match Arc::try_unwrap(fold) {
            Ok(fold) => fold.table,
            Err(shared) => shared.table.clone_table(),
        }
    }
}

/// What is written from a fold for its readers. Each depends only on the game, the seq and
/// the seat or viewer, so it is written once per fold and handed to every reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rendering {
    LegalActions(Seat),
    View(Viewer),
}

/// JSON written from a fold, shared by its readers. The engine writes it into a `Box`, which
/// the `Arc` takes over as it is: an `Arc<RawValue>` would copy the text (Java's opening
/// legal actions are 190 KB).
pub type SharedJson = Arc<Box<RawValue>>;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    game_id: String,
    rules_version: u32,
}

struct Entry {
    fold: Arc<Fold>,
    /// JSON written from the fold, by what it is.
    rendered: Vec<(Rendering, SharedJson)>,
    /// What the entry takes: the table's own count, the renderings, the key and the maps'
    /// slots.
    bytes: usize,
    last_used: u64,
}

/// What an entry costs besides its table: its key's text and its slots in both maps.
fn overhead(key: &Key) -> usize {
    key.game_id.capacity()
        + 2 * std::mem::size_of::<Key>()
        + std::mem::size_of::<Entry>()
        + std::mem::size_of::<Fold>()
        + std::mem::size_of::<u64>()
}

/// The text, its slot in the entry and the `Arc`'s allocation (two counts and the `Box`).
fn rendering_bytes(json: &RawValue) -> usize {
    json.get().len()
        + std::mem::size_of::<(Rendering, SharedJson)>()
        + std::mem::size_of::<(usize, usize, Box<RawValue>)>()
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

    /// The entry taken out, for the caller to drop once it has let go of the lock: freeing a
    /// state and its renderings takes long enough to hold up every other reader.
    fn remove(&mut self, key: &Key) -> Option<Entry> {
        let entry = self.by_key.remove(key)?;
        self.by_use.remove(&entry.last_used);
        self.bytes -= entry.bytes;
        Some(entry)
    }

    /// Forgets the least recently used entries other than `keep` until `more` bytes fit
    /// under `bound` and there is room for another game under `games`; returns them, to be
    /// dropped outside the lock.
    #[must_use]
    fn make_room(
        &mut self,
        games: usize,
        bound: usize,
        more: usize,
        keep: Option<&Key>,
    ) -> Vec<Entry> {
        let mut uses = self.by_use.iter();
        let mut doomed = Vec::new();
        let mut bytes = self.bytes;
        let mut count = self.by_key.len();
        while count >= games || bytes + more > bound {
            let Some((_, key)) = uses.next() else { break };
            if Some(key) == keep {
                continue;
            }
            if let Some(entry) = self.by_key.get(key) {
                bytes -= entry.bytes;
                count -= 1;
                doomed.push(key.clone());
            }
        }
        doomed.iter().filter_map(|key| self.remove(key)).collect()
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
    /// What the cached states take (each table's [`Table::memory_bytes`], the JSON written
    /// from them and the cache's own bookkeeping; not the allocator's overhead).
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

    fn key(game_id: &str, rules_version: u32) -> Key {
        Key {
            game_id: game_id.to_owned(),
            rules_version,
        }
    }

    /// The cached fold of the game, shared, if it is at or before `at_most`.
    pub fn get(&self, game_id: &str, rules_version: u32, at_most: i64) -> Option<Arc<Fold>> {
        let key = FoldCache::key(game_id, rules_version);
        let mut guard = self.lock();
        let entries = &mut *guard;
        let now = entries.tick();
        let found = match entries.by_key.get_mut(&key) {
            Some(entry) if entry.fold.seq <= at_most => {
                entries.by_use.remove(&entry.last_used);
                entry.last_used = now;
                let fold = entry.fold.clone();
                entries.by_use.insert(now, key);
                Some(fold)
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

    /// Keeps `fold`, a fold of the game's committed events, unless a later one is kept
    /// already or it alone would exceed the bound.
    pub fn put(&self, game_id: &str, rules_version: u32, fold: &Arc<Fold>) {
        if self.games == 0 || self.bytes == 0 {
            return;
        }
        let key = FoldCache::key(game_id, rules_version);
        // Measured outside the lock.
        let bytes = fold.table.memory_bytes() + overhead(&key);
        if bytes > self.bytes {
            return;
        }
        let mut guard = self.lock();
        let entries = &mut *guard;
        if entries
            .by_key
            .get(&key)
            .is_some_and(|entry| entry.fold.seq >= fold.seq)
        {
            return;
        }
        let replaced = entries.remove(&key);
        let evicted = entries.make_room(self.games, self.bytes, bytes, None);
        let now = entries.tick();
        entries.by_use.insert(now, key.clone());
        entries.bytes += bytes;
        entries.by_key.insert(
            key,
            Entry {
                fold: fold.clone(),
                rendered: Vec::new(),
                bytes,
                last_used: now,
            },
        );
        drop(guard);
        drop((replaced, evicted));
    }

    /// `what`, written from `fold` by `render`: once while the fold is the game's cached
    /// one, and then handed out again to every reader of that fold.
    pub fn rendered(
        &self,
        game_id: &str,
        rules_version: u32,
        fold: &Arc<Fold>,
        what: Rendering,
        render: impl FnOnce(&dyn Table) -> Box<RawValue>,
    ) -> SharedJson {
        let key = FoldCache::key(game_id, rules_version);
        let is_this_fold = |entry: &Entry| Arc::ptr_eq(&entry.fold, fold);
        if let Some(json) = self.lock().by_key.get(&key).and_then(|entry| {
            is_this_fold(entry)
                .then(|| entry.rendered.iter().find(|(kind, _)| *kind == what))
                .flatten()
                .map(|(_, json)| json.clone())
        }) {
            return json;
        }
        let json = Arc::new(render(fold.table.as_ref()));
        self.keep_rendering(&key, fold, what, &json);
        json
    }

    /// Keeps `json`, written from `fold`, with the fold's entry if that is still the cached
    /// one and the bound leaves room.
    fn keep_rendering(&self, key: &Key, fold: &Arc<Fold>, what: Rendering, json: &SharedJson) {
        let more = rendering_bytes(json);
        let mut guard = self.lock();
        let entries = &mut *guard;
        let Some(entry) = entries.by_key.get(key) else {
            return;
        };
        if !Arc::ptr_eq(&entry.fold, fold)
            || entry.rendered.iter().any(|(kind, _)| *kind == what)
            || entry.bytes + more > self.bytes
        {
            return;
        }
        let evicted = entries.make_room(usize::MAX, self.bytes, more, Some(key));
        if let Some(entry) = entries.by_key.get_mut(key) {
            entry.rendered.push((what, json.clone()));
            entry.bytes += more;
            entries.bytes += more;
        }
        drop(guard);
        drop(evicted);
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

    fn fold(seq: i64) -> Arc<Fold> {
        Fold::new(seq, table())
    }

    fn seq_of(found: Option<Arc<Fold>>) -> Option<i64> {
        found.map(|fold| fold.seq)
    }

    #[test]
    fn a_fold_is_served_at_or_after_its_seq_and_the_least_recent_goes_first() {
        let cache = FoldCache::new(2, usize::MAX);
        assert!(cache.get("a", 1, 10).is_none());
        cache.put("a", 1, &fold(5));
        assert_eq!(seq_of(cache.get("a", 1, 10)), Some(5));
        assert!(
            cache.get("a", 1, 4).is_none(),
            "not a fold past the wanted seq"
        );
        assert!(cache.get("a", 2, 10).is_none(), "another rules version");
        cache.put("a", 1, &fold(3));
        assert_eq!(seq_of(cache.get("a", 1, 10)), Some(5), "kept the later");
        cache.put("b", 1, &fold(1));
        assert!(cache.get("a", 1, 10).is_some());
        cache.put("c", 1, &fold(1));
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
    fn readers_share_one_fold() {
        let cache = FoldCache::new(2, usize::MAX);
        let kept = fold(5);
        cache.put("a", 1, &kept);
        let first = cache.get("a", 1, 5).unwrap();
        let second = cache.get("a", 1, 5).unwrap();
        assert!(Arc::ptr_eq(&first, &kept) && Arc::ptr_eq(&second, &kept));
    }

    fn one_entry() -> usize {
        table().memory_bytes()
            + overhead(&Key {
                game_id: "a".to_owned(),
                rules_version: 1,
            })
    }

    #[test]
    fn the_cache_stays_within_its_bytes_and_counts_them() {
        let one = one_entry();
        let cache = FoldCache::new(100, 2 * one + one / 2);
        cache.put("a", 1, &fold(1));
        cache.put("b", 1, &fold(1));
        assert_eq!(cache.stats().bytes, 2 * one);
        assert!(cache.get("a", 1, 10).is_some());
        cache.put("c", 1, &fold(1));
        let stats = cache.stats();
        assert_eq!((stats.games, stats.bytes), (2, 2 * one), "{stats:?}");
        assert!(cache.get("b", 1, 10).is_none(), "b was the least recent");
        cache.put("a", 1, &fold(2));
        assert_eq!(cache.stats().bytes, 2 * one, "a replaced, not added");

        let too_small = FoldCache::new(100, one - 1);
        too_small.put("a", 1, &fold(1));
        assert_eq!(too_small.stats().games, 0, "a state over the whole bound");
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn a_rendering_is_written_once_per_fold_and_counted() {
        let cache = FoldCache::new(10, usize::MAX);
        let kept = fold(5);
        cache.put("a", 1, &kept);
        let before = cache.stats().bytes;
        let what = Rendering::LegalActions(0);
        let mut written = 0;
        for _ in 0..3 {
            let json = cache.rendered("a", 1, &kept, what, |_| {
                written += 1;
                raw("[1,2,3]")
            });
            assert_eq!(json.get(), "[1,2,3]");
        }
        assert_eq!(written, 1, "written once, then shared");
        assert_eq!(
            cache.stats().bytes,
            before + rendering_bytes(&raw("[1,2,3]"))
        );
        let other_seat = cache.rendered("a", 1, &kept, Rendering::LegalActions(1), |_| raw("[]"));
        assert_eq!(other_seat.get(), "[]", "each seat its own");

        // A fold that is not the cached one (a past seq, or one replaced since) is written
        // for its reader and not kept.
        let past = fold(4);
        let mut past_written = 0;
        for _ in 0..2 {
            cache.rendered("a", 1, &past, what, |_| {
                past_written += 1;
                raw("[9]")
            });
        }
        assert_eq!(past_written, 2);
        let newer = fold(6);
        cache.put("a", 1, &newer);
        assert_eq!(
            cache.stats().bytes,
            before,
            "the renderings left with their fold"
        );
        assert_eq!(
            cache.rendered("a", 1, &newer, what, |_| raw("[4]")).get(),
            "[4]",
            "not the older fold's"
        );
    }

    #[test]
    fn renderings_stay_within_the_bound() {
        let one = one_entry();
        let big = "[".to_owned() + &"1,".repeat(one / 2) + "1]";
        let cache = FoldCache::new(10, 2 * one + one / 4);
        let a = fold(1);
        let b = fold(1);
        cache.put("a", 1, &a);
        cache.put("b", 1, &b);
        // Written for `b` (the most recent), it pushes `a` out.
        cache.rendered("b", 1, &b, Rendering::View(Viewer::Spectator), |_| {
            raw(&big)
        });
        let stats = cache.stats();
        assert!(stats.bytes <= 2 * one + one / 4, "{stats:?}");
        assert_eq!(stats.games, 1, "{stats:?}");
        assert!(cache.get("b", 1, 1).is_some() && cache.get("a", 1, 1).is_none());
        // Larger than the whole bound with its fold: handed out, not kept.
        let huge = "[".to_owned() + &"1,".repeat(2 * one) + "1]";
        let json = cache.rendered("b", 1, &b, Rendering::View(Viewer::Seat(0)), |_| raw(&huge));
        assert_eq!(json.get().len(), huge.len());
        assert!(cache.stats().bytes <= 2 * one + one / 4);
    }

    #[test]
    fn a_cache_of_no_games_keeps_nothing() {
        let cache = FoldCache::new(0, usize::MAX);
        cache.put("a", 1, &fold(5));
        assert!(cache.get("a", 1, 10).is_none());
        assert_eq!(cache.stats().games, 0);
    }
}
