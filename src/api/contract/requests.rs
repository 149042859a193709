//! What clients send, as exact as JSON Schema can say it: a request the document allows is
//! one the server takes (or refuses only for what no schema can know: a taken seat, an
//! account that does not exist, an action the game's state does not allow).

use serde_json::{json, Value};

use super::{for_each_operation, schema_ref, schemas, walk, KindContract};

/// `NewAction.action`: one of the kinds' actions. The game in the path decides the kind,
/// and some action types (`pass`, `end_turn`) exist in several kinds, so this is an `anyOf`
/// over the kinds' unions rather than a `oneOf`.
pub(super) fn type_action_requests(doc: &mut Value, kinds: &[KindContract]) {
    let Some(action) = schemas(doc).get_mut("NewAction").and_then(|post| {
        post.get_mut("properties")
            .and_then(|properties| properties.get_mut("action"))
    }) else {
        return;
    };
    let description = action.get("description").cloned();
    *action = json!({
        "anyOf": kinds
            .iter()
            .map(|kind| json!({"$ref": schema_ref(&format!("{}Action", kind.prefix))}))
            .collect::<Vec<_>>(),
    });
    if let Some(description) = description {
        action["description"] = description;
    }
}

/// Adds `extra`'s keywords to `schema`; `properties` are merged property by property.
fn merge_keywords(schema: &mut Value, extra: &Value) {
    let (Some(schema), Some(extra)) = (schema.as_object_mut(), extra.as_object()) else {
        return;
    };
    for (keyword, value) in extra {
        match (keyword.as_str(), schema.get_mut(keyword)) {
            ("properties", Some(Value::Object(properties))) => {
                for (name, more) in value.as_object().into_iter().flatten() {
                    match properties.get_mut(name) {
                        Some(property) => merge_keywords(property, more),
                        None => {
                            properties.insert(name.clone(), more.clone());
                        }
                    }
                }
            }
            _ => {
                schema.insert(keyword.clone(), value.clone());
            }
        }
    }
}

/// A kind's options get the constraints its engine states beyond the fields, and a kind's
/// creation request the ones that tie its fields to `seats`: the creator's seat and the
/// bots' seats exist, no two take the same seat, at least one seat is left for the creator,
/// and invitations need `private`.
pub(super) fn constrain_creations(doc: &mut Value, kinds: &[KindContract]) {
    let schemas = schemas(doc);
    let bot_seat = schemas.get("BotSeat").cloned();
    for kind in kinds {
        if let (Some(constraints), Some(options)) = (
            &kind.options_constraints,
            schemas.get_mut(&format!("{}Options", kind.prefix)),
        ) {
            merge_keywords(options, constraints);
        }
        let bot_name = format!("{}BotSeat", kind.prefix);
        if let Some(mut bot) = bot_seat.clone() {
            bot["properties"]["seat"]["maximum"] = json!(kind.max_players - 1);
            bot["title"] = json!(bot_name);
            schemas.insert(bot_name.clone(), bot);
        }
        let Some(create) = schemas.get_mut(&format!("{}NewGame", kind.prefix)) else {
            continue;
        };
        walk(&mut create["properties"]["bots"], &mut |node| {
            if node.get("$ref") == Some(&json!(schema_ref("BotSeat"))) {
                node.insert("$ref".into(), json!(schema_ref(&bot_name)));
            }
        });
        create["properties"]["bots"]["maxItems"] = json!(kind.max_players - 1);
        create["properties"]["invite"]["uniqueItems"] = json!(true);
        create["properties"]["invite"]["items"]["minLength"] = json!(1);
        // Under `dependentSchemas`, which validators apply and generators leave alone (a
        // top-level `anyOf` or a long `allOf` turns a generated model into a union or breaks
        // it): `seats`, always sent, brings the rules that depend on the seat count (the
        // seats named exist, and the bots leave one for the creator), and `invite` brings
        // the visibility it needs. That two bots, or a bot and the creator, name the same seat is left to
        // the server (409 `seat_taken`): said in JSON Schema it takes `minContains` under a
        // `not`, which schemathesis cannot generate from.
        let per_seat_count: Vec<Value> = (kind.min_players..=kind.max_players)
            .map(|seats| {
                let highest = seats - 1;
                json!({"properties": {
                    "seats": {"const": seats},
                    "seat": {"maximum": highest},
                    "bots": {
                        "maxItems": highest,
                        "items": {"properties": {"seat": {"maximum": highest}}},
                    },
                }})
            })
            .collect();
        create["dependentSchemas"] = json!({
            "seats": {"anyOf": per_seat_count},
            "invite": {
                "if": {"properties": {"invite": {"minItems": 1}}},
                "then": {"anyOf": [
                    {
                        "properties": {"visibility": {"enum": ["unlisted", "private"]}},
                        "required": ["visibility"],
                    },
                    {"properties": {"private": {"const": true}}, "required": ["private"]},
                ]},
            },
            // `private`, the older spelling of `visibility: private`, agrees with it.
            "private": {"allOf": [
                {
                    "if": {"properties": {"private": {"const": true}}},
                    "then": {"properties": {"visibility": {"enum": ["private", null]}}},
                },
                {
                    "if": {"properties": {"private": {"const": false}}},
                    "then": {"properties": {"visibility": {"enum": ["public", "unlisted", null]}}},
                },
            ]},
        });
    }
    schemas.remove("BotSeat");
}

