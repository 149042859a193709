//! Board pictures: golden files of fixed-seed games for every kind (a changed picture shows
//! in the diff of `tests/pictures/*.svg` and is reviewed there), and no secret in any
//! picture a viewer gets.
//!
//! `UPDATE_GOLDEN=1 cargo test -p turnpost-games --test pictures` rewrites the golden files.
//!
//! Games are played the way the server plays them: through the JSON-speaking
//! [`GameRules`] / [`Table`] API, each action's randomness from [`rng_for`], and every event
//! redacted for the viewer before it reaches the picture's context.

use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use turnpost_games::engine::Viewer;
use turnpost_games::pictures::{board_svg, BoardContext, Layout, NARROW_SMALLEST_TEXT};
use turnpost_games::{find_game_rules, rng_for, seed_commitment, GameRules, RecordedEvent, Table};

/// A fixed-seed game: its opening events, then the events of each action.
struct Game {
    rules: &'static dyn GameRules,
    options: Value,
    seats: u8,
    rules_version: u32,
    /// Index 0: the opening events; then one entry per action.
    steps: Vec<Vec<RecordedEvent>>,
}

/// Plays `actions` random legal actions (or until the end) of a game seeded by `seed_byte`.
fn play(
    kind: &str,
    options: Value,
    seats: u8,
    rules_version: Option<u32>,
    seed_byte: u8,
    actions: usize,
) -> Game {
    let rules = find_game_rules(kind).expect("a kind");
    let rules_version = rules_version.unwrap_or_else(|| rules.newest_rules_version());
    let seed = [seed_byte; 32];
    let opening = rules
        .setup(
            &options,
            seats,
            rules_version,
            Some(&seed_commitment(&seed)),
            &mut rng_for(seed, 0),
        )
        .expect("setup");
    let mut table = rules
        .new_table(&options, seats, rules_version)
        .expect("a table");
    let schema = rules.event_schema_version();
    let mut seq = 0u64;
    for event in &opening {
        table
            .apply(&event.payload.to_string(), schema)
            .expect("an event");
        seq += 1;
    }
    let mut steps = vec![opening];
    let mut chooser = ChaCha8Rng::seed_from_u64(u64::from(seed_byte));
    for _ in 0..actions {
        if table.outcome().is_some() {
            break;
        }
        let to_act = table.to_act();
        let seat = to_act[chooser.gen_range(0..to_act.len())];
        let legal = table.legal_actions(seat);
        let action = &legal[chooser.gen_range(0..legal.len())];
        let (_, events) = table
            .decide(seat, action, &mut rng_for(seed, seq))
            .expect("a legal action is accepted");
        for event in &events {
            table
                .apply(&event.payload.to_string(), schema)
                .expect("an event");
            seq += 1;
        }
        steps.push(events);
    }
    Game {
        rules,
        options,
        seats,
        rules_version,
        steps,
    }
}

const NAMES: [&str; 5] = ["alice", "Bob <&> \"the builder\"", "carol", "dave", "eve"];

/// The picture after the first `steps` steps of `game` as `viewer` sees it, and the table
/// there (for its secrets).
fn picture(game: &Game, steps: usize, viewer: Viewer) -> (String, Box<dyn Table>) {
    picture_in(Layout::Wide, game, steps, viewer)
}

/// The picture in `layout` after the first `steps` steps, as `viewer` sees it.
fn picture_in(
    layout: Layout,
    game: &Game,
    steps: usize,
    viewer: Viewer,
) -> (String, Box<dyn Table>) {
    let mut table = game
        .rules
        .new_table(&game.options, game.seats, game.rules_version)
        .expect("a table");
    let schema = game.rules.event_schema_version();
    let mut seq = 0i64;
    let mut last_events = Vec::new();
    let mut last_text = None;
    for step in &game.steps[..steps] {
        last_events.clear();
        for event in step {
            let (redacted, text) = table
                .redact_and_apply(&event.payload.to_string(), schema, viewer)
                .expect("an event");
            seq += 1;
            last_events.push(redacted);
            if !text.is_empty() {
                last_text = Some(text);
            }
        }
    }
    let context = BoardContext {
        layout,
        seq,
        seat_names: (0..game.seats)
            .map(|seat| Some(NAMES[usize::from(seat)].to_owned()))
            .collect(),
        to_act: table.to_act(),
        finished: table.outcome().is_some(),
        viewer_seat: match viewer {
            Viewer::Seat(seat) => Some(seat),
            _ => None,
        },
        last_events,
        last_text,
    };
    let svg = board_svg(game.rules.kind(), &table.view(viewer), &context).expect("a picture");
    (svg, table)
}

