//! A seat's legal actions as a tree of choices: first what (the action's `type`, then the
//! fields that say what is played: a tile, a piece), then where, then how, one field at a
//! time, in the order the action's fields are declared.
//!
//! A client picks one option per step and sends its picks back; it never needs the whole
//! list, which can run to thousands of actions (Java's opening turn). A field on which every
//! remaining action agrees is no choice: it is fixed by the rules (`forced`) and takes no
//! pick, so a client only ever sees real alternatives. Once one action remains, it is the
//! action to post. The tree is computed from the flat list, so it offers exactly the legal
//! actions, each by exactly one path.

use std::collections::HashMap;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// The tag every action carries first.
pub const TYPE_FIELD: &str = "type";

/// Where a seat's picks lead among its legal actions.
#[derive(Debug, Clone, PartialEq)]
pub struct Choices {
    /// The fields fixed so far, in order: by a pick, or by the rules where every remaining
    /// action has the same value. A field no remaining action has is left out.
    pub chosen: Vec<Chosen>,
    /// The field to choose next; `None` once one action remains, or when none is legal.
    pub field: Option<String>,
    /// The values `field` can take, in the order the rules list the actions.
    pub options: Vec<ChoiceOption>,
    /// The action the picks lead to, once it is the only one left.
    pub action: Option<Value>,
    /// How many legal actions the picks leave.
    pub remaining: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    pub field: String,
    /// The field's value; `null` when the actions left leave the field out.
    pub value: Value,
    /// `true` when the rules left no other value, so no pick was spent on it.
    pub forced: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChoiceOption {
    /// What to send back as the pick: a text value as it is (`"E1"`), anything else as its
    /// JSON (`3`, `true`, `["pc07","pc11"]`), `null` for actions without the field.
    pub choice: String,
    pub value: Value,
    /// How many legal actions lie under this option.
    pub actions: usize,
    /// The action itself when it is the only one under this option.
    pub action: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    #[error("pick {step} ({choice:?}) is not one of the options for `{field}`")]
    NotAnOption {
        /// Which pick, counted from 0.
        step: usize,
        field: String,
        choice: String,
    },
    #[error("{given} picks were given, but the action is complete after {used}")]
    TooManyPicks { given: usize, used: usize },
}

/// A seat's legal actions, each with its fields in the order the rules declare them (read
/// from the actions' JSON text, whatever order a JSON map keeps its keys in).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ActionTree {
    actions: Vec<Fields>,
}

/// One action's fields in declared order.
#[derive(Debug, Clone, PartialEq)]
struct Fields(Vec<(String, Value)>);

static NULL: Value = Value::Null;

impl Fields {
    fn get(&self, field: &str) -> &Value {
        self.0
            .iter()
            .find(|(name, _)| name == field)
            .map_or(&NULL, |(_, value)| value)
    }

    fn has(&self, field: &str) -> bool {
        self.0.iter().any(|(name, _)| name == field)
    }

