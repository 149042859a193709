//! One way to page: every list takes `limit` and `cursor`, answers with `next` and a `Link`
//! header, and reads the same items a page at a time as in one page; a page continues where
//! the last ended even when items were added before it; cursors of other lists and made-up
//! ones name no page, limits out of range are refused, and a cursor wins over an older start.

use serde_json::{json, Value};

use crate::on_both_backends;
use crate::util::{Player, TestApp};

on_both_backends!(
    every_list_reads_the_same_a_page_at_a_time,
    leaderboards_page_with_ranks_carried_over,
    bad_paging_is_refused
);

/// The items of the list at `path` in one page of `limit` (its maximum), which must be the
/// last.
async fn whole(
    app: &TestApp,
    player: &Player,
    path: &str,
    items: &str,
    limit: usize,
) -> Vec<Value> {
    let separator = if path.contains('?') { '&' } else { '?' };
    let page = app
        .get(player, &format!("{path}{separator}limit={limit}"))
        .await
        .expect_status(200);
    assert_eq!(page.header("link"), None);
    let body = page.json();
    assert!(body["next"].is_null(), "{path}: one page holds it all");
    body[items].as_array().expect("a list").clone()
}

/// `path`'s list read two at a time, checked against the same list in one page; at least
/// `at_least` items.
async fn pages_agree(
    app: &TestApp,
    player: &Player,
    path: &str,
    items: &str,
    max_limit: usize,
    at_least: usize,
) {
    let paged = app.walk(player, path, items, 2).await;
    assert!(paged.len() >= at_least, "{path}: {} items", paged.len());
    assert_eq!(
        paged,
        whole(app, player, path, items, max_limit).await,
        "{path}"
    );
}

async fn private_game_inviting(app: &TestApp, creator: &Player, invited: &[&str]) -> String {
    app.post(
        creator,
        "/v1/games",
        &json!({"kind": "tikal", "seats": invited.len() + 1, "private": true, "invite": invited}),
    )
    .await
    .expect_status(201)
    .json()["id"]
        .as_str()
        .expect("an id")
        .to_owned()
}

async fn every_list_reads_the_same_a_page_at_a_time(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    for name in ["dave", "erin", "frank"] {
        app.register(name).await;
    }

    // Bob's invitations, newest first: a page continues after the last one read, neither
    // repeating nor skipping one when a newer invitation arrives meanwhile.
    let mut invited = Vec::new();
    for _ in 0..5 {
        invited.push(private_game_inviting(app, &alice, &["bob"]).await);
    }
    pages_agree(app, &bob, "/v1/me/invitations", "invitations", 200, 5).await;
    let first = app
        .get(&bob, "/v1/me/invitations?limit=2")
        .await
        .expect_status(200)
        .json();
    let newest = private_game_inviting(app, &alice, &["bob"]).await;
    let mut read: Vec<Value> = first["invitations"].as_array().unwrap().clone();
    let mut next = first["next"].as_str().map(str::to_owned);
    while let Some(cursor) = next {
        let page = app
            .get(&bob, &format!("/v1/me/invitations?limit=2&cursor={cursor}"))
            .await
            .expect_status(200)
            .json();
        read.extend(page["invitations"].as_array().unwrap().iter().cloned());
        next = page["next"].as_str().map(str::to_owned);
    }
    let ids: Vec<&str> = read
        .iter()
        .map(|invitation| invitation["game"]["id"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = invited.iter().rev().map(String::as_str).collect();
    assert_eq!(
        ids, expected,
        "the newer invitation is on a first page, not a later one"
    );
    assert!(!ids.contains(&newest.as_str()));

    // Games: the caller's, and the invited ones, filters kept from page to page.
    pages_agree(app, &alice, "/v1/games?mine=true", "games", 200, 6).await;
    pages_agree(
        app,
        &bob,
        "/v1/games?invited=true&kind=tikal",
        "games",
        200,
        6,
    )
    .await;
    let game_invitations = private_game_inviting(app, &alice, &["bob", "carol", "dave"]).await;
    pages_agree(
        app,
        &alice,
        &format!("/v1/games/{game_invitations}/invitations"),
        "invitations",
        200,
        3,
    )
    .await;

    // A running game's log and chat.
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob.clone()])
        .await;
    for _ in 0..3 {
        app.play_first_legal_action(&[alice.clone(), bob.clone()], &id)
            .await;
    }
    for text in ["one", "two", "three", "four", "five"] {
        app.post(
            &alice,
            &format!("/v1/games/{id}/chat"),
            &json!({ "text": text }),
        )
        .await
        .expect_status(201);
    }
    pages_agree(
        app,
        &bob,
        &format!("/v1/games/{id}/events"),
        "events",
        1000,
        4,
    )
    .await;
    pages_agree(
        app,
        &bob,
        &format!("/v1/games/{id}/chat"),
        "messages",
        200,
        5,
    )
    .await;
    // `after` starts a list where a caller left off; the cursor continues from there.
    let later = app
        .walk(&bob, &format!("/v1/games/{id}/events?after=2"), "events", 2)
        .await;
    assert!(later.iter().all(|event| event["seq"].as_i64().unwrap() > 2));
    assert_eq!(later[0]["seq"], 3);

    // The account's own lists.
    pages_agree(app, &bob, "/v1/me/notifications", "notifications", 200, 5).await;
    for name in ["carol", "dave", "erin", "frank"] {
        app.request(
            reqwest::Method::PUT,
            &format!("/v1/me/blocks/{name}"),
            Some(&alice.token),
            None,
            &[],
        )
        .await
        .expect_status(201);
    }
    pages_agree(app, &alice, "/v1/me/blocks", "blocked", 200, 4).await;
    for name in ["one", "two", "three"] {
        app.post(
            &carol,
            "/v1/me/personal-tokens",
            &json!({"name": name, "scopes": ["games:read"]}),
        )
        .await
        .expect_status(201);
    }
    pages_agree(
        app,
        &carol,
        "/v1/me/personal-tokens",
        "personal_tokens",
        200,
        3,
    )
    .await;
}

