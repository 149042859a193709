//! Mail as its readers meet it: through a real SMTP server (aiosmtpd), a confirmed
//! address, the topics chosen, a move's turn mail, one-click unsubscribe, daily digests,
//! an SMTP server that was down, and one account's flood that never holds back another's
//! mail.

use serde_json::{json, Value};
use turnpost::clock::Clock;

use turnpost_client::{EmailSettingsUpdate, EmailTopic};

use crate::smtp_sink::{ArrivedMail, SmtpSink};
use crate::util::{Backend, Player, TestApp};

/// Far from the system clock, at 10:00 UTC, so nothing passes by accident.
const START_MS: i64 = 1_800_000_000_000 - 1_800_000_000_000 % 86_400_000 + 10 * 3_600_000;
const SECOND_MS: i64 = 1_000;

/// The settings of a server mailing through `sink` on `clock`, looking for due mail every
/// `poll_ms` (0: sending none), mails to one account `spacing_seconds` apart at least.
fn mailing(
    sink: &SmtpSink,
    clock: &Clock,
    poll_ms: u64,
    spacing_seconds: u64,
) -> impl FnOnce(&mut turnpost::config::Config) {
    let (url, clock) = (sink.url(), clock.clone());
    move |config| {
        config.smtp_url = Some(url);
        config.mail_poll_ms = poll_ms;
        config.mail_spacing_seconds = spacing_seconds;
        config.clock = clock;
    }
}

async fn app_mailing_to(
    backend: Backend,
    sink: &SmtpSink,
    clock: &Clock,
    spacing_seconds: u64,
) -> TestApp {
    TestApp::start_with(backend, mailing(sink, clock, 50, spacing_seconds)).await
}

async fn set_email(app: &TestApp, player: &Player, settings: &Value) -> crate::util::Response {
    app.request(
        reqwest::Method::PUT,
        "/v1/me/email",
        Some(&player.token),
        Some(settings),
        &[],
    )
    .await
}

/// Posts `token` to a link operation (`/v1/email/confirm` or `/v1/email/unsubscribe`), as
/// the page a mail's link opens does.
async fn follow(app: &TestApp, operation: &str, token: &str) -> crate::util::Response {
    app.request(
        reqwest::Method::POST,
        operation,
        None,
        Some(&json!({ "token": token })),
        &[],
    )
    .await
}

/// The token of the confirmation link in `mail`.
fn confirmation_token(mail: &ArrivedMail) -> String {
    let link = mail
        .link("http://")
        .expect("a confirmation link in the mail");
    assert!(link.contains("/email/confirm?token="), "{link}");
    link.rsplit_once("token=").unwrap().1.to_owned()
}

/// Gives `player` a confirmed address with these settings; returns the address.
async fn confirmed_address(
    app: &TestApp,
    sink: &SmtpSink,
    player: &Player,
    settings: Value,
) -> String {
    let address = settings["address"].as_str().unwrap().to_owned();
    let before = sink.mails_to(&address).len();
    set_email(app, player, &settings).await.expect_status(200);
    let mails = sink.wait_for(&address, before + 1).await;
    let token = confirmation_token(&mails[before]);
    follow(app, "/v1/email/confirm", &token)
        .await
        .expect_status(200);
    address
}

