//! Developers enter and leave central Java at the rim and move over tiles: free within one
//! terrain, 1 AP per change between rice and village.

use std::collections::VecDeque;

use super::board::{name, space};
use super::tiles::{check_cost, pay, Effect, TileGuard};
use crate::engine::{RuleError, Seat, SharedRule};
use crate::java::action::JavaAction;
use crate::java::codes::JavaRule;
use crate::java::data::{board, CellKind};
use crate::java::event::JavaEvent;
use crate::java::state::JavaState;
use crate::java::Java;
use crate::kit::Emitter;

const UNREACHABLE: u8 = u8::MAX;

/// AP to enter or leave central Java at `cell`: 1 next to uncovered lowlands, else 2 next
/// to uncovered mountains; `None` if the cell has no tile or is not at the rim.
pub fn rim_cost(state: &JavaState, cell: usize) -> Option<u8> {
    if state.spaces[cell].height == 0 {
        return None;
    }
    let cells = &board().cells;
    let mut cost = None;
    for &n in cells[cell].neighbors.iter().flatten() {
        if state.spaces[n].height > 0 {
            continue;
        }
        match cells[n].kind {
            CellKind::Lowlands => return Some(1),
            CellKind::Mountains => cost = Some(2),
            _ => {}
        }
    }
    cost
}

/// Cheapest AP cost from `from` to every space for `seat`'s developer (`UNREACHABLE` if
/// none): free within one terrain, 1 AP per change between rice and village.
pub fn move_costs(state: &JavaState, seat: Seat, from: usize) -> Vec<u8> {
    let cells = &board().cells;
    let mut cost = vec![UNREACHABLE; cells.len()];
    let passable = |c: usize| {
        let s = &state.spaces[c];
        s.height > 0 && s.palace.is_none() && s.developer.is_none_or(|d| d == seat)
    };
    let mut queue = VecDeque::new();
    cost[from] = 0;
    queue.push_back(from);
    while let Some(cell) = queue.pop_front() {
        let here = cost[cell];
        for &n in cells[cell].neighbors.iter().flatten() {
            if !passable(n) {
                continue;
            }
            let step = u8::from(state.spaces[n].terrain != state.spaces[cell].terrain);
            let next = here + step;
            if next < cost[n] {
                cost[n] = next;
                if step == 0 {
                    queue.push_front(n);
                } else {
                    queue.push_back(n);
                }
            }
        }
    }
    cost
}

pub(super) fn decide_enter_developer(
    state: &JavaState,
    seat: Seat,
    to: &str,
    cost: &Option<u8>,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(to)?;
    if state.players[seat as usize].developers == 0 {
        return Err(RuleError::new(
            JavaRule::NoDeveloperInReserve,
            "all your developers are on the board",
        ));
    }
    check_free_tile(state, cell)?;
    let rim = rim_cost(state, cell)
        .ok_or_else(|| RuleError::new(JavaRule::NotRimSpace, "developers enter only at the rim"))?;
    check_cost(*cost, rim)?;
    pay(state, rim)?;
    out.emit(JavaEvent::DeveloperEntered {
        seat,
        to: name(cell),
        cost: rim,
    });
    Ok(())
}

pub(super) fn decide_move_developer(
    state: &JavaState,
    seat: Seat,
    from: &str,
    to: &str,
    cost: &Option<u8>,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let start = own_developer(state, seat, from)?;
    let cell = space(to)?;
    if cell == start {
        return Err(RuleError::new(
            SharedRule::SameSpace,
            "the developer is already there",
        ));
    }
    check_free_tile(state, cell)?;
    let steps = move_costs(state, seat, start)[cell];
    if steps == UNREACHABLE {
        return Err(RuleError::new(
            SharedRule::NoPath,
            "no path over tiles that avoids palaces and other players' developers",
        ));
    }
    check_cost(*cost, steps)?;
    pay(state, steps)?;
    out.emit(JavaEvent::DeveloperMoved {
        seat,
        from: name(start),
        to: name(cell),
        cost: steps,
    });
    Ok(())
}

pub(super) fn decide_withdraw_developer(
    state: &JavaState,
    seat: Seat,
    from: &str,
    cost: &Option<u8>,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = own_developer(state, seat, from)?;
    let rim = rim_cost(state, cell).ok_or_else(|| {
        RuleError::new(JavaRule::NotRimSpace, "developers leave only from the rim")
    })?;
    check_cost(*cost, rim)?;
    pay(state, rim)?;
    out.emit(JavaEvent::DeveloperWithdrawn {
        seat,
        from: name(cell),
        cost: rim,
    });
    Ok(())
}

fn check_free_tile(state: &JavaState, cell: usize) -> Result<(), RuleError> {
    let s = &state.spaces[cell];
    if s.height == 0 {
        return Err(RuleError::new(
            JavaRule::NoTileThere,
            "developers stand only on tiles",
        ));
    }
    if s.developer.is_some() || s.palace.is_some() {
        return Err(RuleError::new(
            SharedRule::SpaceOccupied,
            "the space is not empty",
        ));
    }
    Ok(())
}

fn own_developer(state: &JavaState, seat: Seat, from: &str) -> Result<usize, RuleError> {
    let cell = space(from)?;
    if state.spaces[cell].developer != Some(seat) {
        return Err(RuleError::new(
            JavaRule::NotYourDeveloper,
            format!("you have no developer on {from}"),
        ));
    }
    Ok(cell)
}

/// Entering, moving and withdrawing developers that the owed tile allows.
pub(crate) fn developer_actions(
    state: &JavaState,
    seat: Seat,
    guard: &TileGuard,
    actions: &mut Vec<JavaAction>,
) {
    let cells = &board().cells;
    if state.players[seat as usize].developers > 0 {
        for cell in 0..cells.len() {
            let s = &state.spaces[cell];
            if s.developer.is_some() || s.palace.is_some() {
                continue;
            }
            if let Some(cost) =
                rim_cost(state, cell).filter(|&cost| guard.allows(cost, Effect::Occupies(cell)))
            {
                actions.push(JavaAction::EnterDeveloper {
                    to: name(cell),
                    cost: Some(cost),
                });
            }
        }
    }
    for from in (0..cells.len()).filter(|from| state.spaces[*from].developer == Some(seat)) {
        let costs = move_costs(state, seat, from);
        for (to, &cost) in costs.iter().enumerate() {
            let s = &state.spaces[to];
            if to != from
                && cost != UNREACHABLE
                && s.developer.is_none()
                && guard.allows(cost, Effect::Moves(from, to))
            {
                actions.push(JavaAction::MoveDeveloper {
                    from: name(from),
                    to: name(to),
                    cost: Some(cost),
                });
            }
        }
        if let Some(cost) =
            rim_cost(state, from).filter(|&cost| guard.allows(cost, Effect::Frees(from)))
        {
            actions.push(JavaAction::WithdrawDeveloper {
                from: name(from),
                cost: Some(cost),
            });
        }
    }
}
