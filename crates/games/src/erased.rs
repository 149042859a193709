//! Object-safe, JSON-speaking wrappers around [`Engine`], so the server can hold any game
//! behind one pointer without knowing its types.

use std::marker::PhantomData;
use std::ops::RangeInclusive;

use rand::{Rng, RngCore};
use serde_json::Value;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

use super::engine::{Engine, Outcome, RuleError, RulesVersion, Seat, Secret, SharedRule, Viewer};

/// An event as written to the log: its type tag and its JSON payload.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedEvent {
    pub event_type: String,
    pub payload: Value,
}

/// Why an action was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionError {
    /// The JSON is not an action of this game.
    Malformed(String),
    /// The action is understood but the rules forbid it now.
    Rule(RuleError),
}

/// Why a stored game cannot be folded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// The game was started under a rules version this build does not play: written by a
    /// newer server (during a rolling update), or one that was retired.
    #[error(
        "this game is played under {kind} rules version {version}, which this server cannot \
         play (it plays {supported:?})"
    )]
    UnsupportedRulesVersion {
        kind: &'static str,
        version: u32,
        supported: Vec<u32>,
    },
    /// The stored log does not read back: a bug or a corrupt database.
    #[error("cannot replay the stored game: {0}")]
    Corrupt(String),
}

/// A game's rules, as the server sees them.
pub trait GameRules: Send + Sync {
    fn kind(&self) -> &'static str;
    fn name(&self) -> &'static str;
    /// Every rules version this server still plays, oldest first; new games start on the
    /// last one.
    fn rules_versions(&self) -> &'static [RulesVersion];
    fn newest_rules_version(&self) -> u32;
    fn event_schema_version(&self) -> u32;
    fn player_counts(&self) -> RangeInclusive<u8>;
    /// The options a game gets when the creator names none.
    fn default_options(&self) -> Value;
    /// JSON schema of the options object.
    fn options_schema(&self) -> RefOr<Schema>;
    /// Every rule code an action can be refused with, and its meaning.
    fn rule_codes(&self) -> Vec<(&'static str, &'static str)>;
    /// The OpenAPI schemas of the options, actions, events, views and rule codes, the top
    /// ones named `<prefix>Options`, `<prefix>Action`, `<prefix>Event`, `<prefix>View` and
    /// `<prefix>RuleCode`, followed by every schema they refer to under its own name.
    fn schemas(&self, prefix: &str) -> Vec<(String, RefOr<Schema>)>;
    /// A stored event payload of `schema_version` in today's shape.
    fn upcast(&self, schema_version: u32, payload: Value) -> Result<Value, ReplayError>;
    /// Checks `options` and returns them with every default filled in.
    fn normalize_options(&self, options: &Value) -> Result<Value, String>;
    /// The opening events of a game under `rules_version`; the first records
    /// `seed_commitment`.
    fn setup(
        &self,
        options: &Value,
        seats: u8,
        rules_version: u32,
        seed_commitment: Option<&str>,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<RecordedEvent>, RuleError>;
    /// The state before any event of a game under `rules_version`, ready to have the log
    /// folded onto it.
    fn new_table(
        &self,
        options: &Value,
        seats: u8,
        rules_version: u32,
    ) -> Result<Box<dyn Table>, ReplayError>;
}

/// One game's live state, folded from its log.
pub trait Table: Send {
    /// Folds one stored event, written in `schema_version`, into the state.
    fn apply(&mut self, payload: &str, schema_version: u32) -> Result<(), ReplayError>;
    /// Checks an action by `seat`; returns the action as the engine reads it and its events.
    fn decide(
        &self,
        seat: Seat,
        action: &Value,
        rng: &mut dyn RngCore,
    ) -> Result<(Value, Vec<RecordedEvent>), ActionError>;
    fn legal_actions(&self, seat: Seat) -> Vec<Value>;
    /// [`Table::legal_actions`] as one JSON array, written straight from the typed actions:
    /// no `Value` per action (Java's opening has hundreds).
    fn legal_actions_json(&self, seat: Seat) -> String;
    fn to_act(&self) -> Vec<Seat>;
    fn outcome(&self) -> Option<Outcome>;
    /// Each seat's score as it stands now.
    fn scores(&self) -> Vec<i32>;
    fn view(&self, viewer: Viewer) -> Value;
    /// The stored event as `viewer` may see it (in today's schema) and its one-line
    /// description, then the event folded into the state: `self` must be the state just
    /// before it. The payload is read once.
    fn redact_and_apply(
        &mut self,
        payload: &str,
        schema_version: u32,
        viewer: Viewer,
    ) -> Result<(Value, String), ReplayError>;
    fn secrets(&self) -> Vec<Secret>;
    fn state_json(&self) -> Value;
    fn clone_table(&self) -> Box<dyn Table>;
    /// Plays on with uniformly random legal actions (by a random seat among those to act)
    /// until the game ends or `max_actions` actions were taken; returns how many were taken.
    /// Works on the typed state without any JSON, because the bots' playouts take thousands
    /// of actions per move.
    fn play_randomly(&mut self, max_actions: usize, rng: &mut dyn RngCore) -> usize;
    /// A table `seat` cannot tell from this one, everything hidden from it re-drawn at
    /// random ([`Engine::sample_hidden`]): what the bots simulate on, so they never peek.
    fn sample_hidden_for(&self, seat: Seat, rng: &mut dyn RngCore) -> Box<dyn Table>;
}

/// Adapts a typed engine to [`GameRules`].
pub struct Rules<E: Engine>(PhantomData<fn() -> E>);

impl<E: Engine> Rules<E> {
    pub const fn new() -> Self {
        Rules(PhantomData)
    }
}

impl<E: Engine> Default for Rules<E> {
    fn default() -> Self {
        Self::new()
    }
}

fn parse_options<E: Engine>(options: &Value) -> Result<E::Options, String> {
    serde_json::from_value(options.clone()).map_err(|error| error.to_string())
}

fn record<E: Engine>(events: Vec<E::Event>) -> Vec<RecordedEvent> {
    events
        .into_iter()
        .map(|event| {
            let payload = to_json(&event);
            let event_type = payload
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("event")
                .to_owned();
            RecordedEvent {
                event_type,
                payload,
            }
        })
        .collect()
}

/// Engine types are plain data with string keys, so serialising them cannot fail.
fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl<E: Engine> GameRules for Rules<E> {
    fn kind(&self) -> &'static str {
        E::KIND
    }

