//! What happened. Every random outcome (deck order, reshuffles) is carried here.

use get_size2::GetSize;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::action::{CardSource, TileKind};
use super::data::Symbol;
use crate::engine::{Seat, TakeBackBarrier, Taker};

/// A palace card. Its id is unique for the whole game (cards get fresh ids whenever the
/// discard pile is reshuffled into a new deck).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[schema(as = JavaCard)]
pub struct Card {
    /// Unique id such as "pc07".
    pub id: String,
    /// One or two symbols.
    pub symbols: Vec<Symbol>,
}

impl Card {
    /// Festival points of this card under the face-up card's symbols.
    pub fn points(&self, wanted: &[Symbol]) -> u8 {
        self.symbols.iter().filter(|s| wanted.contains(s)).count() as u8
    }
}

/// Why the end of the game began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaEndReason)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The last three-space tile was taken.
    LastThreeSpaceTile,
    /// The player could not afford any legal tile placement and ended the turn without one.
    NoTilePlaceable,
    /// Option `play_on_when_no_tile_fits`: as many turns in a row as there are players
    /// ended without a tile, this one included.
    NoTileForARound,
}

/// One palace's contribution to a Great Final Count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaPalaceCount)]
pub struct PalaceCount {
    /// The palace's space.
    pub palace: String,
    pub value: u8,
    /// 1 (full value) or 2 (half value).
    pub rank: u8,
    pub points: u8,
}

/// An event of a Java game. Fields hidden from a viewer are `null` after redaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum JavaEvent {
    /// The game is set up; `deck` is the shuffled palace card deck, top first (hidden).
    GameSetUp {
        seats: u8,
        deck: Option<Vec<Card>>,
        /// SHA-256 commitment to the game's secret seed, published before the first move
        /// (see the export's `seed` once the game is over). Absent in games set up before
        /// event schema version 2.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed_commitment: Option<String>,
    },
    /// `count` cards from the top of the deck go to `seat` (visible to that seat only).
    CardsDealt {
        seat: Seat,
        count: u8,
        cards: Option<Vec<Card>>,
    },
    /// The top card of the deck is turned face up.
    FaceUpRevealed {
        card: Card,
    },
    /// `seat` begins turn number `turn` with 6 AP.
    TurnStarted {
        seat: Seat,
        turn: u32,
    },
    /// `seat` spends an action chip: one more AP this turn.
    ActionChipUsed {
        seat: Seat,
    },
    /// A tile was placed; `cost` is the AP paid (1 plus overhanging cells).
    TilePlaced {
        seat: Seat,
        tile: TileKind,
        space: String,
        rotation: u8,
        village: Option<String>,
        rice: Vec<String>,
        cost: u8,
    },
    /// The end of the game has begun with `seat`'s turn.
    EndTriggered {
        seat: Seat,
        reason: EndReason,
    },
    DeveloperEntered {
        seat: Seat,
        to: String,
        cost: u8,
    },
    DeveloperMoved {
        seat: Seat,
        from: String,
        to: String,
        cost: u8,
    },
    DeveloperWithdrawn {
        seat: Seat,
        from: String,
        cost: u8,
    },
    PalaceBuilt {
        seat: Seat,
        space: String,
        value: u8,
        points: u8,
    },
    PalaceRaised {
        seat: Seat,
        space: String,
        from: u8,
        value: u8,
        points: u8,
    },
    IrrigationPlaced {
        seat: Seat,
        space: String,
    },
    /// A water area became fully enclosed for the first time; `scorer` (if any) scores
    /// `points` (3 per irrigation space).
    WaterEnclosed {
        spaces: Vec<String>,
        scorer: Option<Seat>,
        points: u8,
    },
    /// `seat` bought a card; `card` is hidden from others when it came from the deck.
    CardBought {
        seat: Seat,
        source: CardSource,
        card: Option<Card>,
    },
    /// The discard pile was shuffled into a new deck (cards get fresh ids; order hidden).
    DeckReshuffled {
        count: u8,
        cards: Option<Vec<Card>>,
    },
    /// `seat` opens a festival at the palace with `cards`, worth `points`.
    /// `participants` are the other seats that may join, in bidding order.
    FestivalStarted {
        seat: Seat,
        space: String,
        cards: Vec<Card>,
        points: u8,
        participants: Vec<Seat>,
    },
    /// `seat` plays `cards`; `points` is the seat's new festival total.
    BidPlaced {
        seat: Seat,
        cards: Vec<Card>,
        points: u8,
    },
    Passed {
        seat: Seat,
    },
    Agreed {
        seat: Seat,
    },
    /// The festival is decided: each of `winners` scores `points`.
    FestivalEnded {
        space: String,
        winners: Vec<Seat>,
        shared: bool,
        points: u8,
    },
    /// `seat`'s Great Final Count.
    FinalCount {
        seat: Seat,
        points: u16,
        palaces: Vec<PalaceCount>,
    },
    GameFinished {
        /// Final score per seat, indexed by seat.
        scores: Vec<i32>,
        /// Place per seat (1 = winner), indexed by seat; equal scores share a place.
        places: Vec<u8>,
    },
}

/// From this rules version an action that reached another seat stays (see the rules page,
/// "Taking back"): earlier games took back water points scored for another seat.
pub const REACHING_OTHERS_STAYS_FROM_VERSION: u32 = 4;

/// Which barrier, if any, an event sets to taking back.
pub fn take_back_barrier(event: &JavaEvent) -> Option<TakeBackBarrier> {
    use JavaEvent::*;
    match event {
        // Buying from the face-up row turns the next deck card up; from the deck, the
        // buyer sees it.
        GameSetUp { .. }
        | CardsDealt { .. }
        | FaceUpRevealed { .. }
        | CardBought { .. }
        | DeckReshuffled { .. } => Some(TakeBackBarrier::Reveals),
        TurnStarted { .. }
        | FestivalStarted { .. }
        | BidPlaced { .. }
        | Passed { .. }
        | Agreed { .. }
        | FestivalEnded { .. }
        | FinalCount { .. }
        | GameFinished { .. } => Some(TakeBackBarrier::EndsTurn),
        ActionChipUsed { .. }
        | TilePlaced { .. }
        | EndTriggered { .. }
        | DeveloperEntered { .. }
        | DeveloperMoved { .. }
        | DeveloperWithdrawn { .. }
        | PalaceBuilt { .. }
        | PalaceRaised { .. }
        | IrrigationPlaced { .. }
        | WaterEnclosed { .. } => None,
    }
}

/// The barrier an event sets for the seat `taker` taking back: an event that reached another
/// seat stays from [`REACHING_OTHERS_STAYS_FROM_VERSION`].
pub fn take_back_barrier_for(event: &JavaEvent, taker: Taker) -> Option<TakeBackBarrier> {
    let scored_for_another = matches!(
        event,
        JavaEvent::WaterEnclosed { scorer: Some(scorer), .. } if *scorer != taker.seat
    );
    if scored_for_another && taker.rules_version >= REACHING_OTHERS_STAYS_FROM_VERSION {
        Some(TakeBackBarrier::ReachesOthers)
    } else {
        take_back_barrier(event)
    }
}
