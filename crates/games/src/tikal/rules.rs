//! `setup`, `decide` and `legal_actions`: every rule check lives here, shared by both.

use rand::seq::SliceRandom;
use rand::RngCore;

use super::action::{PieceKind, TikalAction};
use super::codes::TikalRule;
use super::data::{data, opposite, Terrain, TileDef, EDGES};
use super::event::TikalEvent;
use super::state::{
    Phase, TikalState, COST_CAMP, COST_ENTER, COST_EXCHANGE, COST_GUARD, COST_RECOVER,
    COST_UNCOVER, MAX_GUARDS, MAX_TEMPLE_VALUE, PER_HEX_TURN_LIMIT, UNREACHABLE,
};
use super::Tikal;
use crate::engine::Engine;
use crate::engine::{Outcome, RuleCode, RuleError, Seat, SharedRule};
use crate::kit::hex::rotate_edges;
use crate::kit::ranking::competition_places;
use crate::kit::seats::{check_player_count, clockwise_from, next_clockwise};
use crate::kit::Emitter;

type Checked<T> = Result<T, RuleError>;

fn err<T>(code: impl RuleCode, message: impl Into<String>) -> Checked<T> {
    Err(RuleError::new(code, message))
}

pub fn setup(
    auction: bool,
    seats: u8,
    rules_version: u32,
    seed_commitment: Option<&str>,
    rng: &mut dyn RngCore,
) -> Checked<Vec<TikalEvent>> {
    check_player_count(Tikal::NAME, Tikal::player_counts(), seats)?;
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

    let mut emitter = Emitter::<Tikal>::new(&TikalState::new(auction, seats, rules_version));
    emitter.emit(TikalEvent::GameSetUp {
        seats,
        auction,
        tile_order: Some(tile_order),
        treasure_order: Some(treasure_order),
        seed_commitment: seed_commitment.map(str::to_owned),
    });
    next_turn(&mut emitter, seats - 1);
    Ok(emitter.into_events())
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
    let places = competition_places(&scores);
    Outcome { scores, places }
}

// ----- turn sequence -------------------------------------------------------------------

