use reqwest::Method;

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
        let prefix = turnpost::api::docs::schema_prefix(rules.kind());
        for suffix in ["Action", "Event", "View", "Options"] {
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
