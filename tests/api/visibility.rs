//! Who sees a game: every GET operation of the spec, walked as an outsider (an account that
//! neither sits at nor was invited to the game) against a private and an unlisted game, each
//! once running and once finished with its chat, exports and ratings. A private game must
//! answer every route exactly as an id no game has; an unlisted one answers its own routes
//! to anyone with its id but shows in no list. Its players meanwhile find both where they
//! expect them, so the search for the ids below is one that finds them when they are there.

use std::time::Duration;

use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::{Player, TestApp};

on_both_backends!(
    a_private_game_is_nobody_elses_on_any_route,
    an_unlisted_game_is_watched_by_link_and_never_listed,
);

/// An id no game has (ids are 10 letters and digits).
const NO_GAME: &str = "nosuchgame";

/// The games one visibility is tried with, and what would give them away.
struct Games {
    running: String,
    finished: String,
    /// A chat message written in each.
    chat: [String; 2],
}

impl Games {
    fn ids(&self) -> [&str; 2] {
        [&self.running, &self.finished]
    }

    /// What of these games `text` gives away, if anything.
    fn leaked_in(&self, text: &str) -> Option<String> {
        self.ids()
            .into_iter()
            .chain(self.chat.iter().map(String::as_str))
            .find(|secret| text.contains(secret))
            .map(str::to_owned)
    }
}

/// Alice and Bob play two games of `visibility` (Bob invited); one of them to its end, rated.
async fn two_games(app: &TestApp, alice: &Player, bob: &Player, visibility: &str) -> Games {
    let mut ids = Vec::new();
    let mut chat = Vec::new();
    for finished in [false, true] {
        let id = app
            .post(
                alice,
                "/v1/games",
                &json!({"kind": "tikal", "seats": 2, "visibility": visibility,
                        "invite": ["bob"]}),
            )
            .await
            .expect_status(201)
            .json()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        app.post(bob, &format!("/v1/games/{id}/seats"), &json!({}))
            .await
            .expect_status(200);
        let players = [alice.clone(), bob.clone()];
        // Enough actions of each seat for the game to count for ratings.
        for _ in 0..40 {
            app.play_first_legal_action(&players, &id).await;
        }
        let message = format!("{visibility}-chat-{}", ids.len());
        app.post(
            alice,
            &format!("/v1/games/{id}/chat"),
            &json!({"text": message}),
        )
        .await
        .expect_status(201);
        if finished {
            app.post(alice, &format!("/v1/games/{id}/resign"), &json!({}))
                .await
                .expect_status(200);
            let summary = app.get(bob, &format!("/v1/games/{id}")).await.json();
            assert_eq!(summary["status"], "finished", "{summary}");
        }
        ids.push(id);
        chat.push(message);
    }
    let [running, finished] = <[String; 2]>::try_from(ids).unwrap();
    Games {
        running,
        finished,
        chat: <[String; 2]>::try_from(chat).unwrap(),
    }
}

