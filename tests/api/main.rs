//! One integration test binary: the real server on a random port, driven with reqwest,
//! every scenario once on SQLite and once on Postgres.

mod accounts;
mod browser;
mod chat;
mod client;
mod cluster;
mod contract;
mod correspondence;
mod database;
mod driver;
mod email;
mod eternal_palace;
mod eternal_palace_modules;
mod fold_cache;
mod followers;
mod hardening;
mod histories;
mod invitations;
mod java;
mod jobs;
mod live;
mod lobby;
mod openapi;
mod personal_tokens;
mod play_errors;
mod ratings;
mod readme;
mod reminders;
mod sign_in_limits;
mod smtp_sink;
mod tikal;
mod transport;
mod util;
mod vacations;
mod webhook_addresses;
mod webhooks;
