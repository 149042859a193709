//! Every operation has a short `summary` (one line, for an index or a method's name in a
//! generated client) and a `description` (the whole text, for its documentation), which
//! ends by saying who may call it: the scope a personal token needs, which generators do
//! not surface from the security requirement of an http bearer scheme.

use serde_json::{json, Value};

use super::for_each_operation;

/// The longest summary, in characters.
pub(super) const LONGEST_SUMMARY: usize = 100;

/// Splits each operation's text into summary and description and says who may call it.
pub(super) fn describe_operations(doc: &mut Value) {
    for_each_operation(doc, |_, _, operation| {
        let Some(operation) = operation.as_object_mut() else {
            return;
        };
        let summary = operation
            .get("summary")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned();
        let description = operation
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned();
        // utoipa puts a doc comment's first paragraph in the summary and the rest in the
        // description: the whole text is both.
        let text = [summary.as_str(), description.as_str()]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");
        let scope = operation
            .get("security")
            .and_then(|security| security.pointer("/0/bearer/0"))
            .and_then(Value::as_str);
        let who = match (operation.contains_key("security"), scope) {
            (false, _) => "No sign-in needed.".to_owned(),
            (true, Some(scope)) => format!(
                "Needs a bearer token: a sign-in token, or a personal token with the `{scope}` scope."
            ),
            (true, None) => "Needs a sign-in token (personal tokens may not call it).".to_owned(),
        };
        operation.insert("summary".into(), json!(short_summary(&text)));
        operation.insert("description".into(), json!(format!("{text}\n\n{who}")));
    });
}

/// The first sentence of `text` (outside backticks and brackets) on one line, without its
/// full stop; cut at its first colon, semicolon, bracket or comma when it is longer than
/// [`LONGEST_SUMMARY`], else after its last whole word that fits.
pub(super) fn short_summary(text: &str) -> String {
    // Doc comments wrap their lines: a summary is one line.
    let sentence = first_sentence(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let sentence = sentence.trim_end_matches('.');
    if sentence.chars().count() <= LONGEST_SUMMARY {
        return sentence.to_owned();
    }
    let cut = [": ", "; ", " (", ", "]
        .iter()
        .filter_map(|separator| outside_quotes(sentence, separator))
        .find(|index| sentence[..*index].chars().count() <= LONGEST_SUMMARY);
    match cut {
        Some(index) => sentence[..index].to_owned(),
        None => {
            let words: Vec<&str> = sentence.split(' ').collect();
            let mut summary = String::new();
            for word in words {
                if summary.chars().count() + word.chars().count() + 2 > LONGEST_SUMMARY {
                    break;
                }
                if !summary.is_empty() {
                    summary.push(' ');
                }
                summary.push_str(word);
            }
            summary.push('…');
            summary
        }
    }
}

fn first_sentence(text: &str) -> &str {
    let line = text.split("\n\n").next().unwrap_or_default();
    match outside_quotes(line, ". ") {
        Some(index) => &line[..=index],
        None => line,
    }
}

/// The byte index of the first `separator` in `text` outside backticks and brackets.
fn outside_quotes(text: &str, separator: &str) -> Option<usize> {
    let (mut code, mut depth) = (false, 0_i32);
    for (index, character) in text.char_indices() {
        match character {
            '`' => code = !code,
            '(' | '[' | '{' if !code => depth += 1,
            ')' | ']' | '}' if !code => depth -= 1,
            _ => {}
        }
        let abbreviation = text[..index].ends_with("e.g") || text[..index].ends_with("i.e");
        if !code && depth == 0 && !abbreviation && text[index..].starts_with(separator) {
            return Some(index);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_the_first_sentence_outside_code() {
        assert_eq!(
            short_summary("Take a seat. Taking the last open seat starts the game."),
            "Take a seat"
        );
        assert_eq!(
            short_summary("Read `a. b` first. Then more."),
            "Read `a. b` first"
        );
        assert_eq!(short_summary("The process is up."), "The process is up");
        assert_eq!(
            short_summary("Leave an open game you\nsat down at. More."),
            "Leave an open game you sat down at"
        );
    }

    #[test]
    fn a_long_first_sentence_is_cut_at_a_colon() {
        let text = "Your invitations waiting for an answer, newest first: open private games you \
                    are invited to, have not declined and do not sit in yet, with their creators.";
        assert_eq!(
            short_summary(text),
            "Your invitations waiting for an answer, newest first"
        );
        let long = "word ".repeat(60);
        let summary = short_summary(&long);
        assert!(summary.chars().count() <= LONGEST_SUMMARY, "{summary}");
        assert!(summary.ends_with('…'));
    }
}
