//! SVG pictures of a game as one viewer may see it: the board with every space named, the
//! pieces in seat colours, a side panel with the seats, scores and whose turn it is, and the
//! last action highlighted.
//!
//! A picture is drawn only from a view that the engine already redacted for the viewer (and
//! from the board data every engine reads), so it can never show more than the view does.
//! Output is deterministic (stable order, fixed number formatting) so that golden files in
//! `tests/pictures/` catch every change of a picture.

mod eternal_palace;
mod java;
pub mod svg;
mod tikal;

use std::collections::BTreeSet;

use serde_json::Value;

use crate::engine::Seat;
use svg::{seat_fill, wrap, Part, Point, Svg, TextStyle};

/// How a picture is laid out for the screen it is shown on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// The board with the seats beside it, scaled to the screen as a whole.
    #[default]
    Wide,
    /// For a phone: the board, the game's own panels and the seats one under the other
    /// (nested `<svg class="part">`s), each drawn so that no text is smaller than
    /// [`NARROW_SMALLEST_TEXT`] units; shown at one unit per CSS pixel, a part wider than the
    /// screen is panned rather than shrunk.
    Narrow,
}

/// The smallest text of a narrow picture, in its units (CSS pixels when shown at one unit
/// per pixel): WCAG gives no number, 11 px is the floor of iOS's and Android's type scales.
pub const NARROW_SMALLEST_TEXT: f64 = 11.0;

/// What the picture shows besides the view itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoardContext {
    pub layout: Layout,
    /// The seq the view is at.
    pub seq: i64,
    /// Account name per seat (index = seat); `None` for an open seat.
    pub seat_names: Vec<Option<String>>,
    /// Seats that must act at this seq.
    pub to_act: Vec<u8>,
    pub finished: bool,
    /// The viewer's seat, `None` for a spectator.
    pub viewer_seat: Option<u8>,
    /// The events that led to this seq (those of the last action, or the opening events), as
    /// the viewer may see them (already redacted: hidden fields are null). Spaces/locations
    /// they name are highlighted.
    pub last_events: Vec<Value>,
    /// One line for people describing the last event, e.g. "Red uncovers the temple at C3
    /// to 5".
    pub last_text: Option<String>,
}

/// Why no picture could be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    #[error("no game kind {0:?} has pictures")]
    UnknownKind(String),
    #[error("the view is not a {kind} view: {message}")]
    BadView { kind: &'static str, message: String },
}

/// The picture of `view` (the JSON of the kind's `View` exactly as the API's `view` field
/// carries it, already redacted for the viewer) as a standalone SVG document.
pub fn board_svg(kind: &str, view: &Value, context: &BoardContext) -> Result<String, PictureError> {
    match kind {
        "tikal" => Ok(tikal::picture(&read_view("tikal", view)?, context)),
        "java" => Ok(java::picture(&read_view("java", view)?, context)),
        "eternal_palace" => Ok(eternal_palace::picture(
            &read_view("eternal_palace", view)?,
            context,
        )),
        other => Err(PictureError::UnknownKind(other.to_owned())),
    }
}

fn read_view<T: serde::de::DeserializeOwned>(
    kind: &'static str,
    view: &Value,
) -> Result<T, PictureError> {
    T::deserialize(view).map_err(|error| PictureError::BadView {
        kind,
        message: error.to_string(),
    })
}

/// Every string in the payloads of the last events (at any depth, keys excluded): the spaces
/// and locations they name are what the last action touched.
fn named_in(events: &[Value]) -> BTreeSet<String> {
    fn collect(value: &Value, into: &mut BTreeSet<String>) {
        match value {
            Value::String(text) => {
                into.insert(text.clone());
            }
            Value::Array(items) => items.iter().for_each(|item| collect(item, into)),
            Value::Object(fields) => fields
                .iter()
                .filter(|(key, _)| key.as_str() != "type")
                .for_each(|(_, field)| collect(field, into)),
            _ => {}
        }
    }
    let mut names = BTreeSet::new();
    events.iter().for_each(|event| collect(event, &mut names));
    names
}

/// The document of a board drawn in `board` (`board_width` by `board_height` units, the
/// game named `game`) with the side panel: beside it, or for [`Layout::Narrow`] as parts
/// under it.
fn with_side_panel(
    mut board: Svg,
    (board_width, board_height): (f64, f64),
    context: &BoardContext,
    panel: &Panel<'_>,
    title: &str,
) -> String {
    match context.layout {
        Layout::Wide => {
            let panel_x = board_width + 10.0;
            let panel_bottom = side_panel(&mut board, panel_x, PANEL_TOP, context, panel);
            let height = board_height.max(panel_bottom + PANEL_TOP + 8.0);
            board.finish(panel_x + PANEL_WIDTH, height, title)
        }
        Layout::Narrow => svg::stacked(
            vec![
                Part {
                    name: "board",
                    title: format!("{title}: the board"),
                    drawing: board,
                    width: board_width,
                    height: board_height,
                },
                seats_part(context, panel, title),
            ],
            NARROW_SMALLEST_TEXT,
            title,
        ),
    }
}

