//! Hexagonal boards: axial coordinates with neighbours and rotation, the two offset layouts
//! our boards are printed in, and the one way every game names a space.
//!
//! Space names are a column letter and a row number, like a chess square: "C3" is the third
//! row of column C. Columns run A, B, C... from west to east, rows 1, 2, 3... from north to
//! south. `docs/vocabulary.md` draws every board with its names.

use serde::{Deserialize, Serialize};

/// A hex in axial coordinates: `q` grows to the east, `r` to the south(-west or -east,
/// depending on the layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Hex {
    pub q: i32,
    pub r: i32,
}

/// The six neighbour directions, clockwise. For flat-top hexes index 0 is north (then NE,
/// SE, S, SW, NW); for pointy-top hexes it is north-west (then NE, E, SE, SW, W). Rotating a piece by one step turns every direction
/// `d` into `d + 1`.
pub const DIRECTIONS: [Hex; 6] = [
    Hex { q: 0, r: -1 },
    Hex { q: 1, r: -1 },
    Hex { q: 1, r: 0 },
    Hex { q: 0, r: 1 },
    Hex { q: -1, r: 1 },
    Hex { q: -1, r: 0 },
];

impl Hex {
    pub const ORIGIN: Hex = Hex { q: 0, r: 0 };

    pub const fn new(q: i32, r: i32) -> Hex {
        Hex { q, r }
    }

    /// The neighbour across edge `direction` (0-5, clockwise, see [`DIRECTIONS`]).
    pub fn neighbour(self, direction: usize) -> Hex {
        self + DIRECTIONS[direction % 6]
    }

    /// All six neighbours, clockwise from direction 0.
    pub fn neighbours(self) -> [Hex; 6] {
        DIRECTIONS.map(|step| self + step)
    }

    /// The direction in which `other` touches `self`, if it is a neighbour.
    pub fn direction_to(self, other: Hex) -> Option<usize> {
        DIRECTIONS.iter().position(|&step| self + step == other)
    }

    /// This offset from the origin turned clockwise by `steps` sixths of a turn.
    pub fn rotated(self, steps: u8) -> Hex {
        (0..steps % 6).fold(self, |hex, _| Hex::new(-hex.r, hex.q + hex.r))
    }

    /// Number of steps between two hexes.
    pub fn distance(self, other: Hex) -> u32 {
        let dq = self.q - other.q;
        let dr = self.r - other.r;
        (dq.unsigned_abs() + dr.unsigned_abs() + (dq + dr).unsigned_abs()) / 2
    }
}

impl std::ops::Add for Hex {
    type Output = Hex;

    fn add(self, other: Hex) -> Hex {
        Hex::new(self.q + other.q, self.r + other.r)
    }
}

/// Per-edge data (stepping stones, ...) of a piece turned clockwise by `steps`: what lay
/// on edge `d` now lies on edge `d + steps`.
pub fn rotate_edges<T: Copy>(edges: [T; 6], steps: u8) -> [T; 6] {
    let steps = usize::from(steps % 6);
    std::array::from_fn(|edge| edges[(edge + 6 - steps) % 6])
}

/// How a board's hexes sit in printed columns and rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Flat-top hexes in columns; odd columns (B, D, ...) sit half a hex lower (Tikal).
    FlatTopOddColumnsLow,
    /// Pointy-top hexes in rows; odd rows (2, 4, ... counted from 1) sit half a hex further
    /// east (Java).
    PointyTopOddRowsEast,
}

impl Layout {
    /// The hex printed in `column` and `row` (both counted from 0).
    pub fn hex_at(self, column: i32, row: i32) -> Hex {
        match self {
            Layout::FlatTopOddColumnsLow => Hex::new(column, row - (column - (column & 1)) / 2),
            Layout::PointyTopOddRowsEast => Hex::new(column - (row - (row & 1)) / 2, row),
        }
    }

    /// The column and row (both counted from 0) in which `hex` is printed.
    pub fn column_row(self, hex: Hex) -> (i32, i32) {
        match self {
            Layout::FlatTopOddColumnsLow => (hex.q, hex.r + (hex.q - (hex.q & 1)) / 2),
            Layout::PointyTopOddRowsEast => (hex.q + (hex.r - (hex.r & 1)) / 2, hex.r),
        }
    }

