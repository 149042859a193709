//! The auction variant: bidding for the turn, passing, and choosing one of the revealed
//! hexes (a volcano begins a scoring round).

use super::checks::{err, is_volcano, Checked};
use super::scoring_rounds::start_scoring_round;
use crate::engine::{Seat, SharedRule};
use crate::kit::Emitter;
use crate::tikal::codes::TikalRule;
use crate::tikal::event::TikalEvent;
use crate::tikal::state::TikalState;
use crate::tikal::Tikal;

/// Auction variant: `seat` gets the turn for `price`; with one hex left it takes it.
pub(crate) fn award_turn(e: &mut Emitter<Tikal>, seat: Seat, price: u32) {
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

pub(crate) fn decide_choose_tile(
    state: &TikalState,
    seat: Seat,
    tile: &str,
) -> Checked<Vec<TikalEvent>> {
    if !state.revealed.iter().any(|revealed| revealed == tile) {
        return err(TikalRule::UnknownTile, "choose one of the revealed hexes");
    }
    let mut e = Emitter::<Tikal>::new(state);
    choose(&mut e, seat, tile.to_owned());
    Ok(e.into_events())
}

pub(crate) fn decide_bid(state: &TikalState, seat: Seat, amount: u32) -> Checked<Vec<TikalEvent>> {
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

pub(crate) fn decide_pass(state: &TikalState, seat: Seat) -> Vec<TikalEvent> {
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
