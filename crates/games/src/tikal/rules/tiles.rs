//! Laying the drawn hex: where it may lie (touching the explored area, a stone on a shared
//! edge with an enterable hex), one place list for `decide` and `legal_actions` alike.

use super::checks::{err, space_named, Checked};
use crate::engine::{Seat, SharedRule};
use crate::kit::hex::rotate_edges;
use crate::tikal::codes::TikalRule;
use crate::tikal::data::{data, opposite, Terrain, TileDef, EDGES};
use crate::tikal::event::TikalEvent;
use crate::tikal::state::TikalState;

fn touches_with_stones(state: &TikalState, space: u8, stones: &[u8; EDGES]) -> bool {
    data().neighbours[space as usize]
        .iter()
        .enumerate()
        .any(|(direction, next)| {
            next.and_then(|n| state.hex(n)).is_some_and(|hex| {
                hex.enterable() && stones[direction] + hex.stones[opposite(direction)] > 0
            })
        })
}

fn touches(state: &TikalState, space: u8) -> bool {
    data().neighbours[space as usize]
        .iter()
        .any(|next| next.and_then(|n| state.hex(n)).is_some())
}

/// Every (space, rotation) where `tile` may be laid. A volcano only has rotation 0 and
/// only needs to touch; other hexes need a stone on a shared edge with an enterable hex.
/// Should no such spot exist, any empty space touching the explored area is allowed.
pub fn placements(state: &TikalState, tile: &TileDef) -> Vec<(u8, u8)> {
    let volcano = tile.terrain == Terrain::Volcano;
    let rotations = if volcano { 1 } else { EDGES as u8 };
    let empty: Vec<u8> = (0..state.board.len() as u8)
        .filter(|&s| state.hex(s).is_none())
        .collect();
    let mut spots = Vec::new();
    for &space in &empty {
        if volcano {
            if touches(state, space) {
                spots.push((space, 0));
            }
            continue;
        }
        for rotation in 0..rotations {
            if touches_with_stones(state, space, &rotate_edges(tile.stones, rotation)) {
                spots.push((space, rotation));
            }
        }
    }
    if spots.is_empty() {
        for &space in &empty {
            if touches(state, space) {
                spots.extend((0..rotations).map(|rotation| (space, rotation)));
            }
        }
    }
    spots
}

pub(crate) fn decide_place_tile(
    state: &TikalState,
    seat: Seat,
    space: &str,
    rotation: u8,
) -> Checked<Vec<TikalEvent>> {
    let data = data();
    let target = space_named(space)?;
    if state.hex(target).is_some() {
        return err(
            SharedRule::SpaceOccupied,
            format!("{space} already has a hex"),
        );
    }
    let Some(tile) = state.hand.as_deref().and_then(|id| data.tile(id)) else {
        return err(SharedRule::WrongPhase, "there is no hex to lay");
    };
    if rotation as usize >= EDGES || (tile.terrain == Terrain::Volcano && rotation != 0) {
        return err(
            SharedRule::InvalidRotation,
            "rotation is 0-5 sixth-turns (always 0 for a volcano)",
        );
    }
    if !placements(state, tile).contains(&(target, rotation)) {
        return err(
            TikalRule::NotConnected,
            "the hex must touch the explored area with a stone on a shared edge",
        );
    }
    Ok(vec![
        TikalEvent::TilePlaced {
            seat,
            tile: tile.id.clone(),
            space: data.space_name(target),
            rotation,
            treasure_tokens: if tile.terrain == Terrain::Treasure {
                tile.value
            } else {
                0
            },
        },
        TikalEvent::TurnStarted {
            seat,
            scoring: false,
        },
    ])
}
