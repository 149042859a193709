//! What the server answers, as exact as the document can say it: each problem response
//! lists its codes, each response its headers, each stream the shape of its frames.

use serde_json::{json, Value};

use super::{for_each_response, schema_ref, schemas, KindContract, PROBLEM_REF};
use crate::api::paging;
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

/// Every paged list the same way: its `cursor` parameter described once (see
/// [`crate::api::paging`]) and its 200 answer's `Link` header to the next page.
pub(super) fn declare_paging(doc: &mut Value) {
    super::for_each_operation(doc, |_, _, operation| {
        let mut paged = false;
        for parameter in operation
            .get_mut("parameters")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            // An older way to start a list, kept for old clients: its text says so.
            if parameter["description"]
                .as_str()
                .is_some_and(|text| text.contains("Deprecated: page with `cursor`"))
            {
                parameter["deprecated"] = json!(true);
            }
            if parameter["in"] == "query" && parameter["name"] == "cursor" {
                parameter["description"] = json!(paging::CURSOR_DESCRIPTION);
                parameter["schema"] = json!({"type": "string", "pattern": paging::CURSOR_PATTERN});
                paged = true;
            }
        }
        if let Some(ok) = operation.pointer_mut("/responses/200").filter(|_| paged) {
            ok["headers"]["Link"] = header(
                "The next page's address (RFC 8288), with `rel=\"next\"`: this request's with \
             `cursor` set to the body's `next`; absent on the last page",
                json!({"type": "string", "pattern": "^<[^>]+>; rel=\"next\"$"}),
            );
        }
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
        // The body is a sequence of frames, not one JSON document, and generators disagree
        // on what a stream's schema describes: openapi-python-client parses the whole body
        // by it, @hey-api/openapi-ts each frame's `data`. A schema that names no type suits
        // both (the body as text; each `data` as parsed JSON); the frames' schemas ride
        // along as `x-item-schema` (what OpenAPI 3.2 calls `itemSchema`).
        ok["content"] = json!({
            "text/event-stream": {
                "schema": {
                    "description": format!("Server-Sent Events, each frame a `{frame}` (see `x-item-schema`)"),
                },
                "x-item-schema": {"$ref": schema_ref(frame)},
                "example": example,
            },
            "application/x-ndjson": {
                "schema": {
                    "description": format!("One `{line}` a line (see `x-item-schema`)"),
                },
                "x-item-schema": {"$ref": schema_ref(line)},
            },
        });
        ok["description"] = json!(format!(
            "The stream: Server-Sent Events (each frame a `{frame}`), or with `Accept: \
             application/x-ndjson` one `{line}` a line. A client that reads the body only \
             once it is complete (a generated one) asks for `max_seconds`, reads the frames \
             sent meanwhile, and asks again with `after` = the last id read"
        ));
    }
}

/// `Problem.code` is a `ProblemCode`, a named enum of every code (generators drop the
/// per-response enums beside a `$ref`, see [`problem_codes`], but turn a named one into
/// an enum type) with each code's statuses and meaning in `x-enum-descriptions` (the
/// extension openapi-generator and others put on the enum's members); `Problem.rule` is one
/// of the kinds' rule codes; the optional fields are absent rather than `null`.
pub(super) fn type_problem_fields(doc: &mut Value, kinds: &[KindContract]) {
    let codes: Vec<&str> = PROBLEM_CODES.iter().map(|(code, _, _)| *code).collect();
    let meanings: Vec<String> = PROBLEM_CODES
        .iter()
        .map(|(_, statuses, meaning)| {
            let statuses: Vec<String> = statuses.iter().map(u16::to_string).collect();
            format!("{}: {meaning}", statuses.join(", "))
        })
        .collect();
    schemas(doc).insert(
        "ProblemCode".into(),
        json!({
            "type": "string",
            "description": "A problem's stable machine-readable code. `x-enum-descriptions` \
                            gives each code's HTTP statuses and meaning, in the enum's order \
                            (as does the README's table); each response lists the codes it \
                            can carry, with an example of each. A later version may add \
                            codes, each listed in the README's changes: a client treats a \
                            code it does not know like its HTTP status.",
            "enum": codes,
            "x-enum-descriptions": meanings,
        }),
    );
    let Some(properties) = schemas(doc)
        .get_mut("Problem")
        .and_then(|problem| problem.get_mut("properties"))
    else {
        return;
    };
    properties["code"] = json!({"$ref": schema_ref("ProblemCode")});
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

/// A link: the operation and status it leaves from, its name, the operation it leads to
/// and that operation's parameters as runtime expressions.
type Link<'a> = (&'a str, &'a str, &'a str, &'a str, &'a [(&'a str, &'a str)]);

