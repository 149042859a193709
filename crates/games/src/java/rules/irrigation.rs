//! Irrigation tiles from the common supply: where one may lie. The water it closes in is
//! scored in `water`.

use super::board::{name, space};
use super::tiles::pay;
use crate::engine::{RuleError, Seat};
use crate::java::codes::JavaRule;
use crate::java::data::{board, CellKind};
use crate::java::event::JavaEvent;
use crate::java::state::JavaState;
use crate::java::Java;
use crate::kit::Emitter;

pub(super) fn decide_place_irrigation(
    state: &JavaState,
    seat: Seat,
    at: &str,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(at)?;
    if state.irrigation_tiles == 0 {
        return Err(RuleError::new(
            JavaRule::NoIrrigationTileLeft,
            "the irrigation tiles are used up",
        ));
    }
    check_irrigation_space(state, cell)?;
    pay(state, 1)?;
    out.emit(JavaEvent::IrrigationPlaced {
        seat,
        space: name(cell),
    });
    out.water_check();
    Ok(())
}

pub(crate) fn check_irrigation_space(state: &JavaState, cell: usize) -> Result<(), RuleError> {
    let info = &board().cells[cell];
    if info.kind != CellKind::Land {
        return Err(RuleError::new(
            JavaRule::NotABoardSpace,
            "irrigation goes on a land space of central Java",
        ));
    }
    if info.printed_edge {
        return Err(RuleError::new(
            JavaRule::RimSpace,
            "irrigation may not be placed at the rim of central Java",
        ));
    }
    let s = &state.spaces[cell];
    if s.height > 0 || s.irrigation {
        return Err(RuleError::new(
            JavaRule::SpaceNotEmpty,
            "irrigation goes directly on an empty board space",
        ));
    }
    Ok(())
}