/// The side panel as a part of a narrow picture.
fn seats_part(context: &BoardContext, panel: &Panel<'_>, title: &str) -> Part {
    let mut drawing = Svg::new();
    let bottom = side_panel(&mut drawing, NARROW_PANEL_MARGIN, 0.0, context, panel);
    Part {
        name: "seats",
        title: format!("{title}: the seats"),
        drawing,
        width: PANEL_WIDTH + NARROW_PANEL_MARGIN,
        height: bottom,
    }
}

/// One seat's entry in the side panel.
struct SeatSummary {
    seat: Seat,
    score: i32,
    /// Short lines of the seat's other public numbers.
    lines: Vec<String>,
}

/// Width of the side panel.
const PANEL_WIDTH: f64 = 330.0;
/// Top of the side panel beside a board.
const PANEL_TOP: f64 = 16.0;
/// Left of the side panel as a part of its own: with the panel's width, it fits a 360 px
/// phone.
const NARROW_PANEL_MARGIN: f64 = 8.0;
/// Characters of small text that fit on one panel line.
const PANEL_CHARS: usize = 45;
/// Characters of a seat's smaller lines that fit in its box.
const SEAT_LINE_CHARS: usize = 48;
/// Characters of a seat's bold title line (name and score) that fit in its box.
const SEAT_TITLE_CHARS: usize = 35;

/// What a game puts in the side panel.
struct Panel<'a> {
    /// The game's name.
    game: &'a str,
    seats: &'a [SeatSummary],
    /// Places by seat once the game is over.
    places: Option<&'a [u8]>,
    /// The game's own public numbers, one line each (wrapped to fit).
    facts: &'a [String],
}

/// Draws the side panel at `x` (top at `top`): the game and seq, each seat with its name,
/// colour, score and whether it must act, then the game's own facts, the places once
/// finished and the last action. Returns the y below it.
fn side_panel(svg: &mut Svg, x: f64, top: f64, context: &BoardContext, panel: &Panel<'_>) -> f64 {
    let Panel {
        game,
        seats,
        places,
        facts,
    } = *panel;
    let mut y = top + 22.0;
    svg.text(
        Point::new(x, y),
        TextStyle::new(18.0).bold(),
        &format!("{game} \u{b7} event {}", context.seq),
    );
    y += 18.0;
    let status = if context.finished {
        "Finished".to_owned()
    } else if context.to_act.is_empty() {
        "Nobody to act".to_owned()
    } else {
        let names: Vec<&str> = context
            .to_act
            .iter()
            .map(|&seat| crate::kit::seats::colour(seat))
            .collect();
        format!("To act: {}", names.join(", "))
    };
    svg.text(Point::new(x, y), TextStyle::new(13.0).bold(), &status);
    y += 8.0;
    for summary in seats {
        y = seat_block(svg, x, y, context, summary, places);
    }
    y += 8.0;
    for fact in facts {
        for line in wrap(fact, PANEL_CHARS) {
            y += 15.0;
            svg.text(Point::new(x, y), TextStyle::new(12.0), &line);
        }
    }
    if let Some(text) = context.last_text.as_deref().filter(|text| !text.is_empty()) {
        y += 22.0;
        svg.text(
            Point::new(x, y),
            TextStyle::new(12.0).bold().fill(svg::HIGHLIGHT),
            "Last action",
        );
        for line in wrap(text, PANEL_CHARS) {
            y += 15.0;
            svg.text(Point::new(x, y), TextStyle::new(12.0), &line);
        }
    }
    y + 12.0
}