/// `inviter` opens a private Tikal game for two and invites `invitee`.
async fn invite(app: &TestApp, inviter: &Player, invitee: &str) -> String {
    app.post(
        inviter,
        "/v1/games",
        &json!({"kind": "tikal", "seats": 2, "private": true, "invite": [invitee]}),
    )
    .await
    .expect_status(201)
    .json()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Waits until the server has nothing more to mail for a moment; then no new mail means
/// none was queued.
async fn settle() {
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
}

async fn an_address_is_confirmed_chosen_and_unsubscribed_in_one_click(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = Clock::manual(START_MS);
    let app = app_mailing_to(backend, &sink, &clock, 0).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;

    assert_eq!(
        app.get(&ada, "/v1/me/email")
            .await
            .expect_status(200)
            .json(),
        json!({"address": null, "confirmed": false, "topics": [], "digest": false,
               "digest_hour": 7, "mail_available": true})
    );
    for bad in [
        "ada",
        "Ada <ada@example.org>",
        "ada@",
        "a b@example.org",
        "ada@example.org\u{0}",
    ] {
        set_email(&app, &ada, &json!({ "address": bad }))
            .await
            .expect_problem(422, "invalid_email_address");
    }
    set_email(
        &app,
        &ada,
        &json!({"address": "ada@example.org", "digest_hour": 24}),
    )
    .await
    .expect_problem(422, "invalid_email_settings");

    // A new address: a confirmation mail and nothing else until it is confirmed.
    let set = set_email(
        &app,
        &ada,
        &json!({"address": " ada@example.org ", "topics": ["invitation", "your_turn"]}),
    )
    .await
    .expect_status(200)
    .json();
    assert_eq!(set["address"], "ada@example.org");
    assert_eq!(set["confirmed"], false);
    assert_eq!(set["topics"], json!(["your_turn", "invitation"]));
    let mails = sink.wait_for("ada@example.org", 1).await;
    assert_eq!(mails[0].subject(), "Confirm your mail address for turnpost");
    assert_eq!(mails[0].header("list-unsubscribe"), None);
    let token = confirmation_token(&mails[0]);
    invite(&app, &bo, "ada").await;
    settle().await;
    assert_eq!(
        sink.mails_to("ada@example.org").len(),
        1,
        "unconfirmed: only the confirmation"
    );

    // Opening the link only shows a button (a mail scanner's fetch confirms nothing).
    let page = reqwest::get(format!("{}/email/confirm?token={token}", app.base))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("<form method=\"post\""));
    assert_eq!(
        app.get(&ada, "/v1/me/email").await.json()["confirmed"],
        false
    );
    let confirmed = app
        .request(
            reqwest::Method::POST,
            "/v1/email/confirm",
            None,
            Some(&json!({ "token": token })),
            &[],
        )
        .await
        .expect_status(200)
        .json();
    assert_eq!(confirmed, json!({"address": "ada@example.org"}));
    follow(&app, "/v1/email/confirm", &token)
        .await
        .expect_problem(404, "confirmation_not_found");
    assert_eq!(
        app.get(&ada, "/v1/me/email").await.json()["confirmed"],
        true
    );

    // A chosen topic is mailed, with a one-click unsubscribe link; one not chosen is not.
    let game = invite(&app, &bo, "ada").await;
    let mails = sink.wait_for("ada@example.org", 2).await;
    let invitation = &mails[1];
    assert_eq!(invitation.subject(), "bo invites you to a game of Tikal");
    // The links point at --public-url (here the default from --bind, without the port the
    // test server really got).
    assert!(invitation.body.contains(&format!("/games/{game}\n")));
    assert!(invitation
        .header("message-id")
        .is_some_and(|id| id.starts_with("<mail.")));
    assert_eq!(invitation.header("auto-submitted"), Some("auto-generated"));
    assert_eq!(
        invitation.header("list-unsubscribe-post"),
        Some("List-Unsubscribe=One-Click")
    );
    let unsubscribe = invitation
        .header("list-unsubscribe")
        .expect("a List-Unsubscribe header")
        .trim_matches(['<', '>'])
        .to_owned();
    let unsubscribe = unsubscribe
        .split_once("/email/")
        .map(|(_, rest)| format!("{}/email/{rest}", app.base))
        .expect("an unsubscribe link");
    app.post(&ada, &format!("/v1/games/{game}/seats"), &json!({}))
        .await
        .expect_status(200);
    app.post(
        &bo,
        &format!("/v1/games/{game}/chat"),
        &json!({"text": "welcome @ada"}),
    )
    .await
    .expect_status(201);
    let second = invite(&app, &bo, "ada").await;
    let mails = sink.wait_for("ada@example.org", 3).await;
    settle().await;
    let mails_now = sink.mails_to("ada@example.org");
    assert_eq!(
        mails_now.len(),
        mails.len(),
        "the mention was not mailed: {mails_now:#?}"
    );
    let texts: String = mails[2..].iter().map(|mail| mail.body.clone()).collect();
    assert!(texts.contains(&format!("/games/{second}\n")), "{texts}");
    assert!(!texts.contains("mentioned"), "{texts}");

    // One click, as a mail program makes it: nothing more is mailed.
    let clicked = reqwest::Client::new()
        .post(&unsubscribe)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    assert_eq!(clicked.status(), 200);
    let after = app.get(&ada, "/v1/me/email").await.json();
    assert_eq!(after["topics"], json!([]));
    assert_eq!(after["confirmed"], true);
    let before = sink.mails_to("ada@example.org").len();
    invite(&app, &bo, "ada").await;
    settle().await;
    assert_eq!(sink.mails_to("ada@example.org").len(), before);
    let token = unsubscribe.rsplit_once("token=").unwrap().1;
    assert_eq!(
        follow(&app, "/v1/email/unsubscribe", token)
            .await
            .expect_status(200)
            .json(),
        json!({"address": "ada@example.org"})
    );

    // Removing the address forgets its link.
    set_email(&app, &ada, &json!({ "address": null }))
        .await
        .expect_status(200);
    follow(&app, "/v1/email/unsubscribe", token)
        .await
        .expect_problem(404, "unsubscribe_not_found");
    sink.assert_each_mail_once();
}

