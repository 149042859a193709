//! `decide`: the rules proper, handing each action to the file of its rule (the set-up is in
//! `setup`, next to this folder). Decisions are worked out on a copy of the state that every emitted event is folded
//! into at once, so later steps of the same decision see earlier ones exactly as `evolve` will.

mod advisors;
mod compositions;
mod decision;
mod fish_market;
mod labyrinth;
mod layers;
mod location_tiles;
mod locations;
mod placement;
mod planning;
mod river_market;
mod round;

use rand::RngCore;

use super::action::Action;
use super::state::{Phase, State};
use crate::engine::{Seat, SharedRule};

use self::advisors::{decide_artist_group, decide_use_advisor};
use self::decision::err;
use self::fish_market::{decide_draw_advisors, decide_fish_market};
use self::labyrinth::decide_follow_path;
use self::location_tiles::{
    decide_buy_wisdom, decide_market_tile, decide_resource_step, decide_take_reserve,
};
use self::locations::{decide_hire, decide_market, decide_scrolls, decide_take_resource};
use self::placement::decide_place;
use self::planning::{decide_group, decide_privilege};
use self::river_market::decide_fulfil_demand;

// What the rest of the engine (legal actions, hidden, the tests) reads of the rules, at the
// paths it had when the rules were one file.
pub(crate) use self::advisors::deal_display;
pub use self::advisors::{can_hire, hire_cost};
pub(crate) use self::decision::{Ctx, Decision};
pub use self::fish_market::FishMarketChoice;
pub use self::labyrinth::affordable_paths;
pub use self::location_tiles::{market_tile_kinds, MarketTileChoice};
pub use self::locations::available_market_items;
pub use self::placement::{cheapest_sum, check_place, Placement};
pub use self::planning::{canonical_groups, partitions, privilege_order};
pub use self::river_market::fulfillable_fields;
pub(crate) use self::river_market::reveal_demand;
pub use self::round::palace_die_recipient;
pub(crate) use self::round::start_round;

pub fn decide(state: &State, seat: Seat, action: &Action, rng: &mut dyn RngCore) -> Decision {
    if state.phase == Phase::Finished {
        return Err(err(SharedRule::GameOver, "the game is over"));
    }
    if seat >= state.seats {
        return Err(err(
            SharedRule::NoSuchSeat,
            "there is no such seat at this table",
        ));
    }
    match action {
        Action::GroupDice { groups } => decide_group(state, seat, groups),
        Action::ChoosePrivilege { play } => decide_privilege(state, seat, *play),
        Action::PlaceDice {
            group,
            location,
            value,
        } => decide_place(state, seat, *group, location, *value, rng),
        Action::UseAdvisor { card, target } => decide_use_advisor(state, seat, card, *target),
        Action::ResolveFishMarket {
            returned,
            discarded,
            kept,
            hire,
        } => decide_fish_market(
            state,
            seat,
            FishMarketChoice {
                returned: returned.as_deref(),
                discarded: discarded.as_deref(),
                kept: kept.as_deref(),
                hire: *hire,
            },
            rng,
        ),
        Action::HireAdvisor { card } => decide_hire(state, seat, card.as_deref(), rng),
        Action::TakeResource { resource } => decide_take_resource(state, seat, *resource, rng),
        Action::BuyAtMarket { items } => decide_market(state, seat, items, rng),
        Action::ReadScrolls { goods, resource } => {
            decide_scrolls(state, seat, *goods, *resource, rng)
        }
        Action::ChooseArtistGroup { group } => decide_artist_group(state, seat, *group),
        Action::FollowPath { station } => decide_follow_path(state, seat, station, rng),
        Action::FulfilDemand { field, resource } => {
            decide_fulfil_demand(state, seat, *field, *resource, rng)
        }
        Action::DrawAdvisors { fish } => decide_draw_advisors(state, seat, *fish, rng),
        Action::TakeReserve => decide_take_reserve(state, seat, rng),
        Action::BuyWisdom { paid } => decide_buy_wisdom(state, seat, paid, rng),
        Action::ChooseMarketTile {
            step,
            palace,
            bundle,
            advisor,
            privilege,
        } => decide_market_tile(
            state,
            seat,
            MarketTileChoice {
                step: *step,
                palace: *palace,
                bundle: *bundle,
                advisor: advisor.clone(),
                privilege: *privilege,
            },
            rng,
        ),
        Action::StepForResource { resource } => decide_resource_step(state, seat, *resource, rng),
    }
}
