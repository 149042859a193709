//! `sample_hidden`: the advisor deck, the other seats' fish-market cards and sealed
//! groupings and the demand deck re-drawn, and nothing else.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::super::state::{token_card, unseal, Pending, State};
use super::super::{Action, EternalPalace, EternalPalaceOptions};
use crate::engine::Seat;
use crate::kit::playout::{check_samples, Playout};

/// Every advisor and demand card, wherever it is, and every seat's dice.
fn material(state: &State) -> Vec<String> {
    let mut items: Vec<String> = state
        .deck
        .iter()
        .map(|token| token_card(token).to_owned())
        .collect();
    items.extend(state.discard.iter().cloned());
    items.extend(state.display.iter().cloned());
    for pending in &state.pending {
        if let Pending::FishMarket { cards, .. } = pending {
            items.extend(cards.iter().map(|token| token_card(token).to_owned()));
        }
    }
    for player in &state.players {
        items.extend(player.advisors.iter().map(|advisor| advisor.card.clone()));
    }
    items.extend(state.demand_deck.iter().cloned());
    items.extend(state.demand_discard.iter().cloned());
    items.extend(state.demand_card.iter().cloned());
    for (seat, sealed) in state.sealed.iter().enumerate() {
        if let Some(sealed) = sealed {
            let mut pips: Vec<u8> = unseal(sealed).concat();
            pips.sort_unstable();
            items.push(format!("seat {seat} groups {pips:?}"));
        }
    }
    items
}

fn uniformly(_: &State, _: Seat, legal: &[Action], rng: &mut ChaCha8Rng) -> Action {
    legal[rng.gen_range(0..legal.len())].clone()
}

#[test]
fn samples_redraw_the_cards_and_groupings_a_seat_cannot_see() {
    let (mut deck, mut groupings, mut demands, mut fish_market) = (0, 0, 0, 0);
    let options = [
        EternalPalaceOptions::base(true),
        EternalPalaceOptions {
            river_market: true,
            location_tiles: vec![super::super::LocationTile::FishMarket],
            ..EternalPalaceOptions::default()
        },
    ];
    for options in options {
        for seed in 0..3 {
            let seats = 2 + seed as u8;
            let runner = Playout::<EternalPalace>::new(options.clone(), seats).fold_every(1_000);
            let mut position = 0;
            runner.run(seed, uniformly, |state, _| {
                position += 1;
                if position % 7 != 1 {
                    return;
                }
                let samples =
                    check_samples::<EternalPalace>(state, seats, seed + position, material);
                for (seat, sample) in samples.iter().enumerate() {
                    deck += usize::from(sample.deck != state.deck);
                    demands += usize::from(sample.demand_deck != state.demand_deck);
                    fish_market += usize::from(sample.pending != state.pending);
                    let others = |s: &State| {
                        let mut sealed = s.sealed.clone();
                        sealed[seat] = None;
                        sealed
                    };
                    groupings += usize::from(others(sample) != others(state));
                    assert_eq!(sample.sealed[seat], state.sealed[seat]);
                    let mut restored = sample.clone();
                    restored.deck = state.deck.clone();
                    restored.demand_deck = state.demand_deck.clone();
                    restored.pending = state.pending.clone();
                    restored.sealed = state.sealed.clone();
                    assert!(
                        restored == *state,
                        "seed {seed}: more than the secrets changed"
                    );
                }
            });
        }
    }
    assert!(deck > 0, "the deck is never re-drawn");
    assert!(groupings > 0, "sealed groupings are never re-drawn");
    assert!(demands > 0, "the demand deck is never re-drawn");
    assert!(
        fish_market > 0,
        "cards held at the fish market are never re-drawn"
    );
}
