//! turnpost: a play-by-web server for Euro board games.
//!
//! - [`games`]: the pure rule engines (the `turnpost-games` crate in `crates/games`).
//! - [`store`]: the event store and the rest of the persistence (the only SQL), with the
//!   jobs instances claim and the changes each commit announces.
//! - [`service`]: what the API does with a game: fold its log, decide, append.
//! - [`api`]: the HTTP handlers and the OpenAPI document.
//! - [`push`]: waking this instance's streams, long polls and workers when a commit on any
//!   instance concerns them (PostgreSQL `LISTEN`/`NOTIFY`), and the caps on followers.
//! - [`background`]: the work no request makes, claimed as jobs: timeouts, bot moves,
//!   open-game expiry, webhook deliveries, mail and Web Push messages.
//! - [`web_push`]: the Web Push protocol: the server's VAPID key and the encryption of
//!   messages to a browser's subscription.
//! - [`verify`]: offline verification of a finished game's export (`turnpost verify`).
//! - [`web`]: the web page (plain HTML and JavaScript over the public API).
//! - [`auth`], [`clock`], [`config`], [`error`], [`framework_errors`], [`seeds`],
//!   [`server`], [`private_files`]: the plumbing around them.

pub mod api;
pub mod auth;
pub mod background;
pub mod clock;
pub mod config;
pub mod error;
pub mod framework_errors;
pub mod outbound;
pub use turnpost_games as games;
pub mod private_files;
pub mod push;
pub mod ratings;
pub mod seeds;
pub mod server;
pub mod service;
pub mod store;
pub mod verify;
pub mod web;
pub mod web_push;
