//! Object-safe, JSON-speaking wrappers around [`Engine`], so the server can hold any game
//! behind one pointer without knowing its types.

use std::marker::PhantomData;
use std::ops::RangeInclusive;

use get_size2::GetSize;
use rand::{Rng, RngCore};
use serde_json::value::RawValue;
use serde_json::Value;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

use super::engine::{
    Engine, Outcome, RuleError, RulesVersion, Seat, Secret, SharedRule, TakeBackBarrier, Taker,
    Viewer,
};

/// An event as written to the log: its type tag and its JSON payload.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedEvent {
    pub event_type: String,
    pub payload: Value,
    /// It ends its seat's turn (see [`TakeBackBarrier::EndsTurn`]): the clock counts turns.
    pub ends_turn: bool,
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
    /// See [`Engine::RATED_AFTER_ACTIONS`].
    fn rated_after_actions(&self) -> u32;
    /// The options a game gets when the creator names none.
    fn default_options(&self) -> Value;
    /// JSON schema of the options object.
    fn options_schema(&self) -> RefOr<Schema>;
    /// JSON Schema keywords the options schema adds (see [`Engine::options_constraints`]).
    fn options_constraints(&self) -> Option<Value>;
    /// Every rule code an action can be refused with, and its meaning.
    fn rule_codes(&self) -> Vec<(&'static str, &'static str)>;
    /// The OpenAPI schemas of the options, actions, events, views and rule codes, the top
    /// ones named `<prefix>Options`, `<prefix>Action`, `<prefix>Event`, `<prefix>View` and
    /// `<prefix>RuleCode`, followed by every schema they refer to under its own name.
    fn schemas(&self, prefix: &str) -> Vec<(String, RefOr<Schema>)>;
    /// A stored event payload of `schema_version` in today's shape.
    fn upcast(&self, schema_version: u32, payload: Value) -> Result<Value, ReplayError>;
    /// [`Engine::take_back_barrier_for`] of a stored event.
    fn take_back_barrier(
        &self,
        payload: &str,
        schema_version: u32,
        taker: Taker,
    ) -> Result<Option<TakeBackBarrier>, ReplayError>;
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
pub trait Table: Send + Sync {
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
    /// no `Value` per action (Java's opening has hundreds), and not parsed again.
    fn legal_actions_json(&self, seat: Seat) -> Box<RawValue>;
    fn to_act(&self) -> Vec<Seat>;
    fn outcome(&self) -> Option<Outcome>;
    /// Each seat's score as it stands now.
    fn scores(&self) -> Vec<i32>;
    fn view(&self, viewer: Viewer) -> Value;
    /// [`Table::view`] as JSON text, written straight from the typed view.
    fn view_json(&self, viewer: Viewer) -> Box<RawValue>;
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
    /// Bytes this table takes in memory: the state itself and everything it owns on the heap
    /// (allocator overhead not counted).
    ///
    /// Counted: the allocation a `Box<dyn Table>` points to (the table, which is the state
    /// inline) and every heap buffer the state owns, `Vec`s and `String`s by their capacity
    /// (not their length), recursively. Not counted: the box's own (fat) pointer, which lives
    /// in whoever holds the box; the allocator's bookkeeping and rounding; data shared by all
    /// games and held by `&'static` reference. A clone can take less than its original,
    /// because cloning a `Vec` or `String` allocates only its length.
    fn memory_bytes(&self) -> usize;
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
            let ends_turn = E::take_back_barrier(&event) == Some(TakeBackBarrier::EndsTurn);
            let payload = to_json(&event);
            let event_type = payload
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("event")
                .to_owned();
            RecordedEvent {
                event_type,
                payload,
                ends_turn,
            }
        })
        .collect()
}

/// Engine types are plain data with string keys, so serialising them cannot fail.
/// Reads what a client sent as `T`, refusing any field `T` does not have.
/// `deny_unknown_fields` alone does not: serde lets a unit variant of an internally tagged
/// enum (`{"type": "end_turn", "extra": 1}`) carry any other fields. So the value read is
/// written back, and every field given must be in it (engine types have no aliases or
/// alternative forms; a field given as `null` may be one left out when empty).
fn read_closed<T: serde::Serialize + serde::de::DeserializeOwned>(
    given: &Value,
) -> Result<T, String> {
    let read: T = serde_json::from_value(given.clone()).map_err(|error| error.to_string())?;
    match first_unknown_field(given, &to_json(&read)) {
        None => Ok(read),
        Some(field) => Err(format!("unknown field `{field}`")),
    }
}

