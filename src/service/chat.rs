//! A chat per game: its players write (spectators too where the game lets them), `@name`
//! mentions of a player notify them, and every other player hears of each message. An
//! author deletes their own message; a tombstone stays.

use super::free_text::{self, Lines};
use super::notices::{notify_account, Notice};
use super::LoadedGame;
use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::store::chat::{self, ChatMessage, NewChatMessage};
use crate::store::moderation;
use crate::store::Db;

/// The longest message, in characters.
pub const MOST_CHARACTERS: usize = 1_000;
/// The most messages one game's chat holds (tombstones count).
pub const MOST_MESSAGES_PER_GAME: i64 = 5_000;

/// A page of a game's chat.
pub struct ChatPage {
    pub spectators_may_write: bool,
    pub messages: Vec<ChatMessage>,
    /// The authors the reader blocks: their messages reach the reader as tombstones.
    pub blocked_authors: Vec<String>,
}

/// The game's messages after `after`, oldest first (at most `limit`); anyone who may read
/// the game may read its chat.
pub fn messages(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    after: i64,
    limit: i64,
) -> Result<ChatPage, ApiError> {
    db.read(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        let messages = chat::messages_after(conn, game_id, after, limit)?;
        let mut authors: Vec<String> = messages.iter().map(|m| m.account_id.clone()).collect();
        authors.sort();
        authors.dedup();
        let blocked_authors = moderation::blocked_among(conn, &user.account_id, &authors)?;
        Ok(ChatPage {
            spectators_may_write: game.game.settings.spectators_may_write,
            messages,
            blocked_authors,
        })
    })
}

/// The id of the game's newest message (0 when it has none), for `user`, who may read the
/// game's chat: a long poll learns nothing of a game its caller may not see, not even when
/// it is written in.
pub fn newest_message(db: &Db, game_id: &str, user: &AuthUser) -> Result<i64, ApiError> {
    db.read_without_transaction(|conn| {
        LoadedGame::load_for(conn, game_id, user)?;
        Ok(chat::last_message_ids(conn, &[game_id.to_owned()])?
            .first()
            .map_or(0, |(_, id)| *id))
    })
}

/// The text as stored (see [`free_text`]: trimmed, line ends as `\n`); refused when it shows
/// nothing, is too long, or holds a character no text may.
fn checked_text(text: &str) -> Result<String, ApiError> {
    free_text::checked(text, Lines::Many, MOST_CHARACTERS)
        .map_err(|refusal| refusal.problem("invalid_chat_message", "a message"))
}

/// The names `@mentioned` in `text`, as written (without the `@`), each once.
fn mentioned_names(text: &str) -> Vec<String> {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    let mut names: Vec<String> = Vec::new();
    for (at, _) in text.match_indices('@') {
        let name: String = text[at + 1..]
            .chars()
            .take_while(|c| is_name_char(*c))
            .take(32)
            .collect();
        // A sentence may end right after a name: "thanks @bob."
        let name = name.trim_end_matches('.').to_owned();
        if !name.is_empty() && !names.iter().any(|known| known.eq_ignore_ascii_case(&name)) {
            names.push(name);
        }
    }
    names
}

