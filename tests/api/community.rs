//! The people around the games: players' pages (what they say, when they were last seen,
//! ratings, latest public games, the reader's games with them), following, the archive of
//! finished public games with its filters, games' names, and the caps on all of it.

use serde_json::{json, Value};

use crate::on_both_backends;
use crate::ratings::played;
use crate::util::{Backend, Player, Response, TestApp};

on_both_backends!(
    a_players_page_shows_what_they_say_and_what_they_played,
    following_lists_accounts_and_their_open_games_and_ends_with_a_block,
    the_archive_filters_finished_public_games,
);

/// Tikal asks for 6 actions of each person before a game is rated.
const TIKAL_ACTIONS: usize = 6;

async fn put(app: &TestApp, player: &Player, path: &str, body: Option<&Value>) -> Response {
    app.request(reqwest::Method::PUT, path, Some(&player.token), body, &[])
        .await
}

async fn delete(app: &TestApp, player: &Player, path: &str) -> Response {
    app.request(
        reqwest::Method::DELETE,
        path,
        Some(&player.token),
        None,
        &[],
    )
    .await
}

async fn page(app: &TestApp, reader: &Player, name: &str) -> Value {
    app.get(reader, &format!("/v1/accounts/{name}"))
        .await
        .expect_status(200)
        .json()
}

/// The ids of the games `reader` lists at `path`.
async fn listed(app: &TestApp, reader: &Player, path: &str) -> Vec<String> {
    let answer = app.get(reader, path).await.expect_status(200).json();
    answer["games"]
        .as_array()
        .unwrap_or_else(|| panic!("a list of games: {answer}"))
        .iter()
        .map(|game| game["id"].as_str().unwrap().to_owned())
        .collect()
}

fn today() -> String {
    let now = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}",
        now.year(),
        u8::from(now.month()),
        now.day()
    )
}

async fn a_players_page_shows_what_they_say_and_what_they_played(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let settings = json!({
        "about": "Tikal since 1999.\nSlow but steady.",
        "country": "DE",
        "language": "de",
        "show_last_seen": true,
    });
    let stored = put(app, &alice, "/v1/me/profile", Some(&settings))
        .await
        .expect_status(200)
        .json();
    assert_eq!(stored, settings);
    assert_eq!(
        app.get(&alice, "/v1/me/profile")
            .await
            .expect_status(200)
            .json(),
        settings
    );

    // One public and one private rated game, both resigned by Bob.
    let public = played(
        app,
        json!({"kind": "tikal", "title": "Friday final"}),
        &[&alice, &bob],
        TIKAL_ACTIONS,
        &[&bob],
    )
    .await;
    assert_eq!(public["status"], "finished");
    assert_eq!(public["name"], "Friday final");
    assert_eq!(public["title"], "Friday final");
    assert!(
        public["seats"][0]["rating_change"]["after"]
            .as_f64()
            .unwrap()
            > 25.0
    );
    assert_eq!(public["seats"][0]["rating_change"]["before"], 25.0);
    let private = played(
        app,
        json!({"kind": "tikal", "visibility": "private", "invite": ["bob"]}),
        &[&alice, &bob],
        TIKAL_ACTIONS,
        &[&bob],
    )
    .await;
    assert_eq!(private["name"], "Tikal: alice and bob");

    let alices = page(app, &bob, "ALICE").await;
    assert_eq!(alices["name"], "alice");
    assert_eq!(alices["about"], "Tikal since 1999.\nSlow but steady.");
    assert_eq!(alices["country"], "DE");
    assert_eq!(alices["language"], "de");
    assert_eq!(alices["last_seen"], today());
    assert_eq!(alices["ratings"][0]["kind"], "tikal");
    assert_eq!(alices["ratings"][0]["provisional"], true);
    let recent: Vec<&Value> = alices["recent_games"].as_array().unwrap().iter().collect();
    assert_eq!(recent.len(), 1, "only the public game: {alices}");
    assert_eq!(recent[0]["id"], public["id"]);
    assert_eq!(recent[0]["seats"][1]["account"]["name"], "bob");
    assert!(
        recent[0]["seats"][1]["rating_change"]["after"]
            .as_f64()
            .unwrap()
            < 25.0
    );
    assert_eq!(
        alices["head_to_head"],
        json!({"games": 2, "you_ahead": 0, "they_ahead": 2}),
        "Bob's page of Alice counts the private game both sat at"
    );
    assert_eq!(
        alices["kinds"][0]["finished"], 1,
        "the record is public games'"
    );
    assert_eq!(alices["you_follow"], false);
    assert_eq!(alices["activity_hidden"], false);
    let own = page(app, &alice, "alice").await;
    assert_eq!(own["head_to_head"], Value::Null);
    assert_eq!(own["kinds"][0]["finished"], 2);

    // Hiding the day seen hides it from others only.
    let hidden = json!({"about": null, "country": null, "language": null, "show_last_seen": false});
    assert_eq!(
        put(app, &alice, "/v1/me/profile", Some(&hidden))
            .await
            .expect_status(200)
            .json(),
        hidden
    );
    let alices = page(app, &bob, "alice").await;
    assert_eq!(alices["last_seen"], Value::Null);
    assert_eq!(alices["about"], "");
    assert_eq!(alices["country"], Value::Null);
    assert_eq!(page(app, &alice, "alice").await["last_seen"], today());
    assert_eq!(page(app, &alice, "bob").await["last_seen"], today());

    for (body, code) in [
        (
            json!({"country": "XX", "show_last_seen": true}),
            "invalid_profile",
        ),
        (
            json!({"country": "de", "show_last_seen": true}),
            "invalid_profile",
        ),
        (
            json!({"language": "deu", "show_last_seen": true}),
            "invalid_profile",
        ),
        (
            json!({"about": "x".repeat(601), "show_last_seen": true}),
            "invalid_profile",
        ),
        (
            json!({"about": "evil\u{202E}txt", "show_last_seen": true}),
            "invalid_profile",
        ),
        (
            json!({"about": " \u{200B} ", "show_last_seen": true}),
            "invalid_profile",
        ),
    ] {
        put(app, &alice, "/v1/me/profile", Some(&body))
            .await
            .expect_problem(422, code);
    }
    put(app, &alice, "/v1/me/profile", Some(&json!({"about": "hi"})))
        .await
        .expect_problem(422, "invalid_request");
    put(
        app,
        &alice,
        "/v1/me/profile",
        Some(&json!({"show_last_seen": true, "website": "x"})),
    )
    .await
    .expect_problem(422, "invalid_request");
    assert_eq!(
        page(app, &bob, "alice").await["about"],
        "",
        "nothing written"
    );
    for title in ["two\nlines", &"x".repeat(81), "  "] {
        app.post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "title": title}),
        )
        .await
        .expect_problem(422, "invalid_title");
    }
    app.get(&alice, "/v1/accounts/nobody")
        .await
        .expect_problem(404, "account_not_found");
}

