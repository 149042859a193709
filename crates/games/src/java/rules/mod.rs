//! The rules: `decide`, which hands each action to the file of its family. A family's file
//! holds both its checks and its legal actions (which `legal` asks for), so the two cannot
//! drift apart.

pub(crate) mod board;
mod cards;
mod developers;
mod end;
mod festival;
mod irrigation;
mod palaces;
mod placement;
mod tiles;
mod water;

use rand::RngCore;

use super::action::JavaAction;
use super::codes::JavaRule;
use super::event::JavaEvent;
use super::state::{JavaState, Phase};
use super::Java;
use crate::engine::{RuleError, Seat, SharedRule};
use crate::kit::Emitter;

use self::cards::decide_buy_card;
use self::developers::{decide_enter_developer, decide_move_developer, decide_withdraw_developer};
use self::end::decide_end_turn;
use self::festival::{decide_agree, decide_bid, decide_hold_festival, decide_pass};
use self::irrigation::decide_place_irrigation;
use self::palaces::{decide_build_palace, decide_raise_palace};
use self::tiles::{check_tile_kept, decide_place_tile};

// What the rest of the engine (set-up, the legal actions, scoring, the view, the tests) reads
// of the rules, at the paths it had when the rules were one file.
pub(crate) use self::board::name;
pub use self::board::{highest_rank, settlements, strengths, Settlement, Settlements};
pub use self::cards::{card_id, CARDS_PER_TURN};
pub(crate) use self::developers::developer_actions;
pub use self::developers::{move_costs, rim_cost};
pub use self::festival::card_combos;
pub(crate) use self::festival::festival_actions;
pub(crate) use self::irrigation::check_irrigation_space;
pub(crate) use self::palaces::palace_actions;
pub use self::placement::{
    check_placement, placements, tiles_in_stock, Placement, PlacementRefusal,
};
pub use self::tiles::{tile_owed, tile_possible, v2};
pub(crate) use self::tiles::{Effect, TileGuard};
pub use self::water::{newly_enclosed_water, POINTS_PER_WATER_SPACE};

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
