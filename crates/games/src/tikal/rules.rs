//! `setup`, `decide` and `legal_actions`: every rule check lives here, shared by both.

use rand::seq::SliceRandom;
use rand::RngCore;

use super::action::{PieceKind, TikalAction};
use super::data::{data, opposite, rotated, Terrain, TileDef, EDGES};
use super::event::TikalEvent;
use super::state::{
    evolve, Phase, TikalState, MAX_GUARDS, MAX_TEMPLE_VALUE, PER_HEX_TURN_LIMIT, UNREACHABLE,
};
use crate::engine::{Outcome, RuleError, Seat};

pub const COST_ENTER: u8 = 1;
pub const COST_UNCOVER: u8 = 2;
pub const COST_RECOVER: u8 = 3;
pub const COST_EXCHANGE: u8 = 3;
pub const COST_CAMP: u8 = 5;
pub const COST_GUARD: u8 = 5;

type Checked<T> = Result<T, RuleError>;

fn err<T>(code: &'static str, message: impl Into<String>) -> Checked<T> {
    Err(RuleError::legacy(code, message))
}

/// Collects events while folding them into a working copy, for actions whose later
/// events depend on the state the earlier ones produce.
struct Emitter {
    state: TikalState,
    events: Vec<TikalEvent>,
}

impl Emitter {
    fn new(state: &TikalState) -> Emitter {
        Emitter {
            state: state.clone(),
            events: Vec::new(),
        }
    }

    fn emit(&mut self, event: TikalEvent) {
        evolve(&mut self.state, &event);
        self.events.push(event);
    }
}

pub fn setup(auction: bool, seats: u8, rng: &mut dyn RngCore) -> Checked<Vec<TikalEvent>> {
    if !(2..=4).contains(&seats) {
        return err(
            "unsupported_player_count",
            format!("Tikal is played by 2 to 4 players, not {seats}"),
        );
    }
    let data = data();
    let mut letters: Vec<char> = data.tiles.iter().map(|t| t.stack).collect();
    letters.sort_unstable();
    letters.dedup();
    let mut tile_order = Vec::with_capacity(data.tiles.len());
    for letter in letters {
        let mut stack: Vec<String> = data
            .tiles
            .iter()
            .filter(|t| t.stack == letter)
            .map(|t| t.id.clone())
            .collect();
        stack.shuffle(rng);
        tile_order.extend(stack);
    }
    let mut treasure_order = data.treasure_ids();
    treasure_order.shuffle(rng);

    let mut emitter = Emitter::new(&TikalState::new(auction, seats));
    emitter.emit(TikalEvent::GameSetUp {
        seats,
        auction,
        tile_order: Some(tile_order),
        treasure_order: Some(treasure_order),
    });
    next_turn(&mut emitter, seats - 1);
    Ok(emitter.events)
}

pub fn to_act(state: &TikalState) -> Vec<Seat> {
    match state.phase {
        Phase::Placing { seat } | Phase::Acting { seat, .. } | Phase::Choosing { seat } => {
            vec![seat]
        }
        Phase::Bidding => state
            .bidding
            .as_ref()
            .map(|b| b.current)
            .into_iter()
            .collect(),
        Phase::NotStarted | Phase::Finished => Vec::new(),
    }
}

pub fn outcome(state: &TikalState) -> Option<Outcome> {
    state.is_finished().then(|| final_standing(state))
}

fn final_standing(state: &TikalState) -> Outcome {
    let scores: Vec<i32> = state.players.iter().map(|p| p.score).collect();
    let places = scores
        .iter()
        .map(|&mine| 1 + scores.iter().filter(|&&other| other > mine).count() as u8)
        .collect();
    Outcome { scores, places }
}

// ----- turn sequence -------------------------------------------------------------------

