//! What each viewer sees: `view`, `redact` and `secrets`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::action::CardSource;
use super::data::{board, CellKind, Symbol};
use super::event::{Card, JavaEvent};
use super::legal::to_act;
use super::rules::{rim_cost, settlements, tile_owed};
use super::state::{BidStatus, FestivalStage, JavaState, Phase, Terrain};
use crate::engine::{Seat, Secret, Viewer};

pub use crate::kit::seats::{colour, describe_final_standing};

/// Which part of the game is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaPhaseName)]
#[serde(rename_all = "snake_case")]
pub enum PhaseName {
    Setup,
    Turn,
    Festival,
    Finished,
}

/// The state of the game as one viewer may see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct JavaView {
    pub seats: u8,
    pub phase: PhaseName,
    /// Whose turn it is (the festival host during a festival).
    pub current_seat: Seat,
    /// The seat(s) that must act now.
    pub to_act: Vec<Seat>,
    pub turn: TurnView,
    /// Set once the end of the game has begun: the seat whose turn began it.
    pub end_started_by: Option<Seat>,
    /// Option `play_on_when_no_tile_fits`: a turn in which no tile can be placed ends
    /// without one and the game goes on.
    pub play_on_when_no_tile_fits: bool,
    /// With that option: the turns in a row, before the current one, that ended without a
    /// tile; the end begins when a whole round (one turn per player) did.
    pub turns_without_tile: u8,
    /// Every cell of the map: the 150 land and 3 irrigation spaces of central Java and the
    /// mountain and lowland cells around it.
    pub spaces: Vec<SpaceView>,
    /// Villages and cities (connected village spaces), with their sizes.
    pub settlements: Vec<SettlementView>,
    pub supply: SupplyView,
    pub players: Vec<PlayerView>,
    /// The festival being bid for, if any.
    pub festival: Option<FestivalView>,
}

/// The running turn.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaTurnView)]
pub struct TurnView {
    pub number: u32,
    pub action_points_left: u8,
    pub chip_used: bool,
    pub tiles_placed: u8,
    pub cards_bought: u8,
    /// The player must still place a tile this turn.
    pub tile_required: bool,
}

/// One cell of the map.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaSpaceView)]
pub struct SpaceView {
    /// Column letter and row number, e.g. "G6" (see docs/vocabulary.md).
    pub space: String,
    /// Axial coordinates as in board.txt.
    pub q: i32,
    pub r: i32,
    pub kind: CellKind,
    /// Number of tiles stacked here (the level a developer stands on).
    pub height: u8,
    /// Terrain on top, if covered by a tile.
    pub terrain: Option<Terrain>,
    /// Id of the topmost tile: neighbours with the same id lie on the same tile.
    pub tile: Option<u16>,
    pub developer: Option<Seat>,
    pub palace: Option<PalaceView>,
    /// Water: a printed irrigation space or an irrigation tile.
    pub water: bool,
    /// AP to enter or leave central Java here (only on tiles at the rim).
    pub rim_cost: Option<u8>,
}

/// A palace on the board.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaPalaceView)]
pub struct PalaceView {
    pub value: u8,
    /// The dancer side is up: a festival was held here since the palace last changed.
    pub dancer: bool,
    /// The palace already changed during the running turn.
    pub changed_this_turn: bool,
}

/// A village (no palace) or city (with palace).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaSettlementView)]
pub struct SettlementView {
    pub spaces: Vec<String>,
    pub size: usize,
    /// The palace's space, for a city.
    pub palace: Option<String>,
    pub palace_value: Option<u8>,
}

/// Palace tiles left of one value.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaPalaceStockView)]
pub struct PalaceStockView {
    pub value: u8,
    pub count: u8,
}

/// The common supply.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaSupplyView)]
pub struct SupplyView {
    pub three_space_tiles: u8,
    pub irrigation_tiles: u8,
    pub palaces: Vec<PalaceStockView>,
    pub deck_size: usize,
    pub face_up: Option<Card>,
    /// The discard pile, oldest first.
    pub discard: Vec<Card>,
}

