use reqwest::Method;
use serde_json::json;

use turnpost::auth::scopes::required_scope;

use crate::util::{Backend, TestApp};

const COMMITTED: &str = include_str!("../../openapi/openapi.json");

/// The committed spec is the served one, byte for byte. After an API change, rewrite it
/// with `cargo run -- openapi > openapi/openapi.json` and review the diff.
#[tokio::test]
async fn the_committed_spec_is_the_served_spec() {
    assert!(
        COMMITTED == turnpost::api::docs::spec_json(),
        "openapi/openapi.json is stale: run `cargo run -- openapi > openapi/openapi.json`"
    );
    let app = TestApp::start(Backend::Sqlite).await;
    let served = app
        .request(Method::GET, "/openapi.json", None, None, &[])
        .await
        .expect_status(200);
    assert!(
        served.text == COMMITTED,
        "the served spec differs from openapi/openapi.json"
    );
}

/// Swagger UI pre-fills a parameter's example: an `Idempotency-Key` example would make the
/// second "Try it out" of another action a reused key (422), so none is given.
#[test]
fn no_idempotency_key_is_pre_filled() {
    let spec: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    let mut keys = 0;
    for operation in spec["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|path| path.as_object().unwrap().values())
    {
        for parameter in operation["parameters"].as_array().into_iter().flatten() {
            if parameter["name"] == "Idempotency-Key" {
                keys += 1;
                assert!(parameter.get("example").is_none(), "{parameter}");
                assert!(parameter["schema"].get("example").is_none(), "{parameter}");
                assert!(parameter.get("examples").is_none(), "{parameter}");
            }
        }
    }
    assert!(keys > 0, "the actions take an Idempotency-Key");
}

#[test]
fn the_spec_documents_every_route_and_each_kinds_schemas() {
    let spec: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    for path in [
        "/v1/accounts",
        "/v1/tokens",
        "/v1/game-kinds",
        "/v1/games",
        "/v1/games/{id}",
        "/v1/games/{id}/seats",
        "/v1/games/{id}/view",
        "/v1/games/{id}/legal-actions",
        "/v1/games/{id}/actions",
        "/v1/games/{id}/events",
        "/v1/games/{id}/export",
        "/healthz",
        "/readyz",
    ] {
        assert!(spec["paths"][path].is_object(), "{path} is documented");
    }
    for rules in turnpost::games::all_games() {
        let prefix = turnpost::api::kinds::schema_prefix(rules.kind());
        for suffix in ["Action", "LogEvent", "View", "Options", "RuleCode"] {
            let name = format!("{prefix}{suffix}");
            assert!(
                spec["components"]["schemas"][&name].is_object(),
                "schema {name}"
            );
        }
    }
    assert_eq!(
        spec["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
}

fn committed() -> serde_json::Value {
    serde_json::from_str(COMMITTED).unwrap()
}

/// Every `$ref` names a schema that exists.
#[test]
fn every_reference_resolves() {
    let spec = committed();
    let mut references = Vec::new();
    collect_references(&spec, &mut references);
    assert!(references.len() > 100);
    for reference in references {
        let pointer = reference.trim_start_matches('#');
        assert!(
            spec.pointer(pointer).is_some(),
            "{reference} does not resolve"
        );
    }
}

fn collect_references(value: &serde_json::Value, into: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(reference) = map.get("$ref").and_then(|r| r.as_str()) {
                into.push(reference.to_owned());
            }
            map.values()
                .for_each(|child| collect_references(child, into));
        }
        serde_json::Value::Array(items) => items
            .iter()
            .for_each(|child| collect_references(child, into)),
        _ => {}
    }
}

/// Generators need named variants: every action and event of every kind is its own schema
/// with a title, reached through a discriminator on `type`, and every action variant has
/// an example.
#[test]
fn every_action_and_event_variant_is_named_and_every_action_has_an_example() {
    let spec = committed();
    let schemas = &spec["components"]["schemas"];
    for rules in turnpost::games::all_games() {
        let prefix = turnpost::api::kinds::schema_prefix(rules.kind());
        for union in ["Action", "LogEvent"] {
            let name = format!("{prefix}{union}");
            let discriminator = &schemas[&name]["discriminator"];
            assert_eq!(discriminator["propertyName"], "type", "{name}");
            let mapping = discriminator["mapping"].as_object().expect("mapping");
            assert_eq!(
                mapping.len(),
                schemas[&name]["oneOf"].as_array().unwrap().len(),
                "{name}: one mapping per variant"
            );
            for (tag, reference) in mapping {
                let variant_name = reference.as_str().unwrap().rsplit('/').next().unwrap();
                let variant = &schemas[variant_name];
                assert_eq!(variant["title"], variant_name);
                assert_eq!(variant["properties"]["type"]["enum"][0], tag.as_str());
                if union == "Action" {
                    let examples = variant["examples"].as_array();
                    assert!(
                        examples.is_some_and(|examples| examples[0]["type"] == tag.as_str()),
                        "{variant_name} has no example"
                    );
                }
            }
        }
    }
}

/// Public operations carry no `security` (not `[{}]`, which generators read as "optional
/// auth"); every other operation names the bearer scheme with the scope a personal token
/// needs for it.
#[test]
fn only_operations_that_need_a_token_name_the_bearer_scheme() {
    let spec = committed();
    assert!(spec.get("security").is_none());
    let public = [
        "/healthz",
        "/readyz",
        "/v1/accounts",
        "/v1/tokens",
        "/v1/email/confirm",
        "/v1/email/unsubscribe",
    ];
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let public_read = path.ends_with("z") || path == "/v1/push/vapid-public-key";
            if public.contains(&path.as_str()) && method == "post" || public_read {
                assert!(operation.get("security").is_none(), "{method} {path}");
            } else {
                let scope = required_scope(method, path)
                    .unwrap_or_else(|| panic!("{method} {path} has no scope"));
                assert_eq!(
                    operation["security"],
                    json!([{"bearer": [scope.name()]}]),
                    "{method} {path}"
                );
            }
        }
    }
}

