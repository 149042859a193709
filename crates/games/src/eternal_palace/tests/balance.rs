//! The decided numbers make the game the issue asks for: with simple greedy players a 3-4
//! player game lasts about 8-12 rounds and is won with about 15-20 VP.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::start;
use crate::engine::Engine;
use crate::eternal_palace::action::Action;
use crate::eternal_palace::data::data;
use crate::eternal_palace::state::State;
use crate::eternal_palace::EternalPalace;

/// A rough worth of a seat's position, for one-step lookahead.
fn worth(state: &State, seat: u8) -> f64 {
    let p = &state.players[seat as usize];
    let s = p.stock;
    let track: f64 = p.tracks.iter().map(|t| *t as f64).sum();
    let monuments = state
        .monument_owners
        .iter()
        .filter(|o| **o == Some(seat))
        .count() as f64;
    p.layers.len() as f64 * 10.0
        + p.decorations as f64 * 4.0
        + track * 2.5
        + p.marks.len() as f64 * 3.0
        + p.palace as f64 * 1.5
        + monuments * 2.0
        + p.advisors.len() as f64
        + (s.wood + s.stone + s.kaolin + s.bronze) as f64 * 0.6
        + s.wisdom as f64 * 0.5
        + s.fish as f64 * 0.4
}

fn greedy_choice(state: &State, seat: u8, legal: &[Action], rng: &mut ChaCha8Rng) -> Action {
    if let Some(Action::GroupDice { .. }) = legal.first() {
        let two_or_three: Vec<&Action> = legal
            .iter()
            .filter(
                |a| matches!(a, Action::GroupDice { groups } if (2..=3).contains(&groups.len())),
            )
            .collect();
        return match two_or_three.choose(rng) {
            Some(a) => (*a).clone(),
            None => legal
                .choose(rng)
                .cloned()
                .unwrap_or_else(|| legal[0].clone()),
        };
    }
    let mut best = (f64::MIN, legal[0].clone());
    for action in legal {
        let mut probe = ChaCha8Rng::seed_from_u64(1);
        let Ok(events) = EternalPalace::decide(state, seat, action, &mut probe) else {
            panic!("legal {action:?} refused");
        };
        let mut next = state.clone();
        for e in &events {
            EternalPalace::evolve(&mut next, e);
        }
        let value = worth(&next, seat) + rng.gen::<f64>() * 0.5;
        if value > best.0 {
            best = (value, action.clone());
        }
    }
    best.1
}

/// Average rounds and average winning score of greedy games.
fn greedy_games(seats: u8, games: u64) -> (f64, f64) {
    let (mut rounds, mut winners) = (0u32, 0i32);
    for seed in 0..games {
        let (mut state, _, _) = start(seats, seed % 2 == 1, seed);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while EternalPalace::outcome(&state).is_none() {
            let acting = EternalPalace::to_act(&state);
            let seat = acting[rng.gen_range(0..acting.len())];
            let legal = EternalPalace::legal_actions(&state, seat);
            let action = greedy_choice(&state, seat, &legal, &mut rng);
            let events = EternalPalace::decide(&state, seat, &action, &mut rng)
                .unwrap_or_else(|e| panic!("{action:?} refused: {e}"));
            for e in &events {
                EternalPalace::evolve(&mut state, e);
            }
        }
        assert!(
            state
                .players
                .iter()
                .any(|p| p.layers.len() >= data().end.layers),
            "greedy games end by layers"
        );
        rounds += state.round;
        winners += EternalPalace::outcome(&state)
            .map(|o| o.scores.iter().copied().max().unwrap_or(0))
            .unwrap_or(0);
    }
    (rounds as f64 / games as f64, winners as f64 / games as f64)
}

#[test]
fn decided_numbers_give_eight_to_twelve_rounds_and_fifteen_to_twenty_points() {
    for seats in [3u8, 4] {
        let (rounds, score) = greedy_games(seats, 60);
        assert!(
            (8.0..=12.0).contains(&rounds),
            "{seats} players: {rounds} rounds"
        );
        assert!(
            (14.0..=20.0).contains(&score),
            "{seats} players: {score} VP"
        );
    }
}