async fn a_digest_carries_a_day_in_one_mail(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = Clock::manual(START_MS);
    let app = app_mailing_to(backend, &sink, &clock, 0).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    // Through the client crate, as a third-party client would.
    let client = crate::client::checked_client(&app).with_token(&ada.token);
    let set = client
        .set_email(&EmailSettingsUpdate {
            address: Some("ada@example.org".into()),
            topics: vec![EmailTopic::Invitation],
            digest: true,
            digest_hour: 6,
        })
        .await
        .unwrap();
    assert!(!set.confirmed && set.mail_available && set.digest);
    let address = set.address.unwrap();
    let confirmation = sink.wait_for(&address, 1).await;
    assert_eq!(
        client
            .confirm_email(&confirmation_token(&confirmation[0]))
            .await
            .unwrap(),
        address
    );
    let settings = client.email().await.unwrap();
    assert!(settings.confirmed);
    assert_eq!(settings.topics, [EmailTopic::Invitation]);
    assert_eq!(settings.digest_hour, 6);
    let games = [
        invite(&app, &bo, "ada").await,
        invite(&app, &bo, "ada").await,
        invite(&app, &bo, "ada").await,
    ];
    settle().await;
    assert_eq!(
        sink.mails_to(&address).len(),
        1,
        "only the confirmation before 06:00"
    );
    // 10:00 -> 06:00 the next day.
    clock.advance(20 * 3_600 * SECOND_MS);
    let mails = sink.wait_for(&address, 2).await;
    settle().await;
    assert_eq!(sink.mails_to(&address).len(), 2, "one digest");
    let digest = &mails[1];
    assert_eq!(digest.subject(), "Your turnpost digest: 3 updates");
    assert_eq!(
        digest
            .body
            .matches("bo invites you to a game of Tikal.\n")
            .count(),
        3,
        "{}",
        digest.body
    );
    for game in &games {
        assert!(digest.body.contains(&format!("/games/{game}\n")));
    }
    assert!(digest.header("list-unsubscribe").is_some());
    sink.assert_each_mail_once();
}

