//! What happened. Every event is public except the shuffled orders in `game_set_up`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::action::PieceKind;
use crate::games::engine::Seat;

/// One entry of a game's log. Tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TikalEvent {
    /// The game was set up. The shuffled orders are secret: `null` for everyone but the
    /// omniscient export.
    GameSetUp {
        seats: u8,
        auction: bool,
        /// The 36 hexes in drawing order (stack A first). Secret.
        #[serde(default)]
        tile_order: Option<Vec<String>>,
        /// The 24 treasure tokens in the order they will be put on treasure hexes. Secret.
        #[serde(default)]
        treasure_order: Option<Vec<String>>,
    },
    /// Basic game: `seat` drew the top hex of the stacks.
    TileDrawn { seat: Seat, tile: String },
    /// Auction variant: the hexes of a new round were turned face up.
    TilesRevealed { tiles: Vec<String> },
    /// Auction variant: bidding for the next turn of the round begins with `opener`.
    BiddingOpened { opener: Seat },
    /// Auction variant: a bid.
    BidPlaced { seat: Seat, amount: u32 },
    /// Auction variant: a pass, final for this auction.
    BidPassed { seat: Seat },
    /// Auction variant: `seat` gets the turn and pays `price` points (0 when free).
    AuctionWon { seat: Seat, price: u32 },
    /// Auction variant: `seat` took one of the revealed hexes.
    TileChosen { seat: Seat, tile: String },
    /// A hex was laid; `treasure_tokens` face-down tokens were put on it.
    TilePlaced {
        seat: Seat,
        tile: String,
        hex: String,
        rotation: u8,
        treasure_tokens: u8,
    },
    /// A scoring round begins: `trigger` drew the volcano (none for the final round);
    /// the seats take their scoring turns in `order`.
    ScoringRoundStarted {
        number: u8,
        trigger: Option<Seat>,
        order: Vec<Seat>,
    },
    /// A turn with 10 action points begins; `scoring` marks a scoring turn.
    TurnStarted { seat: Seat, scoring: bool },
    /// 1 AP: a figure came from the supply into the base camp or an own camp.
    PieceEntered {
        seat: Seat,
        hex: String,
        piece: PieceKind,
    },
    /// A figure moved by its cheapest way for `cost` AP.
    PieceMoved {
        seat: Seat,
        from: String,
        to: String,
        piece: PieceKind,
        cost: u8,
    },
    /// 2 AP: a temple got its next level; `value` is its new top number.
    TempleUncovered { seat: Seat, hex: String, value: u8 },
    /// 3 AP: the top token of a treasure hex was taken; it lies open now.
    TreasureRecovered { seat: Seat, hex: String, kind: u8 },
    /// 3 AP: `seat` took a `took` from `with` and gave it a `gave`.
    TreasureExchanged {
        seat: Seat,
        with: Seat,
        took: u8,
        gave: u8,
    },
    /// 5 AP: a camp was built.
    CampBuilt { seat: Seat, hex: String },
    /// 5 AP: a figure became the guard of a temple; `removed` other own figures there left
    /// the game.
    GuardPlaced {
        seat: Seat,
        hex: String,
        piece: PieceKind,
        removed: u8,
    },
    /// The turn ended with `ap_unused` action points lost.
    TurnEnded { seat: Seat, ap_unused: u8 },
    /// `seat` scored alone after its scoring turn.
    PlayerScored {
        seat: Seat,
        temple_points: u32,
        treasure_points: u32,
    },
    /// Every seat has scored in this round.
    ScoringRoundCompleted { number: u8 },
    /// The game is over.
    GameFinished { scores: Vec<i32>, places: Vec<u8> },
}
