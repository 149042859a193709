//! `decide`: the phase and seat checks every action shares, then each action handed to the
//! file of its family, whose checks `legal_actions` uses too, so the two cannot drift apart.
//! `tiles` (laying the drawn hex), `movement` (entering and moving figures), `temples`
//! (uncovering, guards), `treasures` (recovering, exchanging), `camps`, `auction`,
//! `scoring_rounds` and `turn` (what follows a turn, its end); `checks` serve them all.

pub(crate) mod auction;
pub(crate) mod camps;
pub(crate) mod checks;
pub(crate) mod movement;
pub(crate) mod scoring_rounds;
pub(crate) mod temples;
pub(crate) mod tiles;
pub(crate) mod treasures;
pub(crate) mod turn;

use self::auction::{decide_bid, decide_choose_tile, decide_pass};
use self::checks::{err, space_named, Checked};
use self::movement::{decide_enter, decide_move};
use self::tiles::decide_place_tile;
use self::treasures::check_exchange;
use self::turn::end_turn;
use super::action::TikalAction;
use super::data::data;
use super::event::TikalEvent;
use super::legal::to_act;
use super::state::{Phase, TikalState};
use crate::engine::{Seat, SharedRule};

// What the rest of the engine (set-up, the legal actions) reads of the rules.
pub(crate) use self::camps::check_camp;
pub(crate) use self::temples::{check_guard, check_uncover};
pub(crate) use self::treasures::check_recover;
pub(crate) use self::turn::next_turn;

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
