//! The full state (with every secret) and `evolve`, which folds one event into it.

use get_size2::GetSize;
use serde::{Deserialize, Serialize};

use super::data::{data, Goods, LocationKind, ENTRANCE, LOCATIONS};
use super::event::{Choice, Event, ScoreSheet};
use super::options::EternalPalaceOptions;
use crate::engine::Seat;

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before the opening events.
    Setup,
    /// Everybody groups their dice in secret, simultaneously.
    Grouping,
    /// Privileges module: in turn order, play a token or not.
    Privileges,
    /// Groups are placed one at a time in turn order.
    Placement,
    /// Final scoring done.
    Finished,
}

/// An advisor in front of a player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct OwnedAdvisor {
    pub card: String,
    /// Turned sideways this round (patrons stay unused: they acted once on hiring).
    pub used: bool,
}

/// One seat's material and progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct Player {
    /// Fish, wisdom, resources and privilege tokens (the palace field stays 0).
    pub stock: Goods,
    pub active_dice: u8,
    pub palace_dice: u8,
    /// Pips rolled this round.
    pub rolled: Vec<u8>,
    /// Revealed groups of this round (empty before the reveal).
    pub groups: Vec<Vec<u8>>,
    /// Which revealed groups are already placed.
    pub placed: Vec<bool>,
    /// Marker position per location index (tracks and the bridge; 0 elsewhere).
    pub tracks: Vec<u8>,
    /// Painting layers, as location keys in the order taken.
    pub layers: Vec<String>,
    pub decorations: i32,
    pub advisors: Vec<OwnedAdvisor>,
    /// Palace track position.
    pub palace: u8,
    /// When the marker arrived at its palace space (lower = further down the stack).
    pub palace_arrival: u32,
    /// Temple / market spaces marked (space ids).
    pub marks: Vec<String>,
    /// Privilege played this round (privileges module).
    pub privilege_played: bool,
    /// Labyrinth module: the station of the seat's marker.
    pub station: String,
    /// Compositions module: the cards taken, in order.
    pub compositions: Vec<String>,
}

/// A group lying on a location this round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct PlacedGroup {
    pub seat: Seat,
    pub pips: Vec<u8>,
}

/// A decision the active seat owes before the turn can pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pending {
    /// Fish market: drawn cards (hidden tokens "held{seat}:{id}"). `draw_more`: Fish
    /// Market tile, the seat may still pay fish to draw more.
    FishMarket {
        seat: Seat,
        cards: Vec<String>,
        #[serde(default)]
        draw_more: bool,
    },
    /// Any other choice.
    Offered { seat: Seat, choice: Choice },
}

impl Pending {
    pub fn seat(&self) -> Seat {
        match self {
            Pending::FishMarket { seat, .. } | Pending::Offered { seat, .. } => *seat,
        }
    }
}

