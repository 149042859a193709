//! What happened. Every random outcome is written here; secret fields are `Option`s that
//! `redact` empties for viewers who may not see them.

use get_size2::GetSize;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::action::MarketItem;
use super::data::{Goods, Resource};
use crate::engine::{Seat, TakeBackBarrier, Taker};

/// Why material changed hands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceReason)]
pub enum Reason {
    /// Resource location yield.
    ResourceLocation,
    /// Temple of Wisdom.
    Temple,
    /// Palace Market.
    Market,
    /// Imperial Scrolls.
    Scrolls,
    /// A bonus of the Eternal Bridge.
    Bridge,
    /// Palace steps for visiting a monument.
    Monument,
    /// Cost and fish/wisdom sign of hiring an advisor.
    Hire,
    /// An advisor's effect.
    Advisor,
    /// A diplomat of another player gave this.
    Diplomacy,
    /// Labyrinth module: fish on the way, goods of a station.
    Labyrinth,
    /// River market module: a demand fulfilled.
    RiverMarket,
    /// River market module: the reward for a marker on a full card.
    DemandReward,
    /// River market module: the penalty for having no marker on a full card.
    DemandPenalty,
    /// Compositions module: a card's reward.
    Composition,
    /// Fish Market tile: fish paid to draw more cards.
    FishMarket,
    /// Academy tile: the wisdom reserve taken.
    Academy,
}

/// Where a hired advisor came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceHireSource)]
pub enum HireSource {
    FishMarket,
    Academy,
    Bridge,
    /// Academy tile: the card's cost only, no wisdom.
    AcademyTile,
    /// Palace Market tile: a free open advisor.
    PalaceMarket,
}

/// A choice that waits for the active seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = EternalPalaceChoice)]
pub enum Choice {
    /// Hire one open advisor (academy: pay; bridge: free) or none: answer with `hire`.
    Hire { source: HireSource },
    /// Take a resource of your choice: answer with `take_resource`.
    Resource,
    /// Take `count` distinct market items: answer with `market`.
    Market { count: u8 },
    /// Imperial Scrolls with 2+ dice: answer with `scrolls`.
    Scrolls,
    /// Rules version 2: at the reveal, the seat picks which of its groups (indices into its
    /// revealed groups, each of 2 or more dice) the group artist `card` rewards, because
    /// its groups would give different rewards: answer with `choose_artist_group`.
    ArtistGroup { card: String, groups: Vec<u8> },
    /// Labyrinth: follow one of the red arrows to these stations (the ones whose fish the
    /// seat can pay): answer with `follow_path`.
    Path { stations: Vec<String> },
    /// River market: fulfil the demand of a free field: answer with `fulfil_demand`.
    Demand,
    /// Academy tile: take the `reserve` wisdom or hire an open advisor for its cost: answer
    /// with `take_reserve` or `hire_advisor`.
    AcademyTile { reserve: i32 },
    /// Temple tile: 1 wisdom, or pay 1 / 2 resources for 3 / 6 wisdom: answer with
    /// `buy_wisdom`.
    TempleTile,
    /// Palace Market tile: `count` different items: answer with `choose_market_tile`.
    MarketTile { count: u8 },
    /// Eternal Bridge tile: pay a resource for a step at its location, or not: answer with
    /// `step_for_resource`.
    ResourceStep,
}

/// What a seat answered to a choice of a module or tile (the event `choice_answered`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = EternalPalaceAnswer)]
pub enum Answer {
    /// Labyrinth: the arrow to this station.
    Path { station: String },
    /// River market: the demand field and the resource given.
    Demand { field: u8, resource: Resource },
    /// Academy tile: the reserve taken.
    Reserve { wisdom: i32 },
    /// Temple tile: the resources paid (none for 1 wisdom).
    Temple { paid: Vec<Resource> },
    /// Palace Market tile: the items taken.
    MarketTile {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<Resource>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        palace: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bundle: Option<Resource>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        advisor: Option<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        privilege: bool,
    },
    /// Eternal Bridge tile: the resource paid for a step, or none.
    ResourceStep {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource: Option<Resource>,
    },
}

fn is_zero(value: &i32) -> bool {
    *value == 0
}

/// One line of the final scoring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[schema(as = EternalPalaceScoreSheet)]
pub struct ScoreSheet {
    pub seat: Seat,
    /// 1 VP per painting layer.
    pub layers: i32,
    /// 1 VP per decoration.
    pub decorations: i32,
    /// 1 VP per monument owned.
    pub monuments: i32,
    /// Completion prize token (first to 8 layers).
    pub completion: i32,
    /// Sequence prize token (longest run of layer numbers).
    pub sequence: i32,
    /// Imperial seals from the palace track (3 for first, 1 for second).
    pub seals: i32,
    /// Compositions module: VP for the imperial seals of the composition cards taken
    /// (omitted when 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub composition_seals: i32,
    /// Sum of the above.
    pub total: i32,
    /// Place (1 = winner); equal places are shared.
    pub place: u8,
}

