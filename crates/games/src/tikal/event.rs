//! What happened. Every event is public except the shuffled orders in `game_set_up`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::action::PieceKind;
use crate::engine::{Seat, TakeBackBarrier, Taker};

/// One entry of a game's log. Tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TikalEvent {
    /// The game was set up. The shuffled orders are secret: `null` for everyone but the
    /// omniscient export.
    GameSetUp {
        /// Number of players.
        seats: u8,
        /// Whether the auction variant is played.
        auction: bool,
        /// The 36 hexes in drawing order (stack A first). Secret.
        #[serde(default)]
        tile_order: Option<Vec<String>>,
        /// The 24 treasure tokens in the order they will be put on treasure hexes. Secret.
        #[serde(default)]
        treasure_order: Option<Vec<String>>,
        /// SHA-256 commitment to the game's secret seed, published before the first move
        /// (see the export's `seed` once the game is over). Absent in games set up before
        /// event schema version 2.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed_commitment: Option<String>,
    },
    /// Basic game: `seat` drew the top hex of the stacks.
    TileDrawn {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Hex id, e.g. "tile-B3".
        tile: String,
    },
    /// Auction variant: the hexes of a new round were turned face up.
    TilesRevealed {
        /// Hex ids turned face up, e.g. ["tile-A2","tile-A5"].
        tiles: Vec<String>,
    },
    /// Auction variant: bidding for the next turn of the round begins with `opener`.
    BiddingOpened {
        /// Seat that bids or passes first.
        opener: Seat,
    },
    /// Auction variant: a bid.
    BidPlaced {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Points bid.
        amount: u32,
    },
    /// Auction variant: a pass, final for this auction.
    Passed {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
    },
    /// Auction variant: `seat` gets the turn and pays `price` points (0 when free).
    AuctionWon {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Points paid (0 when the turn is free).
        price: u32,
    },
    /// Auction variant: `seat` took one of the revealed hexes.
    TileChosen {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Hex id, e.g. "tile-B3".
        tile: String,
    },
    /// A hex was laid; `treasure_tokens` face-down tokens were put on it.
    TilePlaced {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Hex id, e.g. "tile-B3".
        tile: String,
        /// Space, e.g. "C3".
        space: String,
        /// Sixth-turns clockwise, 0-5.
        rotation: u8,
        /// Face-down treasure tokens put on the hex.
        treasure_tokens: u8,
    },
    /// A scoring round begins: `trigger` drew the volcano (none for the final round);
    /// the seats take their scoring turns in `order`.
    ScoringRoundStarted {
        /// Scoring round 1-4.
        number: u8,
        /// Seat that found the volcano; none in the final round.
        trigger: Option<Seat>,
        /// Seats in the order of their scoring turns.
        order: Vec<Seat>,
    },
    /// A turn with 10 action points begins; `scoring` marks a scoring turn.
    TurnStarted {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Whether this is a scoring turn (the seat scores when it ends).
        scoring: bool,
    },
    /// 1 AP: a figure came from the supply into the base camp or an own camp.
    PieceEntered {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Space, e.g. "C3".
        space: String,
        /// Figure concerned.
        piece: PieceKind,
    },
    /// A figure moved by its cheapest way for `cost` AP.
    PieceMoved {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Space the figure left.
        from: String,
        /// Space the figure reached.
        to: String,
        /// Figure concerned.
        piece: PieceKind,
        /// Action points paid for the cheapest way.
        cost: u8,
    },
    /// 2 AP: a temple got its next level; `value` is its new top number.
    TempleUncovered {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Space, e.g. "C3".
        space: String,
        /// New top number of the temple.
        value: u8,
    },
    /// 3 AP: the top token of a treasure hex was taken; it lies open now.
    TreasureRecovered {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Space, e.g. "C3".
        space: String,
        /// Treasure kind 1-8.
        kind: u8,
    },
    /// 3 AP: `seat` took a `took` from `target` and gave it a `gave`.
    TreasureExchanged {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// The other seat.
        target: Seat,
        /// Kind taken from the other seat.
        took: u8,
        /// Kind given to the other seat.
        gave: u8,
    },
    /// 5 AP: a camp was built.
    CampBuilt {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Space, e.g. "C3".
        space: String,
    },
    /// 5 AP: a figure became the guard of a temple; `removed` other own figures there left
    /// the game.
    GuardPlaced {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Space, e.g. "C3".
        space: String,
        /// Figure concerned.
        piece: PieceKind,
        /// Other own figures that left the game.
        removed: u8,
    },
    /// The turn ended with `action_points_unused` action points lost.
    TurnEnded {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Action points lost.
        action_points_unused: u8,
    },
    /// `seat` scored alone after its scoring turn.
    PlayerScored {
        /// Seat concerned (0 Red, 1 Blue, 2 Yellow, 3 Green).
        seat: Seat,
        /// Points for temples.
        temple_points: u32,
        /// Points for treasures.
        treasure_points: u32,
    },
    /// Every seat has scored in this round.
    ScoringRoundCompleted {
        /// Scoring round 1-4.
        number: u8,
    },
    /// The game is over.
    GameFinished {
        /// Final score by seat.
        scores: Vec<i32>,
        /// Place by seat (1 = winner, ties share).
        places: Vec<u8>,
    },
}

/// From this rules version an action that reached another seat stays (see the rules page,
/// "Taking back"): earlier games took a treasure exchange or the auction's volcano back.
pub const REACHING_OTHERS_STAYS_FROM_VERSION: u32 = 2;

/// Which barrier, if any, an event sets to taking back.
pub fn take_back_barrier(event: &TikalEvent) -> Option<TakeBackBarrier> {
    use TikalEvent::*;
    match event {
        GameSetUp { .. } | TileDrawn { .. } | TilesRevealed { .. } | TreasureRecovered { .. } => {
            Some(TakeBackBarrier::Reveals)
        }
        TurnEnded { .. }
        | BiddingOpened { .. }
        | BidPlaced { .. }
        | Passed { .. }
        | AuctionWon { .. }
        | PlayerScored { .. }
        | ScoringRoundCompleted { .. }
        | GameFinished { .. } => Some(TakeBackBarrier::EndsTurn),
        TileChosen { .. }
        | TilePlaced { .. }
        | ScoringRoundStarted { .. }
        | TurnStarted { .. }
        | PieceEntered { .. }
        | PieceMoved { .. }
        | TempleUncovered { .. }
        | TreasureExchanged { .. }
        | CampBuilt { .. }
        | GuardPlaced { .. } => None,
    }
}

/// The barrier an event sets for the seat `taker` taking back: an event that reached another
/// seat stays from [`REACHING_OTHERS_STAYS_FROM_VERSION`].
pub fn take_back_barrier_for(event: &TikalEvent, taker: Taker) -> Option<TakeBackBarrier> {
    let reaches_others = match event {
        TikalEvent::TreasureExchanged { target, .. } => *target != taker.seat,
        TikalEvent::ScoringRoundStarted { .. } => true,
        _ => false,
    };
    if reaches_others && taker.rules_version >= REACHING_OTHERS_STAYS_FROM_VERSION {
        Some(TakeBackBarrier::ReachesOthers)
    } else {
        take_back_barrier(event)
    }
}
