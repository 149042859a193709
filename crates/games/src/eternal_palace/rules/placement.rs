//! Placing a group of dice: where it may go, the wisdom that turns its pips to the
//! location's number and the fish for the colours already there, then the location's action.

use rand::RngCore;

use super::decision::{check_turn, err, Ctx, Decision};
use super::fish_market::visit_fish_market;
use super::labyrinth::visit_labyrinth;
use super::location_tiles::{visit_academy_tile, visit_market_tile, visit_temple_tile};
use super::locations::{
    cross_bridge, visit_academy, visit_market, visit_monument, visit_resource_location,
    visit_scrolls, visit_temple,
};
use super::river_market::{fulfillable_fields, visit_river_market};
use super::round::finish_turn;
use crate::engine::{RuleError, Seat};
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, LocationKind, Resource, SCROLLS};
use crate::eternal_palace::event::Event;
use crate::eternal_palace::state::{Player, State};

/// Least wisdom needed to make `pips` add up to `target`, with the pips afterwards.
pub fn cheapest_sum(pips: &[u8], target: u32) -> Option<(i32, Vec<u8>)> {
    let d = data();
    // best[sum] = (cost, chosen pips) over the dice processed so far
    let mut best: Vec<Option<(i32, Vec<u8>)>> = vec![None; 31];
    best[0] = Some((0, Vec::new()));
    for pip in pips {
        let mut next: Vec<Option<(i32, Vec<u8>)>> = vec![None; 31];
        for (sum, entry) in best.iter().enumerate() {
            let Some((cost, chosen)) = entry else {
                continue;
            };
            for value in 1..=6u8 {
                let s = sum + value as usize;
                if s > 30 {
                    continue;
                }
                let c = cost + d.pip_cost(*pip, value);
                if next[s].as_ref().is_none_or(|(old, _)| c < *old) {
                    let mut v = chosen.clone();
                    v.push(value);
                    next[s] = Some((c, v));
                }
            }
        }
        best = next;
    }
    best.get(target as usize).cloned().flatten()
}

/// What placing costs and how the pips end up, or why it is refused.
pub struct Placement {
    pub location: usize,
    pub pips: Vec<u8>,
    pub wisdom: i32,
    pub fish: i32,
}

/// The pips a group shows where it is placed, and the wisdom that turning them costs.
/// `any_group`: the module locations take any group (option `any_group_at_module_locations`).
fn pips_and_wisdom(
    p: &Player,
    dice: &[u8],
    index: usize,
    value: Option<u8>,
    any_group: bool,
) -> Result<(Vec<u8>, i32), RuleError> {
    let d = data();
    let spot = &d.locations[index];
    match spot.kind {
        LocationKind::Scrolls => {
            if value.is_some() {
                return Err(err(
                    EternalPalaceRule::UnexpectedValue,
                    "a value is given only at the bridge",
                ));
            }
            Ok((dice.to_vec(), 0))
        }
        LocationKind::Bridge => {
            let [pip] = dice else {
                return Err(err(
                    EternalPalaceRule::SingleDieOnly,
                    "the Eternal Bridge takes a single die only",
                ));
            };
            let Some(v) = value.filter(|v| (1..=6).contains(v)) else {
                return Err(err(
                    EternalPalaceRule::InvalidValue,
                    "at the bridge give the die's value after wisdom, 1 to 6",
                ));
            };
            let length = spot.track_length().unwrap_or(0);
            if p.tracks[index] >= length {
                return Err(err(
                    EternalPalaceRule::BridgeComplete,
                    "your marker has already crossed the bridge",
                ));
            }
            Ok((vec![v], d.pip_cost(*pip, v)))
        }
        LocationKind::Labyrinth | LocationKind::RiverMarket => {
            if value.is_some() {
                return Err(err(
                    EternalPalaceRule::UnexpectedValue,
                    "a value is given only at the bridge",
                ));
            }
            let count = spot.dice.as_ref().map_or(1, |rule| rule.count);
            if dice.len() != count && !any_group {
                return Err(err(
                    EternalPalaceRule::SingleDieOnly,
                    format!("the {} takes a single die only", spot.name),
                ));
            }
            Ok((dice.to_vec(), 0))
        }
        _ => {
            if value.is_some() {
                return Err(err(
                    EternalPalaceRule::UnexpectedValue,
                    "a value is given only at the bridge",
                ));
            }
            let target = spot.number().unwrap_or(0);
            let Some((cost, pips)) = cheapest_sum(dice, target) else {
                return Err(err(
                    EternalPalaceRule::WrongSum,
                    format!("this group cannot add up to {target}"),
                ));
            };
            Ok((pips, cost))
        }
    }
}

