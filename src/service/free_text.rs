//! What a text people write for others to read may hold: chat messages, names of personal
//! tokens, reasons of reports and moderators' actions. One rule, kept here as tables, gives
//! both the server's check and the `pattern` the OpenAPI document states for the same fields
//! ([`pattern`]), so that a client validating against the schema refuses exactly what the
//! server refuses.
//!
//! Refused anywhere: control characters (line ends and tabs only inside texts of several
//! lines), the bidirectional controls that make text read in another order than it is
//! stored (`abc\u{202E}txt.exe` shows as `abcexe.txt`), line and paragraph separators
//! (U+2028, U+2029: they break lines where the text has none), and tag characters
//! (U+E0000 to U+E007F: invisible letters). And a text must show something: one that holds
//! only spaces and invisible characters (zero-width spaces and joiners, fillers, variation
//! selectors) is refused. Invisible characters between visible ones are kept: joiners make
//! emoji sequences and some scripts' letters.
//!
//! Spaces, tabs and line ends around the text are dropped before anything is measured or
//! stored, which is also what lets the pattern allow them at both ends.

use crate::error::ApiError;

/// Whether a text may span lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// A name or title: no line ends or tabs.
    One,
    /// A message: line ends (`\n`, `\r\n` or `\r`, stored as `\n`) and tabs allowed.
    Many,
}

/// Inclusive ranges of code points.
type Ranges = &'static [(u32, u32)];

/// Refused in every text.
const FORBIDDEN: Ranges = &[
    (0x00, 0x08),
    (0x0B, 0x0C),
    (0x0E, 0x1F),
    (0x7F, 0x9F),
    (0x061C, 0x061C),
    (0x200E, 0x200F),
    (0x2028, 0x202E),
    (0x2066, 0x2069),
    (0xE0000, 0xE007F),
];

/// Refused in texts of one line besides [`FORBIDDEN`].
const LINE_BREAKING: Ranges = &[(0x09, 0x0A), (0x0D, 0x0D)];

/// Dropped around a text: the spaces and line ends a text may start or end with.
const AROUND: Ranges = &[
    (0x09, 0x0A),
    (0x0D, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
];

/// Shows nothing by itself (beyond [`AROUND`]): a text of these alone is empty to a reader.
const INVISIBLE: Ranges = &[
    (0xAD, 0xAD),
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200D),
    (0x2060, 0x2064),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0x1D159, 0x1D159),
    (0x1D173, 0x1D17A),
    (0xE0100, 0xE01EF),
];

fn within(ranges: Ranges, c: char) -> bool {
    let c = u32::from(c);
    ranges.iter().any(|(low, high)| (*low..=*high).contains(&c))
}

fn forbidden(lines: Lines, c: char) -> bool {
    within(FORBIDDEN, c) || (lines == Lines::One && within(LINE_BREAKING, c))
}

fn visible(c: char) -> bool {
    !within(AROUND, c) && !within(INVISIBLE, c)
}

/// Why a text was refused, for the caller to word in its own problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing a reader would see.
    Empty,
    /// Longer than allowed, in characters, as sent.
    TooLong { most: usize, length: usize },
    /// It holds this character, which no text may hold.
    Forbidden(char),
}

impl Refusal {
    /// The refusal's sentence, naming what the text is (`a message`, `a token's name`).
    pub fn detail(self, what: &str) -> String {
        match self {
            Refusal::Empty => {
                format!("{what} needs something visible, not only spaces or invisible characters")
            }
            Refusal::TooLong { most, length } => {
                format!("{what} has at most {most} characters, not {length}")
            }
            Refusal::Forbidden(c) => format!(
                "{what} may not hold U+{:04X}: control characters{}, direction controls, line \
                 or paragraph separators and tag characters are refused",
                u32::from(c),
                if c == '\n' || c == '\t' || c == '\r' {
                    " (here line ends and tabs too)"
                } else {
                    ""
                }
            ),
        }
    }

    /// The problem `code` refuses `text` as.
    pub fn problem(self, code: &'static str, what: &str) -> ApiError {
        ApiError::unprocessable(code, self.detail(what))
    }
}

/// `text` as stored: spaces and line ends around it dropped, line ends written `\n`; or why
/// it is refused. At most `most` characters as sent.
pub fn checked(text: &str, lines: Lines, most: usize) -> Result<String, Refusal> {
    let length = text.chars().count();
    if length > most {
        return Err(Refusal::TooLong { most, length });
    }
    let kept = text.trim_matches(|c| within(AROUND, c));
    if let Some(c) = kept.chars().find(|c| forbidden(lines, *c)) {
        return Err(Refusal::Forbidden(c));
    }
    if !kept.chars().any(visible) {
        return Err(Refusal::Empty);
    }
    Ok(kept.replace("\r\n", "\n").replace('\r', "\n"))
}