    fn name(&self) -> &'static str {
        E::NAME
    }

    fn rules_versions(&self) -> &'static [RulesVersion] {
        E::RULES_VERSIONS
    }

    fn newest_rules_version(&self) -> u32 {
        E::newest_rules_version()
    }

    fn event_schema_version(&self) -> u32 {
        E::EVENT_SCHEMA_VERSION
    }

    fn player_counts(&self) -> RangeInclusive<u8> {
        E::player_counts()
    }

    fn default_options(&self) -> Value {
        to_json(&E::Options::default())
    }

    fn options_schema(&self) -> RefOr<Schema> {
        E::Options::schema()
    }

    fn rule_codes(&self) -> Vec<(&'static str, &'static str)> {
        E::rule_codes()
    }

    fn schemas(&self, prefix: &str) -> Vec<(String, RefOr<Schema>)> {
        let mut schemas = vec![
            (format!("{prefix}Options"), E::Options::schema()),
            (format!("{prefix}Action"), E::Action::schema()),
            (format!("{prefix}Event"), E::Event::schema()),
            (format!("{prefix}View"), E::View::schema()),
            (format!("{prefix}RuleCode"), rule_code_schema::<E>()),
        ];
        E::Options::schemas(&mut schemas);
        E::Action::schemas(&mut schemas);
        E::Event::schemas(&mut schemas);
        E::View::schemas(&mut schemas);
        schemas
    }

    fn upcast(&self, schema_version: u32, payload: Value) -> Result<Value, ReplayError> {
        E::upcast(schema_version, payload).map_err(ReplayError::Corrupt)
    }

    fn normalize_options(&self, options: &Value) -> Result<Value, String> {
        parse_options::<E>(options).map(|options| to_json(&options))
    }

    fn setup(
        &self,
        options: &Value,
        seats: u8,
        rules_version: u32,
        seed_commitment: Option<&str>,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<RecordedEvent>, RuleError> {
        let options = parse_options::<E>(options)
            .map_err(|message| RuleError::new(SharedRule::InvalidOptions, message))?;
        if !E::plays_rules_version(rules_version) {
            return Err(RuleError::new(
                SharedRule::InvalidOptions,
                unsupported_version::<E>(rules_version).to_string(),
            ));
        }
        E::setup(&options, seats, rules_version, seed_commitment, rng).map(record::<E>)
    }

    fn new_table(
        &self,
        options: &Value,
        seats: u8,
        rules_version: u32,
    ) -> Result<Box<dyn Table>, ReplayError> {
        if !E::plays_rules_version(rules_version) {
            return Err(unsupported_version::<E>(rules_version));
        }
        let options = parse_options::<E>(options).map_err(ReplayError::Corrupt)?;
        Ok(Box::new(TypedTable::<E> {
            state: E::initial_state(&options, seats, rules_version),
        }))
    }
}

fn unsupported_version<E: Engine>(version: u32) -> ReplayError {
    ReplayError::UnsupportedRulesVersion {
        kind: E::KIND,
        version,
        supported: E::RULES_VERSIONS
            .iter()
            .map(|release| release.version)
            .collect(),
    }
}

