//! The rules: board analysis (villages, cities, rank, paths, water), `decide` and
//! `legal_actions`.

use std::collections::VecDeque;

use rand::seq::SliceRandom;
use rand::RngCore;

use super::action::{CardSource, JavaAction, TileKind};
use super::codes::JavaRule;
use super::data::{board, data, CellKind, Symbol};
use super::event::{Card, EndReason, JavaEvent, PalaceCount};
use super::state::{self, FestivalStage, HandCard, JavaState, Phase, Terrain};
use super::Java;
use crate::engine::{RuleError, Seat, SharedRule};
use crate::kit::ranking::competition_places;
use crate::kit::Emitter;

/// Fame points per irrigation space of a newly enclosed water area.
pub const POINTS_PER_WATER_SPACE: u8 = 3;
/// Palace cards a player may buy in one turn.
pub const CARDS_PER_TURN: u8 = 2;

const UNREACHABLE: u8 = u8::MAX;
const NO_SETTLEMENT: u16 = u16::MAX;

// ---------------------------------------------------------------------------------------
// Villages and cities

/// A connected group of village spaces (a city when it holds a palace).
#[derive(Debug, Clone)]
pub struct Settlement {
    pub cells: Vec<usize>,
    /// Index of the palace in this settlement, if it is a city.
    pub palace: Option<u8>,
}

#[derive(Debug, Clone)]
pub struct Settlements {
    /// Settlement id of every space (`NO_SETTLEMENT` for non-village spaces).
    pub of: Vec<u16>,
    pub groups: Vec<Settlement>,
}

impl Settlements {
    pub fn of_space(&self, space: usize) -> Option<&Settlement> {
        match self.of.get(space) {
            Some(&id) if id != NO_SETTLEMENT => self.groups.get(id as usize),
            _ => None,
        }
    }
}

fn is_village(state: &JavaState, cell: usize) -> bool {
    state.spaces[cell].terrain == Some(Terrain::Village)
}

pub fn settlements(state: &JavaState) -> Settlements {
    let cells = &board().cells;
    let mut of = vec![NO_SETTLEMENT; cells.len()];
    let mut groups = Vec::new();
    let mut stack = Vec::new();
    for start in 0..cells.len() {
        if of[start] != NO_SETTLEMENT || !is_village(state, start) {
            continue;
        }
        let id = groups.len() as u16;
        let mut group = Settlement {
            cells: Vec::new(),
            palace: None,
        };
        of[start] = id;
        stack.push(start);
        while let Some(cell) = stack.pop() {
            group.cells.push(cell);
            if let Some(p) = state.spaces[cell].palace {
                group.palace.get_or_insert(p);
            }
            for &n in cells[cell].neighbors.iter().flatten() {
                if of[n] == NO_SETTLEMENT && is_village(state, n) {
                    of[n] = id;
                    stack.push(n);
                }
            }
        }
        group.cells.sort_unstable();
        groups.push(group);
    }
    Settlements { of, groups }
}

// ---------------------------------------------------------------------------------------
// Rank

/// Each present seat's developer heights on `cells`, highest first.
pub fn strengths(state: &JavaState, cells: &[usize]) -> Vec<(Seat, Vec<u8>)> {
    let mut per_seat: Vec<Vec<u8>> = vec![Vec::new(); state.seats as usize];
    for &cell in cells {
        let space = &state.spaces[cell];
        if let Some(seat) = space.developer {
            per_seat[seat as usize].push(space.height);
        }
    }
    per_seat
        .into_iter()
        .enumerate()
        .filter(|(_, heights)| !heights.is_empty())
        .map(|(seat, mut heights)| {
            heights.sort_unstable_by(|a, b| b.cmp(a));
            (seat as Seat, heights)
        })
        .collect()
}

/// The seat with the highest rank, if exactly one has it. Heights compare highest first;
/// a seat with an extra developer wins an otherwise equal comparison.
pub fn highest_rank(strengths: &[(Seat, Vec<u8>)]) -> Option<Seat> {
    let best = strengths.iter().map(|(_, h)| h).max()?;
    let mut leaders = strengths.iter().filter(|(_, h)| h == best);
    let leader = leaders.next()?.0;
    match leaders.next() {
        Some(_) => None,
        None => Some(leader),
    }
}

// ---------------------------------------------------------------------------------------
// Tile placement

/// A checked tile placement.
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    pub village: Option<usize>,
    pub rice: [usize; 2],
    pub rice_len: usize,
    pub cost: u8,
}

impl Placement {
    pub fn rice(&self) -> &[usize] {
        &self.rice[..self.rice_len]
    }
}

/// Why a tile cannot lie where it was asked to: cheap to produce while legal placements
/// are searched, turned into a [`RuleError`] only when an action is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementRefusal {
    InvalidRotation,
    OffBoard,
    CoversIrrigation,
    CoversDeveloper,
    CoversPalace,
    NotFlat,
    NoBoardSpace,
    Congruent,
    NotEnoughActionPoints,
    JoinsCities,
}

impl From<PlacementRefusal> for RuleError {
    fn from(refusal: PlacementRefusal) -> RuleError {
        use PlacementRefusal as R;
        match refusal {
            R::InvalidRotation => RuleError::new(
                SharedRule::InvalidRotation,
                "rotation must be 0..5 (0 for one-space tiles)",
            ),
            R::OffBoard => RuleError::new(JavaRule::OffBoard, "the tile would lie outside the map"),
            R::CoversIrrigation => RuleError::new(
                JavaRule::CoversIrrigation,
                "a tile may not cover irrigation",
            ),
            R::CoversDeveloper => RuleError::new(
                JavaRule::CoversDeveloper,
                "a tile may not cover a developer",
            ),
            R::CoversPalace => {
                RuleError::new(JavaRule::CoversPalace, "a tile may not cover a palace")
            }
            R::NotFlat => RuleError::new(
                JavaRule::NotFlat,
                "every space under a tile must be at the same height",
            ),
            R::NoBoardSpace => RuleError::new(
                JavaRule::NoBoardSpace,
                "a tile must cover at least one space of the board",
            ),
            R::Congruent => RuleError::new(
                JavaRule::Congruent,
                "a tile may not lie exactly on a tile of the same size",
            ),
            R::NotEnoughActionPoints => RuleError::new(
                SharedRule::NotEnoughActionPoints,
                "not enough AP for this placement",
            ),
            R::JoinsCities => {
                RuleError::new(JavaRule::JoinsCities, "a tile may not join two cities")
            }
        }
    }
}

/// Cells of a tile laid at `space` with `rotation`: (village, rice cells, rice count).
fn tile_shape(
    kind: TileKind,
    space: usize,
    rotation: u8,
) -> Result<(Option<usize>, [usize; 2], usize), PlacementRefusal> {
    if rotation >= kind.rotations() {
        return Err(PlacementRefusal::InvalidRotation);
    }
    let neighbors = &board().cells[space].neighbors;
    let o = rotation as usize;
    match kind {
        // Rice on the edge `rotation` points to and on the edge just counter-clockwise of it.
        TileKind::ThreeSpace => match (neighbors[o], neighbors[(o + 5) % 6]) {
            (Some(a), Some(b)) => Ok((Some(space), [a, b], 2)),
            _ => Err(PlacementRefusal::OffBoard),
        },
        TileKind::TwoSpace => match neighbors[o] {
            Some(a) => Ok((Some(space), [a, 0], 1)),
            None => Err(PlacementRefusal::OffBoard),
        },
        TileKind::OneSpaceRice => Ok((None, [space, 0], 1)),
        TileKind::OneSpaceVillage => Ok((Some(space), [0, 0], 0)),
    }
}

