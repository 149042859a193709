//! Java (Kiesling/Kramer, Ravensburger 2000) as a pure rule engine.
//!
//! Players develop central Java with terrain tiles, move developers across rice and village
//! terrain, build and raise palaces, irrigate and hold palace festivals; the Great Final
//! Count at the end decides. The rules as implemented (and every decision where the rule
//! texts are silent) are described in `docs/rules/java.md`.
//!
//! Layout (the same in every engine): [`data`] loads the board and material from
//! `data/java/`, [`options`] the options a game is created with, [`setup`] the opening,
//! [`state`] holds the state and `evolve`, [`event`] what happened (with the palace cards
//! events carry, and which events taking back cannot pass), [`rules`] decides actions,
//! [`legal`] lists the legal ones and who is to act, [`scoring`] the Great Final Count and
//! the final standing, [`view`] builds what each viewer may see, [`describe`] the log's lines,
//! [`hidden`] re-draws what a seat may not see for the bots. `rules` is a folder with one
//! file per family of actions: `tiles` (placing one, and the tile every turn owes) over
//! `placement` (where a tile may lie), `developers`, `palaces`, `irrigation`, `cards`,
//! `festival` and `end` (of a turn and of the game); `board` (space names, villages and
//! cities, rank) and `water` (enclosed water) serve them all.

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

use crate::engine::{
    Engine, Outcome, RuleError, RulesVersion, Seat, Secret, SharedRule, TakeBackBarrier, Taker,
    Viewer,
};
use crate::kit::rule_code::SPACES_AND_ACTION_POINTS;

pub use action::{CardSource, JavaAction, TileKind};
pub use codes::JavaRule;
pub use event::{JavaEvent, REACHING_OTHERS_STAYS_FROM_VERSION};
pub use options::JavaOptions;
pub use state::JavaState;
pub use view::JavaView;

/// The Java rule engine.
#[derive(Debug, Clone, Copy)]
pub struct Java;

impl Engine for Java {
    type Options = JavaOptions;
    type State = JavaState;
    type Action = JavaAction;
    type Event = JavaEvent;
    type View = JavaView;

    const KIND: &'static str = "java";
    const NAME: &'static str = "Java";
    const RULES_VERSIONS: &'static [RulesVersion] = &[
        RulesVersion {
            version: 1,
            date: "2026-11-22",
            changes: "First version.",
        },
        RulesVersion {
            version: 2,
            date: "2026-11-24",
            changes: "The owed tile may not be blocked by other actions (only a turn in which no \
                      tile could be placed may end without one, also with a festival); the \
                      discard pile is reshuffled as soon as the deck runs out.",
        },
        RulesVersion {
            version: 3,
            date: "2026-11-27",
            changes: "The option play_on_when_no_tile_fits: a turn in which no tile fits ends \
                      without one and the game goes on. Games without it play as in version 2.",
        },
        RulesVersion {
            version: 4,
            date: "2026-12-04",
            changes: "Taking back: a tile or irrigation tile whose enclosed water scored for \
                      another seat can no longer be taken back. The game itself plays as in \
                      version 3.",
        },
    ];
    /// Version 2 added `game_set_up`'s optional `seed_commitment`; version 3 the end reason
    /// `no_tile_for_a_round` (older payloads read as they are, but a server that knows only
    /// version 2 must not read a log that may hold it).
    const EVENT_SCHEMA_VERSION: u32 = 3;
    const FIRST_COMPATIBLE_EVENT_SCHEMA_VERSION: u32 = 1;
    /// A turn is six action points, a tile and its end, about ten actions: most of a turn.
    const RATED_AFTER_ACTIONS: u32 = 8;
    type Rule = JavaRule;
    const SHARED_RULES: &'static [SharedRule] = SPACES_AND_ACTION_POINTS;

    fn player_counts() -> RangeInclusive<u8> {
        2..=4
    }

    fn initial_state(options: &JavaOptions, seats: u8, rules_version: u32) -> JavaState {
        state::initial_state(options, seats, rules_version)
    }

    fn setup(
        options: &JavaOptions,
        seats: u8,
        rules_version: u32,
        seed_commitment: Option<&str>,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<JavaEvent>, RuleError> {
        setup::setup(options, seats, rules_version, seed_commitment, rng)
    }

    fn decide(
        state: &JavaState,
        seat: Seat,
        action: &JavaAction,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<JavaEvent>, RuleError> {
        rules::decide(state, seat, action, rng)
    }

    fn evolve(state: &mut JavaState, event: &JavaEvent) {
        state::evolve(state, event)
    }

    fn legal_actions(state: &JavaState, seat: Seat) -> Vec<JavaAction> {
        legal::legal_actions(state, seat)
    }

    fn to_act(state: &JavaState) -> Vec<Seat> {
        legal::to_act(state)
    }

    fn outcome(state: &JavaState) -> Option<Outcome> {
        scoring::outcome(state)
    }

    fn scores(state: &JavaState) -> Vec<i32> {
        scoring::scores(state)
    }

    fn view(state: &JavaState, viewer: Viewer) -> JavaView {
        view::view(state, viewer)
    }

    fn redact(event: &JavaEvent, viewer: Viewer) -> JavaEvent {
        view::redact(event, viewer)
    }

    fn describe(state: &JavaState, event: &JavaEvent) -> String {
        describe::describe(state, event)
    }

    fn secrets(state: &JavaState) -> Vec<Secret> {
        view::secrets(state)
    }

    fn take_back_barrier(event: &JavaEvent) -> Option<TakeBackBarrier> {
        event::take_back_barrier(event)
    }

    fn take_back_barrier_for(event: &JavaEvent, taker: Taker) -> Option<TakeBackBarrier> {
        event::take_back_barrier_for(event, taker)
    }

    fn sample_hidden(state: &JavaState, seat: Seat, rng: &mut dyn RngCore) -> JavaState {
        hidden::sample_hidden(state, seat, rng)
    }
}
