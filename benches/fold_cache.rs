//! What 10,000 running games take in the fold cache: positions of every kind and seat count
//! at random points of random games, put in a cache as the server configures it by default,
//! then read back. Prints what the cache counts, what the process's resident memory grew by,
//! and the time of a hit, and exits non-zero if the counted bytes pass the default bound or
//! the resident growth passes the counted bytes by more than half.
//!
//! `cargo bench --bench fold_cache`.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use turnpost::config::Config;
use turnpost::games::{all_games, rng_for, Table};
use turnpost::service::fold_cache::{Fold, FoldCache};

/// The server's allocator, whose overhead is what the resident figure shows.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const GAMES: usize = 10_000;

fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

/// Game `index`: a kind and seat count in turn, after a random number of random actions.
fn position(index: usize, rng: &mut ChaCha8Rng) -> (&'static str, Box<dyn Table>) {
    let games = all_games();
    let rules = games[index % games.len()];
    let counts: Vec<u8> = rules.player_counts().collect();
    let seats = counts[index / games.len() % counts.len()];
    let options = rules.default_options();
    let version = rules.newest_rules_version();
    let mut table = rules.new_table(&options, seats, version).expect("a table");
    let seed = [index as u8; 32];
    for event in rules
        .setup(&options, seats, version, None, &mut rng_for(seed, 0))
        .expect("set-up")
    {
        table
            .apply(&event.payload.to_string(), rules.event_schema_version())
            .expect("an opening event");
    }
    let actions = rng.gen_range(0..600);
    table.play_randomly(actions, rng);
    (rules.kind(), table)
}

fn main() {
    let config = Config::defaults();
    let bound = config.fold_cache_mib << 20;
    let cache = FoldCache::new(config.fold_cache_games, bound);
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let positions: Vec<_> = (0..GAMES).map(|index| position(index, &mut rng)).collect();
    let before = resident_kib();
    let started = Instant::now();
    for (index, (_, table)) in positions.iter().enumerate() {
        // A copy, so that what the cache holds is what the resident memory grows by.
        cache.put(
            &format!("game{index:05}"),
            1,
            &Fold::new(1, table.clone_table()),
        );
    }
    let put = started.elapsed() / GAMES as u32;
    let grown_kib = resident_kib().saturating_sub(before);
    let started = Instant::now();
    for index in 0..GAMES {
        assert!(cache.get(&format!("game{index:05}"), 1, 1).is_some());
    }
    let hit = started.elapsed() / GAMES as u32;
    let stats = cache.stats();
    for kind in all_games().iter().map(|rules| rules.kind()) {
        let sizes: Vec<usize> = positions
            .iter()
            .filter(|(of, _)| *of == kind)
            .map(|(_, table)| table.clone_table().memory_bytes())
            .collect();
        let mean = sizes.iter().sum::<usize>() / sizes.len().max(1);
        let most = sizes.iter().copied().max().unwrap_or(0);
        println!(
            "{kind:<16} {} positions, {:.1} KiB on average, {:.1} KiB at most",
            sizes.len(),
            mean as f64 / 1024.0,
            most as f64 / 1024.0
        );
    }
    let counted_mib = stats.bytes as f64 / f64::from(1 << 20);
    let resident_mib = grown_kib as f64 / 1024.0;
    println!(
        "{} games cached: {counted_mib:.1} MiB counted (bound {} MiB), resident memory grew \
         {resident_mib:.1} MiB; put {put:?}, hit {hit:?} per game",
        stats.games, config.fold_cache_mib
    );
    let mut missed = Vec::new();
    if stats.games != GAMES {
        missed.push(format!("only {} of {GAMES} games cached", stats.games));
    }
    if stats.bytes > bound {
        missed.push("the counted bytes pass the bound".to_owned());
    }
    if resident_mib > counted_mib * 1.5 {
        missed.push("resident memory grew by more than 1.5 times the counted bytes".to_owned());
    }
    if !missed.is_empty() {
        eprintln!("missed: {}", missed.join("; "));
        std::process::exit(1);
    }
}