/// Ranks go on from page to page, through ties (same rating and games: by name).
async fn leaderboards_page_with_ranks_carried_over(app: &TestApp) {
    let viewer = app.register("viewer").await;
    let ratings = [
        ("anna", 30.0, 9),
        ("bert", 28.0, 7),
        ("cleo", 28.0, 7),
        ("dora", 28.0, 6),
        ("emil", 25.5, 5),
        ("fynn", 20.0, 12),
        ("gina", 19.0, 4),
    ];
    for (name, conservative, games) in ratings {
        app.register(name).await;
        app.execute_sql(&format!(
            "INSERT INTO ratings (account_id, kind, rating, uncertainty, conservative, games, \
             updated_at) SELECT id, 'tikal', {}, 2.0, {conservative}, {games}, 0 FROM accounts \
             WHERE name = '{name}'",
            conservative + 6.0
        ));
    }
    for limit in [1, 2, 4] {
        let paged = app
            .walk(&viewer, "/v1/leaderboards/tikal", "players", limit)
            .await;
        assert_eq!(
            paged,
            whole(app, &viewer, "/v1/leaderboards/tikal", "players", 200).await
        );
        let listed: Vec<(&str, i64)> = paged
            .iter()
            .map(|entry| {
                (
                    entry["account"]["name"].as_str().unwrap(),
                    entry["rank"].as_i64().unwrap(),
                )
            })
            .collect();
        // Gina has fewer games than a leaderboard asks for.
        assert_eq!(
            listed,
            [
                ("anna", 1),
                ("bert", 2),
                ("cleo", 3),
                ("dora", 4),
                ("emil", 5),
                ("fynn", 6)
            ],
            "limit {limit}"
        );
    }
}

async fn bad_paging_is_refused(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    for _ in 0..3 {
        private_game_inviting(app, &alice, &["bob"]).await;
    }
    let games_cursor = app
        .get(&alice, "/v1/games?mine=true&limit=1")
        .await
        .expect_status(200)
        .json()["next"]
        .as_str()
        .expect("more than one game")
        .to_owned();
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob.clone()])
        .await;
    let lists = [
        "/v1/games".to_owned(),
        "/v1/me/invitations".to_owned(),
        "/v1/me/notifications".to_owned(),
        "/v1/me/blocks".to_owned(),
        "/v1/me/personal-tokens".to_owned(),
        "/v1/leaderboards/tikal".to_owned(),
        "/v1/accounts/alice/ratings".to_owned(),
        format!("/v1/games/{id}/events"),
        format!("/v1/games/{id}/chat"),
        format!("/v1/games/{id}/invitations"),
    ];
    for list in &lists {
        for cursor in ["nonsense", "e30", "AAAA"] {
            app.get(&alice, &format!("{list}?cursor={cursor}"))
                .await
                .expect_problem(404, "cursor_not_found");
        }
        for malformed in ["%25%25", "a%20b"] {
            app.get(&alice, &format!("{list}?cursor={malformed}"))
                .await
                .expect_problem(400, "invalid_query");
        }
        if list != "/v1/games" {
            app.get(&alice, &format!("{list}?cursor={games_cursor}"))
                .await
                .expect_problem(404, "cursor_not_found");
        }
        app.get(&alice, &format!("{list}?limit=0"))
            .await
            .expect_problem(400, "invalid_query");
        let too_many = if list.ends_with("/events") { 1001 } else { 201 };
        app.get(&alice, &format!("{list}?limit={too_many}"))
            .await
            .expect_problem(400, "invalid_query");
    }
    // A cursor says where the previous page ended: an older start beside it (a client
    // that added `cursor` to the query it began with) is overruled.
    let by_cursor = app
        .get(
            &alice,
            &format!("/v1/games?mine=true&limit=1&cursor={games_cursor}"),
        )
        .await
        .expect_status(200)
        .json();
    let with_offset = app
        .get(
            &alice,
            &format!("/v1/games?mine=true&limit=1&offset=2&cursor={games_cursor}"),
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(with_offset, by_cursor);
    let events_cursor = app
        .get(&alice, &format!("/v1/games/{id}/events?limit=1"))
        .await
        .expect_status(200)
        .json()["next"]
        .as_str()
        .expect("more than one event")
        .to_owned();
    let continued = app
        .get(
            &alice,
            &format!("/v1/games/{id}/events?limit=1&after=0&cursor={events_cursor}"),
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(continued["events"][0]["seq"], 2);
}