pub fn tiles_in_stock(state: &JavaState, seat: Seat, kind: TileKind) -> u8 {
    let player = &state.players[seat as usize];
    match kind {
        TileKind::ThreeSpace => state.three_space_tiles,
        TileKind::TwoSpace => player.two_space_tiles,
        TileKind::OneSpaceRice => player.one_space_rice_tiles,
        TileKind::OneSpaceVillage => player.one_space_village_tiles,
    }
}

/// Checks every placement rule except the stock; returns the rule code on failure.
pub fn check_placement(
    state: &JavaState,
    towns: &Settlements,
    kind: TileKind,
    space: usize,
    rotation: u8,
) -> Result<Placement, PlacementRefusal> {
    let cells_info = &board().cells;
    let (village, rice, rice_len) = tile_shape(kind, space, rotation)?;
    let mut cells = [0usize; 3];
    let mut count = 0;
    if let Some(v) = village {
        cells[count] = v;
        count += 1;
    }
    for &r in &rice[..rice_len] {
        cells[count] = r;
        count += 1;
    }
    let cells = &cells[..count];
    let height = state.spaces[cells[0]].height;
    let mut on_board = 0;
    let mut overhang = 0u8;
    for &cell in cells {
        let space = &state.spaces[cell];
        let info = &cells_info[cell];
        if info.kind == CellKind::Irrigation || space.irrigation {
            return Err(PlacementRefusal::CoversIrrigation);
        }
        if space.developer.is_some() {
            return Err(PlacementRefusal::CoversDeveloper);
        }
        if space.palace.is_some() {
            return Err(PlacementRefusal::CoversPalace);
        }
        if space.height != height {
            return Err(PlacementRefusal::NotFlat);
        }
        if info.kind == CellKind::Land || space.height > 0 {
            on_board += 1;
        } else {
            overhang += 1;
        }
    }
    if on_board == 0 {
        return Err(PlacementRefusal::NoBoardSpace);
    }
    if let Some(top) = state.spaces[cells[0]].top_tile {
        let same_tile = cells.iter().all(|&c| state.spaces[c].top_tile == Some(top));
        if same_tile && state.tile_sizes.get(top as usize) == Some(&(count as u8)) {
            return Err(PlacementRefusal::Congruent);
        }
    }
    let cost = 1 + overhang;
    if cost > state.turn.ap {
        return Err(PlacementRefusal::NotEnoughActionPoints);
    }
    if let Some(v) = village {
        if joins_cities(state, towns, v, &rice[..rice_len]) {
            return Err(PlacementRefusal::JoinsCities);
        }
    }
    Ok(Placement {
        village,
        rice,
        rice_len,
        cost,
    })
}

