//! How a game starts: the player count and options checked, the shuffled turn order and
//! advisors, the chosen module's own cards, the first display and the first roll.

use rand::seq::SliceRandom;
use rand::RngCore;

use super::data::data;
use super::event::Event;
use super::options::{check_options, EternalPalaceOptions};
use super::rules::{deal_display, reveal_demand, start_round, Ctx, Decision};
use super::state::{deck_token, demand_token, State};
use super::EternalPalace;
use crate::engine::{Engine, Seat};
use crate::kit::seats::check_player_count;

pub fn setup(
    options: &EternalPalaceOptions,
    seats: u8,
    rules_version: u32,
    seed_commitment: Option<&str>,
    rng: &mut dyn RngCore,
) -> Decision {
    check_player_count(EternalPalace::NAME, EternalPalace::player_counts(), seats)?;
    check_options(options, rules_version)?;
    let d = data();
    let mut cx = Ctx::new(&State::new(options, seats, rules_version));
    let mut order: Vec<Seat> = (0..seats).collect();
    order.shuffle(rng);
    let mut deck = d.deck_for(seats, options.privileges);
    deck.shuffle(rng);
    cx.emit(Event::GameSetUp {
        seats,
        privileges: options.privileges,
        turn_order: order,
        deck: Some(deck.iter().map(|c| deck_token(c)).collect()),
        seed_commitment: seed_commitment.map(str::to_owned),
    });
    // The modules shuffle only when chosen, so games without them draw from `rng` exactly
    // as before.
    if options.river_market {
        let mut demands: Vec<String> = d.demands.iter().map(|c| c.id.clone()).collect();
        demands.shuffle(rng);
        cx.emit(Event::DemandDeckShuffled {
            deck: Some(demands.iter().map(|c| demand_token(c)).collect()),
        });
        reveal_demand(&mut cx, rng);
    }
    if options.compositions {
        let mut cards: Vec<String> = d.composition_cards.iter().map(|c| c.id.clone()).collect();
        cards.shuffle(rng);
        let open = d
            .compositions
            .open_by_players
            .get(seats as usize)
            .copied()
            .unwrap_or(0);
        cards.truncate(open);
        cx.emit(Event::CompositionsDealt { cards });
    }
    deal_display(&mut cx, rng);
    start_round(&mut cx, 1, rng);
    Ok(cx.into_events())
}