/// The whole game, secrets included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct State {
    /// The rules version the game is played under (see `Engine::RULES_VERSIONS`).
    pub rules_version: u32,
    pub seats: u8,
    pub privileges: bool,
    pub round: u32,
    pub phase: Phase,
    pub turn_order: Vec<Seat>,
    /// The seat placing now (placement phase).
    pub placer: Option<Seat>,
    pub players: Vec<Player>,
    /// Groups lying on each location this round, by location index.
    pub location_dice: Vec<Vec<PlacedGroup>>,
    /// Resources in each monument's ring, by location index (0 elsewhere).
    pub rings: Vec<i32>,
    /// Owner of each monument, by location index.
    pub monument_owners: Vec<Option<Seat>>,
    /// Locations whose decoration token is still there (location keys).
    pub decorations: Vec<String>,
    /// Advisor deck, top first, as hidden tokens: "deck:{id}" (nobody knows it) or
    /// "known{seat}:{id}" (put back on top by that seat).
    pub deck: Vec<String>,
    /// Discard pile (card ids, face up).
    pub discard: Vec<String>,
    /// Open advisors (card ids).
    pub display: Vec<String>,
    pub pending: Vec<Pending>,
    /// Sealed groupings of this round until the reveal (see `Event::DiceGrouped`).
    pub sealed: Vec<Option<String>>,
    /// Privileges module: seats still to decide, in order.
    pub privilege_queue: Vec<Seat>,
    pub privilege_supply: i32,
    /// First seat to reach the layers that end the game.
    pub completion: Option<Seat>,
    /// Counter for palace arrivals.
    pub palace_clock: u32,
    /// Final scoring, once finished.
    pub result: Option<Vec<ScoreSheet>>,
    pub sequence_winner: Option<Seat>,
    /// Labyrinth module in play.
    pub labyrinth: bool,
    /// River market module in play.
    pub river_market: bool,
    /// Compositions module in play.
    pub compositions: bool,
    /// Option: the labyrinth and the river market take a group of any size.
    #[serde(default, skip_serializing_if = "crate::kit::is_default")]
    pub any_group_at_module_locations: bool,
    /// Option: the first to take a location's layer gets two decorations.
    #[serde(default, skip_serializing_if = "crate::kit::is_default")]
    pub two_decorations: bool,
    /// Option: a full demand card rewards only the player who filled it.
    #[serde(default, skip_serializing_if = "crate::kit::is_default")]
    pub demand_reward_only_to_filler: bool,
    /// Option: at the Academy an affordable advisor must be hired.
    #[serde(default, skip_serializing_if = "crate::kit::is_default")]
    pub academy_hire_compulsory: bool,
    /// Keys of the locations whose tile is in play.
    pub tiles: Vec<String>,
    /// Academy tile: wisdom in the academy's reserve.
    pub academy_reserve: i32,
    /// River market: demand deck, top first, as hidden tokens "demand:{id}".
    pub demand_deck: Vec<String>,
    /// River market: demand cards used up (ids), oldest first.
    pub demand_discard: Vec<String>,
    /// River market: the open demand card.
    pub demand_card: Option<String>,
    /// River market: the marker on each demand field in play (top first).
    pub demand_fields: Vec<Option<Seat>>,
    /// Compositions: the open cards not yet taken.
    pub composition_cards: Vec<String>,
}

pub fn demand_token(card: &str) -> String {
    format!("demand:{card}")
}

pub fn deck_token(card: &str) -> String {
    format!("deck:{card}")
}

pub fn known_token(seat: Seat, card: &str) -> String {
    format!("known{seat}:{card}")
}

pub fn held_token(seat: Seat, card: &str) -> String {
    format!("held{seat}:{card}")
}

/// The card id inside a hidden token.
pub fn token_card(token: &str) -> &str {
    token.rsplit(':').next().unwrap_or(token)
}

/// The seat that knows a deck token, if any.
pub fn token_owner(token: &str) -> Option<Seat> {
    let rest = token
        .strip_prefix("known")
        .or_else(|| token.strip_prefix("held"))?;
    rest.split(':').next()?.parse().ok()
}

/// Sealed form of a grouping, unique per round and seat.
pub fn seal(round: u32, seat: Seat, groups: &[Vec<u8>]) -> String {
    let body: Vec<String> = groups
        .iter()
        .map(|g| g.iter().map(|p| p.to_string()).collect::<String>())
        .collect();
    format!("r{round}s{seat}:{}", body.join("/"))
}

/// Groups from a sealed grouping (the engine wrote it, so it parses).
pub fn unseal(sealed: &str) -> Vec<Vec<u8>> {
    let body = sealed.split(':').nth(1).unwrap_or("");
    body.split('/')
        .filter(|g| !g.is_empty())
        .map(|g| g.bytes().map(|b| b.saturating_sub(b'0')).collect())
        .collect()
}

/// Whether a location of `module` (none: the base game) is on the board with `options`.
fn module_chosen(options: &EternalPalaceOptions, module: Option<&str>) -> bool {
    match module {
        None => true,
        Some("labyrinth") => options.labyrinth,
        Some("river_market") => options.river_market,
        _ => false,
    }
}