/// Whether a new village space at `village` (with `rice` covered by rice) would connect
/// two palaces into one settlement.
fn joins_cities(state: &JavaState, towns: &Settlements, village: usize, rice: &[usize]) -> bool {
    let cells = &board().cells;
    let mut first_city: Option<u16> = None;
    let mut two_cities = false;
    for &n in cells[village].neighbors.iter().flatten() {
        if rice.contains(&n) || !is_village(state, n) {
            continue;
        }
        let id = towns.of[n];
        if towns.groups[id as usize].palace.is_none() {
            continue;
        }
        match first_city {
            None => first_city = Some(id),
            Some(first) if first != id => two_cities = true,
            Some(_) => {}
        }
    }
    if !two_cities {
        return false;
    }
    // Covering parts of a city may cut its palace off, so count what really connects.
    let mut seen = vec![false; cells.len()];
    let mut stack = vec![village];
    seen[village] = true;
    let mut palaces = 0;
    while let Some(cell) = stack.pop() {
        if cell != village && state.spaces[cell].palace.is_some() {
            palaces += 1;
            if palaces >= 2 {
                return true;
            }
        }
        for &n in cells[cell].neighbors.iter().flatten() {
            if !seen[n] && !rice.contains(&n) && is_village(state, n) {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    false
}

/// Every placement of every tile `seat` has, with its cost (within the AP left).
/// With `first_only`, stops at the first one found.
pub fn placements(
    state: &JavaState,
    seat: Seat,
    towns: &Settlements,
    first_only: bool,
) -> Vec<(TileKind, usize, u8, Placement)> {
    let mut found = Vec::new();
    for kind in TileKind::ALL {
        if tiles_in_stock(state, seat, kind) == 0 {
            continue;
        }
        for space in 0..board().len() {
            for rotation in 0..kind.rotations() {
                if let Ok(p) = check_placement(state, towns, kind, space, rotation) {
                    found.push((kind, space, rotation, p));
                    if first_only {
                        return found;
                    }
                }
            }
        }
    }
    found
}

// ---------------------------------------------------------------------------------------
// Developers

/// AP to enter or leave central Java at `cell`: 1 next to uncovered lowlands, else 2 next
/// to uncovered mountains; `None` if the cell has no tile or is not at the rim.
pub fn rim_cost(state: &JavaState, cell: usize) -> Option<u8> {
    if state.spaces[cell].height == 0 {
        return None;
    }
    let cells = &board().cells;
    let mut cost = None;
    for &n in cells[cell].neighbors.iter().flatten() {
        if state.spaces[n].height > 0 {
            continue;
        }
        match cells[n].kind {
            CellKind::Lowlands => return Some(1),
            CellKind::Mountains => cost = Some(2),
            _ => {}
        }
    }
    cost
}

/// Cheapest AP cost from `from` to every space for `seat`'s developer (`UNREACHABLE` if
/// none): free within one terrain, 1 AP per change between rice and village.
pub fn move_costs(state: &JavaState, seat: Seat, from: usize) -> Vec<u8> {
    let cells = &board().cells;
    let mut cost = vec![UNREACHABLE; cells.len()];
    let passable = |c: usize| {
        let s = &state.spaces[c];
        s.height > 0 && s.palace.is_none() && s.developer.is_none_or(|d| d == seat)
    };
    let mut queue = VecDeque::new();
    cost[from] = 0;
    queue.push_back(from);
    while let Some(cell) = queue.pop_front() {
        let here = cost[cell];
        for &n in cells[cell].neighbors.iter().flatten() {
            if !passable(n) {
                continue;
            }
            let step = u8::from(state.spaces[n].terrain != state.spaces[cell].terrain);
            let next = here + step;
            if next < cost[n] {
                cost[n] = next;
                if step == 0 {
                    queue.push_front(n);
                } else {
                    queue.push_back(n);
                }
            }
        }
    }
    cost
}

// ---------------------------------------------------------------------------------------
// Water

fn is_water(state: &JavaState, cell: usize) -> bool {
    board().cells[cell].kind == CellKind::Irrigation || state.spaces[cell].irrigation
}

/// Water areas enclosed by tiles that have not been scored yet:
/// (spaces, scorer, points).
pub fn newly_enclosed_water(state: &JavaState) -> Vec<(Vec<usize>, Option<Seat>, u8)> {
    let cells = &board().cells;
    let mut seen = vec![false; cells.len()];
    let mut result = Vec::new();
    for start in 0..cells.len() {
        if seen[start] || !is_water(state, start) || state.spaces[start].water_scored {
            continue;
        }
        let mut area = Vec::new();
        let mut shore = Vec::new();
        let mut enclosed = true;
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(cell) = stack.pop() {
            area.push(cell);
            for slot in cells[cell].neighbors {
                let Some(n) = slot else {
                    enclosed = false;
                    continue;
                };
                if is_water(state, n) {
                    if !seen[n] {
                        seen[n] = true;
                        stack.push(n);
                    }
                } else if state.spaces[n].height == 0 {
                    enclosed = false;
                } else if !shore.contains(&n) {
                    shore.push(n);
                }
            }
        }
        if enclosed {
            area.sort_unstable();
            let scorer = highest_rank(&strengths(state, &shore));
            let points = POINTS_PER_WATER_SPACE.saturating_mul(area.len() as u8);
            result.push((area, scorer, points));
        }
    }
    result
}

// ---------------------------------------------------------------------------------------
// Palace cards

/// The cards (by id) form a valid play for `seat`: returns the cards and their points.
fn check_cards(
    state: &JavaState,
    seat: Seat,
    ids: &[String],
    symbols: &[Symbol],
) -> Result<(Vec<Card>, u8), RuleError> {
    if ids.is_empty() {
        return Err(RuleError::new(
            JavaRule::NoCards,
            "play at least one palace card",
        ));
    }
    let hand = &state.players[seat as usize].hand;
    let mut cards: Vec<Card> = Vec::new();
    let mut points = 0u8;
    for id in ids {
        if cards.iter().any(|c| &c.id == id) {
            return Err(RuleError::new(
                JavaRule::DuplicateCard,
                format!("card {id} is listed twice"),
            ));
        }
        let Some(held) = hand.iter().find(|h| &h.card.id == id) else {
            return Err(RuleError::new(
                JavaRule::CardNotInHand,
                format!("card {id} is not in your hand"),
            ));
        };
        let p = held.card.points(symbols);
        if p == 0 {
            return Err(RuleError::new(
                JavaRule::CardDoesNotMatch,
                format!("card {id} shows none of the face-up card's symbols"),
            ));
        }
        points = points.saturating_add(p);
        cards.push(held.card.clone());
    }
    Ok((cards, points))
}

/// One play per distinct combination of matching card kinds worth at least `need`
/// points, naming the first cards of each kind in hand order.
pub fn card_combos(hand: &[HandCard], symbols: &[Symbol], need: u8) -> Vec<Vec<String>> {
    let mut groups: Vec<(&[Symbol], u8, Vec<&str>)> = Vec::new();
    for held in hand {
        let points = held.card.points(symbols);
        if points == 0 {
            continue;
        }
        match groups
            .iter_mut()
            .find(|(s, _, _)| *s == held.card.symbols.as_slice())
        {
            Some(group) => group.2.push(&held.card.id),
            None => groups.push((&held.card.symbols, points, vec![&held.card.id])),
        }
    }
    let mut result = Vec::new();
    let mut counts = vec![0usize; groups.len()];
    loop {
        let total: u32 = groups
            .iter()
            .zip(&counts)
            .map(|(g, &c)| u32::from(g.1) * c as u32)
            .sum();
        if counts.iter().any(|&c| c > 0) && total >= u32::from(need) {
            let mut ids = Vec::new();
            for (g, &c) in groups.iter().zip(&counts) {
                ids.extend(g.2[..c].iter().map(|s| s.to_string()));
            }
            result.push(ids);
        }
        // Odometer over the per-kind counts.
        let mut i = 0;
        loop {
            if i == groups.len() {
                return result;
            }
            if counts[i] < groups[i].2.len() {
                counts[i] += 1;
                break;
            }
            counts[i] = 0;
            i += 1;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Turn bookkeeping

/// The mandatory tile of this turn has not been placed yet.
pub fn tile_owed(state: &JavaState) -> bool {
    state.turn.tiles_placed == 0 && state.end_started_by.is_none()
}

/// The game is played under rules version 2 or later (2026-11-24): the owed tile may not be
/// blocked, a turn without any possible tile may end with a festival, and the discard pile
/// is reshuffled the moment the deck runs out.
pub fn v2(state: &JavaState) -> bool {
    state.rules_version >= 2
}

/// Some tile in `seat`'s stock (or the common supply) can be placed now for the AP left.
pub fn tile_possible(state: &JavaState, seat: Seat) -> bool {
    !placements(state, seat, &settlements(state), true).is_empty()
}

/// Rules version 2, the mandatory tile: while it is owed, another action is allowed exactly
/// when no placement was possible before it, or one is still possible after it (`after` is
/// the state its events lead to). Only what the action does counts, not its kind: blocking
/// the last free spaces is refused like spending the last AP.
fn check_tile_kept(state: &JavaState, seat: Seat, after: &JavaState) -> Result<(), RuleError> {
    if !tile_owed(state) || tile_possible(after, seat) || !tile_possible(state, seat) {
        return Ok(());
    }
    Err(RuleError::new(
        JavaRule::TileStillOwed,
        "after this no tile could be placed any more this turn, and one must still be placed",
    ))
}

/// The cost of the cheapest placement `seat` can afford now, if any.
fn cheapest_placement(state: &JavaState, seat: Seat, towns: &Settlements) -> Option<u8> {
    let mut cheapest: Option<u8> = None;
    for kind in TileKind::ALL {
        if tiles_in_stock(state, seat, kind) == 0 {
            continue;
        }
        for space in 0..board().len() {
            for rotation in 0..kind.rotations() {
                if let Ok(p) = check_placement(state, towns, kind, space, rotation) {
                    if p.cost <= 1 {
                        return Some(p.cost);
                    }
                    cheapest = Some(cheapest.map_or(p.cost, |c| c.min(p.cost)));
                }
            }
        }
    }
    cheapest
}

/// AP that other actions must leave for the mandatory tile: the cost of the cheapest
/// placement still affordable (border-rule placements cost more than 1), 0 when none is.
fn reserve(state: &JavaState) -> u8 {
    if !tile_owed(state) {
        return 0;
    }
    cheapest_placement(state, state.current, &settlements(state)).unwrap_or(0)
}

fn affordable_with(state: &JavaState, reserve: u8, cost: u8) -> bool {
    state.turn.ap >= cost.saturating_add(reserve)
}

/// Checks that `cost` AP are left. Under rules version 1 other actions must also leave the
/// AP of the cheapest placement while the tile is owed; version 2 checks instead whether a
/// placement survives the action (`check_tile_kept`, in `decide`).
fn pay(state: &JavaState, cost: u8) -> Result<(), RuleError> {
    if state.turn.ap < cost {
        return Err(RuleError::new(
            SharedRule::NotEnoughActionPoints,
            format!("this costs {cost} AP, {} left", state.turn.ap),
        ));
    }
    if v2(state) {
        return Ok(());
    }
    let reserve = reserve(state);
    if !affordable_with(state, reserve, cost) {
        return Err(RuleError::new(
            JavaRule::TileStillOwed,
            format!("keep {reserve} AP for the tile you must still place this turn"),
        ));
    }
    Ok(())
}

fn check_cost(given: Option<u8>, actual: u8) -> Result<(), RuleError> {
    match given {
        Some(c) if c != actual => Err(RuleError::new(
            SharedRule::CostMismatch,
            format!("this costs {actual} AP, not {c}"),
        )),
        _ => Ok(()),
    }
}

fn space(name: &str) -> Result<usize, RuleError> {
    board()
        .index(name)
        .ok_or_else(|| RuleError::new(SharedRule::UnknownSpace, format!("no space named {name:?}")))
}

fn name(cell: usize) -> String {
    board().name(cell).to_string()
}

/// The steps that many decisions share, on the working copy of the state.
impl Emitter<Java> {
    /// Rules version 2: "Sobald der Aufnahmestapel aufgebraucht ist": the discard pile is
    /// shuffled into a new deck right after the deck's last card is taken. If the discard
    /// pile is empty then, nothing happens now; the pile is shuffled the next time a card
    /// must be drawn (`reshuffle_if_needed`), as under version 1.
    fn reshuffle_if_run_out(&mut self, rng: &mut dyn RngCore) {
        if v2(self.state()) {
            self.reshuffle_if_needed(rng);
        }
    }

    /// Shuffles the discard pile into a new deck when the deck is empty (version 1: only
    /// when a card must be drawn from it).
    fn reshuffle_if_needed(&mut self, rng: &mut dyn RngCore) {
        if !self.state().deck.is_empty() || self.state().discard.is_empty() {
            return;
        }
        let mut symbols: Vec<Vec<Symbol>> = self
            .state()
            .discard
            .iter()
            .map(|c| c.symbols.clone())
            .collect();
        symbols.shuffle(rng);
        let first = self.state().next_card_number;
        let cards: Vec<Card> = symbols
            .into_iter()
            .enumerate()
            .map(|(i, symbols)| Card {
                id: card_id(first + i as u32),
                symbols,
            })
            .collect();
        self.emit(JavaEvent::DeckReshuffled {
            count: cards.len() as u8,
            cards: Some(cards),
        });
    }

    fn refill_face_up(&mut self, rng: &mut dyn RngCore) {
        if self.state().face_up.is_some() {
            return;
        }
        self.reshuffle_if_needed(rng);
        if let Some(card) = self.state().deck.first().cloned() {
            self.emit(JavaEvent::FaceUpRevealed { card });
            self.reshuffle_if_run_out(rng);
        }
    }

    fn water_check(&mut self) {
        for (area, scorer, points) in newly_enclosed_water(self.state()) {
            self.emit(JavaEvent::WaterEnclosed {
                spaces: area.into_iter().map(name).collect(),
                scorer,
                points: if scorer.is_some() { points } else { 0 },
            });
        }
    }

    /// Ends the current turn: final count during the end game, then the next turn.
    fn finish_turn(&mut self) {
        let seat = self.state().current;
        let seats = self.state().seats;
        if let Some(starter) = self.state().end_started_by {
            if !self.state().players[seat as usize].counted {
                let (points, palaces) = final_count(self.state(), seat);
                self.emit(JavaEvent::FinalCount {
                    seat,
                    points,
                    palaces,
                });
            }
            if (seat + 1) % seats == starter {
                let scores: Vec<i32> = self.state().players.iter().map(|p| p.score).collect();
                let places = competition_places(&scores);
                self.emit(JavaEvent::GameFinished { scores, places });
                return;
            }
        }
        self.emit(JavaEvent::TurnStarted {
            seat: (seat + 1) % seats,
            turn: self.state().turn.number + 1,
        });
    }

    /// Closes a decided festival and the host's turn.
    fn settle_festival(&mut self, rng: &mut dyn RngCore) {
        let Phase::Festival(festival) = &self.state().phase else {
            return;
        };
        let FestivalStage::Decided { winners, shared } = &festival.stage else {
            return;
        };
        let palace = &self.state().palaces[festival.palace as usize];
        let table = data().festival_points(palace.value);
        let points = if *shared { table.shared } else { table.alone };
        let event = JavaEvent::FestivalEnded {
            space: name(palace.space),
            winners: winners.clone(),
            shared: *shared,
            points,
        };
        self.emit(event);
        self.refill_face_up(rng);
        self.finish_turn();
    }
}

pub fn card_id(number: u32) -> String {
    format!("pc{number:02}")
}

/// Points of `seat`'s Great Final Count: full value where nobody is stronger, half where
/// exactly one other seat is stronger.
pub fn final_count(state: &JavaState, seat: Seat) -> (u16, Vec<PalaceCount>) {
    let towns = settlements(state);
    let mut total = 0u16;
    let mut counts = Vec::new();
    for palace in &state.palaces {
        let Some(city) = towns.of_space(palace.space) else {
            continue;
        };
        let ranks = strengths(state, &city.cells);
        let Some((_, mine)) = ranks.iter().find(|(s, _)| *s == seat) else {
            continue;
        };
        let stronger = ranks.iter().filter(|(_, h)| h > mine).count();
        let (rank, points) = match stronger {
            0 => (1, palace.value),
            1 => (2, palace.value / 2),
            _ => continue,
        };
        total += u16::from(points);
        counts.push(PalaceCount {
            palace: name(palace.space),
            value: palace.value,
            rank,
            points,
        });
    }
    (total, counts)
}

// ---------------------------------------------------------------------------------------
// setup / decide

pub fn setup(seats: u8, seed_commitment: Option<&str>, rng: &mut dyn RngCore) -> Vec<JavaEvent> {
    let d = data();
    let mut symbols: Vec<Vec<Symbol>> = d
        .cards
        .iter()
        .flat_map(|(s, count)| std::iter::repeat_n(s.clone(), *count as usize))
        .collect();
    symbols.shuffle(rng);
    let deck: Vec<Card> = symbols
        .into_iter()
        .enumerate()
        .map(|(i, symbols)| Card {
            id: card_id(i as u32 + 1),
            symbols,
        })
        .collect();
    let dealt = d.material.palace_cards_dealt as usize;
    let mut events = vec![JavaEvent::GameSetUp {
        seats,
        deck: Some(deck.clone()),
        seed_commitment: seed_commitment.map(str::to_owned),
    }];
    for seat in 0..seats {
        let start = seat as usize * dealt;
        events.push(JavaEvent::CardsDealt {
            seat,
            count: dealt as u8,
            cards: Some(deck[start..start + dealt].to_vec()),
        });
    }
    events.push(JavaEvent::FaceUpRevealed {
        card: deck[seats as usize * dealt].clone(),
    });
    events.push(JavaEvent::TurnStarted { seat: 0, turn: 1 });
    events
}

/// The seat exists and may take this kind of action in the current phase.
fn check_actor(state: &JavaState, seat: Seat, action: &JavaAction) -> Result<(), RuleError> {
    if seat >= state.seats {
        return Err(RuleError::new(
            SharedRule::NoSuchSeat,
            "no such seat in this game",
        ));
    }
    let festival_action = matches!(
        action,
        JavaAction::Bid { .. } | JavaAction::Pass | JavaAction::Agree
    );
    match &state.phase {
        Phase::Setup => {
            return Err(RuleError::new(
                SharedRule::WrongPhase,
                "the game has not started",
            ))
        }
        Phase::Finished => return Err(RuleError::new(SharedRule::GameOver, "the game is over")),
        Phase::Festival(f) => {
            if f.to_act() != Some(seat) {
                return Err(RuleError::new(
                    SharedRule::NotYourTurn,
                    "another player must act in the festival now",
                ));
            }
            if !festival_action {
                return Err(RuleError::new(
                    SharedRule::WrongPhase,
                    "a festival is running: bid, pass or agree",
                ));
            }
        }
        Phase::Turn => {
            if seat != state.current {
                return Err(RuleError::new(
                    SharedRule::NotYourTurn,
                    "it is not your turn",
                ));
            }
            if festival_action {
                return Err(RuleError::new(
                    SharedRule::WrongPhase,
                    "no festival is running",
                ));
            }
        }
    }
    Ok(())
}

pub fn decide(
    state: &JavaState,
    seat: Seat,
    action: &JavaAction,
    rng: &mut dyn RngCore,
) -> Result<Vec<JavaEvent>, RuleError> {
    check_actor(state, seat, action)?;
    let mut out = Emitter::<Java>::new(state);
    match action {
        JavaAction::PlaceTile {
            tile,
            space: at,
            rotation,
            cost,
        } => decide_place_tile(state, seat, tile, at, rotation, cost, &mut out)?,
        JavaAction::EnterDeveloper { to, cost } => {
            decide_enter_developer(state, seat, to, cost, &mut out)?
        }
        JavaAction::MoveDeveloper { from, to, cost } => {
            decide_move_developer(state, seat, from, to, cost, &mut out)?
        }
        JavaAction::WithdrawDeveloper { from, cost } => {
            decide_withdraw_developer(state, seat, from, cost, &mut out)?
        }
        JavaAction::BuildPalace { space: at, value } => {
            decide_build_palace(state, seat, at, value, &mut out)?
        }
        JavaAction::RaisePalace { space: at, value } => {
            decide_raise_palace(state, seat, at, value, &mut out)?
        }
        JavaAction::PlaceIrrigation { space: at } => {
            decide_place_irrigation(state, seat, at, &mut out)?
        }
        JavaAction::BuyCard { source } => decide_buy_card(state, seat, source, rng, &mut out)?,
        JavaAction::UseActionChip => decide_use_action_chip(state, seat, &mut out)?,
        JavaAction::HoldFestival {
            space: palace,
            cards,
        } => decide_hold_festival(state, seat, palace, cards, rng, &mut out)?,
        JavaAction::Bid { cards } => decide_bid(state, seat, cards, rng, &mut out)?,
        JavaAction::Pass => decide_pass(state, seat, rng, &mut out)?,
        JavaAction::Agree => decide_agree(state, seat, rng, &mut out)?,
        JavaAction::EndTurn => decide_end_turn(state, seat, &mut out)?,
    }
    let may_block_the_tile = matches!(
        action,
        JavaAction::EnterDeveloper { .. }
            | JavaAction::MoveDeveloper { .. }
            | JavaAction::WithdrawDeveloper { .. }
            | JavaAction::BuildPalace { .. }
            | JavaAction::RaisePalace { .. }
            | JavaAction::PlaceIrrigation { .. }
            | JavaAction::BuyCard { .. }
    );
    if may_block_the_tile && v2(state) {
        check_tile_kept(state, seat, out.state())?;
    }
    Ok(out.into_events())
}

fn decide_place_tile(
    state: &JavaState,
    seat: Seat,
    tile: &TileKind,
    at: &str,
    rotation: &u8,
    cost: &Option<u8>,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(at)?;
    if tiles_in_stock(state, seat, *tile) == 0 {
        return Err(RuleError::new(
            JavaRule::NoTileLeft,
            "no tile of that kind left",
        ));
    }
    let towns = settlements(state);
    let placement = check_placement(state, &towns, *tile, cell, *rotation)?;
    check_cost(*cost, placement.cost)?;
    out.emit(JavaEvent::TilePlaced {
        seat,
        tile: *tile,
        space: name(cell),
        rotation: *rotation,
        village: placement.village.map(name),
        rice: placement.rice().iter().map(|&c| name(c)).collect(),
        cost: placement.cost,
    });
    if *tile == TileKind::ThreeSpace
        && out.state().three_space_tiles == 0
        && out.state().end_started_by.is_none()
    {
        out.emit(JavaEvent::EndTriggered {
            seat,
            reason: EndReason::LastThreeSpaceTile,
        });
    }
    out.water_check();
    Ok(())
}

fn decide_enter_developer(
    state: &JavaState,
    seat: Seat,
    to: &str,
    cost: &Option<u8>,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(to)?;
    if state.players[seat as usize].developers == 0 {
        return Err(RuleError::new(
            JavaRule::NoDeveloperInReserve,
            "all your developers are on the board",
        ));
    }
    check_free_tile(state, cell)?;
    let rim = rim_cost(state, cell)
        .ok_or_else(|| RuleError::new(JavaRule::NotRimSpace, "developers enter only at the rim"))?;
    check_cost(*cost, rim)?;
    pay(state, rim)?;
    out.emit(JavaEvent::DeveloperEntered {
        seat,
        to: name(cell),
        cost: rim,
    });
    Ok(())
}

fn decide_move_developer(
    state: &JavaState,
    seat: Seat,
    from: &str,
    to: &str,
    cost: &Option<u8>,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let start = own_developer(state, seat, from)?;
    let cell = space(to)?;
    if cell == start {
        return Err(RuleError::new(
            SharedRule::SameSpace,
            "the developer is already there",
        ));
    }
    check_free_tile(state, cell)?;
    let steps = move_costs(state, seat, start)[cell];
    if steps == UNREACHABLE {
        return Err(RuleError::new(
            SharedRule::NoPath,
            "no path over tiles that avoids palaces and other players' developers",
        ));
    }
    check_cost(*cost, steps)?;
    pay(state, steps)?;
    out.emit(JavaEvent::DeveloperMoved {
        seat,
        from: name(start),
        to: name(cell),
        cost: steps,
    });
    Ok(())
}

fn decide_withdraw_developer(
    state: &JavaState,
    seat: Seat,
    from: &str,
    cost: &Option<u8>,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = own_developer(state, seat, from)?;
    let rim = rim_cost(state, cell).ok_or_else(|| {
        RuleError::new(JavaRule::NotRimSpace, "developers leave only from the rim")
    })?;
    check_cost(*cost, rim)?;
    pay(state, rim)?;
    out.emit(JavaEvent::DeveloperWithdrawn {
        seat,
        from: name(cell),
        cost: rim,
    });
    Ok(())
}

fn decide_build_palace(
    state: &JavaState,
    seat: Seat,
    at: &str,
    value: &u8,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(at)?;
    if !is_village(state, cell) {
        return Err(RuleError::new(
            JavaRule::NotAVillageSpace,
            "palaces are built on village spaces",
        ));
    }
    let s = &state.spaces[cell];
    if s.developer.is_some() || s.palace.is_some() {
        return Err(RuleError::new(
            SharedRule::SpaceOccupied,
            "the space is not empty",
        ));
    }
    let towns = settlements(state);
    let Some(village) = towns.of_space(cell) else {
        return Err(RuleError::new(JavaRule::NotAVillageSpace, "not a village"));
    };
    if village.palace.is_some() {
        return Err(RuleError::new(
            JavaRule::AlreadyACity,
            "this village already has a palace: raise it instead",
        ));
    }
    check_palace_value(state, *value, village.cells.len())?;
    if highest_rank(&strengths(state, &village.cells)) != Some(seat) {
        return Err(RuleError::new(
            JavaRule::NotHighestRank,
            "only the player with the highest rank in the village may build",
        ));
    }
    pay(state, 1)?;
    out.emit(JavaEvent::PalaceBuilt {
        seat,
        space: name(cell),
        value: *value,
        points: *value / 2,
    });
    Ok(())
}

fn decide_raise_palace(
    state: &JavaState,
    seat: Seat,
    at: &str,
    value: &u8,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(at)?;
    let Some(index) = state.spaces[cell].palace else {
        return Err(RuleError::new(
            JavaRule::NoPalace,
            "there is no palace on that space",
        ));
    };
    let palace = &state.palaces[index as usize];
    if palace.changed_in_turn == state.turn.number {
        return Err(RuleError::new(
            JavaRule::PalaceChangedThisTurn,
            "a palace may change only once per turn",
        ));
    }
    if *value <= palace.value {
        return Err(RuleError::new(
            JavaRule::ValueNotHigher,
            format!("the palace is already worth {}", palace.value),
        ));
    }
    let towns = settlements(state);
    let Some(city) = towns.of_space(cell) else {
        return Err(RuleError::new(
            JavaRule::NoPalace,
            "there is no palace on that space",
        ));
    };
    check_palace_value(state, *value, city.cells.len())?;
    if highest_rank(&strengths(state, &city.cells)) != Some(seat) {
        return Err(RuleError::new(
            JavaRule::NotHighestRank,
            "only the player with the highest rank in the city may raise its palace",
        ));
    }
    pay(state, 1)?;
    out.emit(JavaEvent::PalaceRaised {
        seat,
        space: name(cell),
        from: palace.value,
        value: *value,
        points: *value / 2,
    });
    Ok(())
}

fn decide_place_irrigation(
    state: &JavaState,
    seat: Seat,
    at: &str,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(at)?;
    if state.irrigation_tiles == 0 {
        return Err(RuleError::new(
            JavaRule::NoIrrigationTileLeft,
            "the irrigation tiles are used up",
        ));
    }
    check_irrigation_space(state, cell)?;
    pay(state, 1)?;
    out.emit(JavaEvent::IrrigationPlaced {
        seat,
        space: name(cell),
    });
    out.water_check();
    Ok(())
}

fn decide_buy_card(
    state: &JavaState,
    seat: Seat,
    source: &CardSource,
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    if state.turn.cards_bought >= CARDS_PER_TURN {
        return Err(RuleError::new(
            JavaRule::CardLimitReached,
            "at most 2 palace cards per turn",
        ));
    }
    match source {
        CardSource::FaceUp if state.face_up.is_none() => {
            return Err(RuleError::new(
                JavaRule::NoFaceUpCard,
                "there is no face-up card",
            ))
        }
        CardSource::Deck if state.deck.is_empty() && state.discard.is_empty() => {
            return Err(RuleError::new(JavaRule::DeckEmpty, "no cards left to draw"))
        }
        _ => {}
    }
    pay(state, 1)?;
    match source {
        CardSource::FaceUp => {
            out.emit(JavaEvent::CardBought {
                seat,
                source: *source,
                card: state.face_up.clone(),
            });
            out.refill_face_up(rng);
        }
        CardSource::Deck => {
            out.reshuffle_if_needed(rng);
            let card = out.state().deck.first().cloned();
            out.emit(JavaEvent::CardBought {
                seat,
                source: *source,
                card,
            });
            out.reshuffle_if_run_out(rng);
        }
    }
    Ok(())
}

fn decide_use_action_chip(
    state: &JavaState,
    seat: Seat,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    if state.players[seat as usize].action_chips == 0 {
        return Err(RuleError::new(
            JavaRule::NoActionChip,
            "no action chips left",
        ));
    }
    if state.turn.chip_used {
        return Err(RuleError::new(
            JavaRule::ChipAlreadyUsed,
            "at most one action chip per turn",
        ));
    }
    out.emit(JavaEvent::ActionChipUsed { seat });
    Ok(())
}

fn decide_hold_festival(
    state: &JavaState,
    seat: Seat,
    palace: &str,
    cards: &[String],
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(palace)?;
    // Under rules version 2 a turn in which no tile can be placed may still end with a
    // festival; the turn then ends without its tile, which begins the end of the game.
    let ends_without_tile = tile_owed(state);
    if ends_without_tile && (!v2(state) || tile_possible(state, seat)) {
        return Err(RuleError::new(
            JavaRule::MustPlaceTile,
            "place a tile before ending the turn with a festival",
        ));
    }
    let Some(face_up) = &state.face_up else {
        return Err(RuleError::new(
            JavaRule::NoFaceUpCard,
            "without a face-up card no festival can be held",
        ));
    };
    let Some(index) = state.spaces[cell].palace else {
        return Err(RuleError::new(
            JavaRule::NoPalace,
            "there is no palace on that space",
        ));
    };
    if state.palaces[index as usize].festival_held {
        return Err(RuleError::new(
            JavaRule::FestivalAlreadyHeld,
            "this palace held a festival since it last changed",
        ));
    }
    let towns = settlements(state);
    let city = towns
        .of_space(cell)
        .map(|c| c.cells.clone())
        .unwrap_or_default();
    let present = |s: Seat| city.iter().any(|&c| state.spaces[c].developer == Some(s));
    if !present(seat) {
        return Err(RuleError::new(
            JavaRule::NoDeveloperInCity,
            "you need a developer in the city",
        ));
    }
    let (played, points) = check_cards(state, seat, cards, &face_up.symbols)?;
    let participants = (1..state.seats)
        .map(|step| (seat + step) % state.seats)
        .filter(|&s| present(s) && !state.players[s as usize].hand.is_empty())
        .collect();
    if ends_without_tile {
        // First, as for `end_turn`: the turn is over once its festival is called, and the
        // host's Great Final Count follows the festival like every count.
        out.emit(JavaEvent::EndTriggered {
            seat,
            reason: EndReason::NoTilePlaceable,
        });
    }
    out.emit(JavaEvent::FestivalStarted {
        seat,
        space: name(cell),
        cards: played,
        points,
        participants,
    });
    out.settle_festival(rng);
    Ok(())
}

fn decide_bid(
    state: &JavaState,
    seat: Seat,
    cards: &[String],
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let Phase::Festival(festival) = &state.phase else {
        return Err(RuleError::new(
            SharedRule::WrongPhase,
            "no festival is running",
        ));
    };
    let (played, points) = check_cards(state, seat, cards, &festival.symbols)?;
    let before = festival.bidder(seat).map_or(0, |b| b.points);
    let total = before.saturating_add(points);
    let needed = match festival.stage {
        FestivalStage::Agreement { .. } => festival.high.saturating_add(1),
        _ => festival.high,
    };
    if total < needed {
        return Err(RuleError::new(
            SharedRule::BidTooLow,
            format!("your total must reach at least {needed}"),
        ));
    }
    out.emit(JavaEvent::BidPlaced {
        seat,
        cards: played,
        points: total,
    });
    out.settle_festival(rng);
    Ok(())
}

fn decide_pass(
    state: &JavaState,
    seat: Seat,
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let Some(FestivalStage::Bidding { .. }) = state.festival().map(|f| &f.stage) else {
        return Err(RuleError::new(
            JavaRule::CannotPassNow,
            "when offered an agreement, agree or bid higher",
        ));
    };
    out.emit(JavaEvent::Passed { seat });
    out.settle_festival(rng);
    Ok(())
}

fn decide_agree(
    state: &JavaState,
    seat: Seat,
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let Some(FestivalStage::Agreement { .. }) = state.festival().map(|f| &f.stage) else {
        return Err(RuleError::new(
            JavaRule::NoAgreementOffered,
            "nobody offers to share the festival now",
        ));
    };
    out.emit(JavaEvent::Agreed { seat });
    out.settle_festival(rng);
    Ok(())
}

fn decide_end_turn(
    state: &JavaState,
    seat: Seat,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    if tile_owed(state) {
        let towns = settlements(state);
        if !placements(state, seat, &towns, true).is_empty() {
            return Err(RuleError::new(
                JavaRule::MustPlaceTile,
                "place at least one tile before ending the turn",
            ));
        }
        out.emit(JavaEvent::EndTriggered {
            seat,
            reason: EndReason::NoTilePlaceable,
        });
    }
    out.finish_turn();
    Ok(())
}

fn check_free_tile(state: &JavaState, cell: usize) -> Result<(), RuleError> {
    let s = &state.spaces[cell];
    if s.height == 0 {
        return Err(RuleError::new(
            JavaRule::NoTileThere,
            "developers stand only on tiles",
        ));
    }
    if s.developer.is_some() || s.palace.is_some() {
        return Err(RuleError::new(
            SharedRule::SpaceOccupied,
            "the space is not empty",
        ));
    }
    Ok(())
}

fn own_developer(state: &JavaState, seat: Seat, from: &str) -> Result<usize, RuleError> {
    let cell = space(from)?;
    if state.spaces[cell].developer != Some(seat) {
        return Err(RuleError::new(
            JavaRule::NotYourDeveloper,
            format!("you have no developer on {from}"),
        ));
    }
    Ok(cell)
}

fn check_palace_value(state: &JavaState, value: u8, size: usize) -> Result<(), RuleError> {
    if !data().palace_values().any(|v| v == value) {
        return Err(RuleError::new(
            JavaRule::InvalidPalaceValue,
            "palace values are 2, 4, 6, 8 and 10",
        ));
    }
    if usize::from(value) > size {
        return Err(RuleError::new(
            JavaRule::SettlementTooSmall,
            format!("a palace may not be worth more than its {size} village spaces"),
        ));
    }
    if state.palace_stock(value) == 0 {
        return Err(RuleError::new(
            JavaRule::NoPalaceTile,
            format!("no palace tiles of value {value} left"),
        ));
    }
    Ok(())
}

fn check_irrigation_space(state: &JavaState, cell: usize) -> Result<(), RuleError> {
    let info = &board().cells[cell];
    if info.kind != CellKind::Land {
        return Err(RuleError::new(
            JavaRule::NotABoardSpace,
            "irrigation goes on a land space of central Java",
        ));
    }
    if info.printed_edge {
        return Err(RuleError::new(
            JavaRule::RimSpace,
            "irrigation may not be placed at the rim of central Java",
        ));
    }
    let s = &state.spaces[cell];
    if s.height > 0 || s.irrigation {
        return Err(RuleError::new(
            JavaRule::SpaceNotEmpty,
            "irrigation goes directly on an empty board space",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// legal actions

pub fn legal_actions(state: &JavaState, seat: Seat) -> Vec<JavaAction> {
    let mut actions = Vec::new();
    match &state.phase {
        Phase::Festival(festival) if festival.to_act() == Some(seat) => {
            let hand = &state.players[seat as usize].hand;
            let points = festival.bidder(seat).map_or(0, |b| b.points);
            let needed = match festival.stage {
                FestivalStage::Agreement { .. } => {
                    actions.push(JavaAction::Agree);
                    festival.high.saturating_add(1)
                }
                _ => {
                    actions.push(JavaAction::Pass);
                    festival.high
                }
            };
            let need = needed.saturating_sub(points).max(1);
            actions.extend(
                card_combos(hand, &festival.symbols, need)
                    .into_iter()
                    .map(|cards| JavaAction::Bid { cards }),
            );
        }
        Phase::Turn if state.current == seat => turn_actions(state, seat, &mut actions),
        _ => {}
    }
    actions
}

fn turn_actions(state: &JavaState, seat: Seat, actions: &mut Vec<JavaAction>) {
    let player = &state.players[seat as usize];
    let towns = settlements(state);
    let tiles = placements(state, seat, &towns, false);
    let no_tile_possible = tiles.is_empty();
    let owed = tile_owed(state);
    let guard = TileGuard {
        state,
        seat,
        towns: &towns,
        tiles: &tiles,
        reserve: if owed {
            tiles.iter().map(|t| t.3.cost).min().unwrap_or(0)
        } else {
            0
        },
        watching: v2(state) && owed && !no_tile_possible,
    };
    for (kind, cell, rotation, p) in &tiles {
        actions.push(JavaAction::PlaceTile {
            tile: *kind,
            space: name(*cell),
            rotation: *rotation,
            cost: Some(p.cost),
        });
    }
    developer_actions(state, seat, &guard, actions);
    palace_actions(state, seat, &towns, &guard, actions);
    supply_actions(state, &guard, actions);
    if player.action_chips > 0 && !state.turn.chip_used {
        actions.push(JavaAction::UseActionChip);
    }
    if !owed || (v2(state) && no_tile_possible) {
        festival_actions(state, seat, &towns, actions);
    }
    if !owed || no_tile_possible {
        actions.push(JavaAction::EndTurn);
    }
}

/// What a non-tile action does to the placements of the owed tile (besides spending AP).
#[derive(Debug, Clone, Copy)]
enum Effect {
    /// Nothing on the board changes (a palace raised, a card bought).
    Spends,
    /// A developer or an irrigation tile comes onto this space.
    Occupies(usize),
    /// A developer leaves the first space for the second.
    Moves(usize, usize),
    /// A developer leaves this space for the reserve.
    Frees(usize),
    /// A palace is built on this space: its village becomes a city.
    Builds(usize),
}

/// Which other actions the owed tile allows, for `legal_actions`. Under rules version 1
/// they must keep `reserve` AP. Under version 2 this is a fast equivalent of
/// `check_tile_kept` (which `decide` applies to the state after the action's events),
/// worked out from the placements listed anyway: an action takes away exactly the
/// placements that cover what it puts on the board (and, for a palace, those that would
/// now join two cities) or that cost more than the AP it leaves, and adds only placements
/// over the space a developer leaves.
struct TileGuard<'a> {
    state: &'a JavaState,
    seat: Seat,
    towns: &'a Settlements,
    /// Every placement possible now.
    tiles: &'a [(TileKind, usize, u8, Placement)],
    /// Version 1: the AP other actions must leave while the tile is owed.
    reserve: u8,
    /// Version 2: the tile is owed and can be placed now, so no action may make it
    /// impossible.
    watching: bool,
}

fn covers(p: &Placement, cell: usize) -> bool {
    p.village == Some(cell) || p.rice().contains(&cell)
}

impl TileGuard<'_> {
    /// Whether an action costing `cost` AP with `effect` is allowed.
    fn allows(&self, cost: u8, effect: Effect) -> bool {
        if !v2(self.state) {
            return affordable_with(self.state, self.reserve, cost);
        }
        let Some(left) = self.state.turn.ap.checked_sub(cost) else {
            return false;
        };
        if !self.watching {
            return true;
        }
        // Every placement costs at least 1 AP.
        if left == 0 {
            return false;
        }
        let kept = |avoid: Option<usize>| {
            self.tiles
                .iter()
                .any(|t| t.3.cost <= left && avoid.is_none_or(|c| !covers(&t.3, c)))
        };
        match effect {
            Effect::Spends => kept(None),
            Effect::Occupies(cell) => kept(Some(cell)),
            Effect::Moves(from, to) => {
                kept(Some(to))
                    || self
                        .placements_over(from)
                        .iter()
                        .any(|p| p.cost <= left && !covers(p, to))
            }
            Effect::Frees(from) => {
                kept(None) || self.placements_over(from).iter().any(|p| p.cost <= left)
            }
            Effect::Builds(cell) => self.kept_after_palace(cell),
        }
    }

    /// The placements covering `cell` once `seat`'s developer has left it (AP as now).
    fn placements_over(&self, cell: usize) -> Vec<Placement> {
        let mut freed = self.state.clone();
        freed.spaces[cell].developer = None;
        let around =
            std::iter::once(cell).chain(board().cells[cell].neighbors.iter().flatten().copied());
        let mut found = Vec::new();
        for kind in TileKind::ALL {
            if tiles_in_stock(&freed, self.seat, kind) == 0 {
                continue;
            }
            for anchor in around.clone() {
                for rotation in 0..kind.rotations() {
                    if let Ok(p) = check_placement(&freed, self.towns, kind, anchor, rotation) {
                        if covers(&p, cell) {
                            found.push(p);
                        }
                    }
                }
            }
        }
        found
    }

    /// Whether a placement is left after a palace is built on `cell` (1 AP).
    fn kept_after_palace(&self, cell: usize) -> bool {
        let mut after = self.state.clone();
        state::evolve(
            &mut after,
            &JavaEvent::PalaceBuilt {
                seat: self.seat,
                space: name(cell),
                value: 2,
                points: 0,
            },
        );
        let towns = settlements(&after);
        self.tiles.iter().any(|&(kind, space, rotation, p)| {
            p.cost <= after.turn.ap
                && !covers(&p, cell)
                && check_placement(&after, &towns, kind, space, rotation).is_ok()
        })
    }
}

/// Entering, moving and withdrawing developers that the owed tile allows.
fn developer_actions(
    state: &JavaState,
    seat: Seat,
    guard: &TileGuard,
    actions: &mut Vec<JavaAction>,
) {
    let cells = &board().cells;
    if state.players[seat as usize].developers > 0 {
        for cell in 0..cells.len() {
            let s = &state.spaces[cell];
            if s.developer.is_some() || s.palace.is_some() {
                continue;
            }
            if let Some(cost) =
                rim_cost(state, cell).filter(|&cost| guard.allows(cost, Effect::Occupies(cell)))
            {
                actions.push(JavaAction::EnterDeveloper {
                    to: name(cell),
                    cost: Some(cost),
                });
            }
        }
    }
    for from in (0..cells.len()).filter(|from| state.spaces[*from].developer == Some(seat)) {
        let costs = move_costs(state, seat, from);
        for (to, &cost) in costs.iter().enumerate() {
            let s = &state.spaces[to];
            if to != from
                && cost != UNREACHABLE
                && s.developer.is_none()
                && guard.allows(cost, Effect::Moves(from, to))
            {
                actions.push(JavaAction::MoveDeveloper {
                    from: name(from),
                    to: name(to),
                    cost: Some(cost),
                });
            }
        }
        if let Some(cost) =
            rim_cost(state, from).filter(|&cost| guard.allows(cost, Effect::Frees(from)))
        {
            actions.push(JavaAction::WithdrawDeveloper {
                from: name(from),
                cost: Some(cost),
            });
        }
    }
}

/// Building and raising the palaces where `seat` has the highest rank.
fn palace_actions(
    state: &JavaState,
    seat: Seat,
    towns: &Settlements,
    guard: &TileGuard,
    actions: &mut Vec<JavaAction>,
) {
    if state.turn.ap == 0 {
        return;
    }
    for town in &towns.groups {
        let values: Vec<u8> = data()
            .palace_values()
            .filter(|&v| usize::from(v) <= town.cells.len() && state.palace_stock(v) > 0)
            .collect();
        if values.is_empty() || highest_rank(&strengths(state, &town.cells)) != Some(seat) {
            continue;
        }
        match town.palace {
            None => {
                for &cell in &town.cells {
                    if state.spaces[cell].developer.is_some()
                        || !guard.allows(1, Effect::Builds(cell))
                    {
                        continue;
                    }
                    for &value in &values {
                        actions.push(JavaAction::BuildPalace {
                            space: name(cell),
                            value,
                        });
                    }
                }
            }
            Some(index) => {
                let palace = &state.palaces[index as usize];
                if palace.changed_in_turn == state.turn.number || !guard.allows(1, Effect::Spends) {
                    continue;
                }
                for &value in values.iter().filter(|&&v| v > palace.value) {
                    actions.push(JavaAction::RaisePalace {
                        space: name(palace.space),
                        value,
                    });
                }
            }
        }
    }
}

/// Irrigation tiles and palace cards from the common supply.
fn supply_actions(state: &JavaState, guard: &TileGuard, actions: &mut Vec<JavaAction>) {
    if state.turn.ap == 0 {
        return;
    }
    if state.irrigation_tiles > 0 {
        for cell in 0..board().cells.len() {
            if check_irrigation_space(state, cell).is_ok()
                && guard.allows(1, Effect::Occupies(cell))
            {
                actions.push(JavaAction::PlaceIrrigation { space: name(cell) });
            }
        }
    }
    if state.turn.cards_bought < CARDS_PER_TURN && guard.allows(1, Effect::Spends) {
        if state.face_up.is_some() {
            actions.push(JavaAction::BuyCard {
                source: CardSource::FaceUp,
            });
        }
        if !state.deck.is_empty() || !state.discard.is_empty() {
            actions.push(JavaAction::BuyCard {
                source: CardSource::Deck,
            });
        }
    }
}

/// Every festival `seat` can hold: a palace whose city holds one of its developers.
fn festival_actions(
    state: &JavaState,
    seat: Seat,
    towns: &Settlements,
    actions: &mut Vec<JavaAction>,
) {
    let Some(face_up) = &state.face_up else {
        return;
    };
    let hand = &state.players[seat as usize].hand;
    for palace in state.palaces.iter().filter(|palace| !palace.festival_held) {
        let Some(city) = towns.of_space(palace.space) else {
            continue;
        };
        if !city
            .cells
            .iter()
            .any(|&c| state.spaces[c].developer == Some(seat))
        {
            continue;
        }
        for cards in card_combos(hand, &face_up.symbols, 1) {
            actions.push(JavaAction::HoldFestival {
                space: name(palace.space),
                cards,
            });
        }
    }
}

pub fn to_act(state: &JavaState) -> Vec<Seat> {
    match &state.phase {
        Phase::Turn => vec![state.current],
        Phase::Festival(f) => f.to_act().into_iter().collect(),
        Phase::Setup | Phase::Finished => Vec::new(),
    }
}
