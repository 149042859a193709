//! What a seat cannot see, re-drawn at random: [`crate::engine::Engine::sample_hidden`].

use rand::seq::SliceRandom;
use rand::{Rng, RngCore};

use super::rules::partitions;
use super::state::{seal, token_card, token_owner, Pending, State};
use crate::engine::Seat;

/// `state` as `seat` might imagine it:
/// - the advisor cards it cannot see (deck cards it did not put back itself, the cards
///   another seat holds at the fish market) dealt anew among those places; each place keeps
///   its token's prefix (who knows the card), so the view's deck size, known deck cards
///   and fish-market card counts stay;
/// - the river market's demand deck shuffled (nobody sees its order);
/// - the sealed groupings of the other seats replaced by a random grouping of their dice
///   (the view shows only that they grouped).
pub fn sample_hidden(state: &State, seat: Seat, rng: &mut dyn RngCore) -> State {
    let mut sample = state.clone();
    let hidden = |token: &String| token_owner(token) != Some(seat);
    let mut tokens: Vec<&mut String> = sample.deck.iter_mut().filter(|t| hidden(t)).collect();
    for pending in &mut sample.pending {
        if let Pending::FishMarket { cards, .. } = pending {
            tokens.extend(cards.iter_mut().filter(|t| hidden(t)));
        }
    }
    let mut cards: Vec<String> = tokens.iter().map(|t| token_card(t).to_owned()).collect();
    cards.shuffle(rng);
    for (token, card) in tokens.into_iter().zip(cards) {
        let prefix_length = token.len() - token_card(token).len();
        token.truncate(prefix_length);
        token.push_str(&card);
    }
    sample.demand_deck.shuffle(rng);
    for (other, sealed) in sample.sealed.iter_mut().enumerate() {
        if other == usize::from(seat) || sealed.is_none() {
            continue;
        }
        let groupings = partitions(&sample.players[other].rolled);
        if !groupings.is_empty() {
            let grouping = &groupings[rng.gen_range(0..groupings.len())];
            *sealed = Some(seal(sample.round, other as Seat, grouping));
        }
    }
    sample
}