    fn to_value(&self) -> Value {
        Value::Object(self.0.iter().cloned().collect())
    }
}

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Fields, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Fields;
            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("an action object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

impl ActionTree {
    /// The tree of a JSON array of actions, as [`crate::Table::legal_actions_json`] writes it.
    pub fn from_json(actions: &str) -> Result<ActionTree, serde_json::Error> {
        Ok(ActionTree {
            actions: serde_json::from_str(actions)?,
        })
    }

    pub fn len(&self) -> usize {
        self.actions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// The step `picks` lead to.
    pub fn choose<S: AsRef<str>>(&self, picks: &[S]) -> Result<Choices, ChoiceError> {
        let mut remaining: Vec<&Fields> = self.actions.iter().collect();
        let mut chosen = Vec::new();
        let mut decided: Vec<String> = Vec::new();
        let mut used = 0;
        while let Some(field) = next_field(&remaining, &decided) {
            decided.push(field.clone());
            let options = options_of(&remaining, &field);
            if let [only] = options.as_slice() {
                if !only.value.is_null() {
                    chosen.push(Chosen {
                        field,
                        value: only.value.clone(),
                        forced: true,
                    });
                }
                continue;
            }
            let Some(pick) = picks.get(used).map(AsRef::as_ref) else {
                return Ok(Choices {
                    chosen,
                    field: Some(field),
                    options,
                    action: None,
                    remaining: remaining.len(),
                });
            };
            let Some(option) = options.into_iter().find(|option| option.choice == pick) else {
                return Err(ChoiceError::NotAnOption {
                    step: used,
                    field,
                    choice: pick.to_owned(),
                });
            };
            remaining.retain(|action| *action.get(&field) == option.value);
            chosen.push(Chosen {
                field,
                value: option.value,
                forced: false,
            });
            used += 1;
        }
        if used < picks.len() {
            return Err(ChoiceError::TooManyPicks {
                given: picks.len(),
                used,
            });
        }
        Ok(Choices {
            chosen,
            field: None,
            options: Vec::new(),
            action: remaining.first().map(|action| action.to_value()),
            remaining: remaining.len(),
        })
    }

    /// The picks that lead to `action`, or `None` when it is not one of the actions.
    pub fn picks_for(&self, action: &Value) -> Option<Vec<String>> {
        let mut picks = Vec::new();
        loop {
            let step = self.choose(&picks).ok()?;
            match step.field {
                None => return (step.action.as_ref() == Some(action)).then_some(picks),
                Some(field) => {
                    let value = action.get(&field).unwrap_or(&NULL);
                    let option = step.options.iter().find(|option| option.value == *value)?;
                    picks.push(option.choice.clone());
                }
            }
        }
    }
}

/// The first field not yet decided that a remaining action has, in declared order: the
/// fields of all remaining actions merged so that a field some actions leave out (an
/// optional one) comes before the field it precedes where it is present; `type` first.
fn next_field(remaining: &[&Fields], decided: &[String]) -> Option<String> {
    let mut order: Vec<&str> = vec![TYPE_FIELD];
    for action in remaining {
        let names: Vec<&str> = action.0.iter().map(|(name, _)| name.as_str()).collect();
        for (index, name) in names.iter().enumerate() {
            if order.contains(name) {
                continue;
            }
            let before = names[index + 1..]
                .iter()
                .find_map(|later| order.iter().position(|known| known == later));
            order.insert(before.unwrap_or(order.len()), name);
        }
    }
    order
        .into_iter()
        .find(|field| {
            !decided.iter().any(|done| done == field)
                && remaining.iter().any(|action| action.has(field))
        })
        .map(str::to_owned)
}

fn options_of(remaining: &[&Fields], field: &str) -> Vec<ChoiceOption> {
    let mut options: Vec<ChoiceOption> = Vec::new();
    let mut index_of: HashMap<String, usize> = HashMap::new();
    for action in remaining {
        let value = action.get(field);
        let choice = choice_text(value);
        match index_of.get(&choice) {
            Some(&index) => {
                let option = &mut options[index];
                option.actions += 1;
                option.action = None;
            }
            None => {
                index_of.insert(choice.clone(), options.len());
                options.push(ChoiceOption {
                    choice,
                    value: value.clone(),
                    actions: 1,
                    action: Some(action.to_value()),
                });
            }
        }
    }
    options
}

/// A value as a pick: text as it is, anything else as JSON.
pub fn choice_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Written as text: the fields' order is part of what is tested.
    const JAVA_LIKE: &str = r#"[
        {"type": "place_tile", "tile": "three_space", "space": "E1", "rotation": 0, "cost": 1},
        {"type": "place_tile", "tile": "three_space", "space": "E1", "rotation": 3, "cost": 2},
        {"type": "place_tile", "tile": "three_space", "space": "F2", "rotation": 0, "cost": 1},
        {"type": "place_tile", "tile": "two_space", "space": "E1", "rotation": 0, "cost": 1},
        {"type": "use_action_chip"},
        {"type": "end_turn"}
    ]"#;

    fn tree(json: &str) -> (ActionTree, Vec<Value>) {
        (
            ActionTree::from_json(json).unwrap(),
            serde_json::from_str(json).unwrap(),
        )
    }

    #[test]
    fn the_first_step_offers_what_to_do_with_how_many_actions_under_each() {
        let (tree, _) = tree(JAVA_LIKE);
        let step = tree.choose::<&str>(&[]).unwrap();
        assert_eq!(step.field.as_deref(), Some("type"));
        assert!(step.chosen.is_empty());
        assert_eq!(step.remaining, 6);
        let offered: Vec<(&str, usize)> = step
            .options
            .iter()
            .map(|option| (option.choice.as_str(), option.actions))
            .collect();
        assert_eq!(
            offered,
            [("place_tile", 4), ("use_action_chip", 1), ("end_turn", 1)]
        );
        assert_eq!(step.options[0].action, None);
        assert_eq!(step.options[2].action, Some(json!({"type": "end_turn"})));
    }

    #[test]
    fn picks_lead_through_what_where_and_how_and_derived_fields_are_forced() {
        let (tree, actions) = tree(JAVA_LIKE);
        let step = tree.choose(&["place_tile"]).unwrap();
        assert_eq!(step.field.as_deref(), Some("tile"));
        let step = tree.choose(&["place_tile", "three_space"]).unwrap();
        assert_eq!(step.field.as_deref(), Some("space"));
        let spaces: Vec<&str> = step.options.iter().map(|o| o.choice.as_str()).collect();
        assert_eq!(spaces, ["E1", "F2"]);
        let step = tree.choose(&["place_tile", "three_space", "E1"]).unwrap();
        assert_eq!(step.field.as_deref(), Some("rotation"));
        assert_eq!(step.options[1].choice, "3");
        let done = tree
            .choose(&["place_tile", "three_space", "E1", "3"])
            .unwrap();
        assert_eq!(done.field, None);
        assert_eq!(done.remaining, 1);
        assert_eq!(done.action, Some(actions[1].clone()));
        let cost = done.chosen.last().unwrap();
        assert_eq!((cost.field.as_str(), cost.forced), ("cost", true));
        assert_eq!(cost.value, json!(2));
    }

    #[test]
    fn a_field_with_one_value_left_takes_no_pick() {
        let (tree, actions) = tree(JAVA_LIKE);
        // F2 has one tile and one rotation: the rest is forced.
        let done = tree.choose(&["place_tile", "three_space", "F2"]).unwrap();
        assert_eq!(done.action, Some(actions[2].clone()));
        let forced: Vec<bool> = done.chosen.iter().map(|c| c.forced).collect();
        assert_eq!(forced, [false, false, false, true, true]);
        // A lone type is forced too, so a seat with one action gets it at once.
        let (lone, _) = super::tests::tree(r#"[{"type": "pass"}]"#);
        let step = lone.choose::<&str>(&[]).unwrap();
        assert_eq!(step.action, Some(json!({"type": "pass"})));
        assert_eq!(step.chosen[0].field, "type");
    }

    #[test]
    fn a_wrong_or_extra_pick_is_refused_with_where_it_went_wrong() {
        let (tree, _) = tree(JAVA_LIKE);
        assert_eq!(
            tree.choose(&["place_tile", "nine_space"]),
            Err(ChoiceError::NotAnOption {
                step: 1,
                field: "tile".into(),
                choice: "nine_space".into()
            })
        );
        assert_eq!(
            tree.choose(&["end_turn", "now"]),
            Err(ChoiceError::TooManyPicks { given: 2, used: 1 })
        );
    }

    #[test]
    fn no_legal_action_is_an_empty_step() {
        let empty = ActionTree::from_json("[]").unwrap();
        let step = empty.choose::<&str>(&[]).unwrap();
        assert_eq!((step.field, step.action, step.remaining), (None, None, 0));
        assert_eq!(
            empty.choose(&["end_turn"]),
            Err(ChoiceError::TooManyPicks { given: 1, used: 0 })
        );
    }

    #[test]
    fn optional_fields_keep_their_place_and_their_absence_is_an_option() {
        let (tree, actions) = tree(
            r#"[
                {"type": "resolve", "returned": "a", "hire": true},
                {"type": "resolve", "hire": true},
                {"type": "resolve", "kept": "b", "hire": false}
            ]"#,
        );
        // One type only: it is forced, and the first pick is the first field that differs.
        let step = tree.choose::<&str>(&[]).unwrap();
        assert_eq!(step.chosen[0].field, "type");
        assert_eq!(step.field.as_deref(), Some("returned"));
        let options: Vec<&str> = step.options.iter().map(|o| o.choice.as_str()).collect();
        assert_eq!(options, ["a", "null"]);
        let step = tree.choose(&["null"]).unwrap();
        assert_eq!(step.field.as_deref(), Some("kept"));
        let done = tree.choose(&["null", "b"]).unwrap();
        assert_eq!(done.action, Some(actions[2].clone()));
        assert_eq!(tree.picks_for(&actions[1]).unwrap(), ["null", "null"]);
    }

    #[test]
    fn lists_and_numbers_are_picked_as_their_json() {
        let (tree, actions) = tree(
            r#"[{"type": "bid", "cards": ["pc07", "pc11"]}, {"type": "bid", "cards": ["pc07"]}]"#,
        );
        let step = tree.choose::<&str>(&[]).unwrap();
        assert_eq!(step.options[0].choice, r#"["pc07","pc11"]"#);
        assert_eq!(
            tree.choose(&[r#"["pc07"]"#]).unwrap().action,
            Some(actions[1].clone())
        );
    }

    /// Over random games of every kind and seat count: each step's options are distinct and
    /// count every action left, every legal action is reached by exactly the picks that
    /// spell it, and a random walk always ends at a legal action.
    #[test]
    fn every_legal_action_is_reached_and_nothing_else_in_real_games() {
        use rand::{Rng, SeedableRng};

        use crate::{all_games, opened_table};
        for rules in all_games() {
            for seats in rules.player_counts() {
                let mut table = opened_table(*rules, seats);
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(seats) + 40);
                let mut steps = 0;
                while steps < 60 && table.outcome().is_none() {
                    for seat in table.to_act() {
                        let actions = table.legal_actions(seat);
                        let tree =
                            ActionTree::from_json(table.legal_actions_json(seat).get()).unwrap();
                        let first = tree.choose::<&str>(&[]).unwrap();
                        let counted: usize = first.options.iter().map(|o| o.actions).sum();
                        if first.field.is_some() {
                            assert_eq!(counted, actions.len(), "{}", rules.kind());
                        }
                        let stride = actions.len() / 25 + 1;
                        for action in actions.iter().step_by(stride) {
                            let picks = tree.picks_for(action).unwrap_or_else(|| {
                                panic!("{}: {action} cannot be reached", rules.kind())
                            });
                            let reached = tree.choose(&picks).unwrap();
                            assert_eq!(reached.action.as_ref(), Some(action));
                        }
                        let mut picks: Vec<String> = Vec::new();
                        loop {
                            let step = tree.choose(&picks).unwrap();
                            let mut texts: Vec<&str> =
                                step.options.iter().map(|o| o.choice.as_str()).collect();
                            texts.sort_unstable();
                            texts.dedup();
                            assert_eq!(texts.len(), step.options.len(), "{}", rules.kind());
                            if step.field.is_none() {
                                assert!(actions.contains(step.action.as_ref().unwrap()));
                                break;
                            }
                            assert!(step.options.len() > 1, "a lone option is forced");
                            let option = &step.options[rng.gen_range(0..step.options.len())];
                            picks.push(option.choice.clone());
                        }
                    }
                    table.play_randomly(1, &mut rng);
                    steps += 1;
                }
                assert!(steps >= 20, "{}: {steps} steps", rules.kind());
            }
        }
    }
}
