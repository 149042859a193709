//! Turns the document utoipa derives into the contract client generators need.
//!
//! utoipa describes game content (`view`, `action`, `payload`, `options`) as bare objects
//! because the server handles it as JSON, and it leaves unions anonymous. Here the document
//! is reshaped, as JSON, into what a generator turns into named types with a working parser:
//!
//! - every envelope that carries game content (`ViewOut`, `GameSummary`, ...) becomes a union
//!   of per-kind envelopes (`TikalViewOut`, ...) discriminated by `kind`, whose content
//!   refers to that kind's schemas (`TikalView`, ...);
//! - every union of tagged objects (a kind's actions and events, ...) gets one named schema
//!   per variant with a `title` and a `discriminator` on its tag;
//! - compositions are flattened and every object is closed (`additionalProperties: false`),
//!   so that a field the server sends and the spec does not name fails validation;
//! - integers get the bounds of their Rust types; public operations drop `security`, the
//!   others name the bearer scheme with the scope a personal token needs (from
//!   [`crate::auth::scopes`]); the statuses every operation can meet from the transport
//!   layer and the token check are added with their codes;
//! - actions and events get examples taken from real games (see [`ContentExamples`]), and
//!   every request body an example (composed from its fields' documented ones where it has
//!   none of its own);
//! - every operation gets a one-line summary and a description naming the scope it needs
//!   (see [`descriptions`]); responses that create something link to the operations on it;
//! - `Problem.code` is the named enum `ProblemCode`, each problem response narrows it to
//!   its codes; the streams' bodies name no type, their frames' schemas are `x-item-schema`;
//! - every JSON response shows a body the HTTP tests received (see [`recorded`]).

use std::collections::BTreeMap;

mod descriptions;
mod examples;
mod recorded;
mod requests;
mod responses;

use serde_json::{json, Map, Value};

pub use examples::{kind_contract, ContentExamples};

/// Schema names of one game kind's content, with examples from real games.
pub struct KindContract {
    pub kind: String,
    /// `Tikal` for `tikal`: the prefix of the kind's schemas.
    pub prefix: String,
    pub min_players: u8,
    pub max_players: u8,
    /// What the kind's options schema adds beyond its fields (see
    /// `Engine::options_constraints`).
    pub options_constraints: Option<Value>,
    pub examples: ContentExamples,
}

/// Envelopes that carry game content. Those with a `kind` field become unions over the
/// kinds; the others (only ever inside a kinded envelope) get per-kind copies.
const KINDED_ENVELOPES: &[&str] = &[
    "GameKind",
    "NewGame",
    "GameSummary",
    "ViewOut",
    "LegalActions",
    "LegalChoices",
    "ActionAccepted",
    "ActionPreview",
    "EventLog",
    "GameExport",
];
const INNER_ENVELOPES: &[&str] = &["EventOut", "ExportedAction", "ChoiceOption"];

/// Which of a kind's schemas the bare-object placeholder under each property stands for.
const CONTENT_PROPERTIES: &[(&str, &str)] = &[
    ("options", "Options"),
    ("default_options", "Options"),
    ("view", "View"),
    ("payload", "LogEvent"),
    ("action", "Action"),
    ("actions", "Action"),
];

const PROBLEM_REF: &str = "#/components/schemas/Problem";

/// Reshapes `doc` (the document utoipa derived, as JSON) into the published contract.
pub fn shape(doc: &mut Value, kinds: &[KindContract]) {
    bound_integers(doc);
    flatten_compositions(doc);
    add_servers_and_license(doc);
    specialise_envelopes(doc, kinds);
    name_tagged_variants(doc, kinds);
    merge_log_events(doc, kinds);
    requests::type_action_requests(doc, kinds);
    requests::kind_parameters(doc, kinds);
    requests::header_parameters(doc);
    requests::clean_texts(doc);
    requests::list_profile_codes(doc);
    requests::times(doc);
    responses::typed_streams(doc, kinds);
    responses::type_problem_fields(doc, kinds);
    explain_outcomes(doc);
    close_objects(doc);
    // After closing: conditions name a few properties of objects that have more.
    requests::constrain_creations(doc, kinds);
    plain_optional_bodies(doc);
    document_transport(doc);
    descriptions::describe_operations(doc);
    // After closing: the per-response `code` enums sit beside a reference to the closed
    // `Problem` and narrow it; closed, they would refuse its other fields.
    responses::problem_codes(doc);
    responses::declare_headers(doc);
    responses::declare_paging(doc);
    responses::add_links(doc);
    add_request_examples(doc, kinds);
    compose_request_examples(doc);
    recorded::add_response_examples(doc);
    responses::drop_unreferenced(doc);
}

