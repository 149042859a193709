//! The options a game is created with: the modules, the location tiles and the second
//! readings, which of them combine, and under which rules version each may be chosen.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::engine::{RuleError, SharedRule};
use crate::kit::is_default;

/// One of the five location tiles (short rules "Locations"): an alternative side for a
/// location of the board, replacing its action.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalaceLocationTile)]
pub enum LocationTile {
    /// Fish Market (1): draw 1 advisor, pay any fish once for as many more.
    FishMarket,
    /// Academy of Wisdom (2): take the academy's wisdom reserve, or hire an open advisor for
    /// its cost and add 1 wisdom to the reserve.
    Academy,
    /// Temple of Wisdom (7): 1 wisdom, or 1 / 2 resources for 3 / 6 wisdom.
    Temple,
    /// Palace Market (12): 1 / 2 / 3 different items for 2 / 3 / 4+ dice.
    PalaceMarket,
    /// Eternal Bridge: other bonuses along the way.
    EternalBridge,
}

impl LocationTile {
    pub const ALL: [LocationTile; 5] = [
        LocationTile::FishMarket,
        LocationTile::Academy,
        LocationTile::Temple,
        LocationTile::PalaceMarket,
        LocationTile::EternalBridge,
    ];

    /// The tile's id, as `location_tiles` names it (and the rules page).
    pub fn id(self) -> &'static str {
        match self {
            LocationTile::FishMarket => "fish_market",
            LocationTile::Academy => "academy",
            LocationTile::Temple => "temple",
            LocationTile::PalaceMarket => "palace_market",
            LocationTile::EternalBridge => "eternal_bridge",
        }
    }

    /// The tile's name for people, as the rules page calls it.
    pub fn name(self) -> &'static str {
        match self {
            LocationTile::FishMarket => "Fish Market tile",
            LocationTile::Academy => "Academy tile",
            LocationTile::Temple => "Temple tile",
            LocationTile::PalaceMarket => "Palace Market tile",
            LocationTile::EternalBridge => "Eternal Bridge tile",
        }
    }

    /// The key of the location the tile lies on.
    pub fn key(self) -> &'static str {
        match self {
            LocationTile::FishMarket => "1",
            LocationTile::Academy => "2",
            LocationTile::Temple => "7",
            LocationTile::PalaceMarket => "12",
            LocationTile::EternalBridge => "bridge",
        }
    }
}

/// Options chosen when the game is created. The modules and tiles need rules version 3;
/// at most one of `labyrinth`, `river_market` and `compositions` may be chosen. Options left
/// at their default are omitted when the options are shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EternalPalaceOptions {
    /// Play with the privileges module (privilege tokens change the turn order; 4 more
    /// advisors; the Palace Market and the bridge's third space hand out tokens).
    #[schema(example = true)]
    pub privileges: bool,
    /// Labyrinth module (rules version 3): a new location visited with a single die; the
    /// marker follows an arrow to the next station, paying the fish on the way and taking the
    /// station's goods. Not combinable with `river_market` or `compositions`.
    #[serde(skip_serializing_if = "is_default")]
    #[schema(example = true)]
    pub labyrinth: bool,
    /// River market module (Fluss-Markt, rules version 3): a new location visited with a
    /// single die, where players fulfil the demands of a card from a secret deck of 12; a
    /// full card rewards every marker on it and penalises every player without one. Not
    /// combinable with `labyrinth` or `compositions`.
    #[serde(skip_serializing_if = "is_default")]
    #[schema(example = true)]
    pub river_market: bool,
    /// Compositions module (rules version 3): as many open composition cards as players; the
    /// first to hold the painting layers of a card's three locations takes its reward
    /// (imperial seals are 1 VP at the end). Not combinable with `labyrinth` or
    /// `river_market`.
    #[serde(skip_serializing_if = "is_default")]
    #[schema(example = true)]
    pub compositions: bool,
    /// Location tiles in play (rules version 3), any subset of the five, each at most once;
    /// combinable with everything.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(example = json!(["fish_market", "eternal_bridge"]))]
    pub location_tiles: Vec<LocationTile>,
    /// Rules version 4, with `labyrinth` or `river_market`: the module's location takes a
    /// group of any size and any pips, reading "kann mit einem einzelnen Würfel besucht
    /// werden" as "one die is enough" (off: exactly one die, `single_die_only`). The group's
    /// size and pips change nothing there.
    #[serde(skip_serializing_if = "is_default")]
    #[schema(example = true)]
    pub any_group_at_module_locations: bool,
    /// Rules version 5: the first player to take a location's painting layer gets two
    /// decorations (2 VP at the end), reading "entfernt das Dekorationstoken und erhält
    /// zusätzlich 1 Dekoration" as the token being one decoration and one more besides
    /// (off: the token is removed and one decoration taken).
    #[serde(skip_serializing_if = "is_default")]
    #[schema(example = true)]
    pub two_decorations: bool,
    /// Rules version 5, with `river_market`: a full demand card rewards only the player who
    /// filled its last field, for each of their markers, reading "erhalte für jeden Deiner
    /// Marker" as addressed to that player (off: every marker on the card is rewarded). The
    /// penalty for players without a marker is the same.
    #[serde(skip_serializing_if = "is_default")]
    #[schema(example = true)]
    pub demand_reward_only_to_filler: bool,
    /// Rules version 5: at the Academy a player who can pay for an open advisor must hire
    /// one, reading "Nimm 1 offenliegenden Berater" as an order (off: hiring there is
    /// optional, `hire_advisor` with no card declines).
    #[serde(skip_serializing_if = "is_default")]
    #[schema(example = true)]
    pub academy_hire_compulsory: bool,
}

