//! Figures entering at the base camp or an own camp, and moving along the stones between
//! hexes at the cheapest action-point cost.

use super::checks::{err, explored, pay, space_named, Checked};
use crate::engine::{Seat, SharedRule};
use crate::tikal::action::PieceKind;
use crate::tikal::codes::TikalRule;
use crate::tikal::data::data;
use crate::tikal::event::TikalEvent;
use crate::tikal::state::{TikalState, COST_ENTER, UNREACHABLE};

pub(crate) fn check_enter(
    state: &TikalState,
    seat: Seat,
    space: u8,
    piece: PieceKind,
) -> Checked<()> {
    if !state.entry_spaces(seat).contains(&space) {
        return err(
            TikalRule::NotAnEntry,
            "figures enter only at the base camp or your own camps",
        );
    }
    let player = &state.players[seat as usize];
    let available = match piece {
        PieceKind::Worker => player.workers_in_supply > 0,
        PieceKind::Leader => player.leader_in_supply,
    };
    if !available {
        return err(
            TikalRule::NoneInSupply,
            format!("you have no {} left in your supply", piece.name()),
        );
    }
    pay(state, COST_ENTER)
}

pub(crate) fn decide_enter(
    state: &TikalState,
    seat: Seat,
    space: &str,
    piece: PieceKind,
) -> Checked<Vec<TikalEvent>> {
    let target = explored(state, space)?;
    check_enter(state, seat, target, piece)?;
    Ok(vec![TikalEvent::PieceEntered {
        seat,
        space: data().space_name(target),
        piece,
    }])
}

pub(crate) fn decide_move(
    state: &TikalState,
    seat: Seat,
    from: &str,
    to: &str,
    piece: PieceKind,
    cost: Option<u8>,
) -> Checked<Vec<TikalEvent>> {
    let start = space_named(from)?;
    let goal = space_named(to)?;
    if start == goal {
        return err(
            SharedRule::SameSpace,
            "a move needs a different destination",
        );
    }
    if !state.pieces_at(start, seat).has(piece) {
        return err(
            TikalRule::NoPiece,
            format!("you have no {} on {from}", piece.name()),
        );
    }
    if state.hex(goal).is_none_or(|h| !h.enterable()) {
        return err(SharedRule::NoPath, format!("{to} cannot be entered"));
    }
    let needed = state.distances(seat, start, state.action_points_left)[goal as usize];
    if needed == UNREACHABLE {
        let any = state.distances(seat, start, u8::MAX - 1)[goal as usize];
        return if any == UNREACHABLE {
            err(
                SharedRule::NoPath,
                format!("no way of stones leads from {from} to {to}"),
            )
        } else {
            err(
                SharedRule::NotEnoughActionPoints,
                format!("the way costs {any} AP, {} left", state.action_points_left),
            )
        };
    }
    if cost.is_some_and(|c| c != needed) {
        return err(
            SharedRule::CostMismatch,
            format!("the cheapest way costs {needed} AP"),
        );
    }
    Ok(vec![TikalEvent::PieceMoved {
        seat,
        from: data().space_name(start),
        to: data().space_name(goal),
        piece,
        cost: needed,
    }])
}