/// What follows the normal turn of `after` (or the setup, with `after` = last seat).
fn next_turn(e: &mut Emitter, after: Seat) {
    let state = &e.state;
    if !state.auction {
        match state.draw_pile.first().cloned() {
            Some(tile) => {
                let seat = state.next_seat(after);
                let volcano = is_volcano(&tile);
                e.emit(TikalEvent::TileDrawn { seat, tile });
                if volcano {
                    start_scoring_round(e, seat);
                }
            }
            None => start_final_round(e, after),
        }
        return;
    }
    if !state.revealed.is_empty() {
        let eligible: Vec<Seat> = (0..state.seats).filter(|&s| state.eligible(s)).collect();
        if let [only] = eligible[..] {
            award_turn(e, only, 0);
        } else {
            let opener = state
                .next_matching(after, |s| eligible.contains(&s))
                .unwrap_or(after);
            e.emit(TikalEvent::BiddingOpened { opener });
        }
    } else if !state.draw_pile.is_empty() {
        let count = (state.seats as usize).min(state.draw_pile.len());
        let tiles = state.draw_pile[..count].to_vec();
        let opener = state.next_seat(after);
        e.emit(TikalEvent::TilesRevealed { tiles });
        e.emit(TikalEvent::BiddingOpened { opener });
    } else {
        start_final_round(e, after);
    }
}

/// Auction variant: `seat` gets the turn for `price`; with one hex left it takes it.
fn award_turn(e: &mut Emitter, seat: Seat, price: u32) {
    e.emit(TikalEvent::AuctionWon { seat, price });
    if let [tile] = &e.state.revealed[..] {
        let tile = tile.clone();
        choose(e, seat, tile);
    }
}

fn choose(e: &mut Emitter, seat: Seat, tile: String) {
    let volcano = is_volcano(&tile);
    e.emit(TikalEvent::TileChosen { seat, tile });
    if volcano {
        start_scoring_round(e, seat);
    }
}

fn start_scoring_round(e: &mut Emitter, trigger: Seat) {
    let order: Vec<Seat> = (0..e.state.seats)
        .map(|step| (trigger + step) % e.state.seats)
        .collect();
    e.emit(TikalEvent::ScoringRoundStarted {
        number: e.state.scorings_completed + 1,
        trigger: Some(trigger),
        order,
    });
    e.emit(TikalEvent::TurnStarted {
        seat: trigger,
        scoring: true,
    });
}

/// Final round: basic game clockwise from the left neighbour of the last hex's layer;
/// auction variant lowest score first, ties broken the same clockwise way.
fn start_final_round(e: &mut Emitter, after: Seat) {
    let state = &e.state;
    let seats = state.seats;
    let last = state.last_placer.unwrap_or(after);
    let distance = |seat: Seat| (seat + seats - last - 1) % seats;
    let mut order: Vec<Seat> = (0..seats).collect();
    if state.auction {
        order.sort_by_key(|&s| (state.players[s as usize].score, distance(s)));
    } else {
        order.sort_by_key(|&s| distance(s));
    }
    let first = order[0];
    e.emit(TikalEvent::ScoringRoundStarted {
        number: state.scorings_completed + 1,
        trigger: None,
        order,
    });
    e.emit(TikalEvent::TurnStarted {
        seat: first,
        scoring: true,
    });
}

fn end_turn(state: &TikalState, seat: Seat, scoring: bool) -> Vec<TikalEvent> {
    let mut e = Emitter::new(state);
    e.emit(TikalEvent::TurnEnded {
        seat,
        ap_unused: state.ap_left,
    });
    if !scoring {
        next_turn(&mut e, seat);
        return e.events;
    }
    e.emit(TikalEvent::PlayerScored {
        seat,
        temple_points: e.state.temple_points(seat),
        treasure_points: e.state.treasure_points(seat),
    });
    if let Some(&next) = e.state.scoring_queue.first() {
        e.emit(TikalEvent::TurnStarted {
            seat: next,
            scoring: true,
        });
    } else {
        let final_round = e.state.final_round;
        e.emit(TikalEvent::ScoringRoundCompleted {
            number: e.state.scorings_completed + 1,
        });
        if final_round {
            let standing = final_standing(&e.state);
            e.emit(TikalEvent::GameFinished {
                scores: standing.scores,
                places: standing.places,
            });
        }
    }
    e.events
}

