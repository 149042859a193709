//! Temples: uncovering a level (at most two a turn, one figure each) and placing a guard,
//! which needs the strict majority and ends the temple's changes.

use super::checks::{err, pay, Checked};
use crate::engine::Seat;
use crate::tikal::action::PieceKind;
use crate::tikal::codes::TikalRule;
use crate::tikal::data::Terrain;
use crate::tikal::state::{
    TikalState, COST_GUARD, COST_UNCOVER, MAX_GUARDS, MAX_TEMPLE_VALUE, PER_HEX_TURN_LIMIT,
};

/// New top value of the temple at `space`.
pub(crate) fn check_uncover(state: &TikalState, seat: Seat, space: u8) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err(TikalRule::NotExplored, "that space has no hex yet");
    };
    if hex.terrain != Terrain::Temple {
        return err(TikalRule::NotATemple, "only temples can be uncovered");
    }
    if hex.guard.is_some() {
        return err(
            TikalRule::TempleGuarded,
            "a guarded temple cannot be uncovered",
        );
    }
    let own = state.pieces_at(space, seat).count();
    if own == 0 {
        return err(TikalRule::NoPiece, "you need a figure on the temple");
    }
    let done = TikalState::turn_count(&state.uncovered_this_turn, space);
    if done >= PER_HEX_TURN_LIMIT {
        return err(
            TikalRule::UncoverLimit,
            "at most 2 levels per temple can be uncovered in one turn",
        );
    }
    if done >= own {
        return err(
            TikalRule::NeedsMorePieces,
            "each level uncovered this turn needs one of your figures on the temple",
        );
    }
    let next = hex.temple_value + 1;
    if next > MAX_TEMPLE_VALUE
        || state
            .temple_supply
            .get(next as usize)
            .is_none_or(|&n| n == 0)
    {
        return err(
            TikalRule::NoTempleTile,
            format!("no temple tile numbered {next} is left"),
        );
    }
    pay(state, COST_UNCOVER)?;
    Ok(next)
}

/// Number of other own figures that leave the game.
pub(crate) fn check_guard(
    state: &TikalState,
    seat: Seat,
    space: u8,
    piece: PieceKind,
) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err(TikalRule::NotExplored, "that space has no hex yet");
    };
    if hex.terrain != Terrain::Temple {
        return err(TikalRule::NotATemple, "only temples can be guarded");
    }
    if hex.guard.is_some() {
        return err(TikalRule::AlreadyGuarded, "this temple already has a guard");
    }
    if state.players[seat as usize].guards_placed >= MAX_GUARDS {
        return err(
            TikalRule::NoGuardsLeft,
            "you have already guarded 2 temples",
        );
    }
    if state.majority_holder(space) != Some(seat) {
        return err(
            TikalRule::NoMajority,
            "a guard needs the strict majority on the temple",
        );
    }
    let own = state.pieces_at(space, seat);
    if !own.has(piece) {
        return err(
            TikalRule::NoPiece,
            format!("you have no {} on this temple", piece.name()),
        );
    }
    pay(state, COST_GUARD)?;
    Ok(own.count() - 1)
}
