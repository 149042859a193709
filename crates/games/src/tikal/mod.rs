//! Tikal (Kiesling / Kramer): expeditions explore a jungle hex by hex, uncover temples,
//! recover treasures and score in four scoring rounds. Basic game and the auction variant
//! ("Profiversion").
//!
//! Rules as implemented, the action/event vocabulary and every decision where the texts
//! are silent: `docs/rules/tikal.md`. Data: `data/tikal/` (tiles, board, tokens).
//!
//! Structure (the same in every engine): `data` parses the embedded material, `options` the
//! options a game is created with, `setup` the opening, `state` holds the full state and
//! `evolve`, `rules` holds `decide` (a folder with one file per family of actions, each with
//! the check function it shares with `legal_actions`), `legal` lists the legal actions and
//! who is to act, `scoring` the final standing, `view` builds views, redacts events and names
//! the secrets, `describe` writes the log's lines, `hidden` re-draws the secrets for the bots.
//! Hidden information has no owner: the order of the undrawn hexes and the face-down
//! treasure tokens. Both are fixed by the shuffles in `setup` and recorded in the
//! `game_set_up` event, which `redact` blanks for everyone but the omniscient export;
//! `decide` never needs randomness afterwards.

pub mod action;
pub mod codes;
pub mod data;
pub mod describe;
pub mod event;
pub mod hidden;
pub mod legal;
pub mod options;
pub mod rules;
pub mod scoring;
pub mod setup;
pub mod state;
pub mod view;

#[cfg(test)]
mod tests;

use std::ops::RangeInclusive;

use rand::RngCore;

pub use action::{PieceKind, TikalAction};
pub use codes::TikalRule;
pub use event::{TikalEvent, REACHING_OTHERS_STAYS_FROM_VERSION};
pub use options::TikalOptions;
pub use state::TikalState;
pub use view::TikalView;

use crate::engine::{
    Engine, Outcome, RuleError, RulesVersion, Seat, Secret, SharedRule, TakeBackBarrier, Taker,
    Viewer,
};
use crate::kit::rule_code::SPACES_AND_ACTION_POINTS;

/// The Tikal rule engine.
#[derive(Debug, Clone, Copy)]
pub struct Tikal;

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
        setup::setup(options, seats, rules_version, seed_commitment, rng)
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
        legal::legal_actions(state, seat)
    }

    fn to_act(state: &TikalState) -> Vec<Seat> {
        legal::to_act(state)
    }

    fn outcome(state: &TikalState) -> Option<Outcome> {
        scoring::outcome(state)
    }

    fn scores(state: &TikalState) -> Vec<i32> {
        scoring::scores(state)
    }

    fn view(state: &TikalState, viewer: Viewer) -> TikalView {
        view::view(state, viewer)
    }

    fn redact(event: &TikalEvent, viewer: Viewer) -> TikalEvent {
        view::redact(event, viewer)
    }

    fn describe(state: &TikalState, event: &TikalEvent) -> String {
        describe::describe(state, event)
    }

    fn secrets(state: &TikalState) -> Vec<Secret> {
        view::secrets(state)
    }

    fn take_back_barrier(event: &TikalEvent) -> Option<TakeBackBarrier> {
        event::take_back_barrier(event)
    }

    fn take_back_barrier_for(event: &TikalEvent, taker: Taker) -> Option<TakeBackBarrier> {
        event::take_back_barrier_for(event, taker)
    }

    fn sample_hidden(state: &TikalState, _seat: Seat, rng: &mut dyn RngCore) -> TikalState {
        hidden::sample_hidden(state, rng)
    }
}