    /// The space name of `hex`, or `None` when it lies west or north of column A / row 1.
    pub fn name(self, hex: Hex) -> Option<String> {
        let (column, row) = self.column_row(hex);
        space_name(column, row)
    }

    /// The hex named `name`, whether or not the board has it.
    pub fn parse(self, name: &str) -> Option<Hex> {
        let (column, row) = parse_space_name(name)?;
        Some(self.hex_at(column, row))
    }
}

/// "C3" for column 2 and row 2 (both counted from 0); `None` off the lettered range.
pub fn space_name(column: i32, row: i32) -> Option<String> {
    let letter = u8::try_from(column).ok().filter(|c| *c < 26)?;
    (row >= 0).then(|| format!("{}{}", char::from(b'A' + letter), row + 1))
}

/// Column and row (both counted from 0) of a name like "C3". Names are exact: a space has
/// one name, so "c3" or " C3" name nothing.
pub fn parse_space_name(name: &str) -> Option<(i32, i32)> {
    let mut chars = name.chars();
    let letter = chars.next()?;
    if !letter.is_ascii_uppercase() {
        return None;
    }
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let row: i32 = digits.parse().ok()?;
    (row >= 1).then(|| (i32::from(letter as u8 - b'A'), row - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_neighbours_at_distance_one_and_back() {
        let centre = Hex::new(2, -1);
        for (direction, neighbour) in centre.neighbours().into_iter().enumerate() {
            assert_eq!(centre.distance(neighbour), 1);
            assert_eq!(centre.direction_to(neighbour), Some(direction));
            assert_eq!(neighbour.direction_to(centre), Some((direction + 3) % 6));
        }
        assert_eq!(Hex::ORIGIN.distance(Hex::new(2, 1)), 3);
    }

    #[test]
    fn rotation_turns_each_direction_into_the_next() {
        for (direction, step) in DIRECTIONS.into_iter().enumerate() {
            assert_eq!(step.rotated(1), DIRECTIONS[(direction + 1) % 6]);
            assert_eq!(step.rotated(6), step);
        }
        assert_eq!(rotate_edges([1, 2, 0, 0, 0, 0], 1), [0, 1, 2, 0, 0, 0]);
        assert_eq!(rotate_edges([1, 2, 0, 0, 0, 0], 5), [2, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn names_are_column_letter_then_row_number() {
        assert_eq!(space_name(2, 2).as_deref(), Some("C3"));
        assert_eq!(parse_space_name("C3"), Some((2, 2)));
        assert_eq!(parse_space_name("H12"), Some((7, 11)));
        for bad in [
            "", "3C", "C0", "C", "CC3", "C-1", "C1234", "é1", "c3", " C3", "C3 ",
        ] {
            assert_eq!(parse_space_name(bad), None, "{bad:?}");
        }
        assert_eq!(space_name(-1, 0), None);
        assert_eq!(space_name(26, 0), None);
    }

    #[test]
    fn offset_layouts_round_trip_and_keep_printed_neighbours() {
        for layout in [Layout::FlatTopOddColumnsLow, Layout::PointyTopOddRowsEast] {
            for column in 0..8 {
                for row in 0..8 {
                    let hex = layout.hex_at(column, row);
                    assert_eq!(layout.column_row(hex), (column, row));
                    assert_eq!(layout.parse(&layout.name(hex).unwrap()), Some(hex));
                }
            }
        }
        // Tikal: odd column B sits lower, so B1 touches A2 (south-west) and A1 (north-west).
        let flat = Layout::FlatTopOddColumnsLow;
        let b1 = flat.parse("B1").unwrap();
        let west: Vec<String> = [4, 5].map(|d| flat.name(b1.neighbour(d)).unwrap()).to_vec();
        assert_eq!(west, ["A2", "A1"]);
        // Java: row 2 is shifted east, so A2 touches A1 and B1 to the north.
        let pointy = Layout::PointyTopOddRowsEast;
        let a2 = pointy.parse("A2").unwrap();
        let north: Vec<String> = [0, 1]
            .map(|d| pointy.name(a2.neighbour(d)).unwrap())
            .to_vec();
        assert_eq!(north, ["A1", "B1"]);
    }
}