/// `Outcome` and `GameOutcome` look alike: say which is which.
fn explain_outcomes(doc: &mut Value) {
    if let Some(outcome) = schemas(doc).get_mut("Outcome") {
        outcome["description"] = json!(
            "The scores and places as the rules decide them, inside a view. A game's own              `outcome` (`GameOutcome`, in summaries, exports and notifications) adds the              forfeits, which the server decides, and ranks forfeited seats last."
        );
    }
}

fn schemas(doc: &mut Value) -> &mut Map<String, Value> {
    doc.pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .expect("the document has component schemas")
}

fn schema_ref(name: &str) -> String {
    format!("#/components/schemas/{name}")
}

/// Calls `visit` with the path, the method and the operation of every operation.
fn for_each_operation(doc: &mut Value, mut visit: impl FnMut(&str, &str, &mut Value)) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        for (method, operation) in item.as_object_mut().into_iter().flatten() {
            visit(path, method, operation);
        }
    }
}

/// Calls `visit` with the path, the method, the status and the response of every response.
fn for_each_response(doc: &mut Value, mut visit: impl FnMut(&str, &str, &str, &mut Value)) {
    for_each_operation(doc, |path, method, operation| {
        let responses = operation
            .get_mut("responses")
            .and_then(Value::as_object_mut);
        for (status, response) in responses.into_iter().flatten() {
            visit(path, method, status, response);
        }
    });
}

/// Calls `visit` on every object in `value`, parents before their children.
fn walk(value: &mut Value, visit: &mut impl FnMut(&mut Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            visit(map);
            for child in map.values_mut() {
                walk(child, visit);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, visit);
            }
        }
        _ => {}
    }
}

/// Rust's unsigned and small integers as standard formats with their exact bounds (utoipa
/// names them `u-int8` etc., which generators do not know and validators do not check).
fn bound_integers(doc: &mut Value) {
    let small = json!({"type": "integer", "format": "int32", "minimum": 0, "maximum": 255});
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        schemas.remove("u8");
    }
    walk(doc, &mut |node| {
        if node.get("$ref").and_then(Value::as_str) == Some("#/components/schemas/u8") {
            node.remove("$ref");
            node.extend(small.as_object().cloned().unwrap_or_default());
        }
        let bounds: Option<(&str, i64, Option<i64>)> =
            match node.get("format").and_then(Value::as_str) {
                Some("uint8" | "u-int8") => Some(("int32", 0, Some(255))),
                Some("int8") => Some(("int32", -128, Some(127))),
                Some("uint16" | "u-int16") => Some(("int32", 0, Some(65_535))),
                Some("int16") => Some(("int32", -32_768, Some(32_767))),
                Some("uint32" | "u-int32") => Some(("int64", 0, Some(4_294_967_295))),
                Some("uint64" | "u-int64") => Some(("int64", 0, None)),
                _ => None,
            };
        if let Some((format, minimum, maximum)) = bounds {
            node.insert("format".into(), json!(format));
            node.entry("minimum").or_insert(json!(minimum));
            if let Some(maximum) = maximum {
                node.entry("maximum").or_insert(json!(maximum));
            }
        }
    });
}

