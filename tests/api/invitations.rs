//! Invitations as invitees meet them, rematches, and games abandoned by every player's vote.

use serde_json::{json, Value};
use turnpost::games::replay::GameRecord;

use crate::on_both_backends;
use crate::util::{of_type, Player, TestApp};

on_both_backends!(
    invitations_are_notified_listed_declined_and_accepted,
    a_rematch_invites_the_same_table,
    every_player_agrees_to_abandon,
    a_forfeit_leaves_the_votes_of_the_others_enough,
    a_creator_sees_a_decline_and_invites_someone_else,
);

async fn invitations(app: &TestApp, player: &Player) -> Vec<Value> {
    app.get(player, "/v1/me/invitations")
        .await
        .expect_status(200)
        .json()["invitations"]
        .as_array()
        .unwrap()
        .clone()
}

async fn summary(app: &TestApp, player: &Player, id: &str) -> Value {
    app.get(player, &format!("/v1/games/{id}"))
        .await
        .expect_status(200)
        .json()
}

async fn vote(app: &TestApp, player: &Player, id: &str, agree: bool) -> Value {
    app.post(
        player,
        &format!("/v1/games/{id}/abandon"),
        &json!({ "agree": agree }),
    )
    .await
    .expect_status(200)
    .json()
}

async fn invitations_are_notified_listed_declined_and_accepted(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let dave = app.register("dave").await;
    let created = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 3, "private": true, "invite": ["Bob", "carol"]}),
        )
        .await
        .expect_status(201)
        .json();
    let id = created["id"].as_str().unwrap().to_owned();

    // Each invitee hears of it and finds it listed, with who invited them.
    for invitee in [&bob, &carol] {
        let heard = app.notifications_after(invitee, 0, 0).await;
        assert_eq!(heard.len(), 1, "{heard:?}");
        assert_eq!(heard[0]["type"], "invitation");
        assert_eq!(heard[0]["game_id"], id.as_str());
        assert_eq!(heard[0]["by"], "alice");
        assert!(heard[0].get("seat").is_none(), "an invitee has no seat yet");
        let listed = invitations(app, invitee).await;
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0]["game"]["id"], id.as_str());
        assert_eq!(listed[0]["invited_by"]["name"], "alice");
        assert!(listed[0].get("rematch_of").is_none());
    }
    assert!(invitations(app, &alice).await.is_empty());
    assert!(invitations(app, &dave).await.is_empty());

    // Carol declines: Alice hears of it, Carol no longer sees nor joins the game.
    let alice_seen = app.last_notification_id(&alice).await;
    app.post(&carol, &format!("/v1/games/{id}/decline"), &json!({}))
        .await
        .expect_status(200);
    let heard = app.notifications_after(&alice, alice_seen, 0).await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0]["type"], "invitation_declined");
    assert_eq!(heard[0]["by"], "carol");
    assert_eq!(heard[0]["seat"], 0);
    assert!(invitations(app, &carol).await.is_empty());
    // Having declined a private game, Carol no longer sees it at all.
    app.post(&carol, &format!("/v1/games/{id}/seats"), &json!({}))
        .await
        .expect_problem(404, "game_not_found");
    app.post(&carol, &format!("/v1/games/{id}/decline"), &json!({}))
        .await
        .expect_problem(404, "game_not_found");
    app.get(&carol, &format!("/v1/games/{id}"))
        .await
        .expect_problem(404, "game_not_found");
    let listed_for_carol = app
        .get(&carol, "/v1/games?invited=true")
        .await
        .expect_status(200)
        .json();
    assert_eq!(listed_for_carol["games"], json!([]));
    app.post(&dave, &format!("/v1/games/{id}/decline"), &json!({}))
        .await
        .expect_problem(404, "game_not_found");

    // Bob accepts by taking a seat: Alice hears of it, and the invitation is answered.
    let alice_seen = app.last_notification_id(&alice).await;
    app.post(&bob, &format!("/v1/games/{id}/seats"), &json!({}))
        .await
        .expect_status(200);
    let heard = app.notifications_after(&alice, alice_seen, 0).await;
    assert_eq!(of_type(&heard, "invitation_accepted").len(), 1, "{heard:?}");
    assert_eq!(of_type(&heard, "invitation_accepted")[0]["by"], "bob");
    assert!(invitations(app, &bob).await.is_empty());
    app.post(&bob, &format!("/v1/games/{id}/decline"), &json!({}))
        .await
        .expect_problem(409, "already_seated");

    // An invitation to a game that started is no longer answered.
    let started = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "private": true, "invite": ["bob", "dave"]}),
        )
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(&bob, &format!("/v1/games/{started}/seats"), &json!({}))
        .await
        .expect_status(200);
    assert!(invitations(app, &dave).await.is_empty());
    // Once it started, the private game is its players' alone: Dave's invitation lapsed.
    app.post(&dave, &format!("/v1/games/{started}/decline"), &json!({}))
        .await
        .expect_problem(404, "game_not_found");
    // An unlisted game stays in sight, so its lapsed invitation is answered as such.
    let unlisted = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "visibility": "unlisted", "invite": ["bob", "dave"]}),
        )
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(&bob, &format!("/v1/games/{unlisted}/seats"), &json!({}))
        .await
        .expect_status(200);
    app.post(&dave, &format!("/v1/games/{unlisted}/decline"), &json!({}))
        .await
        .expect_problem(409, "game_not_open");
    for unknown in ["nobody", "bad\u{0}name", ""] {
        app.post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 2, "private": true, "invite": [unknown]}),
        )
        .await
        .expect_problem(404, "account_not_found");
    }
    app.post(&dave, "/v1/games/nosuchgame/decline", &json!({}))
        .await
        .expect_problem(404, "game_not_found");
}

