//! Choosing an action step by step (`legal-choices`) and trying it before sending it
//! (`actions/preview`): every kind played that way, the tree against the flat list, the
//! refusals, and a preview that writes nothing and reveals nothing.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use crate::correspondence::summary;
use crate::on_both_backends;
use crate::util::{Player, TestApp};

async fn choices(app: &TestApp, player: &Player, id: &str, query: &str) -> Value {
    app.get(player, &format!("/v1/games/{id}/legal-choices{query}"))
        .await
        .expect_status(200)
        .json()
}

fn picks_query(picks: &[String], seq: Option<i64>) -> String {
    let mut pairs: Vec<String> = seq.map(|seq| format!("seq={seq}")).into_iter().collect();
    pairs.extend(
        picks
            .iter()
            .map(|pick| format!("choice={}", urlencoding(pick))),
    );
    format!("?{}", pairs.join("&"))
}

fn urlencoding(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn preview(app: &TestApp, player: &Player, id: &str, seq: i64, action: &Value) -> Value {
    app.post(
        player,
        &format!("/v1/games/{id}/actions/preview?board=true"),
        &json!({"expected_seq": seq, "action": action}),
    )
    .await
    .expect_status(200)
    .json()
}

/// What an event says, without when it was written.
fn gist(event: &Value) -> Value {
    json!([
        event["seq"],
        event["type"],
        event["source"],
        event["payload"],
        event["text"]
    ])
}

/// Each kind played by walking the tree at random to a complete action, previewing it and
/// posting it: every step's options count the actions under them, the first step counts
/// them all, the preview writes nothing and shows exactly what posting then appends (or,
/// before a draw or roll, the part of it that reveals nothing).
async fn every_kind_is_played_choice_by_choice(app: &TestApp) {
    for (kind, seats) in [("tikal", 2), ("java", 2), ("eternal_palace", 3)] {
        let mut players = Vec::new();
        for seat in 0..seats {
            players.push(app.register(&format!("ch-{kind}-{seat}")).await);
        }
        let id = app.new_game(kind, json!({}), &players).await;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut incomplete = 0;
        for _ in 0..40 {
            let game = summary(app, &players[0], &id).await;
            let Some(seat) = game["to_act"][0].as_u64() else {
                break;
            };
            let player = &players[seat as usize];
            let flat = app
                .get(player, &format!("/v1/games/{id}/legal-actions"))
                .await
                .expect_status(200)
                .json();
            let flat = flat["actions"].as_array().unwrap().clone();
            let seq = game["current_seq"].as_i64().unwrap();
            let mut picks: Vec<String> = Vec::new();
            let action = loop {
                let step = choices(app, player, &id, &picks_query(&picks, Some(seq))).await;
                assert_eq!(step["seq"], seq);
                assert_eq!(step["seat"], seat);
                if picks.is_empty() {
                    assert_eq!(step["remaining"], flat.len());
                }
                if step["field"].is_null() {
                    break step["action"].clone();
                }
                let options = step["options"].as_array().unwrap();
                assert!(options.len() > 1, "a lone option is forced: {step}");
                let under: u64 = options.iter().map(|o| o["actions"].as_u64().unwrap()).sum();
                assert_eq!(Some(under), step["remaining"].as_u64(), "{step}");
                picks.push(
                    options[rng.gen_range(0..options.len())]["choice"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                );
            };
            assert!(flat.contains(&action), "{kind}: {action} is not legal");
            let tried = preview(app, player, &id, seq, &action).await;
            assert_eq!(tried["from_seq"], seq);
            assert!(tried["board_svg"].as_str().unwrap().contains("<svg"));
            assert_eq!(
                summary(app, &players[0], &id).await["current_seq"],
                seq,
                "a preview writes nothing"
            );
            let posted = app
                .post(
                    player,
                    &format!("/v1/games/{id}/actions"),
                    &json!({"expected_seq": seq, "action": action}),
                )
                .await
                .expect_status(200)
                .json();
            let shown: Vec<Value> = tried["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(gist)
                .collect();
            let appended: Vec<Value> = posted["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(gist)
                .collect();
            if tried["complete"] == true {
                assert_eq!(shown, appended, "{kind}: {action}");
                assert_eq!(tried["view"]["view"], posted["view"]["view"]);
                assert_eq!(tried["view"]["to_act"], posted["view"]["to_act"]);
                assert_eq!(tried["seq"], posted["seq"]);
            } else {
                incomplete += 1;
                assert!(shown.len() < appended.len(), "{kind}: {action}");
                // The engine's events before the reveal are the same; the server's (a
                // clock) may follow them in the preview only.
                for (shown, appended) in shown.iter().zip(&appended) {
                    if shown[2] == "engine" {
                        assert_eq!(shown, appended, "{kind}: {action}");
                    }
                }
            }
        }
        assert!(
            incomplete > 0,
            "{kind}: no preview stopped before a draw or roll"
        );
    }
}

/// Java's opening: the first step is small, a tile kind's spaces are the flat list's, and a
/// field the picks leave one value for (the cost) is filled in.
async fn java_opening_is_offered_in_small_steps(app: &TestApp) {
    let players = [app.register("ch-j0").await, app.register("ch-j1").await];
    let id = app.new_game("java", json!({}), &players).await;
    let seat = summary(app, &players[0], &id).await["to_act"][0]
        .as_u64()
        .unwrap();
    let player = &players[seat as usize];
    let first = app
        .get(player, &format!("/v1/games/{id}/legal-choices"))
        .await
        .expect_status(200);
    assert!(
        first.text.len() < 1_024,
        "{} bytes: {}",
        first.text.len(),
        first.text
    );
    let first = first.json();
    assert_eq!(first["field"], "type");
    assert!(first["remaining"].as_u64().unwrap() > 1000);
    let tiles = choices(app, player, &id, "?choice=place_tile").await;
    assert_eq!(tiles["field"], "tile");
    let spaces = choices(app, player, &id, "?choice=place_tile&choice=two_space").await;
    assert_eq!(spaces["field"], "space");
    let flat = app
        .get(
            player,
            &format!("/v1/games/{id}/legal-actions?type=place_tile&tile=two_space"),
        )
        .await
        .expect_status(200)
        .json();
    let mut flat_spaces: Vec<&str> = flat["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|action| action["space"].as_str().unwrap())
        .collect();
    flat_spaces.dedup();
    let offered: Vec<&str> = spaces["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|option| option["choice"].as_str().unwrap())
        .collect();
    let mut sorted_flat = flat_spaces.clone();
    sorted_flat.sort_unstable();
    sorted_flat.dedup();
    let mut sorted_offered = offered.clone();
    sorted_offered.sort_unstable();
    assert_eq!(sorted_offered, sorted_flat);
    let space = offered[0];
    let mut picks = vec![
        "place_tile".to_owned(),
        "two_space".to_owned(),
        space.to_owned(),
    ];
    let step = loop {
        let step = choices(app, player, &id, &picks_query(&picks, None)).await;
        if step["field"].is_null() {
            break step;
        }
        picks.push(step["options"][0]["choice"].as_str().unwrap().to_owned());
    };
    let cost = step["chosen"]
        .as_array()
        .unwrap()
        .iter()
        .find(|chosen| chosen["field"] == "cost")
        .expect("the cost is filled in");
    assert_eq!(cost["forced"], true);
    assert_eq!(step["action"]["space"], space);
    assert_eq!(step["remaining"], 1);
}

/// What is refused, and what a seat that need not act gets.
async fn wrong_picks_and_wrong_previews_are_refused(app: &TestApp) {
    let players = [app.register("ch-r0").await, app.register("ch-r1").await];
    let stranger = app.register("ch-r2").await;
    let id = app.new_game("tikal", json!({}), &players).await;
    let game = summary(app, &players[0], &id).await;
    let seq = game["current_seq"].as_i64().unwrap();
    let seat = game["to_act"][0].as_u64().unwrap() as usize;
    let (mover, waiter) = (&players[seat], &players[1 - seat]);
    let path = format!("/v1/games/{id}/legal-choices");
    for query in [
        "?choice=teleport",
        "?choice=A1&choice=0&choice=more&choice=still",
    ] {
        app.get(mover, &format!("{path}{query}"))
            .await
            .expect_problem(409, "no_such_choice");
    }
    app.get(mover, &format!("{path}?seq={}", seq + 1))
        .await
        .expect_problem(409, "stale_seq");
    let too_many: String = (0..17).map(|_| "&choice=x").collect();
    for query in [
        "?picks=1",
        "?seq=-1",
        "?seq=a",
        "?seq=1&seq=1",
        too_many.as_str(),
    ] {
        let query = query.replacen('&', "?", 1);
        app.get(mover, &format!("{path}{query}"))
            .await
            .expect_problem(400, "invalid_query");
    }
    for idle in [waiter, &stranger] {
        let step = choices(app, idle, &id, "").await;
        assert_eq!(
            (&step["field"], &step["action"], &step["remaining"]),
            (&Value::Null, &Value::Null, &json!(0))
        );
        assert_eq!(step["options"], json!([]));
    }
    // Tikal's turn opens with the hex in hand: `type` is forced, the first pick a space.
    let first = choices(app, mover, &id, "").await;
    assert_eq!(
        first["chosen"][0],
        json!({"field": "type", "value": "place_tile", "forced": true})
    );
    assert_eq!(first["field"], "space");
    let action = app
        .get(mover, &format!("/v1/games/{id}/legal-actions"))
        .await
        .expect_status(200)
        .json()["actions"][0]
        .clone();
    let preview_path = format!("/v1/games/{id}/actions/preview");
    let try_it = |player: &Player, body: Value| {
        let path = preview_path.clone();
        let player = player.clone();
        async move { app.post(&player, &path, &body).await }
    };
    try_it(waiter, json!({"expected_seq": seq, "action": action}))
        .await
        .expect_problem(409, "not_your_turn");
    try_it(&stranger, json!({"expected_seq": seq, "action": action}))
        .await
        .expect_problem(403, "not_a_player");
    try_it(mover, json!({"expected_seq": seq + 1, "action": action}))
        .await
        .expect_problem(409, "stale_seq");
    try_it(
        mover,
        json!({"expected_seq": seq, "action": {"type": "fly"}}),
    )
    .await
    .expect_problem(422, "malformed_action");
    try_it(
        mover,
        json!({"expected_seq": seq, "action": {"type": "place_tile", "space": "Z99", "rotation": 0}}),
    )
    .await
    .expect_problem(409, "illegal_action");
    try_it(
        mover,
        json!({"expected_seq": seq, "seat": 1 - seat, "action": action}),
    )
    .await
    .expect_problem(403, "not_your_seat");
    try_it(mover, json!({"expected_seq": seq}))
        .await
        .expect_problem(422, "invalid_request");
    // Tried twice, the same answer, and still nothing written.
    let once = try_it(mover, json!({"expected_seq": seq, "action": action}))
        .await
        .expect_status(200)
        .json();
    let twice = try_it(mover, json!({"expected_seq": seq, "action": action}))
        .await
        .expect_status(200)
        .json();
    let gists = |answer: &Value| -> Vec<Value> {
        answer["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(gist)
            .collect()
    };
    assert_eq!(gists(&once), gists(&twice));
    assert_eq!(once["view"], twice["view"]);
    assert!(once.get("board_svg").is_none());
    assert_eq!(summary(app, &players[0], &id).await["current_seq"], seq);
    let log = app
        .get(mover, &format!("/v1/games/{id}/events?after={seq}"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(log["events"], json!([]));
}

/// The sizes of each part of a narrow picture: its name, its width in CSS pixels and the
/// width it was drawn at.
fn narrow_parts(svg: &str) -> Vec<(String, f64, f64)> {
    svg.split("<svg class=\"part ")
        .skip(1)
        .map(|part| {
            let tag = &part[..part.find('>').unwrap()];
            let attribute = |name: &str| {
                let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                tag[start..start + tag[start..].find('"').unwrap()].to_owned()
            };
            let view_box = attribute("viewBox");
            let drawn: f64 = view_box.split(' ').nth(2).unwrap().parse().unwrap();
            (
                attribute("data-part"),
                attribute("width").parse().unwrap(),
                drawn,
            )
        })
        .collect()
}

/// `layout=narrow` draws the board and a preview for a phone: parts one under the other,
/// the board's scaled up (its smallest text would be under 11 px as drawn), the seats as
/// wide as a phone; the default stays the wide picture, and an unknown layout is a 400.
async fn the_board_is_laid_out_for_a_phone_on_request(app: &TestApp) {
    let players = [app.register("ch-n0").await, app.register("ch-n1").await];
    let id = app.new_game("java", json!({}), &players).await;
    let board = format!("/v1/games/{id}/board.svg");
    let wide = app.get(&players[0], &board).await.expect_status(200).text;
    assert!(!wide.contains("class=\"part "), "wide by default");
    assert_eq!(
        app.get(&players[0], &format!("{board}?layout=wide"))
            .await
            .expect_status(200)
            .text,
        wide
    );
    let narrow = app
        .get(&players[0], &format!("{board}?layout=narrow&at=1"))
        .await
        .expect_status(200)
        .text;
    let parts = narrow_parts(&narrow);
    let names: Vec<&str> = parts.iter().map(|(name, _, _)| name.as_str()).collect();
    assert_eq!(names, ["board", "seats"]);
    let (_, shown, drawn) = &parts[0];
    assert!(
        shown / drawn >= 11.0 / 8.0,
        "the board is scaled up: {parts:?}"
    );
    assert!(parts[1].1 <= 360.0, "the seats fit a phone: {parts:?}");
    app.get(&players[0], &format!("{board}?layout=sideways"))
        .await
        .expect_problem(400, "invalid_query");

    let game = summary(app, &players[0], &id).await;
    let seat = game["to_act"][0].as_u64().unwrap() as usize;
    let legal = app
        .get(&players[seat], &format!("/v1/games/{id}/legal-actions"))
        .await
        .expect_status(200)
        .json();
    let tried = app
        .post(
            &players[seat],
            &format!("/v1/games/{id}/actions/preview?board=true&layout=narrow"),
            &json!({"expected_seq": legal["seq"], "action": legal["actions"][0]}),
        )
        .await
        .expect_status(200)
        .json();
    let parts = narrow_parts(tried["board_svg"].as_str().unwrap());
    assert_eq!(parts.len(), 2, "the preview is narrow too");
}

on_both_backends!(
    every_kind_is_played_choice_by_choice,
    java_opening_is_offered_in_small_steps,
    wrong_picks_and_wrong_previews_are_refused,
    the_board_is_laid_out_for_a_phone_on_request,
);
