//! Final scoring: layers, decorations, monuments, prize tokens, imperial seals, places; and
//! the outcome and scores read from the sheets.

use super::data::data;
use super::event::ScoreSheet;
use super::state::State;
use crate::engine::{Outcome, Seat};
use crate::kit::ranking::places_splitting_ties;

/// Longest run of consecutive numbered layers, as (length, highest number).
pub fn best_run(layers: &[String]) -> (u32, u32) {
    let mut numbers: Vec<u32> = layers.iter().filter_map(|l| l.parse().ok()).collect();
    numbers.sort_unstable();
    numbers.dedup();
    let mut best = (0, 0);
    let mut run = 0;
    let mut prev: Option<u32> = None;
    for n in numbers {
        run = match prev {
            Some(p) if p + 1 == n => run + 1,
            _ => 1,
        };
        if (run, n) > best {
            best = (run, n);
        }
        prev = Some(n);
    }
    best
}

/// The final score sheets (places included) and the winner of the sequence prize.
pub fn final_scores(state: &State) -> (Vec<ScoreSheet>, Option<Seat>) {
    let d = data();
    let n = state.seats as usize;
    let runs: Vec<(u32, u32)> = state.players.iter().map(|p| best_run(&p.layers)).collect();
    let best = runs.iter().copied().max().unwrap_or((0, 0));
    let sequence = if best.0 > 0 && runs.iter().filter(|r| **r == best).count() == 1 {
        runs.iter().position(|r| *r == best).map(|i| i as Seat)
    } else {
        None
    };
    let top = state.players.iter().map(|p| p.palace).max().unwrap_or(0);
    let leaders = state.players.iter().filter(|p| p.palace == top).count();
    let second = state
        .players
        .iter()
        .map(|p| p.palace)
        .filter(|pos| *pos < top)
        .max();
    let mut sheets: Vec<ScoreSheet> = (0..n)
        .map(|i| {
            let p = &state.players[i];
            let seat = i as Seat;
            let seals = if p.palace == top {
                d.scoring.seals_first
            } else if leaders == 1 && Some(p.palace) == second {
                d.scoring.seals_second
            } else {
                0
            };
            let monuments = state
                .monument_owners
                .iter()
                .filter(|o| **o == Some(seat))
                .count() as i32;
            let completion = if state.completion == Some(seat) {
                d.scoring.completion
            } else {
                0
            };
            let sequence_points = if sequence == Some(seat) {
                d.scoring.sequence
            } else {
                0
            };
            let layers = p.layers.len() as i32;
            let composition_seals: i32 = p
                .compositions
                .iter()
                .filter_map(|c| d.composition(c))
                .map(|c| c.seals * d.compositions.seal_points)
                .sum();
            ScoreSheet {
                seat,
                layers,
                decorations: p.decorations,
                monuments,
                completion,
                sequence: sequence_points,
                seals,
                composition_seals,
                total: layers
                    + p.decorations
                    + monuments
                    + completion
                    + sequence_points
                    + seals
                    + composition_seals,
                place: 0,
            }
        })
        .collect();
    let places = places(state, &sheets);
    for (sheet, place) in sheets.iter_mut().zip(places) {
        sheet.place = place;
    }
    (sheets, sequence)
}

/// Places by total; equal totals are split by the highest layer number that only one of
/// the tied seats holds (repeatedly); seats that cannot be split share a place.
fn places(state: &State, sheets: &[ScoreSheet]) -> Vec<u8> {
    let totals: Vec<i32> = sheets.iter().map(|s| s.total).collect();
    places_splitting_ties(&totals, |tied| sole_highest(state, tied))
}

/// Among `tied`, the seat holding the highest layer number that no other tied seat holds.
fn sole_highest(state: &State, tied: &[usize]) -> Option<usize> {
    if tied.len() == 1 {
        return tied.first().copied();
    }
    for number in (1..=12u32).rev() {
        let key = number.to_string();
        let holders: Vec<usize> = tied
            .iter()
            .copied()
            .filter(|i| state.players[*i].layers.contains(&key))
            .collect();
        if holders.len() == 1 {
            return holders.first().copied();
        }
    }
    None
}

/// The final standing, once the game is over.
pub fn outcome(state: &State) -> Option<Outcome> {
    let sheets = state.result.as_ref()?;
    Some(Outcome {
        scores: sheets.iter().map(|s| s.total).collect(),
        places: sheets.iter().map(|s| s.place).collect(),
    })
}

/// Every seat's score: the final sheets' totals, or what the final scoring would give now.
pub fn scores(state: &State) -> Vec<i32> {
    match &state.result {
        Some(sheets) => sheets.iter().map(|sheet| sheet.total).collect(),
        None => final_scores(state)
            .0
            .iter()
            .map(|sheet| sheet.total)
            .collect(),
    }
}
