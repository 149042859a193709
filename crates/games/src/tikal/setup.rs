//! How a game starts: the hex stacks and treasure tokens shuffled (the only randomness of
//! the game, recorded in `game_set_up`), then the first turn.

use rand::seq::SliceRandom;
use rand::RngCore;

use super::data::data;
use super::event::TikalEvent;
use super::options::TikalOptions;
use super::rules::next_turn;
use super::state::TikalState;
use super::Tikal;
use crate::engine::{Engine, RuleError};
use crate::kit::seats::check_player_count;
use crate::kit::Emitter;

pub fn setup(
    options: &TikalOptions,
    seats: u8,
    rules_version: u32,
    seed_commitment: Option<&str>,
    rng: &mut dyn RngCore,
) -> Result<Vec<TikalEvent>, RuleError> {
    let auction = options.auction;
    check_player_count(Tikal::NAME, Tikal::player_counts(), seats)?;
    let data = data();
    let mut letters: Vec<char> = data.tiles.iter().map(|t| t.stack).collect();
    letters.sort_unstable();
    letters.dedup();
    let mut tile_order = Vec::with_capacity(data.tiles.len());
    for letter in letters {
        let mut stack: Vec<String> = data
            .tiles
            .iter()
            .filter(|t| t.stack == letter)
            .map(|t| t.id.clone())
            .collect();
        stack.shuffle(rng);
        tile_order.extend(stack);
    }
    let mut treasure_order = data.treasure_ids();
    treasure_order.shuffle(rng);

    let mut emitter = Emitter::<Tikal>::new(&TikalState::new(auction, seats, rules_version));
    emitter.emit(TikalEvent::GameSetUp {
        seats,
        auction,
        tile_order: Some(tile_order),
        treasure_order: Some(treasure_order),
        seed_commitment: seed_commitment.map(str::to_owned),
    });
    next_turn(&mut emitter, seats - 1);
    Ok(emitter.into_events())
}
