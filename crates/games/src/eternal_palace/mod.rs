//! Eternal Palace (Steven Aramini, Alley Cat Games 2022): base game and the privileges
//! module, for 2 to 5 players; from rules version 3 also the expansion modules labyrinth,
//! river market and compositions (one per game) and the five location tiles, each only when
//! chosen in the options (a version 3 game without them plays as version 2); from rules
//! version 4 the option that lets any group visit the labyrinth and the river market.
//!
//! A round: everybody's dice are rolled (in `decide`/`setup`, written into `DiceRolled`),
//! the turn order follows the ascending pip sums, then every seat groups its dice in secret
//! and simultaneously (`to_act` lists every seat that has not submitted; a submitted
//! grouping is stored sealed and owned by its seat until the reveal). With the privileges
//! module the seats holding tokens then decide in turn order. The reveal is emitted when
//! the last decision of the planning phase arrives. Under rules version 2 owners of group
//! artists whose groups would give different rewards then choose a group, in turn order
//! (pending choices before the first placing turn). Then groups are placed one at a time in
//! turn order; some locations open a follow-up choice for the same seat. When every group
//! is placed the round ends, the next one is prepared and rolled within the same `decide`;
//! the game ends when someone holds 8 layers (rules version 1: also after round 15).
//!
//! Numbers and components come from the record files in `data/eternal_palace/`; the rules
//! page is `docs/rules/eternal-palace.md`.
//!
//! Layout: [`data`] reads the record files, [`state`] holds the state and folds each
//! [`event`] into it, [`rules`] holds `setup` and `decide`, [`legal`] lists exactly what
//! `decide` accepts, [`scoring`] makes the final score sheets, [`view`] builds what each
//! viewer may see and [`hidden`] re-draws what a seat may not see for the bots. `rules` is a
//! folder with one file per part of the game: `setup`; `planning` (grouping, privileges, the
//! reveal); `placement` of a group, then the locations' actions in `locations`,
//! `fish_market` and `location_tiles`; one file per module (`labyrinth`, `river_market`,
//! `compositions`); `advisors`; `layers` (tracks, marks, painting layers, decorations);
//! `round` (passing turns, the end of a round and of the game); all over `decision`, the
//! steps every decision shares.

pub mod action;
pub mod codes;
pub mod data;
pub mod event;
pub mod hidden;
pub mod legal;
pub mod rules;
pub mod scoring;
pub mod state;
pub mod view;

#[cfg(test)]
mod tests;

use std::ops::RangeInclusive;

use rand::RngCore;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::engine::{
    Engine, Outcome, RuleError, RulesVersion, Seat, Secret, SharedRule, TakeBackBarrier, Taker,
    Viewer,
};
use crate::kit::is_default;

pub use action::{Action, MarketItem};
pub use codes::EternalPalaceRule;
pub use event::Event;
pub use state::State;
pub use view::EternalPalaceView;

use data::{data, Goods};
use event::{Answer, Choice, HireSource, Reason};
use state::{token_card, token_owner, Pending};

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

/// The Eternal Palace engine.
#[derive(Debug, Clone, Copy)]
pub struct EternalPalace;

/// From this rules version an action that reached another seat stays (see the rules page,
/// "Taking back"): earlier games took a diplomat's gift, a paid-out river market card or a
/// claimed composition back.
pub const REACHING_OTHERS_STAYS_FROM_VERSION: u32 = 6;

impl Engine for EternalPalace {
    type Options = EternalPalaceOptions;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = EternalPalaceView;