pub fn check_place(
    state: &State,
    seat: Seat,
    group: u8,
    location: &str,
    value: Option<u8>,
) -> Result<Placement, RuleError> {
    let d = data();
    let p = &state.players[seat as usize];
    let Some(dice) = p.groups.get(group as usize) else {
        return Err(err(
            EternalPalaceRule::NoSuchGroup,
            "you have no group with that number",
        ));
    };
    if p.placed.get(group as usize).copied().unwrap_or(true) {
        return Err(err(
            EternalPalaceRule::GroupPlaced,
            "that group is already placed",
        ));
    }
    let Some(index) = d
        .location_index(location)
        .filter(|index| state.in_play(*index))
    else {
        return Err(err(
            EternalPalaceRule::NoSuchLocation,
            "locations are \"1\"..\"12\", \"bridge\", \"scrolls\" and the chosen module's \
             \"labyrinth\" or \"river_market\"",
        ));
    };
    let spot = &d.locations[index];
    let (pips, wisdom) =
        pips_and_wisdom(p, dice, index, value, state.any_group_at_module_locations)?;
    if wisdom > p.stock.wisdom {
        return Err(err(
            EternalPalaceRule::NotEnoughWisdom,
            format!("that needs {wisdom} wisdom"),
        ));
    }
    let fish = if index == SCROLLS {
        0
    } else {
        state.colours_at(index)
    };
    if fish > p.stock.fish {
        return Err(err(
            EternalPalaceRule::NotEnoughFish,
            format!("that needs {fish} fish"),
        ));
    }
    if spot.kind == LocationKind::Labyrinth {
        let station = &p.station;
        if d.arrows_from(station).next().is_none() {
            return Err(err(
                EternalPalaceRule::LabyrinthComplete,
                "your marker has already left the labyrinth",
            ));
        }
        let left = p.stock.fish - fish;
        if !d.arrows_from(station).any(|a| a.fish <= left) {
            return Err(err(
                EternalPalaceRule::NotEnoughFish,
                "no way out of your station is paid for with the fish you would have left",
            ));
        }
    }
    if spot.kind == LocationKind::RiverMarket && fulfillable_fields(state, seat).is_empty() {
        return Err(err(
            EternalPalaceRule::NoDemandToFulfil,
            "you cannot fulfil the demand of any free field of the river market",
        ));
    }
    if spot.kind == LocationKind::Monument {
        let resource = spot.resource.unwrap_or(Resource::Wood);
        if p.stock.get(resource) < state.rings[index] {
            return Err(err(
                EternalPalaceRule::NotEnoughResources,
                format!(
                    "the monument needs {} {}",
                    state.rings[index],
                    resource.name()
                ),
            ));
        }
    }
    Ok(Placement {
        location: index,
        pips,
        wisdom,
        fish,
    })
}

pub(super) fn decide_place(
    state: &State,
    seat: Seat,
    group: u8,
    location: &str,
    value: Option<u8>,
    rng: &mut dyn RngCore,
) -> Decision {
    check_turn(state, seat)?;
    let placement = check_place(state, seat, group, location, value)?;
    let d = data();
    let index = placement.location;
    let spot = &d.locations[index];
    let dice = state.players[seat as usize].groups[group as usize].len();
    let mut cx = Ctx::new(state);
    cx.emit(Event::DicePlaced {
        seat,
        group,
        location: spot.key.clone(),
        pips: placement.pips.clone(),
        wisdom: placement.wisdom,
        fish: placement.fish,
    });
    let tile = state.tile(&spot.key);
    match spot.kind {
        LocationKind::FishMarket => visit_fish_market(&mut cx, seat, index, tile, rng),
        LocationKind::Academy if tile => visit_academy_tile(&mut cx, seat, index),
        LocationKind::Academy => visit_academy(&mut cx, seat, index),
        LocationKind::Resource => visit_resource_location(&mut cx, seat, index, dice),
        LocationKind::Monument => visit_monument(&mut cx, seat, index),
        LocationKind::Temple if tile => visit_temple_tile(&mut cx, seat, index, dice),
        LocationKind::Temple => visit_temple(&mut cx, seat, index, dice),
        LocationKind::Market if tile => visit_market_tile(&mut cx, seat, index, dice),
        LocationKind::Market => visit_market(&mut cx, seat, index, dice),
        LocationKind::Labyrinth => visit_labyrinth(&mut cx, seat),
        LocationKind::RiverMarket => visit_river_market(&mut cx, seat, index),
        LocationKind::Bridge => cross_bridge(
            &mut cx,
            seat,
            index,
            placement.pips.first().copied().unwrap_or(0),
        ),
        LocationKind::Scrolls => visit_scrolls(&mut cx, seat, dice),
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}
