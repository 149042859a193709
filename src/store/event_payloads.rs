//! An event's payload as the `events` table stores it: compact, without its leading
//! `"type"` member, which the row's `event_type` column already holds; or whole.
//!
//! Every event is a JSON object whose first member names its type (the engines' and the
//! server's events are enums tagged `type`), so the tag was a third of an average payload
//! written twice in each row. It is taken off on the way in and put back on the way out,
//! byte for byte as it was, so nothing outside the store sees the difference: the events
//! the engines fold, the API's events and exports are the same text as before.
//!
//! Both forms are read: a stored payload that begins with `{"type":` is whole and read as
//! it is, and a compact one never does, since its type is no longer in it. Which form new
//! rows take is the database's setting `event_payloads` (table `store_settings`), so that
//! instances of a version that reads only whole payloads can share a database during an
//! upgrade: a database that held events when it was migrated keeps writing them whole
//! until `turnpost compact-event-payloads` switches it, once every instance reads both.

use std::borrow::Cow;

use diesel::prelude::*;

use super::schema::store_settings;
use super::{DbConnection, StoreError};

const TYPE_MEMBER: &str = r#"{"type":"#;
const SETTING: &str = "event_payloads";

/// The form in which new events' payloads are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadForm {
    /// Without the leading `"type"` member.
    Compact,
    /// As the events were written, type and all.
    Whole,
}

/// The form this database stores new payloads in.
pub(super) fn form(conn: &mut DbConnection) -> Result<PayloadForm, StoreError> {
    let value: Option<String> = store_settings::table
        .find(SETTING)
        .select(store_settings::value)
        .first(conn)
        .optional()?;
    match value.as_deref() {
        Some("compact") => Ok(PayloadForm::Compact),
        Some("whole") | None => Ok(PayloadForm::Whole),
        Some(other) => Err(StoreError::Corrupt(format!(
            "store_settings.{SETTING} is {other:?}, neither \"compact\" nor \"whole\""
        ))),
    }
}

/// Stores new payloads compact from now on.
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
    form: PayloadForm,
    event_type: &str,
    payload: &'a str,
) -> Result<Cow<'a, str>, StoreError> {
    let Some(after_member) = payload.strip_prefix(TYPE_MEMBER) else {
        return Err(StoreError::Corrupt(format!(
            "an event of type {event_type:?} whose payload does not begin with its type"
        )));
    };
    if form == PayloadForm::Whole || !plain(event_type) {
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
        stored(PayloadForm::Compact, event_type, payload).unwrap()
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
        assert_eq!(
            stored(PayloadForm::Whole, "moved", payload).unwrap(),
            payload
        );
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
    fn a_payload_that_does_not_begin_with_a_type_is_refused_in_either_form() {
        for form in [PayloadForm::Compact, PayloadForm::Whole] {
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
