//! What a game's log stores once rather than twice: an event's payload without its leading
//! `"type"` member, which the row's `event_type` column holds; an action's request
//! without its `"action"` member when that is the text of the row's `action` column.
//!
//! Every event is a JSON object whose first member names its type (the engines' and the
//! server's events are enums tagged `type`), so the tag was a third of an average payload
//! written twice in each row; and an action's request (kept to answer a retry with the same
//! idempotency key) ends with the action, which its row's `action` column holds as the
//! engine read it, almost always the same text. Both are taken off on the way in and put
//! back on the way out, byte for byte as they were, so nothing outside the store sees the
//! difference: the events the engines fold, the API's events, exports and retries' answers
//! are the same text as before.
//!
//! Both forms are read: a stored payload that begins with `{"type":` is whole and read as
//! it is, and a compact one never does, since its type is no longer in it; likewise a
//! request with an `"action":` member is whole, and a compact one has none. Which form new
//! rows take is the database's setting `log_form` (table `store_settings`), so that
//! instances of a version that reads only whole rows can share a database during an
//! upgrade: a database that held events when it was migrated keeps writing them whole
//! until `turnpost compact-log` switches it, once every instance reads both.

use std::borrow::Cow;

use diesel::prelude::*;

use super::schema::store_settings;
use super::{DbConnection, StoreError};

const TYPE_MEMBER: &str = r#"{"type":"#;
const SETTING: &str = "log_form";
const ACTION_MEMBER: &str = r#""action":"#;

/// The form in which new events' payloads and actions' requests are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogForm {
    /// Payloads without their leading `"type"` member, requests without the action their
    /// row holds.
    Compact,
    /// As they were written.
    Whole,
}

/// The form this database stores new rows in.
pub(super) fn form(conn: &mut DbConnection) -> Result<LogForm, StoreError> {
    let value: Option<String> = store_settings::table
        .find(SETTING)
        .select(store_settings::value)
        .first(conn)
        .optional()?;
    match value.as_deref() {
        Some("compact") => Ok(LogForm::Compact),
        Some("whole") | None => Ok(LogForm::Whole),
        Some(other) => Err(StoreError::Corrupt(format!(
            "store_settings.{SETTING} is {other:?}, neither \"compact\" nor \"whole\""
        ))),
    }
}

