//! Placing a tile, and the tile every turn owes: which other actions it still allows (rules
//! version 1: those that leave its AP; version 2: those after which a placement is left),
//! and so how every action pays its AP.

use super::board::{name, settlements, space, Settlements};
use super::placement::{check_placement, placements, tiles_in_stock, Placement};
use crate::engine::{RuleError, Seat, SharedRule};
use crate::java::action::TileKind;
use crate::java::codes::JavaRule;
use crate::java::data::board;
use crate::java::event::{EndReason, JavaEvent};
use crate::java::state::{self, JavaState};
use crate::java::Java;
use crate::kit::Emitter;

/// The mandatory tile of this turn has not been placed yet.
pub fn tile_owed(state: &JavaState) -> bool {
    state.turn.tiles_placed == 0 && state.end_started_by.is_none()
}

/// The game is played under rules version 2 or later (2026-11-24): the owed tile may not be
/// blocked, a turn without any possible tile may end with a festival, and the discard pile
/// is reshuffled the moment the deck runs out.
pub fn v2(state: &JavaState) -> bool {
    state.rules_version >= 2
}

/// Whether the current turn, ending now without a tile because none could be placed,
/// begins the end of the game, and why. With `play_on_when_no_tile_fits` only the last of
/// as many tile-less turns in a row as there are players does, so no game runs forever.
pub(super) fn end_without_tile(state: &JavaState) -> Option<EndReason> {
    if !state.play_on_when_no_tile_fits {
        return Some(EndReason::NoTilePlaceable);
    }
    (state.turns_without_tile + 1 >= state.seats).then_some(EndReason::NoTileForARound)
}

/// Some tile in `seat`'s stock (or the common supply) can be placed now for the AP left.
pub fn tile_possible(state: &JavaState, seat: Seat) -> bool {
    !placements(state, seat, &settlements(state), true).is_empty()
}

/// Rules version 2, the mandatory tile: while it is owed, another action is allowed exactly
/// when no placement was possible before it, or one is still possible after it (`after` is
/// the state its events lead to). Only what the action does counts, not its kind: blocking
/// the last free spaces is refused like spending the last AP.
pub(super) fn check_tile_kept(
    state: &JavaState,
    seat: Seat,
    after: &JavaState,
) -> Result<(), RuleError> {
    if !tile_owed(state) || tile_possible(after, seat) || !tile_possible(state, seat) {
        return Ok(());
    }
    Err(RuleError::new(
        JavaRule::TileStillOwed,
        "after this no tile could be placed any more this turn, and one must still be placed",
    ))
}

/// The cost of the cheapest placement `seat` can afford now, if any.
fn cheapest_placement(state: &JavaState, seat: Seat, towns: &Settlements) -> Option<u8> {
    let mut cheapest: Option<u8> = None;
    for kind in TileKind::ALL {
        if tiles_in_stock(state, seat, kind) == 0 {
            continue;
        }
        for space in 0..board().len() {
            for rotation in 0..kind.rotations() {
                if let Ok(p) = check_placement(state, towns, kind, space, rotation) {
                    if p.cost <= 1 {
                        return Some(p.cost);
                    }
                    cheapest = Some(cheapest.map_or(p.cost, |c| c.min(p.cost)));
                }
            }
        }
    }
    cheapest
}

/// AP that other actions must leave for the mandatory tile: the cost of the cheapest
/// placement still affordable (border-rule placements cost more than 1), 0 when none is.
fn reserve(state: &JavaState) -> u8 {
    if !tile_owed(state) {
        return 0;
    }
    cheapest_placement(state, state.current, &settlements(state)).unwrap_or(0)
}

fn affordable_with(state: &JavaState, reserve: u8, cost: u8) -> bool {
    state.turn.ap >= cost.saturating_add(reserve)
}

/// Checks that `cost` AP are left. Under rules version 1 other actions must also leave the
/// AP of the cheapest placement while the tile is owed; version 2 checks instead whether a
/// placement survives the action (`check_tile_kept`, in `decide`).
pub(super) fn pay(state: &JavaState, cost: u8) -> Result<(), RuleError> {
    if state.turn.ap < cost {
        return Err(RuleError::new(
            SharedRule::NotEnoughActionPoints,
            format!("this costs {cost} AP, {} left", state.turn.ap),
        ));
    }
    if v2(state) {
        return Ok(());
    }
    let reserve = reserve(state);
    if !affordable_with(state, reserve, cost) {
        return Err(RuleError::new(
            JavaRule::TileStillOwed,
            format!("keep {reserve} AP for the tile you must still place this turn"),
        ));
    }
    Ok(())
}

pub(super) fn check_cost(given: Option<u8>, actual: u8) -> Result<(), RuleError> {
    match given {
        Some(c) if c != actual => Err(RuleError::new(
            SharedRule::CostMismatch,
            format!("this costs {actual} AP, not {c}"),
        )),
        _ => Ok(()),
    }
}