/// `allOf` of objects (a struct flattened into another) as one object, which can then be
/// closed: a closed part of an `allOf` would refuse the other parts' properties.
fn flatten_compositions(doc: &mut Value) {
    let components = schemas(doc).clone();
    let mut merged = Vec::new();
    let resolve = |part: &Value| -> Option<Map<String, Value>> {
        let part = match part.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                components.get(reference.trim_start_matches("#/components/schemas/"))?
            }
            None => part,
        };
        let object = part.as_object()?;
        object.contains_key("properties").then(|| object.clone())
    };
    walk(doc, &mut |node| {
        let Some(parts) = node.get("allOf").and_then(Value::as_array) else {
            return;
        };
        let Some(resolved) = parts.iter().map(&resolve).collect::<Option<Vec<_>>>() else {
            return;
        };
        merged.extend(
            parts
                .iter()
                .filter_map(|part| part.get("$ref").and_then(Value::as_str))
                .map(|reference| {
                    reference
                        .trim_start_matches("#/components/schemas/")
                        .to_owned()
                }),
        );
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut description = None;
        for part in resolved {
            if let Some(Value::Object(more)) = part.get("properties") {
                properties.extend(more.clone());
            }
            for name in part
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if !required.contains(name) {
                    required.push(name.clone());
                }
            }
            description = description.or_else(|| part.get("description").cloned());
        }
        node.remove("allOf");
        node.insert("type".into(), json!("object"));
        if !node.contains_key("description") {
            if let Some(description) = description {
                node.insert("description".into(), description);
            }
        }
        node.insert("required".into(), Value::Array(required));
        node.insert("properties".into(), Value::Object(properties));
    });
    // A schema that only served as a part of a composition now lives on in the merged
    // objects; left alone it would be an unused component.
    let text = doc.to_string();
    let components = schemas(doc);
    for name in merged {
        let reference = format!("\"{}\"", schema_ref(&name));
        if !text.contains(&reference) {
            components.remove(&name);
        }
    }
}

/// Where clients find the server (the document's own origin, so the Swagger UI a server
/// serves calls that server), and the license by its SPDX identifier.
fn add_servers_and_license(doc: &mut Value) {
    doc["servers"] = json!([{"url": "/", "description": "The server that serves this document"}]);
    doc["info"]["license"] = json!({"name": "MIT", "identifier": "MIT"});
}

/// Whether `node` is the bare object utoipa writes for a `serde_json::Value`.
fn is_placeholder(node: &Map<String, Value>) -> bool {
    node.get("type").and_then(Value::as_str) == Some("object")
        && !node.contains_key("properties")
        && !node.contains_key("additionalProperties")
}

/// A placeholder that may be `null` (an `Option<Object>` field).
fn is_nullable_placeholder(node: &Map<String, Value>) -> bool {
    node.get("type") == Some(&json!(["object", "null"]))
        && !node.contains_key("properties")
        && !node.contains_key("additionalProperties")
}

/// Replaces, anywhere under `node`, the placeholder with a reference to `target`, and
/// references to the generic inner envelopes with the kind's copies.
fn point_at_kind(node: &mut Value, target: Option<&str>, prefix: &str) {
    walk(node, &mut |object| {
        if let Some(target) = target {
            if is_placeholder(object) {
                object.remove("type");
                object.remove("example");
                object.insert("$ref".into(), json!(schema_ref(target)));
            } else if is_nullable_placeholder(object) {
                object.remove("type");
                object.remove("example");
                object.insert(
                    "anyOf".into(),
                    json!([{"$ref": schema_ref(target)}, {"type": "null"}]),
                );
            }
        }
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let name = reference.trim_start_matches("#/components/schemas/");
            if INNER_ENVELOPES.contains(&name) || KINDED_ENVELOPES.contains(&name) {
                object.insert("$ref".into(), json!(schema_ref(&format!("{prefix}{name}"))));
            }
        }
    });
}

