//! Scoring rounds: one begun by a volcano, clockwise from the seat that drew or chose it,
//! and the final round once the hexes run out.

use crate::engine::Seat;
use crate::kit::seats::clockwise_from;
use crate::kit::Emitter;
use crate::tikal::event::TikalEvent;
use crate::tikal::Tikal;

pub(crate) fn start_scoring_round(e: &mut Emitter<Tikal>, trigger: Seat) {
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
pub(crate) fn start_final_round(e: &mut Emitter<Tikal>, after: Seat) {
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