pub(super) fn decide_place_tile(
    state: &JavaState,
    seat: Seat,
    tile: &TileKind,
    at: &str,
    rotation: &u8,
    cost: &Option<u8>,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(at)?;
    if tiles_in_stock(state, seat, *tile) == 0 {
        return Err(RuleError::new(
            JavaRule::NoTileLeft,
            "no tile of that kind left",
        ));
    }
    let towns = settlements(state);
    let placement = check_placement(state, &towns, *tile, cell, *rotation)?;
    check_cost(*cost, placement.cost)?;
    out.emit(JavaEvent::TilePlaced {
        seat,
        tile: *tile,
        space: name(cell),
        rotation: *rotation,
        village: placement.village.map(name),
        rice: placement.rice().iter().map(|&c| name(c)).collect(),
        cost: placement.cost,
    });
    if *tile == TileKind::ThreeSpace
        && out.state().three_space_tiles == 0
        && out.state().end_started_by.is_none()
    {
        out.emit(JavaEvent::EndTriggered {
            seat,
            reason: EndReason::LastThreeSpaceTile,
        });
    }
    out.water_check();
    Ok(())
}

/// What a non-tile action does to the placements of the owed tile (besides spending AP).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Effect {
    /// Nothing on the board changes (a palace raised, a card bought).
    Spends,
    /// A developer or an irrigation tile comes onto this space.
    Occupies(usize),
    /// A developer leaves the first space for the second.
    Moves(usize, usize),
    /// A developer leaves this space for the reserve.
    Frees(usize),
    /// A palace is built on this space: its village becomes a city.
    Builds(usize),
}

/// Which other actions the owed tile allows, for `legal_actions`. Under rules version 1
/// they must keep `reserve` AP. Under version 2 this is a fast equivalent of
/// `check_tile_kept` (which `decide` applies to the state after the action's events),
/// worked out from the placements listed anyway: an action takes away exactly the
/// placements that cover what it puts on the board (and, for a palace, those that would
/// now join two cities) or that cost more than the AP it leaves, and adds only placements
/// over the space a developer leaves.
pub(crate) struct TileGuard<'a> {
    pub(crate) state: &'a JavaState,
    pub(crate) seat: Seat,
    pub(crate) towns: &'a Settlements,
    /// Every placement possible now.
    pub(crate) tiles: &'a [(TileKind, usize, u8, Placement)],
    /// Version 1: the AP other actions must leave while the tile is owed.
    pub(crate) reserve: u8,
    /// Version 2: the tile is owed and can be placed now, so no action may make it
    /// impossible.
    pub(crate) watching: bool,
}

fn covers(p: &Placement, cell: usize) -> bool {
    p.village == Some(cell) || p.rice().contains(&cell)
}

impl TileGuard<'_> {
    /// Whether an action costing `cost` AP with `effect` is allowed.
    pub(crate) fn allows(&self, cost: u8, effect: Effect) -> bool {
        if !v2(self.state) {
            return affordable_with(self.state, self.reserve, cost);
        }
        let Some(left) = self.state.turn.ap.checked_sub(cost) else {
            return false;
        };
        if !self.watching {
            return true;
        }
        // Every placement costs at least 1 AP.
        if left == 0 {
            return false;
        }
        let kept = |avoid: Option<usize>| {
            self.tiles
                .iter()
                .any(|t| t.3.cost <= left && avoid.is_none_or(|c| !covers(&t.3, c)))
        };
        match effect {
            Effect::Spends => kept(None),
            Effect::Occupies(cell) => kept(Some(cell)),
            Effect::Moves(from, to) => {
                kept(Some(to))
                    || self
                        .placements_over(from)
                        .iter()
                        .any(|p| p.cost <= left && !covers(p, to))
            }
            Effect::Frees(from) => {
                kept(None) || self.placements_over(from).iter().any(|p| p.cost <= left)
            }
            Effect::Builds(cell) => self.kept_after_palace(cell),
        }
    }

    /// The placements covering `cell` once `seat`'s developer has left it (AP as now).
    fn placements_over(&self, cell: usize) -> Vec<Placement> {
        let mut freed = self.state.clone();
        freed.spaces[cell].developer = None;
        let around =
            std::iter::once(cell).chain(board().cells[cell].neighbors.iter().flatten().copied());
        let mut found = Vec::new();
        for kind in TileKind::ALL {
            if tiles_in_stock(&freed, self.seat, kind) == 0 {
                continue;
            }
            for anchor in around.clone() {
                for rotation in 0..kind.rotations() {
                    if let Ok(p) = check_placement(&freed, self.towns, kind, anchor, rotation) {
                        if covers(&p, cell) {
                            found.push(p);
                        }
                    }
                }
            }
        }
        found
    }

    /// Whether a placement is left after a palace is built on `cell` (1 AP).
    fn kept_after_palace(&self, cell: usize) -> bool {
        let mut after = self.state.clone();
        state::evolve(
            &mut after,
            &JavaEvent::PalaceBuilt {
                seat: self.seat,
                space: name(cell),
                value: 2,
                points: 0,
            },
        );
        let towns = settlements(&after);
        self.tiles.iter().any(|&(kind, space, rotation, p)| {
            p.cost <= after.turn.ap
                && !covers(&p, cell)
                && check_placement(&after, &towns, kind, space, rotation).is_ok()
        })
    }
}
