//! What a seat cannot see, re-drawn at random: [`crate::engine::Engine::sample_hidden`].

use rand::seq::SliceRandom;
use rand::RngCore;

use super::data::data;
use super::state::TikalState;

/// `state` with everything nobody sees re-drawn: every seat sees the same in Tikal, so the
/// sample serves any seat. The undrawn hexes are shuffled within their stack (the view shows
/// how many of each stack letter are left, in drawing order), and the face-down treasure
/// tokens trade places between the reserve and the hexes (the view shows how many lie on
/// each hex and in the reserve, not which).
pub fn sample_hidden(state: &TikalState, rng: &mut dyn RngCore) -> TikalState {
    let mut sample = state.clone();
    let stack_of = |id: &str| data().tile(id).map(|tile| tile.stack);
    let mut start = 0;
    while start < sample.draw_pile.len() {
        let stack = stack_of(&sample.draw_pile[start]);
        let length = sample.draw_pile[start..]
            .iter()
            .take_while(|id| stack_of(id) == stack)
            .count();
        sample.draw_pile[start..start + length].shuffle(rng);
        start += length;
    }
    let mut tokens: Vec<String> = sample.treasure_pile.clone();
    for hex in sample.board.iter().flatten() {
        tokens.extend(hex.tokens.iter().cloned());
    }
    tokens.shuffle(rng);
    let mut tokens = tokens.into_iter();
    let slots = sample.treasure_pile.iter_mut().chain(
        sample
            .board
            .iter_mut()
            .flatten()
            .flat_map(|hex| hex.tokens.iter_mut()),
    );
    for (slot, token) in slots.zip(&mut tokens) {
        *slot = token;
    }
    sample
}