/// The spec's GET operations, as path templates.
fn get_operations() -> Vec<String> {
    let spec: Value = serde_json::from_str(include_str!("../../openapi/openapi.json")).unwrap();
    spec["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, operations)| operations.get("get").is_some())
        .map(|(path, _)| path.clone())
        .collect()
}

/// The requests an outsider makes of `template`: its path parameters filled in (a game's
/// id from `game`, an account's name with a player's), with the queries that list more.
fn requests_of(template: &str, game: &str) -> Vec<String> {
    let mut path = template.to_owned();
    for (parameter, value) in [
        ("{id}", game),
        ("{name}", "alice"),
        ("{kind}", "tikal"),
        ("{webhook_id}", "nosuchhook"),
    ] {
        path = path.replace(parameter, value);
    }
    assert!(
        !path.contains('{'),
        "{template}: a path parameter this audit does not know; say what an outsider \
         may see through it"
    );
    let queries: &[&str] = match template {
        "/v1/games" => &[
            "",
            "?status=running",
            "?status=finished",
            "?kind=tikal&limit=200",
        ],
        "/v1/exports" => &["", "?player=alice", "?player=bob", "?kind=tikal"],
        "/v1/games/{id}/events" | "/v1/games/{id}/chat" => &["", "?after=0"],
        "/v1/games/{id}/view" | "/v1/games/{id}/board.svg" => &["", "?at=1"],
        _ => &[""],
    };
    queries
        .iter()
        .map(|query| format!("{path}{query}"))
        .collect()
}

/// A route that answers with a stream, read for a moment and then dropped.
fn is_stream(template: &str) -> bool {
    template.ends_with("/stream")
}

/// The status and the body read within a second (all of it, unless it is a stream).
async fn read(app: &TestApp, player: &Player, path: &str, stream: bool) -> (u16, String) {
    if !stream {
        let response = app.get(player, path).await;
        return (response.status, response.text);
    }
    let mut response = reqwest::Client::new()
        .get(format!("{}{path}", app.base))
        .bearer_auth(&player.token)
        .send()
        .await
        .expect("the stream answers");
    let status = response.status().as_u16();
    let mut text = String::new();
    let until = tokio::time::Instant::now() + Duration::from_secs(1);
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(until, response.chunk()).await {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    (status, text)
}

/// The problem's code, for comparing two refusals whose details name different ids.
fn code_of(text: &str) -> Value {
    serde_json::from_str::<Value>(text).map_or(Value::Null, |problem| problem["code"].clone())
}

async fn a_private_game_is_nobody_elses_on_any_route(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let games = two_games(app, &alice, &bob, "private").await;

    for template in get_operations() {
        let stream = is_stream(&template);
        for game in games.ids() {
            for (path, unknown) in requests_of(&template, game)
                .into_iter()
                .zip(requests_of(&template, NO_GAME))
            {
                let (status, text) = read(app, &carol, &path, stream).await;
                // A refusal may repeat the id the caller asked for, and nothing else.
                let answered = text.replace(game, "<asked>");
                if let Some(secret) = games.leaked_in(&answered) {
                    panic!("GET {path} shows an outsider {secret:?}: {text}");
                }
                if template.contains("{id}") {
                    // Exactly as a game that does not exist.
                    let (unknown_status, unknown_text) = read(app, &carol, &unknown, stream).await;
                    assert_eq!(
                        (status, code_of(&text)),
                        (unknown_status, code_of(&unknown_text)),
                        "GET {path} tells an outsider that the game exists: {text}"
                    );
                    assert_eq!(status, 404, "GET {path}: {text}");
                }
            }
        }
    }

    // A long poll on the game ends at once, not when something is written in it.
    for wait in ["events", "chat"] {
        let path = format!("/v1/games/{}/{wait}?wait=60", games.running);
        let answered = tokio::time::timeout(Duration::from_secs(20), app.get(&carol, &path))
            .await
            .unwrap_or_else(|_| panic!("GET {path} waited on a game it may not see"));
        answered.expect_problem(404, "game_not_found");
    }

    // Every other route about the game refuses exactly as for a game that does not exist.
    for (route, body) in [
        ("seats", json!({})),
        ("decline", json!({})),
        ("cancel", json!({})),
        ("leave", json!({})),
        ("resign", json!({})),
        ("abandon", json!({"agree": true})),
        ("rematch", json!({})),
        ("chat", json!({"text": "hello"})),
        ("take-back", json!({"expected_seq": 1})),
        (
            "actions",
            json!({"expected_seq": 1, "action": {"type": "end_turn"}}),
        ),
        (
            "actions/preview",
            json!({"expected_seq": 1, "action": {"type": "end_turn"}}),
        ),
    ] {
        for game in games.ids() {
            let refused = app
                .post(&carol, &format!("/v1/games/{game}/{route}"), &body)
                .await;
            let unknown = app
                .post(&carol, &format!("/v1/games/{NO_GAME}/{route}"), &body)
                .await;
            assert_eq!(
                (refused.status, code_of(&refused.text)),
                (unknown.status, code_of(&unknown.text)),
                "POST {route} tells an outsider that game {game} exists: {}",
                refused.text
            );
        }
    }
    app.request(
        reqwest::Method::DELETE,
        &format!("/v1/games/{}/chat/1", games.running),
        Some(&carol.token),
        None,
        &[],
    )
    .await
    .expect_problem(404, "game_not_found");

    // The players find their games where they expect them: the search above would have
    // found the ids.
    for (player, name) in [(&alice, "alice"), (&bob, "bob")] {
        let exports = app
            .get(player, &format!("/v1/exports?player={name}"))
            .await
            .expect_status(200)
            .text;
        assert!(exports.contains(&games.finished) && exports.contains(&games.chat[1]));
        let ratings = app
            .get(player, &format!("/v1/accounts/{name}/ratings"))
            .await
            .expect_status(200)
            .json();
        assert_eq!(ratings["history"][0]["game_id"], games.finished.as_str());
        let listed = app.get(player, "/v1/games").await.expect_status(200).text;
        assert!(listed.contains(&games.running) && listed.contains(&games.finished));
    }
    // Carol sees that Alice's rating changed, not through which game.
    let ratings = app
        .get(&carol, "/v1/accounts/alice/ratings")
        .await
        .expect_status(200)
        .json();
    assert_eq!(ratings["history"][0]["game_id"], Value::Null, "{ratings}");
    assert_eq!(ratings["history"][0]["seat"], Value::Null, "{ratings}");
    // Alice's public record counts public games only; her own counts every game.
    let record = |player: &Player| {
        let player = player.clone();
        async move {
            app.get(&player, "/v1/accounts/alice")
                .await
                .expect_status(200)
                .json()["kinds"]
                .clone()
        }
    };
    assert_eq!(record(&carol).await, json!([]));
    assert_eq!(record(&alice).await[0]["finished"], 1);
}

async fn an_unlisted_game_is_watched_by_link_and_never_listed(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let games = two_games(app, &alice, &bob, "unlisted").await;

    for template in get_operations() {
        let stream = is_stream(&template);
        for game in games.ids() {
            for path in requests_of(&template, game) {
                let (status, text) = read(app, &carol, &path, stream).await;
                if template.contains("{id}") {
                    // Anyone with the link watches: every route about the game answers.
                    let expected = if template.ends_with("/rematch") {
                        404 // `no_rematch`: nobody asked for one
                    } else if template.ends_with("/invitations") {
                        403 // `not_a_player`: whom a game invited is for its players
                    } else {
                        200
                    };
                    assert_eq!(status, expected, "GET {path}: {text}");
                } else if let Some(secret) = games.leaked_in(&text) {
                    // No list and no one's history names it.
                    panic!("GET {path} lists an unlisted game ({secret:?}): {text}");
                }
            }
        }
    }
    let export = app
        .get(&carol, &format!("/v1/games/{}/export", games.finished))
        .await
        .expect_status(200)
        .json();
    assert_eq!(export["chat"][0]["text"], games.chat[1].as_str());
    // Its players see it in their own lists and history.
    let exports = app
        .get(&alice, "/v1/exports?player=alice")
        .await
        .expect_status(200)
        .text;
    assert!(exports.contains(&games.finished));
    let ratings = app
        .get(&alice, "/v1/accounts/alice/ratings")
        .await
        .expect_status(200)
        .json();
    assert_eq!(ratings["history"][0]["game_id"], games.finished.as_str());
}
