//! How a game starts: which options combine under which rules version, the shuffled turn
//! order and advisors, the chosen module's own cards, the first display and the first roll.

use rand::seq::SliceRandom;
use rand::RngCore;

use super::advisors::deal_display;
use super::decision::{err, Ctx, Decision};
use super::river_market::reveal_demand;
use super::round::start_round;
use crate::engine::{Engine, RuleError, Seat, SharedRule};
use crate::eternal_palace::data::data;
use crate::eternal_palace::event::Event;
use crate::eternal_palace::state::{deck_token, demand_token, State};
use crate::eternal_palace::{EternalPalace, EternalPalaceOptions};
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

/// The first rules version with the modules and location tiles.
pub const MODULES_FROM_VERSION: u32 = 3;

/// The first rules version with `any_group_at_module_locations`.
pub const ANY_GROUP_FROM_VERSION: u32 = 4;

/// The first rules version with the options that play a second reading: `two_decorations`,
/// `demand_reward_only_to_filler` and `academy_hire_compulsory`.
pub const SECOND_READINGS_FROM_VERSION: u32 = 5;

/// Options the short rules allow together, under a rules version that has them.
pub fn check_options(options: &EternalPalaceOptions, rules_version: u32) -> Result<(), RuleError> {
    if options.uses_version_3() && rules_version < MODULES_FROM_VERSION {
        return Err(err(
            SharedRule::InvalidOptions,
            format!(
                "the modules labyrinth, river_market and compositions and the location tiles \
                 need rules version {MODULES_FROM_VERSION}; this game is on version \
                 {rules_version}"
            ),
        ));
    }
    let chosen: Vec<&str> = [
        (options.labyrinth, "labyrinth"),
        (options.river_market, "river_market"),
        (options.compositions, "compositions"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name)
    .collect();
    if chosen.len() > 1 {
        return Err(err(
            SharedRule::InvalidOptions,
            format!(
                "labyrinth, river_market and compositions cannot be combined (chosen: {}); \
                 choose at most one of them (each combines with privileges and the tiles)",
                chosen.join(", ")
            ),
        ));
    }
    if options.any_group_at_module_locations {
        if rules_version < ANY_GROUP_FROM_VERSION {
            return Err(err(
                SharedRule::InvalidOptions,
                format!(
                    "any_group_at_module_locations needs rules version {ANY_GROUP_FROM_VERSION}; \
                     this game is on version {rules_version}"
                ),
            ));
        }
        if !options.labyrinth && !options.river_market {
            return Err(err(
                SharedRule::InvalidOptions,
                "any_group_at_module_locations changes the labyrinth and the river market only; \
                 choose one of them with it",
            ));
        }
    }
    let second_readings: Vec<&str> = [
        (options.two_decorations, "two_decorations"),
        (
            options.demand_reward_only_to_filler,
            "demand_reward_only_to_filler",
        ),
        (options.academy_hire_compulsory, "academy_hire_compulsory"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name)
    .collect();
    if !second_readings.is_empty() && rules_version < SECOND_READINGS_FROM_VERSION {
        return Err(err(
            SharedRule::InvalidOptions,
            format!(
                "{} need rules version {SECOND_READINGS_FROM_VERSION}; this game is on version \
                 {rules_version}",
                second_readings.join(" and ")
            ),
        ));
    }
    if options.demand_reward_only_to_filler && !options.river_market {
        return Err(err(
            SharedRule::InvalidOptions,
            "demand_reward_only_to_filler changes the river market's reward only; choose \
             river_market with it",
        ));
    }
    for (i, tile) in options.location_tiles.iter().enumerate() {
        if options.location_tiles[..i].contains(tile) {
            return Err(err(
                SharedRule::InvalidOptions,
                format!(
                    "location_tiles names {:?} (the {}) twice; choose each tile at most once",
                    tile.id(),
                    tile.name()
                ),
            ));
        }
    }
    Ok(())
}
