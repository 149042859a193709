//! Games' chats: messages stored with their game, a tombstone for each deleted one.

use diesel::prelude::*;

use super::schema::{accounts, chat_messages};
use super::{on_backend, Change, DbConnection, StoreError};

/// A message as stored, with its author's name.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    pub id: i64,
    pub game_id: String,
    pub account_id: String,
    pub author: String,
    /// The author's seat when they wrote; `None` for a spectator.
    pub seat: Option<i32>,
    /// Empty once deleted.
    pub body: String,
    /// JSON array of the names notified as mentioned.
    pub mentions: String,
    pub created_at: i64,
    pub deleted_at: Option<i64>,
    /// A moderator hid it: its text is kept for the record and shown to no one.
    pub hidden_at: Option<i64>,
}

/// A message to store.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = chat_messages)]
pub struct NewChatMessage {
    pub game_id: String,
    pub account_id: String,
    pub seat: Option<i32>,
    pub body: String,
    pub mentions: String,
    pub created_at: i64,
}

type MessageColumns = (
    i64,
    String,
    String,
    String,
    Option<i32>,
    String,
    String,
    i64,
    Option<i64>,
    Option<i64>,
);

fn message_from(columns: MessageColumns) -> ChatMessage {
    let (id, game_id, account_id, author, seat, body, mentions, created_at, deleted_at, hidden_at) =
        columns;
    ChatMessage {
        id,
        game_id,
        account_id,
        author,
        seat,
        body,
        mentions,
        created_at,
        deleted_at,
        hidden_at,
    }
}

macro_rules! message_columns {
    () => {
        (
            chat_messages::id,
            chat_messages::game_id,
            chat_messages::account_id,
            accounts::name,
            chat_messages::seat,
            chat_messages::body,
            chat_messages::mentions,
            chat_messages::created_at,
            chat_messages::deleted_at,
            chat_messages::hidden_at,
        )
    };
}

/// Stores `message`; its id. The game's followers hear of it after the commit.
pub fn insert_message(
    conn: &mut DbConnection,
    message: &NewChatMessage,
) -> Result<i64, StoreError> {
    let insert = diesel::insert_into(chat_messages::table)
        .values(message)
        .returning(chat_messages::id);
    let id: i64 = on_backend!(&mut *conn, |c| insert.get_result(c))?;
    super::changes::record(Change::Chatted {
        game_id: message.game_id.clone(),
        id,
    });
    Ok(id)
}

/// The game's messages after `after`, oldest first, at most `limit`.
pub fn messages_after(
    conn: &mut DbConnection,
    game_id: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<ChatMessage>, StoreError> {
    let rows: Vec<MessageColumns> = chat_messages::table
        .inner_join(accounts::table)
        .filter(chat_messages::game_id.eq(game_id))
        .filter(chat_messages::id.gt(after))
        .order(chat_messages::id.asc())
        .limit(limit)
        .select(message_columns!())
        .load(conn)?;
    Ok(rows.into_iter().map(message_from).collect())
}

/// One message of the game.
pub fn find_message(
    conn: &mut DbConnection,
    game_id: &str,
    id: i64,
) -> Result<Option<ChatMessage>, StoreError> {
    let row: Option<MessageColumns> = chat_messages::table
        .inner_join(accounts::table)
        .filter(chat_messages::game_id.eq(game_id))
        .filter(chat_messages::id.eq(id))
        .select(message_columns!())
        .first(conn)
        .optional()?;
    Ok(row.map(message_from))
}

/// Empties a message's text and marks it deleted at `now` (a tombstone stays); false when
/// it was deleted already.
pub fn delete_message(conn: &mut DbConnection, id: i64, now: i64) -> Result<bool, StoreError> {
    let updated = diesel::update(
        chat_messages::table
            .find(id)
            .filter(chat_messages::deleted_at.is_null()),
    )
    .set((
        chat_messages::body.eq(""),
        chat_messages::deleted_at.eq(now),
    ))
    .execute(conn)?;
    Ok(updated == 1)
}

/// Hides a message at `now` (a moderator's doing); false when it was hidden already.
pub fn hide_message(conn: &mut DbConnection, id: i64, now: i64) -> Result<bool, StoreError> {
    let updated = diesel::update(
        chat_messages::table
            .find(id)
            .filter(chat_messages::hidden_at.is_null()),
    )
    .set(chat_messages::hidden_at.eq(now))
    .execute(conn)?;
    Ok(updated == 1)
}

/// How many messages the game's chat holds (tombstones included).
pub fn count_messages(conn: &mut DbConnection, game_id: &str) -> Result<i64, StoreError> {
    Ok(chat_messages::table
        .filter(chat_messages::game_id.eq(game_id))
        .count()
        .get_result(conn)?)
}

/// The id of the newest message of each of these games that has one.
pub fn last_message_ids(
    conn: &mut DbConnection,
    game_ids: &[String],
) -> Result<Vec<(String, i64)>, StoreError> {
    let rows: Vec<(String, Option<i64>)> = chat_messages::table
        .filter(chat_messages::game_id.eq_any(game_ids))
        .group_by(chat_messages::game_id)
        .select((chat_messages::game_id, diesel::dsl::max(chat_messages::id)))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|(game_id, id)| Some((game_id, id?)))
        .collect())
}
