//! The game's numbers and components, read once from the record files in
//! `data/eternal_palace/` (settings, locations, cards). Every entry there names its source
//! (short rules, FACTS.md, or decided by turnpost).

use std::sync::OnceLock;

use get_size2::GetSize;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::kit::data::embedded;

const SETTINGS_TXT: &str = include_str!("../../../../data/eternal_palace/settings.txt");
const LOCATIONS_TXT: &str = include_str!("../../../../data/eternal_palace/locations.txt");
const CARDS_TXT: &str = include_str!("../../../../data/eternal_palace/cards.txt");

/// Where a value in the data file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceSource)]
pub enum Source {
    /// The German short rules (the authority on play).
    Summary,
    /// Public facts (reviews, publisher's text) collected in FACTS.md.
    Public,
    /// Chosen by turnpost because no public text fixes it.
    Decided,
}

/// One of the four building resources.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceResource)]
pub enum Resource {
    Wood,
    Stone,
    Kaolin,
    Bronze,
}

impl Resource {
    pub const ALL: [Resource; 4] = [
        Resource::Wood,
        Resource::Stone,
        Resource::Kaolin,
        Resource::Bronze,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Resource::Wood => "wood",
            Resource::Stone => "stone",
            Resource::Kaolin => "kaolin",
            Resource::Bronze => "bronze",
        }
    }
}

fn is_zero(value: &i32) -> bool {
    *value == 0
}

/// A bundle of material (also used as a signed change). Zero fields are omitted in JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = EternalPalaceGoods)]
pub struct Goods {
    /// Fish.
    #[serde(skip_serializing_if = "is_zero")]
    pub fish: i32,
    /// Wisdom.
    #[serde(skip_serializing_if = "is_zero")]
    pub wisdom: i32,
    /// Wood.
    #[serde(skip_serializing_if = "is_zero")]
    pub wood: i32,
    /// Stone.
    #[serde(skip_serializing_if = "is_zero")]
    pub stone: i32,
    /// Kaolin.
    #[serde(skip_serializing_if = "is_zero")]
    pub kaolin: i32,
    /// Bronze.
    #[serde(skip_serializing_if = "is_zero")]
    pub bronze: i32,
    /// Steps on the palace track.
    #[serde(skip_serializing_if = "is_zero")]
    pub palace: i32,
    /// Privilege tokens (privileges module).
    #[serde(skip_serializing_if = "is_zero")]
    pub privilege: i32,
}

impl Goods {
    pub fn resource(resource: Resource, amount: i32) -> Goods {
        let mut goods = Goods::default();
        *goods.resource_mut(resource) = amount;
        goods
    }

    pub fn get(&self, resource: Resource) -> i32 {
        match resource {
            Resource::Wood => self.wood,
            Resource::Stone => self.stone,
            Resource::Kaolin => self.kaolin,
            Resource::Bronze => self.bronze,
        }
    }

    pub fn resource_mut(&mut self, resource: Resource) -> &mut i32 {
        match resource {
            Resource::Wood => &mut self.wood,
            Resource::Stone => &mut self.stone,
            Resource::Kaolin => &mut self.kaolin,
            Resource::Bronze => &mut self.bronze,
        }
    }

    fn fields(&self) -> [i32; 8] {
        [
            self.fish,
            self.wisdom,
            self.wood,
            self.stone,
            self.kaolin,
            self.bronze,
            self.palace,
            self.privilege,
        ]
    }

    fn from_fields(f: [i32; 8]) -> Goods {
        Goods {
            fish: f[0],
            wisdom: f[1],
            wood: f[2],
            stone: f[3],
            kaolin: f[4],
            bronze: f[5],
            palace: f[6],
            privilege: f[7],
        }
    }

    pub fn plus(&self, other: &Goods) -> Goods {
        let (a, b) = (self.fields(), other.fields());
        Goods::from_fields(std::array::from_fn(|i| a[i] + b[i]))
    }

    pub fn negated(&self) -> Goods {
        Goods::from_fields(self.fields().map(|v| -v))
    }

