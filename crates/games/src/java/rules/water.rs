//! Water areas score once tiles and irrigation close them in, for the seat ranking highest
//! on the shore; placing a tile and placing irrigation both check for them.

use super::board::{highest_rank, name, strengths};
use crate::engine::Seat;
use crate::java::data::{board, CellKind};
use crate::java::event::JavaEvent;
use crate::java::state::JavaState;
use crate::java::Java;
use crate::kit::Emitter;

/// Fame points per irrigation space of a newly enclosed water area.
pub const POINTS_PER_WATER_SPACE: u8 = 3;

fn is_water(state: &JavaState, cell: usize) -> bool {
    board().cells[cell].kind == CellKind::Irrigation || state.spaces[cell].irrigation
}

/// Water areas enclosed by tiles that have not been scored yet:
/// (spaces, scorer, points).
pub fn newly_enclosed_water(state: &JavaState) -> Vec<(Vec<usize>, Option<Seat>, u8)> {
    let cells = &board().cells;
    let mut seen = vec![false; cells.len()];
    let mut result = Vec::new();
    for start in 0..cells.len() {
        if seen[start] || !is_water(state, start) || state.spaces[start].water_scored {
            continue;
        }
        let mut area = Vec::new();
        let mut shore = Vec::new();
        let mut enclosed = true;
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(cell) = stack.pop() {
            area.push(cell);
            for slot in cells[cell].neighbors {
                let Some(n) = slot else {
                    enclosed = false;
                    continue;
                };
                if is_water(state, n) {
                    if !seen[n] {
                        seen[n] = true;
                        stack.push(n);
                    }
                } else if state.spaces[n].height == 0 {
                    enclosed = false;
                } else if !shore.contains(&n) {
                    shore.push(n);
                }
            }
        }
        if enclosed {
            area.sort_unstable();
            let scorer = highest_rank(&strengths(state, &shore));
            let points = POINTS_PER_WATER_SPACE.saturating_mul(area.len() as u8);
            result.push((area, scorer, points));
        }
    }
    result
}

/// Scoring water, on the working copy of the state.
impl Emitter<Java> {
    pub(super) fn water_check(&mut self) {
        for (area, scorer, points) in newly_enclosed_water(self.state()) {
            self.emit(JavaEvent::WaterEnclosed {
                spaces: area.into_iter().map(name).collect(),
                scorer,
                points: if scorer.is_some() { points } else { 0 },
            });
        }
    }
}
