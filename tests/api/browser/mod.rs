//! The web page in a real browser: headless Chromium driven over WebDriver (chromedriver)
//! signs in, opens a game, makes a move, sees the board change and steps back through the
//! history. Screenshots go to `target/browser-test/`. `scripts/test` installs Debian's
//! chromium and chromium-driver when they are missing.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{Backend, TestApp};

mod people;

/// One browser at a time: two Chromiums rendering at once on a 2-core machine starve the
/// server under test until it times out a request head (408).
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A W3C WebDriver session on a chromedriver this test started.
struct Browser {
    http: reqwest::Client,
    session_url: String,
    driver: Child,
    screenshots: PathBuf,
    _alone: tokio::sync::MutexGuard<'static, ()>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Killing chromedriver alone leaves its Chromium running, orphaned: every test
        // leaked a browser (hundreds of processes and gigabytes after a few runs). Ending the
        // session first makes chromedriver close it, also when the test failed.
        end_session(&self.session_url);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// `DELETE` on a WebDriver session, sent without the async runtime a `Drop` cannot await:
/// chromedriver then quits the browser of that session.
fn end_session(session_url: &str) {
    let Some((host, path)) = session_url
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
    else {
        return;
    };
    let Ok(address) = host.parse::<std::net::SocketAddr>() else {
        return;
    };
    let Ok(mut stream) = std::net::TcpStream::connect_timeout(&address, Duration::from_secs(2))
    else {
        return;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
    let request = format!("DELETE /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    if std::io::Write::write_all(&mut stream, request.as_bytes()).is_ok() {
        // The answer comes once the browser is closed (chromedriver keeps the connection
        // open after it, so the first bytes are all there is to wait for).
        let _ = std::io::Read::read(&mut stream, &mut [0; 1024]);
    }
}

/// The program named by the environment variable `variable` (set by `scripts/browser.sh`),
/// or `name` found on the PATH (chromedriver needs the browser's full path).
fn program(variable: &str, name: &str) -> String {
    std::env::var(variable).unwrap_or_else(|_| {
        std::env::var_os("PATH")
            .and_then(|path| {
                std::env::split_paths(&path)
                    .map(|folder| folder.join(name))
                    .find(|candidate| candidate.is_file())
            })
            .map(|found| found.display().to_string())
            .unwrap_or_else(|| name.to_owned())
    })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

/// The screen a test looks at the page on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Screen {
    Desktop,
    /// A 390 px wide phone (CSS pixels, as an iPhone 12 to 15), with touch.
    Phone,
}

impl Browser {
    async fn start() -> Browser {
        Browser::start_on(Screen::Desktop).await
    }

    async fn start_on(screen: Screen) -> Browser {
        let alone = ONE_BROWSER.lock().await;
        let chromedriver = program("TURNPOST_CHROMEDRIVER", "chromedriver");
        let chromium = program("TURNPOST_CHROMIUM", "chromium");
        let port = free_port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "cannot start {chromedriver} ({error}): run the tests with scripts/test, \
                     which installs Debian's chromium and chromium-driver"
                )
            });
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = http.get(format!("{base}/status")).send().await;
            if let Ok(response) = ready {
                let status: Value = response.json().await.unwrap_or_default();
                if status["value"]["ready"] == true {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "chromedriver did not get ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut chrome_options = json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1400,1000"],
        });
        if screen == Screen::Phone {
            chrome_options["mobileEmulation"] = json!({
                "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2, "touch": true},
            });
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": chrome_options,
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let session: Value = http
            .post(format!("{base}/session"))
            .json(&capabilities)
            .send()
            .await
            .expect("chromedriver answers")
            .json()
            .await
            .expect("a session");
        let id = session["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no browser session: {session}"));
        let screenshots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/browser-test");
        std::fs::create_dir_all(&screenshots).expect("screenshot folder");
        Browser {
            http,
            session_url: format!("{base}/session/{id}"),
            driver,
            screenshots,
            _alone: alone,
        }
    }

    async fn command(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let answer = self.answer(method, path, body).await;
        assert!(
            answer["value"].get("error").is_none(),
            "WebDriver {path}: {answer}"
        );
        answer["value"].clone()
    }

    /// WebDriver's whole answer to one command, an error included.
    async fn answer(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let request = self
            .http
            .request(method, format!("{}{path}", self.session_url));
        let request = if body.is_null() {
            request
        } else {
            request.json(&body)
        };
        request
            .send()
            .await
            .expect("chromedriver answers")
            .json()
            .await
            .expect("WebDriver JSON")
    }

    async fn goto(&self, url: &str) {
        self.command(reqwest::Method::POST, "/url", json!({"url": url}))
            .await;
    }

    /// Runs `script` (a function body) in the page with `args`.
    async fn run(&self, script: &str, args: Value) -> Value {
        self.command(
            reqwest::Method::POST,
            "/execute/sync",
            json!({"script": script, "args": args}),
        )
        .await
    }

    /// Waits up to `seconds` until `script` returns something truthy, and returns it.
    async fn wait_briefly(&self, seconds: u64, script: &str, args: Value) -> Option<Value> {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            let value = self.run(script, args.clone()).await;
            if !(value.is_null() || value == false || value == "") {
                return Some(value);
            }
            if Instant::now() > deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until `script` returns something truthy, and returns it.
    async fn wait_for(&self, what: &str, script: &str, args: Value) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let value = self.run(script, args.clone()).await;
            if !(value.is_null() || value == false || value == "") {
                return value;
            }
            if Instant::now() > deadline {
                let page = self.run("return document.body.innerText", json!([])).await;
                self.screenshot("failed.png").await;
                let console = self
                    .command(reqwest::Method::POST, "/se/log", json!({"type": "browser"}))
                    .await;
                panic!(
                    "waited in vain for {what} (see target/browser-test/failed.png); \
                     the page says: {page}; its console: {console}"
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn element(&self, css: &str) -> String {
        let found = self
            .command(
                reqwest::Method::POST,
                "/element",
                json!({"using": "css selector", "value": css}),
            )
            .await;
        found
            .as_object()
            .and_then(|object| object.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_owned()
    }

    /// Clicks the element `css` selects. The page redraws parts of itself when the
    /// account's stream says something happened, so an element found just before may be
    /// replaced by the time it is clicked: then it is found again.
    async fn click(&self, css: &str) {
        for _ in 0..5 {
            let element = self.element(css).await;
            let answer = self
                .answer(
                    reqwest::Method::POST,
                    &format!("/element/{element}/click"),
                    json!({}),
                )
                .await;
            match answer["value"]["error"].as_str() {
                None => return,
                Some("stale element reference") => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Some(_) => panic!("WebDriver click on {css}: {answer}"),
            }
        }
        panic!("{css} was replaced five times in a row");
    }

    async fn type_into(&self, css: &str, text: &str) {
        let element = self.element(css).await;
        self.command(
            reqwest::Method::POST,
            &format!("/element/{element}/value"),
            json!({"text": text}),
        )
        .await;
    }

    /// Runs `script` as an asynchronous function body: it calls its last argument with the
    /// result.
    async fn run_async(&self, script: &str, args: Value) -> Value {
        self.command(
            reqwest::Method::POST,
            "/execute/async",
            json!({"script": script, "args": args}),
        )
        .await
    }

    /// Runs axe-core (fetched by `scripts/test`, see `scripts/axe-core.sh`) on the page as it
    /// is and fails on any serious or critical violation of WCAG 2 A and AA.
    async fn check_accessibility(&self, page: &str) {
        let path = std::env::var("TURNPOST_AXE_CORE").unwrap_or_else(|_| {
            panic!("TURNPOST_AXE_CORE is not set: run the tests with scripts/test, which fetches axe-core")
        });
        let source = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("cannot read axe-core at {path}: {error}"));
        // Run as WebDriver's own script: the page's Content-Security-Policy refuses inline
        // scripts, rightly.
        let loaded = self
            .run(&format!("{source}\nreturn typeof window.axe;"), json!([]))
            .await;
        assert_eq!(loaded, "object", "axe-core did not load");
        let violations = self
            .run_async(
                "const done = arguments[arguments.length - 1]; \
                 axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}}) \
                   .then((result) => done(result.violations \
                     .filter((v) => v.impact === 'serious' || v.impact === 'critical') \
                     .map((v) => ({id: v.id, impact: v.impact, help: v.help, \
                                   nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.html.slice(0, 300)}`)})))) \
                   .catch((error) => done(String(error)));",
                json!([]),
            )
            .await;
        assert_eq!(
            violations,
            json!([]),
            "axe-core finds serious accessibility problems on the {page}"
        );
    }

    /// Plays one move by pointing: a highlighted space on the board when the step offers
    /// spaces, else the first option, until the preview of the complete move shows; then
    /// confirms it. `screenshot` shows the preview.
    async fn move_by_pointing(&self, screenshot: &str) {
        self.point_and_confirm(screenshot, false).await;
    }

    /// [`Browser::move_by_pointing`], picking among the highlighted spaces or the options
    /// at random when `at_random` (so a game against bots gets somewhere).
    async fn point_and_confirm(&self, screenshot: &str, at_random: bool) {
        for _ in 0..12 {
            let picks: u64 = self
                .run(
                    "return document.getElementById('chooser').dataset.picks || '0'",
                    json!([]),
                )
                .await
                .as_str()
                .and_then(|picks| picks.parse().ok())
                .unwrap_or(0);
            let state = self
                .wait_for(
                    "a choice or a preview",
                    "if (!document.getElementById('preview-panel').hidden) return 'preview'; \
                     if (document.querySelector('#board .choosable')) return 'space'; \
                     if (document.querySelector('#options button.choice')) return 'option'; \
                     return null;",
                    json!([]),
                )
                .await;
            match state.as_str() {
                Some("preview") => {
                    let preview = self
                        .run(
                            "return document.getElementById('board').dataset.preview === 'true' \
                             && document.getElementById('preview-text').textContent",
                            json!([]),
                        )
                        .await;
                    assert!(
                        preview.as_str().is_some_and(|text| !text.is_empty()),
                        "the board shows the preview, in words too: {preview}"
                    );
                    self.screenshot(screenshot).await;
                    self.click("#confirm").await;
                    return;
                }
                Some(what) => {
                    if what == "space" {
                        // Only a field that names a place is offered on the board.
                        let field = self
                            .run(
                                "return document.getElementById('chooser').dataset.field",
                                json!([]),
                            )
                            .await;
                        assert!(
                            ["space", "from", "to", "location", "station"]
                                .contains(&field.as_str().unwrap_or_default()),
                            "spaces are highlighted for the field {field}"
                        );
                    }
                    let candidates = if what == "space" {
                        "#board .choosable"
                    } else {
                        "#options button.choice"
                    };
                    // The page marks the one to click; WebDriver clicks it like a person,
                    // who first scrolls it into the middle of the screen (on a phone, above
                    // the sheet that holds the move).
                    self.run(
                        "for (const old of document.querySelectorAll('[data-test-pick]')) \
                           old.removeAttribute('data-test-pick'); \
                         const all = document.querySelectorAll(arguments[0]); \
                         const index = arguments[1] ? Math.floor(Math.random() * all.length) : 0; \
                         all[index].setAttribute('data-test-pick', '1'); \
                         all[index].scrollIntoView({block: 'center', inline: 'center'}); \
                         return all.length;",
                        json!([candidates, at_random]),
                    )
                    .await;
                    self.click("[data-test-pick]").await;
                    // A tap on a small space of a phone's board can land on its neighbour
                    // (the page then lists the moves involving that one): pick again.
                    let next_step = "return document.getElementById('chooser').dataset.picks \
                                     === String(arguments[0])";
                    if what == "space"
                        && self
                            .wait_briefly(5, next_step, json!([picks + 1]))
                            .await
                            .is_none()
                    {
                        continue;
                    }
                }
                None => unreachable!("wait_for returns something"),
            }
            // The page counts the picks of the step it shows: wait for the next step.
            self.wait_for(
                "the next step",
                "return document.getElementById('chooser').dataset.picks === String(arguments[0])",
                json!([picks + 1]),
            )
            .await;
        }
        panic!("no complete move after 12 choices");
    }

    /// Saves a PNG of the window as `name`.
    /// Signs in on the page's form (the account exists, with the test password).
    async fn sign_in(&self, base: &str, name: &str, screenshot: &str) {
        self.goto(&format!("{base}/")).await;
        self.wait_for(
            "the sign-in form",
            "return !document.getElementById('sign-in-page').hidden",
            json!([]),
        )
        .await;
        self.type_into("#name", name).await;
        self.type_into("#password", "s3cret-pass").await;
        self.screenshot(screenshot).await;
        self.click("#sign-in-button").await;
    }

    async fn screenshot(&self, name: &str) {
        let encoded = self
            .command(reqwest::Method::GET, "/screenshot", Value::Null)
            .await;
        let png = decode_base64(encoded.as_str().expect("base64 PNG"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        std::fs::write(self.screenshots.join(name), png).expect("write the screenshot");
    }
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |byte: u8| -> u32 {
        match byte {
            b'A'..=b'Z' => u32::from(byte - b'A'),
            b'a'..=b'z' => u32::from(byte - b'a') + 26,
            b'0'..=b'9' => u32::from(byte - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => 0,
        }
    };
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|byte| !byte.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for chunk in bytes.chunks(4) {
        let padding = chunk.iter().filter(|&&byte| byte == b'=').count();
        let bits = chunk
            .iter()
            .fold(0u32, |bits, &byte| (bits << 6) | value(byte));
        let bits = bits << (6 * (4 - chunk.len()));
        let decoded = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        out.extend_from_slice(&decoded[..3 - padding]);
    }
    out
}

const BOARD_SEQ: &str = "const board = document.getElementById('board'); \
    return board.querySelector('svg') ? board.dataset.seq : null;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_signs_in_opens_a_game_moves_and_steps_back_in_a_real_browser() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let id = app
        .new_game("tikal", json!({}), &[alice.clone(), bob.clone()])
        .await;
    let summary = app.get(&alice, &format!("/v1/games/{id}")).await.json();
    assert_eq!(summary["to_act"], json!([0]), "alice (seat 0) moves first");
    let browser = Browser::start().await;

    browser.sign_in(&app.base, "alice", "01-sign-in.png").await;
    let link = format!("a.game-link[data-game-id='{id}']");
    browser
        .wait_for(
            "the game in the lobby",
            "return document.querySelector(arguments[0]) !== null",
            json!([link]),
        )
        .await;
    browser.screenshot("02-lobby.png").await;
    // The lobby follows the notification stream: an invitation shows up by itself, and the
    // game where it is alice's turn is listed first.
    assert_eq!(
        browser
            .run(
                "return document.querySelector('#my-turn-games a.game-link')?.dataset.gameId",
                json!([]),
            )
            .await,
        json!(id)
    );
    let invited = app
        .post(
            &bob,
            "/v1/games",
            &json!({"kind": "java", "seats": 2, "private": true, "invite": ["alice"]}),
        )
        .await
        .expect_status(201)
        .json();
    browser
        .wait_for(
            "the invitation, without reloading",
            "return document.querySelector(`#invitations a.game-link[data-game-id='${arguments[0]}']`) !== null",
            json!([invited["id"]]),
        )
        .await;
    let title = browser.run("return document.title", json!([])).await;
    assert!(
        title
            .as_str()
            .is_some_and(|title| title.starts_with("(1) Your turn")),
        "the tab's title counts the games waiting: {title}"
    );

    browser.click(&link).await;
    let shown = browser.wait_for("the board", BOARD_SEQ, json!([])).await;
    let before: i64 = shown.as_str().unwrap().parse().unwrap();
    assert_eq!(before, summary["current_seq"].as_i64().unwrap());
    let board_before = browser
        .run(
            "return document.getElementById('board').innerHTML",
            json!([]),
        )
        .await;
    browser
        .wait_for(
            "alice's choices",
            "return document.querySelectorAll('#board .choosable, #options button.choice').length",
            json!([]),
        )
        .await;
    browser.screenshot("03-board.png").await;

    browser.move_by_pointing("03b-preview.png").await;
    let moved = browser
        .wait_for(
            "the board after the move",
            "const seq = Number(document.getElementById('board').dataset.seq); \
             return seq > arguments[0] ? seq : null;",
            json!([before]),
        )
        .await;
    let after = moved.as_i64().unwrap();
    let board_after = browser
        .run(
            "return document.getElementById('board').innerHTML",
            json!([]),
        )
        .await;
    assert_ne!(board_before, board_after, "the board changed with the move");
    let summary = app.get(&bob, &format!("/v1/games/{id}")).await.json();
    assert_eq!(
        summary["current_seq"].as_i64(),
        Some(after),
        "the move is stored: {summary}"
    );
    browser.screenshot("04-after-the-move.png").await;

    // Placing the first hex reveals nothing: it can be taken back (the page offers it
    // once the server says so), and played again.
    browser
        .wait_for(
            "the take-back offered",
            "return !document.getElementById('take-back').hidden",
            json!([]),
        )
        .await;
    browser.click("#take-back").await;
    browser
        .wait_for(
            "the board after the take-back",
            "return document.getElementById('board').dataset.seq === String(arguments[0] + 1)",
            json!([after]),
        )
        .await;
    let said = browser
        .run(
            "return document.getElementById('last-text').textContent",
            json!([]),
        )
        .await;
    assert!(
        said.as_str().unwrap().contains("takes back"),
        "the page says what happened: {said}"
    );
    let summary = app.get(&bob, &format!("/v1/games/{id}")).await.json();
    assert_eq!(summary["current_seq"].as_i64(), Some(after + 1));
    browser.screenshot("04b-taken-back.png").await;
    browser
        .wait_for(
            "alice's choices again",
            "return document.querySelectorAll('#board .choosable, #options button.choice').length",
            json!([]),
        )
        .await;
    browser.move_by_pointing("04c-preview-again.png").await;
    let moved = browser
        .wait_for(
            "the board after the move played again",
            "const seq = Number(document.getElementById('board').dataset.seq); \
             return seq > arguments[0] ? seq : null;",
            json!([after + 1]),
        )
        .await;
    let after = moved.as_i64().unwrap();

    browser.click("#back").await;
    browser
        .wait_for(
            "the board one event back",
            "return document.getElementById('board').dataset.seq === String(arguments[0])",
            json!([after - 1]),
        )
        .await;
    let label = browser
        .run(
            "return document.getElementById('at-label').textContent",
            json!([]),
        )
        .await;
    assert_eq!(label, format!("event {} of {after}", after - 1));
    browser.screenshot("05-one-event-back.png").await;
    // A turn back: the board shows the end of the turn before (the next event opens a
    // turn in the log), and an action forward moves on from there.
    browser.click("#back-turn").await;
    let turn_end = browser
        .wait_for(
            "the board one turn back",
            "const seq = Number(document.getElementById('board').dataset.seq); \
             if (seq >= arguments[0]) return null; \
             const next = document.querySelector(`#log li[data-seq=\"${seq + 1}\"]`); \
             return seq === 0 || (next && next.classList.contains('new-turn')) ? String(seq) : null;",
            json!([after - 1]),
        )
        .await;
    let turn_end: i64 = turn_end.as_str().unwrap().parse().unwrap();
    browser.click("#forward-action").await;
    browser
        .wait_for(
            "the board one action forward",
            "return Number(document.getElementById('board').dataset.seq) > arguments[0]",
            json!([turn_end]),
        )
        .await;

    // Back to now; a move made elsewhere (another device, a bot) shows up by itself.
    browser.click("#live").await;
    browser
        .wait_for(
            "the board at now again",
            "return document.getElementById('board').dataset.seq === String(arguments[0])",
            json!([after]),
        )
        .await;
    let summary = app.get(&alice, &format!("/v1/games/{id}")).await.json();
    let seat = summary["to_act"][0].as_u64().unwrap() as usize;
    let mover = [&alice, &bob][seat];
    let legal = app
        .get(mover, &format!("/v1/games/{id}/legal-actions"))
        .await
        .json();
    let moved = app
        .post(
            mover,
            &format!("/v1/games/{id}/actions"),
            &json!({"expected_seq": legal["seq"], "action": legal["actions"][0]}),
        )
        .await
        .expect_status(200)
        .json();
    browser
        .wait_for(
            "the board to follow a move made elsewhere",
            "return document.getElementById('board').dataset.seq === String(arguments[0])",
            json!([moved["seq"]]),
        )
        .await;
    browser.screenshot("06-followed-live.png").await;
}

/// The new-game form offers every option of the chosen kind, drawn from its options schema
/// (the readings the rules pages leave open among them), and the game is created with the
/// options ticked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_game_form_offers_each_kinds_options_in_a_real_browser() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    let browser = Browser::start().await;
    browser.sign_in(&app.base, "alice", "10-sign-in.png").await;
    let choose_kind = "const select = document.getElementById('new-kind'); \
                       select.value = arguments[0]; \
                       select.dispatchEvent(new Event('change')); return true;";
    let option = |name: &str, value: Option<&str>| match value {
        Some(value) => format!("#new-options input[data-option='{name}'][data-value='{value}']"),
        None => format!("#new-options input[data-option='{name}']:not([data-value])"),
    };
    let shown = "return document.querySelector(arguments[0]) !== null";
    let created_game = "const id = location.pathname.match(/^\\/games\\/(.+)$/); \
                        return id ? id[1] : null;";

    for (kind, seats, ticked, expected) in [
        (
            "java",
            2,
            vec![option("play_on_when_no_tile_fits", None)],
            json!({"play_on_when_no_tile_fits": true}),
        ),
        (
            "eternal_palace",
            3,
            vec![
                option("labyrinth", None),
                option("any_group_at_module_locations", None),
                option("location_tiles", Some("academy")),
            ],
            json!({"privileges": false, "labyrinth": true,
                   "any_group_at_module_locations": true, "location_tiles": ["academy"]}),
        ),
    ] {
        browser
            .wait_for("the lobby", shown, json!(["#new-kind option"]))
            .await;
        browser.run(choose_kind, json!([kind])).await;
        for input in &ticked {
            browser
                .wait_for("the kind's options", shown, json!([input]))
                .await;
            browser.click(input).await;
        }
        browser
            .run(
                "document.getElementById('new-seats').value = arguments[0]; return true;",
                json!([seats]),
            )
            .await;
        browser.screenshot(&format!("11-new-{kind}.png")).await;
        browser.click("#new-game-form button[type='submit']").await;
        let id = browser
            .wait_for("the new game's page", created_game, json!([]))
            .await;
        let summary = app
            .get(&alice, &format!("/v1/games/{}", id.as_str().unwrap()))
            .await
            .json();
        assert_eq!(summary["kind"], kind, "{summary}");
        assert_eq!(summary["options"], expected, "{kind}");
        browser.goto(&format!("{}/", app.base)).await;
    }
    // Tikal's one option is offered too, unticked by default.
    browser
        .wait_for("the lobby", shown, json!(["#new-kind option"]))
        .await;
    browser.run(choose_kind, json!(["tikal"])).await;
    let auction = option("auction", None);
    browser
        .wait_for("Tikal's options", shown, json!([auction]))
        .await;
    let ticked = browser
        .run(
            "return document.querySelector(arguments[0]).checked",
            json!([auction]),
        )
        .await;
    assert_eq!(ticked, false);
}

/// A page served by one origin calls the API on another with a bearer token, as a
/// third-party web client would: the browser's preflight is answered and the answers are
/// readable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_another_origin_calls_the_api_with_a_bearer_token_in_a_real_browser() {
    let page_server = TestApp::start(Backend::Sqlite).await;
    let api = TestApp::start(Backend::Sqlite).await;
    let alice = api.register("alice").await;
    let bob = api.register("bob").await;
    let id = api
        .new_game("tikal", json!({}), &[alice.clone(), bob])
        .await;
    let browser = Browser::start().await;
    // Any page of the other origin will do; the web page's own Content-Security-Policy
    // rightly keeps it from calling other origins, so a plain JSON page hosts the script.
    browser.goto(&format!("{}/healthz", page_server.base)).await;
    let script = "const [api, token, id, done] = arguments; \
        (async () => { \
          const headers = { Authorization: `Bearer ${token}` }; \
          const summary = await fetch(`${api}/v1/games/${id}`, { headers }); \
          const legal = await (await fetch(`${api}/v1/games/${id}/legal-actions`, { headers })).json(); \
          const acted = await fetch(`${api}/v1/games/${id}/actions`, { method: 'POST', \
            headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': 'cross-origin-1' }, \
            body: JSON.stringify({ expected_seq: legal.seq, action: legal.actions[0] }) }); \
          done({ origin: location.origin, summary: summary.status, acted: acted.status, \
                 etag: summary.headers.get('ETag'), seq: (await acted.json()).seq }); \
        })().catch((error) => done({ error: String(error) }));";
    let answer = browser
        .command(
            reqwest::Method::POST,
            "/execute/async",
            json!({"script": script, "args": [api.base, alice.token, id]}),
        )
        .await;
    assert_eq!(answer["origin"], page_server.base.as_str(), "{answer}");
    assert_ne!(page_server.base, api.base, "two origins");
    assert_eq!(answer["summary"], 200, "{answer}");
    assert_eq!(answer["acted"], 200, "{answer}");
    assert!(
        answer["etag"].as_str().is_some(),
        "ETag is readable: {answer}"
    );
    let summary = api.get(&alice, &format!("/v1/games/{id}")).await.json();
    assert_eq!(summary["current_seq"], answer["seq"], "the move is stored");
}

/// The lobby lists an invitation to accept or decline, the game page has the chat, shows
/// who voted to abandon and offers to play again, and the form invites by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invitations_chat_votes_and_rematches_in_a_real_browser() {
    let app = TestApp::start(Backend::Sqlite).await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    let browser = Browser::start().await;
    let shown = "return document.querySelector(arguments[0]) !== null";
    let game_page = "const id = location.pathname.match(/^\\/games\\/(.+)$/); \
                     return id ? id[1] : null;";
    let text_of = "const element = document.getElementById(arguments[0]); \
                   return element && !element.hidden && \
                   element.textContent.includes(arguments[1]);";

    // Alice invites Bob from the new-game form: the game is private.
    browser.sign_in(&app.base, "alice", "20-sign-in.png").await;
    browser
        .wait_for("the lobby", shown, json!(["#new-kind option"]))
        .await;
    // Her reminders, from the lobby, once it has shown the ones she has.
    browser
        .wait_for(
            "the reminders shown",
            "return document.getElementById('reminder-minutes').value === '1440, 60'",
            json!([]),
        )
        .await;
    browser
        .run(
            "document.getElementById('reminder-minutes').value = '30, 720'; return true;",
            json!([]),
        )
        .await;
    browser.click("#reminders-form button[type='submit']").await;
    browser
        .wait_for(
            "the saved reminders",
            "return document.getElementById('reminder-minutes').value === '720, 30'",
            json!([]),
        )
        .await;
    assert_eq!(
        app.get(&alice, "/v1/me/reminders").await.json(),
        json!({"before_minutes": [720, 30]})
    );
    browser.type_into("#new-invite", "bob").await;
    browser.click("#new-game-form button[type='submit']").await;
    let id = browser
        .wait_for("the new game's page", game_page, json!([]))
        .await;
    let id = id.as_str().unwrap().to_owned();
    let summary = app.get(&alice, &format!("/v1/games/{id}")).await.json();
    // Invitations on a game left "Everyone" make it unlisted: not listed, joined by
    // invitation only.
    assert_eq!(summary["visibility"], "unlisted", "{summary}");
    assert_eq!(summary["private"], false, "{summary}");

    // Bob finds the invitation in his lobby and accepts it.
    browser.click("#sign-out").await;
    browser.sign_in(&app.base, "bob", "21-sign-in.png").await;
    browser
        .wait_for("the invitation", shown, json!(["#invitations .accept"]))
        .await;
    browser.screenshot("22-invitation.png").await;
    browser.click("#invitations .accept").await;
    browser
        .wait_for(
            "Bob's vote button",
            text_of,
            json!(["abandon", "Vote to abandon"]),
        )
        .await;

    // Bob writes in the chat; Alice's answer, written through the API, appears by itself.
    browser.type_into("#chat-text", "hello @alice").await;
    browser.click("#chat-form button[type='submit']").await;
    browser
        .wait_for(
            "Bob's message",
            text_of,
            json!(["chat-messages", "bob: hello @alice"]),
        )
        .await;
    app.post(
        &alice,
        &format!("/v1/games/{id}/chat"),
        &json!({"text": "hi bob"}),
    )
    .await
    .expect_status(201);
    browser
        .wait_for(
            "Alice's answer",
            text_of,
            json!(["chat-messages", "alice: hi bob"]),
        )
        .await;
    browser.click("#chat-messages .delete-message").await;
    browser
        .wait_for(
            "the tombstone",
            text_of,
            json!(["chat-messages", "bob: (deleted)"]),
        )
        .await;

    // Bob votes to abandon (the page asks first); Alice agrees through the API and the
    // page follows.
    browser.click("#abandon").await;
    let question = browser
        .command(reqwest::Method::GET, "/alert/text", Value::Null)
        .await;
    assert!(
        question
            .as_str()
            .unwrap()
            .starts_with("Vote to abandon this game?"),
        "{question}"
    );
    browser
        .command(reqwest::Method::POST, "/alert/accept", json!({}))
        .await;
    browser
        .wait_for("Bob's vote shown", text_of, json!(["votes", "bob"]))
        .await;
    browser
        .wait_for(
            "the button to take it back",
            text_of,
            json!(["abandon", "Take back"]),
        )
        .await;
    browser.screenshot("23-voted.png").await;
    app.post(&alice, &format!("/v1/games/{id}/abandon"), &json!({}))
        .await
        .expect_status(200);
    browser
        .wait_for(
            "the abandoned game",
            text_of,
            json!(["status", "Abandoned"]),
        )
        .await;

    // Bob plays again: a rematch that invites Alice, who declines it from her lobby.
    browser
        .wait_for(
            "the rematch button",
            text_of,
            json!(["rematch", "Play again"]),
        )
        .await;
    browser.click("#rematch").await;
    let rematch = browser
        .wait_for(
            "the rematch's page",
            "const id = location.pathname.match(/^\\/games\\/(.+)$/); \
             return id && id[1] !== arguments[0] ? id[1] : null;",
            json!([id]),
        )
        .await;
    browser.click("#sign-out").await;
    browser.sign_in(&app.base, "alice", "24-sign-in.png").await;
    browser
        .wait_for(
            "the rematch invitation",
            text_of,
            json!(["invitations", "a rematch from bob"]),
        )
        .await;
    browser.click("#invitations .decline").await;
    browser
        .wait_for(
            "no invitation left",
            "return document.getElementById('invitations-title').hidden",
            json!([]),
        )
        .await;
    let declined = app
        .get(&alice, &format!("/v1/games/{}", rematch.as_str().unwrap()))
        .await
        .json();
    assert_eq!(declined["status"], "open");
    assert_eq!(
        app.get(&alice, "/v1/me/invitations").await.json()["invitations"],
        json!([])
    );

    // Bob sees the decline on the rematch's page and invites Carol in Alice's place.
    let carol = app.register("carol").await;
    browser.click("#sign-out").await;
    browser.sign_in(&app.base, "bob", "25-sign-in.png").await;
    browser
        .wait_for(
            "the lobby",
            "return !document.getElementById('lobby-page').hidden",
            json!([]),
        )
        .await;
    browser
        .goto(&format!("{}/games/{}", app.base, rematch.as_str().unwrap()))
        .await;
    browser
        .wait_for(
            "the declined invitation",
            text_of,
            json!(["invited-list", "alice: declined"]),
        )
        .await;
    browser.type_into("#invite-name", "carol").await;
    browser.click("#invite-form button[type='submit']").await;
    browser
        .wait_for(
            "Carol invited",
            text_of,
            json!(["invited-list", "carol: not answered yet"]),
        )
        .await;
    browser.screenshot("26-invited-someone-else.png").await;
    browser
        .check_accessibility("open game with its invitations")
        .await;
    assert_eq!(
        app.get(&carol, "/v1/me/invitations").await.json()["invitations"][0]["game"]["id"],
        rematch
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_gives_a_mail_address_and_confirms_it_in_a_real_browser() {
    let sink = crate::smtp_sink::SmtpSink::start();
    let url = sink.url();
    let app = TestApp::start_with(Backend::Sqlite, move |config| {
        config.smtp_url = Some(url);
        config.mail_poll_ms = 50;
    })
    .await;
    let ada = app.register("ada").await;
    let browser = Browser::start().await;
    browser.sign_in(&app.base, "ada", "40-sign-in.png").await;
    browser
        .wait_for(
            "the mail form",
            "return document.getElementById('email-address').disabled === false \
             && document.querySelectorAll('input[name=\"email-topic\"]:checked').length === 5",
            json!([]),
        )
        .await;
    browser.type_into("#email-address", "ada@example.org").await;
    // Everything but mentions, in a daily digest at 18:00.
    browser
        .run(
            "document.querySelector('input[name=\"email-topic\"][value=\"mention\"]').checked = false; \
             document.getElementById('email-digest').checked = true; \
             document.getElementById('email-digest-hour').value = '18'; return true;",
            json!([]),
        )
        .await;
    browser.click("#email-form button[type='submit']").await;
    browser
        .wait_for(
            "the request to confirm",
            "return document.getElementById('email-status').textContent \
             .includes('Follow the link mailed to ada@example.org')",
            json!([]),
        )
        .await;
    browser.screenshot("41-mail-to-confirm.png").await;
    let mails = sink.wait_for("ada@example.org", 1).await;
    // The link names the public address (here the default from --bind, not the test's
    // port): open it on the test server.
    let link = mails[0].link("http://").expect("a confirmation link");
    let path = &link[link.find("/email/confirm").expect("the confirmation path")..];
    browser.goto(&format!("{}{path}", app.base)).await;
    browser.click("form button[type='submit']").await;
    browser
        .wait_for(
            "the confirmation",
            "return document.querySelector('h1').textContent === 'Mail address confirmed'",
            json!([]),
        )
        .await;
    browser.screenshot("42-mail-confirmed.png").await;
    assert_eq!(
        app.get(&ada, "/v1/me/email").await.json(),
        json!({"address": "ada@example.org", "confirmed": true,
               "topics": ["your_turn", "reminder", "game_over", "invitation"],
               "digest": true, "digest_hour": 18, "mail_available": true})
    );
    browser.goto(&format!("{}/", app.base)).await;
    browser
        .wait_for(
            "the confirmed address in the lobby",
            "return document.getElementById('email-status').textContent \
             === 'Confirmed: ada@example.org.'",
            json!([]),
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_goes_on_vacation_and_comes_back_in_a_real_browser() {
    let app = TestApp::start(Backend::Sqlite).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let id = app
        .new_game_with(
            json!({"kind": "tikal", "time_control": {"type": "days_per_move", "days": 3}}),
            &[ada.clone(), bo.clone()],
        )
        .await;
    let browser = Browser::start().await;
    browser.sign_in(&app.base, "ada", "50-sign-in.png").await;
    let status_says = "return document.getElementById('vacation-status').textContent \
                       .includes(arguments[0])";
    browser
        .wait_for(
            "the vacation allowance",
            status_says,
            json!(["30 of 30 vacation days left this year."]),
        )
        .await;
    browser
        .run(
            "document.getElementById('vacation-days').value = '4'; return true;",
            json!([]),
        )
        .await;
    browser.click("#vacation-start").await;
    browser
        .wait_for(
            "the vacation",
            status_says,
            json!(["You are on vacation until"]),
        )
        .await;
    browser
        .wait_for("the days left", status_says, json!(["26 of 30"]))
        .await;
    browser.screenshot("51-on-vacation.png").await;
    // Bo sees it on the game's page.
    let game = app.get(&bo, &format!("/v1/games/{id}")).await.json();
    assert!(game["seats"][0]["vacation_until"].is_string(), "{game}");
    assert!(game["seats"][0]["deadline"].is_null(), "{game}");
    browser.goto(&format!("{}/games/{id}", app.base)).await;
    browser
        .wait_for(
            "the vacation on the game's page",
            "return document.getElementById('vacations').textContent \
             .startsWith('On vacation (their clocks stand still): ada until')",
            json!([]),
        )
        .await;
    browser.screenshot("52-vacation-in-a-game.png").await;
    browser.goto(&format!("{}/", app.base)).await;
    browser
        .wait_for(
            "the lobby",
            status_says,
            json!(["You are on vacation until"]),
        )
        .await;
    browser.click("#vacation-end").await;
    browser
        .wait_for("the return", status_says, json!(["29 of 30"]))
        .await;
    let game = app.get(&bo, &format!("/v1/games/{id}")).await.json();
    assert!(game["seats"][0]["vacation_until"].is_null(), "{game}");
    assert!(game["seats"][0]["deadline"].is_string(), "{game}");
    browser.click("#vacation-automatic").await;
    let until = Instant::now() + Duration::from_secs(20);
    while app.get(&ada, "/v1/me/vacation").await.json()["automatic"] != true {
        assert!(Instant::now() < until, "the choice was not saved");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How far a game against bots is played by pointing: the tests below play a few moves of
/// each kind on each screen; `scripts/full-browser-games` plays them to the end.
#[derive(Debug, Clone, Copy)]
enum Length {
    Moves(usize),
    ToTheEnd,
}

/// One player against random bots, every move made by pointing at the board or at an
/// option and confirmed from its preview, on `screen`; the game page and the lobby are
/// checked with axe-core, and screenshots kept. Played to the end, the result banner shows
/// the final standing.
async fn play_against_bots_by_pointing(kind: &str, screen: Screen, length: Length) {
    let app = TestApp::start(Backend::Sqlite).await;
    let label = format!(
        "{kind}-{}",
        if screen == Screen::Phone {
            "phone"
        } else {
            "desktop"
        }
    );
    let player = app.register(&label.replace('_', "-")).await;
    let created = app
        .post(
            &player,
            "/v1/games",
            &json!({"kind": kind, "seats": 2, "bots": [{"seat": 1, "strategy": "random"}]}),
        )
        .await
        .expect_status(201)
        .json();
    let id = created["id"].as_str().unwrap().to_owned();
    let browser = Browser::start_on(screen).await;
    browser
        .sign_in(
            &app.base,
            &label.replace('_', "-"),
            &format!("60-{label}-sign-in.png"),
        )
        .await;
    browser
        .wait_for(
            "the lobby",
            "return !document.getElementById('lobby-page').hidden \
               && document.querySelector('#new-seat-rows select') !== null",
            json!([]),
        )
        .await;
    browser.screenshot(&format!("61-{label}-lobby.png")).await;
    browser
        .check_accessibility(&format!("lobby ({label})"))
        .await;
    browser.goto(&format!("{}/games/{id}", app.base)).await;
    let mut moves = 0;
    loop {
        let state = browser
            .wait_for(
                "the player's turn or the game's end",
                "if (!document.getElementById('result').hidden) return 'over'; \
                 const chooser = document.getElementById('chooser'); \
                 if (!chooser.hidden && (document.querySelector('#board .choosable, #options button.choice') \
                     || !document.getElementById('preview-panel').hidden)) return 'turn'; \
                 return null;",
                json!([]),
            )
            .await;
        if state == "over" {
            break;
        }
        if moves == 0 {
            let title = browser.run("return document.title", json!([])).await;
            assert!(
                title
                    .as_str()
                    .is_some_and(|title| title.starts_with("(Your turn)")),
                "the tab's title says whose turn it is: {title}"
            );
            browser
                .screenshot(&format!("62-{label}-first-turn.png"))
                .await;
            browser
                .check_accessibility(&format!("game page ({label})"))
                .await;
        }
        let before = app.get(&player, &format!("/v1/games/{id}")).await.json()["current_seq"]
            .as_i64()
            .unwrap();
        browser
            .point_and_confirm(&format!("63-{label}-preview.png"), true)
            .await;
        let until = Instant::now() + Duration::from_secs(20);
        while app.get(&player, &format!("/v1/games/{id}")).await.json()["current_seq"]
            .as_i64()
            .unwrap()
            <= before
        {
            let error = browser
                .run(
                    "return document.getElementById('error').textContent",
                    json!([]),
                )
                .await;
            assert!(
                Instant::now() < until,
                "the confirmed move was not stored; the page says: {error}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        moves += 1;
        if let Length::Moves(most) = length {
            if moves >= most {
                break;
            }
        }
    }
    browser.screenshot(&format!("64-{label}-last.png")).await;
    let summary = app.get(&player, &format!("/v1/games/{id}")).await.json();
    if let Length::ToTheEnd = length {
        assert_eq!(summary["status"], "finished", "{summary}");
        let banner = browser
            .run(
                "return document.getElementById('result').textContent",
                json!([]),
            )
            .await;
        assert!(
            banner.as_str().is_some_and(|text| text.contains("points")),
            "the result banner shows the standing: {banner}"
        );
        browser
            .check_accessibility(&format!("finished game ({label})"))
            .await;
    } else {
        assert!(moves > 0, "{label}: no move was made");
        // The log names the moves in words, and marks what happened since the last one.
        let log = browser
            .run(
                "return [...document.querySelectorAll('#log .log-entry')].map((e) => e.textContent)",
                json!([]),
            )
            .await;
        assert!(
            log.as_array().is_some_and(|entries| entries.len() >= moves),
            "the log in words: {log}"
        );
    }
}

/// A few moves of every kind against a bot, on a desktop screen and a phone (whole games:
/// `scripts/full-browser-games`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_is_played_by_pointing_on_a_desktop_and_a_phone() {
    for kind in ["tikal", "java", "eternal_palace"] {
        for screen in [Screen::Desktop, Screen::Phone] {
            play_against_bots_by_pointing(kind, screen, Length::Moves(3)).await;
        }
    }
}

/// Whole games of every kind against a bot on a desktop screen: minutes each, so only by
/// `scripts/full-browser-games`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "whole games take minutes: run scripts/full-browser-games"]
async fn whole_games_of_every_kind_are_played_by_pointing_on_a_desktop() {
    for kind in ["tikal", "java", "eternal_palace"] {
        play_against_bots_by_pointing(kind, Screen::Desktop, Length::ToTheEnd).await;
    }
}

/// Whole games of every kind against a bot on a 390 px phone, the board laid out narrow:
/// `scripts/full-browser-games phone`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "whole games take minutes: run scripts/full-browser-games"]
async fn whole_games_of_every_kind_are_played_by_pointing_on_a_phone() {
    for kind in ["tikal", "java", "eternal_palace"] {
        play_against_bots_by_pointing(kind, Screen::Phone, Length::ToTheEnd).await;
    }
}

impl Browser {
    /// Runs a Chrome DevTools Protocol command through chromedriver.
    async fn devtools(&self, command: &str, params: Value) -> Value {
        self.answer(
            reqwest::Method::POST,
            "/goog/cdp/execute",
            json!({"cmd": command, "params": params}),
        )
        .await
    }
}

/// The page installs: its manifest and icons are served, its service worker takes control,
/// keeps the shell for a page opened without a connection (which says so), and shows a push
/// delivered through the browser's own push event as a notification that names the game
/// and links to it. (Offline, headless Chromium reaches no push service: the DevTools
/// Protocol hands the push to the worker as a push service would.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_installs_works_offline_and_shows_a_push_in_a_real_browser() {
    let app = TestApp::start(Backend::Sqlite).await;
    let ada = app.register("ada").await;
    let bo = app.register("bo").await;
    let id = app.new_game("tikal", json!({}), &[ada, bo]).await;
    let manifest: Value = reqwest::get(format!("{}/manifest.webmanifest", app.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(manifest["display"], "standalone", "{manifest}");
    for icon in manifest["icons"].as_array().unwrap() {
        let url = format!("{}{}", app.base, icon["src"].as_str().unwrap());
        let png = reqwest::get(&url).await.unwrap().bytes().await.unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{url}");
    }
    let browser = Browser::start().await;
    let granted = browser
        .devtools(
            "Browser.grantPermissions",
            json!({"origin": app.base, "permissions": ["notifications"]}),
        )
        .await;
    assert!(granted["value"].get("error").is_none(), "{granted}");
    browser.sign_in(&app.base, "ada", "60-sign-in.png").await;
    browser
        .wait_for(
            "the service worker in control",
            "return navigator.serviceWorker.controller \
             && navigator.serviceWorker.controller.scriptURL.endsWith('/sw.js')",
            json!([]),
        )
        .await;
    browser
        .wait_for(
            "the offer to notify this device",
            "return !document.getElementById('push-offer').hidden",
            json!([]),
        )
        .await;
    // Without a connection the page opens from the worker's copy, and says so.
    let offline = json!({"offline": true, "latency": 0, "downloadThroughput": -1,
                         "uploadThroughput": -1});
    browser.devtools("Network.enable", json!({})).await;
    browser
        .devtools("Network.emulateNetworkConditions", offline)
        .await;
    browser.goto(&format!("{}/", app.base)).await;
    browser
        .wait_for(
            "the offline notice",
            "return !document.getElementById('offline').hidden \
             && document.getElementById('offline').textContent",
            json!([]),
        )
        .await;
    browser.screenshot("61-offline.png").await;
    let online = json!({"offline": false, "latency": 0, "downloadThroughput": -1,
                        "uploadThroughput": -1});
    browser
        .devtools("Network.emulateNetworkConditions", online)
        .await;
    browser.goto(&format!("{}/", app.base)).await;
    browser
        .wait_for(
            "the lobby online",
            "return document.getElementById('offline').hidden \
             && navigator.serviceWorker.controller !== null",
            json!([]),
        )
        .await;
    // A push as the server sends it (see background/web_push.rs), handed to the worker.
    let message = json!({"type": "your_turn", "game_id": id, "title": "Your turn",
                         "body": "Tikal with bo: it is your turn.",
                         "url": format!("/games/{id}"), "tag": format!("game-{id}")});
    browser.devtools("ServiceWorker.enable", json!({})).await;
    // The registration's id is not visible to the page: the push goes to the first few
    // (a fresh profile has one), again until the notification shows.
    let until = Instant::now() + Duration::from_secs(20);
    let shown = loop {
        let mut refusals = Vec::new();
        for registration in 0..4 {
            let answer = browser
                .devtools(
                    "ServiceWorker.deliverPushMessage",
                    json!({"origin": app.base, "registrationId": registration.to_string(),
                           "data": message.to_string()}),
                )
                .await;
            if answer["value"].get("error").is_some() {
                refusals.push(answer);
            }
        }
        assert!(
            refusals.len() < 4,
            "no registration took the push: {:?}",
            refusals[0]
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        let shown = browser
            .run_async(
                "const done = arguments[arguments.length - 1]; \
                 navigator.serviceWorker.ready \
                   .then((registration) => registration.getNotifications()) \
                   .then((shown) => done(shown.length ? shown.map((n) => ({title: n.title, \
                       body: n.body, tag: n.tag, url: n.data && n.data.url})) : null)) \
                   .catch((error) => done(String(error)));",
                json!([]),
            )
            .await;
        if !shown.is_null() || Instant::now() > until {
            break shown;
        }
    };
    assert_eq!(
        shown,
        json!([{"title": "Your turn", "body": "Tikal with bo: it is your turn.",
                "tag": format!("game-{id}"), "url": format!("{}/games/{id}", app.base)}])
    );
}

/// Plays `actions` legal actions of game `id` through the API (`players` in seat order,
/// each action picked by a fixed rule from the legal ones so that runs repeat), then on
/// until seat 0 must act.
async fn advance(app: &TestApp, players: &[crate::util::Player], id: &str, actions: usize) {
    for played in 0..actions + 400 {
        let seat = app.seat_to_act(players, id).await;
        if played >= actions && seat == 0 {
            return;
        }
        app.play_legal_action(&players[seat], id, |count| (played * 7_919 + 13) % count)
            .await;
    }
    panic!("seat 0 never had to act again in game {id}");
}

/// What a phone shows of the board: the smallest text as rendered (its font size times
/// the page's scaling of the picture, and its box's height), the smallest tap target the
/// board offers, where "Your move" sits and whether the page scrolls sideways.
const PHONE_BOARD_MEASURES: &str = "\
    const texts = [...document.querySelectorAll('#board text')] \
      .filter((text) => text.textContent.trim() && text.getClientRects().length); \
    let smallest = Infinity, smallestText = ''; \
    for (const text of texts) { \
      const shown = parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a; \
      const size = Math.min(shown, text.getBoundingClientRect().height); \
      if (size < smallest) { smallest = size; smallestText = text.textContent; } \
    } \
    const targets = [...document.querySelectorAll('#board .choosable')] \
      .map((target) => target.getBoundingClientRect()); \
    const first = targets[0]; \
    const chooser = document.getElementById('chooser').getBoundingClientRect(); \
    const buttons = [...document.querySelectorAll('#chooser button, #history button')] \
      .map((button) => button.getBoundingClientRect()).filter((r) => r.width > 0); \
    return { texts: texts.length, smallest, smallestText, \
      buttons: buttons.length, \
      smallestButton: Math.min(...buttons.map((r) => Math.min(r.width, r.height))), \
      targets: targets.length, \
      smallestTarget: Math.min(...targets.map((r) => Math.min(r.width, r.height))), \
      firstTargetInView: !first || (first.left >= 0 && first.right <= innerWidth \
        && first.top >= 0 && first.bottom <= chooser.top + 1), \
      chooserTop: chooser.top, chooserBottom: chooser.bottom, \
      chooserShown: chooser.height > 0, screen: innerHeight, \
      pageWidth: document.documentElement.scrollWidth, width: innerWidth, \
      parts: [...document.querySelectorAll('#board .board-part')].map((part) => part.dataset.part) };";

/// On a 390 × 844 phone, at the start and in the middle of a game of each kind: every text
/// of the board is at least 11 px on the screen (measured, not read from the markup), the
/// places the board offers are at least 40 px and in view, "Your move" is on the first
/// screen, the page never scrolls sideways, and a pinch zooms the part under the fingers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_is_readable_on_a_phone_at_the_start_and_midgame() {
    let app = TestApp::start(Backend::Sqlite).await;
    let player = app.register("phone-reader").await;
    let other = app.register("phone-other").await;
    let players = [player.clone(), other];
    let browser = Browser::start_on(Screen::Phone).await;
    browser
        .sign_in(&app.base, "phone-reader", "70-phone-sign-in.png")
        .await;
    browser
        .wait_for(
            "the lobby",
            "return !document.getElementById('lobby-page').hidden",
            json!([]),
        )
        .await;
    for (kind, options, midgame, expected_parts) in [
        ("tikal", json!({}), 40, &["board", "seats"][..]),
        ("java", json!({}), 40, &["board", "seats"][..]),
        (
            "eternal_palace",
            json!({"labyrinth": true}),
            60,
            &[
                "locations",
                "bridge",
                "labyrinth",
                "palace",
                "cards",
                "seats",
            ][..],
        ),
        (
            "eternal_palace",
            json!({"river_market": true}),
            60,
            &["locations", "bridge", "river-market", "seats"][..],
        ),
    ] {
        let id = app.new_game(kind, options, &players).await;
        for (moment, actions) in [("start", 0), ("midgame", midgame)] {
            advance(&app, &players, &id, actions).await;
            browser.goto(&format!("{}/games/{id}", app.base)).await;
            let seq =
                app.get(&player, &format!("/v1/games/{id}")).await.json()["current_seq"].clone();
            browser
                .wait_for(
                    "the board in parts and the move to make",
                    "return document.querySelector('#board.narrow .board-part') \
                       && document.getElementById('board').dataset.seq === String(arguments[0]) \
                       && !document.getElementById('chooser').hidden \
                       && (document.querySelector('#board .choosable, #options button.choice') \
                           || !document.getElementById('preview-panel').hidden)",
                    json!([seq]),
                )
                .await;
            let label = format!(
                "{kind}-{}-{moment}",
                expected_parts[expected_parts.len() - 2]
            );
            browser.screenshot(&format!("71-phone-{label}.png")).await;
            let measured = browser.run(PHONE_BOARD_MEASURES, json!([])).await;
            assert!(
                measured["texts"].as_u64().unwrap_or(0) > 20,
                "{label}: {measured}"
            );
            assert!(
                measured["smallest"].as_f64().unwrap_or(0.0) >= 11.0,
                "{label}: a text of the board is under 11 px: {measured}"
            );
            if measured["targets"].as_u64().unwrap_or(0) > 0 {
                assert!(
                    measured["smallestTarget"].as_f64().unwrap_or(0.0) >= 40.0,
                    "{label}: a place to tap is under 40 px: {measured}"
                );
                assert_eq!(
                    measured["firstTargetInView"], true,
                    "{label}: the offered places are not in view: {measured}"
                );
            }
            assert!(
                measured["buttons"].as_u64().unwrap_or(0) > 0
                    && measured["smallestButton"].as_f64().unwrap_or(0.0) >= 40.0,
                "{label}: a button of the move is under 40 px: {measured}"
            );
            assert_eq!(measured["chooserShown"], true, "{label}: {measured}");
            assert!(
                measured["chooserBottom"].as_f64().unwrap_or(f64::MAX)
                    <= measured["screen"].as_f64().unwrap_or(0.0) + 1.0,
                "{label}: \"Your move\" is not on the first screen: {measured}"
            );
            assert!(
                measured["pageWidth"].as_f64() <= measured["width"].as_f64(),
                "{label}: the page scrolls sideways: {measured}"
            );
            let parts = measured["parts"].to_string();
            for part in expected_parts {
                assert!(
                    parts.contains(&format!("\"{part}\"")),
                    "{label}: no part {part}: {parts}"
                );
            }
            browser
                .check_accessibility(&format!("phone game page ({label})"))
                .await;
        }
        if kind == "java" {
            pinch_the_board(&browser).await;
        }
    }
}

/// Two fingers spread on Java's board part zoom it in; "Whole board" fits it to the
/// screen, and a second press brings the pinched zoom back.
async fn pinch_the_board(browser: &Browser) {
    let width =
        "return document.querySelector('#board .board-part svg').getBoundingClientRect().width";
    let before = browser.run(width, json!([])).await.as_f64().unwrap();
    let place = browser
        .run(
            "const frame = document.querySelector('#board .board-part').getBoundingClientRect(); \
             return [frame.left + frame.width / 2, Math.max(frame.top, 0) + 60];",
            json!([]),
        )
        .await;
    let (x, y) = (place[0].as_f64().unwrap(), place[1].as_f64().unwrap());
    let touch = |points: Vec<(f64, f64)>| -> Value {
        points
            .iter()
            .enumerate()
            .map(|(id, (x, y))| json!({"x": x, "y": y, "id": id}))
            .collect()
    };
    browser
        .devtools(
            "Input.dispatchTouchEvent",
            json!({"type": "touchStart", "touchPoints": touch(vec![(x - 20.0, y), (x + 20.0, y)])}),
        )
        .await;
    for spread in [30.0, 45.0, 60.0] {
        browser
            .devtools(
                "Input.dispatchTouchEvent",
                json!({"type": "touchMove", "touchPoints": touch(vec![(x - spread, y), (x + spread, y)])}),
            )
            .await;
    }
    browser
        .devtools(
            "Input.dispatchTouchEvent",
            json!({"type": "touchEnd", "touchPoints": []}),
        )
        .await;
    let pinched = browser.run(width, json!([])).await.as_f64().unwrap();
    assert!(
        pinched > before * 2.5,
        "a pinch from 40 to 120 px apart zooms the board: {before} -> {pinched}"
    );
    browser.screenshot("72-phone-java-pinched.png").await;
    browser.click("#zoom").await;
    let whole = browser.run(width, json!([])).await.as_f64().unwrap();
    let frame = browser
        .run(
            "return document.querySelector('#board .board-part').clientWidth",
            json!([]),
        )
        .await
        .as_f64()
        .unwrap();
    assert!(
        (whole - frame).abs() < 2.0,
        "\"Whole board\" fits the board to the screen: {whole} for {frame}"
    );
    browser.click("#zoom").await;
    let back = browser.run(width, json!([])).await.as_f64().unwrap();
    assert!((back - pinched).abs() < 2.0, "{back} after {pinched}");
}

/// A move being put together survives another seat's action: in Eternal Palace's grouping,
/// which both seats do at once, the player picks a grouping (the preview shows), the other
/// seat groups meanwhile, and the page keeps the pick, says that it still fits, and the
/// confirmed move is stored at the new point of the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_in_progress_survives_another_seats_action_in_a_real_browser() {
    let app = TestApp::start(Backend::Sqlite).await;
    let players = [app.register("kept-0").await, app.register("kept-1").await];
    let id = app.new_game("eternal_palace", json!({}), &players).await;
    // On until both seats must act at once.
    for _ in 0..200 {
        let summary = app
            .get(&players[0], &format!("/v1/games/{id}"))
            .await
            .json();
        if summary["to_act"]
            .as_array()
            .is_some_and(|seats| seats.len() == 2)
        {
            break;
        }
        app.play_first_legal_action(&players, &id).await;
    }
    let summary = app
        .get(&players[0], &format!("/v1/games/{id}"))
        .await
        .json();
    assert_eq!(summary["to_act"], json!([0, 1]), "{summary}");
    let browser = Browser::start().await;
    browser
        .sign_in(&app.base, "kept-0", "80-kept-sign-in.png")
        .await;
    browser
        .wait_for(
            "the lobby",
            "return !document.getElementById('lobby-page').hidden",
            json!([]),
        )
        .await;
    browser.goto(&format!("{}/games/{id}", app.base)).await;
    browser
        .wait_for(
            "the grouping to choose",
            "return document.querySelector('#options button.choice')",
            json!([]),
        )
        .await;
    browser.click("#options button.choice").await;
    browser
        .wait_for(
            "the preview of the grouping",
            "return !document.getElementById('preview-panel').hidden \
               && document.getElementById('chooser').dataset.picks === '1'",
            json!([]),
        )
        .await;
    let before = summary["current_seq"].as_i64().unwrap();
    app.play_legal_action(&players[1], &id, |_| 0).await;
    let notice = browser
        .wait_for(
            "the page to follow the other seat and keep the pick",
            "return document.getElementById('board').dataset.seq !== String(arguments[0]) \
               && document.getElementById('chooser').dataset.picks === '1' \
               && !document.getElementById('preview-panel').hidden \
               && document.getElementById('move-notice').textContent",
            json!([before]),
        )
        .await;
    assert!(
        notice
            .as_str()
            .is_some_and(|text| text.contains("still fits")),
        "the page says the move was kept: {notice}"
    );
    browser.screenshot("81-kept-move.png").await;
    let after = app
        .get(&players[0], &format!("/v1/games/{id}"))
        .await
        .json()["current_seq"]
        .as_i64()
        .unwrap();
    browser.click("#confirm").await;
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let events = app
            .get(&players[0], &format!("/v1/games/{id}/events?after={after}"))
            .await
            .expect_status(200)
            .json();
        let mine = events["events"].as_array().is_some_and(|events| {
            events
                .iter()
                .any(|event| event["source"] == "engine" && event["seat"] == 0)
        });
        if mine {
            break;
        }
        assert!(
            Instant::now() < until,
            "the kept move was not stored: {events}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