/// An event. Internally tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[schema(as = EternalPalaceEvent)]
pub enum Event {
    /// The game is set up: random starting turn order and the shuffled advisor deck
    /// (deck entries are hidden tokens; `null` for everybody but the omniscient export).
    GameSetUp {
        seats: u8,
        privileges: bool,
        turn_order: Vec<Seat>,
        #[serde(default)]
        deck: Option<Vec<String>>,
        /// SHA-256 commitment to the game's secret seed, published before the first move
        /// (see the export's `seed` once the game is over). Absent in games set up before
        /// event schema version 2.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed_commitment: Option<String>,
    },
    /// The discard pile was shuffled into a new deck (order hidden).
    DeckReshuffled {
        #[serde(default)]
        deck: Option<Vec<String>>,
    },
    /// The open advisors left over were discarded.
    DisplayCleared { cards: Vec<String> },
    /// Cards from the top of the deck were laid out face up.
    DisplayDealt { cards: Vec<String> },
    /// A seat's material changed.
    GoodsChanged {
        seat: Seat,
        delta: Goods,
        reason: Reason,
    },
    /// A new round: every seat's active dice were rolled (pips per seat).
    DiceRolled { round: u32, dice: Vec<Vec<u8>> },
    /// New turn order (first to place first).
    TurnOrderSet { order: Vec<Seat> },
    /// A seat locked its grouping. `sealed` is the grouping in sealed form
    /// ("r{round}s{seat}:" then groups of pip digits separated by "/"), visible only to
    /// that seat until the reveal.
    DiceGrouped {
        seat: Seat,
        #[serde(default)]
        sealed: Option<String>,
    },
    /// Privileges module: these seats (in this order) now decide whether to play a token.
    PrivilegesOpened { seats: Vec<Seat> },
    /// Privileges module: a seat played a token under its marker or passed.
    PrivilegeDecided { seat: Seat, play: bool },
    /// All groupings revealed at once (groups per seat, index = group number).
    GroupsRevealed { groups: Vec<Vec<Vec<u8>>> },
    /// A group was placed; `pips` after wisdom; `wisdom` and `fish` spent.
    DicePlaced {
        seat: Seat,
        group: u8,
        location: String,
        pips: Vec<u8>,
        wisdom: i32,
        fish: i32,
    },
    /// A marker stepped on a location track (or the bridge) to space `to`.
    TrackAdvanced {
        seat: Seat,
        location: String,
        to: u8,
    },
    /// A painting layer was taken.
    LayerTaken { seat: Seat, layer: String },
    /// The first layer of a location came with its decoration.
    DecorationTaken { seat: Seat, location: String },
    /// A monument changed hands; `paid` resources, the ring grew by one.
    MonumentTaken {
        seat: Seat,
        location: String,
        paid: i32,
    },
    /// A temple / market space was marked.
    SpaceMarked { seat: Seat, space: String },
    /// The seat now has to decide this.
    ChoiceOffered { seat: Seat, choice: Choice },
    /// The seat answered its pending choice (not the fish market).
    ChoiceMade {
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource: Option<Resource>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        items: Vec<MarketItem>,
    },
    /// Rules version 2: the seat picked its group `group` (index into its revealed groups)
    /// for the group artist `card`; the artist's use and reward follow.
    ArtistGroupChosen { seat: Seat, card: String, group: u8 },
    /// Fish market: cards drawn from the deck, seen only by the drawer (hidden tokens).
    AdvisorsDrawn {
        seat: Seat,
        count: u8,
        #[serde(default)]
        cards: Option<Vec<String>>,
    },
    /// Fish market decision: a card back on top (hidden token, seen only by that seat),
    /// discarded cards (public) and the card kept for hiring, if any.
    FishMarketResolved {
        seat: Seat,
        #[serde(default)]
        returned: Option<String>,
        discarded: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hired: Option<String>,
    },
    /// An advisor joined a seat.
    AdvisorHired {
        seat: Seat,
        card: String,
        from: HireSource,
    },
    /// An advisor was used and turned sideways.
    AdvisorUsed {
        seat: Seat,
        card: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<Seat>,
    },
    /// The next seat to place (none: every group is placed).
    TurnPassed {
        #[serde(default)]
        next: Option<Seat>,
    },
    /// The round is over: dice come back, advisors are turned upright.
    RoundEnded { round: u32 },
    /// A seat got one of its dice back from the palace.
    PalaceDieReleased { seat: Seat },
    /// River market module: the demand deck was shuffled (at set-up, and again from the
    /// used cards when it runs out). Entries are hidden tokens "demand:{id}"; `null` for
    /// everybody but the omniscient export.
    DemandDeckShuffled {
        #[serde(default)]
        deck: Option<Vec<String>>,
    },
    /// River market module: the top demand card was revealed; its fields are free.
    DemandRevealed { card: String },
    /// River market module: a seat put a marker on a demand field.
    DemandFulfilled { seat: Seat, field: u8 },
    /// River market module: the full card was paid out; markers return and the card is
    /// put aside.
    DemandSettled { card: String },
    /// Labyrinth module: a seat's marker moved along an arrow to `to`.
    LabyrinthMoved { seat: Seat, to: String },
    /// Compositions module: these cards lie face up.
    CompositionsDealt { cards: Vec<String> },
    /// Compositions module: the seat was first to hold the card's layers and takes it.
    CompositionClaimed { seat: Seat, card: String },
    /// Academy tile: the wisdom now in the academy's reserve.
    AcademyReserveSet { wisdom: i32 },
    /// Fish Market tile: more cards drawn for fish, seen only by the drawer (hidden tokens).
    ExtraAdvisorsDrawn {
        seat: Seat,
        count: u8,
        #[serde(default)]
        cards: Option<Vec<String>>,
    },
    /// The seat answered a choice of a module or tile; what follows carries it out.
    ChoiceAnswered { seat: Seat, answer: Answer },
    /// Final scoring.
    GameFinished {
        /// Final score per seat, indexed by seat.
        scores: Vec<i32>,
        /// Place per seat (1 = winner), indexed by seat; tied seats share a place.
        places: Vec<u8>,
        /// Every seat's score sheet, in seat order.
        sheets: Vec<ScoreSheet>,
        #[serde(default)]
        completion: Option<Seat>,
        #[serde(default)]
        sequence: Option<Seat>,
    },
}