// ----- checks shared by decide and legal_actions ---------------------------------------

fn is_volcano(tile: &str) -> bool {
    data()
        .tile(tile)
        .is_some_and(|t| t.terrain == Terrain::Volcano)
}

fn space(name: &str) -> Checked<u8> {
    match data().parse_space(name) {
        Some(space) => Ok(space),
        None => err(
            "unknown_hex",
            format!("{name:?} is not a space of the board (columns A-H, rows 1-5)"),
        ),
    }
}

fn explored(state: &TikalState, name: &str) -> Checked<u8> {
    let space = space(name)?;
    if state.hex(space).is_none() {
        return err("not_explored", format!("{name} has no hex yet"));
    }
    Ok(space)
}

fn pay(state: &TikalState, cost: u8) -> Checked<()> {
    if state.ap_left < cost {
        return err(
            "not_enough_action_points",
            format!("this costs {cost} AP, {} left", state.ap_left),
        );
    }
    Ok(())
}

fn touches_with_stones(state: &TikalState, space: u8, stones: &[u8; EDGES]) -> bool {
    data().neighbours[space as usize]
        .iter()
        .enumerate()
        .any(|(direction, next)| {
            next.and_then(|n| state.hex(n)).is_some_and(|hex| {
                hex.enterable() && stones[direction] + hex.stones[opposite(direction)] > 0
            })
        })
}

fn touches(state: &TikalState, space: u8) -> bool {
    data().neighbours[space as usize]
        .iter()
        .any(|next| next.and_then(|n| state.hex(n)).is_some())
}

/// Every (space, rotation) where `tile` may be laid. A volcano only has rotation 0 and
/// only needs to touch; other hexes need a stone on a shared edge with an enterable hex.
/// Should no such spot exist, any empty space touching the explored area is allowed.
pub fn placements(state: &TikalState, tile: &TileDef) -> Vec<(u8, u8)> {
    let volcano = tile.terrain == Terrain::Volcano;
    let rotations = if volcano { 1 } else { EDGES as u8 };
    let empty: Vec<u8> = (0..state.board.len() as u8)
        .filter(|&s| state.hex(s).is_none())
        .collect();
    let mut spots = Vec::new();
    for &space in &empty {
        if volcano {
            if touches(state, space) {
                spots.push((space, 0));
            }
            continue;
        }
        for rotation in 0..rotations {
            if touches_with_stones(state, space, &rotated(tile.stones, rotation)) {
                spots.push((space, rotation));
            }
        }
    }
    if spots.is_empty() {
        for &space in &empty {
            if touches(state, space) {
                spots.extend((0..rotations).map(|rotation| (space, rotation)));
            }
        }
    }
    spots
}

fn check_enter(state: &TikalState, seat: Seat, space: u8, piece: PieceKind) -> Checked<()> {
    if !state.entry_spaces(seat).contains(&space) {
        return err(
            "not_an_entry",
            "figures enter only at the base camp or your own camps",
        );
    }
    let player = &state.players[seat as usize];
    let available = match piece {
        PieceKind::Worker => player.workers_in_supply > 0,
        PieceKind::Leader => player.leader_in_supply,
    };
    if !available {
        return err(
            "none_in_supply",
            format!("you have no {} left in your supply", piece.name()),
        );
    }
    pay(state, COST_ENTER)
}

/// New top value of the temple at `space`.
fn check_uncover(state: &TikalState, seat: Seat, space: u8) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err("not_explored", "that space has no hex yet");
    };
    if hex.terrain != Terrain::Temple {
        return err("not_a_temple", "only temples can be uncovered");
    }
    if hex.guard.is_some() {
        return err("temple_guarded", "a guarded temple cannot be uncovered");
    }
    let own = state.pieces_at(space, seat).count();
    if own == 0 {
        return err("no_piece", "you need a figure on the temple");
    }
    let done = TikalState::turn_count(&state.uncovered_this_turn, space);
    if done >= PER_HEX_TURN_LIMIT {
        return err(
            "uncover_limit",
            "at most 2 levels per temple can be uncovered in one turn",
        );
    }
    if done >= own {
        return err(
            "needs_more_pieces",
            "each level uncovered this turn needs one of your figures on the temple",
        );
    }
    let next = hex.temple_value + 1;
    if next > MAX_TEMPLE_VALUE
        || state
            .temple_supply
            .get(next as usize)
            .is_none_or(|&n| n == 0)
    {
        return err(
            "no_temple_tile",
            format!("no temple tile numbered {next} is left"),
        );
    }
    pay(state, COST_UNCOVER)?;
    Ok(next)
}

