//! Every response the HTTP tests receive is checked against the committed OpenAPI document:
//! its status must be documented for the operation, its content type too, and its body must
//! validate (JSON Schema 2020-12) against the schema the document gives for them. A response
//! that does not match fails the test that received it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::{Registry, Validator};
use reqwest::Method;
use serde_json::Value;

const SPEC_URI: &str = "urn:turnpost:openapi";

fn spec() -> &'static Value {
    static SPEC: OnceLock<Value> = OnceLock::new();
    SPEC.get_or_init(|| {
        serde_json::from_str(include_str!("../../openapi/openapi.json")).expect("spec is JSON")
    })
}

fn registry() -> &'static Registry<'static> {
    static REGISTRY: OnceLock<Registry<'static>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        Registry::new()
            .add(SPEC_URI, spec().clone())
            .and_then(|registry| registry.prepare())
            .expect("the spec is a valid schema resource")
    })
}

/// A validator for the schema at `pointer` (a JSON pointer into the document), built once.
fn validator(pointer: &str) -> Arc<Validator> {
    static VALIDATORS: OnceLock<Mutex<HashMap<String, Arc<Validator>>>> = OnceLock::new();
    let validators = VALIDATORS.get_or_init(Default::default);
    if let Some(validator) = validators.lock().unwrap().get(pointer) {
        return validator.clone();
    }
    let fragment = pointer.replace('{', "%7B").replace('}', "%7D");
    let schema = serde_json::json!({"$ref": format!("{SPEC_URI}#{fragment}")});
    let validator = Arc::new(
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .with_registry(registry())
            .build(&schema)
            .unwrap_or_else(|error| panic!("schema at {pointer} does not compile: {error}")),
    );
    validators
        .lock()
        .unwrap()
        .insert(pointer.to_owned(), validator.clone());
    validator
}

/// `~` and `/` escaped for a JSON pointer.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The documented path template `path` falls under, preferring literal segments.
fn template_for(path: &str) -> Option<&'static str> {
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    spec()["paths"]
        .as_object()?
        .keys()
        .filter_map(|template| {
            let parts: Vec<&str> = template.split('/').collect();
            if parts.len() != segments.len() {
                return None;
            }
            let mut literal = 0;
            for (part, segment) in parts.iter().zip(&segments) {
                if part.starts_with('{') {
                    continue;
                }
                if part != segment {
                    return None;
                }
                literal += 1;
            }
            Some((literal, template.as_str()))
        })
        .max_by_key(|(literal, _)| *literal)
        .map(|(_, template)| template)
}

/// What keeps `value` from matching the schema at `pointer` (empty when it matches).
pub fn schema_errors(pointer: &str, value: &Value) -> Vec<String> {
    validator(pointer)
        .iter_errors(value)
        .take(5)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect()
}

#[track_caller]
fn validate(pointer: &str, body: &Value, what: &str) {
    let validator = validator(pointer);
    let errors: Vec<String> = validator
        .iter_errors(body)
        .take(5)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not match the spec ({pointer}):\n  {}\nbody: {}",
        errors.join("\n  "),
        truncated(&body.to_string())
    );
}

fn truncated(text: &str) -> String {
    if text.len() > 2_000 {
        let cut = (0..=2_000)
            .rev()
            .find(|&index| text.is_char_boundary(index))
            .unwrap_or(0);
        format!("{}...", &text[..cut])
    } else {
        text.to_owned()
    }
}

/// Checks one response against the document. `path` is the request path without query.
#[track_caller]
pub fn check(method: &Method, path: &str, status: u16, content_type: &str, body: &str) {
    if *method == Method::OPTIONS {
        // CORS preflights are answered by the middleware, outside the operations.
        return;
    }
    let what = format!("{method} {path} -> {status}");
    let media_type = content_type.split(';').next().unwrap_or_default().trim();
    let Some(template) = template_for(path) else {
        // Outside the API (the docs, /metrics, a mistyped path): errors are still problems,
        // but for the pages a mail's links open, which people read in a browser.
        let page_for_people = path.starts_with("/email/") && media_type == "text/html";
        if status >= 400 && !body.is_empty() && !page_for_people {
            assert_eq!(media_type, "application/problem+json", "{what}: {body}");
            validate("/components/schemas/Problem", &parse(body, &what), &what);
        }
        return;
    };
    let documented = if *method == Method::HEAD {
        "get"
    } else {
        method.as_str()
    };
    let operation_pointer = format!(
        "/paths/{}/{}",
        escape(template),
        documented.to_ascii_lowercase()
    );
    if spec().pointer(&operation_pointer).is_none() {
        // A method the path does not have: 405 with the Allow header, as a problem.
        assert_eq!(status, 405, "{what}: undocumented method answered {body}");
        validate("/components/schemas/Problem", &parse(body, &what), &what);
        return;
    }
    let response_pointer = format!("{operation_pointer}/responses/{status}");
    let Some(response) = spec().pointer(&response_pointer) else {
        panic!("{what}: status {status} is not documented for this operation; body: {body}");
    };
    if *method == Method::HEAD || status == 304 {
        assert!(body.is_empty(), "{what}: a body where none belongs");
        return;
    }
    let Some(content) = response.get("content").and_then(Value::as_object) else {
        assert!(
            body.is_empty(),
            "{what}: documented without a body, got {body}"
        );
        return;
    };
    assert!(
        content.contains_key(media_type),
        "{what}: content type {content_type:?} is not documented (documented: {:?})",
        content.keys().collect::<Vec<_>>()
    );
    let schema_pointer = format!("{response_pointer}/content/{}/schema", escape(media_type));
    if spec().pointer(&schema_pointer).is_none() {
        return;
    }
    if media_type == "application/x-ndjson" {
        // A stream's body schema names no type (see `streams_are_text_with_their_frames_named`
        // in openapi.rs); each line is checked against its item schema.
        let item_pointer = format!(
            "{response_pointer}/content/{}/x-item-schema",
            escape(media_type)
        );
        let line_pointer = if spec().pointer(&item_pointer).is_some() {
            item_pointer
        } else {
            schema_pointer
        };
        for line in body.lines().filter(|line| !line.is_empty()) {
            validate(&line_pointer, &parse(line, &what), &what);
        }
    } else if media_type.ends_with("json") {
        validate(&schema_pointer, &parse(body, &what), &what);
    }
}

