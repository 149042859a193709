//! `sample_hidden`: the deck and the other seats' hidden hand cards re-dealt, and nothing
//! else.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::super::event::Card;
use super::super::state::JavaState;
use super::super::{Java, JavaAction, JavaOptions};
use crate::engine::Seat;
use crate::kit::playout::{check_samples, Playout};

/// Every palace card, wherever it is, as id and symbols.
fn material(state: &JavaState) -> Vec<String> {
    let mut cards: Vec<&Card> = state.deck.iter().collect();
    cards.extend(&state.discard);
    cards.extend(&state.face_up);
    for player in &state.players {
        cards.extend(player.hand.iter().map(|held| &held.card));
    }
    for bidder in state
        .festival()
        .iter()
        .flat_map(|festival| &festival.bidders)
    {
        cards.extend(&bidder.played);
    }
    cards
        .iter()
        .map(|card| format!("{} {:?}", card.id, card.symbols))
        .collect()
}

fn uniformly(_: &JavaState, _: Seat, legal: &[JavaAction], rng: &mut ChaCha8Rng) -> JavaAction {
    legal[rng.gen_range(0..legal.len())].clone()
}

#[test]
fn samples_redeal_the_cards_a_seat_cannot_see() {
    let (mut deck_differs, mut hands_differ) = (0, 0);
    for seats in [2, 4] {
        for seed in 0..2 {
            let runner = Playout::<Java>::new(JavaOptions::default(), seats).fold_every(1_000);
            let mut position = 0;
            runner.run(seed, uniformly, |state, _| {
                position += 1;
                if position % 40 != 1 {
                    return;
                }
                let samples = check_samples::<Java>(state, seats, seed + position, material);
                for (seat, sample) in samples.iter().enumerate() {
                    deck_differs += usize::from(sample.deck != state.deck);
                    let mut restored = sample.clone();
                    restored.deck = state.deck.clone();
                    for (other, player) in restored.players.iter_mut().enumerate() {
                        if other != seat && player.hand != state.players[other].hand {
                            hands_differ += 1;
                            player.hand = state.players[other].hand.clone();
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
    assert!(deck_differs > 0, "the deck is never re-drawn");
    assert!(hands_differ > 0, "other seats' hands are never re-drawn");
}
