//! Component data embedded from `data/java/` and parsed once on first use.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

const BOARD_TXT: &str = include_str!("../../../../data/java/board.txt");
const MATERIAL_TXT: &str = include_str!("../../../../data/java/material.txt");
const PALACES_TXT: &str = include_str!("../../../../data/java/palaces.txt");
const FESTIVAL_TXT: &str = include_str!("../../../../data/java/festival.txt");
const CARDS_TXT: &str = include_str!("../../../../data/java/cards.txt");

/// Axial offsets of the six neighbours, counter-clockwise from east:
/// east, north-east, north-west, west, south-west, south-east.
pub const DIRECTIONS: [(i32, i32); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

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
    pub q: i32,
    pub r: i32,
    pub kind: CellKind,
    pub name: String,
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
        self.by_name.get(&name.trim().to_ascii_uppercase()).copied()
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

/// Readable name of an axial cell: row letter (A = northernmost row) and the column in
/// "odd rows shifted east" offset coordinates, counted from 1.
pub fn space_name(q: i32, r: i32) -> String {
    let row = char::from(b'A' + r as u8);
    format!("{}{}", row, q + r.div_euclid(2) + 1)
}

fn parse_board(text: &str) -> Board {
    let mut raw: Vec<(i32, i32, CellKind)> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut parts = trimmed.split_whitespace();
        let r: i32 = parts
            .next()
            .and_then(|p| p.parse().ok())
            .expect("board row");
        let q0: i32 = parts.next().and_then(|p| p.parse().ok()).expect("board q0");
        let cells = parts.next().expect("board cells");
        for (offset, ch) in cells.chars().enumerate() {
            let kind = match ch {
                '.' => CellKind::Land,
                'W' => CellKind::Irrigation,
                'M' => CellKind::Mountains,
                'L' => CellKind::Lowlands,
                '_' => continue,
                other => panic!("unknown board character {other:?}"),
            };
            raw.push((q0 + offset as i32, r, kind));
        }
    }
    let position: HashMap<(i32, i32), usize> = raw
        .iter()
        .enumerate()
        .map(|(i, &(q, r, _))| ((q, r), i))
        .collect();
    let mut cells: Vec<Cell> = raw
        .iter()
        .map(|&(q, r, kind)| {
            let mut neighbors = [None; 6];
            for (d, (dq, dr)) in DIRECTIONS.iter().enumerate() {
                neighbors[d] = position.get(&(q + dq, r + dr)).copied();
            }
            Cell {
                q,
                r,
                kind,
                name: space_name(q, r),
                neighbors,
                printed_edge: false,
            }
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

fn data_lines(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect())
}

fn parse_material(text: &str) -> Material {
    let values: HashMap<&str, u8> = data_lines(text)
        .map(|parts| (parts[0], parts[1].parse().expect("material count")))
        .collect();
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
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[schema(as = JavaSymbol)]
#[serde(rename_all = "snake_case")]
pub enum Symbol {
    Drum,
    Mask,
    Puppet,
}

fn parse_symbol(word: &str) -> Symbol {
    match word {
        "drum" => Symbol::Drum,
        "mask" => Symbol::Mask,
        "puppet" => Symbol::Puppet,
        other => panic!("unknown symbol {other}"),
    }
}

/// Festival points for one palace value.
#[derive(Debug, Clone, Copy)]
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
        let mut palaces: Vec<(u8, u8)> = data_lines(PALACES_TXT)
            .map(|p| {
                (
                    p[0].parse().expect("palace value"),
                    p[1].parse().expect("count"),
                )
            })
            .collect();
        palaces.sort();
        let festival = data_lines(FESTIVAL_TXT)
            .map(|p| FestivalPoints {
                value: p[0].parse().expect("festival value"),
                alone: p[1].parse().expect("festival alone"),
                shared: p[2].parse().expect("festival shared"),
            })
            .collect();
        let cards = data_lines(CARDS_TXT)
            .map(|p| {
                let symbols = p[0].split('+').map(parse_symbol).collect();
                (symbols, p[1].parse().expect("card count"))
            })
            .collect();
        GameData {
            board: parse_board(BOARD_TXT),
            material: parse_material(MATERIAL_TXT),
            palaces,
            festival,
            cards,
        }
    })
}

pub fn board() -> &'static Board {
    &data().board
}