/// What a response's ids lead to, as OpenAPI links: a client (and a stateful fuzzer) can
/// follow a created game, webhook, token, device, chat message or account to the
/// operations on it.
pub(super) fn add_links(doc: &mut Value) {
    let body_id = "$response.body#/id";
    let links: &[Link] = &[
        (
            "create_game",
            "201",
            "GetGame",
            "get_game",
            &[("id", body_id)],
        ),
        (
            "create_game",
            "201",
            "NewSeat",
            "join_game",
            &[("id", body_id)],
        ),
        (
            "create_game",
            "201",
            "CancelGame",
            "cancel_game",
            &[("id", body_id)],
        ),
        (
            "create_game",
            "201",
            "GetView",
            "get_view",
            &[("id", body_id)],
        ),
        (
            "create_game",
            "201",
            "GetLegalActions",
            "get_legal_actions",
            &[("id", body_id)],
        ),
        (
            "create_game",
            "201",
            "ListEvents",
            "list_events",
            &[("id", body_id)],
        ),
        (
            "create_game",
            "201",
            "ReadChat",
            "read_chat",
            &[("id", body_id)],
        ),
        (
            "create_game",
            "201",
            "GameInvitations",
            "game_invitations",
            &[("id", body_id)],
        ),
        (
            "ask_for_rematch",
            "201",
            "GetGame",
            "get_game",
            &[("id", body_id)],
        ),
        (
            "ask_for_rematch",
            "201",
            "GameInvitations",
            "game_invitations",
            &[("id", body_id)],
        ),
        (
            "join_game",
            "200",
            "GetView",
            "get_view",
            &[("id", body_id)],
        ),
        (
            "join_game",
            "200",
            "LeaveGame",
            "leave_game",
            &[("id", body_id)],
        ),
        (
            "write_chat",
            "201",
            "DeleteChatMessage",
            "delete_chat_message",
            &[("id", "$request.path.id"), ("message_id", body_id)],
        ),
        (
            "create_account",
            "201",
            "GetPlayer",
            "get_player",
            &[("name", "$response.body#/name")],
        ),
        (
            "create_account",
            "201",
            "GetAccountRatings",
            "get_account_ratings",
            &[("name", "$response.body#/name")],
        ),
        (
            "create_personal_token",
            "201",
            "RevokePersonalToken",
            "revoke_personal_token",
            &[("token_id", body_id)],
        ),
        (
            "create_webhook",
            "201",
            "ListDeliveries",
            "list_deliveries",
            &[("webhook_id", body_id)],
        ),
        (
            "create_webhook",
            "201",
            "TestWebhook",
            "test_webhook",
            &[("webhook_id", body_id)],
        ),
        (
            "create_webhook",
            "201",
            "DeleteWebhook",
            "delete_webhook",
            &[("webhook_id", body_id)],
        ),
        (
            "create_push_subscription",
            "201",
            "SetPushTopics",
            "set_push_topics",
            &[("subscription_id", body_id)],
        ),
        (
            "create_push_subscription",
            "201",
            "TestPushSubscription",
            "test_push_subscription",
            &[("subscription_id", body_id)],
        ),
        (
            "create_push_subscription",
            "201",
            "DeletePushSubscription",
            "delete_push_subscription",
            &[("subscription_id", body_id)],
        ),
        (
            "block_account",
            "201",
            "UnblockAccount",
            "unblock_account",
            &[("name", "$request.path.name")],
        ),
    ];
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut() {
        for operation in item
            .as_object_mut()
            .into_iter()
            .flat_map(|item| item.values_mut())
        {
            let id = operation["operationId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            for (source, status, name, target, parameters) in links {
                if *source != id {
                    continue;
                }
                let Some(response) = operation.pointer_mut(&format!("/responses/{status}")) else {
                    panic!("{source} has no {status} response to link from");
                };
                let parameters: serde_json::Map<String, Value> = parameters
                    .iter()
                    .map(|(parameter, value)| ((*parameter).to_owned(), json!(value)))
                    .collect();
                response["links"][*name] = json!({
                    "operationId": target,
                    "parameters": parameters,
                });
            }
        }
    }
}
