//! What a seat cannot see, re-drawn at random: [`crate::engine::Engine::sample_hidden`].

use rand::seq::SliceRandom;
use rand::RngCore;

use super::event::Card;
use super::state::JavaState;
use crate::engine::Seat;

/// `state` as `seat` might imagine it: the palace cards it cannot see (the face-down deck
/// and the other seats' hand cards that were not taken face up) dealt anew among those
/// places. Every card keeps its id and symbols; the view shows only the deck's size and how
/// many cards each hand holds.
pub fn sample_hidden(state: &JavaState, seat: Seat, rng: &mut dyn RngCore) -> JavaState {
    let mut sample = state.clone();
    let mut cards: Vec<Card> = sample.deck.clone();
    for (other, player) in sample.players.iter().enumerate() {
        if other != usize::from(seat) {
            let hidden = player.hand.iter().filter(|held| !held.public);
            cards.extend(hidden.map(|held| held.card.clone()));
        }
    }
    cards.shuffle(rng);
    let mut cards = cards.into_iter();
    let mut slots: Vec<&mut Card> = sample.deck.iter_mut().collect();
    for (other, player) in sample.players.iter_mut().enumerate() {
        if other != usize::from(seat) {
            let hidden = player.hand.iter_mut().filter(|held| !held.public);
            slots.extend(hidden.map(|held| &mut held.card));
        }
    }
    for (slot, card) in slots.into_iter().zip(&mut cards) {
        *slot = card;
    }
    sample
}
