//! Examples of what the server answers, recorded from a real run of the HTTP tests
//! (`scripts/record-response-examples` writes `openapi/response-examples.json`).

use serde_json::{json, Map, Value};

use super::for_each_response;
use crate::error::PROBLEM_CODES;

const RECORDED: &str = include_str!("../../../openapi/response-examples.json");

fn recorded() -> Value {
    serde_json::from_str(RECORDED).expect("openapi/response-examples.json is JSON")
}

/// The name under `components/examples` of the problem example for `code` with `status`.
fn problem_example_name(code: &str, status: &str) -> String {
    format!("{code}_{status}")
}

/// Every JSON response gets the body the tests received for it (one example per game kind
/// where the body names its kind), every stream of JSON lines its first lines, and every
/// problem response one example per code it lists, shared in `components/examples`: the
/// problem a test met with that code, or, for the few no test provokes (an unreachable
/// database, a request line cut short), one composed from the code's documented meaning.
pub(super) fn add_response_examples(doc: &mut Value) {
    let recorded = recorded();
    let mut problems = Map::new();
    for_each_response(doc, |path, method, status, response| {
        // As `tests/api/contract.rs` names what it records.
        let key = format!("{} {path} {status}", method.to_ascii_uppercase());
        if let Some(content) = response.pointer_mut("/content/application~1json") {
            match recorded["responses"][&key].as_object() {
                Some(variants) if variants.len() == 1 => {
                    content["example"] = variants.values().next().cloned().unwrap_or_default();
                }
                Some(variants) => {
                    content["examples"] = variants
                        .iter()
                        .map(|(kind, body)| {
                            let summary = format!("A {kind} game");
                            (kind.clone(), json!({"summary": summary, "value": body}))
                        })
                        .collect();
                }
                None => {}
            }
        }
        if let Some(content) = response.pointer_mut("/content/application~1x-ndjson") {
            if let Some(lines) = recorded["lines"].get(&key) {
                content["example"] = lines.clone();
            }
        }
        if let Some(content) = response.pointer_mut("/content/application~1problem+json") {
            let codes: Vec<String> = content
                .pointer("/schema/properties/code/enum")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|code| code.as_str().map(str::to_owned))
                .collect();
            let mut examples = Map::new();
            for code in codes {
                let name = problem_example_name(&code, status);
                problems
                    .entry(name.clone())
                    .or_insert_with(|| problem_example(&recorded, &code, status));
                let reference = format!("#/components/examples/{name}");
                examples.insert(code, json!({"$ref": reference}));
            }
            content["examples"] = Value::Object(examples);
        }
    });
    doc["components"]["examples"] = Value::Object(problems);
}

fn problem_example(recorded: &Value, code: &str, status: &str) -> Value {
    let meaning = PROBLEM_CODES
        .iter()
        .find(|(known, _, _)| *known == code)
        .map(|(_, _, meaning)| *meaning)
        .unwrap_or_default();
    let value = match recorded["problems"].get(format!("{code} {status}")) {
        Some(body) => body.clone(),
        None => {
            let status_number: u16 = status.parse().unwrap_or(500);
            let title = actix_web::http::StatusCode::from_u16(status_number)
                .ok()
                .and_then(|status| status.canonical_reason())
                .unwrap_or("Error");
            json!({
                "type": format!("urn:turnpost:problem:{code}"),
                "title": title,
                "status": status_number,
                "detail": meaning,
                "code": code,
            })
        }
    };
    // A summary is plain text, not Markdown.
    json!({"summary": meaning.replace('`', ""), "value": value})
}