async fn mail_waits_out_a_down_smtp_server_and_arrives_once(backend: Backend) {
    let mut sink = SmtpSink::start();
    let clock = Clock::manual(START_MS);
    let app = app_mailing_to(backend, &sink, &clock, 0).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let address = confirmed_address(
        &app,
        &sink,
        &ada,
        json!({"address": "ada@example.org", "topics": ["invitation"]}),
    )
    .await;
    sink.stop();
    let game = invite(&app, &bo, "ada").await;
    // The try fails (nothing listens); the item waits a minute for the next.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let failed = app.metric("turnpost_mails_total{outcome=\"failed\"}").await;
        if failed == Some(1.0) {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "no failed try: {failed:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    sink.restart();
    settle().await;
    assert_eq!(
        sink.mails_to(&address).len(),
        1,
        "not before its retry time"
    );
    clock.advance(61 * SECOND_MS);
    let mails = sink.wait_for(&address, 2).await;
    assert_eq!(mails[1].subject(), "bo invites you to a game of Tikal");
    assert!(mails[1].body.contains(&format!("/games/{game}\n")));
    clock.advance(3_600 * SECOND_MS);
    settle().await;
    assert_eq!(sink.mails_to(&address).len(), 2, "sent once");
    sink.assert_each_mail_once();
}

/// What a claim leaves behind when its instance dies before the send is recorded (the
/// items and the address held until the lease lapses): the next instance sends it once the
/// lease has lapsed, not before, and once.
async fn mail_claimed_by_an_instance_that_died_is_sent_once_its_lease_lapses(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = Clock::manual(START_MS);
    let app = app_mailing_to(backend, &sink, &clock, 0).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let address = confirmed_address(
        &app,
        &sink,
        &ada,
        json!({"address": "ada@example.org", "topics": ["invitation"]}),
    )
    .await;
    // An instance that sends nothing queues the invitation...
    let app = app.restart_with(mailing(&sink, &clock, 0, 0)).await;
    let game = invite(&app, &bo, "ada").await;
    // ...and a claim that was never recorded holds it for five minutes.
    let lease = START_MS + 5 * 60 * SECOND_MS;
    app.execute_sql(&format!(
        "UPDATE mail_outbox SET attempts = 1, due_at = {lease} WHERE sent_at IS NULL"
    ));
    app.execute_sql(&format!("UPDATE email_addresses SET busy_until = {lease}"));
    let app = app.restart_with(mailing(&sink, &clock, 50, 0)).await;
    settle().await;
    assert_eq!(sink.mails_to(&address).len(), 1, "held by the dead claim");
    clock.advance(5 * 60 * SECOND_MS + 1);
    let mails = sink.wait_for(&address, 2).await;
    assert_eq!(mails[1].subject(), "bo invites you to a game of Tikal");
    assert!(mails[1].body.contains(&format!("/games/{game}\n")));
    settle().await;
    assert_eq!(sink.mails_to(&address).len(), 2);
    sink.assert_each_mail_once();
    drop(app);
}

async fn one_accounts_flood_waits_its_turn_and_holds_back_no_one(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = Clock::manual(START_MS);
    let app = app_mailing_to(backend, &sink, &clock, 60).await;
    let ada = app.register("ada").await;
    let cy = app.register("cy").await;
    let bo = app.register("bo").await;
    let ada_address = confirmed_address(
        &app,
        &sink,
        &ada,
        json!({"address": "ada@example.org", "topics": ["invitation"]}),
    )
    .await;
    let cy_address = confirmed_address(
        &app,
        &sink,
        &cy,
        json!({"address": "cy@example.org", "topics": ["invitation"]}),
    )
    .await;
    // Both were mailed their confirmations; a minute later each may have the next mail.
    clock.advance(60 * SECOND_MS);
    for _ in 0..12 {
        invite(&app, &bo, "ada").await;
    }
    invite(&app, &bo, "cy").await;
    let cy_mails = sink.wait_for(&cy_address, 2).await;
    assert!(cy_mails[1]
        .subject()
        .starts_with("bo invites you to a game of Tikal"));
    // Ada's first mail carries what had come when it was claimed; the rest waits out her
    // minute and comes in one more mail.
    sink.wait_for(&ada_address, 2).await;
    settle().await;
    assert_eq!(
        sink.mails_to(&ada_address).len(),
        2,
        "ada waits out her minute"
    );
    clock.advance(60 * SECOND_MS);
    let ada_mails = sink.wait_for(&ada_address, 3).await;
    settle().await;
    assert_eq!(sink.mails_to(&ada_address).len(), 3);
    let invitations: usize = ada_mails[1..]
        .iter()
        .map(|mail| mail.body.matches("bo invites you").count())
        .sum();
    assert_eq!(invitations, 12, "every invitation once: {ada_mails:#?}");
    assert!(
        ada_mails[2]
            .subject()
            .ends_with("updates from your turnpost games")
            || ada_mails[2].subject().starts_with("bo invites you")
    );
    sink.assert_each_mail_once();
}

async fn confirmation_mails_are_limited_and_need_a_mail_server(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = Clock::manual(START_MS);
    let app = app_mailing_to(backend, &sink, &clock, 0).await;
    let ada = app.register("ada").await;
    for n in 0..5 {
        set_email(
            &app,
            &ada,
            &json!({ "address": format!("ada{n}@example.org") }),
        )
        .await
        .expect_status(200);
    }
    let refused = set_email(&app, &ada, &json!({"address": "ada5@example.org"})).await;
    assert!(refused.header("retry-after").is_some());
    refused.expect_problem(429, "rate_limited");
    app.post(&ada, "/v1/me/email/confirmation", &json!({}))
        .await
        .expect_problem(429, "rate_limited");
    // One address from many accounts: three a day.
    for name in ["bo", "cy", "di"] {
        let player = app.register(name).await;
        set_email(&app, &player, &json!({"address": "target@example.org"}))
            .await
            .expect_status(200);
    }
    let eve = app.register("eve").await;
    set_email(&app, &eve, &json!({"address": "target@example.org"}))
        .await
        .expect_problem(429, "rate_limited");
    app.post(&eve, "/v1/me/email/confirmation", &json!({}))
        .await
        .expect_problem(409, "no_email_address");
    // The mails of the day are out before the clock jumps a day: a send still under way
    // would see its claim's lease lapse with the jump and its mail be claimed and sent
    // again, which a real clock never does to a send of milliseconds. (A confirmation to
    // one of ada's earlier addresses may rightly never go, so those are not waited for.)
    sink.wait_for("ada4@example.org", 1).await;
    sink.wait_for("target@example.org", 3).await;
    settle().await;
    // A day later the quota is back, and a new link replaces the old.
    clock.advance(86_400 * SECOND_MS + 1);
    let first = sink.wait_for("ada4@example.org", 1).await;
    let old_token = confirmation_token(&first[0]);
    app.post(&ada, "/v1/me/email/confirmation", &json!({}))
        .await
        .expect_status(202);
    let mails = sink.wait_for("ada4@example.org", 2).await;
    let new_mail = mails
        .iter()
        .find(|mail| confirmation_token(mail) != old_token)
        .unwrap_or_else(|| panic!("a new link: {mails:#?}"));
    follow(&app, "/v1/email/confirm", &old_token)
        .await
        .expect_problem(404, "confirmation_not_found");
    let token = confirmation_token(new_mail);
    follow(&app, "/v1/email/confirm", &token)
        .await
        .expect_status(200);
    app.post(&ada, "/v1/me/email/confirmation", &json!({}))
        .await
        .expect_problem(409, "email_already_confirmed");
    settle().await;
    assert_eq!(sink.mails_to("ada4@example.org").len(), 2);
    sink.assert_each_mail_once();

    // A server without SMTP takes no address.
    let mailless = TestApp::start(backend).await;
    let fay = mailless.register("fay").await;
    assert_eq!(
        mailless.get(&fay, "/v1/me/email").await.json()["mail_available"],
        false
    );
    set_email(&mailless, &fay, &json!({"address": "fay@example.org"}))
        .await
        .expect_problem(409, "mail_not_configured");
}

/// A move that passes the turn mails the player whose turn it now is, once (on PostgreSQL
/// the move's one statement queues the mail), and a move that keeps it mails no one.
async fn a_move_that_passes_the_turn_mails_the_next_player(backend: Backend) {
    let sink = SmtpSink::start();
    let clock = Clock::manual(START_MS);
    let app = app_mailing_to(backend, &sink, &clock, 0).await;
    let players = [app.register("ada").await, app.register("bo").await];
    let mut addresses = Vec::new();
    for (player, address) in players.iter().zip(["ada@example.org", "bo@example.org"]) {
        let settings = json!({"address": address, "topics": ["your_turn"]});
        addresses.push(confirmed_address(&app, &sink, player, settings).await);
    }
    let id = app.new_game("tikal", json!({}), &players).await;
    let to_act = || async {
        let summary = app.get(&players[0], &format!("/v1/games/{id}")).await;
        summary.json()["to_act"][0].as_u64().expect("someone acts") as usize
    };
    let first = to_act().await;
    let (mover, next) = (&addresses[first], &addresses[1 - first]);
    // The game's start told the first player (with the confirmation: two mails).
    sink.wait_for(mover, 2).await;
    let mut moves = 0;
    while to_act().await == first {
        app.play_first_legal_action(&players, &id).await;
        moves += 1;
        assert!(moves < 40, "the turn never passed");
    }
    let mails = sink.wait_for(next, 2).await;
    assert_eq!(
        mails[1].subject(),
        "Your turn in Tikal with ada and bo",
        "the game named by its kind and players, not its id"
    );
    assert!(mails[1].body.contains(&format!("/games/{id}\n")));
    settle().await;
    assert_eq!(sink.mails_to(next).len(), 2, "one mail for the turn");
    assert_eq!(
        sink.mails_to(mover).len(),
        2,
        "none for the moves that kept it"
    );
    sink.assert_each_mail_once();
}

/// Guesses at confirmation tokens are limited per address, through the API and the page
/// alike; the limit says when to try again.
async fn confirmation_guesses_are_limited(backend: Backend) {
    let app = TestApp::start_with(backend, |config| {
        config.email_confirmations_per_hour_per_address = 3;
    })
    .await;
    for guess in ["guess1", "guess2"] {
        follow(&app, "/v1/email/confirm", guess)
            .await
            .expect_problem(404, "confirmation_not_found");
    }
    let page = app
        .request(
            reqwest::Method::POST,
            "/email/confirm?token=guess3",
            None,
            None,
            &[],
        )
        .await;
    assert_eq!(page.status, 404, "{}", page.text);
    let refused = follow(&app, "/v1/email/confirm", "guess4").await;
    assert!(refused.header("retry-after").is_some());
    refused.expect_problem(429, "rate_limited");
    let page = app
        .request(
            reqwest::Method::POST,
            "/email/confirm?token=guess5",
            None,
            None,
            &[],
        )
        .await;
    assert_eq!(page.status, 429, "{}", page.text);
    // Unsubscribing is not limited: mail providers post one-click unsubscribes from a few
    // shared addresses.
    follow(&app, "/v1/email/unsubscribe", "guess6")
        .await
        .expect_problem(404, "unsubscribe_not_found");
}

crate::with_each_backend!(
    confirmation_guesses_are_limited,
    a_move_that_passes_the_turn_mails_the_next_player,
    an_address_is_confirmed_chosen_and_unsubscribed_in_one_click,
    a_digest_carries_a_day_in_one_mail,
    mail_waits_out_a_down_smtp_server_and_arrives_once,
    mail_claimed_by_an_instance_that_died_is_sent_once_its_lease_lapses,
    one_accounts_flood_waits_its_turn_and_holds_back_no_one,
    confirmation_mails_are_limited_and_need_a_mail_server,
);
