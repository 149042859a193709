//! What the settings make: each part of the server takes its settings typed and grouped
//! (limits, caps, mail links, database options), built here from the flat [`Config`].

use super::Config;

/// Threads that wait on the system resolver for webhook names, and lookups that may
/// queue for them (beyond it a lookup fails at once as busy).
const SYSTEM_LOOKUP_THREADS: usize = 8;
const SYSTEM_LOOKUP_QUEUE: usize = 256;

impl Config {
    fn cores() -> usize {
        std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
    }

    /// Who push services may contact: `--push-contact`, else `--public-url`, else the
    /// address of `--mail-from`.
    pub fn push_contact(&self) -> String {
        if let Some(contact) = &self.push_contact {
            return contact.clone();
        }
        if let Some(url) = self
            .public_url
            .as_deref()
            .filter(|url| url.starts_with("https://"))
        {
            return url.trim_end_matches('/').to_owned();
        }
        let address = self
            .mail_from
            .rsplit_once('<')
            .map_or(self.mail_from.as_str(), |(_, rest)| {
                rest.trim_end_matches('>')
            });
        format!("mailto:{}", address.trim())
    }

    /// How this instance does the background work; webhooks and pushes go out through
    /// `outbound`, pushes signed with `vapid`.
    pub fn background_settings(
        &self,
        outbound: crate::outbound::Outbound,
        vapid: crate::web_push::VapidKey,
    ) -> crate::background::BackgroundSettings {
        use std::time::Duration;
        crate::background::BackgroundSettings {
            deadline_poll: (self.referee_poll_ms > 0)
                .then(|| Duration::from_millis(self.referee_poll_ms)),
            open_game_ms: i64::try_from(self.open_game_hours.saturating_mul(3_600_000))
                .unwrap_or(i64::MAX),
            vacation: self.vacation_allowance(),
            bots: crate::background::bots::BotSettings {
                workers: if self.referee_poll_ms > 0 {
                    self.bot_workers.unwrap_or_else(Config::cores)
                } else {
                    0
                },
                move_time: Duration::from_millis(self.bot_move_ms),
                poll: Duration::from_millis(self.referee_poll_ms.max(100)),
            },
            web_push: (self.push_poll_ms > 0).then(|| crate::background::web_push::PushSettings {
                outbound: outbound.clone(),
                vapid,
                contact: self.push_contact(),
                poll: Duration::from_millis(self.push_poll_ms),
                timeout: Duration::from_secs(self.push_timeout_seconds.max(1)),
                concurrency: self.push_concurrency.max(1),
                per_account: self.push_in_flight_per_account.max(1),
                per_service: self
                    .push_in_flight_per_service
                    .unwrap_or(self.push_concurrency / 2)
                    .max(1),
            }),
            deliveries: (self.webhook_poll_ms > 0).then(|| {
                crate::background::deliveries::DeliverySettings {
                    outbound,
                    poll: Duration::from_millis(self.webhook_poll_ms),
                    timeout: Duration::from_secs(self.webhook_timeout_seconds),
                    concurrency: self.webhook_concurrency.max(1),
                    per_account: self.webhooks_in_flight_per_account.max(1),
                }
            }),
            mail: match (&self.smtp_url, self.mail_poll_ms) {
                (Some(smtp_url), poll) if poll > 0 => Some(crate::background::mail::MailSettings {
                    smtp_url: smtp_url.clone(),
                    from: self.mail_from.clone(),
                    links: self.mail_links(),
                    poll: Duration::from_millis(poll),
                    timeout: Duration::from_secs(self.mail_timeout_seconds.max(1)),
                    concurrency: self.mail_concurrency.max(1),
                    spacing_ms: i64::try_from(self.mail_spacing_seconds.saturating_mul(1_000))
                        .unwrap_or(i64::MAX),
                }),
                _ => None,
            },
        }
    }

    pub fn vacation_allowance(&self) -> crate::service::vacations::Allowance {
        crate::service::vacations::Allowance {
            days_per_year: i64::from(self.vacation_days_per_year),
        }
    }

