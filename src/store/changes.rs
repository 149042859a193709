//! What a committed write tells the rest of the server: a game moved on, an account has a
//! new notification or revoked its tokens (all, or one personal token), background work
//! fell due. The store records
//! these while a write transaction runs, and [`super::Db::write`] hands them to its commit
//! listener once the transaction has committed (never for one rolled back). The listener
//! wakes this instance's waiters and sends the changes to the other instances as
//! PostgreSQL notifications, in the text form [`payloads`] writes and [`parse_payload`]
//! reads.

use std::cell::RefCell;

/// One thing a commit changed that someone may be waiting for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The game's log reached `seq`.
    Appended { game_id: String, seq: i64 },
    /// The game's chat has a message with this id.
    Chatted { game_id: String, id: i64 },
    /// The account has a notification with this id.
    Notified { account_id: String, id: i64 },
    /// The account's tokens older than `generation` are revoked.
    Revoked { account_id: String, generation: i32 },
    /// The account's personal token `token_id` is revoked.
    PersonalTokenRevoked {
        account_id: String,
        token_id: String,
    },
    /// A bot has to move now in some game.
    BotDue,
    /// A webhook delivery is due now.
    DeliveryDue,
    /// A mail is due now.
    MailDue,
    /// A Web Push message is due now.
    PushDue,
}

/// The channel every instance listens on.
pub const CHANNEL: &str = "turnpost";

/// PostgreSQL refuses a `NOTIFY` payload of 8,000 bytes or more.
const MOST_PAYLOAD_BYTES: usize = 7_900;

thread_local! {
    /// The changes of the write transaction running on this thread: a transaction runs on
    /// one thread from its begin to its commit.
    static PENDING: RefCell<Vec<Change>> = const { RefCell::new(Vec::new()) };
}

/// Notes `change` for the commit of the write transaction running on this thread.
pub(super) fn record(change: Change) {
    PENDING.with(|pending| {
        let mut pending = pending.borrow_mut();
        if !pending.contains(&change) {
            pending.push(change);
        }
    });
}

/// Takes the changes recorded so far on this thread (and forgets them).
pub(super) fn take() -> Vec<Change> {
    PENDING.with(|pending| std::mem::take(&mut *pending.borrow_mut()))
}

impl Change {
    /// One line of a `NOTIFY` payload.
    fn line(&self) -> String {
        match self {
            Change::Appended { game_id, seq } => format!("a {game_id} {seq}"),
            Change::Chatted { game_id, id } => format!("c {game_id} {id}"),
            Change::Notified { account_id, id } => format!("n {account_id} {id}"),
            Change::Revoked {
                account_id,
                generation,
            } => format!("r {account_id} {generation}"),
            Change::PersonalTokenRevoked {
                account_id,
                token_id,
            } => format!("p {account_id} {token_id}"),
            Change::BotDue => "b".to_owned(),
            Change::DeliveryDue => "d".to_owned(),
            Change::MailDue => "m".to_owned(),
            Change::PushDue => "w".to_owned(),
        }
    }

    fn parse_line(line: &str) -> Option<Change> {
        let mut words = line.split(' ');
        let change = match (words.next()?, words.next(), words.next()) {
            ("a", Some(game_id), Some(seq)) => Change::Appended {
                game_id: game_id.to_owned(),
                seq: seq.parse().ok()?,
            },
            ("c", Some(game_id), Some(id)) => Change::Chatted {
                game_id: game_id.to_owned(),
                id: id.parse().ok()?,
            },
            ("n", Some(account_id), Some(id)) => Change::Notified {
                account_id: account_id.to_owned(),
                id: id.parse().ok()?,
            },
            ("r", Some(account_id), Some(generation)) => Change::Revoked {
                account_id: account_id.to_owned(),
                generation: generation.parse().ok()?,
            },
            ("p", Some(account_id), Some(token_id)) => Change::PersonalTokenRevoked {
                account_id: account_id.to_owned(),
                token_id: token_id.to_owned(),
            },
            ("b", None, None) => Change::BotDue,
            ("d", None, None) => Change::DeliveryDue,
            ("m", None, None) => Change::MailDue,
            ("w", None, None) => Change::PushDue,
            _ => return None,
        };
        words.next().is_none().then_some(change)
    }
}

/// `changes` as `NOTIFY` payloads: one line per change, split where a payload would grow
/// too long. Game, account and token ids are letters and digits, so a line never holds a
/// newline.
pub fn payloads(changes: &[Change]) -> Vec<String> {
    let mut payloads: Vec<String> = Vec::new();
    for line in changes.iter().map(Change::line) {
        match payloads.last_mut() {
            Some(last) if last.len() + 1 + line.len() <= MOST_PAYLOAD_BYTES => {
                last.push('\n');
                last.push_str(&line);
            }
            _ => payloads.push(line),
        }
    }
    payloads
}

/// The changes one `NOTIFY` payload carries; lines this version does not know are skipped
/// (a newer instance may send more kinds).
pub fn parse_payload(payload: &str) -> Vec<Change> {
    payload.lines().filter_map(Change::parse_line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_carry_every_change_and_parse_back() {
        let changes = vec![
            Change::Appended {
                game_id: "g7k2".into(),
                seq: 41,
            },
            Change::Chatted {
                game_id: "g7k2".into(),
                id: 12,
            },
            Change::Notified {
                account_id: "a9x".into(),
                id: 1_000_000_007,
            },
            Change::Revoked {
                account_id: "a9x".into(),
                generation: 3,
            },
            Change::PersonalTokenRevoked {
                account_id: "a9x".into(),
                token_id: "k3v9x2m4q8r7t6y5".into(),
            },
            Change::BotDue,
            Change::DeliveryDue,
            Change::MailDue,
            Change::PushDue,
        ];
        let payloads = payloads(&changes);
        assert_eq!(payloads.len(), 1);
        assert_eq!(parse_payload(&payloads[0]), changes);
        assert_eq!(
            parse_payload("x y\na g 1 2\nn a\na g 5"),
            [Change::Appended {
                game_id: "g".into(),
                seq: 5
            }]
        );
    }

    #[test]
    fn long_payloads_are_split_below_postgres_limit() {
        let changes: Vec<Change> = (0..2_000)
            .map(|id| Change::Notified {
                account_id: format!("account{id:06}"),
                id,
            })
            .collect();
        let payloads = payloads(&changes);
        assert!(payloads.len() > 1);
        assert!(payloads.iter().all(|payload| payload.len() < 8_000));
        let parsed: Vec<Change> = payloads.iter().flat_map(|p| parse_payload(p)).collect();
        assert_eq!(parsed, changes);
    }

    #[test]
    fn a_change_is_recorded_once_per_transaction() {
        take();
        record(Change::BotDue);
        record(Change::BotDue);
        assert_eq!(take(), [Change::BotDue]);
        assert!(take().is_empty());
    }
}
