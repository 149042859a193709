//! What a seat can ask for. Spaces are named like "C3" (column letter A-H, row 1-5).

use get_size2::GetSize;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::engine::Seat;

/// Which of a player's figures an action is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TikalPieceKind)]
pub enum PieceKind {
    /// One of the 18 expedition members.
    Worker,
    /// The expedition leader: costs and acts like a worker but counts 3 for majorities.
    Leader,
}

impl PieceKind {
    pub fn name(self) -> &'static str {
        match self {
            PieceKind::Worker => "worker",
            PieceKind::Leader => "leader",
        }
    }
}

/// An action of the seat to act. Tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TikalAction {
    /// Lay the hex in hand on an empty space, turned `rotation` sixth-turns clockwise (0-5).
    /// A volcano is always laid with rotation 0.
    /// Example: `{"type":"place_tile","space":"C4","rotation":2}`.
    PlaceTile {
        /// Empty space to lay the hex on, e.g. "C4".
        space: String,
        /// Sixth-turns clockwise from the printed orientation, 0-5.
        #[schema(maximum = 5)]
        rotation: u8,
    },
    /// 1 AP: bring a figure from the supply into the base camp or one of your camps.
    /// Example: `{"type":"enter","space":"A5","piece":"worker"}`.
    Enter {
        /// The base camp ("A5") or a space with your own camp.
        space: String,
        /// Figure to bring in.
        piece: PieceKind,
    },
    /// Move one figure to another space by the cheapest way: each hex border crossed costs
    /// the stones on both sides of it, a secret path between your camps and the base camp
    /// costs 1. `cost`, when given, must equal that cheapest cost (legal actions carry it).
    /// Example: `{"type":"move","from":"A5","to":"C3","piece":"worker","cost":4}`.
    Move {
        /// Space the figure stands on.
        from: String,
        /// Space to reach.
        to: String,
        /// Figure to move.
        piece: PieceKind,
        /// Cheapest cost in AP; optional, checked when present.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost: Option<u8>,
    },
    /// 2 AP: put the next higher temple tile on a temple where you have a figure.
    /// Example: `{"type":"uncover","space":"A4"}`.
    Uncover {
        /// Space, e.g. "C3".
        space: String,
    },
    /// 3 AP: take the top treasure token of a treasure hex where you have a figure.
    /// Example: `{"type":"recover","space":"D2"}`.
    Recover {
        /// Space, e.g. "C3".
        space: String,
    },
    /// 3 AP: take a single treasure of kind `take` from seat `target` and give it one of your
    /// single treasures of kind `give`. Example: `{"type":"exchange","target":2,"take":5,"give":1}`.
    Exchange {
        /// Seat of the other player.
        target: Seat,
        /// Treasure kind (1-8) taken from the other player.
        #[schema(minimum = 1, maximum = 8)]
        take: u8,
        /// Treasure kind (1-8) given to the other player.
        #[schema(minimum = 1, maximum = 8)]
        give: u8,
    },
    /// 5 AP: build one of your camps on a jungle hex or an emptied treasure hex.
    /// Example: `{"type":"build_camp","space":"C2"}`.
    BuildCamp {
        /// Space, e.g. "C3".
        space: String,
    },
    /// 5 AP: make one of your figures on a temple where you hold the majority its guard.
    /// Your other figures there leave the game. Example:
    /// `{"type":"place_guard","space":"B5","piece":"worker"}`.
    PlaceGuard {
        /// Temple space, e.g. "B5".
        space: String,
        /// Figure that becomes the guard.
        piece: PieceKind,
    },
    /// End your turn; unused action points are lost. Example: `{"type":"end_turn"}`.
    EndTurn,
    /// Auction variant: bid `amount` points for the next turn of the round.
    /// Example: `{"type":"bid","amount":5}`.
    Bid {
        /// More than the current highest bid, at least 1, at most your score.
        amount: u32,
    },
    /// Auction variant: leave the current auction for good. Example: `{"type":"pass"}`.
    Pass,
    /// Auction variant: take one of the revealed hexes after winning the turn.
    /// Example: `{"type":"choose_tile","tile":"tile-B3"}`.
    ChooseTile {
        /// Id of a revealed hex, e.g. "tile-B3".
        tile: String,
    },
}