async fn a_rematch_invites_the_same_table(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let created = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "java", "seats": 3, "seat": 2, "options": {},
                    "time_control": {"type": "days_per_move", "days": 3},
                    "bots": [{"seat": 0, "strategy": "random"}]}),
        )
        .await
        .expect_status(201)
        .json();
    let id = created["id"].as_str().unwrap().to_owned();
    app.post(&bob, &format!("/v1/games/{id}/seats"), &json!({}))
        .await
        .expect_status(200);
    app.post(&bob, &format!("/v1/games/{id}/rematch"), &json!({}))
        .await
        .expect_problem(409, "game_not_over");
    app.get(&bob, &format!("/v1/games/{id}/rematch"))
        .await
        .expect_problem(404, "no_rematch");
    // Bob resigns (a bot plays his seat on), then Alice: the game ends by forfeit. The bots
    // move meanwhile, so a resignation may meet a game that moved on at that instant.
    for player in [&bob, &alice] {
        loop {
            let resigned = app
                .post(player, &format!("/v1/games/{id}/resign"), &json!({}))
                .await;
            if resigned.status != 409 {
                resigned.expect_status(200);
                break;
            }
            resigned.expect_problem(409, "stale_seq");
        }
    }
    assert_eq!(summary(app, &alice, &id).await["status"], "finished");
    app.post(&carol, &format!("/v1/games/{id}/rematch"), &json!({}))
        .await
        .expect_problem(403, "not_a_player");

    let alice_seen = app.last_notification_id(&alice).await;
    let asked = app
        .post(&bob, &format!("/v1/games/{id}/rematch"), &json!({}))
        .await
        .expect_status(201);
    let rematch = asked.json();
    let rematch_id = rematch["id"].as_str().unwrap().to_owned();
    assert_eq!(
        asked.header("location"),
        Some(format!("/v1/games/{rematch_id}").as_str())
    );
    assert_ne!(rematch_id, id);
    assert_eq!(rematch["kind"], "java");
    // The rematch of a public game is unlisted: joined by invitation, watched by link.
    assert_eq!(rematch["visibility"], "unlisted");
    assert_eq!(rematch["private"], false);
    assert_eq!(rematch["status"], "open");
    assert_eq!(rematch["seat_count"], 3);
    assert_eq!(rematch["time_control"], created["time_control"]);
    assert_eq!(rematch["options"], created["options"]);
    assert_eq!(
        rematch["seats"][0]["bot"], "random",
        "the bot keeps its seat"
    );
    assert_eq!(
        rematch["seats"][1]["account"]["name"], "bob",
        "Bob keeps his"
    );
    assert!(rematch["seats"][2]["account"].is_null(), "Alice is invited");

    // Alice is invited to it, and asking again gets the same game.
    let heard = app.notifications_after(&alice, alice_seen, 0).await;
    let invited = of_type(&heard, "invitation");
    assert_eq!(invited.len(), 1, "{heard:?}");
    assert_eq!(invited[0]["game_id"], rematch_id.as_str());
    assert_eq!(invited[0]["rematch_of"], id.as_str());
    assert_eq!(invited[0]["by"], "bob");
    let listed = invitations(app, &alice).await;
    assert_eq!(listed[0]["rematch_of"], id.as_str());
    let again = app
        .post(&alice, &format!("/v1/games/{id}/rematch"), &json!({}))
        .await
        .expect_status(200)
        .json();
    assert_eq!(again["id"], rematch_id.as_str());
    let found = app
        .get(&carol, &format!("/v1/games/{id}/rematch"))
        .await
        .expect_status(200)
        .json();
    assert_eq!(found["id"], rematch_id.as_str());

    // Alice takes her old seat and the rematch starts.
    let joined = app
        .post(
            &alice,
            &format!("/v1/games/{rematch_id}/seats"),
            &json!({"seat": 2}),
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(joined["status"], "running");
}

