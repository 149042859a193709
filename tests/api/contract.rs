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
        let mut lines = Vec::new();
        for line in body.lines().filter(|line| !line.is_empty()) {
            let line = parse(line, &what);
            validate(&line_pointer, &line, &what);
            lines.push(line);
        }
        recorder::offer_lines(documented, template, status, &line_pointer, &lines);
    } else if media_type.ends_with("json") {
        let body = parse(body, &what);
        validate(&schema_pointer, &body, &what);
        recorder::offer(
            documented,
            template,
            status,
            media_type,
            &schema_pointer,
            &body,
        );
    }
}

/// With `TURNPOST_RECORD_EXAMPLES` naming a folder, the richest body met for each documented
/// JSON response (per game kind where the body has one), the first lines of each stream of
/// JSON lines and a problem for each code are written there, one file each; `scripts/record-response-examples` merges them into
/// `openapi/response-examples.json`, the examples the document shows.
pub(crate) mod recorder {
    use std::collections::{BTreeSet, HashMap};
    use std::path::PathBuf;
    use std::sync::{Mutex, OnceLock};

    use serde_json::{json, Value};

    /// Arrays in an example keep this many items: enough to show their shape.
    const ITEMS_KEPT: usize = 3;

    fn folder() -> Option<&'static PathBuf> {
        static FOLDER: OnceLock<Option<PathBuf>> = OnceLock::new();
        FOLDER
            .get_or_init(|| std::env::var_os("TURNPOST_RECORD_EXAMPLES").map(PathBuf::from))
            .as_ref()
    }

    pub fn offer(
        method: &str,
        template: &str,
        status: u16,
        media_type: &str,
        schema_pointer: &str,
        body: &Value,
    ) {
        let Some(folder) = folder() else {
            return;
        };
        let (section, key, variant) = if media_type == "application/problem+json" {
            let code = body["code"].as_str().unwrap_or_default();
            ("problems", format!("{code} {status}"), String::new())
        } else {
            let variant = body["kind"].as_str().unwrap_or_default().to_owned();
            ("responses", operation(method, template, status), variant)
        };
        let example = without_secrets(shortened_if_valid(schema_pointer, body));
        let score = richness(&example);
        keep_if_richer(folder, section, key, variant, score, example);
    }

    /// A stream or list of JSON lines: its first few lines.
    pub fn offer_lines(
        method: &str,
        template: &str,
        status: u16,
        line_pointer: &str,
        lines: &[Value],
    ) {
        let Some(folder) = folder() else {
            return;
        };
        let kept: Vec<Value> = lines
            .iter()
            .take(ITEMS_KEPT)
            .map(|line| without_secrets(shortened_if_valid(line_pointer, line)))
            .collect();
        let score = richness(&Value::Array(kept.clone()));
        let text: String = kept.iter().map(|line| format!("{line}\n")).collect();
        let key = operation(method, template, status);
        keep_if_richer(
            folder,
            "lines",
            key,
            String::new(),
            score,
            Value::String(text),
        );
    }

    fn operation(method: &str, template: &str, status: u16) -> String {
        format!("{} {template} {status}", method.to_ascii_uppercase())
    }

    /// `body` with its arrays cut short, unless its schema wants more of them.
    fn shortened_if_valid(schema_pointer: &str, body: &Value) -> Value {
        let example = shortened(body);
        if super::schema_errors(schema_pointer, &example).is_empty() {
            example
        } else {
            body.clone()
        }
    }

    /// How good an example is: richer first, then shorter.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    struct Rank {
        score: usize,
        shortness: std::cmp::Reverse<usize>,
    }

    fn keep_if_richer(
        folder: &PathBuf,
        section: &str,
        key: String,
        variant: String,
        score: usize,
        example: Value,
    ) {
        let rank = Rank {
            score,
            shortness: std::cmp::Reverse(example.to_string().len()),
        };
        static BEST: OnceLock<Mutex<HashMap<String, Rank>>> = OnceLock::new();
        let mut best = BEST.get_or_init(Default::default).lock().unwrap();
        let name = format!("{section} {key} {variant}");
        if best.get(&name).is_some_and(|&known| known >= rank) {
            return;
        }
        best.insert(name.clone(), rank);
        let file: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let record = json!({"section": section, "key": key, "variant": variant, "body": example});
        std::fs::create_dir_all(folder).expect("the examples folder can be made");
        std::fs::write(folder.join(format!("{file}.json")), record.to_string())
            .expect("an example can be written");
    }

    /// `value` with the secret part of every token and signing secret blanked, in the same
    /// shape: a test server's throwaway credentials still look like credentials to a
    /// secret scanner reading the document.
    pub fn without_secrets(value: Value) -> Value {
        match value {
            Value::Array(items) => items.into_iter().map(without_secrets).collect(),
            Value::Object(fields) => fields
                .into_iter()
                .map(|(name, field)| match (name.as_str(), field) {
                    ("token" | "secret", Value::String(secret)) => {
                        let blanked = blanked(&secret);
                        (name, Value::String(blanked))
                    }
                    (_, field) => (name, without_secrets(field)),
                })
                .collect(),
            other => other,
        }
    }

    /// A JSON Web Token keeps its header and claims, a personal token its id, a webhook
    /// secret its prefix; the rest is one repeated character.
    pub fn blanked(secret: &str) -> String {
        let (kept, hidden, filler) = if let Some(rest) = secret.strip_prefix("whsec_") {
            ("whsec_", rest, 'A')
        } else if let (true, Some(cut)) = (secret.starts_with("tpat_"), secret.rfind('_')) {
            (&secret[..=cut], &secret[cut + 1..], '0')
        } else if let Some(cut) = secret.rfind('.').filter(|_| secret.starts_with("eyJ")) {
            (&secret[..=cut], &secret[cut + 1..], 'x')
        } else {
            return secret.to_owned();
        };
        let hidden: String = hidden
            .chars()
            .map(|c| if c == '=' { c } else { filler })
            .collect();
        format!("{kept}{hidden}")
    }

    /// `value` with every array cut to its first few items.
    fn shortened(value: &Value) -> Value {
        match value {
            Value::Array(items) => items.iter().take(ITEMS_KEPT).map(shortened).collect(),
            Value::Object(fields) => fields
                .iter()
                .map(|(name, field)| (name.clone(), shortened(field)))
                .collect(),
            other => other.clone(),
        }
    }

    /// How many distinct fields `value` shows with a value (array positions taken as one):
    /// the richer body makes the better example.
    fn richness(value: &Value) -> usize {
        fn collect(value: &Value, path: String, seen: &mut BTreeSet<String>) {
            match value {
                Value::Null => {}
                Value::Array(items) => {
                    for item in items {
                        collect(item, format!("{path}[]"), seen);
                    }
                }
                Value::Object(fields) => {
                    for (name, field) in fields {
                        collect(field, format!("{path}/{name}"), seen);
                    }
                }
                _ => {
                    seen.insert(path);
                }
            }
        }
        let mut seen = BTreeSet::new();
        collect(value, String::new(), &mut seen);
        seen.len()
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
    fn recorded_credentials_are_blanked_in_their_shape() {
        assert_eq!(
            recorder::blanked("whsec_MfKQ9r8G+w=="),
            "whsec_AAAAAAAAAA=="
        );
        assert_eq!(
            recorder::blanked("tpat_abc123_9f86d0"),
            "tpat_abc123_000000"
        );
        assert_eq!(recorder::blanked("eyJh.eyJz.t7ag_Tt"), "eyJh.eyJz.xxxxxxx");
        assert_eq!(recorder::blanked("k3v9x2m4"), "k3v9x2m4");
    }

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

    /// Every JSON response shows an example that the tests received (see
    /// `scripts/record-response-examples`), every problem response one per code it lists, and
    /// each is a valid instance of the response's schema.
    #[test]
    fn every_json_response_has_an_example_that_matches_its_schema() {
        let mut missing = Vec::new();
        let mut checked = 0;
        for (pointer, status, media_type, content) in json_contents() {
            let what = pointer.clone();
            let schema = format!("{pointer}/schema");
            let examples = examples_of(content);
            if examples.is_empty() {
                missing.push(what.clone());
            }
            for (name, example) in &examples {
                let what = format!("the example {name} of {what}");
                checked += 1;
                if media_type == "application/x-ndjson" {
                    let line_schema = if content.get("x-item-schema").is_some() {
                        format!("{pointer}/x-item-schema")
                    } else {
                        schema.clone()
                    };
                    let text = example.as_str().expect("lines are text");
                    assert!(text.ends_with('\n'), "{what}: lines end in a newline");
                    for line in text.lines() {
                        validate(&line_schema, &parse(line, &what), &what);
                    }
                    continue;
                }
                validate(&schema, example, &what);
                if media_type == "application/problem+json" {
                    assert_eq!(example["code"], name.as_str(), "{what}");
                    assert_eq!(example["status"].to_string(), status, "{what}");
                }
            }
            if let Some(codes) = content
                .pointer("/schema/properties/code/enum")
                .and_then(Value::as_array)
            {
                assert_eq!(codes.len(), examples.len(), "{what}: one example per code");
            }
        }
        assert!(
            missing.is_empty(),
            "responses without an example: {missing:#?}"
        );
        assert!(checked > 800, "only {checked} examples");
    }

    /// Every JSON content of a response in the document (plain, problem or lines), with its
    /// pointer (`/paths/<path>/<method>/responses/<status>/content/<media type>`), status and
    /// media type.
    fn json_contents() -> Vec<(String, &'static str, &'static str, &'static Value)> {
        let mut contents = Vec::new();
        for (path, item) in spec()["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                for (status, response) in operation["responses"].as_object().unwrap() {
                    for (media_type, content) in
                        response["content"].as_object().into_iter().flatten()
                    {
                        if media_type.ends_with("json") {
                            let pointer = format!(
                                "/paths/{}/{method}/responses/{status}/content/{}",
                                escape(path),
                                escape(media_type)
                            );
                            contents.push((pointer, status.as_str(), media_type.as_str(), content));
                        }
                    }
                }
            }
        }
        contents
    }

    /// A content's examples by name (`""` for a lone `example`), references followed.
    fn examples_of(content: &Value) -> Vec<(String, Value)> {
        let mut examples: Vec<(String, Value)> = content["examples"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, example)| (name.clone(), resolved(example)["value"].clone()))
            .collect();
        if let Some(example) = content.get("example") {
            examples.push((String::new(), example.clone()));
        }
        examples
    }

    /// An `$ref` to `components/examples`, followed.
    fn resolved(example: &Value) -> &Value {
        match example["$ref"].as_str() {
            Some(reference) => spec()
                .pointer(reference.trim_start_matches('#'))
                .unwrap_or_else(|| panic!("{reference} leads nowhere")),
            None => example,
        }
    }

    /// What was recorded for a response or a problem the document no longer has is stale;
    /// no credential of the recording run is shown.
    #[test]
    fn every_recorded_example_is_shown() {
        let recorded: Value =
            serde_json::from_str(include_str!("../../openapi/response-examples.json")).unwrap();
        assert_eq!(recorder::without_secrets(recorded.clone()), recorded);
        for key in recorded["responses"].as_object().unwrap().keys() {
            let mut parts = key.split(' ');
            let (method, path, status) = (
                parts.next().unwrap().to_ascii_lowercase(),
                parts.next().unwrap(),
                parts.next().unwrap(),
            );
            let pointer = format!(
                "/paths/{}/{method}/responses/{status}/content/application~1json",
                escape(path)
            );
            assert!(
                spec().pointer(&pointer).is_some(),
                "{key} is not in the document"
            );
        }
        for key in recorded["problems"].as_object().unwrap().keys() {
            let name = key.replace(' ', "_");
            assert!(
                spec()["components"]["examples"].get(&name).is_some(),
                "no response shows the problem {key}"
            );
        }
    }
}