/// What follows the normal turn of `after` (or the setup, with `after` = last seat).
fn next_turn(e: &mut Emitter<Tikal>, after: Seat) {
    let state = e.state();
    if !state.auction {
        match state.draw_pile.first().cloned() {
            Some(tile) => {
                let seat = next_clockwise(after, state.seats);
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
        let opener = next_clockwise(after, state.seats);
        e.emit(TikalEvent::TilesRevealed { tiles });
        e.emit(TikalEvent::BiddingOpened { opener });
    } else {
        start_final_round(e, after);
    }
}

/// Auction variant: `seat` gets the turn for `price`; with one hex left it takes it.
fn award_turn(e: &mut Emitter<Tikal>, seat: Seat, price: u32) {
    e.emit(TikalEvent::AuctionWon { seat, price });
    if let [tile] = &e.state().revealed[..] {
        let tile = tile.clone();
        choose(e, seat, tile);
    }
}

fn choose(e: &mut Emitter<Tikal>, seat: Seat, tile: String) {
    let volcano = is_volcano(&tile);
    e.emit(TikalEvent::TileChosen { seat, tile });
    if volcano {
        start_scoring_round(e, seat);
    }
}

fn start_scoring_round(e: &mut Emitter<Tikal>, trigger: Seat) {
    let order: Vec<Seat> = clockwise_from(trigger, e.state().seats).collect();
    e.emit(TikalEvent::ScoringRoundStarted {
        number: e.state().scorings_completed + 1,
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
fn start_final_round(e: &mut Emitter<Tikal>, after: Seat) {
    let state = e.state();
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
    let mut e = Emitter::<Tikal>::new(state);
    e.emit(TikalEvent::TurnEnded {
        seat,
        action_points_unused: state.action_points_left,
    });
    if !scoring {
        next_turn(&mut e, seat);
        return e.into_events();
    }
    e.emit(TikalEvent::PlayerScored {
        seat,
        temple_points: e.state().temple_points(seat),
        treasure_points: e.state().treasure_points(seat),
    });
    if let Some(&next) = e.state().scoring_queue.first() {
        e.emit(TikalEvent::TurnStarted {
            seat: next,
            scoring: true,
        });
    } else {
        let final_round = e.state().final_round;
        e.emit(TikalEvent::ScoringRoundCompleted {
            number: e.state().scorings_completed + 1,
        });
        if final_round {
            let standing = final_standing(e.state());
            e.emit(TikalEvent::GameFinished {
                scores: standing.scores,
                places: standing.places,
            });
        }
    }
    e.into_events()
}

// ----- checks shared by decide and legal_actions ---------------------------------------

fn is_volcano(tile: &str) -> bool {
    data()
        .tile(tile)
        .is_some_and(|t| t.terrain == Terrain::Volcano)
}

fn space_named(name: &str) -> Checked<u8> {
    match data().parse_space(name) {
        Some(space) => Ok(space),
        None => err(
            SharedRule::UnknownSpace,
            format!("{name:?} is not a space of the board (columns A-H, rows 1-5)"),
        ),
    }
}

fn explored(state: &TikalState, name: &str) -> Checked<u8> {
    let space = space_named(name)?;
    if state.hex(space).is_none() {
        return err(TikalRule::NotExplored, format!("{name} has no hex yet"));
    }
    Ok(space)
}

fn pay(state: &TikalState, cost: u8) -> Checked<()> {
    if state.action_points_left < cost {
        return err(
            SharedRule::NotEnoughActionPoints,
            format!("this costs {cost} AP, {} left", state.action_points_left),
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
            if touches_with_stones(state, space, &rotate_edges(tile.stones, rotation)) {
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
            TikalRule::NotAnEntry,
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
            TikalRule::NoneInSupply,
            format!("you have no {} left in your supply", piece.name()),
        );
    }
    pay(state, COST_ENTER)
}

/// New top value of the temple at `space`.
fn check_uncover(state: &TikalState, seat: Seat, space: u8) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err(TikalRule::NotExplored, "that space has no hex yet");
    };
    if hex.terrain != Terrain::Temple {
        return err(TikalRule::NotATemple, "only temples can be uncovered");
    }
    if hex.guard.is_some() {
        return err(
            TikalRule::TempleGuarded,
            "a guarded temple cannot be uncovered",
        );
    }
    let own = state.pieces_at(space, seat).count();
    if own == 0 {
        return err(TikalRule::NoPiece, "you need a figure on the temple");
    }
    let done = TikalState::turn_count(&state.uncovered_this_turn, space);
    if done >= PER_HEX_TURN_LIMIT {
        return err(
            TikalRule::UncoverLimit,
            "at most 2 levels per temple can be uncovered in one turn",
        );
    }
    if done >= own {
        return err(
            TikalRule::NeedsMorePieces,
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
            TikalRule::NoTempleTile,
            format!("no temple tile numbered {next} is left"),
        );
    }
    pay(state, COST_UNCOVER)?;
    Ok(next)
}

/// Kind of the token that would be taken.
fn check_recover(state: &TikalState, seat: Seat, space: u8) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err(TikalRule::NotExplored, "that space has no hex yet");
    };
    if hex.terrain != Terrain::Treasure {
        return err(
            TikalRule::NotATreasureSite,
            "treasures lie only on treasure hexes",
        );
    }
    let Some(top) = hex.tokens.first() else {
        return err(TikalRule::NoTreasureLeft, "no treasure is left on this hex");
    };
    let own = state.pieces_at(space, seat).count();
    if own == 0 {
        return err(TikalRule::NoPiece, "you need a figure on the treasure hex");
    }
    let done = TikalState::turn_count(&state.recovered_this_turn, space);
    if done >= PER_HEX_TURN_LIMIT {
        return err(
            TikalRule::RecoverLimit,
            "at most 2 treasures per hex can be recovered in one turn",
        );
    }
    if done >= own {
        return err(
            TikalRule::NeedsMorePieces,
            "each treasure recovered this turn needs one of your figures on the hex",
        );
    }
    pay(state, COST_RECOVER)?;
    Ok(data().treasure_kind_of(top).unwrap_or(0))
}

fn check_exchange(state: &TikalState, seat: Seat, with: Seat, take: u8, give: u8) -> Checked<()> {
    if with >= state.seats || with == seat {
        return err(
            SharedRule::NoSuchSeat,
            "exchange with another seat of this game",
        );
    }
    let kinds = data().treasure_kinds() as u8;
    if !(1..=kinds).contains(&take) || !(1..=kinds).contains(&give) {
        return err(
            TikalRule::InvalidKind,
            format!("treasure kinds are numbered 1 to {kinds}"),
        );
    }
    if take == give {
        return err(
            TikalRule::SameKind,
            "exchanging a treasure for one of its own kind changes nothing",
        );
    }
    let theirs = state.players[with as usize].treasures[take as usize - 1];
    let mine = state.players[seat as usize].treasures[give as usize - 1];
    if theirs == 0 || mine == 0 {
        return err(
            TikalRule::NoSuchTreasure,
            "both treasures of an exchange must be held by their owners",
        );
    }
    if theirs > 1 || mine > 1 {
        return err(
            TikalRule::CannotSplitSet,
            "pairs and triplets cannot be split by an exchange",
        );
    }
    pay(state, COST_EXCHANGE)
}

fn check_camp(state: &TikalState, seat: Seat, space: u8) -> Checked<()> {
    let Some(hex) = state.hex(space) else {
        return err(TikalRule::NotExplored, "that space has no hex yet");
    };
    match hex.terrain {
        Terrain::Jungle => {}
        Terrain::Treasure if hex.tokens.is_empty() => {}
        Terrain::Treasure => {
            return err(
                TikalRule::TreasureLeft,
                "a camp needs a treasure hex without treasures",
            )
        }
        _ => {
            return err(
                TikalRule::CampNotAllowed,
                "camps are built on jungle or emptied treasure hexes",
            )
        }
    }
    if hex.camp.is_some() {
        return err(TikalRule::CampExists, "this hex already has a camp");
    }
    if state.players[seat as usize].camps_built >= data().camps {
        return err(TikalRule::NoCampsLeft, "you have built all your camps");
    }
    pay(state, COST_CAMP)
}

/// Number of other own figures that leave the game.
fn check_guard(state: &TikalState, seat: Seat, space: u8, piece: PieceKind) -> Checked<u8> {
    let Some(hex) = state.hex(space) else {
        return err(TikalRule::NotExplored, "that space has no hex yet");
    };
    if hex.terrain != Terrain::Temple {
        return err(TikalRule::NotATemple, "only temples can be guarded");
    }
    if hex.guard.is_some() {
        return err(TikalRule::AlreadyGuarded, "this temple already has a guard");
    }
    if state.players[seat as usize].guards_placed >= MAX_GUARDS {
        return err(
            TikalRule::NoGuardsLeft,
            "you have already guarded 2 temples",
        );
    }
    if state.majority_holder(space) != Some(seat) {
        return err(
            TikalRule::NoMajority,
            "a guard needs the strict majority on the temple",
        );
    }
    let own = state.pieces_at(space, seat);
    if !own.has(piece) {
        return err(
            TikalRule::NoPiece,
            format!("you have no {} on this temple", piece.name()),
        );
    }
    pay(state, COST_GUARD)?;
    Ok(own.count() - 1)
}

// ----- decide ---------------------------------------------------------------------------

pub fn decide(state: &TikalState, seat: Seat, action: &TikalAction) -> Checked<Vec<TikalEvent>> {
    match state.phase {
        Phase::Finished => return err(SharedRule::GameOver, "the game is over"),
        Phase::NotStarted => return err(SharedRule::WrongPhase, "the game has not been set up"),
        _ => {}
    }
    if !to_act(state).contains(&seat) {
        return err(SharedRule::NotYourTurn, "it is not your turn");
    }
    match (action, state.phase) {
        (TikalAction::PlaceTile { space, rotation }, Phase::Placing { .. }) => {
            decide_place_tile(state, seat, space, *rotation)
        }
        (TikalAction::ChooseTile { tile }, Phase::Choosing { .. }) => {
            decide_choose_tile(state, seat, tile)
        }
        (TikalAction::Bid { amount }, Phase::Bidding) => decide_bid(state, seat, *amount),
        (TikalAction::Pass, Phase::Bidding) => Ok(decide_pass(state, seat)),
        (TikalAction::Enter { space, piece }, Phase::Acting { .. }) => {
            decide_enter(state, seat, space, *piece)
        }
        (
            TikalAction::Move {
                from,
                to,
                piece,
                cost,
            },
            Phase::Acting { .. },
        ) => decide_move(state, seat, from, to, *piece, *cost),
        (TikalAction::Uncover { space }, Phase::Acting { .. }) => {
            let at = space_named(space)?;
            let value = check_uncover(state, seat, at)?;
            Ok(vec![TikalEvent::TempleUncovered {
                seat,
                space: data().space_name(at),
                value,
            }])
        }
        (TikalAction::Recover { space }, Phase::Acting { .. }) => {
            let at = space_named(space)?;
            let kind = check_recover(state, seat, at)?;
            Ok(vec![TikalEvent::TreasureRecovered {
                seat,
                space: data().space_name(at),
                kind,
            }])
        }
        (TikalAction::Exchange { target, take, give }, Phase::Acting { .. }) => {
            check_exchange(state, seat, *target, *take, *give)?;
            Ok(vec![TikalEvent::TreasureExchanged {
                seat,
                target: *target,
                took: *take,
                gave: *give,
            }])
        }
        (TikalAction::BuildCamp { space }, Phase::Acting { .. }) => {
            let at = space_named(space)?;
            check_camp(state, seat, at)?;
            Ok(vec![TikalEvent::CampBuilt {
                seat,
                space: data().space_name(at),
            }])
        }
        (TikalAction::PlaceGuard { space, piece }, Phase::Acting { .. }) => {
            let at = space_named(space)?;
            let removed = check_guard(state, seat, at, *piece)?;
            Ok(vec![TikalEvent::GuardPlaced {
                seat,
                space: data().space_name(at),
                piece: *piece,
                removed,
            }])
        }
        (TikalAction::EndTurn, Phase::Acting { scoring, .. }) => Ok(end_turn(state, seat, scoring)),
        _ => err(SharedRule::WrongPhase, what_now(state.phase)),
    }
}

/// What the phase expects, for a refusal of anything else.
fn what_now(phase: Phase) -> &'static str {
    match phase {
        Phase::Placing { .. } => "lay the hex in hand first",
        Phase::Acting { .. } => "spend action points or end your turn",
        Phase::Bidding => "bid or pass",
        Phase::Choosing { .. } => "choose one of the revealed hexes",
        Phase::NotStarted | Phase::Finished => "nothing can be done now",
    }
}

fn decide_place_tile(
    state: &TikalState,
    seat: Seat,
    space: &str,
    rotation: u8,
) -> Checked<Vec<TikalEvent>> {
    let data = data();
    let target = space_named(space)?;
    if state.hex(target).is_some() {
        return err(
            SharedRule::SpaceOccupied,
            format!("{space} already has a hex"),
        );
    }
    let Some(tile) = state.hand.as_deref().and_then(|id| data.tile(id)) else {
        return err(SharedRule::WrongPhase, "there is no hex to lay");
    };
    if rotation as usize >= EDGES || (tile.terrain == Terrain::Volcano && rotation != 0) {
        return err(
            SharedRule::InvalidRotation,
            "rotation is 0-5 sixth-turns (always 0 for a volcano)",
        );
    }
    if !placements(state, tile).contains(&(target, rotation)) {
        return err(
            TikalRule::NotConnected,
            "the hex must touch the explored area with a stone on a shared edge",
        );
    }
    Ok(vec![
        TikalEvent::TilePlaced {
            seat,
            tile: tile.id.clone(),
            space: data.space_name(target),
            rotation,
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

fn decide_choose_tile(state: &TikalState, seat: Seat, tile: &str) -> Checked<Vec<TikalEvent>> {
    if !state.revealed.iter().any(|revealed| revealed == tile) {
        return err(TikalRule::UnknownTile, "choose one of the revealed hexes");
    }
    let mut e = Emitter::<Tikal>::new(state);
    choose(&mut e, seat, tile.to_owned());
    Ok(e.into_events())
}

fn decide_bid(state: &TikalState, seat: Seat, amount: u32) -> Checked<Vec<TikalEvent>> {
    let high = state.bidding.as_ref().and_then(|b| b.high);
    if amount == 0 || high.is_some_and(|h| amount <= h.amount) {
        return err(
            SharedRule::BidTooLow,
            "a bid must be at least 1 and beat the highest bid",
        );
    }
    if i64::from(amount) > i64::from(state.players[seat as usize].score) {
        return err(
            TikalRule::BidExceedsScore,
            "a bid may not exceed your score",
        );
    }
    let mut e = Emitter::<Tikal>::new(state);
    e.emit(TikalEvent::BidPlaced { seat, amount });
    if e.state().active_bidders() == [seat] {
        award_turn(&mut e, seat, amount);
    }
    Ok(e.into_events())
}

fn decide_pass(state: &TikalState, seat: Seat) -> Vec<TikalEvent> {
    let mut e = Emitter::<Tikal>::new(state);
    e.emit(TikalEvent::Passed { seat });
    let active = e.state().active_bidders();
    let (high, first_passer) = match &e.state().bidding {
        Some(b) => (b.high, b.passed.first().copied().unwrap_or(seat)),
        None => (None, seat),
    };
    match high {
        Some(high) if active == [high.seat] => award_turn(&mut e, high.seat, high.amount),
        None if active.is_empty() => award_turn(&mut e, first_passer, 0),
        _ => {}
    }
    e.into_events()
}

fn decide_enter(
    state: &TikalState,
    seat: Seat,
    space: &str,
    piece: PieceKind,
) -> Checked<Vec<TikalEvent>> {
    let target = explored(state, space)?;
    check_enter(state, seat, target, piece)?;
    Ok(vec![TikalEvent::PieceEntered {
        seat,
        space: data().space_name(target),
        piece,
    }])
}

fn decide_move(
    state: &TikalState,
    seat: Seat,
    from: &str,
    to: &str,
    piece: PieceKind,
    cost: Option<u8>,
) -> Checked<Vec<TikalEvent>> {
    let start = space_named(from)?;
    let goal = space_named(to)?;
    if start == goal {
        return err(
            SharedRule::SameSpace,
            "a move needs a different destination",
        );
    }
    if !state.pieces_at(start, seat).has(piece) {
        return err(
            TikalRule::NoPiece,
            format!("you have no {} on {from}", piece.name()),
        );
    }
    if state.hex(goal).is_none_or(|h| !h.enterable()) {
        return err(SharedRule::NoPath, format!("{to} cannot be entered"));
    }
    let needed = state.distances(seat, start, state.action_points_left)[goal as usize];
    if needed == UNREACHABLE {
        let any = state.distances(seat, start, u8::MAX - 1)[goal as usize];
        return if any == UNREACHABLE {
            err(
                SharedRule::NoPath,
                format!("no way of stones leads from {from} to {to}"),
            )
        } else {
            err(
                SharedRule::NotEnoughActionPoints,
                format!("the way costs {any} AP, {} left", state.action_points_left),
            )
        };
    }
    if cost.is_some_and(|c| c != needed) {
        return err(
            SharedRule::CostMismatch,
            format!("the cheapest way costs {needed} AP"),
        );
    }
    Ok(vec![TikalEvent::PieceMoved {
        seat,
        from: data().space_name(start),
        to: data().space_name(goal),
        piece,
        cost: needed,
    }])
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
                        space: data.space_name(space),
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
    actions.push(TikalAction::EndTurn);
    entering_actions(state, seat, actions);
    for space in 0..state.board.len() as u8 {
        moving_actions(state, seat, space, actions);
        site_actions(state, seat, space, actions);
    }
    exchange_actions(state, seat, actions);
}

fn entering_actions(state: &TikalState, seat: Seat, actions: &mut Vec<TikalAction>) {
    if state.action_points_left < COST_ENTER {
        return;
    }
    for space in state.entry_spaces(seat) {
        for piece in [PieceKind::Worker, PieceKind::Leader] {
            if check_enter(state, seat, space, piece).is_ok() {
                actions.push(TikalAction::Enter {
                    space: data().space_name(space),
                    piece,
                });
            }
        }
    }
}

/// Every cheapest move of a figure of `seat` away from `space`.
fn moving_actions(state: &TikalState, seat: Seat, space: u8, actions: &mut Vec<TikalAction>) {
    let ap = state.action_points_left;
    let own = state.pieces_at(space, seat);
    if state.hex(space).is_none() || own.count() == 0 || ap == 0 {
        return;
    }
    let data = data();
    let from = data.space_name(space);
    for (goal, &cost) in state.distances(seat, space, ap).iter().enumerate() {
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

/// Uncovering, guarding, recovering and camp building at `space`.
fn site_actions(state: &TikalState, seat: Seat, space: u8, actions: &mut Vec<TikalAction>) {
    let Some(hex) = state.hex(space) else {
        return;
    };
    let data = data();
    let name = || data.space_name(space);
    let player = &state.players[seat as usize];
    let own = state.pieces_at(space, seat);
    match hex.terrain {
        Terrain::Temple if own.count() > 0 => {
            if check_uncover(state, seat, space).is_ok() {
                actions.push(TikalAction::Uncover { space: name() });
            }
            let may_guard = state.action_points_left >= COST_GUARD
                && hex.guard.is_none()
                && player.guards_placed < MAX_GUARDS;
            for piece in [PieceKind::Worker, PieceKind::Leader] {
                if may_guard && own.has(piece) && check_guard(state, seat, space, piece).is_ok() {
                    actions.push(TikalAction::PlaceGuard {
                        space: name(),
                        piece,
                    });
                }
            }
        }
        Terrain::Treasure
            if own.count() > 0
                && !hex.tokens.is_empty()
                && check_recover(state, seat, space).is_ok() =>
        {
            actions.push(TikalAction::Recover { space: name() });
        }
        _ => {}
    }
    if state.action_points_left >= COST_CAMP
        && player.camps_built < data.camps
        && hex.camp.is_none()
        && check_camp(state, seat, space).is_ok()
    {
        actions.push(TikalAction::BuildCamp { space: name() });
    }
}

fn exchange_actions(state: &TikalState, seat: Seat, actions: &mut Vec<TikalAction>) {
    if state.action_points_left < COST_EXCHANGE {
        return;
    }
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
    for target in (0..state.seats).filter(|&s| s != seat && !mine.is_empty()) {
        for take in singles(target) {
            for &give in mine.iter().filter(|&&g| g != take) {
                actions.push(TikalAction::Exchange { target, take, give });
            }
        }
    }
}
