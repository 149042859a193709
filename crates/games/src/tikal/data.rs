//! The printed material of Tikal, parsed once from the embedded files in `data/tikal/`.
//!
//! Board spaces are numbered `column * rows + row` internally and named like `"C3"`
//! (column letter, row number from 1) everywhere a client sees them.

use std::sync::OnceLock;

use get_size2::GetSize;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::kit::data::records;
use crate::kit::hex::{parse_space_name, space_name, Layout};

/// Tikal's board: flat-top hexes in columns, odd columns half a hex lower.
pub const LAYOUT: Layout = Layout::FlatTopOddColumnsLow;

const TILES_TXT: &str = include_str!("../../../../data/tikal/tiles.txt");
const BOARD_TXT: &str = include_str!("../../../../data/tikal/board.txt");
const TOKENS_TXT: &str = include_str!("../../../../data/tikal/tokens.txt");

/// Prefix that turns a tile code of `tiles.txt` ("A1") into its id ("tile-A1"), so that
/// tile ids never collide with space names.
pub const TILE_ID_PREFIX: &str = "tile-";
/// Prefix of the ids of treasure tokens ("treasure-3b": kind 3, copy b).
pub const TREASURE_ID_PREFIX: &str = "treasure-";

/// Edge directions of a flat-top hex, clockwise from north.
pub const EDGES: usize = 6;

/// What a hex shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TikalTerrain)]
pub enum Terrain {
    /// The pre-printed base camp where every expedition enters.
    BaseCamp,
    /// A temple that scores its top number for the strongest expedition.
    Temple,
    /// Jungle: a place for camps.
    Jungle,
    /// A treasure site; face-down treasure tokens are put on it when it is laid.
    Treasure,
    /// A volcano: triggers a scoring round when drawn and can never be entered.
    Volcano,
}

impl Terrain {
    pub fn name(self) -> &'static str {
        match self {
            Terrain::BaseCamp => "base camp",
            Terrain::Temple => "temple",
            Terrain::Jungle => "jungle",
            Terrain::Treasure => "treasure",
            Terrain::Volcano => "volcano",
        }
    }
}

/// One terrain hex of the draw stacks, or one of the pre-printed hexes.
#[derive(Debug, Clone)]
pub struct TileDef {
    /// Unique id, e.g. "tile-A1" or "start-base-camp".
    pub id: String,
    /// Back letter of the stack ('A'..'G'); '-' for pre-printed hexes.
    pub stack: char,
    pub terrain: Terrain,
    /// Printed temple value, or number of treasure masks; 0 otherwise.
    pub value: u8,
    /// Stones on the edges N, NE, SE, S, SW, NW at rotation 0.
    pub stones: [u8; EDGES],
}

#[derive(Debug, Clone)]
pub struct PrePrinted {
    pub tile: TileDef,
    pub space: u8,
}

#[derive(Debug)]
pub struct GameData {
    pub columns: u8,
    pub rows: u8,
    /// Neighbour of each space in each direction.
    pub neighbours: Vec<[Option<u8>; EDGES]>,
    /// The 36 hexes of the draw stacks, in file order.
    pub tiles: Vec<TileDef>,
    pub preprinted: Vec<PrePrinted>,
    /// Number of square temple tiles per number (index = number).
    pub temple_tiles: Vec<u8>,
    /// Copies of each treasure kind (index = kind - 1).
    pub treasure_copies: Vec<u8>,
    /// Points for holding 1, 2, 3... tokens of one kind (index = count - 1).
    pub set_points: Vec<u32>,
    pub leaders: u8,
    pub workers: u8,
    pub camps: u8,
}

impl GameData {
    pub fn spaces(&self) -> usize {
        self.columns as usize * self.rows as usize
    }

    pub fn treasure_kinds(&self) -> usize {
        self.treasure_copies.len()
    }

    /// "C3" for column 2, row 2.
    pub fn space_name(&self, space: u8) -> String {
        let (column, row) = self.column_row(space);
        space_name(column, row).unwrap_or_default()
    }

    /// The space named `name`, if it is on the board.
    pub fn parse_space(&self, name: &str) -> Option<u8> {
        let (column, row) = parse_space_name(name)?;
        self.space_at(column, row)
    }

    fn column_row(&self, space: u8) -> (i32, i32) {
        (i32::from(space / self.rows), i32::from(space % self.rows))
    }

    fn space_at(&self, column: i32, row: i32) -> Option<u8> {
        let on_board = (0..i32::from(self.columns)).contains(&column)
            && (0..i32::from(self.rows)).contains(&row);
        on_board.then(|| (column * i32::from(self.rows) + row) as u8)
    }

    /// The space across edge `direction` (0-5 clockwise from north) of `space`.
    fn neighbour_of(&self, space: u8, direction: usize) -> Option<u8> {
        let (column, row) = self.column_row(space);
        let hex = LAYOUT.hex_at(column, row).neighbour(direction);
        let (column, row) = LAYOUT.column_row(hex);
        self.space_at(column, row)
    }

    pub fn tile(&self, id: &str) -> Option<&TileDef> {
        self.tiles.iter().find(|t| t.id == id)
    }