/// Kind of the token that would be taken.
fn check_recover(state: &TikalState, seat: Seat, space: u8) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err("not_explored", "that space has no hex yet");
    };
    if hex.terrain != Terrain::Treasure {
        return err(
            "not_a_treasure_site",
            "treasures lie only on treasure hexes",
        );
    }
    let Some(top) = hex.tokens.first() else {
        return err("no_treasure_left", "no treasure is left on this hex");
    };
    let own = state.pieces_at(space, seat).count();
    if own == 0 {
        return err("no_piece", "you need a figure on the treasure hex");
    }
    let done = TikalState::turn_count(&state.recovered_this_turn, space);
    if done >= PER_HEX_TURN_LIMIT {
        return err(
            "recover_limit",
            "at most 2 treasures per hex can be recovered in one turn",
        );
    }
    if done >= own {
        return err(
            "needs_more_pieces",
            "each treasure recovered this turn needs one of your figures on the hex",
        );
    }
    pay(state, COST_RECOVER)?;
    Ok(data().treasure_kind_of(top).unwrap_or(0))
}

fn check_exchange(state: &TikalState, seat: Seat, with: Seat, take: u8, give: u8) -> Checked<()> {
    if with >= state.seats || with == seat {
        return err("invalid_player", "exchange with another seat of this game");
    }
    let kinds = data().treasure_kinds() as u8;
    if !(1..=kinds).contains(&take) || !(1..=kinds).contains(&give) {
        return err(
            "invalid_kind",
            format!("treasure kinds are numbered 1 to {kinds}"),
        );
    }
    if take == give {
        return err(
            "same_kind",
            "exchanging a treasure for one of its own kind changes nothing",
        );
    }
    let theirs = state.players[with as usize].treasures[take as usize - 1];
    let mine = state.players[seat as usize].treasures[give as usize - 1];
    if theirs == 0 || mine == 0 {
        return err(
            "no_such_treasure",
            "both treasures of an exchange must be held by their owners",
        );
    }
    if theirs > 1 || mine > 1 {
        return err(
            "cannot_split_set",
            "pairs and triplets cannot be split by an exchange",
        );
    }
    pay(state, COST_EXCHANGE)
}

fn check_camp(state: &TikalState, seat: Seat, space: u8) -> Checked<()> {
    let Some(hex) = state.hex(space) else {
        return err("not_explored", "that space has no hex yet");
    };
    match hex.terrain {
        Terrain::Jungle => {}
        Terrain::Treasure if hex.tokens.is_empty() => {}
        Terrain::Treasure => {
            return err(
                "treasure_left",
                "a camp needs a treasure hex without treasures",
            )
        }
        _ => {
            return err(
                "camp_not_allowed",
                "camps are built on jungle or emptied treasure hexes",
            )
        }
    }
    if hex.camp.is_some() {
        return err("camp_exists", "this hex already has a camp");
    }
    if state.players[seat as usize].camps_built >= data().camps {
        return err("no_camps_left", "you have built all your camps");
    }
    pay(state, COST_CAMP)
}

