//! What the server answers, as exact as the document can say it: each problem response
//! lists its codes, each response its headers, each stream the shape of its frames.

use serde_json::{json, Value};

use super::{for_each_response, schema_ref, schemas, KindContract, PROBLEM_REF};
use crate::error::PROBLEM_CODES;

/// The codes named (in backticks) in a response's description that the server answers with
/// `status`.
fn codes_in(description: &str, status: u16) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = Vec::new();
    for quoted in description.split('`').skip(1).step_by(2) {
        if let Some((code, _, _)) = PROBLEM_CODES
            .iter()
            .find(|(code, statuses, _)| *code == quoted && statuses.contains(&status))
        {
            if !codes.contains(code) {
                codes.push(code);
            }
        }
    }
    codes
}

/// Every problem response's `code` as the enum of the codes its description names (every
/// code of that status where it names none), so a client can switch over them and a
/// validator catches a code the operation does not document.
pub(super) fn problem_codes(doc: &mut Value) {
    for_each_response(doc, |_, _, status, response| {
        let Ok(status) = status.parse::<u16>() else {
            return;
        };
        let description = response["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let Some(schema) = response.pointer_mut("/content/application~1problem+json/schema") else {
            return;
        };
        let mut codes = codes_in(&description, status);
        if codes.is_empty() {
            codes = PROBLEM_CODES
                .iter()
                .filter(|(_, statuses, _)| statuses.contains(&status))
                .map(|(code, _, _)| *code)
                .collect();
        }
        *schema = json!({
            "$ref": PROBLEM_REF,
            "properties": {"code": {"enum": codes}},
        });
    });
}

fn header(description: &str, schema: Value) -> Value {
    json!({"description": description, "schema": schema})
}

/// The headers the server sends, on the responses that carry them.
pub(super) fn declare_headers(doc: &mut Value) {
    let retry_after = header(
        "Seconds to wait before trying again",
        json!({"type": "integer", "minimum": 0}),
    );
    let etag = header(
        "A weak entity tag of the body: send it back in `If-None-Match` to get 304 while nothing changed",
        json!({"type": "string", "pattern": "^W/\"[0-9a-f]{32}\"$"}),
    );
    for_each_response(doc, |path, method, status, response| {
        let stream = path.ends_with("/stream");
        let (name, value) = match status {
            "200" | "304" if method == "get" && !stream && path != "/v1/exports" => {
                ("ETag", etag.clone())
            }
            "200" if stream => (
                "Cache-Control",
                header(
                    "`no-cache`: a stream is never stored",
                    json!({"type": "string", "enum": ["no-cache"]}),
                ),
            ),
            "201" if path == "/v1/games" || path == "/v1/games/{id}/rematch" => (
                "Location",
                header(
                    "The new game's path, `/v1/games/{id}`",
                    json!({"type": "string", "pattern": "^/v1/games/[0-9a-z]+$"}),
                ),
            ),
            "429" | "503" => ("Retry-After", retry_after.clone()),
            _ => return,
        };
        response["headers"][name] = value;
    });
}

