//! How much better the Monte Carlo bot plays than the random one, and what a move costs.
//!
//! `cargo bench -p turnpost-games --bench bots [games per row] [kind...]` plays, for every game kind
//! and seat count, games with one `playouts` bot among `random` ones, the strong seat
//! rotating through the table from game to game, and prints its win rate: its share of
//! first places, a first place shared by k seats counting 1/k (a random seat's expectation
//! is 1/seats). Also the actions a game took (all seats), the mean wall-clock time of a
//! strong move (measured here, outside the pure crate) and the simulated actions one is
//! allowed.

use std::time::{Duration, Instant};

use turnpost_games::all_games;
use turnpost_games::bots::{choose_action, play_bot_game, BotStrategy, PlayoutBudget};

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = arguments
        .iter()
        .find_map(|argument| argument.parse().ok())
        .unwrap_or(20);
    // Any other argument names the kinds to play (all when none is named).
    let kinds: Vec<&String> = arguments
        .iter()
        .filter(|argument| argument.parse::<u64>().is_err() && !argument.starts_with('-'))
        .collect();
    let budget = PlayoutBudget::DEFAULT;
    println!(
        "budget per strong move: {} simulated actions, at most {} candidates, playouts cut \
         at {} actions",
        budget.simulated_actions, budget.candidates, budget.depth
    );
    println!(
        "{:<16} {:>5} {:>6} {:>9} {:>9} {:>12} {:>12} {:>12} {:>12}",
        "kind",
        "seats",
        "games",
        "win rate",
        "expected",
        "actions/game",
        "strong moves",
        "ms/move",
        "max ms/move"
    );
    let chosen = all_games()
        .iter()
        .filter(|rules| kinds.is_empty() || kinds.iter().any(|kind| *kind == rules.kind()));
    for rules in chosen {
        for seats in rules.player_counts() {
            let mut wins = 0.0;
            let mut moves = 0u32;
            let mut actions = 0u64;
            let mut thinking = Duration::ZERO;
            let mut slowest = Duration::ZERO;
            for game in 0..games {
                let strong = (game % u64::from(seats)) as usize;
                let mut lineup = vec![BotStrategy::Random; usize::from(seats)];
                lineup[strong] = BotStrategy::Playouts;
                let mut seed = [0u8; 32];
                seed[..8].copy_from_slice(&game.to_le_bytes());
                seed[8] = seats;
                let (outcome, _) = play_bot_game(
                    *rules,
                    seats,
                    seed,
                    &lineup,
                    |strategy, table, seat, rng| {
                        actions += 1;
                        if strategy == BotStrategy::Random {
                            return choose_action(strategy, *rules, table, seat, rng);
                        }
                        let started = Instant::now();
                        let action = choose_action(strategy, *rules, table, seat, rng);
                        let elapsed = started.elapsed();
                        thinking += elapsed;
                        slowest = slowest.max(elapsed);
                        moves += 1;
                        action
                    },
                )
                .unwrap_or_else(|error| panic!("{} at {seats}: {error}", rules.kind()));
                if outcome.places[strong] == 1 {
                    let firsts = outcome.places.iter().filter(|&&place| place == 1).count();
                    wins += 1.0 / firsts as f64;
                }
            }
            println!(
                "{:<16} {:>5} {:>6} {:>8.0}% {:>8.0}% {:>12} {:>12} {:>12.1} {:>12.1}",
                rules.kind(),
                seats,
                games,
                100.0 * wins / games as f64,
                100.0 / f64::from(seats),
                actions / games.max(1),
                moves,
                thinking.as_secs_f64() * 1000.0 / f64::from(moves.max(1)),
                slowest.as_secs_f64() * 1000.0
            );
        }
    }
}
