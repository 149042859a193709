//! The full state (with every secret), its queries and `evolve`.

use get_size2::GetSize;
use serde::{Deserialize, Serialize};

use super::action::PieceKind;
use super::data::{data, opposite, Terrain, EDGES};
use super::event::TikalEvent;
use crate::engine::Seat;
use crate::kit::hex::rotate_edges;
use crate::kit::seats::{clockwise_from, next_clockwise};

/// Action points of every turn.
pub const ACTION_POINTS: u8 = 10;

// The action points each action costs: `rules` checks them, `evolve` spends them.
pub const COST_ENTER: u8 = 1;
pub const COST_UNCOVER: u8 = 2;
pub const COST_RECOVER: u8 = 3;
pub const COST_EXCHANGE: u8 = 3;
pub const COST_CAMP: u8 = 5;
pub const COST_GUARD: u8 = 5;

/// Guards a player may place in the whole game.
pub const MAX_GUARDS: u8 = 2;
/// Starting score of the auction variant (the bidding capital).
pub const AUCTION_START_SCORE: i32 = 20;
/// Highest temple number.
pub const MAX_TEMPLE_VALUE: u8 = 10;
/// Levels a player may uncover per temple and treasures he may take per hex in one turn.
pub const PER_HEX_TURN_LIMIT: u8 = 2;
/// Weight of a leader in majorities.
pub const LEADER_WEIGHT: u32 = 3;
/// Marks an unreachable space in distance tables.
pub const UNREACHABLE: u8 = u8::MAX;

/// Figures of one seat on one hex (the guard is not among them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct Pieces {
    pub workers: u8,
    pub leader: bool,
}

impl Pieces {
    pub fn count(self) -> u8 {
        self.workers + u8::from(self.leader)
    }

    pub fn strength(self) -> u32 {
        self.workers as u32 + if self.leader { LEADER_WEIGHT } else { 0 }
    }

