//! What viewers see: the view, event redaction and the leak-test needles.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::action::PieceKind;
use super::data::{data, Terrain};
use super::event::TikalEvent;
use super::legal::to_act;
use super::scoring::outcome;
use super::state::{HexCount, Phase, TikalState, MAX_GUARDS};
use crate::engine::{Outcome, Seat, Secret, Viewer};
use crate::kit::seats::colour;

/// A terrain hex as printed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalTileView)]
pub struct TileView {
    /// Unique id, e.g. "tile-B3".
    pub id: String,
    /// Back letter of its stack.
    pub stack: String,
    /// What the hex shows.
    pub terrain: Terrain,
    /// Printed temple value or number of treasure masks; 0 otherwise.
    pub value: u8,
    /// Stones on the edges N, NE, SE, S, SW, NW at rotation 0.
    pub stones: Vec<u8>,
}

/// Figures of one seat on one hex.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalPiecesView)]
pub struct PiecesView {
    /// Seat (0 Red, 1 Blue, 2 Yellow, 3 Green).
    pub seat: Seat,
    /// Colour of the seat.
    pub colour: String,
    /// Workers standing here.
    pub workers: u8,
    /// Whether the leader stands here.
    pub leader: bool,
    /// Weight in majorities (leader 3, worker 1).
    pub strength: u32,
}

/// A temple's guard.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalGuardView)]
pub struct GuardView {
    /// Seat (0 Red, 1 Blue, 2 Yellow, 3 Green).
    pub seat: Seat,
    /// Which figure is the guard.
    pub piece: PieceKind,
}

/// One explored space.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalSpaceView)]
pub struct SpaceView {
    /// Space name, e.g. "C3".
    pub space: String,
    /// Id of the hex lying there.
    pub tile: String,
    /// What the hex shows.
    pub terrain: Terrain,
    /// Sixth-turns clockwise it was laid with.
    pub rotation: u8,
    /// Stones on the edges N, NE, SE, S, SW, NW as laid.
    pub stones: Vec<u8>,
    /// Current top number of a temple.
    pub temple_value: Option<u8>,
    /// Seat the temple would score for now (guard or strict majority).
    pub temple_owner: Option<Seat>,
    /// Face-down treasure tokens still on the hex.
    pub treasures_left: u8,
    /// Omniscient viewers only: the face-down token ids, top first.
    pub hidden_treasures: Option<Vec<String>>,
    /// Owner of the camp on this hex.
    pub camp: Option<Seat>,
    /// The guard of a temple.
    pub guard: Option<GuardView>,
    /// Figures by seat (seats without figures here are left out).
    pub pieces: Vec<PiecesView>,
}

/// Open treasures of one kind held by a player.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalTreasureCount)]
pub struct TreasureCount {
    /// Kind 1-8.
    pub kind: u8,
    /// How many.
    pub count: u8,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalPlayerView)]
pub struct PlayerView {
    /// Seat (0 Red, 1 Blue, 2 Yellow, 3 Green).
    pub seat: Seat,
    /// Colour of the seat.
    pub colour: String,
    /// Current score.
    pub score: i32,
    /// Workers not yet brought in.
    pub workers_in_supply: u8,
    /// Whether the leader is not yet brought in.
    pub leader_in_supply: bool,
    /// Camps still to build.
    pub camps_left: u8,
    /// Guards still to place.
    pub guards_left: u8,
    /// Figures that left the game when a guard was placed.
    pub pieces_removed: u8,
    /// Open treasures by kind (kinds not held are left out).
    pub treasures: Vec<TreasureCount>,
    /// What the player's temples would score now.
    pub temple_points_now: u32,
    /// What the player's treasures would score now.
    pub treasure_points_now: u32,
    /// Auction variant: whether the player already played a turn this round.
    pub played_this_round: bool,
}

/// Undrawn hexes left in one stack.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalStackCount)]
pub struct StackCount {
    /// Back letter of the stack.
    pub stack: String,
    /// How many are left.
    pub remaining: u8,
}

/// Square temple tiles left of one number.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalTempleTileCount)]
pub struct TempleTileCount {
    /// Temple number.
    pub value: u8,
    /// How many are left.
    pub remaining: u8,
}

/// Use of a per-turn limit on one hex.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalSpaceCountView)]
pub struct SpaceCountView {
    /// Space, e.g. "C3".
    pub space: String,
    /// How many.
    pub count: u8,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalBidView)]
pub struct BidView {
    /// Seat (0 Red, 1 Blue, 2 Yellow, 3 Green).
    pub seat: Seat,
    /// Points bid.
    pub amount: u32,
}