    const KIND: &'static str = "eternal_palace";
    const NAME: &'static str = "Eternal Palace";
    const RULES_VERSIONS: &'static [RulesVersion] = &[
        RulesVersion {
            version: 1,
            date: "2026-11-22",
            changes: "First version: the base game and the privileges module.",
        },
        RulesVersion {
            version: 2,
            date: "2026-11-24",
            changes: "Only 8 painting layers end the game (no 15-round limit); a group \
                      artist's owner chooses which group it rewards.",
        },
        RulesVersion {
            version: 3,
            date: "2026-11-24",
            changes: "The expansion modules labyrinth, river market (Fluss-Markt) and \
                      compositions (at most one per game) and the five location tiles are \
                      available as options; games without them play as in version 2.",
        },
        RulesVersion {
            version: 4,
            date: "2026-11-27",
            changes: "The option any_group_at_module_locations: the labyrinth and the river \
                      market take a group of any size. Games without it play as in version 3.",
        },
        RulesVersion {
            version: 5,
            date: "2026-12-03",
            changes: "Three options that play the second reading of a sentence: \
                      two_decorations, demand_reward_only_to_filler (with river_market) and \
                      academy_hire_compulsory. Games without them play as in version 4.",
        },
        RulesVersion {
            version: 6,
            date: "2026-12-04",
            changes: "Taking back: an action that reached another seat can no longer be taken \
                      back (a diplomat's gift, a river market card paid out, a composition \
                      claimed). The game itself plays as in version 5.",
        },
    ];
    /// Version 2 added `game_set_up`'s optional `seed_commitment`.
    const EVENT_SCHEMA_VERSION: u32 = 2;
    const FIRST_COMPATIBLE_EVENT_SCHEMA_VERSION: u32 = 1;
    /// A round is a group of dice and their placements, about three actions a seat: two
    /// rounds.
    const RATED_AFTER_ACTIONS: u32 = 6;
    type Rule = EternalPalaceRule;
    const SHARED_RULES: &'static [SharedRule] = &[SharedRule::CannotAfford];

    fn player_counts() -> RangeInclusive<u8> {
        let counts = &data().player_counts;
        counts.min..=counts.max
    }

    /// At most one of the three modules with a location of their own (see
    /// `rules::check_options`), each location tile at most once, any group at the module
    /// locations only with a module location, the demand reward to the filler only with the
    /// river market.
    fn options_constraints() -> Option<serde_json::Value> {
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

    fn initial_state(options: &Self::Options, seats: u8, rules_version: u32) -> State {
        State::new(options, seats, rules_version)
    }

    fn setup(
        options: &Self::Options,
        seats: u8,
        rules_version: u32,
        seed_commitment: Option<&str>,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<Event>, RuleError> {
        rules::setup(options, seats, rules_version, seed_commitment, rng)
    }

    fn decide(
        state: &State,
        seat: Seat,
        action: &Action,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<Event>, RuleError> {
        rules::decide(state, seat, action, rng)
    }

    fn evolve(state: &mut State, event: &Event) {
        state.apply(event);
    }

    fn legal_actions(state: &State, seat: Seat) -> Vec<Action> {
        legal::legal_actions(state, seat)
    }

    fn to_act(state: &State) -> Vec<Seat> {
        legal::to_act(state)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        let sheets = state.result.as_ref()?;
        Some(Outcome {
            scores: sheets.iter().map(|s| s.total).collect(),
            places: sheets.iter().map(|s| s.place).collect(),
        })
    }

    fn scores(state: &State) -> Vec<i32> {
        match &state.result {
            Some(sheets) => sheets.iter().map(|sheet| sheet.total).collect(),
            None => scoring::final_scores(state)
                .0
                .iter()
                .map(|sheet| sheet.total)
                .collect(),
        }
    }

    fn view(state: &State, viewer: Viewer) -> EternalPalaceView {
        view::view(state, viewer)
    }

    fn redact(event: &Event, viewer: Viewer) -> Event {
        let mut event = event.clone();
        match &mut event {
            Event::GameSetUp { deck, .. }
            | Event::DeckReshuffled { deck }
            | Event::DemandDeckShuffled { deck }
                if !viewer.is_omniscient() =>
            {
                *deck = None;
            }
            Event::ExtraAdvisorsDrawn { seat, cards, .. } if !viewer.sees_secrets_of(*seat) => {
                *cards = None;
            }
            Event::DiceGrouped { seat, sealed } if !viewer.sees_secrets_of(*seat) => *sealed = None,
            Event::AdvisorsDrawn { seat, cards, .. } if !viewer.sees_secrets_of(*seat) => {
                *cards = None;
            }
            Event::FishMarketResolved { seat, returned, .. } if !viewer.sees_secrets_of(*seat) => {
                *returned = None;
            }
            _ => {}
        }
        event
    }

    fn describe(state: &State, event: &Event) -> String {
        describe(state, event)
    }

    fn secrets(state: &State) -> Vec<Secret> {
        let mut out = Vec::new();
        for token in &state.deck {
            out.push(Secret {
                owner: token_owner(token),
                needle: format!("\"{token}\""),
            });
        }
        for token in &state.demand_deck {
            out.push(Secret {
                owner: None,
                needle: format!("\"{token}\""),
            });
        }
        for pending in &state.pending {
            if let Pending::FishMarket { seat, cards, .. } = pending {
                for token in cards {
                    out.push(Secret {
                        owner: Some(*seat),
                        needle: format!("\"{token}\""),
                    });
                }
            }
        }
        for (seat, sealed) in state.sealed.iter().enumerate() {
            if let Some(sealed) = sealed {
                out.push(Secret {
                    owner: Some(seat as Seat),
                    needle: format!("\"{sealed}\""),
                });
            }
        }
        out
    }

    fn take_back_barrier(event: &Event) -> Option<TakeBackBarrier> {
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

    fn take_back_barrier_for(event: &Event, taker: Taker) -> Option<TakeBackBarrier> {
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
            Self::take_back_barrier(event)
        }
    }

    fn sample_hidden(state: &State, seat: Seat, rng: &mut dyn RngCore) -> State {
        hidden::sample_hidden(state, seat, rng)
    }
}

fn colour(seat: Seat) -> &'static str {
    crate::kit::seats::colour(seat)
}

fn card_name(id: &str) -> String {
    match data().card(id) {
        Some(c) => format!("{} ({})", c.name, c.id),
        None => id.to_string(),
    }
}

fn location_name(key: &str) -> String {
    let d = data();
    match d.location_index(key) {
        Some(i) if d.locations[i].number().is_some() => {
            format!("{} ({})", d.locations[i].name, key)
        }
        Some(i) => d.locations[i].name.clone(),
        None => key.to_string(),
    }
}

fn seats_text(seats: &[Seat]) -> String {
    seats
        .iter()
        .map(|s| colour(*s))
        .collect::<Vec<_>>()
        .join(", ")
}

fn reason_text(reason: Reason) -> &'static str {
    match reason {
        Reason::ResourceLocation => "at the resource location",
        Reason::Temple => "at the Temple of Wisdom",
        Reason::Market => "at the Palace Market",
        Reason::Scrolls => "at the Imperial Scrolls",
        Reason::Bridge => "from the Eternal Bridge",
        Reason::Monument => "at the monument",
        Reason::Hire => "for hiring",
        Reason::Advisor => "from an advisor",
        Reason::Diplomacy => "from a diplomat",
        Reason::Labyrinth => "in the labyrinth",
        Reason::RiverMarket => "to fulfil a demand at the river market",
        Reason::DemandReward => "as the river market's reward",
        Reason::DemandPenalty => "as the river market's penalty",
        Reason::Composition => "for a composition",
        Reason::FishMarket => "to draw more advisors",
        Reason::Academy => "from the academy's reserve",
    }
}