fn golden_folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/pictures")
}

/// Compares `svg` with the golden file `name`.svg, or rewrites it under `UPDATE_GOLDEN=1`.
fn check_golden(name: &str, svg: &str) -> Option<String> {
    assert_well_formed(name, svg);
    let path = golden_folder().join(format!("{name}.svg"));
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|value| value == "1") {
        std::fs::create_dir_all(golden_folder()).expect("the golden folder");
        std::fs::write(&path, svg).expect("a golden file");
        println!("UPDATE_GOLDEN=1: rewrote {}", path.display());
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(golden) if golden == svg => None,
        Ok(_) => Some(format!(
            "{name}: the picture changed; look at it, then rewrite the golden file with \
             UPDATE_GOLDEN=1 and review the diff"
        )),
        Err(error) => Some(format!(
            "{name}: no golden file {} ({error})",
            path.display()
        )),
    }
}

/// Every tag closes in order, attributes are quoted, `&` starts an entity: enough of XML
/// to catch a broken writer without an XML library.
fn assert_well_formed(name: &str, svg: &str) {
    assert!(
        svg.contains("xmlns=\"http://www.w3.org/2000/svg\""),
        "{name}"
    );
    assert!(svg.contains("viewBox=\"0 0 "), "{name}");
    assert!(svg.len() < 400_000, "{name}: {} bytes", svg.len());
    let mut open: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        assert!(!text.contains('>'), "{name}: a stray > in {text:?}");
        check_entities(name, text);
        let end = rest[start..].find('>').expect("a closed tag") + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') {
            continue;
        }
        if let Some(closing) = tag.strip_prefix('/') {
            assert_eq!(
                open.pop(),
                Some(closing),
                "{name}: </{closing}> out of order"
            );
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let element = body.split_whitespace().next().expect("a tag name");
        assert_eq!(
            body.matches('"').count() % 2,
            0,
            "{name}: unbalanced quotes in <{body}>"
        );
        assert!(!body.contains('<'), "{name}: < inside <{body}>");
        check_entities(name, body);
        if !self_closing {
            open.push(element);
        }
    }
    assert!(open.is_empty(), "{name}: unclosed {open:?}");
}

fn check_entities(name: &str, text: &str) {
    for (index, _) in text.match_indices('&') {
        let entity = &text[index..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                .iter()
                .any(|known| entity.starts_with(known)),
            "{name}: a bare & in {text:?}"
        );
    }
}

struct Case {
    name: &'static str,
    kind: &'static str,
    options: Value,
    seats: u8,
    rules_version: Option<u32>,
    seed: u8,
    /// Actions played before the picture (0: the opening, right after setup).
    actions: usize,
    viewer: Viewer,
    layout: Layout,
}

fn case(name: &'static str, kind: &'static str, actions: usize, viewer: Viewer) -> Case {
    Case {
        name,
        kind,
        options: json!({}),
        seats: 3,
        rules_version: None,
        seed: 7,
        actions,
        viewer,
        layout: Layout::Wide,
    }
}

/// `case` laid out for a phone, its golden file named with `-narrow`.
fn narrow(case: Case) -> Case {
    Case {
        layout: Layout::Narrow,
        ..case
    }
}

fn golden_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for kind in ["tikal", "java", "eternal_palace"] {
        cases.push(case("opening-seat0", kind, 0, Viewer::Seat(0)));
        cases.push(case("opening-spectator", kind, 0, Viewer::Spectator));
        cases.push(case("mid-seat0", kind, 60, Viewer::Seat(0)));
        cases.push(case("mid-spectator", kind, 60, Viewer::Spectator));
    }
    cases.push(Case {
        options: json!({"labyrinth": true, "location_tiles": ["fish_market", "eternal_bridge"]}),
        rules_version: Some(3),
        ..case(
            "labyrinth-tiles-seat0",
            "eternal_palace",
            60,
            Viewer::Seat(0),
        )
    });
    cases.push(Case {
        options: json!({"river_market": true}),
        rules_version: Some(3),
        seats: 4,
        ..case(
            "river-market-spectator",
            "eternal_palace",
            60,
            Viewer::Spectator,
        )
    });
    cases.push(Case {
        options: json!({"compositions": true, "privileges": true}),
        rules_version: Some(3),
        seats: 2,
        ..case("compositions-seat1", "eternal_palace", 60, Viewer::Seat(1))
    });
    cases.push(Case {
        options: json!({"labyrinth": true, "any_group_at_module_locations": true}),
        seats: 3,
        ..case(
            "labyrinth-any-group-spectator",
            "eternal_palace",
            60,
            Viewer::Spectator,
        )
    });
    cases.push(Case {
        options: json!({"play_on_when_no_tile_fits": true}),
        seats: 3,
        ..case("play-on-seat1", "java", 90, Viewer::Seat(1))
    });
    cases.push(Case {
        options: json!({"auction": true}),
        seats: 4,
        ..case("auction-seat0", "tikal", 40, Viewer::Seat(0))
    });
    let narrow_cases: Vec<Case> = cases
        .iter()
        .filter(|case| {
            case.name == "opening-seat0"
                || case.name == "mid-seat0"
                || case.name == "labyrinth-tiles-seat0"
                || case.name == "river-market-spectator"
                || case.name == "compositions-seat1"
        })
        .map(|case| {
            narrow(Case {
                options: case.options.clone(),
                ..*case
            })
        })
        .collect();
    cases.extend(narrow_cases);
    cases
}

