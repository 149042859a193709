//! The end of the game: each seat's Great Final Count, and the scores and places of the
//! final standing.

use super::event::PalaceCount;
use super::rules::board::{name, settlements, strengths};
use super::state::{self, JavaState};
use crate::engine::{Outcome, Seat};
use crate::kit::ranking::competition_places;

/// The final standing, once the game is over.
pub fn outcome(state: &JavaState) -> Option<Outcome> {
    if !matches!(state.phase, state::Phase::Finished) {
        return None;
    }
    let scores: Vec<i32> = state.players.iter().map(|p| p.score).collect();
    let places = competition_places(&scores);
    Some(Outcome { scores, places })
}

/// Every seat's score so far.
pub fn scores(state: &JavaState) -> Vec<i32> {
    state.players.iter().map(|player| player.score).collect()
}

/// Points of `seat`'s Great Final Count: full value where nobody is stronger, half where
/// exactly one other seat is stronger.
pub fn final_count(state: &JavaState, seat: Seat) -> (u16, Vec<PalaceCount>) {
    let towns = settlements(state);
    let mut total = 0u16;
    let mut counts = Vec::new();
    for palace in &state.palaces {
        let Some(city) = towns.of_space(palace.space) else {
            continue;
        };
        let ranks = strengths(state, &city.cells);
        let Some((_, mine)) = ranks.iter().find(|(s, _)| *s == seat) else {
            continue;
        };
        let stronger = ranks.iter().filter(|(_, h)| h > mine).count();
        let (rank, points) = match stronger {
            0 => (1, palace.value),
            1 => (2, palace.value / 2),
            _ => continue,
        };
        total += u16::from(points);
        counts.push(PalaceCount {
            palace: name(palace.space),
            value: palace.value,
            rank,
            points,
        });
    }
    (total, counts)
}
