//! The printed material of Tikal, parsed once from the embedded files in `data/tikal/`.
//!
//! Board spaces are numbered `column * rows + row` internally and named like `"C3"`
//! (column letter, row number from 1) everywhere a client sees them.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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
    fn parse(word: &str) -> Option<Terrain> {
        Some(match word {
            "base_camp" => Terrain::BaseCamp,
            "temple" => Terrain::Temple,
            "jungle" => Terrain::Jungle,
            "treasure" => Terrain::Treasure,
            "volcano" => Terrain::Volcano,
            _ => return None,
        })
    }

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
        let column = space / self.rows;
        let row = space % self.rows;
        format!("{}{}", (b'A' + column) as char, row + 1)
    }

    /// The space named `name`, if it is on the board.
    pub fn parse_space(&self, name: &str) -> Option<u8> {
        let mut chars = name.chars();
        let letter = chars.next()?;
        if !letter.is_ascii_uppercase() {
            return None;
        }
        let column = letter as u32 - 'A' as u32;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let row: u32 = digits.parse().ok()?;
        if column >= self.columns as u32 || row == 0 || row > self.rows as u32 {
            return None;
        }
        Some((column * self.rows as u32 + row - 1) as u8)
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

/// Stones of a hex laid with `rotation` sixth-turns clockwise.
pub fn rotated(stones: [u8; EDGES], rotation: u8) -> [u8; EDGES] {
    let mut out = [0; EDGES];
    for (direction, slot) in out.iter_mut().enumerate() {
        *slot = stones[(direction + EDGES - rotation as usize % EDGES) % EDGES];
    }
    out
}

pub fn data() -> &'static GameData {
    static DATA: OnceLock<GameData> = OnceLock::new();
    DATA.get_or_init(|| parse_all().unwrap_or_else(|message| panic!("tikal data: {message}")))
}

fn content_lines(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line.split_whitespace().collect())
}

fn parse_stones(field: &str) -> Result<[u8; EDGES], String> {
    let inner = field
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| format!("bad stones {field}"))?;
    let values: Vec<u8> = inner
        .split(',')
        .map(|v| v.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("bad stones {field}: {e}"))?;
    values
        .try_into()
        .map_err(|_| format!("stones need {EDGES} values: {field}"))
}

fn parse_value(field: &str) -> Result<u8, String> {
    if field == "-" {
        Ok(0)
    } else {
        field.parse().map_err(|e| format!("bad value {field}: {e}"))
    }
}

fn parse_number<T: std::str::FromStr>(field: Option<&&str>, what: &str) -> Result<T, String> {
    field
        .and_then(|f| f.parse().ok())
        .ok_or_else(|| format!("bad {what}"))
}

fn neighbour_of(columns: u8, rows: u8, space: u8, direction: usize) -> Option<u8> {
    let column = (space / rows) as i32;
    let row = (space % rows) as i32;
    let odd = column % 2 == 1;
    let (dc, dr) = match direction {
        0 => (0, -1),
        1 if odd => (1, 0),
        1 => (1, -1),
        2 if odd => (1, 1),
        2 => (1, 0),
        3 => (0, 1),
        4 if odd => (-1, 1),
        4 => (-1, 0),
        5 if odd => (-1, 0),
        _ => (-1, -1),
    };
    let (c, r) = (column + dc, row + dr);
    if c < 0 || r < 0 || c >= columns as i32 || r >= rows as i32 {
        None
    } else {
        Some((c * rows as i32 + r) as u8)
    }
}

fn parse_all() -> Result<GameData, String> {
    let mut tiles = Vec::new();
    for fields in content_lines(TILES_TXT) {
        if fields.len() != 5 {
            return Err(format!("tiles.txt: bad line {fields:?}"));
        }
        let stack = fields[1].chars().next().ok_or("tiles.txt: missing stack")?;
        tiles.push(TileDef {
            id: format!("{TILE_ID_PREFIX}{}", fields[0]),
            stack,
            terrain: Terrain::parse(fields[2]).ok_or("tiles.txt: bad kind")?,
            value: parse_value(fields[3])?,
            stones: parse_stones(fields[4])?,
        });
    }

    let mut columns = 0u8;
    let mut rows = 0u8;
    let mut raw_preprinted = Vec::new();
    for fields in content_lines(BOARD_TXT) {
        match fields.first().copied() {
            Some("board") => {
                columns = parse_number(fields.get(1), "board columns")?;
                rows = parse_number(fields.get(2), "board rows")?;
            }
            Some("preprinted") if fields.len() == 6 => raw_preprinted.push(fields),
            _ => return Err(format!("board.txt: bad line {fields:?}")),
        }
    }
    if columns == 0 || rows == 0 || columns > 26 || rows > 9 {
        return Err("board.txt: bad board size".into());
    }

    let mut data = GameData {
        columns,
        rows,
        neighbours: Vec::new(),
        tiles,
        preprinted: Vec::new(),
        temple_tiles: Vec::new(),
        treasure_copies: Vec::new(),
        set_points: Vec::new(),
        leaders: 0,
        workers: 0,
        camps: 0,
    };
    data.neighbours = (0..data.spaces() as u8)
        .map(|space| {
            let mut around = [None; EDGES];
            for (direction, slot) in around.iter_mut().enumerate() {
                *slot = neighbour_of(columns, rows, space, direction);
            }
            around
        })
        .collect();
    for fields in raw_preprinted {
        let space = data
            .parse_space(fields[2])
            .ok_or_else(|| format!("board.txt: bad space {}", fields[2]))?;
        data.preprinted.push(PrePrinted {
            tile: TileDef {
                id: fields[1].to_string(),
                stack: '-',
                terrain: Terrain::parse(fields[3]).ok_or("board.txt: bad kind")?,
                value: parse_value(fields[4])?,
                stones: parse_stones(fields[5])?,
            },
            space,
        });
    }

    for fields in content_lines(TOKENS_TXT) {
        match fields.first().copied() {
            Some("temple") => {
                let number: usize = parse_number(fields.get(1), "temple number")?;
                let count: u8 = parse_number(fields.get(2), "temple count")?;
                if data.temple_tiles.len() <= number {
                    data.temple_tiles.resize(number + 1, 0);
                }
                data.temple_tiles[number] = count;
            }
            Some("treasure") => {
                let kind: usize = parse_number(fields.get(1), "treasure kind")?;
                let copies: u8 = parse_number(fields.get(2), "treasure copies")?;
                if kind != data.treasure_copies.len() + 1 {
                    return Err("tokens.txt: treasure kinds must be numbered 1, 2, ...".into());
                }
                data.treasure_copies.push(copies);
            }
            Some("set_points") => {
                let count: usize = parse_number(fields.get(1), "set size")?;
                let points: u32 = parse_number(fields.get(2), "set points")?;
                if count != data.set_points.len() + 1 {
                    return Err("tokens.txt: set sizes must be 1, 2, ...".into());
                }
                data.set_points.push(points);
            }
            Some("material") => {
                let count: u8 = parse_number(fields.get(2), "material count")?;
                match fields.get(1).copied() {
                    Some("leader") => data.leaders = count,
                    Some("worker") => data.workers = count,
                    Some("camp") => data.camps = count,
                    _ => return Err(format!("tokens.txt: bad material {fields:?}")),
                }
            }
            _ => return Err(format!("tokens.txt: bad line {fields:?}")),
        }
    }
    if data.leaders != 1 {
        return Err("tokens.txt: the engine models exactly one leader per player".into());
    }
    Ok(data)
}
