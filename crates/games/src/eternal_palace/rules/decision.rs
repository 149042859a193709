//! What nearly every decision shares: the working copy it emits its events onto, refusals,
//! the checks that it is the seat's turn or choice, and goods gained (within the palace
//! track's end and the privilege supply) or paid.

use crate::engine::{RuleCode, RuleError, Seat, SharedRule};
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, Goods};
use crate::eternal_palace::event::{Event, Reason};
use crate::eternal_palace::state::{Pending, Phase, State};
use crate::eternal_palace::EternalPalace;
use crate::kit::Emitter;

pub(crate) type Decision = Result<Vec<Event>, RuleError>;

pub(super) fn err(code: impl RuleCode, message: impl Into<String>) -> RuleError {
    RuleError::new(code, message)
}

/// The working copy every decision emits its events onto.
pub(crate) type Ctx = Emitter<EternalPalace>;

/// Gains from the supply, limited by the palace track's end and the privilege supply.
pub(super) fn gain_goods(cx: &mut Ctx, seat: Seat, gain: Goods, reason: Reason) {
    let mut delta = gain;
    if let Some(p) = cx.state().player(seat) {
        let room = data().palace.length as i32 - p.palace as i32;
        delta.palace = delta.palace.clamp(0, room.max(0));
    }
    delta.privilege = delta.privilege.min(cx.state().privilege_supply.max(0));
    if !delta.is_empty() {
        cx.emit(Event::GoodsChanged {
            seat,
            delta,
            reason,
        });
    }
}

pub(super) fn pay_goods(cx: &mut Ctx, seat: Seat, cost: Goods, reason: Reason) {
    if !cost.is_empty() {
        cx.emit(Event::GoodsChanged {
            seat,
            delta: cost.negated(),
            reason,
        });
    }
}

pub(super) fn check_turn(state: &State, seat: Seat) -> Result<(), RuleError> {
    if state.phase != Phase::Placement {
        return Err(err(
            SharedRule::WrongPhase,
            "groups are placed after the reveal",
        ));
    }
    if state.placer != Some(seat) {
        return Err(err(SharedRule::NotYourTurn, "another seat is placing now"));
    }
    if !state.pending.is_empty() {
        return Err(err(
            EternalPalaceRule::ChoicePending,
            "finish the choice of your current location first",
        ));
    }
    Ok(())
}

pub(super) fn front_pending(state: &State, seat: Seat) -> Result<&Pending, RuleError> {
    if state.phase != Phase::Placement {
        return Err(err(SharedRule::WrongPhase, "choices come up while placing"));
    }
    match state.pending.first() {
        Some(p) if p.seat() == seat => Ok(p),
        Some(_) => Err(err(SharedRule::NotYourTurn, "another seat is choosing now")),
        None => Err(err(
            EternalPalaceRule::NoChoicePending,
            "there is nothing to choose now",
        )),
    }
}