/// Every operation of the document built from the code that takes a bearer token has a
/// scope in the table the server checks (a route added without one would be refused to
/// every personal token), and every route of the table is an operation of the document.
#[test]
fn every_operation_that_takes_a_token_has_a_scope_and_the_table_names_no_other() {
    let spec = turnpost::api::docs::openapi();
    let mut operations = std::collections::HashSet::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Some(security) = operation.get("security") else {
                continue;
            };
            assert!(
                security[0].get("bearer").is_some(),
                "{method} {path}: {security}"
            );
            assert!(
                required_scope(method, path).is_some(),
                "{method} {path} takes a bearer token but has no scope in \
                 src/auth/scopes.rs: add one"
            );
            operations.insert((method.to_uppercase(), path.clone()));
        }
    }
    for (method, pattern, _) in turnpost::auth::scopes::routes() {
        assert!(
            operations.contains(&(method.to_owned(), pattern.to_owned())),
            "the scope table lists {method} {pattern}, which the document does not have"
        );
    }
}

/// The README's table of problem codes is the one `PROBLEM_CODES` makes, every code there is
/// documented by some operation, and every code an operation documents is there (a typo in a
/// response's description would otherwise drop a code from its enum).
#[test]
fn every_problem_code_is_in_the_table_and_documented_by_an_operation() {
    let readme = include_str!("../../README.md");
    let start = readme
        .find("<!-- problem codes")
        .and_then(|start| readme[start..].find('\n').map(|end| start + end + 1))
        .expect("the README marks its table of problem codes");
    let end = readme
        .find("<!-- /problem codes -->")
        .expect("the table's end");
    assert_eq!(
        &readme[start..end],
        turnpost::error::problem_codes_table(),
        "README.md's table of problem codes is stale: paste turnpost::error::problem_codes_table()"
    );
    let spec = committed();
    let mut documented = std::collections::BTreeSet::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for (status, response) in operation["responses"].as_object().unwrap() {
                let Some(codes) = response
                    .pointer("/content/application~1problem+json/schema/properties/code/enum")
                else {
                    continue;
                };
                let status: u16 = status.parse().unwrap();
                for code in codes.as_array().unwrap() {
                    let code = code.as_str().unwrap();
                    assert!(
                        turnpost::error::is_documented_problem(code, status),
                        "{method} {path} {status}: {code}"
                    );
                    documented.insert(code.to_owned());
                }
                let description = response["description"].as_str().unwrap_or_default();
                for quoted in description.split('`').skip(1).step_by(2) {
                    let looks_like_code = quoted.contains('_')
                        && quoted.chars().all(|c| c.is_ascii_lowercase() || c == '_');
                    if looks_like_code
                        && ![
                            "expected_seq",
                            "current_seq",
                            "personal_token",
                            "your_turn",
                            "to_act",
                            "max_seconds",
                        ]
                        .contains(&quoted)
                    {
                        assert!(
                            codes.as_array().unwrap().contains(&json!(quoted)),
                            "{method} {path} {status} names `{quoted}`, which is not a code of that status"
                        );
                    }
                }
            }
        }
    }
    // Answers to paths and methods no operation has.
    let beside_operations = ["route_not_found", "method_not_allowed"];
    for (code, _, _) in turnpost::error::PROBLEM_CODES {
        if beside_operations.contains(code) {
            continue;
        }
        assert!(
            documented.contains(*code),
            "no operation documents `{code}`"
        );
    }
}