/// Number of other own figures that leave the game.
fn check_guard(state: &TikalState, seat: Seat, space: u8, piece: PieceKind) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err("not_explored", "that space has no hex yet");
    };
    if hex.terrain != Terrain::Temple {
        return err("not_a_temple", "only temples can be guarded");
    }
    if hex.guard.is_some() {
        return err("already_guarded", "this temple already has a guard");
    }
    if state.players[seat as usize].guards_placed >= MAX_GUARDS {
        return err("no_guards_left", "you have already guarded 2 temples");
    }
    if state.majority_holder(space) != Some(seat) {
        return err(
            "no_majority",
            "a guard needs the strict majority on the temple",
        );
    }
    let own = state.pieces_at(space, seat);
    if !own.has(piece) {
        return err(
            "no_piece",
            format!("you have no {} on this temple", piece.name()),
        );
    }
    pay(state, COST_GUARD)?;
    Ok(own.count() - 1)
}

// ----- decide ---------------------------------------------------------------------------

pub fn decide(state: &TikalState, seat: Seat, action: &TikalAction) -> Checked<Vec<TikalEvent>> {
    match state.phase {
        Phase::Finished => return err("game_over", "the game is over"),
        Phase::NotStarted => return err("wrong_phase", "the game has not been set up"),
        _ => {}
    }
    if !to_act(state).contains(&seat) {
        return err("not_your_turn", "it is not your turn");
    }
    let data = data();
    match (action, state.phase) {
        (TikalAction::PlaceTile { hex, rotation }, Phase::Placing { .. }) => {
            let target = space(hex)?;
            if state.hex(target).is_some() {
                return err("hex_occupied", format!("{hex} already has a hex"));
            }
            let Some(tile) = state.hand.as_deref().and_then(|id| data.tile(id)) else {
                return err("wrong_phase", "there is no hex to lay");
            };
            if *rotation as usize >= EDGES || (tile.terrain == Terrain::Volcano && *rotation != 0) {
                return err(
                    "invalid_rotation",
                    "rotation is 0-5 sixth-turns (always 0 for a volcano)",
                );
            }
            if !placements(state, tile).contains(&(target, *rotation)) {
                return err(
                    "not_connected",
                    "the hex must touch the explored area with a stone on a shared edge",
                );
            }
            Ok(vec![
                TikalEvent::TilePlaced {
                    seat,
                    tile: tile.id.clone(),
                    hex: data.space_name(target),
                    rotation: *rotation,
                    treasure_tokens: if tile.terrain == Terrain::Treasure {
                        tile.value
                    } else {
                        0
                    },
                },
                TikalEvent::TurnStarted {
                    seat,
                    scoring: false,
                },
            ])
        }
        (TikalAction::ChooseTile { tile }, Phase::Choosing { .. }) => {
            if !state.revealed.contains(tile) {
                return err("unknown_tile", "choose one of the revealed hexes");
            }
            let mut e = Emitter::new(state);
            choose(&mut e, seat, tile.clone());
            Ok(e.events)
        }
        (TikalAction::Bid { amount }, Phase::Bidding) => {
            let high = state.bidding.as_ref().and_then(|b| b.high);
            if *amount == 0 || high.is_some_and(|h| *amount <= h.amount) {
                return err(
                    "bid_too_low",
                    "a bid must be at least 1 and beat the highest bid",
                );
            }
            if *amount as i64 > state.players[seat as usize].score as i64 {
                return err("bid_exceeds_score", "a bid may not exceed your score");
            }
            let mut e = Emitter::new(state);
            e.emit(TikalEvent::BidPlaced {
                seat,
                amount: *amount,
            });
            if e.state.active_bidders() == [seat] {
                award_turn(&mut e, seat, *amount);
            }
            Ok(e.events)
        }
        (TikalAction::Pass, Phase::Bidding) => {
            let mut e = Emitter::new(state);
            e.emit(TikalEvent::BidPassed { seat });
            let active = e.state.active_bidders();
            let (high, first_passer) = match &e.state.bidding {
                Some(b) => (b.high, b.passed.first().copied().unwrap_or(seat)),
                None => (None, seat),
            };
            match high {
                Some(high) if active == [high.seat] => award_turn(&mut e, high.seat, high.amount),
                None if active.is_empty() => award_turn(&mut e, first_passer, 0),
                _ => {}
            }
            Ok(e.events)
        }
        (TikalAction::Enter { hex, piece }, Phase::Acting { .. }) => {
            let target = explored(state, hex)?;
            check_enter(state, seat, target, *piece)?;
            Ok(vec![TikalEvent::PieceEntered {
                seat,
                hex: data.space_name(target),
                piece: *piece,
            }])
        }
        (
            TikalAction::Move {
                from,
                to,
                piece,
                cost,
            },
            Phase::Acting { .. },
        ) => {
            let start = space(from)?;
            let goal = space(to)?;
            if start == goal {
                return err("same_hex", "a move needs a different destination");
            }
            if !state.pieces_at(start, seat).has(*piece) {
                return err(
                    "no_piece",
                    format!("you have no {} on {from}", piece.name()),
                );
            }
            if state.hex(goal).is_none_or(|h| !h.enterable()) {
                return err("no_path", format!("{to} cannot be entered"));
            }
            let needed = state.distances(seat, start, state.ap_left)[goal as usize];
            if needed == UNREACHABLE {
                let any = state.distances(seat, start, u8::MAX - 1)[goal as usize];
                return if any == UNREACHABLE {
                    err(
                        "no_path",
                        format!("no way of stones leads from {from} to {to}"),
                    )
                } else {
                    err(
                        "not_enough_action_points",
                        format!("the way costs {any} AP, {} left", state.ap_left),
                    )
                };
            }
            if cost.is_some_and(|c| c != needed) {
                return err(
                    "cost_mismatch",
                    format!("the cheapest way costs {needed} AP"),
                );
            }
            Ok(vec![TikalEvent::PieceMoved {
                seat,
                from: data.space_name(start),
                to: data.space_name(goal),
                piece: *piece,
                cost: needed,
            }])
        }
        (TikalAction::Uncover { hex }, Phase::Acting { .. }) => {
            let target = space(hex)?;
            let value = check_uncover(state, seat, target)?;
            Ok(vec![TikalEvent::TempleUncovered {
                seat,
                hex: data.space_name(target),
                value,
            }])
        }
        (TikalAction::Recover { hex }, Phase::Acting { .. }) => {
            let target = space(hex)?;
            let kind = check_recover(state, seat, target)?;
            Ok(vec![TikalEvent::TreasureRecovered {
                seat,
                hex: data.space_name(target),
                kind,
            }])
        }
        (TikalAction::Exchange { with, take, give }, Phase::Acting { .. }) => {
            check_exchange(state, seat, *with, *take, *give)?;
            Ok(vec![TikalEvent::TreasureExchanged {
                seat,
                with: *with,
                took: *take,
                gave: *give,
            }])
        }
        (TikalAction::BuildCamp { hex }, Phase::Acting { .. }) => {
            let target = space(hex)?;
            check_camp(state, seat, target)?;
            Ok(vec![TikalEvent::CampBuilt {
                seat,
                hex: data.space_name(target),
            }])
        }
        (TikalAction::PlaceGuard { hex, piece }, Phase::Acting { .. }) => {
            let target = space(hex)?;
            let removed = check_guard(state, seat, target, *piece)?;
            Ok(vec![TikalEvent::GuardPlaced {
                seat,
                hex: data.space_name(target),
                piece: *piece,
                removed,
            }])
        }
        (TikalAction::EndTurn, Phase::Acting { scoring, .. }) => Ok(end_turn(state, seat, scoring)),
        _ => err(
            "wrong_phase",
            match state.phase {
                Phase::Placing { .. } => "lay the hex in hand first",
                Phase::Acting { .. } => "spend action points or end your turn",
                Phase::Bidding => "bid or pass",
                Phase::Choosing { .. } => "choose one of the revealed hexes",
                Phase::NotStarted | Phase::Finished => "nothing can be done now",
            },
        ),
    }
}