/// Writes the caller's message into the game's chat; players `@mentioned` get a `mention`
/// notification, every other player a `chat_message` one (never the author, never a bot).
pub fn post(
    db: &Db,
    game_id: &str,
    user: &AuthUser,
    text: &str,
    now: i64,
) -> Result<ChatMessage, ApiError> {
    let body = checked_text(text)?;
    db.write(|conn| {
        let game = LoadedGame::load_for(conn, game_id, user)?;
        super::moderation::check_not_muted(conn, &user.account_id, now)?;
        let seat = game.seat_of(user);
        if seat.is_none() && !game.game.settings.spectators_may_write {
            return Err(ApiError::forbidden(
                "not_a_player",
                "only the players write in this game's chat; spectators read it",
            ));
        }
        if chat::count_messages(conn, game_id)? >= MOST_MESSAGES_PER_GAME {
            return Err(ApiError::conflict(
                "chat_full",
                format!("this game's chat holds its {MOST_MESSAGES_PER_GAME} messages"),
            ));
        }
        let written = mentioned_names(&body);
        let players: Vec<(String, String, u8)> = game
            .seats
            .iter()
            .filter_map(|taken| {
                Some((
                    taken.account_id.clone()?,
                    taken.account_name.clone()?,
                    taken.seat,
                ))
            })
            .filter(|(account_id, _, _)| *account_id != user.account_id)
            .collect();
        let mentioned: Vec<&(String, String, u8)> = players
            .iter()
            .filter(|(_, name, _)| written.iter().any(|w| w.eq_ignore_ascii_case(name)))
            .collect();
        let mention_names: Vec<&str> = mentioned.iter().map(|(_, name, _)| name.as_str()).collect();
        let id = chat::insert_message(
            conn,
            &NewChatMessage {
                game_id: game_id.to_owned(),
                account_id: user.account_id.clone(),
                seat: seat.map(i32::from),
                body,
                mentions: serde_json::to_string(&mention_names).unwrap_or_default(),
                created_at: now,
            },
        )?;
        let accounts: Vec<String> = players.iter().map(|(id, _, _)| id.clone()).collect();
        // Those who block the author hear nothing of it, mentioned or not.
        let blocking = moderation::blocking(conn, &user.account_id, &accounts)?;
        for (account_id, name, player_seat) in &players {
            if blocking.contains(account_id) {
                continue;
            }
            let kind = if mention_names.contains(&name.as_str()) {
                "mention"
            } else {
                "chat_message"
            };
            let notice = Notice {
                kind,
                seat: Some(*player_seat),
                by: Some(user),
                message_id: Some(id),
                ..Notice::default()
            };
            notify_account(conn, account_id, &game.game, &notice, now)?;
        }
        chat::find_message(conn, game_id, id)?
            .ok_or_else(|| ApiError::Internal(format!("chat message {id} vanished")))
    })
}

/// The author deletes their message: its text goes, a tombstone stays in its place.
/// Deleting it again changes nothing.
pub fn delete(
    db: &Db,
    game_id: &str,
    message_id: i64,
    user: &AuthUser,
    now: i64,
) -> Result<ChatMessage, ApiError> {
    db.write(|conn| {
        LoadedGame::load_for(conn, game_id, user)?;
        let message = chat::find_message(conn, game_id, message_id)?.ok_or_else(|| {
            ApiError::not_found(
                "message_not_found",
                format!("game {game_id}'s chat has no message {message_id}"),
            )
        })?;
        if message.account_id != user.account_id {
            return Err(ApiError::forbidden(
                "not_the_author",
                "only a message's author may delete it",
            ));
        }
        chat::delete_message(conn, message_id, now)?;
        chat::find_message(conn, game_id, message_id)?
            .ok_or_else(|| ApiError::Internal(format!("chat message {message_id} vanished")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_names_after_an_at_sign() {
        assert_eq!(
            mentioned_names("good move @Bob, and thanks @carol-2. @bob again, me@"),
            ["Bob", "carol-2"]
        );
        assert!(mentioned_names("no one @ all").is_empty());
    }

    #[test]
    fn texts_are_trimmed_and_checked() {
        assert_eq!(checked_text("  hi\r\nthere \t").unwrap(), "hi\nthere");
        assert!(checked_text("   ").is_err());
        assert!(checked_text("bell\u{7}").is_err());
        assert!(checked_text("abc\u{202E}txt.exe").is_err());
        assert!(checked_text("\u{200B}").is_err());
        assert!(checked_text(&"é".repeat(MOST_CHARACTERS)).is_ok());
        assert!(checked_text(&"é".repeat(MOST_CHARACTERS + 1)).is_err());
    }
}
