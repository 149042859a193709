//! turnpost: a play-by-web server for Euro board games.
//!
//! - [`games`]: the pure rule engines (the `turnpost-games` crate in `crates/games`).
//! - [`store`]: the event store and the rest of the persistence (the only SQL).
//! - [`service`]: what the API does with a game: fold its log, decide, append.
//! - [`api`]: the HTTP handlers and the OpenAPI document.
//! - [`verify`]: offline verification of a finished game's export (`turnpost verify`).
//! - [`web`]: the web page (plain HTML and JavaScript over the public API).
//! - [`webhooks`]: the background delivery of webhooks from the outbox.
//! - [`referee`]: the background task that records timeouts, plays the bots' moves and
//!   expires open games.
//! - [`auth`], [`clock`], [`config`], [`error`], [`server`], [`private_files`]: the plumbing
//!   around them.

pub mod api;
pub mod auth;
pub mod clock;
pub mod config;
pub mod error;
pub use turnpost_games as games;
pub mod private_files;
pub mod referee;
pub mod server;
pub mod service;
pub mod store;
pub mod verify;
pub mod web;
pub mod webhooks;
