//! The turn sequence: what follows a turn (the next hex drawn, or the turn auctioned), and
//! the end of a turn, which in a scoring round scores its seat and may end the game.

use super::auction::award_turn;
use super::checks::is_volcano;
use super::scoring_rounds::{start_final_round, start_scoring_round};
use crate::engine::Seat;
use crate::kit::seats::next_clockwise;
use crate::kit::Emitter;
use crate::tikal::event::TikalEvent;
use crate::tikal::scoring::final_standing;
use crate::tikal::state::TikalState;
use crate::tikal::Tikal;

/// What follows the normal turn of `after` (or the setup, with `after` = last seat).
pub(crate) fn next_turn(e: &mut Emitter<Tikal>, after: Seat) {
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

pub(crate) fn end_turn(state: &TikalState, seat: Seat, scoring: bool) -> Vec<TikalEvent> {
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