async fn following_lists_accounts_and_their_open_games_and_ends_with_a_block(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let mallory = app.register("mallory").await;

    let followed = put(app, &alice, "/v1/me/following/BOB", None)
        .await
        .expect_status(201)
        .json();
    assert_eq!(followed["account"]["name"], "bob");
    assert_eq!(followed["open_games"], 0);
    put(app, &alice, "/v1/me/following/bob", None)
        .await
        .expect_status(200);
    put(app, &alice, "/v1/me/following/alice", None)
        .await
        .expect_problem(409, "cannot_follow_yourself");
    put(app, &alice, "/v1/me/following/nobody", None)
        .await
        .expect_problem(404, "account_not_found");

    // Bob waits in a public game and a private one: Alice sees the public one only.
    let open = app
        .post(&bob, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await
        .expect_status(201)
        .json();
    app.post(
        &bob,
        "/v1/games",
        &json!({"kind": "tikal", "seats": 2, "visibility": "private", "invite": ["carol"]}),
    )
    .await
    .expect_status(201);
    app.post(&carol, "/v1/games", &json!({"kind": "java", "seats": 2}))
        .await
        .expect_status(201);
    let list = app
        .get(&alice, "/v1/me/following")
        .await
        .expect_status(200)
        .json();
    assert_eq!(list["following"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["following"][0]["account"]["name"], "bob");
    assert_eq!(list["following"][0]["open_games"], 1);
    assert_eq!(
        listed(app, &alice, "/v1/games?following=true&status=open").await,
        [open["id"].as_str().unwrap()]
    );
    assert_eq!(open["seats"][0]["rating"], Value::Null, "no rated game yet");
    let bobs = page(app, &alice, "bob").await;
    assert_eq!(bobs["you_follow"], true);
    assert_eq!(bobs["followers"], 1);
    assert_eq!(page(app, &bob, "alice").await["following"], 1);

    // A block ends following either way and keeps it from starting again.
    put(app, &mallory, "/v1/me/following/alice", None)
        .await
        .expect_status(201);
    put(app, &alice, "/v1/me/following/mallory", None)
        .await
        .expect_status(201);
    put(app, &alice, "/v1/me/blocks/mallory", None)
        .await
        .expect_status(201);
    assert_eq!(page(app, &bob, "alice").await["followers"], 0);
    let names: Vec<Value> = app
        .get(&alice, "/v1/me/following")
        .await
        .expect_status(200)
        .json()["following"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["account"]["name"].clone())
        .collect();
    assert_eq!(names, [json!("bob")]);
    put(app, &mallory, "/v1/me/following/alice", None)
        .await
        .expect_problem(403, "blocked");
    put(app, &alice, "/v1/me/following/mallory", None)
        .await
        .expect_problem(403, "blocked");
    let seen_by_mallory = page(app, &mallory, "alice").await;
    assert_eq!(seen_by_mallory["activity_hidden"], true);
    assert_eq!(seen_by_mallory["last_seen"], Value::Null);
    assert_eq!(seen_by_mallory["recent_games"], json!([]));
    assert_eq!(seen_by_mallory["head_to_head"], Value::Null);
    assert_eq!(page(app, &alice, "mallory").await["activity_hidden"], false);
    // Neither sees the other's games in the lobby's lists; Bob sees both.
    let mallorys = app
        .post(&mallory, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let alices = app
        .post(&alice, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let open_for = |player: &Player| {
        let player = player.clone();
        async move { listed(app, &player, "/v1/games?status=open&kind=tikal").await }
    };
    assert!(!open_for(&alice).await.contains(&mallorys));
    assert!(!open_for(&mallory).await.contains(&alices));
    assert!(open_for(&carol).await.contains(&mallorys) && open_for(&carol).await.contains(&alices));
    assert!(
        listed(app, &alice, "/v1/games?mine=true")
            .await
            .contains(&alices),
        "one's own games stay"
    );

    delete(app, &alice, "/v1/me/following/bob")
        .await
        .expect_status(204);
    delete(app, &alice, "/v1/me/following/bob")
        .await
        .expect_problem(404, "not_following");
    assert!(listed(app, &alice, "/v1/games?following=true")
        .await
        .is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follows_are_capped_per_account_and_limited_per_hour() {
    let app = TestApp::start_with(Backend::Sqlite, |config| {
        config.follows_per_account = 2;
        config.follows_per_hour_per_account = 6;
        config.profile_changes_per_hour_per_account = 2;
    })
    .await;
    let flooder = app.register("flooder").await;
    // Three accounts to follow (by name); the first two also act for themselves below.
    let others = [app.register("a1").await, app.register("a2").await];
    app.register("a3").await;
    put(&app, &flooder, "/v1/me/following/a1", None)
        .await
        .expect_status(201);
    put(&app, &flooder, "/v1/me/following/a2", None)
        .await
        .expect_status(201);
    let refused = put(&app, &flooder, "/v1/me/following/a3", None)
        .await
        .expect_problem(409, "follow_quota");
    assert!(
        refused["detail"].as_str().unwrap().contains('2'),
        "{refused}"
    );
    put(&app, &flooder, "/v1/me/following/a2", None)
        .await
        .expect_status(200);
    delete(&app, &flooder, "/v1/me/following/a2")
        .await
        .expect_status(204);
    put(&app, &flooder, "/v1/me/following/a3", None)
        .await
        .expect_status(201);
    // Six follows and unfollows an hour: the seventh is refused, another account's pass.
    put(&app, &flooder, "/v1/me/following/a3", None)
        .await
        .expect_problem(429, "rate_limited");
    put(&app, &others[0], "/v1/me/following/flooder", None)
        .await
        .expect_status(201);
    let body = json!({"show_last_seen": true});
    for _ in 0..2 {
        put(&app, &flooder, "/v1/me/profile", Some(&body))
            .await
            .expect_status(200);
    }
    put(&app, &flooder, "/v1/me/profile", Some(&body))
        .await
        .expect_problem(429, "rate_limited");
    put(&app, &others[1], "/v1/me/profile", Some(&body))
        .await
        .expect_status(200);
}

async fn the_archive_filters_finished_public_games(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let tikal = played(
        app,
        json!({"kind": "tikal"}),
        &[&alice, &bob],
        TIKAL_ACTIONS,
        &[&bob],
    )
    .await;
    let java = played(
        app,
        json!({"kind": "java", "time_control": {"type": "days_per_move", "days": 3}}),
        &[&alice, &carol],
        8,
        &[&carol],
    )
    .await;
    let unlisted = played(
        app,
        json!({"kind": "tikal", "visibility": "unlisted", "invite": ["bob"]}),
        &[&alice, &bob],
        TIKAL_ACTIONS,
        &[&alice],
    )
    .await;
    let [tikal, java, unlisted] =
        [&tikal, &java, &unlisted].map(|game| game["id"].as_str().unwrap());
    let archive = "/v1/games?status=finished&public=true";

    assert_eq!(
        listed(app, &carol, archive).await,
        [java, tikal],
        "newest first"
    );
    assert_eq!(
        listed(app, &alice, archive).await,
        [java, tikal],
        "public only, also for a player of the unlisted game"
    );
    assert!(listed(app, &alice, "/v1/games?status=finished")
        .await
        .contains(&unlisted.to_owned()));
    assert_eq!(
        listed(app, &carol, &format!("{archive}&players=alice,BOB")).await,
        [tikal]
    );
    assert!(listed(app, &carol, &format!("{archive}&players=bob,carol"))
        .await
        .is_empty());
    app.get(&carol, &format!("{archive}&players=nobody"))
        .await
        .expect_problem(404, "account_not_found");
    assert_eq!(
        listed(app, &carol, &format!("{archive}&kind=java")).await,
        [java]
    );
    assert_eq!(
        listed(
            app,
            &carol,
            &format!("{archive}&time_control=days_per_move")
        )
        .await,
        [java]
    );
    assert_eq!(
        listed(app, &carol, &format!("{archive}&time_control=none")).await,
        [tikal]
    );
    app.get(&carol, &format!("{archive}&time_control=hourglass"))
        .await
        .expect_status(400);
    assert_eq!(
        listed(app, &carol, &format!("{archive}&min_rating=-100")).await,
        [java, tikal]
    );
    assert!(listed(app, &carol, &format!("{archive}&min_rating=100"))
        .await
        .is_empty());
    assert!(listed(app, &carol, &format!("{archive}&max_rating=0"))
        .await
        .is_empty());
    assert_eq!(
        listed(app, &carol, &format!("{archive}&max_rating=25")).await,
        [java, tikal]
    );
    assert!(listed(
        app,
        &carol,
        &format!("{archive}&since=2999-01-01T00:00:00Z")
    )
    .await
    .is_empty());
    assert!(listed(
        app,
        &carol,
        &format!("{archive}&until=2000-01-01T00:00:00Z")
    )
    .await
    .is_empty());
    app.get(&carol, &format!("{archive}&since=yesterday"))
        .await
        .expect_problem(400, "invalid_query");

    // Options: yes/no, a list with any choice, one choice; checked against the kind.
    let create = |options: Value| {
        let alice = alice.clone();
        async move {
            app.post(
                &alice,
                "/v1/games",
                &json!({"kind": "eternal_palace", "seats": 2, "options": options}),
            )
            .await
            .expect_status(201)
            .json()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let river = create(json!({"river_market": true})).await;
    let academy = create(json!({"location_tiles": ["academy", "temple"]})).await;
    let plain = create(json!({})).await;
    let open = "/v1/games?status=open&kind=eternal_palace";
    assert_eq!(
        listed(app, &carol, open).await,
        [plain.clone(), academy.clone(), river.clone()]
    );
    assert_eq!(
        listed(app, &carol, &format!("{open}&options=river_market")).await,
        std::slice::from_ref(&river)
    );
    assert_eq!(
        listed(app, &carol, &format!("{open}&options=location_tiles")).await,
        std::slice::from_ref(&academy)
    );
    assert_eq!(
        listed(
            app,
            &carol,
            &format!("{open}&options=location_tiles:temple,location_tiles:academy")
        )
        .await,
        [academy]
    );
    assert!(listed(
        app,
        &carol,
        &format!("{open}&options=location_tiles:palace_market")
    )
    .await
    .is_empty());
    for bad in [
        format!("{open}&options=privileges,volcano"),
        format!("{open}&options=location_tiles:atlantis"),
        format!("{open}&options=river_market'--"),
        "/v1/games?kind=tikal&options=river_market".to_owned(),
        "/v1/games?options=volcano".to_owned(),
    ] {
        app.get(&carol, &bad)
            .await
            .expect_problem(404, "option_not_found");
    }
    // Without `kind`, an option of any kind: only games that have it match.
    assert_eq!(
        listed(app, &carol, "/v1/games?status=open&options=river_market").await,
        [river]
    );
}