    /// Kind (1-based) of the treasure token with this id.
    pub fn treasure_kind_of(&self, id: &str) -> Option<u8> {
        let rest = id.strip_prefix(TREASURE_ID_PREFIX)?;
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let kind: u8 = digits.parse().ok()?;
        (kind >= 1 && kind as usize <= self.treasure_kinds()).then_some(kind)
    }

    /// Ids of all treasure tokens, kind by kind.
    pub fn treasure_ids(&self) -> Vec<String> {
        let mut ids = Vec::new();
        for (index, copies) in self.treasure_copies.iter().enumerate() {
            for copy in 0..*copies {
                ids.push(format!(
                    "{TREASURE_ID_PREFIX}{}{}",
                    index + 1,
                    (b'a' + copy) as char
                ));
            }
        }
        ids
    }

    pub fn set_points_for(&self, count: u8) -> u32 {
        if count == 0 {
            return 0;
        }
        let index = (count as usize - 1).min(self.set_points.len().saturating_sub(1));
        self.set_points.get(index).copied().unwrap_or(0)
    }
}

pub fn opposite(direction: usize) -> usize {
    (direction + 3) % EDGES
}

pub fn data() -> &'static GameData {
    static DATA: OnceLock<GameData> = OnceLock::new();
    DATA.get_or_init(|| parse_all().unwrap_or_else(|message| panic!("tikal data: {message}")))
}

/// A line of `tiles.txt`.
#[derive(Debug, Deserialize)]
struct TileRecord {
    code: String,
    stack: char,
    terrain: Terrain,
    value: Option<u8>,
    stones: [u8; EDGES],
}

/// A line of `board.txt`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum BoardRecord {
    Board {
        columns: u8,
        rows: u8,
    },
    Preprinted {
        id: String,
        space: String,
        terrain: Terrain,
        value: Option<u8>,
        stones: [u8; EDGES],
    },
}

/// A line of `tokens.txt`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum TokenRecord {
    Temple { number: usize, count: u8 },
    Treasure { kind: usize, copies: u8 },
    SetPoints { count: usize, points: u32 },
    Material { item: Material, count: u8 },
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Material {
    Leader,
    Worker,
    Camp,
}

fn parse_all() -> Result<GameData, String> {
    let mut data = parse_board(records("board.txt", BOARD_TXT).map_err(|e| e.to_string())?)?;
    data.tiles = records::<TileRecord>("tiles.txt", TILES_TXT)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|tile| TileDef {
            id: format!("{TILE_ID_PREFIX}{}", tile.code),
            stack: tile.stack,
            terrain: tile.terrain,
            value: tile.value.unwrap_or(0),
            stones: tile.stones,
        })
        .collect();
    for record in records("tokens.txt", TOKENS_TXT).map_err(|e| e.to_string())? {
        add_tokens(&mut data, record)?;
    }
    if data.leaders != 1 {
        return Err("tokens.txt: the engine models exactly one leader per player".into());
    }
    Ok(data)
}

fn parse_board(lines: Vec<BoardRecord>) -> Result<GameData, String> {
    let (columns, rows) = lines
        .iter()
        .find_map(|line| match line {
            BoardRecord::Board { columns, rows } => Some((*columns, *rows)),
            BoardRecord::Preprinted { .. } => None,
        })
        .ok_or("board.txt: no board line")?;
    if columns == 0 || rows == 0 || columns > 26 || rows > 9 {
        return Err("board.txt: bad board size".into());
    }
    let mut data = GameData {
        columns,
        rows,
        neighbours: Vec::new(),
        tiles: Vec::new(),
        preprinted: Vec::new(),
        temple_tiles: Vec::new(),
        treasure_copies: Vec::new(),
        set_points: Vec::new(),
        leaders: 0,
        workers: 0,
        camps: 0,
    };
    data.neighbours = (0..data.spaces() as u8)
        .map(|space| std::array::from_fn(|direction| data.neighbour_of(space, direction)))
        .collect();
    for line in lines {
        let BoardRecord::Preprinted {
            id,
            space,
            terrain,
            value,
            stones,
        } = line
        else {
            continue;
        };
        let at = data
            .parse_space(&space)
            .ok_or_else(|| format!("board.txt: bad space {space}"))?;
        data.preprinted.push(PrePrinted {
            tile: TileDef {
                id,
                stack: '-',
                terrain,
                value: value.unwrap_or(0),
                stones,
            },
            space: at,
        });
    }
    Ok(data)
}

fn add_tokens(data: &mut GameData, record: TokenRecord) -> Result<(), String> {
    match record {
        TokenRecord::Temple { number, count } => {
            if data.temple_tiles.len() <= number {
                data.temple_tiles.resize(number + 1, 0);
            }
            data.temple_tiles[number] = count;
        }
        TokenRecord::Treasure { kind, copies } => {
            if kind != data.treasure_copies.len() + 1 {
                return Err("tokens.txt: treasure kinds must be numbered 1, 2, ...".into());
            }
            data.treasure_copies.push(copies);
        }
        TokenRecord::SetPoints { count, points } => {
            if count != data.set_points.len() + 1 {
                return Err("tokens.txt: set sizes must be 1, 2, ...".into());
            }
            data.set_points.push(points);
        }
        TokenRecord::Material { item, count } => match item {
            Material::Leader => data.leaders = count,
            Material::Worker => data.workers = count,
            Material::Camp => data.camps = count,
        },
    }
    Ok(())
}