/// The `rule` of an `illegal_action` problem: a string enum of every code, each explained.
fn rule_code_schema<E: Engine>() -> RefOr<Schema> {
    let codes = E::rule_codes();
    let mut description = format!(
        "Why {} refused an action (the `rule` of an `illegal_action` problem):",
        E::NAME
    );
    for (code, meaning) in &codes {
        description.push_str(&format!("\n- `{code}`: {meaning}"));
    }
    let schema = ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(description))
        .enum_values(Some(codes.iter().map(|(code, _)| *code)))
        .build();
    RefOr::T(Schema::Object(schema))
}

struct TypedTable<E: Engine> {
    state: E::State,
}

/// A stored event in today's shape: read directly when it was written in today's schema,
/// through [`Engine::upcast`] otherwise.
fn parse_event<E: Engine>(payload: &str, schema_version: u32) -> Result<E::Event, ReplayError> {
    let corrupt = |error: serde_json::Error| ReplayError::Corrupt(error.to_string());
    if schema_version == E::EVENT_SCHEMA_VERSION {
        return serde_json::from_str(payload).map_err(corrupt);
    }
    let stored: Value = serde_json::from_str(payload).map_err(corrupt)?;
    let upcast = E::upcast(schema_version, stored).map_err(ReplayError::Corrupt)?;
    serde_json::from_value(upcast).map_err(corrupt)
}

impl<E: Engine> Table for TypedTable<E> {
    fn apply(&mut self, payload: &str, schema_version: u32) -> Result<(), ReplayError> {
        let event = parse_event::<E>(payload, schema_version)?;
        E::evolve(&mut self.state, &event);
        Ok(())
    }

    fn decide(
        &self,
        seat: Seat,
        action: &Value,
        rng: &mut dyn RngCore,
    ) -> Result<(Value, Vec<RecordedEvent>), ActionError> {
        let action: E::Action = serde_json::from_value(action.clone())
            .map_err(|error| ActionError::Malformed(error.to_string()))?;
        let events = E::decide(&self.state, seat, &action, rng).map_err(ActionError::Rule)?;
        Ok((to_json(&action), record::<E>(events)))
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Value> {
        E::legal_actions(&self.state, seat)
            .iter()
            .map(to_json)
            .collect()
    }

    fn legal_actions_json(&self, seat: Seat) -> String {
        // Engine types are plain data with string keys, so serialising them cannot fail.
        serde_json::to_string(&E::legal_actions(&self.state, seat))
            .unwrap_or_else(|_| "[]".to_owned())
    }

    fn to_act(&self) -> Vec<Seat> {
        E::to_act(&self.state)
    }

    fn outcome(&self) -> Option<Outcome> {
        E::outcome(&self.state)
    }

    fn scores(&self) -> Vec<i32> {
        E::scores(&self.state)
    }

    fn view(&self, viewer: Viewer) -> Value {
        to_json(&E::view(&self.state, viewer))
    }

    fn redact_and_apply(
        &mut self,
        payload: &str,
        schema_version: u32,
        viewer: Viewer,
    ) -> Result<(Value, String), ReplayError> {
        let event = parse_event::<E>(payload, schema_version)?;
        let redacted = E::redact(&event, viewer);
        let text = E::describe(&self.state, &redacted);
        E::evolve(&mut self.state, &event);
        Ok((to_json(&redacted), text))
    }

    fn secrets(&self) -> Vec<Secret> {
        E::secrets(&self.state)
    }

    fn state_json(&self) -> Value {
        to_json(&self.state)
    }

    fn clone_table(&self) -> Box<dyn Table> {
        Box::new(TypedTable::<E> {
            state: self.state.clone(),
        })
    }

    fn play_randomly(&mut self, max_actions: usize, rng: &mut dyn RngCore) -> usize {
        for taken in 0..max_actions {
            let to_act = E::to_act(&self.state);
            if to_act.is_empty() {
                return taken;
            }
            let seat = to_act[rng.gen_range(0..to_act.len())];
            let legal = E::legal_actions(&self.state, seat);
            if legal.is_empty() {
                // A seat to act always has an action (the playout tests check it); stopping
                // here keeps a bot from looping if an engine ever breaks that.
                return taken;
            }
            let action = &legal[rng.gen_range(0..legal.len())];
            let Ok(events) = E::decide(&self.state, seat, action, rng) else {
                return taken;
            };
            for event in &events {
                E::evolve(&mut self.state, event);
            }
        }
        max_actions
    }

    fn sample_hidden_for(&self, seat: Seat, rng: &mut dyn RngCore) -> Box<dyn Table> {
        Box::new(TypedTable::<E> {
            state: E::sample_hidden(&self.state, seat, rng),
        })
    }
}
