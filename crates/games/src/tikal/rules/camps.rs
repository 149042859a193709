//! Camps: built on jungle or emptied treasure hexes, each a new entry for its owner's
//! figures.

use super::checks::{err, pay, Checked};
use crate::engine::Seat;
use crate::tikal::codes::TikalRule;
use crate::tikal::data::{data, Terrain};
use crate::tikal::state::{TikalState, COST_CAMP};

pub(crate) fn check_camp(state: &TikalState, seat: Seat, space: u8) -> Checked<()> {
    let Some(hex) = state.hex(space) else {
        return err(TikalRule::NotExplored, "that space has no hex yet");
    };
    match hex.terrain {
        Terrain::Jungle => {}
        Terrain::Treasure if hex.tokens.is_empty() => {}
        Terrain::Treasure => {
            return err(
                TikalRule::TreasureLeft,
                "a camp needs a treasure hex without treasures",
            )
        }
        _ => {
            return err(
                TikalRule::CampNotAllowed,
                "camps are built on jungle or emptied treasure hexes",
            )
        }
    }
    if hex.camp.is_some() {
        return err(TikalRule::CampExists, "this hex already has a camp");
    }
    if state.players[seat as usize].camps_built >= data().camps {
        return err(TikalRule::NoCampsLeft, "you have built all your camps");
    }
    pay(state, COST_CAMP)
}