/// Every documented GET answers HEAD as well (RFC 9110 requires it of a GET resource): a
/// HEAD on each documented GET path, its path parameters filled in, is never 405.
#[tokio::test]
async fn every_documented_get_answers_head() {
    let spec: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    let app = TestApp::start(Backend::Sqlite).await;
    let reader = app.register("head-reader").await;
    let mut tried = 0;
    for (path, operations) in spec["paths"].as_object().unwrap() {
        if operations.get("get").is_none() {
            continue;
        }
        let filled: String = path
            .split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    "x1"
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        let answer = app
            .request(Method::HEAD, &filled, Some(&reader.token), None, &[])
            .await;
        assert_ne!(answer.status, 405, "HEAD {path}: {:?}", answer.text);
        tried += 1;
    }
    assert!(tried > 30, "only {tried} GET paths");
}

/// The README's count of the document's schemas is the committed spec's.
#[test]
fn the_readme_counts_the_specs_schemas() {
    let spec: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    let count = spec["components"]["schemas"].as_object().unwrap().len();
    let readme = include_str!("../../README.md").replace('\n', " ");
    let said = format!("each of the document's {count} schemas");
    assert!(
        readme.contains(&said),
        "README.md should say \"{said}\" (the spec has {count} schemas)"
    );
}