/// Auction variant: the running auction for the next turn of the round.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = TikalBiddingView)]
pub struct BiddingView {
    /// Seat that opened the auction.
    pub opener: Seat,
    /// Seat to bid or pass now.
    pub current: Seat,
    /// Highest bid so far.
    pub high: Option<BidView>,
    /// Seats that passed, in order (the first plays free if nobody bids).
    pub passed: Vec<Seat>,
}

/// What a turn is about right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TikalPhaseName)]
pub enum PhaseName {
    NotStarted,
    /// Lay the hex in hand.
    PlaceTile,
    /// Spend action points in a normal turn.
    Actions,
    /// Spend action points in a scoring turn; the seat scores when it ends.
    ScoringTurn,
    /// Auction variant: bid or pass.
    Bidding,
    /// Auction variant: pick a revealed hex.
    ChooseTile,
    Finished,
}

/// The game as one viewer may see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TikalView {
    /// Whether the auction variant is played.
    pub auction: bool,
    /// Number of players.
    pub seats: u8,
    /// What the seat to act has to do.
    pub phase: PhaseName,
    /// Seats that must act now.
    pub to_act: Vec<Seat>,
    /// Seat whose turn (placement, actions or choice) it is.
    pub current_seat: Option<Seat>,
    /// Action points left in the current turn.
    pub action_points_left: u8,
    /// The drawn or chosen hex waiting to be laid (during a scoring round: the volcano).
    pub tile_in_hand: Option<TileView>,
    /// Players by seat.
    pub players: Vec<PlayerView>,
    /// Explored spaces.
    pub board: Vec<SpaceView>,
    /// Undrawn hexes per stack letter, in drawing order.
    pub stacks: Vec<StackCount>,
    /// Square temple tiles left by number.
    pub temple_tiles: Vec<TempleTileCount>,
    /// Face-down treasure tokens not yet put on the board.
    pub treasure_tokens_left: u8,
    /// Levels uncovered this turn, by temple.
    pub uncovered_this_turn: Vec<SpaceCountView>,
    /// Treasures recovered this turn, by hex.
    pub recovered_this_turn: Vec<SpaceCountView>,
    /// Scoring rounds completed (4 in a whole game).
    pub scorings_completed: u8,
    /// Seats still to take their scoring turn in this scoring round.
    pub scoring_queue: Vec<Seat>,
    /// Seat that drew the volcano of the current scoring round.
    pub scoring_trigger: Option<Seat>,
    /// Whether the final scoring round is running.
    pub final_round: bool,
    /// Auction variant: the face-up hexes of the round.
    pub revealed: Vec<TileView>,
    /// Auction variant: the running auction.
    pub bidding: Option<BiddingView>,
    /// Final result once the game is over.
    pub outcome: Option<Outcome>,
    /// Omniscient viewers only: undrawn hex ids in drawing order.
    pub draw_order: Option<Vec<String>>,
    /// Omniscient viewers only: treasure token ids in reserve, next first.
    pub treasure_order: Option<Vec<String>>,
}

pub fn tile_view(id: &str) -> Option<TileView> {
    data().tile(id).map(|t| TileView {
        id: t.id.clone(),
        stack: t.stack.to_string(),
        terrain: t.terrain,
        value: t.value,
        stones: t.stones.to_vec(),
    })
}

fn counts(list: &[HexCount]) -> Vec<SpaceCountView> {
    list.iter()
        .map(|c| SpaceCountView {
            space: data().space_name(c.space),
            count: c.count,
        })
        .collect()
}

pub fn view(state: &TikalState, viewer: Viewer) -> TikalView {
    let data = data();
    let omniscient = viewer.is_omniscient();
    let (phase, current_seat) = phase_of(state);
    TikalView {
        auction: state.auction,
        seats: state.seats,
        phase,
        to_act: to_act(state),
        current_seat,
        action_points_left: if matches!(state.phase, Phase::Acting { .. }) {
            state.action_points_left
        } else {
            0
        },
        tile_in_hand: state.hand.as_deref().and_then(tile_view),
        players: players_view(state),
        board: board_view(state, omniscient),
        stacks: stack_counts(state),
        temple_tiles: state
            .temple_supply
            .iter()
            .enumerate()
            .filter(|(value, _)| data.temple_tiles.get(*value).is_some_and(|&n| n > 0))
            .map(|(value, &remaining)| TempleTileCount {
                value: value as u8,
                remaining,
            })
            .collect(),
        treasure_tokens_left: state.treasure_pile.len() as u8,
        uncovered_this_turn: counts(&state.uncovered_this_turn),
        recovered_this_turn: counts(&state.recovered_this_turn),
        scorings_completed: state.scorings_completed,
        scoring_queue: state.scoring_queue.clone(),
        scoring_trigger: state.scoring_trigger,
        final_round: state.final_round,
        revealed: state.revealed.iter().filter_map(|t| tile_view(t)).collect(),
        bidding: state.bidding.as_ref().map(|b| BiddingView {
            opener: b.opener,
            current: b.current,
            high: b.high.map(|h| BidView {
                seat: h.seat,
                amount: h.amount,
            }),
            passed: b.passed.clone(),
        }),
        outcome: outcome(state),
        draw_order: omniscient.then(|| state.draw_pile.clone()),
        treasure_order: omniscient.then(|| state.treasure_pile.clone()),
    }
}

