//! What the board shows, for every rule that reads it: spaces by name, the villages and the
//! cities they become, and which seat ranks highest among the developers on some spaces.

use crate::engine::{RuleError, Seat, SharedRule};
use crate::java::data::board;
use crate::java::state::{JavaState, Terrain};

const NO_SETTLEMENT: u16 = u16::MAX;

/// A connected group of village spaces (a city when it holds a palace).
#[derive(Debug, Clone)]
pub struct Settlement {
    pub cells: Vec<usize>,
    /// Index of the palace in this settlement, if it is a city.
    pub palace: Option<u8>,
}

#[derive(Debug, Clone)]
pub struct Settlements {
    /// Settlement id of every space (`NO_SETTLEMENT` for non-village spaces).
    pub of: Vec<u16>,
    pub groups: Vec<Settlement>,
}

impl Settlements {
    pub fn of_space(&self, space: usize) -> Option<&Settlement> {
        match self.of.get(space) {
            Some(&id) if id != NO_SETTLEMENT => self.groups.get(id as usize),
            _ => None,
        }
    }
}

pub(super) fn is_village(state: &JavaState, cell: usize) -> bool {
    state.spaces[cell].terrain == Some(Terrain::Village)
}

pub fn settlements(state: &JavaState) -> Settlements {
    let cells = &board().cells;
    let mut of = vec![NO_SETTLEMENT; cells.len()];
    let mut groups = Vec::new();
    let mut stack = Vec::new();
    for start in 0..cells.len() {
        if of[start] != NO_SETTLEMENT || !is_village(state, start) {
            continue;
        }
        let id = groups.len() as u16;
        let mut group = Settlement {
            cells: Vec::new(),
            palace: None,
        };
        of[start] = id;
        stack.push(start);
        while let Some(cell) = stack.pop() {
            group.cells.push(cell);
            if let Some(p) = state.spaces[cell].palace {
                group.palace.get_or_insert(p);
            }
            for &n in cells[cell].neighbors.iter().flatten() {
                if of[n] == NO_SETTLEMENT && is_village(state, n) {
                    of[n] = id;
                    stack.push(n);
                }
            }
        }
        group.cells.sort_unstable();
        groups.push(group);
    }
    Settlements { of, groups }
}

/// Each present seat's developer heights on `cells`, highest first.
pub fn strengths(state: &JavaState, cells: &[usize]) -> Vec<(Seat, Vec<u8>)> {
    let mut per_seat: Vec<Vec<u8>> = vec![Vec::new(); state.seats as usize];
    for &cell in cells {
        let space = &state.spaces[cell];
        if let Some(seat) = space.developer {
            per_seat[seat as usize].push(space.height);
        }
    }
    per_seat
        .into_iter()
        .enumerate()
        .filter(|(_, heights)| !heights.is_empty())
        .map(|(seat, mut heights)| {
            heights.sort_unstable_by(|a, b| b.cmp(a));
            (seat as Seat, heights)
        })
        .collect()
}

/// The seat with the highest rank, if exactly one has it. Heights compare highest first;
/// a seat with an extra developer wins an otherwise equal comparison.
pub fn highest_rank(strengths: &[(Seat, Vec<u8>)]) -> Option<Seat> {
    let best = strengths.iter().map(|(_, h)| h).max()?;
    let mut leaders = strengths.iter().filter(|(_, h)| h == best);
    let leader = leaders.next()?.0;
    match leaders.next() {
        Some(_) => None,
        None => Some(leader),
    }
}

pub(super) fn space(name: &str) -> Result<usize, RuleError> {
    board()
        .index(name)
        .ok_or_else(|| RuleError::new(SharedRule::UnknownSpace, format!("no space named {name:?}")))
}

pub(crate) fn name(cell: usize) -> String {
    board().name(cell).to_string()
}