/// Every schema a description names in backticks (`TikalView`, or `<Kind>View` for each
/// kind's) is in the document: no description points at a schema that was renamed.
#[test]
fn descriptions_name_only_schemas_that_exist() {
    let spec: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    let schemas = spec["components"]["schemas"].as_object().unwrap();
    // Backticked words that are headers or values, not schemas.
    let not_schemas = ["ETag", "Location", "Host", "Allow", "Bearer", "E1"];
    let text = spec.to_string();
    let mut missing = std::collections::BTreeSet::new();
    for piece in text.split('`').skip(1).step_by(2) {
        let (name, per_kind) = match piece.strip_prefix("<Kind>") {
            Some(rest) => (rest, true),
            None => (piece, false),
        };
        let looks_like_a_schema = name.chars().next().is_some_and(char::is_uppercase)
            && name.len() > 1
            && name.chars().all(char::is_alphanumeric);
        if !looks_like_a_schema || not_schemas.contains(&name) {
            continue;
        }
        let wanted: Vec<String> = if per_kind {
            ["Tikal", "Java", "EternalPalace"]
                .iter()
                .map(|prefix| format!("{prefix}{name}"))
                .collect()
        } else {
            vec![name.to_owned()]
        };
        for schema in wanted {
            if !schemas.contains_key(&schema) {
                missing.insert(piece.to_owned());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "descriptions name no such schema: {missing:?}"
    );
}

/// A description that lists notification types in backticks lists all of them or names
/// `NotificationKind`, where they all are: none lists a few as if they were all.
#[test]
fn notification_types_are_listed_whole_or_by_their_schema() {
    let spec: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    let kinds: Vec<String> = spec["components"]["schemas"]["NotificationKind"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kind| format!("`{}`", kind.as_str().unwrap()))
        .collect();
    let mut descriptions = Vec::new();
    fn collect(value: &serde_json::Value, into: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(fields) => {
                for (key, field) in fields {
                    match (key.as_str(), field) {
                        ("description", serde_json::Value::String(text)) => into.push(text.clone()),
                        _ => collect(field, into),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|item| collect(item, into)),
            _ => {}
        }
    }
    collect(&spec, &mut descriptions);
    for text in descriptions {
        let named = kinds
            .iter()
            .filter(|kind| text.contains(kind.as_str()))
            .count();
        // Problem codes share some names (`game_finished`): only texts about notifications.
        if named >= 3 && named < kinds.len() && text.contains("notification") {
            assert!(
                text.contains("NotificationKind"),
                "lists {named} of {} notification types without naming NotificationKind: {text}",
                kinds.len()
            );
        }
    }
}

/// Every parameter that names a game kind (`kind`, in a query or a path) lists the kinds
/// as an enum, as the request bodies do.
#[test]
fn every_kind_parameter_is_an_enum_of_the_kinds() {
    let spec: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    let mut found = 0;
    for operations in spec["paths"].as_object().unwrap().values() {
        for operation in operations.as_object().unwrap().values() {
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                if parameter["name"] == "kind" {
                    found += 1;
                    assert_eq!(
                        parameter["schema"]["enum"],
                        json!(["tikal", "java", "eternal_palace"]),
                        "{parameter}"
                    );
                }
            }
        }
    }
    assert!(found >= 3, "{found}");
}

/// Every moment the API writes (`created_at`, `deadline`, `until`, an event's `time`, ...)
/// and every moment a query takes is a `date-time`, so generated clients read dates.
#[test]
fn every_moment_is_a_date_time() {
    let spec: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    let is_moment = |name: &str| {
        name.ends_with("_at")
            || ["deadline", "until", "vacation_until", "since", "time"].contains(&name)
    };
    let mut checked = 0;
    for (schema_name, schema) in spec["components"]["schemas"].as_object().unwrap() {
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            let string =
                property["type"] == "string" || property["type"] == json!(["string", "null"]);
            if is_moment(name) && string {
                checked += 1;
                assert_eq!(property["format"], "date-time", "{schema_name}.{name}");
            }
        }
    }
    for operations in spec["paths"].as_object().unwrap().values() {
        for operation in operations.as_object().unwrap().values() {
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap();
                if parameter["in"] == "query" && is_moment(name) {
                    checked += 1;
                    assert_eq!(parameter["schema"]["format"], "date-time", "{parameter}");
                }
            }
        }
    }
    assert!(checked > 35, "only {checked} moments");
}

