//! Speed and size of every engine on whole random games, against the targets a request
//! needs: the server folds a game's whole log on every request, so folding must stay far
//! below a request's budget.
//!
//! `cargo bench --bench engines` prints one row per game kind and exits non-zero if a
//! target is missed. Targets (per operation, on one core of the reference machine):
//! fold of a whole finished game < 50 ms, legal actions < 10 ms, a view < 5 ms,
//! a finished game's state < 256 KiB as JSON. It also prints, with no target, the most memory
//! a table took at any position of the played games (`Table::memory_bytes`: the state and the
//! heap buffers it owns), and what the server spends once per fold and seat: the legal actions
//! and the view written as JSON (`legal_actions_json`, `view_json`), per call and their
//! average size.

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use turnpost_games::engine::Viewer;
use turnpost_games::{all_games, rng_for, GameRules, Table};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const GAMES_PER_KIND: u64 = 20;
const FOLD_TARGET: Duration = Duration::from_millis(50);
const LEGAL_TARGET: Duration = Duration::from_millis(10);
const VIEW_TARGET: Duration = Duration::from_millis(5);
const STATE_BYTES_TARGET: usize = 256 * 1024;

struct Measured {
    events: usize,
    fold: Duration,
    legal: Duration,
    legal_calls: u32,
    view: Duration,
    view_calls: u32,
    /// `legal_actions_json` and `view_json`, as the server writes them once per fold.
    legal_json: Duration,
    legal_json_bytes: usize,
    view_json: Duration,
    view_json_bytes: usize,
    state_bytes: usize,
    /// The most `Table::memory_bytes` of any position.
    memory_bytes: usize,
}

/// Plays one random game to its end; returns its log as stored payloads.
fn play(rules: &dyn GameRules, seats: u8, seed: u64, measured: &mut Measured) -> Vec<String> {
    let options = rules.default_options();
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut log: Vec<String> = rules
        .setup(
            &options,
            seats,
            rules.newest_rules_version(),
            Some(&turnpost_games::seed_commitment(&seed_bytes)),
            &mut rng_for(seed_bytes, 0),
        )
        .expect("setup")
        .into_iter()
        .map(|event| event.payload.to_string())
        .collect();
    let mut table = rules
        .new_table(&options, seats, rules.newest_rules_version())
        .expect("table");
    for payload in &log {
        table
            .apply(payload, rules.event_schema_version())
            .expect("apply");
    }
    measured.memory_bytes = measured.memory_bytes.max(table.memory_bytes());
    let mut chooser = ChaCha8Rng::seed_from_u64(seed);
    while table.outcome().is_none() {
        let to_act = table.to_act();
        let seat = to_act[chooser.gen_range(0..to_act.len())];
        let started = Instant::now();
        let actions: Vec<Value> = table.legal_actions(seat);
        measured.legal += started.elapsed();
        measured.legal_calls += 1;
        let started = Instant::now();
        std::hint::black_box(table.view(Viewer::Seat(seat)));
        measured.view += started.elapsed();
        measured.view_calls += 1;
        let started = Instant::now();
        let json = std::hint::black_box(table.legal_actions_json(seat));
        measured.legal_json += started.elapsed();
        measured.legal_json_bytes += json.get().len();
        let started = Instant::now();
        let json = std::hint::black_box(table.view_json(Viewer::Seat(seat)));
        measured.view_json += started.elapsed();
        measured.view_json_bytes += json.get().len();
        let action = &actions[chooser.gen_range(0..actions.len())];
        let (_, events) = table
            .decide(seat, action, &mut rng_for(seed_bytes, log.len() as u64 + 1))
            .expect("a listed action is accepted");
        for event in events {
            let payload = event.payload.to_string();
            table
                .apply(&payload, rules.event_schema_version())
                .expect("apply");
            log.push(payload);
        }
        measured.memory_bytes = measured.memory_bytes.max(table.memory_bytes());
    }
    measured.state_bytes = measured
        .state_bytes
        .max(table.state_json().to_string().len());
    log
}

fn fold(rules: &dyn GameRules, seats: u8, log: &[String]) -> Box<dyn Table> {
    let mut table = rules
        .new_table(
            &rules.default_options(),
            seats,
            rules.newest_rules_version(),
        )
        .expect("table");
    for payload in log {
        table
            .apply(payload, rules.event_schema_version())
            .expect("apply");
    }
    table
}

fn main() {
    let mut missed = Vec::new();
    println!(
        "{:<16} {:>5} {:>8} {:>12} {:>12} {:>10} {:>11} {:>11} {:>18} {:>18}",
        "kind",
        "seats",
        "events",
        "fold/game",
        "legal/call",
        "view/call",
        "state KiB",
        "memory KiB",
        "legal JSON/call",
        "view JSON/call"
    );
    for rules in all_games() {
        let seats = (*rules.player_counts().start())
            .max(3)
            .min(*rules.player_counts().end());
        let mut measured = Measured {
            events: 0,
            fold: Duration::ZERO,
            legal: Duration::ZERO,
            legal_calls: 0,
            view: Duration::ZERO,
            view_calls: 0,
            legal_json: Duration::ZERO,
            legal_json_bytes: 0,
            view_json: Duration::ZERO,
            view_json_bytes: 0,
            state_bytes: 0,
            memory_bytes: 0,
        };
        let mut worst_fold = Duration::ZERO;
        for seed in 0..GAMES_PER_KIND {
            let log = play(*rules, seats, seed, &mut measured);
            measured.events += log.len();
            let started = Instant::now();
            std::hint::black_box(fold(*rules, seats, &log));
            let elapsed = started.elapsed();
            measured.fold += elapsed;
            worst_fold = worst_fold.max(elapsed);
        }
        let legal = measured.legal / measured.legal_calls.max(1);
        let view = measured.view / measured.view_calls.max(1);
        let calls = measured.legal_calls.max(1);
        let written = |time: Duration, bytes: usize| {
            format!(
                "{:.2?} {:.1}K",
                time / calls,
                bytes as f64 / f64::from(calls) / 1024.0
            )
        };
        println!(
            "{:<16} {:>5} {:>8} {:>12.2?} {:>12.2?} {:>10.2?} {:>11.1} {:>11.1} {:>18} {:>18}",
            rules.kind(),
            seats,
            measured.events / GAMES_PER_KIND as usize,
            measured.fold / GAMES_PER_KIND as u32,
            legal,
            view,
            measured.state_bytes as f64 / 1024.0,
            measured.memory_bytes as f64 / 1024.0,
            written(measured.legal_json, measured.legal_json_bytes),
            written(measured.view_json, measured.view_json_bytes)
        );
        if worst_fold > FOLD_TARGET {
            missed.push(format!(
                "{}: fold {worst_fold:?} > {FOLD_TARGET:?}",
                rules.kind()
            ));
        }
        if legal > LEGAL_TARGET {
            missed.push(format!(
                "{}: legal actions {legal:?} > {LEGAL_TARGET:?}",
                rules.kind()
            ));
        }
        if view > VIEW_TARGET {
            missed.push(format!("{}: view {view:?} > {VIEW_TARGET:?}", rules.kind()));
        }
        if measured.state_bytes > STATE_BYTES_TARGET {
            missed.push(format!(
                "{}: state {} bytes",
                rules.kind(),
                measured.state_bytes
            ));
        }
    }
    if !missed.is_empty() {
        eprintln!("targets missed:\n  {}", missed.join("\n  "));
        std::process::exit(1);
    }
    println!("all targets met");
}