impl EternalPalaceOptions {
    /// The base game with or without privileges (what rules versions 1 and 2 offer).
    pub fn base(privileges: bool) -> Self {
        EternalPalaceOptions {
            privileges,
            ..Default::default()
        }
    }

    /// Whether a module or tile of rules version 3 is chosen.
    pub fn uses_version_3(&self) -> bool {
        self.labyrinth || self.river_market || self.compositions || !self.location_tiles.is_empty()
    }

    /// Whether the tile for location `key` is chosen.
    pub fn tile(&self, key: &str) -> bool {
        self.location_tiles.iter().any(|t| t.key() == key)
    }
}

/// The first rules version with the modules and location tiles.
pub const MODULES_FROM_VERSION: u32 = 3;

/// The first rules version with `any_group_at_module_locations`.
pub const ANY_GROUP_FROM_VERSION: u32 = 4;

/// The first rules version with the options that play a second reading: `two_decorations`,
/// `demand_reward_only_to_filler` and `academy_hire_compulsory`.
pub const SECOND_READINGS_FROM_VERSION: u32 = 5;

/// Options the short rules allow together, under a rules version that has them.
pub fn check_options(options: &EternalPalaceOptions, rules_version: u32) -> Result<(), RuleError> {
    if options.uses_version_3() && rules_version < MODULES_FROM_VERSION {
        return Err(RuleError::new(
            SharedRule::InvalidOptions,
            format!(
                "the modules labyrinth, river_market and compositions and the location tiles \
                 need rules version {MODULES_FROM_VERSION}; this game is on version \
                 {rules_version}"
            ),
        ));
    }
    let chosen: Vec<&str> = [
        (options.labyrinth, "labyrinth"),
        (options.river_market, "river_market"),
        (options.compositions, "compositions"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name)
    .collect();
    if chosen.len() > 1 {
        return Err(RuleError::new(
            SharedRule::InvalidOptions,
            format!(
                "labyrinth, river_market and compositions cannot be combined (chosen: {}); \
                 choose at most one of them (each combines with privileges and the tiles)",
                chosen.join(", ")
            ),
        ));
    }
    if options.any_group_at_module_locations {
        if rules_version < ANY_GROUP_FROM_VERSION {
            return Err(RuleError::new(
                SharedRule::InvalidOptions,
                format!(
                    "any_group_at_module_locations needs rules version {ANY_GROUP_FROM_VERSION}; \
                     this game is on version {rules_version}"
                ),
            ));
        }
        if !options.labyrinth && !options.river_market {
            return Err(RuleError::new(
                SharedRule::InvalidOptions,
                "any_group_at_module_locations changes the labyrinth and the river market only; \
                 choose one of them with it",
            ));
        }
    }
    let second_readings: Vec<&str> = [
        (options.two_decorations, "two_decorations"),
        (
            options.demand_reward_only_to_filler,
            "demand_reward_only_to_filler",
        ),
        (options.academy_hire_compulsory, "academy_hire_compulsory"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name)
    .collect();
    if !second_readings.is_empty() && rules_version < SECOND_READINGS_FROM_VERSION {
        return Err(RuleError::new(
            SharedRule::InvalidOptions,
            format!(
                "{} need rules version {SECOND_READINGS_FROM_VERSION}; this game is on version \
                 {rules_version}",
                second_readings.join(" and ")
            ),
        ));
    }
    if options.demand_reward_only_to_filler && !options.river_market {
        return Err(RuleError::new(
            SharedRule::InvalidOptions,
            "demand_reward_only_to_filler changes the river market's reward only; choose \
             river_market with it",
        ));
    }
    for (i, tile) in options.location_tiles.iter().enumerate() {
        if options.location_tiles[..i].contains(tile) {
            return Err(RuleError::new(
                SharedRule::InvalidOptions,
                format!(
                    "location_tiles names {:?} (the {}) twice; choose each tile at most once",
                    tile.id(),
                    tile.name()
                ),
            ));
        }
    }
    Ok(())
}

/// The options schema's extra keywords (`Engine::options_constraints`): at most one of the three modules with a location of their own (see
/// [`check_options`]), each location tile at most once, any group at the module
/// locations only with a module location, the demand reward to the filler only with the
/// river market.
pub fn constraints() -> Option<serde_json::Value> {
    let modules = ["labyrinth", "river_market", "compositions"];
    let pairs: Vec<serde_json::Value> = modules
        .iter()
        .enumerate()
        .flat_map(|(index, first)| {
            modules[index + 1..]
                .iter()
                .map(move |second| (first, second))
        })
        .map(|(first, second)| {
            serde_json::json!({
                "properties": {*first: {"const": true}, *second: {"const": true}},
                "required": [first, second],
            })
        })
        .collect();
    Some(serde_json::json!({
        "not": {"anyOf": pairs},
        "properties": {"location_tiles": {"uniqueItems": true}},
        // Under `dependentSchemas`, which validators apply and generators leave alone.
        "dependentSchemas": {
            "any_group_at_module_locations": {"anyOf": [
                {"properties": {"any_group_at_module_locations": {"const": false}}},
                {"properties": {"labyrinth": {"const": true}}, "required": ["labyrinth"]},
                {"properties": {"river_market": {"const": true}}, "required": ["river_market"]},
            ]},
            "demand_reward_only_to_filler": {"anyOf": [
                {"properties": {"demand_reward_only_to_filler": {"const": false}}},
                {"properties": {"river_market": {"const": true}}, "required": ["river_market"]},
            ]},
        },
    }))
}