// ----- legal actions ---------------------------------------------------------------------

pub fn legal_actions(state: &TikalState, seat: Seat) -> Vec<TikalAction> {
    if !to_act(state).contains(&seat) {
        return Vec::new();
    }
    let data = data();
    let mut actions = Vec::new();
    match state.phase {
        Phase::Placing { .. } => {
            if let Some(tile) = state.hand.as_deref().and_then(|id| data.tile(id)) {
                for (space, rotation) in placements(state, tile) {
                    actions.push(TikalAction::PlaceTile {
                        hex: data.space_name(space),
                        rotation,
                    });
                }
            }
        }
        Phase::Choosing { .. } => {
            for tile in &state.revealed {
                actions.push(TikalAction::ChooseTile { tile: tile.clone() });
            }
        }
        Phase::Bidding => {
            actions.push(TikalAction::Pass);
            let minimum = state
                .bidding
                .as_ref()
                .and_then(|b| b.high)
                .map_or(1, |h| h.amount + 1);
            let score = state.players[seat as usize].score.max(0) as u32;
            for amount in minimum..=score {
                actions.push(TikalAction::Bid { amount });
            }
        }
        Phase::Acting { .. } => acting_actions(state, seat, &mut actions),
        Phase::NotStarted | Phase::Finished => {}
    }
    actions
}