/// The picture of `case`'s game at its end, in `layout`, as its viewer sees it.
fn case_picture(case: &Case, layout: Layout) -> (String, Box<dyn Table>) {
    let game = play(
        case.kind,
        case.options.clone(),
        case.seats,
        case.rules_version,
        case.seed,
        case.actions,
    );
    picture_in(layout, &game, game.steps.len(), case.viewer)
}

/// The golden file's name of `case`.
fn golden_name(case: &Case) -> String {
    match case.layout {
        Layout::Wide => format!("{}-{}", case.kind, case.name),
        Layout::Narrow => format!("{}-{}-narrow", case.kind, case.name),
    }
}

#[test]
fn pictures_match_their_golden_files() {
    let mut problems = Vec::new();
    for case in golden_cases() {
        let (svg, _) = case_picture(&case, case.layout);
        problems.extend(check_golden(&golden_name(&case), &svg));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_space_is_clickable_and_the_last_action_is_highlighted() {
    let game = play("tikal", json!({}), 2, None, 3, 30);
    // The last step whose events name a space.
    let steps = 1 + game
        .steps
        .iter()
        .rposition(|step| {
            step.iter()
                .any(|event| event.payload.get("space").is_some())
        })
        .expect("a step on a space");
    let (svg, _) = picture(&game, steps, Viewer::Spectator);
    // 8 columns of 5 rows, each a space whatever is on it.
    assert_eq!(svg.matches("<g class=\"space").count(), 40);
    assert!(svg.contains("data-space=\"A1\"") && svg.contains("data-space=\"H5\""));
    assert!(
        svg.contains("class=\"space last-action\""),
        "the last action shows"
    );
    assert!(
        svg.contains("Bob &lt;&amp;&gt; &quot;the builder&quot;"),
        "names are escaped"
    );

    let game = play("java", json!({}), 2, None, 3, 0);
    let (svg, _) = picture(&game, 1, Viewer::Seat(1));
    assert!(svg.contains("data-space=\"G6\""));
    assert!(svg.contains("(you)"));

    let game = play("eternal_palace", json!({}), 2, None, 3, 10);
    let (svg, _) = picture(&game, game.steps.len(), Viewer::Spectator);
    for key in ["1", "12", "bridge", "scrolls"] {
        assert!(svg.contains(&format!("data-space=\"{key}\"")), "{key}");
    }
}

/// The value of attribute `name` in the tag `tag` (its text between `<` and `>`).
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let length = tag[start..].find('"')?;
    Some(&tag[start..start + length])
}

/// A narrow picture shown at one unit per CSS pixel: each part is scaled (its `width` over
/// its `viewBox` width) so that every text, font size times the part's scale, is at least
/// 11 px; every part but the board and the two long tracks fits a 360 px phone without
/// panning. Checked on every case laid out both ways.
#[test]
fn narrow_pictures_have_no_text_under_eleven_pixels() {
    for case in golden_cases() {
        let (svg, _) = case_picture(&case, Layout::Narrow);
        let name = golden_name(&case);
        let mut parts = 0;
        let mut texts = 0;
        for part in svg.split("<svg class=\"part ").skip(1) {
            parts += 1;
            let tag = &part[..part.find('>').expect("a closed tag")];
            let shown: f64 = attribute(tag, "width").unwrap().parse().unwrap();
            let view_box = attribute(tag, "viewBox").unwrap();
            let drawn: f64 = view_box.split(' ').nth(2).unwrap().parse().unwrap();
            let scale = shown / drawn;
            let part_name = attribute(tag, "data-part").unwrap();
            if !["board", "bridge", "labyrinth"].contains(&part_name) {
                assert!(
                    shown <= 360.0,
                    "{name}: part {part_name} is {shown} px wide"
                );
            }
            let body = &part[..part.find("</svg>").expect("a closed part")];
            for text in body.split("<text ").skip(1) {
                texts += 1;
                let size: f64 = attribute(&format!(" {text}"), "font-size")
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!(
                    size * scale >= NARROW_SMALLEST_TEXT,
                    "{name}: part {part_name} shows text of {size} units at {:.1} px",
                    size * scale
                );
            }
        }
        assert!(parts >= 2, "{name}: the board and the seats at least");
        assert!(texts > 20, "{name}: only {texts} texts");
        assert_well_formed(&name, &svg);
    }
}

/// Whether `token` stands in `text` on its own (not as part of a longer id).
fn contains_token(text: &str, token: &str) -> bool {
    let part_of_id = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '/');
    text.match_indices(token).any(|(index, _)| {
        let before = text[..index].chars().next_back();
        let after = text[index + token.len()..].chars().next();
        !before.is_some_and(part_of_id) && !after.is_some_and(part_of_id)
    })
}

