//! The end of a turn, and of the game: the last three-space tile or a turn without a tile
//! begins it, and each seat's Great Final Count (in `scoring`) follows its last turn.

use super::board::settlements;
use super::placement::placements;
use super::tiles::{end_without_tile, tile_owed};
use crate::engine::{RuleError, Seat};
use crate::java::codes::JavaRule;
use crate::java::event::JavaEvent;
use crate::java::scoring::final_count;
use crate::java::state::JavaState;
use crate::java::Java;
use crate::kit::ranking::competition_places;
use crate::kit::Emitter;

/// Ending a turn, on the working copy of the state.
impl Emitter<Java> {
    /// Ends the current turn: final count during the end game, then the next turn.
    pub(super) fn finish_turn(&mut self) {
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
}

pub(super) fn decide_end_turn(
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
        if let Some(reason) = end_without_tile(state) {
            out.emit(JavaEvent::EndTriggered { seat, reason });
        }
    }
    out.finish_turn();
    Ok(())
}
