//! What a personal token may do: five scopes, and the one table that says which scope each
//! route needs. The [`super::AuthUser`] extractor consults the table on every request, so a
//! handler cannot forget the check; a route missing from the table is closed to personal
//! tokens (a test keeps every documented route in it). Sign-in tokens have every scope.

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One thing a personal token may be allowed to do: `games:read` (every read of games,
/// their logs, exports, pictures and players, legal actions and previews of actions, the
/// notification feed, streams and long polls, chats, your reminders and vacation),
/// `games:play` (create, join, leave, cancel, decline and rematch games, act, resign, vote
/// to abandon, write and delete chat messages, set your reminders, start and end vacations,
/// since both change how your games' clocks treat you), `webhooks:manage` (everything
/// under `/v1/me/webhooks`), `account:manage` (change the password, sign out everywhere,
/// create, list and revoke personal tokens, block accounts, file reports, Web Push
/// subscriptions), `moderation`
/// (everything under `/v1/moderation`, for an account that is a moderator). Scopes are
/// independent: a bot needs `games:read` and `games:play`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[schema(example = "games:read")]
pub enum Scope {
    #[serde(rename = "games:read")]
    GamesRead,
    #[serde(rename = "games:play")]
    GamesPlay,
    #[serde(rename = "webhooks:manage")]
    WebhooksManage,
    #[serde(rename = "account:manage")]
    AccountManage,
    #[serde(rename = "moderation")]
    Moderation,
}

impl Scope {
    pub const ALL: [Scope; 5] = [
        Scope::GamesRead,
        Scope::GamesPlay,
        Scope::WebhooksManage,
        Scope::AccountManage,
        Scope::Moderation,
    ];

    /// The name on the wire and in the database.
    pub fn name(self) -> &'static str {
        match self {
            Scope::GamesRead => "games:read",
            Scope::GamesPlay => "games:play",
            Scope::WebhooksManage => "webhooks:manage",
            Scope::AccountManage => "account:manage",
            Scope::Moderation => "moderation",
        }
    }

    pub fn from_name(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.name() == name)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A set of scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scopes(u8);

impl Scopes {
    pub const NONE: Scopes = Scopes(0);
    pub const EVERY: Scopes = Scopes(0b1_1111);

    pub fn of(scopes: impl IntoIterator<Item = Scope>) -> Scopes {
        Scopes(scopes.into_iter().fold(0, |bits, scope| bits | scope.bit()))
    }

    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The scopes of `wanted` that this set lacks.
    pub fn lacking(self, wanted: Scopes) -> Scopes {
        Scopes(wanted.0 & !self.0)
    }

    /// In the order of [`Scope::ALL`].
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL
            .into_iter()
            .filter(move |scope| self.contains(*scope))
    }

    /// The stored form: the names separated by spaces, as OAuth writes scopes.
    pub fn to_stored(self) -> String {
        self.to_string()
    }

    /// Reads the stored form. A name this version does not know grants nothing (a newer
    /// server may have written it), so a token never gets more than it was given.
    pub fn from_stored(text: &str) -> Scopes {
        Scopes::of(text.split_whitespace().filter_map(Scope::from_name))
    }
}

impl fmt::Display for Scopes {
    /// `games:read games:play`; `none` for the empty set.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return formatter.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(Scope::name).collect();
        formatter.write_str(&names.join(" "))
    }
}

