//! What a seat may ask for.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::data::Resource;
use crate::engine::Seat;

/// An item of the Palace Market (12).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceMarketItem)]
pub enum MarketItem {
    /// 2 fish.
    Fish,
    /// 2 wisdom.
    Wisdom,
    /// 1 palace step.
    Palace,
    /// 1 wood.
    Wood,
    /// 1 stone.
    Stone,
    /// 1 kaolin.
    Kaolin,
    /// 1 bronze.
    Bronze,
    /// 1 privilege token (privileges module only).
    Privilege,
}

impl MarketItem {
    pub const ALL: [MarketItem; 8] = [
        MarketItem::Fish,
        MarketItem::Wisdom,
        MarketItem::Palace,
        MarketItem::Wood,
        MarketItem::Stone,
        MarketItem::Kaolin,
        MarketItem::Bronze,
        MarketItem::Privilege,
    ];

    /// The id used for this item in the data file.
    pub fn id(self) -> &'static str {
        match self {
            MarketItem::Fish => "fish",
            MarketItem::Wisdom => "wisdom",
            MarketItem::Palace => "palace",
            MarketItem::Wood => "wood",
            MarketItem::Stone => "stone",
            MarketItem::Kaolin => "kaolin",
            MarketItem::Bronze => "bronze",
            MarketItem::Privilege => "privilege",
        }
    }
}

/// An action of one seat. Internally tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = EternalPalaceAction)]
pub enum Action {
    /// Grouping phase (simultaneous, secret): split all rolled dice into groups, each group
    /// given as its pip values, e.g. `{"type":"group","groups":[[6,1],[3]]}`. Dice of equal
    /// value are interchangeable; the order inside and between groups does not matter.
    GroupDice {
        /// The groups, each a non-empty list of pips (1..6); together exactly the rolled dice.
        groups: Vec<Vec<u8>>,
    },
    /// Privileges module, planning phase: play one privilege token under your turn-order
    /// marker or not.
    ChoosePrivilege {
        /// `true` to play a token.
        play: bool,
    },
    /// Placement phase: put one of your groups on a location. Wisdom is spent automatically,
    /// as little as needed to make the group's pips add up to the location's number (or, at
    /// the bridge, to turn the single die into `value`). Fish are paid for the colours
    /// already there (not at the scrolls).
    PlaceDice {
        /// Index of the group in your revealed groups.
        group: u8,
        /// "1".."12", "bridge" or "scrolls".
        location: String,
        /// Only at the bridge: the pips the single die shows after wisdom (1..6); the marker
        /// moves that many spaces.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<u8>,
    },
    /// Placement phase, on your turn before placing: use an active trader or diplomat.
    UseAdvisor {
        /// Card id.
        card: String,
        /// Diplomats only: the seat that receives what you give.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<Seat>,
    },
    /// Fish market choice after drawing: which card goes back on top of the deck (face
    /// down), which is discarded, and whether the remaining one is hired (else discarded).
    /// With 3 drawn cards both `returned` and `discarded` are required; with 2 only
    /// `returned`; with 1 neither.
    ResolveFishMarket {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        returned: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        discarded: Option<String>,
        /// Fish Market tile only, with 3 or more cards: the card kept for hiring (all others
        /// but the returned one are discarded; `discarded` is not given).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kept: Option<String>,
        /// Hire the remaining card (paying its cost and the fish sign).
        hire: bool,
    },
    /// Hire an open advisor from the display (academy: paying cost and wisdom sign; bridge
    /// bonus: free), or `null` to take none.
    HireAdvisor {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<String>,
    },
    /// Take the resource of your choice (bridge bonus).
    TakeResource { resource: Resource },
    /// Palace Market: the distinct items you take (exactly as many as your dice allow).
    BuyAtMarket { items: Vec<MarketItem> },
    /// Imperial Scrolls with two or more dice: take the 2 fish + 1 wisdom (`goods`), a
    /// resource, or both.
    ReadScrolls {
        goods: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource: Option<Resource>,
    },
    /// Rules version 2, at the reveal: the group (index into your revealed groups, 2 or more
    /// dice) that the group artist named in the pending choice rewards.
    ChooseArtistGroup { group: u8 },
    /// Labyrinth: follow the red arrow to this station, e.g.
    /// `{"type":"follow_path","station":"willow"}`.
    FollowPath { station: String },
    /// River market: give `resource` to fulfil the free demand field `field` (0 = top) and
    /// put a marker there, e.g. `{"type":"fulfil_demand","field":1,"resource":"kaolin"}`.
    FulfilDemand { field: u8, resource: Resource },
    /// Fish Market tile, after the first card: pay `fish` fish (1 or more) to draw as many
    /// more cards, once.
    DrawAdvisors { fish: u8 },
    /// Academy tile: take all the wisdom in the academy's reserve.
    TakeReserve,
    /// Temple tile: pay these resources (none, one or two, any kinds) for 1 / 3 / 6 wisdom.
    BuyWisdom { paid: Vec<Resource> },
    /// Palace Market tile: exactly as many different items as offered: `step` pays that
    /// resource for a step at its location (4, 6, 9, 11), `palace` a palace step, `bundle`
    /// 2 wisdom, 2 fish and that resource, `advisor` an open advisor for free, `privilege`
    /// a privilege token (privileges module).
    ChooseMarketTile {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<Resource>,
        #[serde(default)]
        palace: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bundle: Option<Resource>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        advisor: Option<String>,
        #[serde(default)]
        privilege: bool,
    },
    /// Eternal Bridge tile bonus: pay `resource` for a step at its location, or `null` to
    /// decline.
    StepForResource {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource: Option<Resource>,
    },
}