/// One player's public material (and own cards for that player).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaPlayerView)]
pub struct PlayerView {
    pub seat: Seat,
    pub colour: String,
    pub score: i32,
    pub developers_in_reserve: u8,
    pub developers_on_board: u8,
    pub action_chips: u8,
    pub two_space_tiles: u8,
    pub one_space_rice_tiles: u8,
    pub one_space_village_tiles: u8,
    pub card_count: usize,
    /// Cards everyone saw this player take (the face-up card).
    pub known_cards: Vec<Card>,
    /// The whole hand, only for the player and omniscient viewers.
    pub hand: Option<Vec<Card>>,
    pub final_count_done: bool,
}

/// A festival's bidding.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaFestivalView)]
pub struct FestivalView {
    pub palace: String,
    pub palace_value: u8,
    pub host: Seat,
    /// Symbols that cards must show (those of the face-up card).
    pub symbols: Vec<Symbol>,
    /// The highest total bid so far.
    pub high: u8,
    /// "bidding" or "agreement".
    pub stage: String,
    pub to_act: Option<Seat>,
    /// During an agreement: the seat offering to share.
    pub proposer: Option<Seat>,
    pub bidders: Vec<BidderView>,
}

/// One festival participant.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = JavaBidderView)]
pub struct BidderView {
    pub seat: Seat,
    pub status: BidStatus,
    pub points: u8,
    pub played: Vec<Card>,
}

pub fn view(state: &JavaState, viewer: Viewer) -> JavaView {
    let phase = match state.phase {
        Phase::Setup => PhaseName::Setup,
        Phase::Turn => PhaseName::Turn,
        Phase::Festival(_) => PhaseName::Festival,
        Phase::Finished => PhaseName::Finished,
    };
    JavaView {
        seats: state.seats,
        phase,
        current_seat: state.current,
        to_act: to_act(state),
        turn: TurnView {
            number: state.turn.number,
            action_points_left: state.turn.ap,
            chip_used: state.turn.chip_used,
            tiles_placed: state.turn.tiles_placed,
            cards_bought: state.turn.cards_bought,
            tile_required: matches!(state.phase, Phase::Turn) && tile_owed(state),
        },
        end_started_by: state.end_started_by,
        play_on_when_no_tile_fits: state.play_on_when_no_tile_fits,
        turns_without_tile: state.turns_without_tile,
        spaces: spaces_view(state),
        settlements: settlements_view(state),
        supply: SupplyView {
            three_space_tiles: state.three_space_tiles,
            irrigation_tiles: state.irrigation_tiles,
            palaces: state
                .palace_supply
                .iter()
                .map(|p| PalaceStockView {
                    value: p.value,
                    count: p.count,
                })
                .collect(),
            deck_size: state.deck.len(),
            face_up: state.face_up.clone(),
            discard: state.discard.clone(),
        },
        players: players_view(state, viewer),
        festival: festival_view(state),
    }
}

fn spaces_view(state: &JavaState) -> Vec<SpaceView> {
    let cells = &board().cells;
    cells
        .iter()
        .enumerate()
        .map(|(i, cell)| {
            let s = &state.spaces[i];
            SpaceView {
                space: cell.name.clone(),
                q: cell.hex.q,
                r: cell.hex.r,
                kind: cell.kind,
                height: s.height,
                terrain: s.terrain,
                tile: s.top_tile,
                developer: s.developer,
                palace: s.palace.map(|p| {
                    let palace = &state.palaces[p as usize];
                    PalaceView {
                        value: palace.value,
                        dancer: palace.festival_held,
                        changed_this_turn: palace.changed_in_turn == state.turn.number,
                    }
                }),
                water: cell.kind == CellKind::Irrigation || s.irrigation,
                rim_cost: rim_cost(state, i),
            }
        })
        .collect()
}

