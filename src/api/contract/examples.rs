//! Examples for the contract, each taken from a game the engine plays: the first action and
//! event of every type, a late view, and the options of the games played.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use super::KindContract;
use crate::games::{GameRules, RecordedEvent, Table};

/// Examples of a kind's content, each taken from a game played by the engine.
#[derive(Debug, Default, Clone)]
pub struct ContentExamples {
    /// One action per action type, with the seq it was legal at.
    pub actions: BTreeMap<String, (i64, Value)>,
    /// One event payload per event type.
    pub events: BTreeMap<String, Value>,
    /// The options of the games played (the first is the kind's defaults).
    pub options: Vec<Value>,
    /// A view late in a game, as its first seat saw it.
    pub view: Option<Value>,
}

/// The contract of one hosted kind, with examples from games its engine plays with random
/// legal moves: the defaults and each boolean option switched on, one seat count each.
pub fn kind_contract(rules: &dyn GameRules) -> KindContract {
    let counts = rules.player_counts();
    KindContract {
        kind: rules.kind().to_owned(),
        prefix: crate::api::kinds::schema_prefix(rules.kind()),
        min_players: *counts.start(),
        max_players: *counts.end(),
        options_constraints: rules.options_constraints(),
        examples: examples_from_play(rules),
    }
}

/// The kind's defaults, then each boolean option switched on and each list of choices with
/// every choice taken (a kind's modules), read from its options schema.
fn option_sets(rules: &dyn GameRules) -> Vec<Value> {
    let schema = serde_json::to_value(rules.options_schema()).unwrap_or_default();
    let prefix = crate::api::kinds::schema_prefix(rules.kind());
    let named: BTreeMap<String, Value> = rules
        .schemas(&prefix)
        .into_iter()
        .map(|(name, schema)| (name, serde_json::to_value(schema).unwrap_or_default()))
        .collect();
    let mut sets = vec![rules.default_options()];
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let items = &property["items"];
        let choices = match items.get("$ref").and_then(Value::as_str) {
            Some(reference) => named
                .get(reference.trim_start_matches("#/components/schemas/"))
                .and_then(|schema| schema.get("enum").cloned()),
            None => items.get("enum").cloned(),
        };
        let value = match (property["type"].as_str(), choices) {
            (Some("boolean"), _) => Value::Bool(true),
            (Some("array"), Some(choices)) => choices,
            _ => continue,
        };
        sets.push(json!({ name.as_str(): value }));
    }
    sets
}

/// Random games per kind: enough to meet all but the rarest action types (those, such as a
/// contested Java festival, take their example from the action's documentation).
const GAMES_FOR_EXAMPLES: usize = 4;

fn examples_from_play(rules: &dyn GameRules) -> ContentExamples {
    let option_sets = option_sets(rules);
    let counts: Vec<u8> = rules.player_counts().collect();
    let mut examples = ContentExamples::default();
    let games = option_sets.len().max(GAMES_FOR_EXAMPLES);
    for index in 0..games {
        let seats = counts[index % counts.len()];
        let options = &option_sets[index % option_sets.len()];
        // A set the kind refuses on its own (an option that needs another) gives no example.
        if let Ok(options) = rules.normalize_options(options) {
            let played = play_for_examples(rules, &options, seats, index as u64, &mut examples);
            if played && !examples.options.contains(&options) {
                examples.options.push(options);
            }
        }
    }
    examples
}

/// Plays one game with random legal moves (at most 5,000), preferring action types not met
/// yet, and keeps the first action and event of each type, and the first seat's view at
/// the end. Whether the game could be set up with `options`.
fn play_for_examples(
    rules: &dyn GameRules,
    options: &Value,
    seats: u8,
    seed: u64,
    examples: &mut ContentExamples,
) -> bool {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let version = rules.newest_rules_version();
    let schema_version = rules.event_schema_version();
    let (Ok(opening), Ok(mut table)) = (
        rules.setup(options, seats, version, None, &mut rng),
        rules.new_table(options, seats, version),
    ) else {
        return false;
    };
    let mut seq = 0_i64;
    let mut record = |table: &mut Box<dyn Table>, events: Vec<RecordedEvent>, seq: &mut i64| {
        for event in events {
            examples
                .events
                .entry(event.event_type.clone())
                .or_insert_with(|| event.payload.clone());
            *seq += 1;
            if table
                .apply(&event.payload.to_string(), schema_version)
                .is_err()
            {
                return false;
            }
        }
        true
    };
    if !record(&mut table, opening, &mut seq) {
        return true;
    }
    for _ in 0..5_000 {
        if table.outcome().is_some() {
            break;
        }
        let to_act = table.to_act();
        let Some(&seat) = to_act.get(rng.gen_range(0..to_act.len().max(1))) else {
            break;
        };
        let legal = table.legal_actions(seat);
        if legal.is_empty() {
            break;
        }
        // Actions of a type without an example yet come first, so rare ones are met.
        let type_of = |action: &Value| {
            action
                .get("type")
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let unseen: Vec<&Value> = legal
            .iter()
            .filter(|action| {
                type_of(action).is_some_and(|tag| !examples.actions.contains_key(&tag))
            })
            .collect();
        let action = if unseen.is_empty() {
            legal[rng.gen_range(0..legal.len())].clone()
        } else {
            unseen[rng.gen_range(0..unseen.len())].clone()
        };
        let Ok((_, events)) = table.decide(seat, &action, &mut rng) else {
            break;
        };
        if let Some(tag) = action.get("type").and_then(Value::as_str) {
            examples
                .actions
                .entry(tag.to_owned())
                .or_insert_with(|| (seq, action.clone()));
        }
        if !record(&mut table, events, &mut seq) {
            break;
        }
    }
    if examples.view.is_none() {
        examples.view = Some(table.view(crate::games::engine::Viewer::Seat(0)));
    }
    true
}