impl State {
    pub fn new(options: &EternalPalaceOptions, seats: u8, rules_version: u32) -> State {
        let d = data();
        let n = seats as usize;
        let fish = d.start.fish_by_players.get(n).copied().unwrap_or(0);
        let privileges = if options.privileges {
            d.privileges.start
        } else {
            0
        };
        let stock = Goods {
            fish,
            wisdom: d.start.wisdom,
            wood: d.start.each_resource,
            stone: d.start.each_resource,
            kaolin: d.start.each_resource,
            bronze: d.start.each_resource,
            palace: 0,
            privilege: privileges,
        };
        let player = Player {
            stock,
            active_dice: d.dice.active_at_start,
            palace_dice: d.dice.per_player - d.dice.active_at_start,
            rolled: Vec::new(),
            groups: Vec::new(),
            placed: Vec::new(),
            tracks: vec![0; LOCATIONS],
            layers: Vec::new(),
            decorations: 0,
            advisors: Vec::new(),
            palace: 0,
            palace_arrival: 0,
            marks: Vec::new(),
            privilege_played: false,
            station: ENTRANCE.to_string(),
            compositions: Vec::new(),
        };
        let tiles: Vec<String> = options
            .location_tiles
            .iter()
            .map(|t| t.key().to_string())
            .collect();
        let rings = d
            .locations
            .iter()
            .map(|l| match l.kind {
                LocationKind::Monument => l.ring_start.unwrap_or(1),
                _ => 0,
            })
            .collect();
        State {
            rules_version,
            seats,
            privileges: options.privileges,
            round: 0,
            phase: Phase::Setup,
            turn_order: (0..seats).collect(),
            placer: None,
            players: vec![player; n],
            location_dice: vec![Vec::new(); LOCATIONS],
            rings,
            monument_owners: vec![None; LOCATIONS],
            decorations: d
                .locations
                .iter()
                .filter(|l| l.decoration.is_some())
                .filter(|l| module_chosen(options, l.module.as_deref()))
                .map(|l| l.key.clone())
                .collect(),
            deck: Vec::new(),
            discard: Vec::new(),
            display: Vec::new(),
            pending: Vec::new(),
            sealed: vec![None; n],
            privilege_queue: Vec::new(),
            privilege_supply: if options.privileges {
                d.privileges.tokens - d.privileges.start * seats as i32
            } else {
                0
            },
            completion: None,
            palace_clock: seats as u32,
            result: None,
            sequence_winner: None,
            labyrinth: options.labyrinth,
            river_market: options.river_market,
            compositions: options.compositions,
            any_group_at_module_locations: options.any_group_at_module_locations,
            two_decorations: options.two_decorations,
            demand_reward_only_to_filler: options.demand_reward_only_to_filler,
            academy_hire_compulsory: options.academy_hire_compulsory,
            academy_reserve: if options.tile("2") {
                d.academy_tile.reserve_start
            } else {
                0
            },
            tiles,
            demand_deck: Vec::new(),
            demand_discard: Vec::new(),
            demand_card: None,
            demand_fields: Vec::new(),
            composition_cards: Vec::new(),
        }
    }

    /// Whether the location at `index` is on the board in this game (module locations only
    /// with their module).
    pub fn in_play(&self, index: usize) -> bool {
        match data().locations.get(index).map(|l| l.module.as_deref()) {
            Some(None) => true,
            Some(Some("labyrinth")) => self.labyrinth,
            Some(Some("river_market")) => self.river_market,
            _ => false,
        }
    }

    /// Whether the tile of location `key` is in play.
    pub fn tile(&self, key: &str) -> bool {
        self.tiles.iter().any(|t| t == key)
    }

    pub fn player(&self, seat: Seat) -> Option<&Player> {
        self.players.get(seat as usize)
    }

    fn player_mut(&mut self, seat: Seat) -> Option<&mut Player> {
        self.players.get_mut(seat as usize)
    }

