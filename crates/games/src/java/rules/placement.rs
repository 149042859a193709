//! Where a tile may lie: its shape on the map, what it may not cover, the AP it costs and
//! that it may not join two cities. Pure checks, shared by `decide`, `legal_actions` and the
//! mandatory tile's bookkeeping.

use super::board::{is_village, Settlements};
use crate::engine::{RuleError, Seat, SharedRule};
use crate::java::action::TileKind;
use crate::java::codes::JavaRule;
use crate::java::data::{board, CellKind};
use crate::java::state::JavaState;

/// A checked tile placement.
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    pub village: Option<usize>,
    pub rice: [usize; 2],
    pub rice_len: usize,
    pub cost: u8,
}

impl Placement {
    pub fn rice(&self) -> &[usize] {
        &self.rice[..self.rice_len]
    }
}

/// Why a tile cannot lie where it was asked to: cheap to produce while legal placements
/// are searched, turned into a [`RuleError`] only when an action is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementRefusal {
    InvalidRotation,
    OffBoard,
    CoversIrrigation,
    CoversDeveloper,
    CoversPalace,
    NotFlat,
    NoBoardSpace,
    Congruent,
    NotEnoughActionPoints,
    JoinsCities,
}

impl From<PlacementRefusal> for RuleError {
    fn from(refusal: PlacementRefusal) -> RuleError {
        use PlacementRefusal as R;
        match refusal {
            R::InvalidRotation => RuleError::new(
                SharedRule::InvalidRotation,
                "rotation must be 0..5 (0 for one-space tiles)",
            ),
            R::OffBoard => RuleError::new(JavaRule::OffBoard, "the tile would lie outside the map"),
            R::CoversIrrigation => RuleError::new(
                JavaRule::CoversIrrigation,
                "a tile may not cover irrigation",
            ),
            R::CoversDeveloper => RuleError::new(
                JavaRule::CoversDeveloper,
                "a tile may not cover a developer",
            ),
            R::CoversPalace => {
                RuleError::new(JavaRule::CoversPalace, "a tile may not cover a palace")
            }
            R::NotFlat => RuleError::new(
                JavaRule::NotFlat,
                "every space under a tile must be at the same height",
            ),
            R::NoBoardSpace => RuleError::new(
                JavaRule::NoBoardSpace,
                "a tile must cover at least one space of the board",
            ),
            R::Congruent => RuleError::new(
                JavaRule::Congruent,
                "a tile may not lie exactly on a tile of the same size",
            ),
            R::NotEnoughActionPoints => RuleError::new(
                SharedRule::NotEnoughActionPoints,
                "not enough AP for this placement",
            ),
            R::JoinsCities => {
                RuleError::new(JavaRule::JoinsCities, "a tile may not join two cities")
            }
        }
    }
}

/// Cells of a tile laid at `space` with `rotation`: (village, rice cells, rice count).
fn tile_shape(
    kind: TileKind,
    space: usize,
    rotation: u8,
) -> Result<(Option<usize>, [usize; 2], usize), PlacementRefusal> {
    if rotation >= kind.rotations() {
        return Err(PlacementRefusal::InvalidRotation);
    }
    let neighbors = &board().cells[space].neighbors;
    let o = rotation as usize;
    match kind {
        // Rice on the edge `rotation` points to and on the edge just counter-clockwise of it.
        TileKind::ThreeSpace => match (neighbors[o], neighbors[(o + 5) % 6]) {
            (Some(a), Some(b)) => Ok((Some(space), [a, b], 2)),
            _ => Err(PlacementRefusal::OffBoard),
        },
        TileKind::TwoSpace => match neighbors[o] {
            Some(a) => Ok((Some(space), [a, 0], 1)),
            None => Err(PlacementRefusal::OffBoard),
        },
        TileKind::OneSpaceRice => Ok((None, [space, 0], 1)),
        TileKind::OneSpaceVillage => Ok((Some(space), [0, 0], 0)),
    }
}

pub fn tiles_in_stock(state: &JavaState, seat: Seat, kind: TileKind) -> u8 {
    let player = &state.players[seat as usize];
    match kind {
        TileKind::ThreeSpace => state.three_space_tiles,
        TileKind::TwoSpace => player.two_space_tiles,
        TileKind::OneSpaceRice => player.one_space_rice_tiles,
        TileKind::OneSpaceVillage => player.one_space_village_tiles,
    }
}