fn specialise_envelopes(doc: &mut Value, kinds: &[KindContract]) {
    let schemas = schemas(doc);
    for &name in INNER_ENVELOPES.iter().chain(KINDED_ENVELOPES) {
        let Some(generic) = schemas.get(name).cloned() else {
            continue;
        };
        let kinded = KINDED_ENVELOPES.contains(&name);
        let mut mapping = Map::new();
        let mut variants = Vec::new();
        for kind in kinds {
            let mut copy = generic.clone();
            let specific = format!("{}{name}", kind.prefix);
            if let Some(Value::Object(properties)) = copy.get_mut("properties") {
                for (property, schema) in properties.iter_mut() {
                    let target = CONTENT_PROPERTIES
                        .iter()
                        .find(|(content, _)| content == property)
                        .map(|(_, suffix)| format!("{}{suffix}", kind.prefix));
                    point_at_kind(schema, target.as_deref(), &kind.prefix);
                }
                if kinded {
                    let description = properties
                        .get("kind")
                        .and_then(|kind| kind.get("description"))
                        .cloned()
                        .unwrap_or_else(|| json!("The game kind."));
                    properties.insert(
                        "kind".into(),
                        json!({"type": "string", "enum": [kind.kind], "description": description}),
                    );
                }
                if name == "NewGame" {
                    let seats = &mut properties["seats"];
                    seats["minimum"] = json!(kind.min_players);
                    seats["maximum"] = json!(kind.max_players);
                    seats["example"] = json!(kind.min_players);
                    let seat = &mut properties["seat"];
                    walk(seat, &mut |node| {
                        let integer = match node.get("type") {
                            Some(Value::String(name)) => name == "integer",
                            Some(Value::Array(names)) => names.contains(&json!("integer")),
                            _ => false,
                        };
                        if integer {
                            node.insert("maximum".into(), json!(kind.max_players - 1));
                        }
                    });
                }
            }
            copy["title"] = json!(specific);
            schemas.insert(specific.clone(), copy);
            mapping.insert(kind.kind.clone(), json!(schema_ref(&specific)));
            variants.push(json!({"$ref": schema_ref(&specific)}));
        }
        if kinded {
            let mut union = json!({
                "oneOf": variants,
                "discriminator": {"propertyName": "kind", "mapping": mapping},
            });
            if let Some(description) = generic.get("description") {
                union["description"] = description.clone();
            }
            schemas.insert(name.to_owned(), union);
        } else {
            schemas.remove(name);
        }
    }
}

/// The property every variant of a union carries as a single-valued required string: the
/// union's tag.
fn union_tag(variants: &[Value]) -> Option<String> {
    let tag_of = |variant: &Value, property: &str| -> Option<String> {
        let schema = variant.get("properties")?.get(property)?;
        let values = schema.get("enum")?.as_array()?;
        let required = variant.get("required")?.as_array()?;
        (values.len() == 1 && required.iter().any(|name| name == property))
            .then(|| values[0].as_str().map(str::to_owned))
            .flatten()
    };
    ["type", "kind"].into_iter().find_map(|property| {
        variants
            .iter()
            .all(|variant| tag_of(variant, property).is_some())
            .then(|| property.to_owned())
    })
}

/// The JSON after `Example: ` in a schema's description, if any.
fn documented_example(schema: &Value) -> Option<Value> {
    let description = schema.get("description")?.as_str()?;
    let start = description.find("Example: `")? + "Example: `".len();
    let length = description[start..].find('`')?;
    serde_json::from_str(&description[start..start + length]).ok()
}

/// `place_tile` -> `PlaceTile`.
fn pascal(tag: &str) -> String {
    crate::api::kinds::schema_prefix(tag)
}

fn name_tagged_variants(doc: &mut Value, kinds: &[KindContract]) {
    let schemas = schemas(doc);
    let unions: Vec<String> = schemas
        .iter()
        .filter(|(_, schema)| schema.get("discriminator").is_none())
        .filter_map(|(name, schema)| {
            let variants = schema.get("oneOf")?.as_array()?;
            let inline = variants
                .iter()
                .all(|variant| variant.get("properties").is_some());
            (inline && union_tag(variants).is_some()).then(|| name.clone())
        })
        .collect();
    for name in unions {
        let union = schemas.get(&name).cloned().unwrap_or_default();
        let variants = union["oneOf"].as_array().cloned().unwrap_or_default();
        let Some(tag) = union_tag(&variants) else {
            continue;
        };
        let examples = kinds.iter().find_map(|kind| {
            if name == format!("{}Action", kind.prefix) {
                Some(
                    kind.examples
                        .actions
                        .iter()
                        .map(|(tag, (_, action))| (tag.clone(), action.clone()))
                        .collect::<BTreeMap<_, _>>(),
                )
            } else if name == format!("{}Event", kind.prefix) {
                Some(kind.examples.events.clone())
            } else {
                None
            }
        });
        let mut mapping = Map::new();
        let mut references = Vec::new();
        for mut variant in variants {
            let value = variant["properties"][&tag]["enum"][0]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let variant_name = format!("{name}{}", pascal(&value));
            variant["title"] = json!(variant_name);
            let documented = || documented_example(&variant);
            if let Some(example) = examples
                .as_ref()
                .and_then(|examples| examples.get(&value).cloned())
                .or_else(documented)
            {
                variant["examples"] = json!([example]);
            }
            assert!(
                !schemas.contains_key(&variant_name),
                "{variant_name} would name two schemas"
            );
            schemas.insert(variant_name.clone(), variant);
            mapping.insert(value, json!(schema_ref(&variant_name)));
            references.push(json!({"$ref": schema_ref(&variant_name)}));
        }
        let mut named = json!({
            "oneOf": references,
            "discriminator": {"propertyName": tag, "mapping": mapping},
        });
        for key in ["description", "title"] {
            if let Some(value) = union.get(key) {
                named[key] = value.clone();
            }
        }
        schemas.insert(name, named);
    }
}