/// Headers a client acts on (where the new resource is, the entity tag to revalidate with)
/// are declared on the response that sends them, so that a generated client exposes them,
/// and a response documented without them does not send them.
#[track_caller]
pub fn check_declared_headers(
    method: &Method,
    path: &str,
    status: u16,
    headers: &reqwest::header::HeaderMap,
) {
    let Some(template) = template_for(path) else {
        return;
    };
    let documented = if *method == Method::HEAD {
        "get".to_owned()
    } else {
        method.as_str().to_ascii_lowercase()
    };
    for name in ["Location", "ETag"] {
        if !headers.contains_key(name) {
            continue;
        }
        let pointer = format!(
            "/paths/{}/{documented}/responses/{status}/headers/{name}",
            escape(template),
        );
        assert!(
            spec().pointer(&pointer).is_some(),
            "{method} {path} -> {status} sends {name} without declaring it"
        );
    }
}

#[track_caller]
fn parse(body: &str, what: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|error| panic!("{what}: not JSON ({error}): {body}"))
}

#[cfg(test)]
mod the_check_itself {
    use super::*;

    fn fails(method: Method, path: &str, status: u16, content_type: &str, body: &str) -> bool {
        let (method, path, content_type, body) = (
            method,
            path.to_owned(),
            content_type.to_owned(),
            body.to_owned(),
        );
        std::panic::catch_unwind(move || check(&method, &path, status, &content_type, &body))
            .is_err()
    }

    const PROBLEM: &str = r#"{"type":"urn:turnpost:problem:game_not_found","title":"Not Found","status":404,"detail":"there is no game","code":"game_not_found"}"#;

    #[test]
    fn documented_problems_pass_and_drift_fails() {
        assert!(!fails(
            Method::GET,
            "/v1/games/abc",
            404,
            "application/problem+json",
            PROBLEM
        ));
        let extra = PROBLEM.replace("}", r#","surprise":1}"#);
        assert!(fails(
            Method::GET,
            "/v1/games/abc",
            404,
            "application/problem+json",
            &extra
        ));
        assert!(fails(
            Method::GET,
            "/v1/games/abc",
            418,
            "application/problem+json",
            PROBLEM
        ));
        assert!(fails(
            Method::GET,
            "/v1/games/abc",
            404,
            "text/html",
            PROBLEM
        ));
    }

    #[test]
    fn game_content_is_checked_per_kind() {
        let view = |kind: &str, view: &str| {
            format!(
                r#"{{"game_id":"g","kind":"{kind}","seq":1,"viewer_seat":null,"to_act":[0],"finished":false,"view":{view}}}"#
            )
        };
        // An empty object is no Java view, and there is no chess.
        assert!(fails(
            Method::GET,
            "/v1/games/g/view",
            200,
            "application/json",
            &view("java", "{}")
        ));
        assert!(fails(
            Method::GET,
            "/v1/games/g/view",
            200,
            "application/json",
            &view("chess", "{}")
        ));
        let legal = |actions: &str| {
            format!(r#"{{"game_id":"g","kind":"tikal","seq":3,"seat":0,"actions":{actions}}}"#)
        };
        assert!(!fails(
            Method::GET,
            "/v1/games/g/legal-actions",
            200,
            "application/json",
            &legal(r#"[{"type":"end_turn"}]"#)
        ));
        assert!(fails(
            Method::GET,
            "/v1/games/g/legal-actions",
            200,
            "application/json",
            &legal(r#"[{"type":"castle"}]"#)
        ));
        assert!(fails(
            Method::GET,
            "/v1/games/g/legal-actions",
            200,
            "application/json",
            &legal(r#"[{"type":"end_turn","extra":1}]"#)
        ));
    }

    /// The examples in the document (from games the engines played) are valid instances of
    /// the schemas they illustrate.
    #[test]
    fn every_example_in_the_spec_matches_its_schema() {
        let mut checked = 0;
        for (name, schema) in spec()["components"]["schemas"].as_object().unwrap() {
            for example in schema["examples"].as_array().into_iter().flatten() {
                validate(&format!("/components/schemas/{name}"), example, name);
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} examples");
    }
}
