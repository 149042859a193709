//! Tikal (Kiesling / Kramer): expeditions explore a jungle hex by hex, uncover temples,
//! recover treasures and score in four scoring rounds. Basic game and the auction variant
//! ("Profiversion").
//!
//! Rules as implemented, the action/event vocabulary and every decision where the texts
//! are silent: `docs/rules/tikal.md`. Data: `data/tikal/` (tiles, board, tokens).
//!
//! Structure: `data` parses the embedded material, `state` holds the full state and
//! `evolve`, `rules` holds `setup`, `decide` and `legal_actions` (one check function per
//! action, shared by both), `view` builds views, redacts events and names the secrets,
//! `hidden` re-draws them for the bots.
//! Hidden information has no owner: the order of the undrawn hexes and the face-down
//! treasure tokens. Both are fixed by the shuffles in `setup` and recorded in the
//! `game_set_up` event, which `redact` blanks for everyone but the omniscient export;
//! `decide` never needs randomness afterwards.

pub mod action;
pub mod codes;
pub mod data;
pub mod event;
pub mod hidden;
pub mod rules;
pub mod state;
pub mod view;

#[cfg(test)]
mod tests;

use std::ops::RangeInclusive;

use rand::RngCore;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use action::{PieceKind, TikalAction};
pub use codes::TikalRule;
pub use event::TikalEvent;
pub use state::TikalState;
pub use view::TikalView;

use crate::engine::{
    Engine, Outcome, RuleError, RulesVersion, Seat, Secret, SharedRule, TakeBackBarrier, Taker,
    Viewer,
};
use crate::kit::rule_code::SPACES_AND_ACTION_POINTS;

/// Options chosen when a game of Tikal is created.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TikalOptions {
    /// Play the auction variant ("Profiversion"): scores start at 20 and the turns of each
    /// round are auctioned. `false` (default) is the basic game.
    pub auction: bool,
}

/// The Tikal rule engine.
#[derive(Debug, Clone, Copy)]
pub struct Tikal;

/// From this rules version an action that reached another seat stays (see the rules page,
/// "Taking back"): earlier games took a treasure exchange or the auction's volcano back.
pub const REACHING_OTHERS_STAYS_FROM_VERSION: u32 = 2;

impl Engine for Tikal {
    type Options = TikalOptions;
    type State = TikalState;
    type Action = TikalAction;
    type Event = TikalEvent;
    type View = TikalView;

    const KIND: &'static str = "tikal";
    const NAME: &'static str = "Tikal";
    const RULES_VERSIONS: &'static [RulesVersion] = &[
        RulesVersion {
            version: 1,
            date: "2026-11-22",
            changes: "First version: the basic game and the auction variant.",
        },
        RulesVersion {
            version: 2,
            date: "2026-12-04",
            changes: "Taking back: a treasure exchange and, in the auction variant, choosing the \
                      volcano (which begins a scoring round) can no longer be taken back. The \
                      game itself plays as in version 1.",
        },
    ];
    /// Version 2 added `game_set_up`'s optional `seed_commitment`.
    const EVENT_SCHEMA_VERSION: u32 = 2;
    const FIRST_COMPATIBLE_EVENT_SCHEMA_VERSION: u32 = 1;
    /// A turn is a tile and ten action points, about five actions with its end: a turn
    /// and a step into the next.
    const RATED_AFTER_ACTIONS: u32 = 6;
    type Rule = TikalRule;
    const SHARED_RULES: &'static [SharedRule] = SPACES_AND_ACTION_POINTS;

    fn player_counts() -> RangeInclusive<u8> {
        2..=4
    }

    fn initial_state(options: &TikalOptions, seats: u8, rules_version: u32) -> TikalState {
        TikalState::new(options.auction, seats, rules_version)
    }

    fn setup(
        options: &TikalOptions,
        seats: u8,
        rules_version: u32,
        seed_commitment: Option<&str>,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<TikalEvent>, RuleError> {
        rules::setup(options.auction, seats, rules_version, seed_commitment, rng)
    }

    fn decide(
        state: &TikalState,
        seat: Seat,
        action: &TikalAction,
        _rng: &mut dyn RngCore,
    ) -> Result<Vec<TikalEvent>, RuleError> {
        rules::decide(state, seat, action)
    }

    fn evolve(state: &mut TikalState, event: &TikalEvent) {
        state::evolve(state, event)
    }

    fn legal_actions(state: &TikalState, seat: Seat) -> Vec<TikalAction> {
        rules::legal_actions(state, seat)
    }

    fn to_act(state: &TikalState) -> Vec<Seat> {
        rules::to_act(state)
    }

    fn outcome(state: &TikalState) -> Option<Outcome> {
        rules::outcome(state)
    }

    fn scores(state: &TikalState) -> Vec<i32> {
        state.players.iter().map(|player| player.score).collect()
    }

    fn view(state: &TikalState, viewer: Viewer) -> TikalView {
        view::view(state, viewer)
    }

    fn redact(event: &TikalEvent, viewer: Viewer) -> TikalEvent {
        view::redact(event, viewer)
    }

    fn describe(state: &TikalState, event: &TikalEvent) -> String {
        view::describe(state, event)
    }

    fn secrets(state: &TikalState) -> Vec<Secret> {
        view::secrets(state)
    }

    fn take_back_barrier(event: &TikalEvent) -> Option<TakeBackBarrier> {
        use TikalEvent::*;
        match event {
            GameSetUp { .. }
            | TileDrawn { .. }
            | TilesRevealed { .. }
            | TreasureRecovered { .. } => Some(TakeBackBarrier::Reveals),
            TurnEnded { .. }
            | BiddingOpened { .. }
            | BidPlaced { .. }
            | Passed { .. }
            | AuctionWon { .. }
            | PlayerScored { .. }
            | ScoringRoundCompleted { .. }
            | GameFinished { .. } => Some(TakeBackBarrier::EndsTurn),
            TileChosen { .. }
            | TilePlaced { .. }
            | ScoringRoundStarted { .. }
            | TurnStarted { .. }
            | PieceEntered { .. }
            | PieceMoved { .. }
            | TempleUncovered { .. }
            | TreasureExchanged { .. }
            | CampBuilt { .. }
            | GuardPlaced { .. } => None,
        }
    }

    fn take_back_barrier_for(event: &TikalEvent, taker: Taker) -> Option<TakeBackBarrier> {
        let reaches_others = match event {
            TikalEvent::TreasureExchanged { target, .. } => *target != taker.seat,
            TikalEvent::ScoringRoundStarted { .. } => true,
            _ => false,
        };
        if reaches_others && taker.rules_version >= REACHING_OTHERS_STAYS_FROM_VERSION {
            Some(TakeBackBarrier::ReachesOthers)
        } else {
            Self::take_back_barrier(event)
        }
    }

    fn sample_hidden(state: &TikalState, _seat: Seat, rng: &mut dyn RngCore) -> TikalState {
        hidden::sample_hidden(state, rng)
    }
}