/// Stores new rows compact from now on.
pub(super) fn make_compact(conn: &mut DbConnection) -> Result<(), StoreError> {
    let updated = diesel::update(store_settings::table.find(SETTING))
        .set(store_settings::value.eq("compact"))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(store_settings::table)
            .values((
                store_settings::name.eq(SETTING),
                store_settings::value.eq("compact"),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// `payload` as stored for an event of `event_type` in `form`. Only a payload that begins
/// with its `"type"` member can be told apart from a compact one when read, so any other is
/// refused rather than stored; one whose type is not plain snake case is stored whole.
pub(super) fn stored<'a>(
    form: LogForm,
    event_type: &str,
    payload: &'a str,
) -> Result<Cow<'a, str>, StoreError> {
    let Some(after_member) = payload.strip_prefix(TYPE_MEMBER) else {
        return Err(StoreError::Corrupt(format!(
            "an event of type {event_type:?} whose payload does not begin with its type"
        )));
    };
    if form == LogForm::Whole || !plain(event_type) {
        return Ok(Cow::Borrowed(payload));
    }
    let rest = after_member
        .strip_prefix('"')
        .and_then(|rest| rest.strip_prefix(event_type))
        .and_then(|rest| rest.strip_prefix('"'));
    match rest {
        Some("}") => Ok(Cow::Borrowed("{}")),
        Some(members) if members.starts_with(',') => {
            let mut compact = String::with_capacity(members.len());
            compact.push('{');
            compact.push_str(&members[1..]);
            Ok(Cow::Owned(compact))
        }
        // Another type than the row's: stored whole, so it is read as it was.
        _ => Ok(Cow::Borrowed(payload)),
    }
}

/// The payload a row stored for an event of `event_type`, whole: a compact one with its
/// `"type"` member put back in front, a whole one as it is.
pub(super) fn restored(event_type: &str, stored: String) -> String {
    if stored.starts_with(TYPE_MEMBER) {
        return stored;
    }
    let Some(members) = stored.strip_prefix('{') else {
        // Not an object: left for the engine to refuse as corrupt.
        return stored;
    };
    let mut payload =
        String::with_capacity(stored.len() + TYPE_MEMBER.len() + event_type.len() + 3);
    payload.push_str(TYPE_MEMBER);
    payload.push('"');
    payload.push_str(event_type);
    payload.push('"');
    if !members.starts_with('}') {
        payload.push(',');
    }
    payload.push_str(members);
    payload
}

/// `request` as stored beside `action` (its row's `action` column) in `form`: compact, the
/// same object without its last member when that is `"action":` followed by exactly
/// `action`. A request without an `"action":` member could not be told apart from a compact
/// one when read, so it is refused rather than stored.
pub(super) fn stored_request<'a>(
    form: LogForm,
    request: &'a str,
    action: &str,
) -> Result<Cow<'a, str>, StoreError> {
    if !request.contains(ACTION_MEMBER) {
        return Err(StoreError::Corrupt(
            "an action's request without its action".into(),
        ));
    }
    if form == LogForm::Whole {
        return Ok(Cow::Borrowed(request));
    }
    let before = request
        .strip_suffix('}')
        .and_then(|rest| rest.strip_suffix(action))
        .and_then(|rest| rest.strip_suffix(ACTION_MEMBER));
    match before {
        // The only member: `{}` is what is left.
        Some("{") => Ok(Cow::Borrowed("{}")),
        Some(members) if members.ends_with(',') && !members.contains(ACTION_MEMBER) => {
            let mut compact = String::with_capacity(members.len());
            compact.push_str(&members[..members.len() - 1]);
            compact.push('}');
            Ok(Cow::Owned(compact))
        }
        // Another action than the row's, or not last: stored whole.
        _ => Ok(Cow::Borrowed(request)),
    }
}

/// The request a row stored beside `action`, whole: a compact one with its `"action"`
/// member put back at the end, a whole one as it is.
pub(super) fn restored_request(stored: String, action: &str) -> String {
    if stored.contains(ACTION_MEMBER) {
        return stored;
    }
    let Some(members) = stored.strip_suffix('}') else {
        // Not an object: left for the reader to refuse as corrupt.
        return stored;
    };
    let mut request = String::with_capacity(stored.len() + ACTION_MEMBER.len() + action.len() + 1);
    request.push_str(members);
    if members != "{" {
        request.push(',');
    }
    request.push_str(ACTION_MEMBER);
    request.push_str(action);
    request.push('}');
    request
}