/// The scope a personal token needs for each route: its method and its pattern as actix
/// matched it (`HttpRequest::match_pattern`, the same text as the OpenAPI path). The one
/// place scopes are decided; the OpenAPI document's per-operation security is written from
/// it too.
const REQUIRED: &[(&str, &str, Scope)] = &[
    // The account and its credentials.
    ("POST", "/v1/me/password", Scope::AccountManage),
    ("GET", "/v1/me/email", Scope::AccountManage),
    ("PUT", "/v1/me/email", Scope::AccountManage),
    ("POST", "/v1/me/email/confirmation", Scope::AccountManage),
    ("DELETE", "/v1/me/tokens", Scope::AccountManage),
    ("POST", "/v1/me/personal-tokens", Scope::AccountManage),
    ("GET", "/v1/me/personal-tokens", Scope::AccountManage),
    (
        "DELETE",
        "/v1/me/personal-tokens/{token_id}",
        Scope::AccountManage,
    ),
    ("GET", "/v1/me/blocks", Scope::AccountManage),
    ("PUT", "/v1/me/blocks/{name}", Scope::AccountManage),
    ("DELETE", "/v1/me/blocks/{name}", Scope::AccountManage),
    ("GET", "/v1/me/following", Scope::AccountManage),
    ("PUT", "/v1/me/following/{name}", Scope::AccountManage),
    ("DELETE", "/v1/me/following/{name}", Scope::AccountManage),
    ("GET", "/v1/me/profile", Scope::AccountManage),
    ("PUT", "/v1/me/profile", Scope::AccountManage),
    ("POST", "/v1/me/push-subscriptions", Scope::AccountManage),
    ("GET", "/v1/me/push-subscriptions", Scope::AccountManage),
    (
        "PUT",
        "/v1/me/push-subscriptions/{subscription_id}/topics",
        Scope::AccountManage,
    ),
    (
        "DELETE",
        "/v1/me/push-subscriptions/{subscription_id}",
        Scope::AccountManage,
    ),
    (
        "POST",
        "/v1/me/push-subscriptions/{subscription_id}/test",
        Scope::AccountManage,
    ),
    ("POST", "/v1/reports", Scope::AccountManage),
    // Moderation (the account must be a moderator too).
    ("GET", "/v1/moderation/reports", Scope::Moderation),
    (
        "POST",
        "/v1/moderation/reports/{report_id}/resolve",
        Scope::Moderation,
    ),
    (
        "POST",
        "/v1/moderation/games/{id}/chat/{message_id}/hide",
        Scope::Moderation,
    ),
    (
        "POST",
        "/v1/moderation/accounts/{name}/mute",
        Scope::Moderation,
    ),
    (
        "POST",
        "/v1/moderation/accounts/{name}/unmute",
        Scope::Moderation,
    ),
    (
        "POST",
        "/v1/moderation/accounts/{name}/suspend",
        Scope::Moderation,
    ),
    (
        "POST",
        "/v1/moderation/accounts/{name}/unsuspend",
        Scope::Moderation,
    ),
    ("GET", "/v1/moderation/log", Scope::Moderation),
    // Reading games, players and notifications.
    ("GET", "/v1/game-kinds", Scope::GamesRead),
    ("GET", "/v1/games", Scope::GamesRead),
    ("GET", "/v1/games/{id}", Scope::GamesRead),
    ("GET", "/v1/games/{id}/view", Scope::GamesRead),
    ("GET", "/v1/games/{id}/invitations", Scope::GamesRead),
    ("GET", "/v1/games/{id}/legal-actions", Scope::GamesRead),
    ("GET", "/v1/games/{id}/take-back", Scope::GamesRead),
    ("GET", "/v1/games/{id}/legal-choices", Scope::GamesRead),
    // A preview writes nothing: a read, though it is sent as a POST.
    ("POST", "/v1/games/{id}/actions/preview", Scope::GamesRead),
    ("GET", "/v1/games/{id}/events", Scope::GamesRead),
    ("GET", "/v1/games/{id}/stream", Scope::GamesRead),
    ("GET", "/v1/games/{id}/export", Scope::GamesRead),
    ("GET", "/v1/games/{id}/transcript", Scope::GamesRead),
    ("GET", "/v1/games/{id}/board.svg", Scope::GamesRead),
    ("GET", "/v1/accounts/{name}", Scope::GamesRead),
    ("GET", "/v1/exports", Scope::GamesRead),
    ("GET", "/v1/me/notifications", Scope::GamesRead),
    ("GET", "/v1/me/stream", Scope::GamesRead),
    ("GET", "/v1/me/invitations", Scope::GamesRead),
    ("GET", "/v1/me/reminders", Scope::GamesRead),
    ("GET", "/v1/me/vacation", Scope::GamesRead),
    ("GET", "/v1/games/{id}/rematch", Scope::GamesRead),
    ("GET", "/v1/games/{id}/chat", Scope::GamesRead),
    ("GET", "/v1/leaderboards/{kind}", Scope::GamesRead),
    ("GET", "/v1/accounts/{name}/ratings", Scope::GamesRead),
    // Playing.
    ("POST", "/v1/games", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/seats", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/cancel", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/leave", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/resign", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/decline", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/invitations", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/rematch", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/abandon", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/chat", Scope::GamesPlay),
    ("PUT", "/v1/me/reminders", Scope::GamesPlay),
    ("POST", "/v1/me/vacation", Scope::GamesPlay),
    ("DELETE", "/v1/me/vacation", Scope::GamesPlay),
    ("PUT", "/v1/me/vacation/automatic", Scope::GamesPlay),
    (
        "DELETE",
        "/v1/games/{id}/chat/{message_id}",
        Scope::GamesPlay,
    ),
    ("POST", "/v1/games/{id}/actions", Scope::GamesPlay),
    ("POST", "/v1/games/{id}/take-back", Scope::GamesPlay),
    // Webhooks.
    ("POST", "/v1/me/webhooks", Scope::WebhooksManage),
    ("GET", "/v1/me/webhooks", Scope::WebhooksManage),
    (
        "DELETE",
        "/v1/me/webhooks/{webhook_id}",
        Scope::WebhooksManage,
    ),
    (
        "GET",
        "/v1/me/webhooks/{webhook_id}/deliveries",
        Scope::WebhooksManage,
    ),
    (
        "POST",
        "/v1/me/webhooks/{webhook_id}/test",
        Scope::WebhooksManage,
    ),
];

/// The scope a personal token needs for `method` on the route `pattern`; `None` for a route
/// the table does not list, which personal tokens may not use. HEAD needs what GET needs.
pub fn required_scope(method: &str, pattern: &str) -> Option<Scope> {
    let method = if method.eq_ignore_ascii_case("HEAD") {
        "GET"
    } else {
        method
    };
    REQUIRED
        .iter()
        .find(|(listed_method, listed_pattern, _)| {
            listed_method.eq_ignore_ascii_case(method) && *listed_pattern == pattern
        })
        .map(|(_, _, scope)| *scope)
}

/// Every route of the table: method, pattern and scope.
pub fn routes() -> impl Iterator<Item = (&'static str, &'static str, Scope)> {
    REQUIRED.iter().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_sets_keep_the_canonical_order() {
        for scope in Scope::ALL {
            assert_eq!(Scope::from_name(scope.name()), Some(scope));
            assert_eq!(
                serde_json::to_value(scope).unwrap(),
                serde_json::json!(scope.name())
            );
        }
        assert_eq!(Scope::from_name("games:write"), None);
        let set = Scopes::of([Scope::AccountManage, Scope::GamesRead, Scope::GamesRead]);
        assert_eq!(set.to_stored(), "games:read account:manage");
        assert_eq!(Scopes::from_stored(&set.to_stored()), set);
        assert_eq!(Scopes::of(Scope::ALL), Scopes::EVERY);
        assert_eq!(Scopes::NONE.to_string(), "none");
    }

    #[test]
    fn unknown_stored_names_grant_nothing() {
        assert_eq!(
            Scopes::from_stored("games:read admin:everything"),
            Scopes::of([Scope::GamesRead])
        );
        assert!(Scopes::from_stored("").is_empty());
    }

    #[test]
    fn lacking_is_what_the_set_does_not_cover() {
        let read = Scopes::of([Scope::GamesRead]);
        let read_and_play = Scopes::of([Scope::GamesRead, Scope::GamesPlay]);
        assert_eq!(read.lacking(read_and_play), Scopes::of([Scope::GamesPlay]));
        assert!(read_and_play.lacking(read).is_empty());
        assert!(Scopes::EVERY.lacking(Scopes::EVERY).is_empty());
    }

    #[test]
    fn routes_are_found_by_method_and_pattern_and_head_counts_as_get() {
        assert_eq!(
            required_scope("POST", "/v1/games/{id}/actions"),
            Some(Scope::GamesPlay)
        );
        assert_eq!(
            required_scope("HEAD", "/v1/games/{id}/view"),
            Some(Scope::GamesRead)
        );
        assert_eq!(required_scope("DELETE", "/v1/games/{id}/view"), None);
        assert_eq!(required_scope("GET", "/v1/unknown"), None);
        let mut seen = std::collections::HashSet::new();
        for (method, pattern, _) in routes() {
            assert!(seen.insert((method, pattern)), "{method} {pattern} twice");
        }
    }
}