    /// Distinct colours (seats) already lying on a location this round.
    pub fn colours_at(&self, location: usize) -> i32 {
        let mut seen: Vec<Seat> = Vec::new();
        for group in self.location_dice.get(location).into_iter().flatten() {
            if !seen.contains(&group.seat) {
                seen.push(group.seat);
            }
        }
        seen.len() as i32
    }

    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::GameSetUp {
                turn_order, deck, ..
            } => self.game_set_up(turn_order, deck.as_deref()),
            Event::DeckReshuffled { deck } => {
                self.deck = deck.clone().unwrap_or_default();
                self.discard.clear();
            }
            Event::DisplayCleared { cards } => self.display_cleared(cards),
            Event::DisplayDealt { cards } => self.display_dealt(cards),
            Event::GoodsChanged { seat, delta, .. } => self.goods_changed(*seat, delta),
            Event::DiceRolled { round, dice } => self.dice_rolled(*round, dice),
            Event::TurnOrderSet { order } => self.turn_order = order.clone(),
            Event::DiceGrouped { seat, sealed } => self.dice_grouped(*seat, sealed.as_deref()),
            Event::PrivilegesOpened { seats } => {
                self.phase = Phase::Privileges;
                self.privilege_queue = seats.clone();
            }
            Event::PrivilegeDecided { seat, play } => self.privilege_decided(*seat, *play),
            Event::GroupsRevealed { groups } => self.groups_revealed(groups),
            Event::DicePlaced {
                seat,
                group,
                location,
                pips,
                wisdom,
                fish,
            } => self.dice_placed(*seat, *group, location, pips, *wisdom, *fish),
            Event::TrackAdvanced { seat, location, to } => {
                self.track_advanced(*seat, location, *to)
            }
            Event::LayerTaken { seat, layer } => self.layer_taken(*seat, layer),
            Event::DecorationTaken { seat, location } => self.decoration_taken(*seat, location),
            Event::MonumentTaken {
                seat,
                location,
                paid,
            } => self.monument_taken(*seat, location, *paid),
            Event::SpaceMarked { seat, space } => {
                if let Some(p) = self.player_mut(*seat) {
                    p.marks.push(space.clone());
                }
            }
            Event::ChoiceOffered { seat, choice } => self.pending.push(Pending::Offered {
                seat: *seat,
                choice: choice.clone(),
            }),
            Event::ChoiceMade { .. } | Event::ArtistGroupChosen { .. } => self.resolve_pending(),
            Event::AdvisorsDrawn { seat, count, cards } => {
                self.advisors_drawn(*seat, *count, cards.as_deref())
            }
            Event::FishMarketResolved {
                returned,
                discarded,
                ..
            } => self.fish_market_resolved(returned.as_deref(), discarded),
            Event::AdvisorHired { seat, card, .. } => self.advisor_hired(*seat, card),
            Event::AdvisorUsed { seat, card, .. } => self.advisor_used(*seat, card),
            Event::TurnPassed { next } => self.placer = *next,
            Event::RoundEnded { .. } => self.round_ended(),
            Event::PalaceDieReleased { seat } => {
                if let Some(p) = self.player_mut(*seat) {
                    p.palace_dice = p.palace_dice.saturating_sub(1);
                    p.active_dice += 1;
                }
            }
            Event::GameFinished {
                sheets, sequence, ..
            } => self.game_finished(sheets, *sequence),
            Event::DemandDeckShuffled { deck } => {
                self.demand_deck = deck.clone().unwrap_or_default();
                self.demand_discard.clear();
            }
            Event::DemandRevealed { card } => {
                if !self.demand_deck.is_empty() {
                    self.demand_deck.remove(0);
                }
                self.demand_card = Some(card.clone());
                self.demand_fields = vec![None; data().demand_fields(self.seats)];
            }
            Event::DemandFulfilled { seat, field } => {
                if let Some(slot) = self.demand_fields.get_mut(*field as usize) {
                    *slot = Some(*seat);
                }
            }
            Event::DemandSettled { card } => {
                self.demand_fields.iter_mut().for_each(|f| *f = None);
                self.demand_card = None;
                self.demand_discard.push(card.clone());
            }
            Event::LabyrinthMoved { seat, to } => {
                if let Some(p) = self.player_mut(*seat) {
                    p.station = to.clone();
                }
            }
            Event::CompositionsDealt { cards } => self.composition_cards = cards.clone(),
            Event::CompositionClaimed { seat, card } => {
                self.composition_cards.retain(|c| c != card);
                if let Some(p) = self.player_mut(*seat) {
                    p.compositions.push(card.clone());
                }
            }
            Event::AcademyReserveSet { wisdom } => self.academy_reserve = *wisdom,
            Event::ExtraAdvisorsDrawn { count, cards, .. } => {
                let n = usize::from(*count).min(self.deck.len());
                self.deck.drain(..n);
                if let Some(Pending::FishMarket {
                    cards: held,
                    draw_more,
                    ..
                }) = self.pending.first_mut()
                {
                    held.extend(cards.iter().flatten().cloned());
                    *draw_more = false;
                }
            }
            Event::ChoiceAnswered { .. } => self.resolve_pending(),
        }
    }

    fn game_set_up(&mut self, turn_order: &[Seat], deck: Option<&[String]>) {
        self.turn_order = turn_order.to_vec();
        self.deck = deck.map(<[String]>::to_vec).unwrap_or_default();
        for (position, seat) in turn_order.iter().enumerate() {
            if let Some(p) = self.player_mut(*seat) {
                p.palace_arrival = position as u32;
            }
        }
    }

    fn display_cleared(&mut self, cards: &[String]) {
        self.display.retain(|c| !cards.contains(c));
        self.discard.extend(cards.iter().cloned());
    }

    fn display_dealt(&mut self, cards: &[String]) {
        let n = cards.len().min(self.deck.len());
        self.deck.drain(..n);
        self.display.extend(cards.iter().cloned());
    }

    fn dice_grouped(&mut self, seat: Seat, sealed: Option<&str>) {
        if let Some(slot) = self.sealed.get_mut(seat as usize) {
            *slot = Some(sealed.unwrap_or_default().to_owned());
        }
    }

    fn track_advanced(&mut self, seat: Seat, location: &str, to: u8) {
        if let (Some(index), Some(p)) = (
            data().location_index(location),
            self.players.get_mut(seat as usize),
        ) {
            p.tracks[index] = to;
        }
    }

    fn decoration_taken(&mut self, seat: Seat, location: &str) {
        self.decorations.retain(|l| l != location);
        // Option `two_decorations` (EP-R10): the token counts as one decoration besides the
        // one taken with it.
        let decorations = if self.two_decorations { 2 } else { 1 };
        if let Some(p) = self.player_mut(seat) {
            p.decorations += decorations;
        }
    }

    fn game_finished(&mut self, sheets: &[ScoreSheet], sequence: Option<Seat>) {
        self.phase = Phase::Finished;
        self.result = Some(sheets.to_vec());
        self.sequence_winner = sequence;
        self.placer = None;
        self.pending.clear();
    }

    fn goods_changed(&mut self, seat: Seat, delta: &Goods) {
        let length = data().palace.length;
        self.privilege_supply -= delta.privilege;
        let clock = self.palace_clock;
        if let Some(p) = self.player_mut(seat) {
            let mut change = *delta;
            change.palace = 0;
            p.stock = p.stock.plus(&change);
            if delta.palace != 0 {
                let to = (p.palace as i32 + delta.palace).clamp(0, length as i32);
                p.palace = to as u8;
                p.palace_arrival = clock;
            }
        }
        if delta.palace != 0 {
            self.palace_clock += 1;
        }
    }

    fn dice_rolled(&mut self, round: u32, dice: &[Vec<u8>]) {
        self.round = round;
        self.phase = Phase::Grouping;
        for (p, rolled) in self.players.iter_mut().zip(dice) {
            p.rolled = rolled.clone();
            p.groups.clear();
            p.placed.clear();
        }
        self.sealed = vec![None; self.seats as usize];
    }

    fn privilege_decided(&mut self, seat: Seat, play: bool) {
        self.privilege_queue.retain(|s| *s != seat);
        if play {
            self.privilege_supply += 1;
            if let Some(p) = self.player_mut(seat) {
                p.stock.privilege -= 1;
                p.privilege_played = true;
            }
        }
    }

    fn groups_revealed(&mut self, groups: &[Vec<Vec<u8>>]) {
        self.phase = Phase::Placement;
        for (p, g) in self.players.iter_mut().zip(groups) {
            p.groups = g.clone();
            p.placed = vec![false; g.len()];
            p.privilege_played = false;
        }
        self.sealed = vec![None; self.seats as usize];
        self.privilege_queue.clear();
    }

    fn dice_placed(
        &mut self,
        seat: Seat,
        group: u8,
        location: &str,
        pips: &[u8],
        wisdom: i32,
        fish: i32,
    ) {
        if let Some(index) = data().location_index(location) {
            self.location_dice[index].push(PlacedGroup {
                seat,
                pips: pips.to_vec(),
            });
        }
        if let Some(p) = self.player_mut(seat) {
            if let Some(flag) = p.placed.get_mut(group as usize) {
                *flag = true;
            }
            p.stock.wisdom -= wisdom;
            p.stock.fish -= fish;
        }
    }

    fn layer_taken(&mut self, seat: Seat, layer: &str) {
        let needed = data().end.layers;
        let completion_open = self.completion.is_none();
        let mut completes = false;
        if let Some(p) = self.player_mut(seat) {
            p.layers.push(layer.to_owned());
            completes = p.layers.len() >= needed && completion_open;
        }
        if completes {
            self.completion = Some(seat);
        }
    }

    fn monument_taken(&mut self, seat: Seat, location: &str, paid: i32) {
        let d = data();
        let Some(index) = d.location_index(location) else {
            return;
        };
        self.rings[index] += 1;
        self.monument_owners[index] = Some(seat);
        if let (Some(resource), Some(p)) = (
            d.locations[index].resource,
            self.players.get_mut(seat as usize),
        ) {
            *p.stock.resource_mut(resource) -= paid;
        }
    }

    fn resolve_pending(&mut self) {
        if !self.pending.is_empty() {
            self.pending.remove(0);
        }
    }

    fn advisors_drawn(&mut self, seat: Seat, count: u8, cards: Option<&[String]>) {
        let n = usize::from(count).min(self.deck.len());
        self.deck.drain(..n);
        let draw_more = self.tile("1");
        self.pending.push(Pending::FishMarket {
            seat,
            cards: cards.map(<[String]>::to_vec).unwrap_or_default(),
            draw_more,
        });
    }

    fn fish_market_resolved(&mut self, returned: Option<&str>, discarded: &[String]) {
        self.resolve_pending();
        if let Some(token) = returned {
            self.deck.insert(0, token.to_owned());
        }
        self.discard.extend(discarded.iter().cloned());
    }

    fn advisor_hired(&mut self, seat: Seat, card: &str) {
        self.display.retain(|c| c != card);
        if let Some(p) = self.player_mut(seat) {
            p.advisors.push(OwnedAdvisor {
                card: card.to_owned(),
                used: false,
            });
        }
    }

    fn advisor_used(&mut self, seat: Seat, card: &str) {
        if let Some(p) = self.player_mut(seat) {
            if let Some(a) = p.advisors.iter_mut().find(|a| a.card == card) {
                a.used = true;
            }
        }
    }

    fn round_ended(&mut self) {
        for dice in &mut self.location_dice {
            dice.clear();
        }
        for p in &mut self.players {
            p.groups.clear();
            p.placed.clear();
            p.rolled.clear();
            for a in &mut p.advisors {
                a.used = false;
            }
        }
        self.pending.clear();
        self.placer = None;
    }
}