/// Renders the game every few actions for a spectator and for each seat, and checks that
/// no secret the viewer may not see is in the picture, neither as the engine's needle nor
/// as the bare id (a picture carries ids without JSON quotes). Returns how many secrets
/// were checked and how many of the viewers' own secrets the pictures showed.
fn assert_no_secrets(
    kind: &str,
    options: Value,
    seats: u8,
    rules_version: Option<u32>,
    seed: u8,
) -> (usize, usize) {
    let game = play(kind, options, seats, rules_version, seed, 400);
    let (mut checked, mut own_shown) = (0, 0);
    let viewers: Vec<Viewer> = [Viewer::Spectator]
        .into_iter()
        .chain((0..seats).map(Viewer::Seat))
        .collect();
    for steps in (1..=game.steps.len()).step_by(9) {
        for &viewer in &viewers {
            let (wide, table) = picture(&game, steps, viewer);
            let (narrow, _) = picture_in(Layout::Narrow, &game, steps, viewer);
            let svg = format!("{wide}\n{narrow}");
            for secret in table.secrets() {
                let bare = secret.needle.trim_matches('"');
                let visible = secret
                    .owner
                    .is_some_and(|owner| viewer.sees_secrets_of(owner));
                if visible {
                    own_shown += usize::from(contains_token(&svg, bare));
                    continue;
                }
                checked += 1;
                assert!(
                    !svg.contains(&secret.needle) && !contains_token(&svg, bare),
                    "{kind}: secret {} reaches {viewer:?} after {steps} steps",
                    secret.needle
                );
            }
        }
    }
    (checked, own_shown)
}

#[test]
fn no_picture_shows_a_secret_tikal() {
    let (checked, _) = assert_no_secrets("tikal", json!({}), 3, None, 11);
    assert!(checked > 100, "only {checked} secrets checked");
}

#[test]
fn no_picture_shows_a_secret_java() {
    let (checked, own_shown) = assert_no_secrets("java", json!({}), 3, None, 12);
    assert!(checked > 100, "only {checked} secrets checked");
    // The owner sees their own hand: proof that the check would find a card id.
    assert!(own_shown > 0, "no seat saw its own hand in its picture");
}

#[test]
fn no_picture_shows_a_secret_eternal_palace() {
    let (checked, _) = assert_no_secrets("eternal_palace", json!({}), 3, None, 13);
    assert!(checked > 100, "only {checked} secrets checked");
    let (checked, _) = assert_no_secrets(
        "eternal_palace",
        json!({"river_market": true, "location_tiles": ["fish_market"]}),
        4,
        Some(3),
        14,
    );
    assert!(checked > 100, "only {checked} secrets checked");
}

/// The README shows three of the golden pictures; they stay the pictures the tests check.
#[test]
fn the_readme_pictures_are_golden_files() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/pictures");
    for (shown, golden) in [
        ("tikal.svg", "tikal-mid-spectator.svg"),
        ("java.svg", "java-mid-seat0.svg"),
        (
            "eternal_palace.svg",
            "eternal_palace-labyrinth-tiles-seat0.svg",
        ),
    ] {
        let shown_text = std::fs::read_to_string(docs.join(shown)).expect("docs picture");
        let golden_text =
            std::fs::read_to_string(golden_folder().join(golden)).expect("golden picture");
        assert!(
            shown_text == golden_text,
            "docs/pictures/{shown} differs from its golden file {golden}: copy it again"
        );
    }
}
