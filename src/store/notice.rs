//! A notification as it is written, and the topics by which mail and push deliver it: what
//! the notifications, the mail outbox and the push outbox all speak of.

use diesel::prelude::*;

use super::schema::notifications;

/// A notification to write: for an account, about a game's event at `seq`.
#[derive(Debug, Clone, PartialEq, Insertable)]
#[diesel(table_name = notifications)]
pub struct NewNotification {
    pub account_id: String,
    pub game_id: String,
    pub kind: String,
    pub seq: i64,
    pub payload: String,
    pub created_at: i64,
}

/// What an account may have mailed, each a bit of `topics`; on the wire by its snake-case
/// name (`EmailTopic` in the spec).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = EmailTopic, description = "What may be mailed.")]
pub enum MailTopic {
    /// `your_turn` notifications.
    YourTurn,
    /// `reminder` notifications before your deadlines.
    Reminder,
    /// `game_finished` and `game_abandoned`.
    GameOver,
    /// `invitation`: you are invited to a private game.
    Invitation,
    /// `mention`: a chat message names you.
    Mention,
}

impl MailTopic {
    pub const ALL: [MailTopic; 5] = [
        MailTopic::YourTurn,
        MailTopic::Reminder,
        MailTopic::GameOver,
        MailTopic::Invitation,
        MailTopic::Mention,
    ];

    /// The bit this topic has in `topics` (stored: never renumber).
    pub fn bit(self) -> i32 {
        match self {
            MailTopic::YourTurn => 1,
            MailTopic::Reminder => 2,
            MailTopic::GameOver => 4,
            MailTopic::Invitation => 8,
            MailTopic::Mention => 16,
        }
    }

    /// The topic a notification of `kind` belongs to, if it is ever mailed.
    pub fn of_notification(kind: &str) -> Option<MailTopic> {
        Some(match kind {
            "your_turn" => MailTopic::YourTurn,
            "reminder" => MailTopic::Reminder,
            "game_finished" | "game_abandoned" => MailTopic::GameOver,
            "invitation" => MailTopic::Invitation,
            "mention" => MailTopic::Mention,
            _ => return None,
        })
    }

    pub fn bits(topics: &[MailTopic]) -> i32 {
        topics.iter().fold(0, |bits, topic| bits | topic.bit())
    }

    pub fn from_bits(bits: i32) -> Vec<MailTopic> {
        MailTopic::ALL
            .into_iter()
            .filter(|topic| bits & topic.bit() != 0)
            .collect()
    }
}
