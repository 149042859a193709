//! Notifications about one account's act or one deadline, written in the transaction that
//! causes them: the same shape as the notifications an append writes for its seats, with
//! what the notice is about beside it.

use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::engine::Seat;
use crate::store::notifications::{self, NewNotification};
use crate::store::{DbConnection, Game};

/// What a notification says beside its game.
#[derive(Default)]
pub(super) struct Notice<'a> {
    pub kind: &'a str,
    /// The notified account's seat, if it has one.
    pub seat: Option<Seat>,
    /// The account whose act it reports.
    pub by: Option<&'a AuthUser>,
    /// The game a new game plays again.
    pub rematch_of: Option<&'a str>,
    /// The chat message it is about.
    pub message_id: Option<i64>,
    /// The deadline a reminder is about.
    pub deadline: Option<i64>,
}

/// A notification about `game` to an account (and its webhooks' deliveries), written in
/// the caller's transaction.
pub(super) fn notify_account(
    conn: &mut DbConnection,
    account_id: &str,
    game: &Game,
    notice: &Notice<'_>,
    now: i64,
) -> Result<(), ApiError> {
    let mut payload = serde_json::json!({
        "type": notice.kind,
        "game_id": game.id,
        "game_kind": game.kind,
        "seq": game.current_seq,
        "to_act": game.to_act,
    });
    if let Some(seat) = notice.seat {
        payload["seat"] = seat.into();
    }
    if let Some(by) = notice.by {
        payload["by"] = by.name.as_str().into();
    }
    if let Some(rematch_of) = notice.rematch_of {
        payload["rematch_of"] = rematch_of.into();
    }
    if let Some(message_id) = notice.message_id {
        payload["message_id"] = message_id.into();
    }
    if let Some(deadline) = notice.deadline {
        payload["deadline"] = super::format_time(deadline).into();
    }
    let notification = NewNotification {
        account_id: account_id.to_owned(),
        game_id: game.id.clone(),
        kind: notice.kind.to_owned(),
        seq: game.current_seq,
        payload: payload.to_string(),
        created_at: now,
    };
    notifications::notify(conn, &notification, notifications::delivery_id)?;
    Ok(())
}