fn board_view(state: &TikalState, omniscient: bool) -> Vec<SpaceView> {
    let data = data();
    state
        .board
        .iter()
        .enumerate()
        .filter_map(|(space, hex)| {
            let hex = hex.as_ref()?;
            let space = space as u8;
            Some(SpaceView {
                space: data.space_name(space),
                tile: hex.tile.clone(),
                terrain: hex.terrain,
                rotation: hex.rotation,
                stones: hex.stones.to_vec(),
                temple_value: (hex.terrain == Terrain::Temple).then_some(hex.temple_value),
                temple_owner: state.temple_owner(space),
                treasures_left: hex.tokens.len() as u8,
                hidden_treasures: omniscient.then(|| hex.tokens.clone()),
                camp: hex.camp,
                guard: hex.guard.map(|g| GuardView {
                    seat: g.seat,
                    piece: g.piece,
                }),
                pieces: hex
                    .pieces
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.count() > 0)
                    .map(|(seat, p)| PiecesView {
                        seat: seat as Seat,
                        colour: colour(seat as Seat).to_string(),
                        workers: p.workers,
                        leader: p.leader,
                        strength: p.strength(),
                    })
                    .collect(),
            })
        })
        .collect()
}

/// Undrawn hexes per stack letter, in drawing order.
fn stack_counts(state: &TikalState) -> Vec<StackCount> {
    let data = data();
    let mut stacks: Vec<StackCount> = Vec::new();
    for id in &state.draw_pile {
        let letter = data
            .tile(id)
            .map_or_else(|| "?".to_string(), |t| t.stack.to_string());
        match stacks.last_mut() {
            Some(last) if last.stack == letter => last.remaining += 1,
            _ => stacks.push(StackCount {
                stack: letter,
                remaining: 1,
            }),
        }
    }
    stacks
}

fn players_view(state: &TikalState) -> Vec<PlayerView> {
    let data = data();
    state
        .players
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let seat = seat as Seat;
            PlayerView {
                seat,
                colour: colour(seat).to_string(),
                score: p.score,
                workers_in_supply: p.workers_in_supply,
                leader_in_supply: p.leader_in_supply,
                camps_left: data.camps.saturating_sub(p.camps_built),
                guards_left: MAX_GUARDS.saturating_sub(p.guards_placed),
                pieces_removed: p.pieces_removed,
                treasures: p
                    .treasures
                    .iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(|(kind, &count)| TreasureCount {
                        kind: kind as u8 + 1,
                        count,
                    })
                    .collect(),
                temple_points_now: state.temple_points(seat),
                treasure_points_now: state.treasure_points(seat),
                played_this_round: state.auction && state.played_this_round.contains(&seat),
            }
        })
        .collect()
}

/// The view's phase and the seat whose turn it is.
fn phase_of(state: &TikalState) -> (PhaseName, Option<Seat>) {
    match state.phase {
        Phase::NotStarted => (PhaseName::NotStarted, None),
        Phase::Placing { seat } => (PhaseName::PlaceTile, Some(seat)),
        Phase::Acting {
            seat,
            scoring: false,
        } => (PhaseName::Actions, Some(seat)),
        Phase::Acting {
            seat,
            scoring: true,
        } => (PhaseName::ScoringTurn, Some(seat)),
        Phase::Bidding => (
            PhaseName::Bidding,
            state.bidding.as_ref().map(|b| b.current),
        ),
        Phase::Choosing { seat } => (PhaseName::ChooseTile, Some(seat)),
        Phase::Finished => (PhaseName::Finished, None),
    }
}

pub fn redact(event: &TikalEvent, viewer: Viewer) -> TikalEvent {
    match event {
        TikalEvent::GameSetUp {
            seats,
            auction,
            seed_commitment,
            ..
        } if !viewer.is_omniscient() => TikalEvent::GameSetUp {
            seats: *seats,
            auction: *auction,
            tile_order: None,
            treasure_order: None,
            seed_commitment: seed_commitment.clone(),
        },
        other => other.clone(),
    }
}

pub fn secrets(state: &TikalState) -> Vec<Secret> {
    let mut needles: Vec<Secret> = state
        .draw_pile
        .iter()
        .chain(&state.treasure_pile)
        .chain(state.board.iter().flatten().flat_map(|h| &h.tokens))
        .map(|id| Secret {
            owner: None,
            needle: format!("\"{id}\""),
        })
        .collect();
    needles.dedup();
    needles
}
