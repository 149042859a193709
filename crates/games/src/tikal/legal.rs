//! `legal_actions` and `to_act`: exactly what `decide` accepts, listed with the same checks.

use super::action::{PieceKind, TikalAction};
use super::data::{data, Terrain};
use super::rules::camps::check_camp;
use super::rules::movement::check_enter;
use super::rules::temples::{check_guard, check_uncover};
use super::rules::tiles::placements;
use super::rules::treasures::check_recover;
use super::state::{
    Phase, TikalState, COST_CAMP, COST_ENTER, COST_EXCHANGE, COST_GUARD, MAX_GUARDS, UNREACHABLE,
};
use crate::engine::Seat;

pub fn to_act(state: &TikalState) -> Vec<Seat> {
    match state.phase {
        Phase::Placing { seat } | Phase::Acting { seat, .. } | Phase::Choosing { seat } => {
            vec![seat]
        }
        Phase::Bidding => state
            .bidding
            .as_ref()
            .map(|b| b.current)
            .into_iter()
            .collect(),
        Phase::NotStarted | Phase::Finished => Vec::new(),
    }
}

pub fn legal_actions(state: &TikalState, seat: Seat) -> Vec<TikalAction> {
    if !to_act(state).contains(&seat) {
        return Vec::new();
    }
    let data = data();
    let mut actions = Vec::new();
    match state.phase {
        Phase::Placing { .. } => {
            if let Some(tile) = state.hand.as_deref().and_then(|id| data.tile(id)) {
                for (space, rotation) in placements(state, tile) {
                    actions.push(TikalAction::PlaceTile {
                        space: data.space_name(space),
                        rotation,
                    });
                }
            }
        }
        Phase::Choosing { .. } => {
            for tile in &state.revealed {
                actions.push(TikalAction::ChooseTile { tile: tile.clone() });
            }
        }
        Phase::Bidding => {
            actions.push(TikalAction::Pass);
            let minimum = state
                .bidding
                .as_ref()
                .and_then(|b| b.high)
                .map_or(1, |h| h.amount + 1);
            let score = state.players[seat as usize].score.max(0) as u32;
            for amount in minimum..=score {
                actions.push(TikalAction::Bid { amount });
            }
        }
        Phase::Acting { .. } => acting_actions(state, seat, &mut actions),
        Phase::NotStarted | Phase::Finished => {}
    }
    actions
}

fn acting_actions(state: &TikalState, seat: Seat, actions: &mut Vec<TikalAction>) {
    actions.push(TikalAction::EndTurn);
    entering_actions(state, seat, actions);
    for space in 0..state.board.len() as u8 {
        moving_actions(state, seat, space, actions);
        site_actions(state, seat, space, actions);
    }
    exchange_actions(state, seat, actions);
}

fn entering_actions(state: &TikalState, seat: Seat, actions: &mut Vec<TikalAction>) {
    if state.action_points_left < COST_ENTER {
        return;
    }
    for space in state.entry_spaces(seat) {
        for piece in [PieceKind::Worker, PieceKind::Leader] {
            if check_enter(state, seat, space, piece).is_ok() {
                actions.push(TikalAction::Enter {
                    space: data().space_name(space),
                    piece,
                });
            }
        }
    }
}

/// Every cheapest move of a figure of `seat` away from `space`.
fn moving_actions(state: &TikalState, seat: Seat, space: u8, actions: &mut Vec<TikalAction>) {
    let ap = state.action_points_left;
    let own = state.pieces_at(space, seat);
    if state.hex(space).is_none() || own.count() == 0 || ap == 0 {
        return;
    }
    let data = data();
    let from = data.space_name(space);
    for (goal, &cost) in state.distances(seat, space, ap).iter().enumerate() {
        if cost == 0 || cost == UNREACHABLE {
            continue;
        }
        for piece in [PieceKind::Worker, PieceKind::Leader] {
            if own.has(piece) {
                actions.push(TikalAction::Move {
                    from: from.clone(),
                    to: data.space_name(goal as u8),
                    piece,
                    cost: Some(cost),
                });
            }
        }
    }
}

/// Uncovering, guarding, recovering and camp building at `space`.
fn site_actions(state: &TikalState, seat: Seat, space: u8, actions: &mut Vec<TikalAction>) {
    let Some(hex) = state.hex(space) else {
        return;
    };
    let data = data();
    let name = || data.space_name(space);
    let player = &state.players[seat as usize];
    let own = state.pieces_at(space, seat);
    match hex.terrain {
        Terrain::Temple if own.count() > 0 => {
            if check_uncover(state, seat, space).is_ok() {
                actions.push(TikalAction::Uncover { space: name() });
            }
            let may_guard = state.action_points_left >= COST_GUARD
                && hex.guard.is_none()
                && player.guards_placed < MAX_GUARDS;
            for piece in [PieceKind::Worker, PieceKind::Leader] {
                if may_guard && own.has(piece) && check_guard(state, seat, space, piece).is_ok() {
                    actions.push(TikalAction::PlaceGuard {
                        space: name(),
                        piece,
                    });
                }
            }
        }
        Terrain::Treasure
            if own.count() > 0
                && !hex.tokens.is_empty()
                && check_recover(state, seat, space).is_ok() =>
        {
            actions.push(TikalAction::Recover { space: name() });
        }
        _ => {}
    }
    if state.action_points_left >= COST_CAMP
        && player.camps_built < data.camps
        && hex.camp.is_none()
        && check_camp(state, seat, space).is_ok()
    {
        actions.push(TikalAction::BuildCamp { space: name() });
    }
}

fn exchange_actions(state: &TikalState, seat: Seat, actions: &mut Vec<TikalAction>) {
    if state.action_points_left < COST_EXCHANGE {
        return;
    }
    let singles = |who: Seat| -> Vec<u8> {
        state.players[who as usize]
            .treasures
            .iter()
            .enumerate()
            .filter(|(_, &n)| n == 1)
            .map(|(kind, _)| kind as u8 + 1)
            .collect()
    };
    let mine = singles(seat);
    for target in (0..state.seats).filter(|&s| s != seat && !mine.is_empty()) {
        for take in singles(target) {
            for &give in mine.iter().filter(|&&g| g != take) {
                actions.push(TikalAction::Exchange { target, take, give });
            }
        }
    }
}
