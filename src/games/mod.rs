//! The rule engines. Each game lives in its own folder and implements [`engine::Engine`].
pub mod engine;
