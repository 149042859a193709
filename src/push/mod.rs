//! Waking whoever waits on this instance: streams and long polls following a game or an
//! account, the bot workers and the webhook deliveries. A committed write's changes reach
//! the [`Hub`] of the instance that made it at once (`Db::on_commit`), and every other
//! instance's through PostgreSQL's `NOTIFY`, which one connection per instance sends and
//! receives ([`channel`]). A slow re-read of everything followed stays as a safety net for
//! a notification that was lost. So a waiting follower costs the database nothing, however
//! many wait.

pub mod channel;
pub mod limits;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use tokio::sync::{watch, Notify};

use crate::store::Change;

/// What a follower of an account waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AccountState {
    /// The newest notification id known here (0: none seen yet).
    pub last_notification: i64,
    /// The account's token generation, once a revocation was seen: tokens of older
    /// generations no longer count.
    pub generation: Option<i32>,
    /// How many of the account's personal tokens were revoked one by one since this
    /// instance began following the account (wrapping): a follower that holds a personal
    /// token asks the database whether its own is still there when this moves.
    pub personal_tokens_revoked: u32,
}

/// What this instance's followers wait on, by id.
#[derive(Debug, PartialEq, Eq)]
pub struct Followed {
    pub games: Vec<String>,
    pub accounts: Vec<String>,
    /// Games whose chat someone follows.
    pub chats: Vec<String>,
}

/// Called with the id of an account that revoked its tokens, or of a revoked personal token.
pub type RevocationListener = Box<dyn Fn(&str) + Send + Sync>;

