//! Component data embedded from `data/java/` and parsed once on first use.

use std::collections::HashMap;
use std::sync::OnceLock;

use get_size2::GetSize;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::kit::data::embedded;
use crate::kit::hex::{Hex, Layout};

const BOARD_TXT: &str = include_str!("../../../../data/java/board.txt");
const MATERIAL_TXT: &str = include_str!("../../../../data/java/material.txt");
const PALACES_TXT: &str = include_str!("../../../../data/java/palaces.txt");
const FESTIVAL_TXT: &str = include_str!("../../../../data/java/festival.txt");
const CARDS_TXT: &str = include_str!("../../../../data/java/cards.txt");

/// Java's board: pointy-top hexes in rows, even-numbered rows half a hex further east.
pub const LAYOUT: Layout = Layout::PointyTopOddRowsEast;

/// What a cell of the printed board is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaCellKind)]
#[serde(rename_all = "snake_case")]
pub enum CellKind {
    /// A land space of central Java.
    Land,
    /// A pre-printed irrigation space of central Java.
    Irrigation,
    /// Mountains outside central Java (2 AP to enter or leave across).
    Mountains,
    /// Lowlands outside central Java (1 AP to enter or leave across).
    Lowlands,
}

impl CellKind {
    /// Mountains and lowlands: outside central Java, covered only under the border rule.
    pub fn is_border(self) -> bool {
        matches!(self, CellKind::Mountains | CellKind::Lowlands)
    }
}

#[derive(Debug, Clone)]
pub struct Cell {
    pub hex: Hex,
    pub kind: CellKind,
    pub name: String,
    /// The cell across each edge, clockwise from north-west (see [`crate::kit::hex::DIRECTIONS`]).
    pub neighbors: [Option<usize>; 6],
    /// A land space next to mountains or lowlands: the printed rim of central Java,
    /// where irrigation tiles may not go.
    pub printed_edge: bool,
}

#[derive(Debug)]
pub struct Board {
    pub cells: Vec<Cell>,
    by_name: HashMap<String, usize>,
}

impl Board {
    pub fn index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub fn name(&self, index: usize) -> &str {
        &self.cells[index].name
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

/// A line of `board.txt`: row `r`, the `q` of its first character, one character per cell.
#[derive(Debug, Deserialize)]
struct BoardRow {
    r: i32,
    q0: i32,
    cells: String,
}

fn cell_kind(symbol: char) -> Option<CellKind> {
    match symbol {
        '.' => Some(CellKind::Land),
        'W' => Some(CellKind::Irrigation),
        'M' => Some(CellKind::Mountains),
        'L' => Some(CellKind::Lowlands),
        '_' => None,
        other => panic!("board.txt: unknown board character {other:?}"),
    }
}

fn parse_board(rows: Vec<BoardRow>) -> Board {
    let raw: Vec<(Hex, CellKind)> = rows
        .iter()
        .flat_map(|row| {
            row.cells
                .chars()
                .enumerate()
                .filter_map(move |(offset, symbol)| {
                    cell_kind(symbol).map(|kind| (Hex::new(row.q0 + offset as i32, row.r), kind))
                })
        })
        .collect();
    let position: HashMap<Hex, usize> = raw
        .iter()
        .enumerate()
        .map(|(i, &(hex, _))| (hex, i))
        .collect();
    let mut cells: Vec<Cell> = raw
        .iter()
        .map(|&(hex, kind)| Cell {
            hex,
            kind,
            name: LAYOUT.name(hex).expect("board.txt: every cell has a name"),
            neighbors: hex.neighbours().map(|next| position.get(&next).copied()),
            printed_edge: false,
        })
        .collect();
    for i in 0..cells.len() {
        let edge = cells[i].kind == CellKind::Land
            && cells[i]
                .neighbors
                .iter()
                .flatten()
                .any(|&n| cells[n].kind.is_border());
        cells[i].printed_edge = edge;
    }
    let by_name = cells
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.clone(), i))
        .collect();
    Board { cells, by_name }
}

/// Counts from `material.txt`.
#[derive(Debug, Clone)]
pub struct Material {
    pub developers: u8,
    pub action_chips: u8,
    pub two_space_tiles: u8,
    pub one_space_rice_tiles: u8,
    pub one_space_village_tiles: u8,
    pub palace_cards_dealt: u8,
    pub three_space_tiles: u8,
    pub irrigation_tiles: u8,
}

fn parse_material(lines: Vec<(String, u8)>) -> Material {
    let values: HashMap<String, u8> = lines.into_iter().collect();
    let get = |key: &str| *values.get(key).unwrap_or_else(|| panic!("material {key}"));
    Material {
        developers: get("developers"),
        action_chips: get("action_chips"),
        two_space_tiles: get("two_space_tiles"),
        one_space_rice_tiles: get("one_space_rice_tiles"),
        one_space_village_tiles: get("one_space_village_tiles"),
        palace_cards_dealt: get("palace_cards_dealt"),
        three_space_tiles: get("three_space_tiles"),
        irrigation_tiles: get("irrigation_tiles"),
    }
}

/// One of the three festival symbols on palace cards.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    GetSize,
    ToSchema,
)]
#[schema(as = JavaSymbol)]
#[serde(rename_all = "snake_case")]
pub enum Symbol {
    Drum,
    Mask,
    Puppet,
}

/// Festival points for one palace value (a line of `festival.txt`).
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct FestivalPoints {
    pub value: u8,
    pub alone: u8,
    pub shared: u8,
}

#[derive(Debug)]
pub struct GameData {
    pub board: Board,
    pub material: Material,
    /// (value, count) of palace tiles, ascending by value.
    pub palaces: Vec<(u8, u8)>,
    pub festival: Vec<FestivalPoints>,
    /// Deck composition: symbols of one card kind and how many such cards.
    pub cards: Vec<(Vec<Symbol>, u8)>,
}

impl GameData {
    pub fn festival_points(&self, value: u8) -> FestivalPoints {
        self.festival
            .iter()
            .copied()
            .find(|f| f.value == value)
            .unwrap_or(FestivalPoints {
                value,
                alone: value / 2,
                shared: 0,
            })
    }

    pub fn palace_values(&self) -> impl Iterator<Item = u8> + '_ {
        self.palaces.iter().map(|&(v, _)| v)
    }
}

pub fn data() -> &'static GameData {
    static DATA: OnceLock<GameData> = OnceLock::new();
    DATA.get_or_init(|| {
        let mut palaces: Vec<(u8, u8)> = embedded("palaces.txt", PALACES_TXT);
        palaces.sort();
        GameData {
            board: parse_board(embedded("board.txt", BOARD_TXT)),
            material: parse_material(embedded("material.txt", MATERIAL_TXT)),
            palaces,
            festival: embedded("festival.txt", FESTIVAL_TXT),
            cards: embedded("cards.txt", CARDS_TXT),
        }
    })
}

pub fn board() -> &'static Board {
    &data().board
}
