//! The checks every family of actions shares: a space named in an action, an explored hex,
//! the action points an action costs, whether a hex is a volcano.

use crate::engine::{RuleCode, RuleError, SharedRule};
use crate::tikal::codes::TikalRule;
use crate::tikal::data::{data, Terrain};
use crate::tikal::state::TikalState;

pub(crate) type Checked<T> = Result<T, RuleError>;

pub(crate) fn err<T>(code: impl RuleCode, message: impl Into<String>) -> Checked<T> {
    Err(RuleError::new(code, message))
}

pub(crate) fn is_volcano(tile: &str) -> bool {
    data()
        .tile(tile)
        .is_some_and(|t| t.terrain == Terrain::Volcano)
}

pub(crate) fn space_named(name: &str) -> Checked<u8> {
    match data().parse_space(name) {
        Some(space) => Ok(space),
        None => err(
            SharedRule::UnknownSpace,
            format!("{name:?} is not a space of the board (columns A-H, rows 1-5)"),
        ),
    }
}

pub(crate) fn explored(state: &TikalState, name: &str) -> Checked<u8> {
    let space = space_named(name)?;
    if state.hex(space).is_none() {
        return err(TikalRule::NotExplored, format!("{name} has no hex yet"));
    }
    Ok(space)
}

pub(crate) fn pay(state: &TikalState, cost: u8) -> Checked<()> {
    if state.action_points_left < cost {
        return err(
            SharedRule::NotEnoughActionPoints,
            format!("this costs {cost} AP, {} left", state.action_points_left),
        );
    }
    Ok(())
}