    pub fn has(self, piece: PieceKind) -> bool {
        match piece {
            PieceKind::Worker => self.workers > 0,
            PieceKind::Leader => self.leader,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct Guard {
    pub seat: Seat,
    pub piece: PieceKind,
}

/// A laid hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct PlacedHex {
    pub tile: String,
    pub terrain: Terrain,
    pub rotation: u8,
    /// Stones on N, NE, SE, S, SW, NW after rotation.
    pub stones: [u8; EDGES],
    /// Top number of a temple; 0 for other terrain.
    pub temple_value: u8,
    /// Face-down treasure token ids, top first. Secret.
    pub tokens: Vec<String>,
    pub camp: Option<Seat>,
    pub guard: Option<Guard>,
    /// Figures by seat.
    pub pieces: Vec<Pieces>,
}

impl PlacedHex {
    pub fn enterable(&self) -> bool {
        self.terrain != Terrain::Volcano
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct PlayerState {
    pub score: i32,
    pub workers_in_supply: u8,
    pub leader_in_supply: bool,
    pub camps_built: u8,
    pub guards_placed: u8,
    /// Figures that left the game when a guard was placed.
    pub pieces_removed: u8,
    /// Open treasures held, by kind (index = kind - 1).
    pub treasures: Vec<u8>,
}

/// A limit counter for one hex within the current turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct HexCount {
    pub space: u8,
    pub count: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct Bid {
    pub seat: Seat,
    pub amount: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct Bidding {
    pub opener: Seat,
    pub current: Seat,
    pub high: Option<Bid>,
    /// Seats that passed, in order.
    pub passed: Vec<Seat>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, GetSize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    NotStarted,
    /// `seat` must lay the hex in hand.
    Placing {
        seat: Seat,
    },
    /// `seat` spends action points.
    Acting {
        seat: Seat,
        scoring: bool,
    },
    /// Auction variant: see `TikalState::bidding`.
    Bidding,
    /// Auction variant: `seat` won the turn and picks a revealed hex.
    Choosing {
        seat: Seat,
    },
    Finished,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, GetSize)]
pub struct TikalState {
    /// The rules version the game is played under (see `Engine::RULES_VERSIONS`).
    pub rules_version: u32,
    pub auction: bool,
    pub seats: u8,
    /// Indexed by space; `None` while unexplored.
    pub board: Vec<Option<PlacedHex>>,
    /// Undrawn hexes, next first. Secret.
    pub draw_pile: Vec<String>,
    /// Treasure tokens not yet on the board, next first. Secret.
    pub treasure_pile: Vec<String>,
    /// Square temple tiles left, by number.
    pub temple_supply: Vec<u8>,
    pub players: Vec<PlayerState>,
    pub phase: Phase,
    /// The drawn or chosen hex waiting to be laid (a volcano waits during its scoring round).
    pub hand: Option<String>,
    pub action_points_left: u8,
    pub uncovered_this_turn: Vec<HexCount>,
    pub recovered_this_turn: Vec<HexCount>,
    /// Seats still to take their scoring turn in the current scoring round.
    pub scoring_queue: Vec<Seat>,
    /// Who drew the volcano of the current scoring round.
    pub scoring_trigger: Option<Seat>,
    pub final_round: bool,
    pub scorings_completed: u8,
    pub last_placer: Option<Seat>,
    /// Auction variant: the face-up hexes of the round.
    pub revealed: Vec<String>,
    /// Auction variant: seats that played their turn this round (indicator turned over).
    pub played_this_round: Vec<Seat>,
    pub bidding: Option<Bidding>,
}

impl TikalState {
    pub fn new(auction: bool, seats: u8, rules_version: u32) -> TikalState {
        let data = data();
        let mut board: Vec<Option<PlacedHex>> = vec![None; data.spaces()];
        for pre in &data.preprinted {
            board[pre.space as usize] = Some(PlacedHex {
                tile: pre.tile.id.clone(),
                terrain: pre.tile.terrain,
                rotation: 0,
                stones: pre.tile.stones,
                temple_value: if pre.tile.terrain == Terrain::Temple {
                    pre.tile.value
                } else {
                    0
                },
                tokens: Vec::new(),
                camp: None,
                guard: None,
                pieces: vec![Pieces::default(); seats as usize],
            });
        }
        let player = PlayerState {
            score: if auction { AUCTION_START_SCORE } else { 0 },
            workers_in_supply: data.workers,
            leader_in_supply: true,
            camps_built: 0,
            guards_placed: 0,
            pieces_removed: 0,
            treasures: vec![0; data.treasure_kinds()],
        };
        TikalState {
            rules_version,
            auction,
            seats,
            board,
            draw_pile: Vec::new(),
            treasure_pile: Vec::new(),
            temple_supply: data.temple_tiles.clone(),
            players: vec![player; seats as usize],
            phase: Phase::NotStarted,
            hand: None,
            action_points_left: 0,
            uncovered_this_turn: Vec::new(),
            recovered_this_turn: Vec::new(),
            scoring_queue: Vec::new(),
            scoring_trigger: None,
            final_round: false,
            scorings_completed: 0,
            last_placer: None,
            revealed: Vec::new(),
            played_this_round: Vec::new(),
            bidding: None,
        }
    }

    pub fn hex(&self, space: u8) -> Option<&PlacedHex> {
        self.board.get(space as usize).and_then(Option::as_ref)
    }

    fn hex_mut(&mut self, space: u8) -> Option<&mut PlacedHex> {
        self.board.get_mut(space as usize).and_then(Option::as_mut)
    }

    pub fn pieces_at(&self, space: u8, seat: Seat) -> Pieces {
        self.hex(space)
            .and_then(|h| h.pieces.get(seat as usize).copied())
            .unwrap_or_default()
    }

    pub fn base_camp(&self) -> Option<u8> {
        self.board
            .iter()
            .position(|h| h.as_ref().is_some_and(|h| h.terrain == Terrain::BaseCamp))
            .map(|p| p as u8)
    }

    /// Spaces where `seat` may bring figures in: the base camp and its own camps.
    pub fn entry_spaces(&self, seat: Seat) -> Vec<u8> {
        self.board
            .iter()
            .enumerate()
            .filter_map(|(space, hex)| {
                let hex = hex.as_ref()?;
                (hex.terrain == Terrain::BaseCamp || hex.camp == Some(seat)).then_some(space as u8)
            })
            .collect()
    }

    /// The seat with strictly the most strength on a temple, if any.
    pub fn majority_holder(&self, space: u8) -> Option<Seat> {
        let hex = self.hex(space)?;
        let mut best: Option<Seat> = None;
        let mut best_strength = 0;
        let mut tied = false;
        for (seat, pieces) in hex.pieces.iter().enumerate() {
            let strength = pieces.strength();
            if strength > best_strength {
                best = Some(seat as Seat);
                best_strength = strength;
                tied = false;
            } else if strength == best_strength && strength > 0 {
                tied = true;
            }
        }
        if tied {
            None
        } else {
            best
        }
    }

    /// Who a temple scores for now: its guard's owner, else the strict majority.
    pub fn temple_owner(&self, space: u8) -> Option<Seat> {
        let hex = self.hex(space)?;
        if hex.terrain != Terrain::Temple {
            return None;
        }
        match hex.guard {
            Some(guard) => Some(guard.seat),
            None => self.majority_holder(space),
        }
    }

    pub fn temple_points(&self, seat: Seat) -> u32 {
        (0..self.board.len() as u8)
            .filter(|&space| self.temple_owner(space) == Some(seat))
            .filter_map(|space| self.hex(space).map(|h| h.temple_value as u32))
            .sum()
    }

    pub fn treasure_points(&self, seat: Seat) -> u32 {
        let data = data();
        self.players
            .get(seat as usize)
            .map(|p| p.treasures.iter().map(|&n| data.set_points_for(n)).sum())
            .unwrap_or(0)
    }

    pub fn turn_count(list: &[HexCount], space: u8) -> u8 {
        list.iter()
            .find(|c| c.space == space)
            .map_or(0, |c| c.count)
    }

    /// Cost of stepping from `space` over its edge `direction`, if there is a passage.
    pub fn step_cost(&self, space: u8, direction: usize) -> Option<(u8, u8)> {
        let here = self.hex(space)?;
        let next_space = data().neighbours.get(space as usize)?[direction]?;
        let there = self.hex(next_space)?;
        if !here.enterable() || !there.enterable() {
            return None;
        }
        let cost = here.stones[direction] + there.stones[opposite(direction)];
        (cost > 0).then_some((next_space, cost))
    }

    /// Cheapest cost from `from` to every space for `seat`'s figures, up to `limit`
    /// (`UNREACHABLE` beyond). Secret paths link the base camp and `seat`'s camps for 1.
    pub fn distances(&self, seat: Seat, from: u8, limit: u8) -> Vec<u8> {
        let spaces = self.board.len();
        let mut dist = vec![UNREACHABLE; spaces];
        if self.hex(from).is_none_or(|h| !h.enterable()) {
            return dist;
        }
        dist[from as usize] = 0;
        let entries = self.entry_spaces(seat);
        // Dial's algorithm: costs are small integers, so scan by cost level.
        for level in 0..=limit {
            for space in 0..spaces {
                if dist[space] != level {
                    continue;
                }
                let space = space as u8;
                for direction in 0..EDGES {
                    if let Some((next, cost)) = self.step_cost(space, direction) {
                        let total = level as u16 + cost as u16;
                        if total <= limit as u16 && (total as u8) < dist[next as usize] {
                            dist[next as usize] = total as u8;
                        }
                    }
                }
                if level < limit && entries.contains(&space) {
                    for &other in &entries {
                        if dist[other as usize] > level + 1 {
                            dist[other as usize] = level + 1;
                        }
                    }
                }
            }
        }
        dist
    }

    /// Figures of `seat`: in supply, on the board, as guards, removed.
    pub fn figure_total(&self, seat: Seat) -> u32 {
        let Some(player) = self.players.get(seat as usize) else {
            return 0;
        };
        let mut total = player.workers_in_supply as u32
            + u32::from(player.leader_in_supply)
            + player.pieces_removed as u32;
        for hex in self.board.iter().flatten() {
            total += hex
                .pieces
                .get(seat as usize)
                .map_or(0, |p| p.count() as u32);
            if hex.guard.is_some_and(|g| g.seat == seat) {
                total += 1;
            }
        }
        total
    }

    /// Auction variant: seats that have not played this round.
    pub fn eligible(&self, seat: Seat) -> bool {
        !self.played_this_round.contains(&seat)
    }

    /// Auction variant: seats still in the current auction.
    pub fn active_bidders(&self) -> Vec<Seat> {
        let passed: &[Seat] = self.bidding.as_ref().map_or(&[], |b| &b.passed);
        (0..self.seats)
            .filter(|s| self.eligible(*s) && !passed.contains(s))
            .collect()
    }

    /// The next seat clockwise after `seat` satisfying `pred`.
    pub fn next_matching(&self, seat: Seat, pred: impl Fn(Seat) -> bool) -> Option<Seat> {
        clockwise_from(next_clockwise(seat, self.seats), self.seats).find(|&s| pred(s))
    }

    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }
}

fn bump(list: &mut Vec<HexCount>, space: u8) {
    match list.iter_mut().find(|c| c.space == space) {
        Some(entry) => entry.count += 1,
        None => list.push(HexCount { space, count: 1 }),
    }
}

fn take_piece(pieces: &mut Pieces, piece: PieceKind) {
    match piece {
        PieceKind::Worker => pieces.workers = pieces.workers.saturating_sub(1),
        PieceKind::Leader => pieces.leader = false,
    }
}

fn put_piece(pieces: &mut Pieces, piece: PieceKind) {
    match piece {
        PieceKind::Worker => pieces.workers += 1,
        PieceKind::Leader => pieces.leader = true,
    }
}

fn space_of(name: &str) -> u8 {
    data().parse_space(name).unwrap_or(u8::MAX)
}

fn is_volcano(tile: &str) -> bool {
    data()
        .tile(tile)
        .is_some_and(|t| t.terrain == Terrain::Volcano)
}

/// Folds one event into the state. Events come from `setup`/`decide`, so they are trusted;
/// out-of-range data is skipped rather than panicking.
pub fn evolve(state: &mut TikalState, event: &TikalEvent) {
    match event {
        TikalEvent::GameSetUp {
            tile_order,
            treasure_order,
            ..
        } => {
            state.draw_pile = tile_order.clone().unwrap_or_default();
            state.treasure_pile = treasure_order.clone().unwrap_or_default();
        }
        TikalEvent::TileDrawn { seat, tile } => take_tile(state, *seat, tile, false),
        TikalEvent::TilesRevealed { tiles } => tiles_revealed(state, tiles),
        TikalEvent::BiddingOpened { opener } => bidding_opened(state, *opener),
        TikalEvent::BidPlaced { seat, amount } => bid_placed(state, *seat, *amount),
        TikalEvent::Passed { seat } => passed(state, *seat),
        TikalEvent::AuctionWon { seat, price } => auction_won(state, *seat, *price),
        TikalEvent::TileChosen { seat, tile } => take_tile(state, *seat, tile, true),
        TikalEvent::TilePlaced {
            seat,
            tile,
            space,
            rotation,
            treasure_tokens,
        } => tile_placed(state, *seat, tile, space, *rotation, *treasure_tokens),
        TikalEvent::ScoringRoundStarted { trigger, order, .. } => {
            state.scoring_queue = order.clone();
            state.scoring_trigger = *trigger;
            state.final_round = trigger.is_none();
        }
        TikalEvent::TurnStarted { seat, scoring } => turn_started(state, *seat, *scoring),
        TikalEvent::PieceEntered { seat, space, piece } => {
            piece_entered(state, *seat, space, *piece)
        }
        TikalEvent::PieceMoved {
            seat,
            from,
            to,
            piece,
            cost,
        } => piece_moved(state, *seat, from, to, *piece, *cost),
        TikalEvent::TempleUncovered { space, value, .. } => temple_uncovered(state, space, *value),
        TikalEvent::TreasureRecovered { seat, space, kind } => {
            treasure_recovered(state, *seat, space, *kind)
        }
        TikalEvent::TreasureExchanged {
            seat,
            target,
            took,
            gave,
        } => treasure_exchanged(state, *seat, *target, *took, *gave),
        TikalEvent::CampBuilt { seat, space } => camp_built(state, *seat, space),
        TikalEvent::GuardPlaced {
            seat,
            space,
            piece,
            removed,
        } => guard_placed(state, *seat, space, *piece, *removed),
        TikalEvent::TurnEnded { seat, .. } => turn_ended(state, *seat),
        TikalEvent::PlayerScored {
            seat,
            temple_points,
            treasure_points,
        } => {
            if let Some(player) = state.players.get_mut(*seat as usize) {
                player.score += (*temple_points + *treasure_points) as i32;
            }
        }
        TikalEvent::ScoringRoundCompleted { .. } => scoring_round_completed(state),
        TikalEvent::GameFinished { .. } => state.phase = Phase::Finished,
    }
}

fn spend(state: &mut TikalState, cost: u8) {
    state.action_points_left = state.action_points_left.saturating_sub(cost);
}

/// A hex drawn (basic game) or chosen (auction variant) goes to `seat`'s hand; a volcano
/// is laid by the scoring round it starts, so its drawer does not place it first.
fn take_tile(state: &mut TikalState, seat: Seat, tile: &str, chosen: bool) {
    if chosen {
        state.revealed.retain(|t| t != tile);
    } else {
        state.draw_pile.retain(|t| t != tile);
    }
    state.hand = Some(tile.to_owned());
    if !is_volcano(tile) {
        state.phase = Phase::Placing { seat };
    }
}

fn tiles_revealed(state: &mut TikalState, tiles: &[String]) {
    state.draw_pile.retain(|t| !tiles.contains(t));
    state.revealed = tiles.to_vec();
    state.played_this_round.clear();
}

fn bidding_opened(state: &mut TikalState, opener: Seat) {
    state.bidding = Some(Bidding {
        opener,
        current: opener,
        high: None,
        passed: Vec::new(),
    });
    state.phase = Phase::Bidding;
}

fn bid_placed(state: &mut TikalState, seat: Seat, amount: u32) {
    if let Some(bidding) = state.bidding.as_mut() {
        bidding.high = Some(Bid { seat, amount });
    }
    advance_bidder(state, seat);
}

fn passed(state: &mut TikalState, seat: Seat) {
    if let Some(bidding) = state.bidding.as_mut() {
        bidding.passed.push(seat);
    }
    advance_bidder(state, seat);
}

fn auction_won(state: &mut TikalState, seat: Seat, price: u32) {
    if let Some(player) = state.players.get_mut(seat as usize) {
        player.score -= price as i32;
    }
    state.bidding = None;
    state.phase = Phase::Choosing { seat };
}

fn tile_placed(
    state: &mut TikalState,
    seat: Seat,
    tile: &str,
    space: &str,
    rotation: u8,
    treasure_tokens: u8,
) {
    let at = space_of(space);
    let Some(def) = data().tile(tile) else { return };
    let take = usize::from(treasure_tokens).min(state.treasure_pile.len());
    let tokens: Vec<String> = state.treasure_pile.drain(..take).collect();
    let pieces = vec![Pieces::default(); state.seats as usize];
    if let Some(slot) = state.board.get_mut(at as usize) {
        *slot = Some(PlacedHex {
            tile: tile.to_owned(),
            terrain: def.terrain,
            rotation,
            stones: rotate_edges(def.stones, rotation),
            temple_value: if def.terrain == Terrain::Temple {
                def.value
            } else {
                0
            },
            tokens,
            camp: None,
            guard: None,
            pieces,
        });
    }
    state.hand = None;
    state.last_placer = Some(seat);
}

fn turn_started(state: &mut TikalState, seat: Seat, scoring: bool) {
    state.phase = Phase::Acting { seat, scoring };
    state.action_points_left = ACTION_POINTS;
    state.uncovered_this_turn.clear();
    state.recovered_this_turn.clear();
    if scoring {
        state.scoring_queue.retain(|s| *s != seat);
    }
}

fn piece_entered(state: &mut TikalState, seat: Seat, space: &str, piece: PieceKind) {
    if let Some(player) = state.players.get_mut(seat as usize) {
        match piece {
            PieceKind::Worker => {
                player.workers_in_supply = player.workers_in_supply.saturating_sub(1)
            }
            PieceKind::Leader => player.leader_in_supply = false,
        }
    }
    if let Some(pieces) = state
        .hex_mut(space_of(space))
        .and_then(|h| h.pieces.get_mut(seat as usize))
    {
        put_piece(pieces, piece);
    }
    spend(state, COST_ENTER);
}

fn piece_moved(
    state: &mut TikalState,
    seat: Seat,
    from: &str,
    to: &str,
    piece: PieceKind,
    cost: u8,
) {
    if let Some(pieces) = state
        .hex_mut(space_of(from))
        .and_then(|h| h.pieces.get_mut(seat as usize))
    {
        take_piece(pieces, piece);
    }
    if let Some(pieces) = state
        .hex_mut(space_of(to))
        .and_then(|h| h.pieces.get_mut(seat as usize))
    {
        put_piece(pieces, piece);
    }
    spend(state, cost);
}

fn temple_uncovered(state: &mut TikalState, space: &str, value: u8) {
    let at = space_of(space);
    if let Some(h) = state.hex_mut(at) {
        h.temple_value = value;
    }
    if let Some(left) = state.temple_supply.get_mut(value as usize) {
        *left = left.saturating_sub(1);
    }
    bump(&mut state.uncovered_this_turn, at);
    spend(state, COST_UNCOVER);
}

fn treasure_recovered(state: &mut TikalState, seat: Seat, space: &str, kind: u8) {
    let at = space_of(space);
    if let Some(h) = state.hex_mut(at) {
        if !h.tokens.is_empty() {
            h.tokens.remove(0);
        }
    }
    if let Some(count) = state
        .players
        .get_mut(seat as usize)
        .and_then(|p| p.treasures.get_mut((kind as usize).wrapping_sub(1)))
    {
        *count += 1;
    }
    bump(&mut state.recovered_this_turn, at);
    spend(state, COST_RECOVER);
}

fn treasure_exchanged(state: &mut TikalState, seat: Seat, target: Seat, took: u8, gave: u8) {
    let took = (took as usize).wrapping_sub(1);
    let gave = (gave as usize).wrapping_sub(1);
    for (who, gain, lose) in [(seat, took, gave), (target, gave, took)] {
        if let Some(player) = state.players.get_mut(who as usize) {
            if let Some(n) = player.treasures.get_mut(gain) {
                *n += 1;
            }
            if let Some(n) = player.treasures.get_mut(lose) {
                *n = n.saturating_sub(1);
            }
        }
    }
    spend(state, COST_EXCHANGE);
}

fn camp_built(state: &mut TikalState, seat: Seat, space: &str) {
    if let Some(h) = state.hex_mut(space_of(space)) {
        h.camp = Some(seat);
    }
    if let Some(player) = state.players.get_mut(seat as usize) {
        player.camps_built += 1;
    }
    spend(state, COST_CAMP);
}

fn guard_placed(state: &mut TikalState, seat: Seat, space: &str, piece: PieceKind, removed: u8) {
    if let Some(h) = state.hex_mut(space_of(space)) {
        h.guard = Some(Guard { seat, piece });
        if let Some(pieces) = h.pieces.get_mut(seat as usize) {
            *pieces = Pieces::default();
        }
    }
    if let Some(player) = state.players.get_mut(seat as usize) {
        player.guards_placed += 1;
        player.pieces_removed += removed;
    }
    spend(state, COST_GUARD);
}

fn turn_ended(state: &mut TikalState, seat: Seat) {
    state.action_points_left = 0;
    if state.auction && matches!(state.phase, Phase::Acting { scoring: false, .. }) {
        state.played_this_round.push(seat);
    }
}

fn scoring_round_completed(state: &mut TikalState) {
    state.scorings_completed += 1;
    let trigger = state.scoring_trigger.take();
    state.scoring_queue.clear();
    if let (Some(seat), Some(_)) = (trigger, state.hand.as_ref()) {
        state.phase = Phase::Placing { seat };
    }
}

/// After a bid or pass by `seat`, the next seat still in the auction clockwise.
fn advance_bidder(state: &mut TikalState, seat: Seat) {
    let active = state.active_bidders();
    let next = state.next_matching(seat, |s| active.contains(&s));
    if let (Some(bidding), Some(next)) = (state.bidding.as_mut(), next) {
        bidding.current = next;
    }
}