/// Checks every placement rule except the stock; returns the rule code on failure.
pub fn check_placement(
    state: &JavaState,
    towns: &Settlements,
    kind: TileKind,
    space: usize,
    rotation: u8,
) -> Result<Placement, PlacementRefusal> {
    let cells_info = &board().cells;
    let (village, rice, rice_len) = tile_shape(kind, space, rotation)?;
    let mut cells = [0usize; 3];
    let mut count = 0;
    if let Some(v) = village {
        cells[count] = v;
        count += 1;
    }
    for &r in &rice[..rice_len] {
        cells[count] = r;
        count += 1;
    }
    let cells = &cells[..count];
    let height = state.spaces[cells[0]].height;
    let mut on_board = 0;
    let mut overhang = 0u8;
    for &cell in cells {
        let space = &state.spaces[cell];
        let info = &cells_info[cell];
        if info.kind == CellKind::Irrigation || space.irrigation {
            return Err(PlacementRefusal::CoversIrrigation);
        }
        if space.developer.is_some() {
            return Err(PlacementRefusal::CoversDeveloper);
        }
        if space.palace.is_some() {
            return Err(PlacementRefusal::CoversPalace);
        }
        if space.height != height {
            return Err(PlacementRefusal::NotFlat);
        }
        if info.kind == CellKind::Land || space.height > 0 {
            on_board += 1;
        } else {
            overhang += 1;
        }
    }
    if on_board == 0 {
        return Err(PlacementRefusal::NoBoardSpace);
    }
    if let Some(top) = state.spaces[cells[0]].top_tile {
        let same_tile = cells.iter().all(|&c| state.spaces[c].top_tile == Some(top));
        if same_tile && state.tile_sizes.get(top as usize) == Some(&(count as u8)) {
            return Err(PlacementRefusal::Congruent);
        }
    }
    let cost = 1 + overhang;
    if cost > state.turn.ap {
        return Err(PlacementRefusal::NotEnoughActionPoints);
    }
    if let Some(v) = village {
        if joins_cities(state, towns, v, &rice[..rice_len]) {
            return Err(PlacementRefusal::JoinsCities);
        }
    }
    Ok(Placement {
        village,
        rice,
        rice_len,
        cost,
    })
}

/// Whether a new village space at `village` (with `rice` covered by rice) would connect
/// two palaces into one settlement.
fn joins_cities(state: &JavaState, towns: &Settlements, village: usize, rice: &[usize]) -> bool {
    let cells = &board().cells;
    let mut first_city: Option<u16> = None;
    let mut two_cities = false;
    for &n in cells[village].neighbors.iter().flatten() {
        if rice.contains(&n) || !is_village(state, n) {
            continue;
        }
        let id = towns.of[n];
        if towns.groups[id as usize].palace.is_none() {
            continue;
        }
        match first_city {
            None => first_city = Some(id),
            Some(first) if first != id => two_cities = true,
            Some(_) => {}
        }
    }
    if !two_cities {
        return false;
    }
    // Covering parts of a city may cut its palace off, so count what really connects.
    let mut seen = vec![false; cells.len()];
    let mut stack = vec![village];
    seen[village] = true;
    let mut palaces = 0;
    while let Some(cell) = stack.pop() {
        if cell != village && state.spaces[cell].palace.is_some() {
            palaces += 1;
            if palaces >= 2 {
                return true;
            }
        }
        for &n in cells[cell].neighbors.iter().flatten() {
            if !seen[n] && !rice.contains(&n) && is_village(state, n) {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    false
}

/// Every placement of every tile `seat` has, with its cost (within the AP left).
/// With `first_only`, stops at the first one found.
pub fn placements(
    state: &JavaState,
    seat: Seat,
    towns: &Settlements,
    first_only: bool,
) -> Vec<(TileKind, usize, u8, Placement)> {
    let mut found = Vec::new();
    for kind in TileKind::ALL {
        if tiles_in_stock(state, seat, kind) == 0 {
            continue;
        }
        for space in 0..board().len() {
            for rotation in 0..kind.rotations() {
                if let Ok(p) = check_placement(state, towns, kind, space, rotation) {
                    found.push((kind, space, rotation, p));
                    if first_only {
                        return found;
                    }
                }
            }
        }
    }
    found
}