fn settlements_view(state: &JavaState) -> Vec<SettlementView> {
    let cells = &board().cells;
    let towns = settlements(state);
    towns
        .groups
        .iter()
        .map(|g| {
            let palace = g.palace.map(|p| &state.palaces[p as usize]);
            SettlementView {
                spaces: g.cells.iter().map(|&c| cells[c].name.clone()).collect(),
                size: g.cells.len(),
                palace: palace.map(|p| cells[p.space].name.clone()),
                palace_value: palace.map(|p| p.value),
            }
        })
        .collect()
}

fn players_view(state: &JavaState, viewer: Viewer) -> Vec<PlayerView> {
    state
        .players
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let seat = seat as Seat;
            let on_board = state
                .spaces
                .iter()
                .filter(|s| s.developer == Some(seat))
                .count() as u8;
            PlayerView {
                seat,
                colour: colour(seat).to_string(),
                score: p.score,
                developers_in_reserve: p.developers,
                developers_on_board: on_board,
                action_chips: p.action_chips,
                two_space_tiles: p.two_space_tiles,
                one_space_rice_tiles: p.one_space_rice_tiles,
                one_space_village_tiles: p.one_space_village_tiles,
                card_count: p.hand.len(),
                known_cards: p
                    .hand
                    .iter()
                    .filter(|h| h.public)
                    .map(|h| h.card.clone())
                    .collect(),
                hand: viewer
                    .sees_secrets_of(seat)
                    .then(|| p.hand.iter().map(|h| h.card.clone()).collect()),
                final_count_done: p.counted,
            }
        })
        .collect()
}

fn festival_view(state: &JavaState) -> Option<FestivalView> {
    let cells = &board().cells;
    state.festival().map(|f| {
        let palace = &state.palaces[f.palace as usize];
        let (stage, proposer) = match &f.stage {
            FestivalStage::Bidding { .. } => ("bidding", None),
            FestivalStage::Agreement { proposer, .. } => ("agreement", Some(*proposer)),
            FestivalStage::Decided { .. } => ("decided", None),
        };
        FestivalView {
            palace: cells[palace.space].name.clone(),
            palace_value: palace.value,
            host: f.host,
            symbols: f.symbols.clone(),
            high: f.high,
            stage: stage.to_string(),
            to_act: f.to_act(),
            proposer,
            bidders: f
                .bidders
                .iter()
                .map(|b| BidderView {
                    seat: b.seat,
                    status: b.status,
                    points: b.points,
                    played: b.played.clone(),
                })
                .collect(),
        }
    })
}

pub fn redact(event: &JavaEvent, viewer: Viewer) -> JavaEvent {
    let mut event = event.clone();
    match &mut event {
        JavaEvent::GameSetUp { deck, .. } if !viewer.is_omniscient() => *deck = None,
        JavaEvent::DeckReshuffled { cards, .. } if !viewer.is_omniscient() => *cards = None,
        JavaEvent::CardsDealt { seat, cards, .. } if !viewer.sees_secrets_of(*seat) => {
            *cards = None
        }
        JavaEvent::CardBought {
            seat,
            source: CardSource::Deck,
            card,
        } if !viewer.sees_secrets_of(*seat) => *card = None,
        _ => {}
    }
    event
}

pub fn secrets(state: &JavaState) -> Vec<Secret> {
    let needle = |card: &Card| format!("\"{}\"", card.id);
    let mut result: Vec<Secret> = Vec::new();
    for (seat, player) in state.players.iter().enumerate() {
        for held in player.hand.iter().filter(|h| !h.public) {
            result.push(Secret {
                owner: Some(seat as Seat),
                needle: needle(&held.card),
            });
        }
    }
    for card in &state.deck {
        result.push(Secret {
            owner: None,
            needle: needle(card),
        });
    }
    result
}