/// `<Kind>LogEvent`: what a kind's log holds, its engine's events and the server's (clocks,
/// forfeits, take-overs), as one union discriminated by `type`.
fn merge_log_events(doc: &mut Value, kinds: &[KindContract]) {
    let schemas = schemas(doc);
    let server = schemas.get("ServerEvent").cloned().unwrap_or_default();
    for kind in kinds {
        let engine = schemas
            .get(&format!("{}Event", kind.prefix))
            .cloned()
            .unwrap_or_default();
        let mut variants = Vec::new();
        let mut mapping = Map::new();
        for union in [&engine, &server] {
            variants.extend(union["oneOf"].as_array().cloned().unwrap_or_default());
            if let Some(entries) = union["discriminator"]["mapping"].as_object() {
                for (tag, target) in entries {
                    assert!(
                        mapping.insert(tag.clone(), target.clone()).is_none(),
                        "{} and the server both have an event `{tag}`",
                        kind.prefix
                    );
                }
            }
        }
        schemas.insert(
            format!("{}LogEvent", kind.prefix),
            json!({
                "description": format!(
                    "An event of a {} game's log: one of the game's own (the `{}Event...` \
                     variants, `source: engine`) or one of the server's (the `ServerEvent...` \
                     variants, `source: server`).",
                    kind.kind, kind.prefix
                ),
                "oneOf": variants,
                "discriminator": {"propertyName": "type", "mapping": mapping},
            }),
        );
    }
}

/// Every object with declared properties is closed: what the server sends beyond them is
/// drift, and validation catches it.
fn close_objects(doc: &mut Value) {
    walk(doc, &mut |node| {
        if node.contains_key("properties") && !node.contains_key("additionalProperties") {
            node.insert("additionalProperties".into(), json!(false));
        }
    });
}

/// A body or header that may be left out is optional, not nullable: `null` is refused.
fn plain_optional_bodies(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for operation in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
    {
        let Some(content) = operation.pointer_mut("/requestBody/content/application~1json") else {
            continue;
        };
        let schema = &mut content["schema"];
        let Some(variants) = schema.get("oneOf").and_then(Value::as_array) else {
            continue;
        };
        let not_null: Vec<&Value> = variants
            .iter()
            .filter(|variant| variant.get("type") != Some(&json!("null")))
            .collect();
        if not_null.len() == 1 && variants.len() == 2 {
            *schema = not_null[0].clone();
            operation["requestBody"]["required"] = json!(false);
        }
    }
}

fn problem_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/problem+json": {"schema": {"$ref": PROBLEM_REF}}},
    })
}