/// The two streams' frames as schemas: the `data` of a game stream's events is the kind's
/// `<Kind>EventOut`, of the account stream's a `NotificationOut`; their NDJSON variants
/// carry the same documents a line.
pub(super) fn typed_streams(doc: &mut Value, kinds: &[KindContract]) {
    let events: Vec<Value> = kinds
        .iter()
        .map(|kind| json!({"$ref": schema_ref(&format!("{}EventOut", kind.prefix))}))
        .collect();
    let schemas = schemas(doc);
    schemas.insert(
        "GameStreamEvent".into(),
        json!({
            "description": "One event of a game stream: the game's kind's `<Kind>EventOut`, \
                            as `GET /v1/games/{id}/events` lists it.",
            "anyOf": events,
        }),
    );
    schemas.insert(
        "GameStreamFrame".into(),
        json!({
            "type": "object",
            "description": "One Server-Sent Event of a game stream, by its fields: `id` is the \
                            event's seq, `event` its type and `data` the event as one line of \
                            JSON (its `contentSchema`); the last frame of a finished game is `event: end` with \
                            `data: {}`. Comments (`: heartbeat`) and `retry:` may come between \
                            frames.",
            "required": ["event", "data"],
            "properties": {
                "id": {"type": "string", "pattern": "^[0-9]+$"},
                "event": {"type": "string"},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"anyOf": [
                        {"$ref": schema_ref("GameStreamEvent")},
                        {"type": "object", "maxProperties": 0},
                    ]},
                },
                "retry": {"type": "integer", "minimum": 0},
            },
            "additionalProperties": false,
        }),
    );
    schemas.insert(
        "NotificationStreamFrame".into(),
        json!({
            "type": "object",
            "description": "One Server-Sent Event of the account stream, by its fields: `id` is \
                            the notification's id, `event` its type and `data` the \
                            notification as one line of JSON (its `contentSchema`). Comments (`: heartbeat`) and \
                            `retry:` may come between frames.",
            "required": ["id", "event", "data"],
            "properties": {
                "id": {"type": "string", "pattern": "^[0-9]+$"},
                "event": {"$ref": schema_ref("NotificationKind")},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"$ref": schema_ref("NotificationOut")},
                },
                "retry": {"type": "integer", "minimum": 0},
            },
            "additionalProperties": false,
        }),
    );
    for (path, frame, line) in [
        (
            "/v1/games/{id}/stream",
            "GameStreamFrame",
            "GameStreamEvent",
        ),
        (
            "/v1/me/stream",
            "NotificationStreamFrame",
            "NotificationOut",
        ),
    ] {
        let pointer = format!("/paths/{}/get/responses/200", path.replace('/', "~1"));
        let Some(ok) = doc.pointer_mut(&pointer) else {
            continue;
        };
        let example = ok
            .pointer("/content/text~1event-stream/example")
            .cloned()
            .unwrap_or(Value::Null);
        ok["content"] = json!({
            "text/event-stream": {
                "schema": {"$ref": schema_ref(frame)},
                "example": example,
            },
            "application/x-ndjson": {
                "schema": {"$ref": schema_ref(line)},
            },
        });
        ok["description"] = json!(format!(
            "The stream: Server-Sent Events (each frame a `{frame}`), or with `Accept: \
             application/x-ndjson` one `{line}` a line"
        ));
    }
}

/// `Problem.rule` is one of the kinds' rule codes; the optional fields are absent rather
/// than `null`.
pub(super) fn type_problem_fields(doc: &mut Value, kinds: &[KindContract]) {
    let Some(properties) = schemas(doc)
        .get_mut("Problem")
        .and_then(|problem| problem.get_mut("properties"))
    else {
        return;
    };
    let description = properties["rule"]["description"].clone();
    properties["rule"] = json!({
        "description": description,
        "anyOf": kinds
            .iter()
            .map(|kind| json!({"$ref": schema_ref(&format!("{}RuleCode", kind.prefix))}))
            .collect::<Vec<_>>(),
    });
    properties["current_seq"]["type"] = json!("integer");
    properties["current_seq"]["minimum"] = json!(0);
}

/// Removes the schemas nothing refers to any more (the unions whose variants now live in
/// the kinds' log-event unions), until none is left.
pub(super) fn drop_unreferenced(doc: &mut Value) {
    loop {
        let text = doc.to_string();
        let unreferenced: Vec<String> = schemas(doc)
            .keys()
            .filter(|name| !text.contains(&format!("\"{}\"", schema_ref(name))))
            .cloned()
            .collect();
        if unreferenced.is_empty() {
            return;
        }
        let schemas = schemas(doc);
        for name in unreferenced {
            schemas.remove(&name);
        }
    }
}
