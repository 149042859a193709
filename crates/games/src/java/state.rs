//! The full state (with every secret) and `evolve`, which folds one event into it.

use get_size2::GetSize;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::action::{CardSource, TileKind};
use super::data::{board, data, Symbol};
use super::event::{Card, JavaEvent};
use super::options::JavaOptions;
use crate::engine::Seat;

/// Action points at the start of every turn.
pub const ACTION_POINTS: u8 = 6;

/// Top terrain of a stack of tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[schema(as = JavaTerrain)]
#[serde(rename_all = "snake_case")]
pub enum Terrain {
    Rice,
    Village,
}

fn is_zero(value: &u8) -> bool {
    *value == 0
}

fn is_false(value: &bool) -> bool {
    !*value
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct SpaceState {
    /// Number of tiles stacked here.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub height: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terrain: Option<Terrain>,
    /// Id of the topmost tile (tile ids count placements from 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_tile: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub developer: Option<Seat>,
    /// Index into `JavaState::palaces`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub palace: Option<u8>,
    /// An irrigation tile lies here.
    #[serde(default, skip_serializing_if = "is_false")]
    pub irrigation: bool,
    /// Part of a water area that has already been enclosed (and scored).
    #[serde(default, skip_serializing_if = "is_false")]
    pub water_scored: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct Palace {
    pub space: usize,
    pub value: u8,
    /// The dancer side is up: a festival was held since the last change.
    pub festival_held: bool,
    /// Turn number of the last build or raise (a palace changes at most once per turn).
    pub changed_in_turn: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct HandCard {
    pub card: Card,
    /// Everyone saw this card being taken (it was the face-up card).
    pub public: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct PlayerState {
    /// Developers in the reserve (not on the board).
    pub developers: u8,
    pub action_chips: u8,
    pub two_space_tiles: u8,
    pub one_space_rice_tiles: u8,
    pub one_space_village_tiles: u8,
    pub hand: Vec<HandCard>,
    pub score: i32,
    /// The Great Final Count of this player is done.
    pub counted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct PalaceStock {
    pub value: u8,
    pub count: u8,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct TurnState {
    pub number: u32,
    pub ap: u8,
    pub chip_used: bool,
    pub tiles_placed: u8,
    pub cards_bought: u8,
}

/// Where a festival participant stands in the bidding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize, ToSchema)]
#[schema(as = JavaBidStatus)]
#[serde(rename_all = "snake_case")]
pub enum BidStatus {
    /// Has not had a chance to join yet.
    Pending,
    /// Has played cards and is still in.
    In,
    /// Passed: out of this festival.
    Out,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct Bidder {
    pub seat: Seat,
    pub status: BidStatus,
    pub points: u8,
    pub played: Vec<Card>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum FestivalStage {
    /// `to_act` must match the highest bid (or go above it) or pass.
    Bidding { to_act: Seat },
    /// All remaining bidders are tied; `proposer` caused the tie and offers to share;
    /// `asked` answer in order (agree, or refuse by bidding higher).
    Agreement { proposer: Seat, asked: Vec<Seat> },
    /// Transient: the festival is decided and `festival_ended` follows at once.
    Decided { winners: Vec<Seat>, shared: bool },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct FestivalState {
    pub palace: u8,
    pub host: Seat,
    /// Symbols of the face-up card: what the cards must show.
    pub symbols: Vec<Symbol>,
    /// Bidders in bidding order, host first.
    pub bidders: Vec<Bidder>,
    pub high: u8,
    /// The last bidder who equalled the highest bid (and would propose an agreement).
    pub tie_maker: Option<Seat>,
    pub stage: FestivalStage,
}

impl FestivalState {
    pub fn bidder(&self, seat: Seat) -> Option<&Bidder> {
        self.bidders.iter().find(|b| b.seat == seat)
    }

    fn bidder_mut(&mut self, seat: Seat) -> Option<&mut Bidder> {
        self.bidders.iter_mut().find(|b| b.seat == seat)
    }

    pub fn to_act(&self) -> Option<Seat> {
        match &self.stage {
            FestivalStage::Bidding { to_act } => Some(*to_act),
            FestivalStage::Agreement { asked, .. } => asked.first().copied(),
            FestivalStage::Decided { .. } => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Before the opening events.
    Setup,
    /// `current` acts.
    Turn,
    /// A palace festival ends `current`'s turn.
    Festival(FestivalState),
    Finished,
}

/// The complete state of a Java game, secrets included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct JavaState {
    /// The rules version the game is played under (see `Engine::RULES_VERSIONS`).
    pub rules_version: u32,
    pub seats: u8,
    /// Indexed like the board's cells.
    pub spaces: Vec<SpaceState>,
    /// Size of every placed tile, by tile id.
    pub tile_sizes: Vec<u8>,
    pub palaces: Vec<Palace>,
    pub players: Vec<PlayerState>,
    pub three_space_tiles: u8,
    pub irrigation_tiles: u8,
    pub palace_supply: Vec<PalaceStock>,
    /// Face-down deck, top first.
    pub deck: Vec<Card>,
    pub face_up: Option<Card>,
    pub discard: Vec<Card>,
    /// Number for the next fresh card id.
    pub next_card_number: u32,
    pub phase: Phase,
    pub current: Seat,
    pub turn: TurnState,
    /// The seat whose turn began the end of the game.
    pub end_started_by: Option<Seat>,
    /// Option: a turn without a possible tile does not begin the end.
    #[serde(default, skip_serializing_if = "is_false")]
    pub play_on_when_no_tile_fits: bool,
    /// With that option: the turns in a row, before the current one, that ended without a
    /// tile while the end had not begun.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub turns_without_tile: u8,
}

pub fn initial_state(options: &JavaOptions, seats: u8, rules_version: u32) -> JavaState {
    let d = data();
    let m = &d.material;
    JavaState {
        rules_version,
        seats,
        spaces: vec![SpaceState::default(); board().len()],
        tile_sizes: Vec::new(),
        palaces: Vec::new(),
        players: (0..seats)
            .map(|_| PlayerState {
                developers: m.developers,
                action_chips: m.action_chips,
                two_space_tiles: m.two_space_tiles,
                one_space_rice_tiles: m.one_space_rice_tiles,
                one_space_village_tiles: m.one_space_village_tiles,
                hand: Vec::new(),
                score: 0,
                counted: false,
            })
            .collect(),
        three_space_tiles: m.three_space_tiles,
        irrigation_tiles: m.irrigation_tiles,
        palace_supply: d
            .palaces
            .iter()
            .map(|&(value, count)| PalaceStock { value, count })
            .collect(),
        deck: Vec::new(),
        face_up: None,
        discard: Vec::new(),
        next_card_number: 1,
        phase: Phase::Setup,
        current: 0,
        turn: TurnState::default(),
        end_started_by: None,
        play_on_when_no_tile_fits: options.play_on_when_no_tile_fits,
        turns_without_tile: 0,
    }
}

impl JavaState {
    pub fn space_index(&self, name: &str) -> usize {
        board().index(name).unwrap_or(usize::MAX)
    }

    pub fn palace_stock(&self, value: u8) -> u8 {
        self.palace_supply
            .iter()
            .find(|p| p.value == value)
            .map_or(0, |p| p.count)
    }

    pub fn festival(&self) -> Option<&FestivalState> {
        match &self.phase {
            Phase::Festival(f) => Some(f),
            _ => None,
        }
    }

    fn spend(&mut self, cost: u8) {
        self.turn.ap = self.turn.ap.saturating_sub(cost);
    }

    fn place_tile_cells(&mut self, village: Option<usize>, rice: &[usize]) {
        let id = self.tile_sizes.len() as u16;
        let cells = village
            .map(|v| (v, Terrain::Village))
            .into_iter()
            .chain(rice.iter().map(|&r| (r, Terrain::Rice)));
        let mut size = 0;
        for (cell, terrain) in cells {
            let space = &mut self.spaces[cell];
            space.height += 1;
            space.terrain = Some(terrain);
            space.top_tile = Some(id);
            size += 1;
        }
        self.tile_sizes.push(size);
    }

    fn take_from_deck(&mut self, id: &str) -> Option<Card> {
        let position = self.deck.iter().position(|c| c.id == id)?;
        Some(self.deck.remove(position))
    }

    fn finish_festival(&mut self, winners: &[Seat], points: u8) {
        let Phase::Festival(festival) = std::mem::replace(&mut self.phase, Phase::Turn) else {
            return;
        };
        for &seat in winners {
            self.players[seat as usize].score += i32::from(points);
        }
        for bidder in festival.bidders {
            self.discard.extend(bidder.played);
        }
        if let Some(palace) = self.palaces.get_mut(festival.palace as usize) {
            palace.festival_held = true;
        }
    }
}

/// Whether `seat` holds any card that scores under `symbols`.
pub fn has_matching_card(state: &JavaState, seat: Seat, symbols: &[Symbol]) -> bool {
    state.players[seat as usize]
        .hand
        .iter()
        .any(|h| h.card.points(symbols) > 0)
}

/// Works out who must act next in a festival after `actor` acted.
fn advance_festival(state: &mut JavaState, actor: Seat) {
    let seats = state.seats;
    let Phase::Festival(festival) = &state.phase else {
        return;
    };
    let high = festival.high;
    for step in 1..=seats {
        let seat = (actor + step) % seats;
        if let Some(b) = festival.bidder(seat) {
            let must_act =
                b.status == BidStatus::Pending || (b.status == BidStatus::In && b.points < high);
            if must_act {
                if let Phase::Festival(f) = &mut state.phase {
                    f.stage = FestivalStage::Bidding { to_act: seat };
                }
                return;
            }
        }
    }
    let remaining: Vec<Seat> = festival
        .bidders
        .iter()
        .filter(|b| b.status == BidStatus::In)
        .map(|b| b.seat)
        .collect();
    let stage = if remaining.len() <= 1 {
        FestivalStage::Decided {
            winners: remaining,
            shared: false,
        }
    } else {
        let proposer = festival.tie_maker.unwrap_or(actor);
        let nobody_can_raise = remaining
            .iter()
            .all(|&s| !has_matching_card(state, s, &festival.symbols));
        if nobody_can_raise {
            FestivalStage::Decided {
                winners: remaining,
                shared: true,
            }
        } else {
            let asked = (1..seats)
                .map(|step| (proposer + step) % seats)
                .filter(|s| remaining.contains(s))
                .collect();
            FestivalStage::Agreement { proposer, asked }
        }
    };
    if let Phase::Festival(f) = &mut state.phase {
        f.stage = stage;
    }
}

fn remove_from_hand(state: &mut JavaState, seat: Seat, cards: &[Card]) {
    let hand = &mut state.players[seat as usize].hand;
    hand.retain(|h| !cards.iter().any(|c| c.id == h.card.id));
}

/// Applies one event produced by `setup` or `decide` for this state.
pub fn evolve(state: &mut JavaState, event: &JavaEvent) {
    match event {
        JavaEvent::GameSetUp { deck, .. } => {
            let deck = deck.clone().unwrap_or_default();
            state.next_card_number += deck.len() as u32;
            state.deck = deck;
        }
        JavaEvent::CardsDealt { .. } => on_cards_dealt(state, event),
        JavaEvent::FaceUpRevealed { card } => {
            state.face_up = state.take_from_deck(&card.id);
        }
        JavaEvent::TurnStarted { .. } => on_turn_started(state, event),
        JavaEvent::ActionChipUsed { .. } => on_action_chip_used(state, event),
        JavaEvent::TilePlaced { .. } => on_tile_placed(state, event),
        JavaEvent::EndTriggered { seat, .. } => {
            state.end_started_by = Some(*seat);
        }
        JavaEvent::DeveloperEntered { seat, to, cost } => {
            state.spaces[index(to)].developer = Some(*seat);
            state.players[*seat as usize].developers -= 1;
            state.spend(*cost);
        }
        JavaEvent::DeveloperMoved {
            seat,
            from,
            to,
            cost,
        } => {
            state.spaces[index(from)].developer = None;
            state.spaces[index(to)].developer = Some(*seat);
            state.spend(*cost);
        }
        JavaEvent::DeveloperWithdrawn { seat, from, cost } => {
            state.spaces[index(from)].developer = None;
            state.players[*seat as usize].developers += 1;
            state.spend(*cost);
        }
        JavaEvent::PalaceBuilt { .. } => on_palace_built(state, event),
        JavaEvent::PalaceRaised { .. } => on_palace_raised(state, event),
        JavaEvent::IrrigationPlaced { space, .. } => {
            state.spaces[index(space)].irrigation = true;
            state.irrigation_tiles = state.irrigation_tiles.saturating_sub(1);
            state.spend(1);
        }
        JavaEvent::WaterEnclosed { .. } => on_water_enclosed(state, event),
        JavaEvent::CardBought { .. } => on_card_bought(state, event),
        JavaEvent::DeckReshuffled { .. } => on_deck_reshuffled(state, event),
        JavaEvent::FestivalStarted { .. } => on_festival_started(state, event),
        JavaEvent::BidPlaced { .. } => on_bid_placed(state, event),
        JavaEvent::Passed { .. } => on_passed(state, event),
        JavaEvent::Agreed { .. } => on_agreed(state, event),
        JavaEvent::FestivalEnded {
            winners, points, ..
        } => {
            state.finish_festival(winners, *points);
        }
        JavaEvent::FinalCount { seat, points, .. } => {
            let player = &mut state.players[*seat as usize];
            player.score += i32::from(*points);
            player.counted = true;
        }
        JavaEvent::GameFinished { .. } => {
            state.phase = Phase::Finished;
        }
    }
}

/// The board index of a space named in an event (events name only real spaces).
fn index(name: &str) -> usize {
    board().index(name).unwrap_or(0)
}

fn on_cards_dealt(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::CardsDealt { seat, cards, .. } = event else {
        return;
    };
    for card in cards.iter().flatten() {
        if let Some(card) = state.take_from_deck(&card.id) {
            state.players[*seat as usize].hand.push(HandCard {
                card,
                public: false,
            });
        }
    }
}

fn on_turn_started(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::TurnStarted { seat, turn } = event else {
        return;
    };
    if state.play_on_when_no_tile_fits && state.end_started_by.is_none() {
        let ended_a_turn = !matches!(state.phase, Phase::Setup);
        state.turns_without_tile = if ended_a_turn && state.turn.tiles_placed == 0 {
            state.turns_without_tile.saturating_add(1)
        } else {
            0
        };
    }
    state.current = *seat;
    state.phase = Phase::Turn;
    state.turn = TurnState {
        number: *turn,
        ap: ACTION_POINTS,
        chip_used: false,
        tiles_placed: 0,
        cards_bought: 0,
    };
}

fn on_action_chip_used(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::ActionChipUsed { seat } = event else {
        return;
    };
    let player = &mut state.players[*seat as usize];
    player.action_chips = player.action_chips.saturating_sub(1);
    state.turn.chip_used = true;
    state.turn.ap += 1;
}

fn on_tile_placed(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::TilePlaced {
        seat,
        tile,
        village,
        rice,
        cost,
        ..
    } = event
    else {
        return;
    };
    let village = village.as_deref().map(index);
    let rice: Vec<usize> = rice.iter().map(|r| index(r)).collect();
    state.place_tile_cells(village, &rice);
    let player = &mut state.players[*seat as usize];
    match tile {
        TileKind::ThreeSpace => state.three_space_tiles = state.three_space_tiles.saturating_sub(1),
        TileKind::TwoSpace => player.two_space_tiles -= 1,
        TileKind::OneSpaceRice => player.one_space_rice_tiles -= 1,
        TileKind::OneSpaceVillage => player.one_space_village_tiles -= 1,
    }
    state.turn.tiles_placed += 1;
    state.spend(*cost);
}

fn on_palace_built(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::PalaceBuilt {
        seat,
        space,
        value,
        points,
    } = event
    else {
        return;
    };
    let cell = index(space);
    state.spaces[cell].palace = Some(state.palaces.len() as u8);
    state.palaces.push(Palace {
        space: cell,
        value: *value,
        festival_held: false,
        changed_in_turn: state.turn.number,
    });
    take_palace_tile(state, *value);
    state.players[*seat as usize].score += i32::from(*points);
    state.spend(1);
}

fn on_palace_raised(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::PalaceRaised {
        seat,
        space,
        value,
        points,
        ..
    } = event
    else {
        return;
    };
    if let Some(p) = state.spaces[index(space)].palace {
        let turn = state.turn.number;
        let palace = &mut state.palaces[p as usize];
        palace.value = *value;
        palace.festival_held = false;
        palace.changed_in_turn = turn;
    }
    take_palace_tile(state, *value);
    state.players[*seat as usize].score += i32::from(*points);
    state.spend(1);
}

fn on_water_enclosed(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::WaterEnclosed {
        spaces,
        scorer,
        points,
    } = event
    else {
        return;
    };
    for space in spaces {
        state.spaces[index(space)].water_scored = true;
    }
    if let Some(seat) = scorer {
        state.players[*seat as usize].score += i32::from(*points);
    }
}

fn on_card_bought(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::CardBought { seat, source, card } = event else {
        return;
    };
    let taken = match (source, card) {
        (CardSource::FaceUp, _) => state.face_up.take(),
        (CardSource::Deck, Some(card)) => state.take_from_deck(&card.id),
        (CardSource::Deck, None) => None,
    };
    if let Some(card) = taken {
        state.players[*seat as usize].hand.push(HandCard {
            card,
            public: *source == CardSource::FaceUp,
        });
    }
    state.turn.cards_bought += 1;
    state.spend(1);
}

fn on_deck_reshuffled(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::DeckReshuffled { count, cards } = event else {
        return;
    };
    state.discard.clear();
    let mut deck = cards.clone().unwrap_or_default();
    deck.extend(std::mem::take(&mut state.deck));
    state.deck = deck;
    state.next_card_number += u32::from(*count);
}

fn on_festival_started(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::FestivalStarted {
        seat,
        space: palace,
        cards,
        points,
        participants,
    } = event
    else {
        return;
    };
    remove_from_hand(state, *seat, cards);
    let palace = state.spaces[index(palace)].palace.unwrap_or(0);
    let symbols = state
        .face_up
        .as_ref()
        .map(|c| c.symbols.clone())
        .unwrap_or_default();
    let mut bidders = vec![Bidder {
        seat: *seat,
        status: BidStatus::In,
        points: *points,
        played: cards.clone(),
    }];
    bidders.extend(participants.iter().map(|&s| Bidder {
        seat: s,
        status: BidStatus::Pending,
        points: 0,
        played: Vec::new(),
    }));
    state.phase = Phase::Festival(FestivalState {
        palace,
        host: *seat,
        symbols,
        bidders,
        high: *points,
        tie_maker: None,
        stage: FestivalStage::Bidding { to_act: *seat },
    });
    advance_festival(state, *seat);
}

fn on_bid_placed(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::BidPlaced {
        seat,
        cards,
        points,
    } = event
    else {
        return;
    };
    remove_from_hand(state, *seat, cards);
    if let Phase::Festival(f) = &mut state.phase {
        if *points > f.high {
            f.high = *points;
            f.tie_maker = None;
        } else {
            f.tie_maker = Some(*seat);
        }
        if let Some(b) = f.bidder_mut(*seat) {
            b.status = BidStatus::In;
            b.points = *points;
            b.played.extend(cards.iter().cloned());
        }
    }
    advance_festival(state, *seat);
}

fn on_passed(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::Passed { seat } = event else {
        return;
    };
    let mut returned = Vec::new();
    if let Phase::Festival(f) = &mut state.phase {
        if let Some(b) = f.bidder_mut(*seat) {
            b.status = BidStatus::Out;
            returned = std::mem::take(&mut b.played);
        }
    }
    state.discard.extend(returned);
    advance_festival(state, *seat);
}

fn on_agreed(state: &mut JavaState, event: &JavaEvent) {
    let JavaEvent::Agreed { seat } = event else {
        return;
    };
    let mut decided = None;
    if let Phase::Festival(f) = &mut state.phase {
        if let FestivalStage::Agreement { asked, .. } = &mut f.stage {
            asked.retain(|s| s != seat);
            if asked.is_empty() {
                decided = Some(
                    f.bidders
                        .iter()
                        .filter(|b| b.status == BidStatus::In)
                        .map(|b| b.seat)
                        .collect(),
                );
            }
        }
        if let Some(winners) = decided {
            f.stage = FestivalStage::Decided {
                winners,
                shared: true,
            };
        }
    }
}

fn take_palace_tile(state: &mut JavaState, value: u8) {
    if let Some(stock) = state.palace_supply.iter_mut().find(|p| p.value == value) {
        stock.count = stock.count.saturating_sub(1);
    }
}