fn acting_actions(state: &TikalState, seat: Seat, actions: &mut Vec<TikalAction>) {
    let data = data();
    let ap = state.ap_left;
    let player = &state.players[seat as usize];
    actions.push(TikalAction::EndTurn);
    if ap >= COST_ENTER {
        for space in state.entry_spaces(seat) {
            for piece in [PieceKind::Worker, PieceKind::Leader] {
                if check_enter(state, seat, space, piece).is_ok() {
                    actions.push(TikalAction::Enter {
                        hex: data.space_name(space),
                        piece,
                    });
                }
            }
        }
    }
    for space in 0..state.board.len() as u8 {
        let Some(hex) = state.hex(space) else {
            continue;
        };
        let own = state.pieces_at(space, seat);
        if own.count() > 0 && ap > 0 {
            let dist = state.distances(seat, space, ap);
            let from = data.space_name(space);
            for (goal, &cost) in dist.iter().enumerate() {
                if cost == 0 || cost == UNREACHABLE {
                    continue;
                }
                for piece in [PieceKind::Worker, PieceKind::Leader] {
                    if own.has(piece) {
                        actions.push(TikalAction::Move {
                            from: from.clone(),
                            to: data.space_name(goal as u8),
                            piece,
                            cost: Some(cost),
                        });
                    }
                }
            }
        }
        match hex.terrain {
            Terrain::Temple if own.count() > 0 => {
                if check_uncover(state, seat, space).is_ok() {
                    actions.push(TikalAction::Uncover {
                        hex: data.space_name(space),
                    });
                }
                if ap >= COST_GUARD && hex.guard.is_none() && player.guards_placed < MAX_GUARDS {
                    for piece in [PieceKind::Worker, PieceKind::Leader] {
                        if own.has(piece) && check_guard(state, seat, space, piece).is_ok() {
                            actions.push(TikalAction::PlaceGuard {
                                hex: data.space_name(space),
                                piece,
                            });
                        }
                    }
                }
            }
            Terrain::Treasure
                if own.count() > 0
                    && !hex.tokens.is_empty()
                    && check_recover(state, seat, space).is_ok() =>
            {
                actions.push(TikalAction::Recover {
                    hex: data.space_name(space),
                });
            }
            _ => {}
        }
        if ap >= COST_CAMP
            && player.camps_built < data.camps
            && hex.camp.is_none()
            && check_camp(state, seat, space).is_ok()
        {
            actions.push(TikalAction::BuildCamp {
                hex: data.space_name(space),
            });
        }
    }
    if ap >= COST_EXCHANGE {
        let singles = |who: Seat| -> Vec<u8> {
            state.players[who as usize]
                .treasures
                .iter()
                .enumerate()
                .filter(|(_, &n)| n == 1)
                .map(|(kind, _)| kind as u8 + 1)
                .collect()
        };
        let mine = singles(seat);
        if !mine.is_empty() {
            for with in (0..state.seats).filter(|&s| s != seat) {
                for take in singles(with) {
                    for &give in mine.iter().filter(|&&g| g != take) {
                        actions.push(TikalAction::Exchange { with, take, give });
                    }
                }
            }
        }
    }
}