/// This instance's waiters, by what they wait for.
#[derive(Default)]
pub struct Hub {
    games: Mutex<HashMap<String, watch::Sender<i64>>>,
    /// The newest chat message id known here, by game.
    chats: Mutex<HashMap<String, watch::Sender<i64>>>,
    accounts: Mutex<HashMap<String, watch::Sender<AccountState>>>,
    /// A bot must move somewhere: the bot workers look for a job.
    pub bot_due: Notify,
    /// A webhook delivery is due: the delivery pool looks for one.
    pub delivery_due: Notify,
    /// A mail is due: the mail workers look for one.
    pub mail_due: Notify,
    /// A Web Push message is due: the push senders look for one.
    pub push_due: Notify,
    /// Told of every account that revoked its tokens, on any instance.
    on_revoked: OnceLock<RevocationListener>,
    /// Told of every personal token revoked on its own, on any instance.
    on_personal_token_revoked: OnceLock<RevocationListener>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Hub {
    /// Wakes whoever waits for one of `changes`.
    pub fn publish(&self, changes: &[Change]) {
        for change in changes {
            match change {
                Change::Appended { game_id, seq } => self.game_reached(game_id, *seq),
                Change::Chatted { game_id, id } => {
                    if let Some(sender) = lock(&self.chats).get(game_id) {
                        sender.send_if_modified(|known| {
                            let newer = *id > *known;
                            if newer {
                                *known = *id;
                            }
                            newer
                        });
                    }
                }
                Change::Notified { account_id, id } => self.update_account(account_id, |state| {
                    let newer = *id > state.last_notification;
                    if newer {
                        state.last_notification = *id;
                    }
                    newer
                }),
                Change::Revoked {
                    account_id,
                    generation,
                } => {
                    self.account_generation_is(account_id, *generation);
                    if let Some(revoked) = self.on_revoked.get() {
                        revoked(account_id);
                    }
                }
                Change::PersonalTokenRevoked {
                    account_id,
                    token_id,
                } => {
                    self.update_account(account_id, |state| {
                        state.personal_tokens_revoked =
                            state.personal_tokens_revoked.wrapping_add(1);
                        true
                    });
                    if let Some(revoked) = self.on_personal_token_revoked.get() {
                        revoked(token_id);
                    }
                }
                Change::BotDue => self.bot_due.notify_waiters(),
                Change::DeliveryDue => self.delivery_due.notify_waiters(),
                Change::MailDue => self.mail_due.notify_waiters(),
                Change::PushDue => self.push_due.notify_waiters(),
            }
        }
    }

    /// Calls `revoked` with every account that revokes its tokens from now on (once per
    /// hub): the instance forgets what it knew of the account's tokens.
    pub fn on_revoked(&self, revoked: RevocationListener) {
        let _ = self.on_revoked.set(revoked);
    }

    /// Calls `revoked` with every personal token revoked on its own from now on (once per
    /// hub): the instance forgets its check of that token.
    pub fn on_personal_token_revoked(&self, revoked: RevocationListener) {
        let _ = self.on_personal_token_revoked.set(revoked);
    }

    /// Game `game_id`'s log reached `seq`.
    pub fn game_reached(&self, game_id: &str, seq: i64) {
        if let Some(sender) = lock(&self.games).get(game_id) {
            sender.send_if_modified(|known| {
                let newer = seq > *known;
                if newer {
                    *known = seq;
                }
                newer
            });
        }
    }

    /// `account_id`'s tokens are at `generation` now (a revocation, or what a re-read found).
    pub fn account_generation_is(&self, account_id: &str, generation: i32) {
        self.update_account(account_id, |state| {
            let newer = state.generation.is_none_or(|known| generation > known);
            if newer {
                state.generation = Some(generation);
            }
            newer
        });
    }

    fn update_account(&self, account_id: &str, change: impl FnOnce(&mut AccountState) -> bool) {
        if let Some(sender) = lock(&self.accounts).get(account_id) {
            sender.send_if_modified(change);
        }
    }

    /// A receiver that changes whenever game `game_id` is known to move on. Subscribe
    /// before reading the game, so that no append between the read and the wait is missed.
    pub fn follow_game(&self, game_id: &str) -> watch::Receiver<i64> {
        lock(&self.games)
            .entry(game_id.to_owned())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// A receiver that changes whenever game `game_id`'s chat is known to have a newer
    /// message. Subscribe before reading the chat.
    pub fn follow_chat(&self, game_id: &str) -> watch::Receiver<i64> {
        lock(&self.chats)
            .entry(game_id.to_owned())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// A receiver that changes when `account_id` gets a notification or revokes its tokens
    /// (all of them, or one personal token).
    pub fn follow_account(&self, account_id: &str) -> watch::Receiver<AccountState> {
        lock(&self.accounts)
            .entry(account_id.to_owned())
            .or_insert_with(|| watch::channel(AccountState::default()).0)
            .subscribe()
    }

    /// The games, accounts and chats someone follows now; forgets those nobody follows any
    /// more.
    pub fn followed(&self) -> Followed {
        fn still_followed<T>(map: &Mutex<HashMap<String, watch::Sender<T>>>) -> Vec<String> {
            let mut map = lock(map);
            map.retain(|_, sender| sender.receiver_count() > 0);
            map.keys().cloned().collect()
        }
        Followed {
            games: still_followed(&self.games),
            accounts: still_followed(&self.accounts),
            chats: still_followed(&self.chats),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn followers_see_newer_seqs_only() {
        let hub = Hub::default();
        let mut follower = hub.follow_game("g1");
        hub.publish(&[Change::Appended {
            game_id: "g1".into(),
            seq: 5,
        }]);
        assert!(follower.has_changed().unwrap());
        assert_eq!(*follower.borrow_and_update(), 5);
        hub.game_reached("g1", 4);
        assert!(!follower.has_changed().unwrap());
        hub.game_reached("g2", 9);
        assert!(!follower.has_changed().unwrap());
    }

    #[test]
    fn chat_followers_see_newer_messages_only() {
        let hub = Hub::default();
        let mut follower = hub.follow_chat("g1");
        let chatted = |id| Change::Chatted {
            game_id: "g1".into(),
            id,
        };
        hub.publish(&[chatted(3)]);
        assert_eq!(*follower.borrow_and_update(), 3);
        hub.publish(&[chatted(2)]);
        assert!(!follower.has_changed().unwrap());
    }

    #[test]
    fn account_followers_see_notifications_and_revocations() {
        let hub = Hub::default();
        let mut follower = hub.follow_account("a1");
        hub.publish(&[
            Change::Notified {
                account_id: "a1".into(),
                id: 7,
            },
            Change::Revoked {
                account_id: "a1".into(),
                generation: 2,
            },
        ]);
        assert_eq!(
            *follower.borrow_and_update(),
            AccountState {
                last_notification: 7,
                generation: Some(2),
                personal_tokens_revoked: 0,
            }
        );
        hub.publish(&[Change::Revoked {
            account_id: "a1".into(),
            generation: 1,
        }]);
        assert!(!follower.has_changed().unwrap());
    }

    #[test]
    fn a_revoked_personal_token_wakes_its_account_followers_and_the_listener() {
        let hub = Hub::default();
        let heard = std::sync::Arc::new(Mutex::new(Vec::new()));
        {
            let heard = heard.clone();
            hub.on_personal_token_revoked(Box::new(move |token| {
                heard.lock().unwrap().push(token.to_owned())
            }));
        }
        let mut follower = hub.follow_account("a1");
        let revoke = |token: &str| Change::PersonalTokenRevoked {
            account_id: "a1".into(),
            token_id: token.into(),
        };
        hub.publish(&[revoke("t1"), revoke("t2")]);
        assert_eq!(follower.borrow_and_update().personal_tokens_revoked, 2);
        assert_eq!(*heard.lock().unwrap(), ["t1", "t2"]);
    }

    #[test]
    fn nobody_followed_is_forgotten() {
        let hub = Hub::default();
        let kept = hub.follow_game("kept");
        let chat = hub.follow_chat("talked");
        drop(hub.follow_game("dropped"));
        drop(hub.follow_account("gone"));
        drop(hub.follow_chat("quiet"));
        assert_eq!(
            hub.followed(),
            Followed {
                games: vec!["kept".to_owned()],
                accounts: Vec::new(),
                chats: vec!["talked".to_owned()],
            }
        );
        drop((kept, chat));
    }
}