fn station_name(id: &str) -> String {
    data()
        .station(id)
        .map_or_else(|| id.to_string(), |s| s.name.clone())
}

fn answer_text(answer: &Answer) -> String {
    match answer {
        Answer::Path { station } => format!("takes the way to {}", station_name(station)),
        Answer::Demand { field, resource } => {
            format!("gives {} for demand field {field}", resource.name())
        }
        Answer::Reserve { wisdom } => format!("takes the academy's reserve of {wisdom} wisdom"),
        Answer::Temple { paid } if paid.is_empty() => "takes 1 wisdom at the temple".into(),
        Answer::Temple { paid } => format!(
            "pays {} for wisdom at the temple",
            paid.iter()
                .map(|r| r.name())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        Answer::MarketTile {
            step,
            palace,
            bundle,
            advisor,
            privilege,
        } => {
            let mut parts = Vec::new();
            if let Some(r) = step {
                parts.push(format!("a step for {}", r.name()));
            }
            if *palace {
                parts.push("a palace step".to_string());
            }
            if let Some(r) = bundle {
                parts.push(format!("wisdom, fish and {}", r.name()));
            }
            if let Some(c) = advisor {
                parts.push(card_name(c));
            }
            if *privilege {
                parts.push("a privilege".to_string());
            }
            format!("takes {} at the Palace Market", parts.join(", "))
        }
        Answer::ResourceStep { resource: Some(r) } => format!("pays {} for a step", r.name()),
        Answer::ResourceStep { resource: None } => "takes no step for a resource".to_string(),
    }
}

fn describe(state: &State, event: &Event) -> String {
    match event {
        Event::GameSetUp {
            seats, turn_order, ..
        } => format!(
            "A game for {seats} players begins; turn order {}",
            seats_text(turn_order)
        ),
        Event::DeckReshuffled { .. } => {
            format!(
                "The {} discarded advisors are shuffled into the deck",
                state.discard.len()
            )
        }
        Event::DisplayCleared { cards } => {
            format!("{} open advisor(s) are discarded", cards.len())
        }
        Event::DisplayDealt { cards } => format!(
            "New advisors on display: {}",
            cards
                .iter()
                .map(|c| card_name(c))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Event::GoodsChanged {
            seat,
            delta,
            reason,
        } => {
            let positive = Goods::only_positive(delta);
            let negative = Goods::only_positive(&delta.negated());
            let mut parts = Vec::new();
            if !positive.is_empty() {
                parts.push(format!("gains {}", positive.text()));
            }
            if !negative.is_empty() {
                parts.push(format!("pays {}", negative.text()));
            }
            format!(
                "{} {} {}",
                colour(*seat),
                parts.join(" and "),
                reason_text(*reason)
            )
        }
        Event::DiceRolled { round, dice } => {
            let rolls: Vec<String> = dice
                .iter()
                .enumerate()
                .map(|(s, d)| format!("{} {:?}", colour(s as Seat), d))
                .collect();
            format!("Round {round}: dice rolled: {}", rolls.join(", "))
        }
        Event::TurnOrderSet { order } => format!("Turn order: {}", seats_text(order)),
        Event::DiceGrouped { seat, sealed } => match sealed {
            Some(s) => format!(
                "{} locks the grouping {:?}",
                colour(*seat),
                state::unseal(s)
            ),
            None => format!("{} locks a grouping", colour(*seat)),
        },
        Event::PrivilegesOpened { seats } => {
            format!("Privileges: {} decide in this order", seats_text(seats))
        }
        Event::PrivilegeDecided { seat, play } => {
            if *play {
                format!("{} plays a privilege", colour(*seat))
            } else {
                format!("{} plays no privilege", colour(*seat))
            }
        }
        Event::GroupsRevealed { groups } => {
            let parts: Vec<String> = groups
                .iter()
                .enumerate()
                .map(|(s, g)| format!("{} {:?}", colour(s as Seat), g))
                .collect();
            format!("Groups revealed: {}", parts.join(", "))
        }
        Event::DicePlaced {
            seat,
            location,
            pips,
            wisdom,
            fish,
            ..
        } => {
            let mut text = format!(
                "{} places {:?} on {}",
                colour(*seat),
                pips,
                location_name(location)
            );
            if *wisdom > 0 {
                text.push_str(&format!(", spending {wisdom} wisdom"));
            }
            if *fish > 0 {
                text.push_str(&format!(", paying {fish} fish"));
            }
            text
        }
        Event::TrackAdvanced { seat, location, to } => format!(
            "{} moves to space {to} at {}",
            colour(*seat),
            location_name(location)
        ),
        Event::LayerTaken { seat, layer } => format!(
            "{} takes the painting layer of {}",
            colour(*seat),
            location_name(layer)
        ),
        Event::DecorationTaken { seat, location } => format!(
            "{} takes the decoration of {}",
            colour(*seat),
            location_name(location)
        ),
        Event::MonumentTaken {
            seat,
            location,
            paid,
        } => format!(
            "{} pays {paid} to the ring and takes the monument {}",
            colour(*seat),
            location_name(location)
        ),
        Event::SpaceMarked { seat, space } => {
            format!("{} marks space {space}", colour(*seat))
        }
        Event::ChoiceOffered { seat, choice } => {
            let what = match choice {
                Choice::Hire {
                    source: HireSource::Academy,
                } => "may hire an open advisor".to_string(),
                Choice::Hire { .. } => "may take an open advisor for free".to_string(),
                Choice::Resource => "chooses a resource".to_string(),
                Choice::Market { count } => format!("chooses {count} market items"),
                Choice::Scrolls => "chooses the scrolls' reward".to_string(),
                Choice::ArtistGroup { card, .. } => {
                    format!("chooses the group that {} rewards", card_name(card))
                }
                Choice::Path { .. } => "chooses a way through the labyrinth".to_string(),
                Choice::Demand => "chooses a demand to fulfil".to_string(),
                Choice::AcademyTile { reserve } => {
                    format!("takes the reserve of {reserve} wisdom or hires an advisor")
                }
                Choice::TempleTile => "chooses what to buy at the temple".to_string(),
                Choice::MarketTile { count } => format!("chooses {count} market items"),
                Choice::ResourceStep => "may pay a resource for a step".to_string(),
            };
            format!("{} {what}", colour(*seat))
        }
        Event::ChoiceMade {
            seat,
            card,
            resource,
            items,
        } => {
            let mut parts = Vec::new();
            if let Some(c) = card {
                parts.push(card_name(c));
            }
            if let Some(r) = resource {
                parts.push(r.name().to_string());
            }
            for i in items {
                parts.push(i.id().to_string());
            }
            if parts.is_empty() {
                format!("{} takes nothing", colour(*seat))
            } else {
                format!("{} chooses {}", colour(*seat), parts.join(", "))
            }
        }
        Event::ArtistGroupChosen { seat, card, group } => {
            let pips = state
                .player(*seat)
                .and_then(|p| p.groups.get(*group as usize))
                .cloned()
                .unwrap_or_default();
            format!(
                "{} chooses the group {:?} for {}",
                colour(*seat),
                pips,
                card_name(card)
            )
        }
        Event::AdvisorsDrawn { seat, count, cards } => match cards {
            Some(cards) => format!(
                "{} draws {}",
                colour(*seat),
                cards
                    .iter()
                    .map(|t| card_name(token_card(t)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!("{} draws {count} advisor(s)", colour(*seat)),
        },
        Event::FishMarketResolved {
            seat,
            returned,
            discarded,
            hired,
        } => {
            let mut parts = Vec::new();
            match returned {
                Some(t) => parts.push(format!("puts {} back on top", card_name(token_card(t)))),
                None => parts.push("puts a card back on top".to_string()),
            }
            if !discarded.is_empty() {
                parts.push(format!(
                    "discards {}",
                    discarded
                        .iter()
                        .map(|c| card_name(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if let Some(h) = hired {
                parts.push(format!("keeps {}", card_name(h)));
            }
            format!("{} {}", colour(*seat), parts.join(", "))
        }
        Event::AdvisorHired { seat, card, .. } => {
            format!("{} hires {}", colour(*seat), card_name(card))
        }
        Event::AdvisorUsed { seat, card, target } => match target {
            Some(t) => format!(
                "{} uses {} towards {}",
                colour(*seat),
                card_name(card),
                colour(*t)
            ),
            None => format!("{} uses {}", colour(*seat), card_name(card)),
        },
        Event::TurnPassed { next } => match next {
            Some(s) => format!("{} places next", colour(*s)),
            None => "Every group is placed".to_string(),
        },
        Event::RoundEnded { round } => format!("Round {round} ends"),
        Event::PalaceDieReleased { seat } => {
            format!("{} gets a die back from the palace", colour(*seat))
        }
        Event::GameFinished { scores, places, .. } => {
            crate::kit::seats::describe_final_standing(scores, places)
        }
        Event::DemandDeckShuffled { .. } => {
            "The river market's demand cards are shuffled face down".to_string()
        }
        Event::DemandRevealed { card } => format!("Demand card {card} is revealed"),
        Event::DemandFulfilled { seat, field } => {
            format!("{} puts a marker on demand field {field}", colour(*seat))
        }
        Event::DemandSettled { card } => {
            format!("Demand card {card} is full: markers return")
        }
        Event::LabyrinthMoved { seat, to } => format!(
            "{} moves to {} in the labyrinth",
            colour(*seat),
            station_name(to)
        ),
        Event::CompositionsDealt { cards } => {
            format!("Composition cards on display: {}", cards.join(", "))
        }
        Event::CompositionClaimed { seat, card } => {
            format!("{} completes composition {card}", colour(*seat))
        }
        Event::AcademyReserveSet { wisdom } => {
            format!("The academy's reserve now holds {wisdom} wisdom")
        }
        Event::ExtraAdvisorsDrawn { seat, count, cards } => match cards {
            Some(cards) => format!(
                "{} draws {} more",
                colour(*seat),
                cards
                    .iter()
                    .map(|t| card_name(token_card(t)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!("{} draws {count} more advisor(s)", colour(*seat)),
        },
        Event::ChoiceAnswered { seat, answer } => {
            format!("{} {}", colour(*seat), answer_text(answer))
        }
    }
}