/// The JSON Schema `pattern` that matches exactly the texts [`checked`] takes: no forbidden
/// character anywhere, something visible, spaces and line ends allowed around.
///
/// It is written to read alike in ECMA-262 (with the `u` flag), Python's `re` and Rust's
/// `regex`, and to survive the client generators: character classes list what they take
/// (the complement of what is refused), so that no class names a line terminator (U+2028
/// and U+2029 among them), which a generator writing the pattern into a JavaScript regular
/// expression literal would end the literal with; code points up to U+00FF are written
/// `\xHH`, the others as themselves (`\uHHHH` is turned back into the character by
/// TypeScript's printer, and `\u{...}` is no escape to Python). The `(?:\\p{0})?` after the
/// end matches nothing anywhere; it makes a generator that takes `\p{` for the sign of a
/// Unicode pattern (@hey-api/openapi-ts) give the expression the `u` flag, without which
/// JavaScript reads code points beyond U+FFFF as two halves.
pub fn pattern(lines: Lines) -> String {
    let mut forbidden: Vec<(u32, u32)> = FORBIDDEN.to_vec();
    if lines == Lines::One {
        forbidden.extend_from_slice(LINE_BREAKING);
    }
    let not_visible: Vec<(u32, u32)> = forbidden
        .iter()
        .chain(AROUND)
        .chain(INVISIBLE)
        .copied()
        .collect();
    let around = class(AROUND);
    let allowed = class(&complement(&forbidden));
    let shown = class(&complement(&not_visible));
    format!("^{around}*{allowed}*{shown}{allowed}*{around}*$(?:\\\\p{{0}})?")
}

/// The code points (surrogates aside) that are in none of `ranges`.
fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut taken: Vec<(u32, u32)> = ranges.to_vec();
    taken.push((0xD800, 0xDFFF));
    taken.sort_unstable();
    let mut left = Vec::new();
    let mut next = 0;
    for (low, high) in taken {
        if low > next {
            left.push((next, low - 1));
        }
        next = next.max(high + 1);
    }
    if next <= 0x10FFFF {
        left.push((next, 0x10FFFF));
    }
    left
}

/// A character class of `ranges`.
fn class(ranges: &[(u32, u32)]) -> String {
    let mut class = String::from("[");
    for (low, high) in ranges {
        class.push_str(&member(*low));
        if high != low {
            class.push('-');
            class.push_str(&member(*high));
        }
    }
    class.push(']');
    class
}

fn member(code_point: u32) -> String {
    match char::from_u32(code_point) {
        Some(c) if code_point > 0xFF => c.to_string(),
        _ => format!("\\x{code_point:02X}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_controls_separators_tags_and_controls_are_refused() {
        for text in [
            "abc\u{202E}txt.exe",
            "a\u{2066}b",
            "\u{200F}x",
            "line\u{2028}break",
            "para\u{2029}graph",
            "tag\u{E0041}",
            "bell\u{7}",
            "nel\u{85}",
        ] {
            assert!(
                matches!(checked(text, Lines::Many, 100), Err(Refusal::Forbidden(_))),
                "{text:?}"
            );
        }
        assert!(checked("two\nlines", Lines::One, 100).is_err());
        assert!(checked("a\tb", Lines::One, 100).is_err());
    }

    #[test]
    fn a_text_must_show_something() {
        for text in [
            "",
            "   ",
            "\u{200B}\u{200B}",
            "\u{3164}",
            "\u{FEFF} \u{2060}",
            "\u{E0100}",
            "\n\t\n",
        ] {
            assert_eq!(
                checked(text, Lines::Many, 100),
                Err(Refusal::Empty),
                "{text:?}"
            );
        }
        // Joiners between visible characters stay: they make this family one emoji.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
        assert_eq!(checked(family, Lines::One, 100).as_deref(), Ok(family));
    }

    #[test]
    fn texts_are_trimmed_and_line_ends_written_alike() {
        assert_eq!(
            checked("  hi\r\nthere\rnow \t\n", Lines::Many, 100).as_deref(),
            Ok("hi\nthere\nnow")
        );
        assert_eq!(
            checked("\n name \n", Lines::One, 100).as_deref(),
            Ok("name")
        );
        assert_eq!(
            checked(&"é".repeat(101), Lines::Many, 100),
            Err(Refusal::TooLong {
                most: 100,
                length: 101
            })
        );
    }

    /// The pattern, read by a JSON Schema validator, takes exactly what the check takes, on
    /// texts built from every character at the edges of each table.
    #[test]
    fn the_pattern_agrees_with_the_check() {
        let mut edges: Vec<char> = vec!['a', ' ', 'é', '\u{1F600}'];
        for (low, high) in FORBIDDEN
            .iter()
            .chain(LINE_BREAKING)
            .chain(AROUND)
            .chain(INVISIBLE)
        {
            for code_point in [low.saturating_sub(1), *low, *high, high + 1] {
                edges.extend(char::from_u32(code_point));
            }
        }
        for lines in [Lines::One, Lines::Many] {
            let schema = serde_json::json!({"type": "string", "pattern": pattern(lines)});
            let validator = jsonschema::validator_for(&schema).unwrap();
            let mut texts: Vec<String> = Vec::new();
            for first in &edges {
                texts.push(first.to_string());
                for second in &edges {
                    texts.push(format!("{first}{second}"));
                    texts.push(format!(" {first}x{second}\n"));
                }
            }
            for text in texts {
                assert_eq!(
                    validator.is_valid(&serde_json::json!(text)),
                    checked(&text, lines, 1_000).is_ok(),
                    "{lines:?} {text:?}"
                );
            }
        }
    }
}