/// A type written in JSON as it is, without escapes (every type the server has).
fn plain(event_type: &str) -> bool {
    !event_type.is_empty()
        && event_type
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compact<'a>(event_type: &str, payload: &'a str) -> Cow<'a, str> {
        stored(LogForm::Compact, event_type, payload).unwrap()
    }

    #[test]
    fn a_payload_is_stored_without_its_type_and_read_back_byte_for_byte() {
        for (event_type, payload) in [
            (
                "developer_moved",
                r#"{"type":"developer_moved","seat":0,"from":"F7","to":"J3","cost":0}"#,
            ),
            ("round_ended", r#"{"type":"round_ended"}"#),
            (
                "tile_drawn",
                r#"{"type":"tile_drawn","tile":{"type":"inner","id":3},"seat":1}"#,
            ),
            ("note", r#"{"type":"note","text":"{\"type\":\"x\"}"}"#),
        ] {
            let stored = compact(event_type, payload);
            assert!(!stored.starts_with(TYPE_MEMBER), "{stored}");
            let expected = match payload.replacen(&format!(r#""type":"{event_type}","#), "", 1) {
                same if same == payload => "{}".to_owned(),
                shorter => shorter,
            };
            assert_eq!(stored, expected);
            assert_eq!(restored(event_type, stored.into_owned()), payload);
        }
        assert_eq!(compact("round_ended", r#"{"type":"round_ended"}"#), "{}");
        assert_eq!(
            compact("moved", r#"{"type":"moved","to":"A1"}"#),
            r#"{"to":"A1"}"#
        );
    }

    #[test]
    fn whole_payloads_are_stored_and_read_as_they_are() {
        let payload = r#"{"type":"moved","to":"A1"}"#;
        assert_eq!(stored(LogForm::Whole, "moved", payload).unwrap(), payload);
        assert_eq!(restored("moved", payload.to_owned()), payload);
        // Whole where compact could not be told apart or put back exactly.
        for (event_type, payload) in [
            ("moved", r#"{"type":"moved_far","to":"A1"}"#),
            ("moved", r#"{"type":"jumped","to":"A1"}"#),
            ("moved", r#"{"type":"moved"  }"#),
            ("Moved", r#"{"type":"Moved","to":"A1"}"#),
            ("a\"b", r#"{"type":"a\"b","x":1}"#),
        ] {
            assert_eq!(compact(event_type, payload), payload);
            assert_eq!(restored(event_type, payload.to_owned()), payload);
        }
    }

    #[test]
    fn a_request_is_stored_without_its_action_and_read_back_byte_for_byte() {
        let action = r#"{"type":"move","from":"C1","to":"E2","piece":"leader","cost":7}"#;
        for (request, compact) in [
            (
                format!(r#"{{"expected_seq":166,"seat":null,"action":{action}}}"#),
                r#"{"expected_seq":166,"seat":null}"#,
            ),
            (
                format!(r#"{{"bot":"greedy","action":{action}}}"#),
                r#"{"bot":"greedy"}"#,
            ),
            (format!(r#"{{"action":{action}}}"#), "{}"),
            // Quotes inside a string are escaped: no `"action":` there.
            (
                format!(r#"{{"note":"\"action\":","action":{action}}}"#),
                r#"{"note":"\"action\":"}"#,
            ),
        ] {
            let stored = stored_request(LogForm::Compact, &request, action).unwrap();
            assert_eq!(stored, compact);
            assert_eq!(restored_request(stored.into_owned(), action), request);
        }
    }

    #[test]
    fn a_request_whose_action_differs_from_its_rows_is_stored_whole() {
        let action = r#"{"type":"move","to":"E2","cost":7}"#;
        for request in [
            // As the client sent it; the row holds the action as the engine read it.
            r#"{"expected_seq":1,"seat":null,"action":{"type":"move","to":"E2"}}"#,
            r#"{"action":{"type":"move","to":"E2","cost":7},"expected_seq":1}"#,
            r#"{"x":{"action":1},"action":{"type":"move","to":"E2","cost":7}}"#,
        ] {
            for form in [LogForm::Compact, LogForm::Whole] {
                assert_eq!(stored_request(form, request, action).unwrap(), request);
            }
            assert_eq!(restored_request(request.to_owned(), action), request);
        }
        for request in [r#"{"expected_seq":1}"#, "{}", ""] {
            assert!(matches!(
                stored_request(LogForm::Whole, request, action),
                Err(StoreError::Corrupt(_))
            ));
        }
    }

    #[test]
    fn a_payload_that_does_not_begin_with_a_type_is_refused_in_either_form() {
        for form in [LogForm::Compact, LogForm::Whole] {
            for payload in [
                r#"{"to":"A1","type":"moved"}"#,
                r#"{"to":"A1"}"#,
                "{}",
                "[]",
                "",
            ] {
                assert!(
                    matches!(stored(form, "moved", payload), Err(StoreError::Corrupt(_))),
                    "{payload}"
                );
            }
        }
    }
}
