//! Eternal Palace (Steven Aramini, Alley Cat Games 2022): base game and the privileges
//! module, for 2 to 5 players; from rules version 3 also the expansion modules labyrinth,
//! river market and compositions (one per game) and the five location tiles, each only when
//! chosen in the options (a version 3 game without them plays as version 2); from rules
//! version 4 the option that lets any group visit the labyrinth and the river market.
//!
//! A round: everybody's dice are rolled (in `decide`/`setup`, written into `DiceRolled`),
//! the turn order follows the ascending pip sums, then every seat groups its dice in secret
//! and simultaneously (`to_act` lists every seat that has not submitted; a submitted
//! grouping is stored sealed and owned by its seat until the reveal). With the privileges
//! module the seats holding tokens then decide in turn order. The reveal is emitted when
//! the last decision of the planning phase arrives. Under rules version 2 owners of group
//! artists whose groups would give different rewards then choose a group, in turn order
//! (pending choices before the first placing turn). Then groups are placed one at a time in
//! turn order; some locations open a follow-up choice for the same seat. When every group
//! is placed the round ends, the next one is prepared and rolled within the same `decide`;
//! the game ends when someone holds 8 layers (rules version 1: also after round 15).
//!
//! Numbers and components come from the record files in `data/eternal_palace/`; the rules
//! page is `docs/rules/eternal-palace.md`.
//!
//! Layout (the same in every engine): [`data`] reads the record files, [`options`] the
//! options a game is created with (and which combine under which rules version), [`setup`]
//! the opening, [`state`] holds the state and folds each [`event`] into it (the events also
//! say which ones taking back cannot pass), [`rules`] holds `decide`, [`legal`] lists exactly
//! what `decide` accepts, [`scoring`] makes the final score sheets, [`view`] builds what each
//! viewer may see, [`describe`] the log's lines, and [`hidden`] re-draws what a seat may not
//! see for the bots. `rules` is a folder with one file per part of the game: `planning`
//! (grouping, privileges, the reveal); `placement` of a group, then the locations' actions in
//! `locations`, `fish_market` and `location_tiles`; one file per module (`labyrinth`,
//! `river_market`, `compositions`); `advisors`; `layers` (tracks, marks, painting layers,
//! decorations); `round` (passing turns, the end of a round and of the game); all over
//! `decision`, the steps every decision shares.

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

pub use action::{Action, MarketItem};
pub use codes::EternalPalaceRule;
pub use event::{Event, REACHING_OTHERS_STAYS_FROM_VERSION};
pub use options::{EternalPalaceOptions, LocationTile};
pub use state::State;
pub use view::EternalPalaceView;

use data::data;

/// The Eternal Palace engine.
#[derive(Debug, Clone, Copy)]
pub struct EternalPalace;

impl Engine for EternalPalace {
    type Options = EternalPalaceOptions;
    type State = State;
    type Action = Action;
    type Event = Event;
    type View = EternalPalaceView;

    const KIND: &'static str = "eternal_palace";
    const NAME: &'static str = "Eternal Palace";
    const RULES_VERSIONS: &'static [RulesVersion] = &[
        RulesVersion {
            version: 1,
            date: "2026-11-22",
            changes: "First version: the base game and the privileges module.",
        },
        RulesVersion {
            version: 2,
            date: "2026-11-24",
            changes: "Only 8 painting layers end the game (no 15-round limit); a group \
                      artist's owner chooses which group it rewards.",
        },
        RulesVersion {
            version: 3,
            date: "2026-11-24",
            changes: "The expansion modules labyrinth, river market (Fluss-Markt) and \
                      compositions (at most one per game) and the five location tiles are \
                      available as options; games without them play as in version 2.",
        },
        RulesVersion {
            version: 4,
            date: "2026-11-27",
            changes: "The option any_group_at_module_locations: the labyrinth and the river \
                      market take a group of any size. Games without it play as in version 3.",
        },
        RulesVersion {
            version: 5,
            date: "2026-12-03",
            changes: "Three options that play the second reading of a sentence: \
                      two_decorations, demand_reward_only_to_filler (with river_market) and \
                      academy_hire_compulsory. Games without them play as in version 4.",
        },
        RulesVersion {
            version: 6,
            date: "2026-12-04",
            changes: "Taking back: an action that reached another seat can no longer be taken \
                      back (a diplomat's gift, a river market card paid out, a composition \
                      claimed). The game itself plays as in version 5.",
        },
    ];
    /// Version 2 added `game_set_up`'s optional `seed_commitment`.
    const EVENT_SCHEMA_VERSION: u32 = 2;
    const FIRST_COMPATIBLE_EVENT_SCHEMA_VERSION: u32 = 1;
    /// A round is a group of dice and their placements, about three actions a seat: two
    /// rounds.
    const RATED_AFTER_ACTIONS: u32 = 6;
    type Rule = EternalPalaceRule;
    const SHARED_RULES: &'static [SharedRule] = &[SharedRule::CannotAfford];

    fn player_counts() -> RangeInclusive<u8> {
        let counts = &data().player_counts;
        counts.min..=counts.max
    }

    /// See [`options::constraints`].
    fn options_constraints() -> Option<serde_json::Value> {
        options::constraints()
    }

    fn initial_state(options: &Self::Options, seats: u8, rules_version: u32) -> State {
        State::new(options, seats, rules_version)
    }

    fn setup(
        options: &Self::Options,
        seats: u8,
        rules_version: u32,
        seed_commitment: Option<&str>,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<Event>, RuleError> {
        setup::setup(options, seats, rules_version, seed_commitment, rng)
    }

    fn decide(
        state: &State,
        seat: Seat,
        action: &Action,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<Event>, RuleError> {
        rules::decide(state, seat, action, rng)
    }

    fn evolve(state: &mut State, event: &Event) {
        state.apply(event);
    }

    fn legal_actions(state: &State, seat: Seat) -> Vec<Action> {
        legal::legal_actions(state, seat)
    }

    fn to_act(state: &State) -> Vec<Seat> {
        legal::to_act(state)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        scoring::outcome(state)
    }

    fn scores(state: &State) -> Vec<i32> {
        scoring::scores(state)
    }

    fn view(state: &State, viewer: Viewer) -> EternalPalaceView {
        view::view(state, viewer)
    }

    fn redact(event: &Event, viewer: Viewer) -> Event {
        view::redact(event, viewer)
    }

    fn describe(state: &State, event: &Event) -> String {
        describe::describe(state, event)
    }

    fn secrets(state: &State) -> Vec<Secret> {
        view::secrets(state)
    }

    fn take_back_barrier(event: &Event) -> Option<TakeBackBarrier> {
        event::take_back_barrier(event)
    }

    fn take_back_barrier_for(event: &Event, taker: Taker) -> Option<TakeBackBarrier> {
        event::take_back_barrier_for(event, taker)
    }

    fn sample_hidden(state: &State, seat: Seat, rng: &mut dyn RngCore) -> State {
        hidden::sample_hidden(state, seat, rng)
    }
}
