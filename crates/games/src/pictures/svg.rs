//! A small SVG writer shared by the board pictures: escaped text, fixed number formatting and
//! the drawing primitives the three games need, so every picture is byte-for-byte stable.

use std::fmt::Write as _;

use crate::engine::Seat;

/// Fill colours of the seat colours named in `docs/vocabulary.md` (Red, Blue, Yellow, Green,
/// Purple), in seat order.
const SEAT_FILLS: [&str; 5] = ["#d62828", "#1f63c6", "#f2c511", "#2e9e44", "#8e44ad"];
/// A text colour readable on each seat fill.
const SEAT_INKS: [&str; 5] = ["#ffffff", "#ffffff", "#202020", "#ffffff", "#ffffff"];

/// The fill of `seat`'s pieces (grey for a seat beyond the five colours).
pub fn seat_fill(seat: Seat) -> &'static str {
    SEAT_FILLS
        .get(usize::from(seat))
        .copied()
        .unwrap_or("#808080")
}

/// The text colour to write on `seat`'s fill.
pub fn seat_ink(seat: Seat) -> &'static str {
    SEAT_INKS
        .get(usize::from(seat))
        .copied()
        .unwrap_or("#ffffff")
}

/// The outline of a highlighted (last action) space.
pub const HIGHLIGHT: &str = "#ff00aa";

/// Text made safe for XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0 at all.
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with one decimal, never "-0.0", so output does not depend on float noise.
pub fn num(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    let text = format!("{rounded:.1}");
    let text = if text == "-0.0" {
        "0.0".to_owned()
    } else {
        text
    };
    text.strip_suffix(".0").map(str::to_owned).unwrap_or(text)
}

/// A point on the picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// The point `distance` away in direction `degrees` (0 = east, clockwise, y down).
    pub fn towards(self, degrees: f64, distance: f64) -> Point {
        let radians = degrees.to_radians();
        Point::new(
            self.x + distance * radians.cos(),
            self.y + distance * radians.sin(),
        )
    }
}

/// How text sits against its anchor point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// One line of text and how to write it.
#[derive(Debug, Clone, Copy)]
pub struct TextStyle<'a> {
    pub size: f64,
    pub fill: &'a str,
    pub anchor: Anchor,
    pub bold: bool,
}

impl<'a> TextStyle<'a> {
    pub fn new(size: f64) -> TextStyle<'a> {
        TextStyle {
            size,
            fill: "#202020",
            anchor: Anchor::Start,
            bold: false,
        }
    }

    pub fn fill(mut self, fill: &'a str) -> Self {
        self.fill = fill;
        self
    }

    pub fn middle(mut self) -> Self {
        self.anchor = Anchor::Middle;
        self
    }

    pub fn end(mut self) -> Self {
        self.anchor = Anchor::End;
        self
    }

    pub fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
}

/// An SVG document being written, element by element.
pub struct Svg {
    out: String,
    /// The font size of the smallest text written so far.
    smallest_text: f64,
}

/// The font family every picture names (DejaVu ships with most Linux systems, Arial with the
/// others; both are wide enough that the pictures' character counts hold).
const FONT_FAMILY: &str = "DejaVu Sans, Arial, sans-serif";

impl Svg {
    /// An empty drawing; [`Svg::finish`] wraps it in a document once its size is known.
    pub fn new() -> Svg {
        Svg {
            out: String::with_capacity(64 * 1024),
            smallest_text: f64::INFINITY,
        }
    }

    /// The font size of the smallest text in the drawing (`None` when it has no text).
    pub fn smallest_text(&self) -> Option<f64> {
        self.smallest_text.is_finite().then_some(self.smallest_text)
    }

    /// Opens a group for one board space: clickable by its id, named in a tooltip.
    pub fn open_space(&mut self, id: &str, name: &str, highlighted: bool) {
        let class = if highlighted {
            "space last-action"
        } else {
            "space"
        };
        let _ = writeln!(
            self.out,
            "<g class=\"{class}\" data-space=\"{}\"><title>{}</title>",
            escape(id),
            escape(name)
        );
    }

    /// Opens a plain group with a class (for styling and for tests to find parts).
    pub fn open_group(&mut self, class: &str) {
        let _ = writeln!(self.out, "<g class=\"{}\">", escape(class));
    }

    pub fn close_group(&mut self) {
        self.out.push_str("</g>\n");
    }

    /// A closed polygon through `points`.
    pub fn polygon(&mut self, points: &[Point], fill: &str, stroke: &str, stroke_width: f64) {
        let list: Vec<String> = points
            .iter()
            .map(|p| format!("{},{}", num(p.x), num(p.y)))
            .collect();
        let _ = writeln!(
            self.out,
            "<polygon points=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{}\"/>",
            list.join(" "),
            num(stroke_width)
        );
    }

    /// A dashed closed polygon (unexplored or empty places).
    pub fn dashed_polygon(&mut self, points: &[Point], fill: &str, stroke: &str) {
        let list: Vec<String> = points
            .iter()
            .map(|p| format!("{},{}", num(p.x), num(p.y)))
            .collect();
        let _ = writeln!(
            self.out,
            "<polygon points=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1\" \
             stroke-dasharray=\"4 3\"/>",
            list.join(" ")
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub fn rect(
        &mut self,
        x: f64,
        y: f64,
        width: f64,
        height: f64,
        fill: &str,
        stroke: &str,
        stroke_width: f64,
    ) {
        let _ = writeln!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" fill=\"{fill}\" \
             stroke=\"{stroke}\" stroke-width=\"{}\"/>",
            num(x),
            num(y),
            num(width),
            num(height),
            num(stroke_width)
        );
    }

    pub fn circle(&mut self, centre: Point, radius: f64, fill: &str, stroke: &str) {
        let _ = writeln!(
            self.out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" \
             stroke-width=\"1\"/>",
            num(centre.x),
            num(centre.y),
            num(radius)
        );
    }

    pub fn line(&mut self, from: Point, to: Point, stroke: &str, width: f64) {
        let _ = writeln!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" \
             stroke-width=\"{}\" stroke-linecap=\"round\"/>",
            num(from.x),
            num(from.y),
            num(to.x),
            num(to.y),
            num(width)
        );
    }