/// From this rules version an action that reached another seat stays (see the rules page,
/// "Taking back"): earlier games took a diplomat's gift, a paid-out river market card or a
/// claimed composition back.
pub const REACHING_OTHERS_STAYS_FROM_VERSION: u32 = 6;

/// Which barrier, if any, an event sets to taking back.
pub fn take_back_barrier(event: &Event) -> Option<TakeBackBarrier> {
    use Event::*;
    match event {
        GameSetUp { .. }
        | DeckReshuffled { .. }
        | DisplayDealt { .. }
        | DiceRolled { .. }
        | DiceGrouped { .. }
        | GroupsRevealed { .. }
        | AdvisorsDrawn { .. }
        | ExtraAdvisorsDrawn { .. }
        | FishMarketResolved { .. }
        | DemandDeckShuffled { .. }
        | DemandRevealed { .. }
        | CompositionsDealt { .. } => Some(TakeBackBarrier::Reveals),
        TurnPassed { .. }
        | RoundEnded { .. }
        | TurnOrderSet { .. }
        | PrivilegesOpened { .. }
        | PrivilegeDecided { .. }
        | DisplayCleared { .. }
        | PalaceDieReleased { .. }
        | GameFinished { .. } => Some(TakeBackBarrier::EndsTurn),
        GoodsChanged { .. }
        | DicePlaced { .. }
        | TrackAdvanced { .. }
        | LayerTaken { .. }
        | DecorationTaken { .. }
        | MonumentTaken { .. }
        | SpaceMarked { .. }
        | ChoiceOffered { .. }
        | ChoiceMade { .. }
        | ArtistGroupChosen { .. }
        | AdvisorHired { .. }
        | AdvisorUsed { .. }
        | DemandFulfilled { .. }
        | DemandSettled { .. }
        | LabyrinthMoved { .. }
        | CompositionClaimed { .. }
        | AcademyReserveSet { .. }
        | ChoiceAnswered { .. } => None,
    }
}

/// The barrier an event sets for the seat `taker` taking back: an event that reached another
/// seat stays from [`REACHING_OTHERS_STAYS_FROM_VERSION`].
pub fn take_back_barrier_for(event: &Event, taker: Taker) -> Option<TakeBackBarrier> {
    use Event::*;
    let reaches_others = match event {
        // Material or a place on the board of another seat: a diplomat's gift, a river
        // market reward or penalty.
        GoodsChanged { seat, .. }
        | TrackAdvanced { seat, .. }
        | LayerTaken { seat, .. }
        | DecorationTaken { seat, .. }
        | MonumentTaken { seat, .. }
        | SpaceMarked { seat, .. }
        | AdvisorHired { seat, .. }
        | DemandFulfilled { seat, .. }
        | LabyrinthMoved { seat, .. } => *seat != taker.seat,
        // Every marker on the card goes home; a composition is a race the others lost.
        DemandSettled { .. } | CompositionClaimed { .. } => true,
        _ => false,
    };
    if reaches_others && taker.rules_version >= REACHING_OTHERS_STAYS_FROM_VERSION {
        Some(TakeBackBarrier::ReachesOthers)
    } else {
        take_back_barrier(event)
    }
}