/// The path of the first field of `given` that `read` does not have.
fn first_unknown_field(given: &Value, read: &Value) -> Option<String> {
    match (given, read) {
        (Value::Object(given), Value::Object(read)) => {
            given.iter().find_map(|(key, value)| match read.get(key) {
                None if value.is_null() => None,
                None => Some(key.clone()),
                Some(inner) => {
                    first_unknown_field(value, inner).map(|path| format!("{key}.{path}"))
                }
            })
        }
        (Value::Array(given), Value::Array(read)) => {
            given
                .iter()
                .zip(read)
                .enumerate()
                .find_map(|(index, (given, read))| {
                    first_unknown_field(given, read).map(|path| format!("{index}.{path}"))
                })
        }
        _ => None,
    }
}

fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// `value` as JSON text, written once and not parsed again; `otherwise` if it cannot be
/// written (engine types are plain data with string keys, so that does not happen).
fn raw_json(value: &impl serde::Serialize, otherwise: &str) -> Box<RawValue> {
    serde_json::value::to_raw_value(value)
        .unwrap_or_else(|_| RawValue::from_string(otherwise.to_owned()).expect("a JSON literal"))
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

    fn rated_after_actions(&self) -> u32 {
        E::RATED_AFTER_ACTIONS
    }

    fn default_options(&self) -> Value {
        to_json(&E::Options::default())
    }

    fn options_schema(&self) -> RefOr<Schema> {
        E::Options::schema()
    }

    fn options_constraints(&self) -> Option<Value> {
        E::options_constraints()
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

    fn take_back_barrier(
        &self,
        payload: &str,
        schema_version: u32,
        taker: Taker,
    ) -> Result<Option<TakeBackBarrier>, ReplayError> {
        Ok(E::take_back_barrier_for(
            &parse_event::<E>(payload, schema_version)?,
            taker,
        ))
    }

    /// Options are plain structs that deny unknown fields themselves, so serde's own check
    /// is exact; `read_closed` would take a field given at its default, which the normal
    /// form leaves out, for an unknown one (`{"labyrinth": false}`).
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
        let action: E::Action = read_closed(action).map_err(ActionError::Malformed)?;
        let events = E::decide(&self.state, seat, &action, rng).map_err(ActionError::Rule)?;
        Ok((to_json(&action), record::<E>(events)))
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Value> {
        E::legal_actions(&self.state, seat)
            .iter()
            .map(to_json)
            .collect()
    }

    fn legal_actions_json(&self, seat: Seat) -> Box<RawValue> {
        raw_json(&E::legal_actions(&self.state, seat), "[]")
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

    fn view_json(&self, viewer: Viewer) -> Box<RawValue> {
        raw_json(&E::view(&self.state, viewer), "null")
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

    fn memory_bytes(&self) -> usize {
        size_of::<Self>() + self.state.get_heap_size()
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

#[cfg(test)]
mod tests {
    //! [`Table::memory_bytes`] on random games of every kind, and on states grown by hand
    //! deep inside, where the exact number of bytes added is known.

    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::eternal_palace::{self, EternalPalace, EternalPalaceOptions};
    use crate::java::{self, Java};
    use crate::tikal::{self, Tikal};

    /// No state of these games comes near it (the engines bench prints the real figures);
    /// a state past it keeps something it should have dropped.
    const SANITY_BOUND: usize = 256 * 1024;
    /// Random games per kind and seat count.
    const GAMES: u64 = 3;
    /// A random game longer than this would not end.
    const MAX_ACTIONS: usize = 20_000;

    #[test]
    fn actions_and_options_refuse_fields_their_types_do_not_have() {
        use serde_json::json;
        let end_turn: tikal::TikalAction = read_closed(&json!({"type": "end_turn"})).unwrap();
        assert_eq!(end_turn, tikal::TikalAction::EndTurn);
        assert_eq!(
            read_closed::<tikal::TikalAction>(&json!({"type": "end_turn", "extra": 1})),
            Err("unknown field `extra`".to_owned())
        );
        assert!(read_closed::<tikal::TikalAction>(&json!({
            "type": "place_tile", "space": "C4", "rotation": 2, "turn": 1
        }))
        .is_err());
        let table = opening::<Tikal>(&Default::default(), 2, 1);
        let seat = Tikal::to_act(&table.state)[0];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for action in table.legal_actions(seat).into_iter().take(20) {
            assert!(table.decide(seat, &action, &mut rng).is_ok(), "{action}");
            let mut extended = action.clone();
            extended["extra"] = json!(true);
            assert!(
                matches!(
                    table.decide(seat, &extended, &mut rng),
                    Err(ActionError::Malformed(message)) if message.contains("extra")
                ),
                "{extended}"
            );
        }
        assert_eq!(
            first_unknown_field(
                &json!({"a": [{"b": 1, "c": 2}], "d": null}),
                &json!({"a": [{"b": 1}]})
            ),
            Some("a.0.c".to_owned())
        );
    }

    /// Every option of every kind given at its default, as a schema-following client sends
    /// it, is accepted and normalised away; an unknown option is still refused.
    #[test]
    fn options_given_at_their_default_are_accepted() {
        use serde_json::json;
        for rules in crate::all_games() {
            let schema = serde_json::to_value(rules.options_schema()).expect("a schema");
            let properties = schema["properties"]
                .as_object()
                .expect("options are an object");
            let mut all_default = serde_json::Map::new();
            for (name, property) in properties {
                let default = match property.get("default") {
                    Some(default) => default.clone(),
                    None => match property["type"].as_str() {
                        Some("boolean") => json!(false),
                        Some("array") => json!([]),
                        other => panic!("{}: no default for {name} ({other:?})", rules.kind()),
                    },
                };
                all_default.insert(name.clone(), default);
            }
            assert!(!all_default.is_empty(), "{}", rules.kind());
            let given = Value::Object(all_default);
            assert_eq!(
                rules.normalize_options(&given),
                Ok(rules.default_options()),
                "{}: {given}",
                rules.kind()
            );
            let mut unknown = given.clone();
            unknown["no_such_option"] = json!(false);
            assert_eq!(
                rules
                    .normalize_options(&unknown)
                    .map_err(|error| error.contains("no_such_option")),
                Err(true),
                "{}",
                rules.kind()
            );
        }
    }

    /// A table of `E` at `seats` with the opening events folded in.
    fn opening<E: Engine>(options: &E::Options, seats: u8, seed: u64) -> TypedTable<E> {
        let version = E::newest_rules_version();
        let mut state = E::initial_state(options, seats, version);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for event in E::setup(options, seats, version, None, &mut rng).expect("setup") {
            E::evolve(&mut state, &event);
        }
        TypedTable { state }
    }

    /// Plays `GAMES` random games of `E` at every seat count to their end, checking every
    /// position: the table takes more than its state's inline size (every state owns heap
    /// buffers) and less than the sanity bound; a clone takes no more than the original (a
    /// cloned `Vec` or `String` drops its spare capacity) and exactly as much as a clone of
    /// itself; and the finished table takes more than the opening one, because laying tiles,
    /// taking cards and placing dice fill buffers that were empty at the opening.
    fn check_random_games<E: Engine>(options: &E::Options) {
        let inline = size_of::<E::State>();
        for seats in E::player_counts() {
            for seed in 0..GAMES {
                let game = format!("{} at {seats}, seed {seed}", E::NAME);
                let mut table = opening::<E>(options, seats, seed);
                let at_opening = table.memory_bytes();
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut actions = 0;
                loop {
                    let memory = table.memory_bytes();
                    assert!(
                        memory > inline,
                        "{game}, action {actions}: {memory} bytes, the state alone is {inline}"
                    );
                    assert!(
                        memory < SANITY_BOUND,
                        "{game}, action {actions}: {memory} bytes"
                    );
                    let clone = table.clone_table();
                    let cloned = clone.memory_bytes();
                    assert!(
                        cloned <= memory,
                        "{game}, action {actions}: the clone takes {cloned} bytes, the \
                         original {memory}"
                    );
                    assert_eq!(
                        clone.clone_table().memory_bytes(),
                        cloned,
                        "{game}, action {actions}: a clone of the clone"
                    );
                    if E::outcome(&table.state).is_some() {
                        break;
                    }
                    assert!(actions < MAX_ACTIONS, "{game} does not end");
                    let taken = table.play_randomly(1, &mut rng);
                    assert_eq!(taken, 1, "{game}, action {actions}: nothing to play");
                    actions += taken;
                }
                let at_end = table.memory_bytes();
                assert!(
                    at_end > at_opening,
                    "{game}: {at_end} bytes at the end, {at_opening} at the opening"
                );
            }
        }
    }

    #[test]
    fn tikal_memory_over_random_games() {
        check_random_games::<Tikal>(&Default::default());
        check_random_games::<Tikal>(&tikal::TikalOptions { auction: true });
    }

    #[test]
    fn java_memory_over_random_games() {
        check_random_games::<Java>(&Default::default());
    }

    #[test]
    fn eternal_palace_memory_over_random_games() {
        check_random_games::<EternalPalace>(&Default::default());
        check_random_games::<EternalPalace>(&EternalPalaceOptions {
            privileges: true,
            river_market: true,
            ..Default::default()
        });
    }

    /// `grow` changes the state and returns the heap bytes it added; the table must report
    /// exactly that many more.
    fn check_growth<E: Engine>(
        table: &mut TypedTable<E>,
        grow: impl FnOnce(&mut E::State) -> usize,
    ) {
        let before = table.memory_bytes();
        let added = grow(&mut table.state);
        assert!(added > 0);
        assert_eq!(table.memory_bytes(), before + added, "{}", E::NAME);
    }

    /// Heap bytes of a `Vec`'s buffer alone.
    fn buffer<T>(vec: &Vec<T>) -> usize {
        vec.capacity() * size_of::<T>()
    }

    #[test]
    fn memory_counts_what_tikal_holds_deep_inside() {
        let mut table = opening::<Tikal>(&Default::default(), 3, 1);
        // A treasure token on a laid hex: board -> Option<PlacedHex> -> Vec<String>.
        check_growth(&mut table, |state| {
            let hex = state.board.iter_mut().flatten().next().expect("a laid hex");
            let before = buffer(&hex.tokens);
            let token = "treasure-x".repeat(5);
            let owned = token.capacity();
            hex.tokens.push(token);
            buffer(&hex.tokens) - before + owned
        });
        // Spare capacity counts, not only length.
        check_growth(&mut table, |state| {
            let before = buffer(&state.draw_pile);
            state
                .draw_pile
                .reserve_exact(state.draw_pile.capacity() + 10);
            buffer(&state.draw_pile) - before
        });
        // The bidding of the auction variant: Option<Bidding> -> Vec<Seat>.
        check_growth(&mut table, |state| {
            let passed = vec![0, 2];
            let added = buffer(&passed);
            state.bidding = Some(tikal::state::Bidding {
                opener: 0,
                current: 1,
                high: None,
                passed,
            });
            added
        });
    }

    #[test]
    fn memory_counts_what_java_holds_deep_inside() {
        use java::data::Symbol;
        use java::event::Card;
        use java::state::{BidStatus, Bidder, FestivalStage, FestivalState, Phase};
        let mut table = opening::<Java>(&Default::default(), 3, 1);
        let card = |id: &str| Card {
            id: id.to_owned(),
            symbols: vec![Symbol::Drum, Symbol::Mask],
        };
        let card_heap = |card: &Card| card.id.capacity() + buffer(&card.symbols);
        // A card in a hand: players -> Vec<HandCard> -> Card -> String and Vec<Symbol>.
        check_growth(&mut table, |state| {
            let hand = &mut state.players[1].hand;
            let before = buffer(hand);
            let taken = card("pc99");
            let owned = card_heap(&taken);
            hand.push(java::state::HandCard {
                card: taken,
                public: false,
            });
            buffer(hand) - before + owned
        });
        // A festival, held in an enum variant: Phase::Festival -> Vec<Bidder> -> Vec<Card>.
        assert!(!matches!(table.state.phase, Phase::Festival(_)));
        check_growth(&mut table, |state| {
            let played = vec![card("pc98"), card("pc97")];
            let bidders = vec![Bidder {
                seat: 0,
                status: BidStatus::In,
                points: 3,
                played,
            }];
            let symbols = vec![Symbol::Puppet];
            let added = buffer(&bidders)
                + bidders[0].played.iter().map(card_heap).sum::<usize>()
                + buffer(&bidders[0].played)
                + buffer(&symbols);
            state.phase = Phase::Festival(FestivalState {
                palace: 0,
                host: 0,
                symbols,
                bidders,
                high: 3,
                tie_maker: None,
                stage: FestivalStage::Bidding { to_act: 1 },
            });
            added
        });
    }

    #[test]
    fn memory_counts_what_eternal_palace_holds_deep_inside() {
        use eternal_palace::state::{Pending, PlacedGroup};
        let mut table = opening::<EternalPalace>(&Default::default(), 3, 1);
        // A revealed group: players -> Vec<Vec<u8>>.
        check_growth(&mut table, |state| {
            let groups = &mut state.players[2].groups;
            let before = buffer(groups);
            let group = vec![3, 3, 5];
            let owned = buffer(&group);
            groups.push(group);
            buffer(groups) - before + owned
        });
        // Dice on a location: Vec<Vec<PlacedGroup>> -> Vec<u8>.
        check_growth(&mut table, |state| {
            let dice = &mut state.location_dice[4];
            let before = buffer(dice);
            let pips = vec![6, 6];
            let owned = buffer(&pips);
            dice.push(PlacedGroup { seat: 1, pips });
            buffer(dice) - before + owned
        });
        // Drawn advisors, held in an enum variant: Vec<Pending> -> Vec<String>.
        check_growth(&mut table, |state| {
            let before = buffer(&state.pending);
            let cards = vec!["held0:a01".to_owned(), "held0:a02".to_owned()];
            let owned = buffer(&cards) + cards.iter().map(String::capacity).sum::<usize>();
            state.pending.push(Pending::FishMarket {
                seat: 0,
                cards,
                draw_more: false,
            });
            buffer(&state.pending) - before + owned
        });
    }
}
