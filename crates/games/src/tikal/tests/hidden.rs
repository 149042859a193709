//! `sample_hidden`: the undrawn hexes and the face-down treasure tokens re-drawn, and
//! nothing else.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::super::state::TikalState;
use super::super::{Tikal, TikalAction, TikalOptions};
use crate::engine::Seat;
use crate::kit::playout::{check_samples, Playout};

/// Every hex and treasure token not yet held as an open treasure, wherever it is.
fn material(state: &TikalState) -> Vec<String> {
    let mut items = state.draw_pile.clone();
    items.extend(state.treasure_pile.iter().cloned());
    items.extend(state.revealed.iter().cloned());
    items.extend(state.hand.iter().cloned());
    for hex in state.board.iter().flatten() {
        items.push(hex.tile.clone());
        items.extend(hex.tokens.iter().cloned());
    }
    items
}

/// The hidden parts: the draw pile, the treasure reserve and the tokens on each hex.
fn hidden(state: &TikalState) -> (Vec<String>, Vec<String>, Vec<Vec<String>>) {
    let tokens = state.board.iter().flatten().map(|hex| hex.tokens.clone());
    (
        state.draw_pile.clone(),
        state.treasure_pile.clone(),
        tokens.collect(),
    )
}

fn uniformly(_: &TikalState, _: Seat, legal: &[TikalAction], rng: &mut ChaCha8Rng) -> TikalAction {
    legal[rng.gen_range(0..legal.len())].clone()
}

#[test]
fn samples_redraw_the_hexes_and_tokens_nobody_sees() {
    let (mut hexes_differ, mut tokens_differ) = (0, 0);
    for auction in [false, true] {
        for seed in 0..3 {
            let runner = Playout::<Tikal>::new(TikalOptions { auction }, 3).fold_every(1_000);
            let mut position = 0;
            runner.run(seed, uniformly, |state, _| {
                position += 1;
                if position % 20 != 1 {
                    return;
                }
                for sample in check_samples::<Tikal>(state, 3, seed + position, material) {
                    let (real, drawn) = (hidden(state), hidden(&sample));
                    hexes_differ += usize::from(drawn.0 != real.0);
                    tokens_differ += usize::from((&drawn.1, &drawn.2) != (&real.1, &real.2));
                    let mut restored = sample.clone();
                    restored.draw_pile = state.draw_pile.clone();
                    restored.treasure_pile = state.treasure_pile.clone();
                    for (hex, real) in restored.board.iter_mut().zip(&state.board) {
                        if let (Some(hex), Some(real)) = (hex, real) {
                            hex.tokens = real.tokens.clone();
                        }
                    }
                    assert!(
                        restored == *state,
                        "seed {seed}: more than the secrets changed"
                    );
                }
            });
        }
    }
    assert!(hexes_differ > 0, "the draw pile is never re-drawn");
    assert!(tokens_differ > 0, "the treasure tokens are never re-drawn");
}
