//! Players' pages, the caller's own page and following.

use reqwest::Method;
use serde::{Deserialize, Serialize};

use crate::models::{AccountRef, AnyGameSummary, Rating};
use crate::pages::{Paged, Pages};
use crate::{Client, Error};

/// A player's page as the caller sees it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerPage {
    pub name: String,
    pub created_at: String,
    /// What the player says about themselves (empty when nothing).
    pub about: String,
    /// ISO 3166-1 alpha-2.
    pub country: Option<String>,
    /// ISO 639-1.
    pub language: Option<String>,
    /// `YYYY-MM-DD` (UTC), unless hidden.
    pub last_seen: Option<String>,
    pub ratings: Vec<Rating>,
    pub kinds: Vec<KindRecord>,
    /// The latest finished public games, newest first.
    pub recent_games: Vec<AnyGameSummary>,
    /// The caller's finished games with the player; `None` on the caller's own page.
    pub head_to_head: Option<HeadToHead>,
    pub you_follow: bool,
    pub followers: u32,
    pub following: u32,
    /// The player blocks the caller: their activity is not shown.
    pub activity_hidden: bool,
    pub finished_games: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindRecord {
    pub kind: String,
    pub finished: u32,
    pub won: u32,
    pub running: u32,
    pub open: u32,
    pub abandoned: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadToHead {
    pub games: u32,
    pub you_ahead: u32,
    pub they_ahead: u32,
}

/// What the caller says on its page (`PUT /v1/me/profile` sets every field).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub about: Option<String>,
    pub country: Option<String>,
    pub language: Option<String>,
    pub show_last_seen: bool,
}

/// An account the caller follows.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Follow {
    pub account: AccountRef,
    pub since: String,
    /// Its public games waiting for players now.
    pub open_games: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowList {
    pub following: Vec<Follow>,
    #[serde(default)]
    pub next: Option<String>,
}

impl Paged for FollowList {
    type Item = Follow;
    fn next_cursor(&self) -> Option<&str> {
        self.next.as_deref()
    }
    fn into_items(self) -> Vec<Follow> {
        self.following
    }
}

impl Client {
    /// The page of the account called `name` (any case).
    pub async fn player(&self, name: &str) -> Result<PlayerPage, Error> {
        self.call(
            Method::GET,
            &format!("/v1/accounts/{name}"),
            &[],
            None::<&()>,
            &[],
        )
        .await
    }

    /// What the caller says on its page.
    pub async fn profile(&self) -> Result<Profile, Error> {
        self.call(Method::GET, "/v1/me/profile", &[], None::<&()>, &[])
            .await
    }

    /// Sets the caller's page; returns it as stored.
    pub async fn set_profile(&self, profile: &Profile) -> Result<Profile, Error> {
        self.call(Method::PUT, "/v1/me/profile", &[], Some(profile), &[])
            .await
    }

    /// Follows the account called `name` (following again changes nothing).
    pub async fn follow(&self, name: &str) -> Result<Follow, Error> {
        self.call(
            Method::PUT,
            &format!("/v1/me/following/{name}"),
            &[],
            None::<&()>,
            &[],
        )
        .await
    }

    /// Stops following the account called `name`.
    pub async fn unfollow(&self, name: &str) -> Result<(), Error> {
        self.call(
            Method::DELETE,
            &format!("/v1/me/following/{name}"),
            &[],
            None::<&()>,
            &[],
        )
        .await
    }

    /// The accounts the caller follows, by name, a page at a time.
    pub fn following(&self) -> Pages<FollowList> {
        Pages::new(self, "/v1/me/following".into(), Vec::new())
    }
}