/// One seat in the side panel; returns the y below it.
fn seat_block(
    svg: &mut Svg,
    x: f64,
    top: f64,
    context: &BoardContext,
    summary: &SeatSummary,
    places: Option<&[u8]>,
) -> f64 {
    let seat = summary.seat;
    let to_act = context.to_act.contains(&seat) && !context.finished;
    let name = context
        .seat_names
        .get(usize::from(seat))
        .cloned()
        .flatten()
        .unwrap_or_else(|| "(open seat)".to_owned());
    let mut title = format!(
        "{} \u{b7} {}",
        crate::kit::seats::colour(seat),
        svg::clip(&name, 22)
    );
    if context.viewer_seat == Some(seat) {
        title.push_str(" (you)");
    }
    let score = match places.and_then(|places| places.get(usize::from(seat))) {
        Some(place) => format!("{} pts \u{b7} place {place}", summary.score),
        None => format!("{} pts", summary.score),
    };
    // A long name and a place would overlap on one line: the score then gets its own.
    let score_below = title.chars().count() + 2 + score.chars().count() > SEAT_TITLE_CHARS;
    let header = if score_below { 14.0 } else { 0.0 };
    // A seat that must act gets a line of its own saying so.
    let to_act_line = top + 38.0 + header;
    let first_line = if to_act {
        to_act_line + 14.0
    } else {
        to_act_line
    };
    let lines: Vec<String> = summary
        .lines
        .iter()
        .flat_map(|line| wrap(line, SEAT_LINE_CHARS))
        .collect();
    let height = first_line - top - 4.0 + 14.0 * lines.len() as f64;
    let (fill, stroke, stroke_width) = if to_act {
        ("#fff3c4", "#202020", 2.5)
    } else {
        ("#ffffff", "#b0a890", 1.0)
    };
    svg.open_group(&format!("seat seat-{seat}"));
    svg.rect(
        x,
        top + 6.0,
        PANEL_WIDTH - 20.0,
        height,
        fill,
        stroke,
        stroke_width,
    );
    svg.rect(x, top + 6.0, 8.0, height, seat_fill(seat), "none", 0.0);
    svg.text(
        Point::new(x + 16.0, top + 24.0),
        TextStyle::new(14.0).bold(),
        &title,
    );
    let (score_at, score_style) = if score_below {
        (
            Point::new(x + 16.0, top + 24.0 + header),
            TextStyle::new(13.0).bold(),
        )
    } else {
        (
            Point::new(x + PANEL_WIDTH - 28.0, top + 24.0),
            TextStyle::new(14.0).bold().end(),
        )
    };
    svg.text(score_at, score_style, &score);
    if to_act {
        svg.text(
            Point::new(x + 16.0, to_act_line),
            TextStyle::new(11.0).bold().fill("#b00000"),
            "\u{25b6} TO ACT",
        );
    }
    for (index, line) in lines.iter().enumerate() {
        svg.text(
            Point::new(x + 16.0, first_line + 14.0 * index as f64),
            TextStyle::new(11.0).fill("#404040"),
            line,
        );
    }
    svg.close_group();
    top + height + 6.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_kinds_and_bad_views_are_errors() {
        let context = BoardContext::default();
        assert!(matches!(
            board_svg("chess", &json!({}), &context),
            Err(PictureError::UnknownKind(_))
        ));
        assert!(matches!(
            board_svg("tikal", &json!({"board": 3}), &context),
            Err(PictureError::BadView { .. })
        ));
    }

    /// The score's `<text>` element of a seat drawn for `name`, with `place` when finished.
    fn score_text(name: &str, viewer: bool, place: Option<u8>) -> String {
        let context = BoardContext {
            seat_names: vec![Some(name.to_owned())],
            viewer_seat: viewer.then_some(0),
            finished: place.is_some(),
            ..BoardContext::default()
        };
        let summary = SeatSummary {
            seat: 0,
            score: 25,
            lines: vec!["workers 3".to_owned()],
        };
        let places = place.map(|place| vec![place]);
        let mut svg = Svg::new();
        seat_block(&mut svg, 0.0, 0.0, &context, &summary, places.as_deref());
        let drawing = svg.finish(400.0, 200.0, "seat");
        drawing
            .lines()
            .find(|line| line.contains(">25 pts"))
            .expect("the score is drawn")
            .to_owned()
    }

    #[test]
    fn a_long_name_and_a_place_put_the_score_on_a_line_of_its_own() {
        let beside = score_text("ann", true, Some(1));
        assert!(beside.contains("text-anchor=\"end\""), "{beside}");
        assert!(beside.contains("y=\"24\""), "{beside}");
        let below = score_text("tikal-desktop", true, Some(1));
        assert!(below.contains("text-anchor=\"start\""), "{below}");
        assert!(below.contains("y=\"38\""), "{below}");
    }

    #[test]
    fn every_string_of_the_last_events_is_named_but_not_the_type() {
        let events = [json!({"type": "tile_placed", "space": "C3", "to": ["D4"], "n": 2})];
        let names: Vec<String> = named_in(&events).into_iter().collect();
        assert_eq!(names, ["C3", "D4"]);
    }
}