async fn every_player_agrees_to_abandon(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let dave = app.register("dave").await;
    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 2}}),
            &[alice.clone(), bob.clone(), carol.clone()],
        )
        .await;
    app.post(&dave, &format!("/v1/games/{id}/abandon"), &json!({}))
        .await
        .expect_problem(403, "not_a_player");
    let seen: Vec<i64> = [
        app.last_notification_id(&bob).await,
        app.last_notification_id(&carol).await,
    ]
    .to_vec();

    // No body votes to abandon; the others hear of it; voting again changes nothing.
    let first = app
        .post_raw(
            &alice,
            &format!("/v1/games/{id}/abandon"),
            "application/json",
            "",
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(first["status"], "running");
    for (player, seen) in [&bob, &carol].into_iter().zip(&seen) {
        let heard = app.notifications_after(player, *seen, 0).await;
        let votes = of_type(&heard, "abandon_vote");
        assert_eq!(votes.len(), 1, "{heard:?}");
        assert_eq!(votes[0]["by"], "alice");
    }
    let again = vote(app, &alice, &id, true).await;
    assert_eq!(again["current_seq"], first["current_seq"]);
    let votes: Vec<bool> = again["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["abandon_vote"].as_bool().unwrap())
        .collect();
    assert_eq!(votes, [true, false, false], "everyone sees who voted");

    // Bob votes, takes it back, and votes again: each is in the log.
    vote(app, &bob, &id, true).await;
    vote(app, &bob, &id, false).await;
    let withdrawn_nothing = vote(app, &bob, &id, false).await;
    assert_eq!(withdrawn_nothing["seats"][1]["abandon_vote"], false);
    vote(app, &bob, &id, true).await;
    assert_eq!(
        summary(app, &alice, &id).await["current_seq"],
        withdrawn_nothing["current_seq"].as_i64().unwrap() + 1
    );
    // Play goes on while votes stand.
    let before_move = summary(app, &alice, &id).await["current_seq"]
        .as_i64()
        .unwrap();
    let after_move = app
        .play_first_legal_action(&[alice.clone(), bob.clone(), carol.clone()], &id)
        .await;
    assert!(after_move > before_move);

    // Carol's vote is the last: the game ends without a result.
    let alice_seen = app.last_notification_id(&alice).await;
    let ended = vote(app, &carol, &id, true).await;
    assert_eq!(ended["status"], "abandoned");
    assert!(ended["outcome"].is_null());
    assert_eq!(ended["to_act"], json!([]));
    assert_eq!(ended["your_turn"], false);
    for seat in ended["seats"].as_array().unwrap() {
        assert!(seat["deadline"].is_null(), "every clock stops: {seat}");
    }
    let heard = app.notifications_after(&alice, alice_seen, 0).await;
    assert_eq!(of_type(&heard, "game_abandoned").len(), 1, "{heard:?}");
    assert_eq!(of_type(&heard, "your_turn").len(), 0, "{heard:?}");

    // Nothing more happens in it.
    let current = ended["current_seq"].as_i64().unwrap();
    let refused = app
        .post(
            &alice,
            &format!("/v1/games/{id}/actions"),
            &json!({"expected_seq": current, "action": {"type": "end_turn"}}),
        )
        .await
        .expect_problem(409, "game_abandoned");
    assert!(refused["detail"].as_str().unwrap().contains("abandon"));
    app.post(&alice, &format!("/v1/games/{id}/abandon"), &json!({}))
        .await
        .expect_problem(409, "game_finished");
    app.post(&alice, &format!("/v1/games/{id}/resign"), &json!({}))
        .await
        .expect_problem(409, "game_finished");
    assert!(app
        .get(&alice, "/v1/games?my_turn=true")
        .await
        .expect_status(200)
        .json()["games"]
        .as_array()
        .unwrap()
        .is_empty());

    // The export reveals everything and verifies, ending without an outcome.
    let export = app
        .get(&dave, &format!("/v1/games/{id}/export"))
        .await
        .expect_status(200)
        .json();
    assert!(
        export["seed"].is_string(),
        "an abandoned game hides nothing"
    );
    let server_types: Vec<&str> = export["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["source"] == "server")
        .map(|event| event["type"].as_str().unwrap())
        .filter(|kind| !kind.starts_with("clock_"))
        .collect();
    assert_eq!(
        server_types,
        [
            "abandon_voted",
            "abandon_voted",
            "abandon_vote_withdrawn",
            "abandon_voted",
            "abandon_voted",
            "game_abandoned"
        ]
    );
    let last = export["events"].as_array().unwrap().last().unwrap();
    assert_eq!(
        last["text"],
        "Every player agreed: the game is abandoned without a result"
    );
    let record = GameRecord::from_json(&export.to_string()).unwrap();
    let verified = record.verify().unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(verified.outcome, None);
    let text = turnpost::verify::verify_export(&export.to_string()).unwrap();
    assert!(text.contains("an abandoned game"), "{text}");

    // The players' records count it apart from finished games; a rematch is possible.
    let record = app
        .get(&bob, "/v1/accounts/alice")
        .await
        .expect_status(200)
        .json();
    assert_eq!(record["kinds"][0]["abandoned"], 1, "{record}");
    assert_eq!(record["kinds"][0]["finished"], 0, "{record}");
    app.post(&carol, &format!("/v1/games/{id}/rematch"), &json!({}))
        .await
        .expect_status(201);
}

async fn a_forfeit_leaves_the_votes_of_the_others_enough(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let id = app
        .new_game(
            "tikal",
            json!({}),
            &[alice.clone(), bob.clone(), carol.clone()],
        )
        .await;
    vote(app, &alice, &id, true).await;
    vote(app, &bob, &id, true).await;
    app.post(&carol, &format!("/v1/games/{id}/resign"), &json!({}))
        .await
        .expect_status(200);
    app.post(&carol, &format!("/v1/games/{id}/abandon"), &json!({}))
        .await
        .expect_problem(409, "seat_forfeited");
    assert_eq!(summary(app, &alice, &id).await["status"], "running");
    // Every person still in play has voted: a vote cast again ends the game.
    let ended = vote(app, &bob, &id, true).await;
    assert_eq!(ended["status"], "abandoned");
}

async fn game_invitations(app: &TestApp, player: &Player, id: &str) -> Vec<(String, String)> {
    app.get(player, &format!("/v1/games/{id}/invitations"))
        .await
        .expect_status(200)
        .json()["invitations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|invitation| {
            (
                invitation["account"]["name"].as_str().unwrap().to_owned(),
                invitation["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(name, state)| (name.to_string(), state.to_string()))
        .collect()
}

/// The creator of a private game sees whom it invited and who declined, and invites
/// someone else in the decliner's place; the one who declined is not asked again, and the
/// game's invitations are bounded.
async fn a_creator_sees_a_decline_and_invites_someone_else(app: &TestApp) {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let dave = app.register("dave").await;
    let id = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 3, "private": true, "invite": ["bob", "carol"]}),
        )
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        game_invitations(app, &alice, &id).await,
        pairs(&[("bob", "waiting"), ("carol", "waiting")])
    );
    app.post(&carol, &format!("/v1/games/{id}/decline"), &json!({}))
        .await
        .expect_status(200);
    app.post(&bob, &format!("/v1/games/{id}/seats"), &json!({}))
        .await
        .expect_status(200);
    let listed = app
        .get(&alice, &format!("/v1/games/{id}/invitations"))
        .await
        .expect_status(200)
        .json();
    let carols = &listed["invitations"][1];
    assert_eq!(carols["state"], "declined");
    assert!(carols["declined_at"].is_string(), "{listed}");
    assert_eq!(
        game_invitations(app, &bob, &id).await,
        pairs(&[("bob", "seated"), ("carol", "declined")]),
        "a seated player sees them too"
    );
    // Outsiders do not, and only the creator invites.
    app.get(&dave, &format!("/v1/games/{id}/invitations"))
        .await
        .expect_problem(404, "game_not_found");
    app.post(
        &bob,
        &format!("/v1/games/{id}/invitations"),
        &json!({"invite": ["dave"]}),
    )
    .await
    .expect_problem(403, "not_the_creator");
    // Carol said no: she is not asked again.
    app.post(
        &alice,
        &format!("/v1/games/{id}/invitations"),
        &json!({"invite": ["carol"]}),
    )
    .await
    .expect_problem(409, "invitation_declined");
    app.post(
        &alice,
        &format!("/v1/games/{id}/invitations"),
        &json!({"invite": ["alice"]}),
    )
    .await
    .expect_problem(422, "invalid_invitations");
    app.post(
        &alice,
        &format!("/v1/games/{id}/invitations"),
        &json!({"invite": ["nobody"]}),
    )
    .await
    .expect_problem(404, "account_not_found");
    app.post(
        &alice,
        &format!("/v1/games/{id}/invitations"),
        &json!({"invite": []}),
    )
    .await
    .expect_problem(422, "invalid_invitations");
    // Dave is invited in Carol's place, hears of it and sees the game; inviting him again
    // sends nothing more.
    let dave_seen = app.last_notification_id(&dave).await;
    for _ in 0..2 {
        let answer = app
            .post(
                &alice,
                &format!("/v1/games/{id}/invitations"),
                &json!({"invite": ["Dave"]}),
            )
            .await
            .expect_status(200)
            .json();
        assert_eq!(
            answer["invitations"][2]["account"]["name"], "dave",
            "{answer}"
        );
        assert_eq!(answer["invitations"][2]["state"], "waiting");
    }
    let heard = app.notifications_after(&dave, dave_seen, 0).await;
    assert_eq!(of_type(&heard, "invitation").len(), 1, "{heard:?}");
    assert_eq!(invitations(app, &dave).await.len(), 1);
    app.post(&dave, &format!("/v1/games/{id}/seats"), &json!({}))
        .await
        .expect_status(200);
    assert_eq!(summary(app, &alice, &id).await["status"], "running");
    app.post(
        &alice,
        &format!("/v1/games/{id}/invitations"),
        &json!({"invite": ["carol"]}),
    )
    .await
    .expect_problem(409, "game_not_open");

    // A public game takes no invitations; a game holds at most 4 waiting.
    let public = app
        .post(&alice, "/v1/games", &json!({"kind": "tikal", "seats": 2}))
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(
        &alice,
        &format!("/v1/games/{public}/invitations"),
        &json!({"invite": ["bob"]}),
    )
    .await
    .expect_problem(422, "invalid_invitations");
    let mut names = Vec::new();
    for n in 0..5 {
        let name = format!("guest{n}");
        app.register(&name).await;
        names.push(name);
    }
    let unlisted = app
        .post(
            &alice,
            "/v1/games",
            &json!({"kind": "tikal", "seats": 4, "visibility": "unlisted",
                    "invite": &names[..3]}),
        )
        .await
        .expect_status(201)
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post(
        &alice,
        &format!("/v1/games/{unlisted}/invitations"),
        &json!({"invite": &names[3..5]}),
    )
    .await
    .expect_problem(409, "invitation_quota");
    assert_eq!(
        game_invitations(app, &alice, &unlisted).await.len(),
        3,
        "nothing written"
    );
}
