//! Treasures: recovering a token from a treasure hex (at most two a turn, one figure each)
//! and exchanging single treasures with another seat.

use super::checks::{err, pay, Checked};
use crate::engine::{Seat, SharedRule};
use crate::tikal::codes::TikalRule;
use crate::tikal::data::{data, Terrain};
use crate::tikal::state::{TikalState, COST_EXCHANGE, COST_RECOVER, PER_HEX_TURN_LIMIT};

/// Kind of the token that would be taken.
pub(crate) fn check_recover(state: &TikalState, seat: Seat, space: u8) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err(TikalRule::NotExplored, "that space has no hex yet");
    };
    if hex.terrain != Terrain::Treasure {
        return err(
            TikalRule::NotATreasureSite,
            "treasures lie only on treasure hexes",
        );
    }
    let Some(top) = hex.tokens.first() else {
        return err(TikalRule::NoTreasureLeft, "no treasure is left on this hex");
    };
    let own = state.pieces_at(space, seat).count();
    if own == 0 {
        return err(TikalRule::NoPiece, "you need a figure on the treasure hex");
    }
    let done = TikalState::turn_count(&state.recovered_this_turn, space);
    if done >= PER_HEX_TURN_LIMIT {
        return err(
            TikalRule::RecoverLimit,
            "at most 2 treasures per hex can be recovered in one turn",
        );
    }
    if done >= own {
        return err(
            TikalRule::NeedsMorePieces,
            "each treasure recovered this turn needs one of your figures on the hex",
        );
    }
    pay(state, COST_RECOVER)?;
    Ok(data().treasure_kind_of(top).unwrap_or(0))
}

pub(crate) fn check_exchange(
    state: &TikalState,
    seat: Seat,
    with: Seat,
    take: u8,
    give: u8,
) -> Checked<()> {
    if with >= state.seats || with == seat {
        return err(
            SharedRule::NoSuchSeat,
            "exchange with another seat of this game",
        );
    }
    let kinds = data().treasure_kinds() as u8;
    if !(1..=kinds).contains(&take) || !(1..=kinds).contains(&give) {
        return err(
            TikalRule::InvalidKind,
            format!("treasure kinds are numbered 1 to {kinds}"),
        );
    }
    if take == give {
        return err(
            TikalRule::SameKind,
            "exchanging a treasure for one of its own kind changes nothing",
        );
    }
    let theirs = state.players[with as usize].treasures[take as usize - 1];
    let mine = state.players[seat as usize].treasures[give as usize - 1];
    if theirs == 0 || mine == 0 {
        return err(
            TikalRule::NoSuchTreasure,
            "both treasures of an exchange must be held by their owners",
        );
    }
    if theirs > 1 || mine > 1 {
        return err(
            TikalRule::CannotSplitSet,
            "pairs and triplets cannot be split by an exchange",
        );
    }
    pay(state, COST_EXCHANGE)
}