/// Every operation has a one-line summary (what an index or a generated method's docstring
/// shows first) and a description that ends by saying who may call it, since generators
/// do not show the scopes of an http bearer scheme.
#[test]
fn every_operation_has_a_short_summary_and_a_description_naming_its_scope() {
    let spec = committed();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let summary = operation["summary"].as_str().unwrap_or_default();
            let description = operation["description"].as_str().unwrap_or_default();
            assert!(
                !summary.is_empty() && summary.chars().count() <= 100 && !summary.contains('\n'),
                "{method} {path}: summary {summary:?}"
            );
            assert!(
                description.len() > summary.len(),
                "{method} {path}: no description"
            );
            let who = match operation["security"][0]["bearer"][0].as_str() {
                Some(scope) => format!("a personal token with the `{scope}` scope."),
                None if operation.get("security").is_some() => {
                    "personal tokens may not call it).".to_owned()
                }
                None => "No sign-in needed.".to_owned(),
            };
            assert!(
                description.ends_with(&who),
                "{method} {path}: the description does not end with {who:?}"
            );
        }
    }
}

/// Every link leads to an operation that exists and fills exactly its path parameters,
/// from a field the linking response has or a parameter of its request.
#[test]
fn every_link_fills_the_path_parameters_of_an_operation() {
    let spec = committed();
    let mut operations = std::collections::HashMap::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for operation in item.as_object().unwrap().values() {
            operations.insert(
                operation["operationId"].as_str().unwrap().to_owned(),
                (path, operation),
            );
        }
    }
    let mut links = 0;
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for (status, response) in operation["responses"].as_object().unwrap() {
                for (name, link) in response["links"].as_object().into_iter().flatten() {
                    links += 1;
                    let target = link["operationId"].as_str().unwrap();
                    let (target_path, _) = operations
                        .get(target)
                        .unwrap_or_else(|| panic!("{method} {path} {status} {name}: no {target}"));
                    let mut needed: Vec<&str> = target_path
                        .split('/')
                        .filter_map(|part| part.strip_prefix('{')?.strip_suffix('}'))
                        .collect();
                    needed.sort_unstable();
                    let parameters = link["parameters"].as_object().unwrap();
                    let mut given: Vec<&str> = parameters.keys().map(String::as_str).collect();
                    given.sort_unstable();
                    assert_eq!(given, needed, "{method} {path} {status} {name}");
                    for value in parameters.values() {
                        let value = value.as_str().unwrap();
                        if let Some(field) = value.strip_prefix("$response.body#/") {
                            let schema = &response["content"]["application/json"]["schema"];
                            assert!(
                                resolves_field(&spec, schema, field),
                                "{method} {path} {status} {name}: the body has no `{field}`"
                            );
                        } else {
                            let parameter = value.strip_prefix("$request.path.").unwrap();
                            assert!(
                                path.contains(&format!("{{{parameter}}}")),
                                "{method} {path} {status} {name}: no path parameter {parameter}"
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(links >= 20, "{links} links");
}

/// Whether every object `schema` may be (following references and unions) has `field`.
fn resolves_field(spec: &serde_json::Value, schema: &serde_json::Value, field: &str) -> bool {
    if let Some(reference) = schema["$ref"].as_str() {
        return resolves_field(spec, spec.pointer(&reference[1..]).unwrap(), field);
    }
    if let Some(variants) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
        return variants
            .iter()
            .all(|variant| resolves_field(spec, variant, field));
    }
    schema["required"]
        .as_array()
        .is_some_and(|required| required.contains(&json!(field)))
}

/// `Problem.code` is a named enum of every code, which generators turn into an enum type
/// (they drop the per-response enums beside a `$ref`).
#[test]
fn problem_codes_are_a_named_enum() {
    let spec = committed();
    let schemas = &spec["components"]["schemas"];
    assert_eq!(
        schemas["Problem"]["properties"]["code"],
        json!({"$ref": "#/components/schemas/ProblemCode"})
    );
    let codes: Vec<&str> = turnpost::error::PROBLEM_CODES
        .iter()
        .map(|(code, _, _)| *code)
        .collect();
    assert_eq!(schemas["ProblemCode"]["enum"], json!(codes));
    // Each code's meaning, in the enum's order, for a reader of the document alone.
    let meanings: Vec<String> = turnpost::error::PROBLEM_CODES
        .iter()
        .map(|(_, statuses, meaning)| {
            let statuses: Vec<String> = statuses.iter().map(u16::to_string).collect();
            format!("{}: {meaning}", statuses.join(", "))
        })
        .collect();
    assert_eq!(
        schemas["ProblemCode"]["x-enum-descriptions"],
        json!(meanings)
    );
}

/// A stream's body is not one JSON document (a generator parsed it as one frame and
/// failed); each frame's schema is named beside it.
#[test]
fn streams_are_text_with_their_frames_named() {
    let spec = committed();
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
        let content = &spec["paths"][path]["get"]["responses"]["200"]["content"];
        for (media, item) in [("text/event-stream", frame), ("application/x-ndjson", line)] {
            // No type: openapi-python-client then gives the body as text, and
            // @hey-api/openapi-ts each frame's data as parsed JSON.
            let schema = content[media]["schema"].as_object().unwrap();
            assert_eq!(
                schema.keys().collect::<Vec<_>>(),
                ["description"],
                "{path} {media}"
            );
            assert_eq!(
                content[media]["x-item-schema"],
                json!({"$ref": format!("#/components/schemas/{item}")}),
                "{path} {media}"
            );
            assert!(spec["components"]["schemas"].get(item).is_some());
        }
    }
}

/// Every request body has an example (or named examples), and each matches the body's
/// schema; schemathesis's first phase sends them to a live server.
#[test]
fn every_request_body_has_examples_that_match_its_schema() {
    let spec = committed();
    let mut checked = 0;
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Some(media) = operation.pointer("/requestBody/content/application~1json") else {
                continue;
            };
            let mut examples: Vec<&serde_json::Value> = media.get("example").into_iter().collect();
            examples.extend(
                media["examples"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(_, example)| &example["value"]),
            );
            assert!(
                !examples.is_empty(),
                "{method} {path} has no request example"
            );
            let pointer = format!(
                "/paths/{}/{method}/requestBody/content/application~1json/schema",
                path.replace('~', "~0").replace('/', "~1")
            );
            for example in examples {
                let errors = crate::contract::schema_errors(&pointer, example);
                assert!(errors.is_empty(), "{method} {path}: {example} {errors:?}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 28, "{checked} examples");
}

/// The body schemas an answer may have: the schema itself, or each branch of a union, with
/// references followed.
fn body_variants(spec: &serde_json::Value, schema: &serde_json::Value) -> Vec<serde_json::Value> {
    if let Some(reference) = schema["$ref"].as_str() {
        let target = spec.pointer(reference.trim_start_matches('#')).unwrap();
        return body_variants(spec, target);
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(branches) = schema[union].as_array() {
            return branches
                .iter()
                .flat_map(|branch| body_variants(spec, branch))
                .collect();
        }
    }
    vec![schema.clone()]
}

/// One way to page: exactly the lists below answer with `next`, and each takes `limit` (with
/// its maximum) and `cursor`, requires `next` (a string or null) in every variant of its
/// body, and declares the `Link` header of the next page. A new list that forgets one of
/// them, or a list answer that stops paging, fails here.
#[test]
fn every_list_pages_with_limit_cursor_next_and_link() {
    let spec = committed();
    let lists = [
        "/v1/games",
        "/v1/me/invitations",
        "/v1/games/{id}/invitations",
        "/v1/games/{id}/chat",
        "/v1/games/{id}/events",
        "/v1/me/notifications",
        "/v1/me/personal-tokens",
        "/v1/me/webhooks",
        "/v1/me/webhooks/{webhook_id}/deliveries",
        "/v1/me/push-subscriptions",
        "/v1/me/blocks",
        "/v1/me/following",
        "/v1/accounts/{name}/ratings",
        "/v1/leaderboards/{kind}",
        "/v1/moderation/reports",
        "/v1/moderation/log",
    ];
    let mut paged = Vec::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        let Some(get) = item.get("get") else { continue };
        let Some(schema) = get.pointer("/responses/200/content/application~1json/schema") else {
            continue;
        };
        let variants = body_variants(&spec, schema);
        let with_next = variants
            .iter()
            .filter(|variant| variant["properties"].get("next").is_some())
            .count();
        if with_next == 0 {
            continue;
        }
        assert_eq!(
            with_next,
            variants.len(),
            "{path}: every variant has `next`"
        );
        paged.push(path.as_str());
        for variant in &variants {
            assert!(
                variant["required"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("next")),
                "{path}: `next` is required"
            );
            let next = &variant["properties"]["next"];
            assert_eq!(next["type"], json!(["string", "null"]), "{path}: {next}");
        }
        let parameters = get["parameters"].as_array().unwrap();
        let query = |name: &str| {
            parameters
                .iter()
                .find(|parameter| parameter["in"] == "query" && parameter["name"] == name)
                .unwrap_or_else(|| panic!("{path} takes `{name}`"))
        };
        let limit = &query("limit")["schema"];
        assert_eq!(limit["minimum"], 1, "{path}");
        let maximum = limit["maximum"].as_i64().unwrap();
        assert!((200..=1000).contains(&maximum), "{path}: at most {maximum}");
        let cursor = query("cursor");
        assert!(cursor["schema"]["pattern"].is_string(), "{path}");
        assert!(cursor["description"].as_str().unwrap().contains("`next`"));
        assert!(
            get.pointer("/responses/200/headers/Link").is_some(),
            "{path} declares its Link header"
        );
        for older in ["offset", "after"] {
            if let Some(parameter) = parameters.iter().find(|p| p["name"] == older) {
                let deprecated = parameter["description"]
                    .as_str()
                    .unwrap()
                    .contains("Deprecated");
                assert_eq!(
                    parameter["deprecated"] == true,
                    deprecated,
                    "{path} {older}"
                );
            }
        }
    }
    paged.sort_unstable();
    let mut expected = lists.to_vec();
    expected.sort_unstable();
    assert_eq!(paged, expected);
}

/// Request bodies are named one way: `New<Thing>` for what a request creates (a game, a
/// seat, an action, ...), `<Thing>Change` for what it changes, or the plain noun it
/// carries (`Credentials`, `Reminders`); never after a verb or with a suffix such as
/// `Request` or `In`. A per-kind envelope is its kind's prefix on such a name.
#[test]
fn request_bodies_are_named_one_way() {
    let spec = committed();
    let nouns = [
        "Credentials",
        "AbandonVote",
        "Reminders",
        "AutomaticVacation",
        "MailToken",
        "PushTopics",
        "ModerationReason",
        "Profile",
    ];
    let mut names = std::collections::BTreeSet::new();
    for item in spec["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            let Some(content) = operation.pointer("/requestBody/content") else {
                continue;
            };
            for media in content.as_object().unwrap().values() {
                let schema = &media["schema"];
                let mut references = Vec::new();
                collect_references(schema, &mut references);
                for reference in references {
                    let name = reference.rsplit('/').next().unwrap().to_owned();
                    names.insert(name);
                }
            }
        }
    }
    assert!(names.len() >= 20, "{names:?}");
    for name in &names {
        let plain = ["Tikal", "Java", "EternalPalace"]
            .iter()
            .find_map(|prefix| {
                name.strip_prefix(prefix)
                    .filter(|rest| rest.starts_with("New"))
            })
            .unwrap_or(name.as_str());
        assert!(
            plain.starts_with("New") || plain.ends_with("Change") || nouns.contains(&plain),
            "request body `{name}`: name it New<Thing>, <Thing>Change or a plain noun"
        );
    }
}