    /// One line of text at `at` (the baseline).
    pub fn text(&mut self, at: Point, style: TextStyle<'_>, text: &str) {
        self.smallest_text = self.smallest_text.min(style.size);
        let weight = if style.bold {
            " font-weight=\"bold\""
        } else {
            ""
        };
        let _ = writeln!(
            self.out,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\" text-anchor=\"{}\"{weight}>{}</text>",
            num(at.x),
            num(at.y),
            num(style.size),
            style.fill,
            style.anchor.as_str(),
            escape(text)
        );
    }

    /// A seat's piece: a disc in the seat's fill with a short label on it.
    pub fn seat_disc(&mut self, centre: Point, radius: f64, seat: Seat, label: &str) {
        self.circle(centre, radius, seat_fill(seat), "#202020");
        if !label.is_empty() {
            self.text(
                Point::new(centre.x, centre.y + radius * 0.45),
                TextStyle::new(radius * 1.2)
                    .fill(seat_ink(seat))
                    .middle()
                    .bold(),
                label,
            );
        }
    }

    /// The finished document, `width` by `height` user units on a light background.
    pub fn finish(self, width: f64, height: f64, title: &str) -> String {
        let (w, h) = (num(width), num(height));
        let mut document = String::with_capacity(self.out.len() + 512);
        let _ = write!(
            document,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"{FONT_FAMILY}\">\n\
             <title>{}</title>\n\
             <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#fbf8f0\"/>\n",
            escape(title)
        );
        document.push_str(&self.out);
        document.push_str("</svg>\n");
        document
    }
}

/// One block of a picture laid out for a narrow screen: a drawing of `width` by `height`
/// units, shown on its own.
pub struct Part {
    /// What the block shows (`board`, `seats`, `bridge`, ...): its class and its name for
    /// pages that lay the blocks out themselves.
    pub name: &'static str,
    /// Said to screen readers.
    pub title: String,
    pub drawing: Svg,
    pub width: f64,
    pub height: f64,
}

impl Part {
    /// How much larger than its units the block is shown: just enough that its smallest
    /// text is `smallest_shown` units of the document (never smaller than drawn).
    pub fn scale(&self, smallest_shown: f64) -> f64 {
        self.drawing
            .smallest_text()
            .map_or(1.0, |smallest| (smallest_shown / smallest).max(1.0))
    }
}

/// A document of `parts` one under the other, each a nested `<svg class="part part-NAME"
/// data-part="NAME">` scaled so that no text in it is smaller than `smallest_shown` units of
/// the document. Shown at one unit per CSS pixel, that is the smallest text on the screen; a
/// page may also move the nested `<svg>`s into blocks of its own.
pub fn stacked(parts: Vec<Part>, smallest_shown: f64, title: &str) -> String {
    let mut body = String::with_capacity(parts.iter().map(|part| part.drawing.out.len()).sum());
    let (mut width, mut top) = (0.0f64, 0.0f64);
    for part in parts {
        let scale = part.scale(smallest_shown);
        // The drawn size rounded up to what the document writes and the shown size to whole
        // pixels, so that neither the document nor a browser's layout rounding takes the
        // text a hair under the promise.
        let up = |units: f64| (units * 10.0).ceil() / 10.0;
        let (drawn_width, drawn_height) = (up(part.width), up(part.height));
        let (shown_width, shown_height) =
            ((drawn_width * scale).ceil(), (drawn_height * scale).ceil());
        let _ = write!(
            body,
            "<svg class=\"part part-{name}\" data-part=\"{name}\" x=\"0\" y=\"{}\" \
             width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"{FONT_FAMILY}\">\n\
             <title>{}</title>\n\
             <rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#fbf8f0\"/>\n",
            num(top),
            num(shown_width),
            num(shown_height),
            num(drawn_width),
            num(drawn_height),
            escape(&part.title),
            num(drawn_width),
            num(drawn_height),
            name = escape(part.name),
        );
        body.push_str(&part.drawing.out);
        body.push_str("</svg>\n");
        width = width.max(shown_width);
        top += shown_height;
    }
    let mut document = Svg::new();
    document.out = body;
    document.finish(width, top, title)
}

impl Default for Svg {
    fn default() -> Self {
        Svg::new()
    }
}

/// The corners of a hexagon of circumradius `radius` around `centre`; `first_corner_degrees`
/// is 0 for flat-top hexes and -90 for pointy-top ones.
pub fn hexagon(centre: Point, radius: f64, first_corner_degrees: f64) -> Vec<Point> {
    (0..6)
        .map(|corner| centre.towards(first_corner_degrees + 60.0 * f64::from(corner), radius))
        .collect()
}

/// Long text cut to `max_chars` characters with an ellipsis, so a line stays in its panel.
pub fn clip(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// Text broken into lines of at most `width` characters at spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
        assert_eq!(escape("bell\u{7}"), "bell");
    }

    #[test]
    fn numbers_have_at_most_one_decimal_and_no_negative_zero() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.25), "1.3");
        assert_eq!(num(-0.04), "0");
        assert_eq!(num(-2.5), "-2.5");
    }

    #[test]
    fn long_text_wraps_and_clips() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
