//! The end of the game: the scores and places of the final standing.

use super::state::TikalState;
use crate::engine::Outcome;
use crate::kit::ranking::competition_places;

pub fn outcome(state: &TikalState) -> Option<Outcome> {
    state.is_finished().then(|| final_standing(state))
}

pub fn final_standing(state: &TikalState) -> Outcome {
    let scores: Vec<i32> = state.players.iter().map(|p| p.score).collect();
    let places = competition_places(&scores);
    Outcome { scores, places }
}

/// Every seat's score so far.
pub fn scores(state: &TikalState) -> Vec<i32> {
    state.players.iter().map(|player| player.score).collect()
}