/// Query and path parameters named `kind` take one of the hosted kinds.
pub(super) fn kind_parameters(doc: &mut Value, kinds: &[KindContract]) {
    let names: Vec<Value> = kinds.iter().map(|kind| json!(kind.kind)).collect();
    for_each_parameter(doc, |parameter| {
        let in_query_or_path = parameter["in"] == "query" || parameter["in"] == "path";
        if in_query_or_path && parameter["name"] == "kind" {
            parameter["schema"]["enum"] = Value::Array(names.clone());
        }
    });
}

/// A header is a string or absent, never `null`; `Last-Event-ID` is a seq or notification
/// id.
pub(super) fn header_parameters(doc: &mut Value) {
    for_each_parameter(doc, |parameter| {
        if parameter["in"] != "header" {
            return;
        }
        let schema = &mut parameter["schema"];
        if schema["type"] == json!(["string", "null"]) {
            schema["type"] = json!("string");
        }
        if parameter["name"] == "Last-Event-ID" {
            parameter["schema"]["pattern"] = json!("^[0-9]{1,18}$");
        }
    });
}

fn for_each_parameter(doc: &mut Value, mut visit: impl FnMut(&mut Value)) {
    for_each_operation(doc, |_, _, operation| {
        if let Some(parameters) = operation
            .get_mut("parameters")
            .and_then(Value::as_array_mut)
        {
            parameters.iter_mut().for_each(&mut visit);
        }
    });
}

/// A moment is written as RFC 3339 and its description says so: every string property and
/// parameter whose description names RFC 3339 gets `format: date-time`, so that generated
/// clients read it as a date (Python's `datetime`, a checked string in TypeScript).
pub(super) fn times(doc: &mut Value) {
    fn is_time(schema: &Value, description: Option<&Value>) -> bool {
        let says = description
            .and_then(Value::as_str)
            .is_some_and(|text| text.contains("RFC 3339"));
        let string = schema["type"] == "string" || schema["type"] == json!(["string", "null"]);
        says && string
    }
    fn visit(value: &mut Value) {
        match value {
            Value::Object(fields) => {
                if let Some(Value::Object(properties)) = fields.get_mut("properties") {
                    for property in properties.values_mut() {
                        if is_time(property, property.get("description")) {
                            property["format"] = json!("date-time");
                        }
                    }
                }
                fields.values_mut().for_each(visit);
            }
            Value::Array(items) => items.iter_mut().for_each(visit),
            _ => {}
        }
    }
    if let Some(schemas) = doc.pointer_mut("/components/schemas") {
        visit(schemas);
    }
    for_each_parameter(doc, |parameter| {
        if is_time(&parameter["schema"], parameter.get("description")) {
            parameter["schema"]["format"] = json!("date-time");
        }
    });
}

/// Free texts (chat messages, names people give) carry the pattern of what the server takes
/// (see [`crate::service::free_text`]), beside the prose that says it.
pub(super) fn clean_texts(doc: &mut Value) {
    use crate::service::free_text::pattern;
    let schemas = schemas(doc);
    for (schema, property, lines) in FREE_TEXTS {
        let Some(field) = schemas
            .get_mut(*schema)
            .and_then(|schema| schema.pointer_mut(&format!("/properties/{property}")))
        else {
            panic!("free text {schema}.{property} is not in the document");
        };
        field["pattern"] = json!(pattern(*lines));
    }
}

/// A profile's country and language are codes of the server's lists: the schema says
/// which, so that a client validating against it refuses exactly what the server refuses.
pub(super) fn list_profile_codes(doc: &mut Value) {
    use crate::service::profiles::{country_codes, language_codes};
    let schemas = schemas(doc);
    for (property, codes) in [
        ("country", country_codes().collect::<Vec<_>>()),
        ("language", language_codes().collect::<Vec<_>>()),
    ] {
        let Some(field) = schemas
            .get_mut("Profile")
            .and_then(|schema| schema.pointer_mut(&format!("/properties/{property}")))
        else {
            panic!("Profile.{property} is not in the document");
        };
        let mut values: Vec<Value> = codes.into_iter().map(|code| json!(code)).collect();
        values.push(Value::Null);
        field["enum"] = Value::Array(values);
    }
}

/// The request fields that are free texts, and whether they may span lines.
const FREE_TEXTS: &[(&str, &str, crate::service::free_text::Lines)] = &[
    (
        "NewChatMessage",
        "text",
        crate::service::free_text::Lines::Many,
    ),
    (
        "NewPersonalToken",
        "name",
        crate::service::free_text::Lines::One,
    ),
    (
        "TikalNewGame",
        "title",
        crate::service::free_text::Lines::One,
    ),
    (
        "JavaNewGame",
        "title",
        crate::service::free_text::Lines::One,
    ),
    (
        "EternalPalaceNewGame",
        "title",
        crate::service::free_text::Lines::One,
    ),
    ("Profile", "about", crate::service::free_text::Lines::Many),
];
