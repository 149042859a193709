//! Deciding an action often needs the state that its first events produce (a tile placed
//! closes a water area, which scores). The emitter folds every event into a working copy as
//! it is emitted, so later checks see it, and keeps the events in order.

use crate::engine::Engine;

/// A working copy of the state plus the events emitted onto it so far.
pub struct Emitter<E: Engine> {
    state: E::State,
    events: Vec<E::Event>,
}

impl<E: Engine> Emitter<E> {
    /// Starts from a copy of `state`.
    pub fn new(state: &E::State) -> Self {
        Emitter {
            state: state.clone(),
            events: Vec::new(),
        }
    }

    /// Records `event` and folds it into the working state.
    pub fn emit(&mut self, event: E::Event) {
        E::evolve(&mut self.state, &event);
        self.events.push(event);
    }

    /// The state after every event emitted so far.
    pub fn state(&self) -> &E::State {
        &self.state
    }

    /// The decided events.
    pub fn into_events(self) -> Vec<E::Event> {
        self.events
    }
}
