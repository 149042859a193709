//! Web Push (RFC 8030) as browsers implement it: the server identifies itself with a VAPID
//! key (RFC 8292) and encrypts each message to the subscribing browser (RFC 8291). Which
//! notifications become messages and when they are sent is the store's and the push
//! senders' business (`store::web_push`, `background::web_push`).

pub mod encryption;
pub mod vapid;

pub use encryption::Recipient;
pub use vapid::VapidKey;
