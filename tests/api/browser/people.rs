//! The people pages in a real browser, on a desktop and on a phone: a player's page with
//! its ratings and following, the lobby's open games with their set-up and filters, the
//! leaderboard, the archive with a filter, the rating change at the end of a rated game
//! and "play a game like this". Every page is checked with axe-core and must not scroll
//! sideways on the phone.

use serde_json::json;

use super::{Browser, Screen};
use crate::ratings::played;
use crate::util::{Backend, TestApp};

/// Tikal asks for 6 actions of each person before a game is rated.
const TIKAL_ACTIONS: usize = 6;

/// The page neither scrolls sideways nor has serious accessibility problems.
async fn check_page(browser: &Browser, screen: Screen, page: &str) {
    let widths = browser
        .run(
            "return [document.documentElement.scrollWidth, innerWidth];",
            json!([]),
        )
        .await;
    if screen == Screen::Phone {
        assert!(
            widths[0].as_f64() <= widths[1].as_f64(),
            "the {page} scrolls sideways on a phone: {widths}"
        );
    }
    browser.check_accessibility(page).await;
}

async fn visit(browser: &Browser, base: &str, path: &str, section: &str) {
    browser.goto(&format!("{base}{path}")).await;
    browser
        .wait_for(
            &format!("the page at {path}"),
            "return !document.getElementById(arguments[0]).hidden",
            json!([section]),
        )
        .await;
}

async fn the_people_pages_on(screen: Screen, prefix: &str) {
    let app = TestApp::start(Backend::Sqlite).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    app.request(
        reqwest::Method::PUT,
        "/v1/me/profile",
        Some(&bo.token),
        Some(&json!({"about": "Plays slowly, by the sea.", "country": "AT", "language": "de", "show_last_seen": true})),
        &[],
    )
    .await
    .expect_status(200);
    let finished = played(
        &app,
        json!({"kind": "tikal", "title": "Harbour final"}),
        &[&ada, &bo],
        TIKAL_ACTIONS,
        &[&bo],
    )
    .await;
    let finished_id = finished["id"].as_str().unwrap().to_owned();
    app.post(
        &bo,
        "/v1/games",
        &json!({"kind": "java", "seats": 2, "time_control": {"type": "days_per_move", "days": 3}}),
    )
    .await
    .expect_status(201);

    let browser = Browser::start_on(screen).await;
    browser
        .sign_in(&app.base, "ada", &format!("{prefix}-00-sign-in.png"))
        .await;
    browser
        .wait_for(
            "the lobby",
            "return !document.getElementById('lobby-page').hidden",
            json!([]),
        )
        .await;

    // Bo's page: what Bo says, the rating, the game, and a button to follow.
    visit(&browser, &app.base, "/players/bo", "player-page").await;
    let facts = browser
        .wait_for(
            "Bo's facts",
            "const facts = document.getElementById('player-facts').textContent; \
             return facts.includes('last seen') && facts",
            json!([]),
        )
        .await;
    assert!(facts.as_str().unwrap().contains("Austria"), "{facts}");
    browser
        .wait_for(
            "what Bo says, the rating and the game",
            "return document.getElementById('player-about').textContent === arguments[0] \
               && document.querySelector('#player-ratings .rating-chart') !== null \
               && document.getElementById('player-games').textContent.includes('Harbour final') \
               && document.getElementById('player-versus').textContent.includes('you placed ahead in 1')",
            json!(["Plays slowly, by the sea."]),
        )
        .await;
    check_page(&browser, screen, "player's page").await;
    browser.screenshot(&format!("{prefix}-01-player.png")).await;
    browser.click("#player-follow").await;
    browser
        .wait_for(
            "the follow",
            "return document.getElementById('player-follow').textContent === 'Stop following'",
            json!([]),
        )
        .await;

    // The lobby: Bo among those followed, Bo's open game with its set-up, filters.
    visit(&browser, &app.base, "/", "lobby-page").await;
    browser
        .wait_for(
            "Bo's open game",
            "return document.getElementById('following').textContent.includes('waits in 1 open game') \
               && document.getElementById('open-games').textContent.includes('3 days per turn') \
               && document.getElementById('following-games').textContent.includes('Java')",
            json!([]),
        )
        .await;
    browser
        .run(
            "const select = document.getElementById('open-kind'); select.value = 'tikal'; \
             select.dispatchEvent(new Event('change')); return true;",
            json!([]),
        )
        .await;
    browser
        .wait_for(
            "the filtered open games",
            "return document.getElementById('open-games').textContent.includes('No open game matches')",
            json!([]),
        )
        .await;
    check_page(&browser, screen, "lobby").await;

    // The leaderboard: nobody has 5 games yet; the page says how ranking works.
    visit(
        &browser,
        &app.base,
        "/leaderboards/tikal",
        "leaderboard-page",
    )
    .await;
    browser
        .wait_for(
            "the leaderboard",
            "return document.getElementById('leaderboard-you').textContent.includes('from 5 rated games') \
               && document.getElementById('leaderboard-rows').textContent.includes('Nobody')",
            json!([]),
        )
        .await;
    check_page(&browser, screen, "leaderboard").await;

    // The archive, filtered by winner.
    visit(&browser, &app.base, "/archive", "archive-page").await;
    browser
        .wait_for(
            "the archive",
            "return document.getElementById('archive-games').textContent.includes('Harbour final')",
            json!([]),
        )
        .await;
    browser.type_into("#archive-winner", "bo").await;
    browser.click("#archive-form button[type='submit']").await;
    browser
        .wait_for(
            "the filtered archive",
            "return document.getElementById('archive-games').textContent.includes('No finished public game matches')",
            json!([]),
        )
        .await;
    check_page(&browser, screen, "archive").await;
    browser
        .screenshot(&format!("{prefix}-02-archive.png"))
        .await;

    // The finished game: the rating change, then "play a game like this".
    visit(
        &browser,
        &app.base,
        &format!("/games/{finished_id}"),
        "game-page",
    )
    .await;
    browser
        .wait_for(
            "the rating change",
            "return document.getElementById('result').textContent.includes('rating 25.0 →') \
               && document.getElementById('game-title').textContent === 'Harbour final'",
            json!([]),
        )
        .await;
    browser.click("#play-like-this").await;
    browser
        .wait_for(
            "the new-game form set up like it",
            "return !document.getElementById('lobby-page').hidden \
               && document.getElementById('new-kind').value === 'tikal' \
               && document.getElementById('new-seats').value === '2'",
            json!([]),
        )
        .await;
    visit(&browser, &app.base, "/watch", "watch-page").await;
    browser
        .wait_for(
            "the games to watch",
            "return document.getElementById('watch-others').textContent.length > 0",
            json!([]),
        )
        .await;
    check_page(&browser, screen, "watch page").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_people_pages_work_on_a_desktop_in_a_real_browser() {
    the_people_pages_on(Screen::Desktop, "90-desktop").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_people_pages_work_on_a_phone_in_a_real_browser() {
    the_people_pages_on(Screen::Phone, "91-phone").await;
}