    /// Whether accounts may give mail addresses, and where mails' links point.
    pub fn mail_links(&self) -> crate::service::email::MailLinks {
        let base = self
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.bind));
        crate::service::email::MailLinks {
            base: base.trim_end_matches('/').to_owned(),
            mail_configured: self.smtp_url.is_some(),
        }
    }

    /// Where webhooks may call, and how their names are looked up. The system resolver
    /// runs on threads of its own: an instance makes one and shares it.
    pub fn outbound(&self) -> crate::outbound::Outbound {
        crate::outbound::Outbound {
            policy: crate::outbound::AddressPolicy {
                allow_all: self.webhooks_allow_private,
                allowed_networks: self.webhooks_allow_networks.clone(),
            },
            lookup: match &self.webhook_host_lookup {
                Some(lookup) => lookup.0.clone(),
                None => std::sync::Arc::new(crate::outbound::resolver::SystemLookup::new(
                    SYSTEM_LOOKUP_THREADS,
                    SYSTEM_LOOKUP_QUEUE,
                )),
            },
        }
    }

    /// The slots for signed-in requests, per account and per address.
    pub fn request_slots(&self) -> crate::api::request_slots::RequestSlots {
        use crate::api::request_slots::{RequestSlots, SlotCaps};
        RequestSlots::new(
            SlotCaps {
                under_way: self.requests_in_flight_per_account,
                waiting: self.requests_waiting_per_account,
            },
            SlotCaps {
                under_way: self.requests_in_flight_per_address,
                waiting: self.requests_waiting_per_address,
            },
        )
    }

    /// The caps on connections.
    pub fn admission_caps(&self) -> crate::api::connection_caps::AdmissionCaps {
        crate::api::connection_caps::AdmissionCaps {
            per_address: self.connections_per_address,
            total: self.max_connections,
            reserved: self
                .connections_reserved
                .unwrap_or(self.max_connections / 4),
        }
    }

    /// The caps on streams and long polls.
    pub fn follower_caps(&self) -> crate::push::limits::FollowerCaps {
        let total = self
            .max_streams
            .unwrap_or(self.max_connections / 4 * 3)
            .max(1);
        crate::push::limits::FollowerCaps {
            per_account: self.streams_per_account,
            per_address: self.streams_per_address,
            total,
            reserved: self.streams_reserved.unwrap_or(total / 4).min(total - 1),
            stream_lifetime: std::time::Duration::from_secs(self.stream_lifetime_seconds.max(1)),
        }
    }

    pub fn db_options(&self) -> crate::store::DbOptions {
        crate::store::DbOptions {
            sqlite_busy_timeout: std::time::Duration::from_millis(self.sqlite_busy_timeout_ms),
            pool_size: self.db_connections,
        }
    }

    pub fn rate_limits(&self) -> crate::api::rate_limit::RateLimits {
        use crate::api::rate_limit::{Rate, RateLimits, SharedLimiter};
        RateLimits {
            sign_in_per_name_and_address: SharedLimiter::new(
                "sign_ins_per_name_and_address",
                Rate::per_minute(self.sign_ins_per_minute_per_name_and_address),
                "sign-ins for this name from your address",
            ),
            guessing: crate::api::guessing::GuessingGuard::new(
                self.wrong_passwords_per_hour_per_name,
            ),
            password_changes_per_account: SharedLimiter::new(
                "password_changes_per_account",
                Rate::per_hour(self.password_changes_per_hour_per_account),
                "password changes",
            ),
            webhook_checks_in_flight: crate::api::rate_limit::InFlight::default(),
            sign_in_per_address: SharedLimiter::new(
                "sign_ins_per_address",
                Rate::per_minute(self.sign_ins_per_minute_per_address),
                "sign-ins from your address",
            ),
            registration_per_address: SharedLimiter::new(
                "registrations_per_address",
                Rate::per_hour(self.registrations_per_hour_per_address),
                "registrations from your address",
            ),
            game_creation_per_account: SharedLimiter::new(
                "games_per_account",
                Rate::per_hour(self.games_per_hour_per_account),
                "new games",
            ),
            chat_per_account: SharedLimiter::new(
                "chat_messages_per_account",
                Rate::per_minute(self.chat_messages_per_minute_per_account),
                "chat messages",
            ),
            bulk_exports_per_account: SharedLimiter::new(
                "bulk_exports_per_account",
                Rate::per_hour(self.bulk_exports_per_hour_per_account),
                "bulk exports",
            ),
            webhook_tests_per_account: SharedLimiter::new(
                "webhook_tests_per_account",
                Rate::per_hour(self.webhook_tests_per_hour_per_account),
                "test deliveries",
            ),
            webhook_registrations_per_account: SharedLimiter::new(
                "webhook_registrations_per_account",
                Rate::per_hour(self.webhook_registrations_per_hour_per_account),
                "webhook registrations",
            ),
            push_subscriptions_per_account: SharedLimiter::new(
                "push_subscriptions_per_account",
                Rate::per_hour(self.push_subscriptions_per_hour_per_account),
                "push subscriptions",
            ),
            push_tests_per_account: SharedLimiter::new(
                "push_tests_per_account",
                Rate::per_hour(self.push_tests_per_hour_per_account),
                "test pushes",
            ),
            invitations_per_invitee: SharedLimiter::new(
                "invitations_per_inviter_and_invitee",
                Rate::per_hour(self.invitations_per_hour_per_invitee),
                "invitations from you to this account",
            ),
            invitations_per_account: SharedLimiter::new(
                "invitations_per_invitee",
                Rate::per_hour(self.invitations_per_hour_per_account),
                "invitations to this account from anyone",
            ),
            reports_per_account: SharedLimiter::new(
                "reports_per_account",
                Rate::per_hour(self.reports_per_hour_per_account),
                "reports",
            ),
            email_confirmations_per_address: SharedLimiter::new(
                "email_confirmations_per_address",
                Rate::per_hour(self.email_confirmations_per_hour_per_address),
                "mail confirmations from your address",
            ),
            open_games_per_account: self.open_games_per_account,
            follows_per_account: SharedLimiter::new(
                "follows_per_account",
                Rate::per_hour(self.follows_per_hour_per_account),
                "follows and unfollows",
            ),
            follows_per_account_quota: self.follows_per_account,
            profile_changes_per_account: SharedLimiter::new(
                "profile_changes_per_account",
                Rate::per_hour(self.profile_changes_per_hour_per_account),
                "changes of your profile",
            ),
            bot_games_per_account: self.bot_games_per_account,
            trusted_proxies: self.trusted_proxy_networks(),
        }
    }

    /// The configured trusted proxies, with the local ranges `--behind-proxy` stands for.
    pub fn trusted_proxy_networks(&self) -> Vec<ipnet::IpNet> {
        let mut networks = self.trusted_proxies.clone();
        if self.behind_proxy {
            networks.extend(
                [
                    "127.0.0.0/8",
                    "::1/128",
                    "10.0.0.0/8",
                    "172.16.0.0/12",
                    "192.168.0.0/16",
                    "fc00::/7",
                ]
                .iter()
                .filter_map(|network| network.parse::<ipnet::IpNet>().ok()),
            );
        }
        networks
    }

    pub fn password_limits(&self) -> crate::auth::password::PasswordLimits {
        crate::auth::password::PasswordLimits {
            parallel: self.password_hashes.unwrap_or_else(Config::cores),
            queue: self.password_queue,
        }
    }

    pub fn password_cost(&self) -> crate::auth::password::PasswordCost {
        crate::auth::password::PasswordCost {
            memory_kib: self.password_memory_kib,
            ..crate::auth::password::PasswordCost::default()
        }
    }

    /// Where new games' seeds come from (see [`crate::seeds`]).
    pub fn seeds(&self) -> crate::seeds::Seeds {
        match &self.insecure_test_seeds {
            Some(text) => crate::seeds::Seeds::insecure_for_tests(text),
            None => crate::seeds::Seeds::system(),
        }
    }

    pub fn database_url(&self) -> String {
        self.database_url.clone().unwrap_or_else(|| {
            self.data_dir
                .join("turnpost.sqlite")
                .to_string_lossy()
                .into_owned()
        })
    }

    /// The database URL with any password masked, for the log.
    pub fn database_url_for_logs(&self) -> String {
        mask_password(&self.database_url())
    }
}

/// `postgres://user:secret@host/db` -> `postgres://user:***@host/db`.
pub(super) fn mask_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}