    /// The positive fields only.
    pub fn only_positive(goods: &Goods) -> Goods {
        Goods::from_fields(goods.fields().map(|v| v.max(0)))
    }

    pub fn is_empty(&self) -> bool {
        self.fields().iter().all(|v| *v == 0)
    }

    /// Whether `self` (a stock) covers `cost` in every field.
    pub fn covers(&self, cost: &Goods) -> bool {
        let (a, b) = (self.fields(), cost.fields());
        (0..8).all(|i| a[i] >= b[i])
    }

    /// Human text such as "2 fish, 1 wisdom".
    pub fn text(&self) -> String {
        let names = [
            "fish",
            "wisdom",
            "wood",
            "stone",
            "kaolin",
            "bronze",
            "palace step(s)",
            "privilege(s)",
        ];
        let parts: Vec<String> = self
            .fields()
            .iter()
            .zip(names)
            .filter(|(v, _)| **v != 0)
            .map(|(v, n)| format!("{v} {n}"))
            .collect();
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(", ")
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerCounts {
    pub source: Source,
    pub min: u8,
    pub max: u8,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiceData {
    pub source: Source,
    pub per_player: u8,
    pub active_at_start: u8,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartData {
    pub source: Source,
    pub fish_by_players: Vec<i32>,
    pub wisdom: i32,
    pub each_resource: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WisdomCosts {
    pub source: Source,
    pub pip_step: i32,
    pub one_six_swap: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Length {
    pub source: Source,
    pub length: u8,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ByPlayers {
    pub source: Source,
    pub by_players: Vec<u8>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisplayData {
    pub source: Source,
    pub extra_cards: u8,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndData {
    pub source: Source,
    pub layers: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundLimit {
    pub source: Source,
    /// The last rules version the limit applies to (version 2 dropped it).
    pub until_rules_version: u32,
    pub rounds: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoringData {
    pub source: Source,
    pub seals_first: i32,
    pub seals_second: i32,
    pub completion: i32,
    pub sequence: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FishMarketData {
    pub source: Source,
    pub draw: usize,
    pub hire_fish: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcademyData {
    pub source: Source,
    pub hire_wisdom: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScrollsData {
    pub source: Source,
    pub fish: i32,
    pub wisdom: i32,
    pub resource_from_two_dice: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivilegeData {
    pub source: Source,
    pub tokens: i32,
    pub start: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtistGroupRewards {
    pub source: Source,
    pub two_dice: Goods,
    pub three_dice_resource: i32,
    pub four_dice: Goods,
}

/// What kind of place a location is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceLocationKind)]
pub enum LocationKind {
    FishMarket,
    Academy,
    Monument,
    Resource,
    Temple,
    Market,
    Bridge,
    Scrolls,
    /// Labyrinth module: a single die; the marker follows an arrow to the next station.
    Labyrinth,
    /// River market module: a single die; fulfil a demand of the open card.
    RiverMarket,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackData {
    pub length: u8,
    pub source: Source,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct YieldData {
    pub dice: usize,
    pub amount: i32,
    pub source: Source,
}

/// A marking space at the Temple of Wisdom (7) or the Palace Market (12).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EternalPalaceSpaceData)]
pub struct SpaceData {
    /// Space id, e.g. "7a".
    pub id: String,
    /// Fewest dice a group needs to mark this space.
    pub dice_min: usize,
    /// Most dice a group may have to mark this space.
    pub dice_max: usize,
    /// Where this requirement comes from.
    pub source: Source,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemsByDice {
    pub dice_min: usize,
    pub dice_max: usize,
    pub count: usize,
    pub source: Source,
}

/// A choice the Eternal Bridge hands out instead of fixed goods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceBonusChoice)]
pub enum BonusChoice {
    /// One resource of the player's choice.
    Resource,
    /// One open advisor from the display, for free.
    Advisor,
    /// Eternal Bridge tile: pay one resource for a step on that resource's location track
    /// (may be declined).
    ResourceStep,
}

/// A bonus printed on a space of the Eternal Bridge.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EternalPalaceBonusData)]
pub struct BonusData {
    /// Space number (0 is the start).
    pub space: u8,
    /// Fixed goods gained on reaching or passing the space.
    #[serde(default)]
    pub gain: Goods,
    /// A choice gained on reaching or passing the space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<BonusChoice>,
    /// Set when the bonus exists only with that module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Where this bonus comes from.
    pub source: Source,
}

fn yes() -> bool {
    true
}

/// The group a location without a number takes: exactly `count` dice, of any value.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiceRule {
    pub count: usize,
    /// Where the count comes from.
    pub source: Source,
    /// Where "of any value" comes from.
    pub any_value: Source,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocationData {
    pub key: String,
    pub name: String,
    pub kind: LocationKind,
    pub source: Source,
    /// Set when the location exists only with that module.
    #[serde(default)]
    pub module: Option<String>,
    /// Whether the location has a painting layer (the module locations have none).
    #[serde(default = "yes")]
    pub layer: bool,
    /// Where a `layer` of `false` comes from (a location with a layer names it in `source`).
    #[serde(default)]
    pub layer_source: Option<Source>,
    /// How many dice a location without a number takes.
    #[serde(default)]
    pub dice: Option<DiceRule>,
    #[serde(default)]
    pub track: Option<TrackData>,
    #[serde(default)]
    pub decoration: Option<Source>,
    #[serde(default)]
    pub resource: Option<Resource>,
    #[serde(default)]
    pub resource_source: Option<Source>,
    #[serde(default)]
    pub ring_start: Option<i32>,
    #[serde(default)]
    pub yields: Vec<YieldData>,
    #[serde(default)]
    pub wisdom: Option<i32>,
    #[serde(default)]
    pub spaces: Vec<SpaceData>,
    #[serde(default)]
    pub items_by_dice: Vec<ItemsByDice>,
    #[serde(default)]
    pub layer_at_marks: Option<usize>,
    #[serde(default)]
    pub bonuses: Vec<BonusData>,
}

impl LocationData {
    /// The number a group's pips must add up to, if the location has one.
    pub fn number(&self) -> Option<u32> {
        self.key.parse().ok()
    }

    pub fn track_length(&self) -> Option<u8> {
        self.track.as_ref().map(|t| t.length)
    }

    pub fn yield_for(&self, dice: usize) -> i32 {
        let mut best = 0;
        for y in &self.yields {
            if y.dice <= dice {
                best = y.amount;
            }
        }
        best
    }

    pub fn space_for(&self, dice: usize) -> Option<&SpaceData> {
        self.spaces
            .iter()
            .find(|s| s.dice_min <= dice && dice <= s.dice_max)
    }

    pub fn items_for(&self, dice: usize) -> usize {
        self.items_by_dice
            .iter()
            .find(|i| i.dice_min <= dice && dice <= i.dice_max)
            .map(|i| i.count)
            .unwrap_or(0)
    }
}

/// Goods offered at the Palace Market (12).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarketItemData {
    pub id: String,
    pub gain: Goods,
    #[serde(default)]
    pub module: Option<String>,
    pub source: Source,
}

/// Whether hiring a card at the fish market / academy gives or costs fish / wisdom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceHireSign)]
pub enum HireSign {
    /// Hiring gives 3 fish (fish market) or 2 wisdom (academy).
    Gain,
    /// Hiring costs 3 fish (fish market) or 2 wisdom (academy).
    Pay,
}

/// What an advisor does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = EternalPalaceAdvisorEffect)]
pub enum AdvisorEffect {
    /// Patron: once, when hired: goods and steps on the listed location tracks.
    Patron {
        /// Goods gained once.
        gain: Goods,
        /// One step on the track of each listed location.
        #[serde(default)]
        track_steps: Vec<String>,
    },
    /// Trader: once per round, pay `give` to the supply and take `get`.
    Trader { give: Goods, get: Goods },
    /// Diplomat: once per round, give `give` to another player and take `get` from the supply.
    Diplomat { give: Goods, get: Goods },
    /// Artist: once per round, the first visit of a resource location (4, 6, 9, 11)
    /// also yields one `resource`.
    ArtistResourceVisit { resource: Resource },
    /// Artist: at the start of a round, gain `gain` if your pip sum is alone the lowest.
    ArtistLowestSum { gain: Goods },
    /// Artist: at the reveal, for your largest group of 2 / 3 / 4+ dice gain
    /// 1 fish / 1 `resource` / 1 palace step.
    ArtistGroups { resource: Resource },
}

/// The four advisor types of the short rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceAdvisorType)]
pub enum AdvisorType {
    Patron,
    Trader,
    Diplomat,
    Artist,
}

/// One advisor card.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EternalPalaceAdvisorCard)]
pub struct AdvisorCard {
    /// Unique card id, e.g. "a07".
    pub id: String,
    /// Card name.
    pub name: String,
    /// Resources paid when hiring (not when taken for free at the bridge).
    pub cost: Goods,
    /// Whether hiring gives or costs fish (fish market) / wisdom (academy).
    pub hire: HireSign,
    /// What the card does.
    pub effect: AdvisorEffect,
    /// The card is used only with at least this many players (the small figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_players: Option<u8>,
    /// Set when the card belongs to a module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Where this card's values come from.
    pub source: Source,
}

impl AdvisorCard {
    pub fn kind(&self) -> AdvisorType {
        match self.effect {
            AdvisorEffect::Patron { .. } => AdvisorType::Patron,
            AdvisorEffect::Trader { .. } => AdvisorType::Trader,
            AdvisorEffect::Diplomat { .. } => AdvisorType::Diplomat,
            _ => AdvisorType::Artist,
        }
    }
}

/// A station of the labyrinth.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EternalPalaceStationData)]
pub struct StationData {
    /// Station id, e.g. "entrance", "middle".
    pub id: String,
    pub name: String,
    /// Goods a marker takes on arriving here.
    pub gain: Goods,
    /// The middle station, where the decoration token lies.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub middle: bool,
    /// Where this station comes from.
    pub source: Source,
}

/// A red arrow of the labyrinth: from one station to the next, with the fish shown on the way.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EternalPalaceArrowData)]
pub struct ArrowData {
    pub from: String,
    pub to: String,
    /// Fish paid on the way.
    pub fish: i32,
    /// Where this arrow comes from.
    pub source: Source,
}

/// A location tile (short rules "Locations"): replaces the action of location `key`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileData {
    pub key: String,
    pub name: String,
    pub source: Source,
    /// Eternal Bridge tile: its bonuses.
    #[serde(default)]
    pub bonuses: Vec<BonusData>,
}

/// A demand card of the river market.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EternalPalaceDemandCard)]
pub struct DemandCard {
    /// Card id, e.g. "d07".
    pub id: String,
    /// What every marker on the card earns its owner when the card is full.
    pub reward: Goods,
    /// What every player without a marker on the card then loses, as far as possible (a
    /// palace entry moves the marker back).
    pub penalty: Goods,
    /// Where this card comes from.
    pub source: Source,
}

/// A composition card.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EternalPalaceCompositionCard)]
pub struct CompositionCard {
    /// Card id, e.g. "c05".
    pub id: String,
    /// The three locations whose painting layers complete the card.
    pub layers: Vec<String>,
    /// Imperial seals the card gives (1 VP each at the end).
    pub seals: i32,
    /// Goods the card gives at once.
    pub gain: Goods,
    /// Where this card comes from.
    pub source: Source,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiverMarketData {
    pub source: Source,
    /// The resources each demand field accepts, top field first.
    pub fields: Vec<Vec<Resource>>,
    pub fields_by_players: Vec<usize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompositionsData {
    pub source: Source,
    pub open_by_players: Vec<usize>,
    pub seal_points: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FishMarketTileData {
    pub source: Source,
    pub draw: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcademyTileData {
    pub source: Source,
    pub reserve_per_hire: i32,
    pub reserve_start: i32,
    pub reserve_start_source: Source,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TempleOffer {
    pub resources: usize,
    pub wisdom: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TempleTileData {
    pub source: Source,
    pub offers: Vec<TempleOffer>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarketTileData {
    pub source: Source,
    pub items_by_dice: Vec<ItemsByDice>,
    pub step_cost: i32,
    pub palace: Goods,
    pub bundle: Goods,
    pub bundle_resources: i32,
    pub bundle_resources_source: Source,
    pub privilege_source: Source,
}

impl MarketTileData {
    pub fn items_for(&self, dice: usize) -> usize {
        self.items_by_dice
            .iter()
            .find(|i| i.dice_min <= dice && dice <= i.dice_max)
            .map(|i| i.count)
            .unwrap_or(0)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameData {
    pub player_counts: PlayerCounts,
    pub dice: DiceData,
    pub start: StartData,
    pub wisdom_costs: WisdomCosts,
    pub palace: Length,
    pub palace_dice_per_round: ByPlayers,
    pub display: DisplayData,
    pub end: EndData,
    pub round_limit: RoundLimit,
    pub scoring: ScoringData,
    pub fish_market: FishMarketData,
    pub academy: AcademyData,
    pub scrolls: ScrollsData,
    pub privileges: PrivilegeData,
    pub artist_group_rewards: ArtistGroupRewards,
    pub river_market: RiverMarketData,
    pub compositions: CompositionsData,
    pub fish_market_tile: FishMarketTileData,
    pub academy_tile: AcademyTileData,
    pub temple_tile: TempleTileData,
    pub market_tile: MarketTileData,
    /// From `locations.txt`: the labyrinth's stations.
    #[serde(skip)]
    pub stations: Vec<StationData>,
    /// From `locations.txt`: the labyrinth's arrows.
    #[serde(skip)]
    pub arrows: Vec<ArrowData>,
    /// From `locations.txt`: the location tiles.
    #[serde(skip)]
    pub tiles: Vec<TileData>,
    /// From `cards.txt`: the river market's demand cards.
    #[serde(skip)]
    pub demands: Vec<DemandCard>,
    /// From `cards.txt`: the composition cards.
    #[serde(skip)]
    pub composition_cards: Vec<CompositionCard>,
    /// From `locations.txt`.
    #[serde(skip)]
    pub locations: Vec<LocationData>,
    /// From `cards.txt`.
    #[serde(skip)]
    pub market_items: Vec<MarketItemData>,
    /// From `cards.txt`.
    #[serde(skip)]
    pub advisors: Vec<AdvisorCard>,
}

/// Index of the Eternal Bridge in `locations`.
pub const BRIDGE: usize = 12;
/// Index of the Imperial Scrolls in `locations`.
pub const SCROLLS: usize = 13;
/// Index of the labyrinth (module) in `locations`.
pub const LABYRINTH: usize = 14;
/// Index of the river market (module) in `locations`.
pub const RIVER_MARKET: usize = 15;
/// Number of locations (1..12, bridge, scrolls, labyrinth, river market).
pub const LOCATIONS: usize = 16;
/// The labyrinth's station where markers start.
pub const ENTRANCE: &str = "entrance";
/// The privileges module's name in the data file.
pub const PRIVILEGES: &str = "privileges";

impl GameData {
    pub fn location_index(&self, key: &str) -> Option<usize> {
        self.locations.iter().position(|l| l.key == key)
    }

    /// The round after which a game of `rules_version` ends at the latest, if any (only
    /// rules version 1 has one).
    pub fn round_limit(&self, rules_version: u32) -> Option<u32> {
        (rules_version <= self.round_limit.until_rules_version).then_some(self.round_limit.rounds)
    }

    pub fn card(&self, id: &str) -> Option<&AdvisorCard> {
        self.advisors.iter().find(|c| c.id == id)
    }

    /// Ids of the advisor cards used with this many players and modules.
    pub fn deck_for(&self, seats: u8, privileges: bool) -> Vec<String> {
        self.advisors
            .iter()
            .filter(|c| c.min_players.is_none_or(|m| seats >= m))
            .filter(|c| match c.module.as_deref() {
                None => true,
                Some(m) => m == PRIVILEGES && privileges,
            })
            .map(|c| c.id.clone())
            .collect()
    }

    pub fn market_items(&self, privileges: bool) -> impl Iterator<Item = &MarketItemData> {
        self.market_items
            .iter()
            .filter(move |i| i.module.is_none() || privileges)
    }

    /// The bridge's bonuses in play: the printed bridge's, or the tile's.
    pub fn bridge_bonuses(&self, privileges: bool, tile: bool) -> impl Iterator<Item = &BonusData> {
        let bonuses = match self.tile("bridge") {
            Some(t) if tile => &t.bonuses,
            _ => &self.locations[BRIDGE].bonuses,
        };
        bonuses
            .iter()
            .filter(move |b| b.module.is_none() || privileges)
    }

    pub fn tile(&self, key: &str) -> Option<&TileData> {
        self.tiles.iter().find(|t| t.key == key)
    }

    pub fn station(&self, id: &str) -> Option<&StationData> {
        self.stations.iter().find(|s| s.id == id)
    }

    /// The arrows leaving station `from`.
    pub fn arrows_from<'a>(&'a self, from: &'a str) -> impl Iterator<Item = &'a ArrowData> {
        self.arrows.iter().filter(move |a| a.from == from)
    }

    pub fn demand(&self, id: &str) -> Option<&DemandCard> {
        self.demands.iter().find(|c| c.id == id)
    }

    pub fn composition(&self, id: &str) -> Option<&CompositionCard> {
        self.composition_cards.iter().find(|c| c.id == id)
    }

    /// Demand fields in play with this many players.
    pub fn demand_fields(&self, seats: u8) -> usize {
        self.river_market
            .fields_by_players
            .get(seats as usize)
            .copied()
            .unwrap_or(0)
            .min(self.river_market.fields.len())
    }

    /// Minimal wisdom to turn pip `from` into pip `to` (steps of one pip, or 1<->6 swaps).
    pub fn pip_cost(&self, from: u8, to: u8) -> i32 {
        let step = self.wisdom_costs.pip_step;
        let swap = self.wisdom_costs.one_six_swap;
        let (from, to) = (from as i32, to as i32);
        let direct = (from - to).abs() * step;
        let via_one_six = (from - 1).abs() * step + swap + (6 - to).abs() * step;
        let via_six_one = (from - 6).abs() * step + swap + (to - 1).abs() * step;
        direct.min(via_one_six).min(via_six_one)
    }
}

/// A line of `settings.txt`: a setting's name and its values.
#[derive(Debug, Deserialize)]
struct Setting(String, serde_json::Value);

/// A line of `locations.txt`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum LocationRecord {
    Location(LocationData),
    Station(StationData),
    Arrow(ArrowData),
    Tile(TileData),
}

/// A line of `cards.txt`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum CardRecord {
    MarketItem(MarketItemData),
    Advisor(AdvisorCard),
    Demand(DemandCard),
    Composition(CompositionCard),
}

fn parse() -> GameData {
    let settings: serde_json::Map<String, serde_json::Value> =
        embedded::<Setting>("settings.txt", SETTINGS_TXT)
            .into_iter()
            .map(|Setting(name, values)| (name, values))
            .collect();
    let mut data: GameData = serde_json::from_value(serde_json::Value::Object(settings))
        .unwrap_or_else(|e| panic!("data/eternal_palace/settings.txt is invalid: {e}"));
    for record in embedded::<LocationRecord>("locations.txt", LOCATIONS_TXT) {
        match record {
            LocationRecord::Location(location) => data.locations.push(location),
            LocationRecord::Station(station) => data.stations.push(station),
            LocationRecord::Arrow(arrow) => data.arrows.push(arrow),
            LocationRecord::Tile(tile) => data.tiles.push(tile),
        }
    }
    for card in embedded::<CardRecord>("cards.txt", CARDS_TXT) {
        match card {
            CardRecord::MarketItem(item) => data.market_items.push(item),
            CardRecord::Advisor(advisor) => data.advisors.push(advisor),
            CardRecord::Demand(demand) => data.demands.push(demand),
            CardRecord::Composition(card) => data.composition_cards.push(card),
        }
    }
    data
}

/// The parsed data file (parsed on first use; the file is part of the binary).
pub fn data() -> &'static GameData {
    static DATA: OnceLock<GameData> = OnceLock::new();
    DATA.get_or_init(parse)
}
