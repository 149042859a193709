//! What a seat may ask for.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The four kinds of terrain tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaTileKind)]
#[serde(rename_all = "snake_case")]
pub enum TileKind {
    /// Triangle of two rice spaces and one village space, from the common supply.
    ThreeSpace,
    /// One rice and one village space side by side, from the player's own stock.
    TwoSpace,
    /// A single rice space, from the player's own stock.
    OneSpaceRice,
    /// A single village space, from the player's own stock.
    OneSpaceVillage,
}

impl TileKind {
    pub const ALL: [TileKind; 4] = [
        TileKind::ThreeSpace,
        TileKind::TwoSpace,
        TileKind::OneSpaceRice,
        TileKind::OneSpaceVillage,
    ];

    pub fn size(self) -> u8 {
        match self {
            TileKind::ThreeSpace => 3,
            TileKind::TwoSpace => 2,
            TileKind::OneSpaceRice | TileKind::OneSpaceVillage => 1,
        }
    }

    /// How many rotations are distinct (one-space tiles have only rotation 0).
    pub fn rotations(self) -> u8 {
        match self {
            TileKind::ThreeSpace | TileKind::TwoSpace => 6,
            TileKind::OneSpaceRice | TileKind::OneSpaceVillage => 1,
        }
    }
}

/// Where a bought palace card comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaCardSource)]
#[serde(rename_all = "snake_case")]
pub enum CardSource {
    /// The face-up card beside the deck (it is replaced at once from the deck).
    FaceUp,
    /// The top card of the face-down deck.
    Deck,
}

/// An action of the seat named by `to_act`. Space names are a row letter (A..O, north to
/// south) and a column number (see the rules page). `cost` fields are optional: when
/// given, the engine refuses the action if the real AP cost differs (`wrong_cost`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum JavaAction {
    /// Place a terrain tile (1 AP plus 1 AP per cell overhanging the board).
    /// `space` is the village cell (the rice cell for `one_space_rice`). A three-space
    /// tile's rice cells are the neighbours of `space` across edges `rotation` and
    /// `rotation + 5` (mod 6); a two-space tile's rice cell is the neighbour across edge
    /// `rotation`. Edges, clockwise: 0 north-west, 1 north-east, 2 east, 3 south-east,
    /// 4 south-west, 5 west; turning the tile one sixth clockwise adds 1. One-space tiles
    /// use rotation 0.
    PlaceTile {
        tile: TileKind,
        space: String,
        /// Sixth-turns clockwise, 0-5 (default 0).
        #[serde(default)]
        #[schema(maximum = 5)]
        rotation: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost: Option<u8>,
    },
    /// Bring a developer from the reserve onto a tile at the rim (1 AP from the lowlands,
    /// 2 AP from the mountains).
    EnterDeveloper {
        to: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost: Option<u8>,
    },
    /// Move one of your developers across tiles; costs 1 AP per change between rice and
    /// village terrain on the cheapest path.
    MoveDeveloper {
        from: String,
        to: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost: Option<u8>,
    },
    /// Take a developer standing at the rim back to the reserve (1 or 2 AP like entering).
    WithdrawDeveloper {
        from: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost: Option<u8>,
    },
    /// Build a palace of `value` on an empty village space (1 AP); scores half the value.
    BuildPalace { space: String, value: u8 },
    /// Raise the palace at `space` to `value` (1 AP); scores half the new value.
    /// Example: `{"type":"raise_palace","space":"N12","value":6}`.
    RaisePalace { space: String, value: u8 },
    /// Place an irrigation tile from the supply directly on an empty board space (1 AP).
    PlaceIrrigation { space: String },
    /// Buy a palace card (1 AP, at most 2 per turn).
    BuyCard { source: CardSource },
    /// Spend an action chip for a 7th AP this turn (at most one per turn).
    UseActionChip,
    /// End the turn with a palace festival in the city of the palace at `space`, opening
    /// with the given matching cards (ids from your hand).
    HoldFestival { space: String, cards: Vec<String> },
    /// Festival: play more matching cards (to reach the highest bid, or to refuse an
    /// agreement by going above it).
    /// Example: `{"type":"bid","cards":["pc07","pc11"]}`.
    Bid { cards: Vec<String> },
    /// Festival: drop out of the bidding (cards already played are lost).
    /// Example: `{"type":"pass"}`.
    Pass,
    /// Festival: accept holding the festival together with the tied players.
    /// Example: `{"type":"agree"}`.
    Agree,
    /// End the turn without a festival.
    EndTurn,
}

impl JavaAction {
    /// The `type` tag of this action.
    pub fn kind(&self) -> &'static str {
        match self {
            JavaAction::PlaceTile { .. } => "place_tile",
            JavaAction::EnterDeveloper { .. } => "enter_developer",
            JavaAction::MoveDeveloper { .. } => "move_developer",
            JavaAction::WithdrawDeveloper { .. } => "withdraw_developer",
            JavaAction::BuildPalace { .. } => "build_palace",
            JavaAction::RaisePalace { .. } => "raise_palace",
            JavaAction::PlaceIrrigation { .. } => "place_irrigation",
            JavaAction::BuyCard { .. } => "buy_card",
            JavaAction::UseActionChip => "use_action_chip",
            JavaAction::HoldFestival { .. } => "hold_festival",
            JavaAction::Bid { .. } => "bid",
            JavaAction::Pass => "pass",
            JavaAction::Agree => "agree",
            JavaAction::EndTurn => "end_turn",
        }
    }
}