/// Adds `status` with `description`, or adds the description's codes to the status the
/// operation already documents.
fn add_status(responses: &mut Map<String, Value>, status: &str, description: &str) {
    match responses.get_mut(status) {
        Some(existing) => {
            let before = existing["description"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if !before.contains(description) {
                existing["description"] = json!(if before.is_empty() {
                    description.to_owned()
                } else {
                    format!("{before}; {description}")
                });
            }
            let problem = existing
                .pointer("/content/application~1problem+json")
                .is_some();
            if !problem && status != "304" {
                *existing = problem_response(existing["description"].as_str().unwrap_or_default());
            }
        }
        None => {
            let response = if status == "304" {
                json!({"description": description})
            } else {
                problem_response(description)
            };
            responses.insert(status.to_owned(), response);
        }
    }
}

/// What the transport layer can answer any operation: bad bodies and queries, missing
/// tokens or scopes, limits, an unchanged read, a database that is down. The security of
/// public operations is removed, and every other operation names the bearer scheme itself
/// with the scope it needs.
fn document_transport(doc: &mut Value) {
    if let Some(root) = doc.as_object_mut() {
        root.remove("security");
    }
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, operation) in item.iter_mut() {
            let Some(operation) = operation.as_object_mut() else {
                continue;
            };
            let public = operation.get("security") == Some(&json!([{}]));
            // The scope a personal token needs, from the table the server checks; an
            // operation the table lacks gets none here, and a test fails on it.
            let scope = crate::auth::scopes::required_scope(method, path);
            if public {
                operation.remove("security");
            } else {
                let scopes: Vec<&str> = scope.iter().map(|scope| scope.name()).collect();
                operation.insert("security".into(), json!([{"bearer": scopes}]));
            }
            let has_body = operation.contains_key("requestBody");
            let has_query = operation
                .get("parameters")
                .and_then(Value::as_array)
                .is_some_and(|parameters| {
                    parameters
                        .iter()
                        .any(|parameter| parameter["in"] == "query")
                });
            let responses = operation
                .entry("responses")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("responses are an object");
            if has_body {
                add_status(responses, "400", "`invalid_json`: the body is not JSON; `expected_json`: send `Content-Type: application/json`; `invalid_body`: the body could not be read");
                add_status(
                    responses,
                    "408",
                    "`body_timeout`: the body did not arrive within the server's deadline",
                );
                add_status(
                    responses,
                    "413",
                    "`payload_too_large`: bodies are limited to 64 KiB",
                );
                add_status(
                    responses,
                    "415",
                    "`unsupported_content_encoding`: send bodies uncompressed",
                );
                add_status(responses, "422", "`invalid_request`: the JSON does not have this body's shape (a missing or unknown field, a wrong type)");
            }
            if has_query {
                add_status(
                    responses,
                    "400",
                    "`invalid_query`: a query parameter is malformed or out of range",
                );
            }
            // Answered by the HTTP layer before any route is chosen (see
            // `crate::framework_errors`), to a request for any operation.
            add_status(
                responses,
                "400",
                "`malformed_request`: the request line, a header or the body's framing is malformed",
            );
            add_status(
                responses,
                "408",
                "`head_timeout`: the request head did not arrive in time",
            );
            add_status(
                responses,
                "431",
                "`headers_too_large`: the request head is over 128 KiB or has more than 96 header fields",
            );
            add_status(
                responses,
                "429",
                "`too_many_connections`: the client's address holds as many connections as allowed; this one is closed after the answer (with `Retry-After`)",
            );
            if method == "post" || method == "delete" {
                add_status(
                    responses,
                    "409",
                    "`conflict`: the write met a row another request stored at the same moment; try again",
                );
            }
            if method == "get" {
                add_status(
                    responses,
                    "304",
                    "Not modified: `If-None-Match` named the current `ETag`; no body",
                );
            }
            if !public {
                add_status(responses, "401", "`missing_token`, `invalid_token`, `token_expired`, `token_revoked` (after a password change or sign-out everywhere, or a personal token's revocation), `unknown_account`");
                let needed = scope.map_or_else(
                    || "`missing_scope`: personal tokens may not use this operation".to_owned(),
                    |scope| {
                        format!("`missing_scope`: a personal token without the `{scope}` scope")
                    },
                );
                add_status(responses, "403", &needed);
                add_status(
                    responses,
                    "429",
                    "`too_many_requests_in_flight`: the account, or its address, has as many requests (or personal-token checks) under way and waiting as allowed, or this one waited 10 s for its turn (with `Retry-After`)",
                );
            }
            if path.starts_with("/v1/") {
                add_status(
                    responses,
                    "503",
                    "`database_unavailable`, `server_busy` (with `Retry-After`)",
                );
                add_status(
                    responses,
                    "500",
                    "`internal_error`: the server found its own stored data corrupt; no request causes it",
                );
            }
            if path.contains("{id}") {
                add_status(responses, "404", "`game_not_found`");
            }
        }
    }
}

/// Examples for the bodies clients send, each from a real game.
fn add_request_examples(doc: &mut Value, kinds: &[KindContract]) {
    let mut create = Map::new();
    let mut act = Map::new();
    for kind in kinds {
        let options = kind
            .examples
            .options
            .last()
            .cloned()
            .unwrap_or_else(|| json!({}));
        create.insert(
            kind.kind.clone(),
            json!({"summary": format!("A {}-player {} game", kind.min_players, kind.kind), "value": {"kind": kind.kind, "seats": kind.min_players, "options": options}}),
        );
        if let Some((seq, action)) = kind.examples.actions.values().next() {
            act.insert(
                kind.kind.clone(),
                json!({"summary": format!("A {} action", kind.kind), "value": {"expected_seq": seq, "action": action}}),
            );
        }
        let schemas = schemas(doc);
        if let Some(create_schema) = schemas.get_mut(&format!("{}NewGame", kind.prefix)) {
            create_schema["examples"] =
                json!([{"kind": kind.kind, "seats": kind.min_players, "options": options}]);
        }
        if let Some(view) = &kind.examples.view {
            if let Some(view_schema) = schemas.get_mut(&format!("{}View", kind.prefix)) {
                view_schema["examples"] = json!([view]);
            }
        }
    }
    let mut set = |pointer: &str, examples: Map<String, Value>| {
        if let Some(media) = doc.pointer_mut(pointer) {
            media["examples"] = Value::Object(examples);
        }
    };
    set(
        "/paths/~1v1~1games/post/requestBody/content/application~1json",
        create,
    );
    set(
        "/paths/~1v1~1games~1{id}~1actions~1preview/post/requestBody/content/application~1json",
        act.clone(),
    );
    set(
        "/paths/~1v1~1games~1{id}~1actions/post/requestBody/content/application~1json",
        act,
    );
    let mut join = Map::new();
    join.insert(
        "lowest".into(),
        json!({"summary": "Take the lowest open seat", "value": {}}),
    );
    join.insert(
        "seat".into(),
        json!({"summary": "Take seat 1", "value": {"seat": 1}}),
    );
    set(
        "/paths/~1v1~1games~1{id}~1seats/post/requestBody/content/application~1json",
        join,
    );
}

/// Every request body without examples gets one, put together from the examples its
/// schema and properties document (a property without one is left out, a required one
/// fails the document's build: the test of the committed document catches it).
fn compose_request_examples(doc: &mut Value) {
    let components = schemas(doc).clone();
    let mut lacking = Vec::new();
    for_each_operation(doc, |path, method, operation| {
        let Some(media) = operation.pointer_mut("/requestBody/content/application~1json") else {
            return;
        };
        if media.get("example").is_some() || media.get("examples").is_some() {
            return;
        }
        match composed_example(&media["schema"], &components) {
            Some(example) => media["example"] = example,
            None => lacking.push(format!("{method} {path}")),
        }
    });
    assert!(
        lacking.is_empty(),
        "request bodies whose schemas document no example for a required field: {lacking:?}"
    );
}

/// An example of `schema`: its own, or one made of its properties' examples.
fn composed_example(schema: &Value, components: &Map<String, Value>) -> Option<Value> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.trim_start_matches("#/components/schemas/");
        return composed_example(components.get(name)?, components);
    }
    if let Some(example) = schema
        .get("example")
        .or_else(|| schema.pointer("/examples/0"))
    {
        return Some(example.clone());
    }
    if let Some(variant) = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)
        .and_then(|variants| {
            variants
                .iter()
                .find(|variant| variant.get("type") != Some(&json!("null")))
        })
    {
        return composed_example(variant, components);
    }
    if let Some(items) = schema.get("items") {
        return Some(json!([composed_example(items, components)?]));
    }
    let properties = schema.get("properties")?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut example = Map::new();
    for (name, property) in properties {
        match composed_example(property, components) {
            Some(value) => {
                example.insert(name.clone(), value);
            }
            None if required.contains(&name.as_str()) => return None,
            None => {}
        }
    }
    Some(Value::Object(example))
}
