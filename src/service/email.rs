//! Mail addresses and what is mailed to them: an address is confirmed through a link
//! mailed to it before anything else goes there; every mail but a confirmation carries a
//! one-click unsubscribe link (RFC 8058). The mails themselves are written here, from the
//! outbox items the notifications left (see `store::email`), and sent by
//! `background::mail`.

use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::store::email::{self, Confirmation, EmailAddress, MailChoices, OutboxItem};
use crate::store::Db;

/// How long a confirmation link works.
pub const CONFIRMATION_MS: i64 = 48 * 3_600_000;
/// Confirmation mails an account may have sent a day, and one address may receive a day
/// from all accounts together: an address is never flooded through this server.
pub const CONFIRMATIONS_PER_DAY_PER_ACCOUNT: i64 = 5;
pub const CONFIRMATIONS_PER_DAY_PER_ADDRESS: i64 = 3;
/// The longest address taken (RFC 5321's limit on a path).
const MOST_ADDRESS_BYTES: usize = 254;

/// Where the links in mails point, and whether this server sends mail at all.
#[derive(Debug, Clone)]
pub struct MailLinks {
    /// The server's public address, without a trailing slash.
    pub base: String,
    pub mail_configured: bool,
}

impl MailLinks {
    pub fn game(&self, game_id: &str) -> String {
        format!("{}/games/{game_id}", self.base)
    }

    pub fn confirm(&self, token: &str) -> String {
        format!("{}/email/confirm?token={token}", self.base)
    }

    pub fn unsubscribe(&self, token: &str) -> String {
        format!("{}/email/unsubscribe?token={token}", self.base)
    }

    /// The host the server's Message-IDs name.
    pub fn host(&self) -> &str {
        let without_scheme = self
            .base
            .split_once("://")
            .map_or(self.base.as_str(), |(_, rest)| rest);
        without_scheme
            .split(['/', ':'])
            .next()
            .filter(|host| !host.is_empty())
            .unwrap_or("localhost")
    }
}

/// The SHA-256 (hex) a token is stored as.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn new_token() -> String {
    super::random_id(32)
}

/// The addresses taken, as a JSON Schema pattern (with `maxLength` 254): a local part of up
/// to three dot-separated words of letters, digits and `_%+-` (at most 64 characters in
/// all), `@`, and a domain of two or more labels. [`parse_address`] takes exactly these,
/// so a client that checks the pattern is never refused.
pub const ADDRESS_PATTERN: &str = concat!(
    "^(",
    "[A-Za-z0-9_%+-]{1,64}",
    "|[A-Za-z0-9_%+-]{1,31}[.][A-Za-z0-9_%+-]{1,32}",
    "|[A-Za-z0-9_%+-]{1,20}[.][A-Za-z0-9_%+-]{1,20}[.][A-Za-z0-9_%+-]{1,22}",
    ")@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?",
    "([.][A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"
);

/// A mail address as given (trimmed), if it matches [`ADDRESS_PATTERN`] within 254 bytes.
pub fn parse_address(text: &str) -> Result<String, ApiError> {
    let text = text.trim();
    let word = |word: &str, most: usize| {
        (1..=most).contains(&word.len())
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_%+-".contains(&b))
    };
    let local_ok = |local: &str| {
        let words: Vec<&str> = local.split('.').collect();
        match words.as_slice() {
            [one] => word(one, 64),
            [first, second] => word(first, 31) && word(second, 32),
            [first, second, third] => word(first, 20) && word(second, 20) && word(third, 22),
            _ => false,
        }
    };
    let label = |label: &str| {
        (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    let valid = text.len() <= MOST_ADDRESS_BYTES
        && text.split_once('@').is_some_and(|(local, domain)| {
            local_ok(local) && domain.split('.').count() >= 2 && domain.split('.').all(label)
        });
    if valid {
        Ok(text.to_owned())
    } else {
        Err(ApiError::unprocessable(
            "invalid_email_address",
            "not a mail address like name@example.org: up to three dot-separated words of \
             letters, digits and _%+- before the @ (64 characters at most), a domain of two \
             or more labels after it, 254 characters in all",
        ))
    }
}

/// What to set: `None` removes the address.
pub struct NewSettings {
    pub address: Option<String>,
    pub choices: MailChoices,
}

/// Sets the account's address and choices. A new address is unconfirmed, gets a
/// confirmation mail, and has nothing else mailed until it is confirmed.
pub fn set(
    db: &Db,
    links: &MailLinks,
    account_id: &str,
    settings: NewSettings,
    now: i64,
) -> Result<Option<EmailAddress>, ApiError> {
    db.write(|conn| {
        let current = email::address_of(conn, account_id)?;
        let Some(address) = settings.address else {
            email::remove_address(conn, account_id, now)?;
            return Ok(None);
        };
        if current.as_ref().is_some_and(|row| row.address == address) {
            email::set_choices(conn, account_id, settings.choices)?;
            return Ok(email::address_of(conn, account_id)?);
        }
        require_mail(links)?;
        check_confirmation_quota(conn, account_id, &address, now)?;
        email::set_address(
            conn,
            account_id,
            &address,
            settings.choices,
            &confirmation(now),
            &new_token(),
            now,
        )?;
        Ok(email::address_of(conn, account_id)?)
    })
}

/// Mails a new confirmation link for the account's unconfirmed address (the old link stops
/// working).
pub fn resend_confirmation(
    db: &Db,
    links: &MailLinks,
    account_id: &str,
    now: i64,
) -> Result<EmailAddress, ApiError> {
    require_mail(links)?;
    db.write(|conn| {
        let Some(current) = email::address_of(conn, account_id)? else {
            return Err(ApiError::conflict(
                "no_email_address",
                "the account has no mail address to confirm",
            ));
        };
        if current.confirmed_at.is_some() {
            return Err(ApiError::conflict(
                "email_already_confirmed",
                "the address is confirmed already",
            ));
        }
        check_confirmation_quota(conn, account_id, &current.address, now)?;
        email::start_confirmation(conn, account_id, &current.address, &confirmation(now), now)?;
        Ok(email::address_of(conn, account_id)?.unwrap_or(current))
    })
}

fn require_mail(links: &MailLinks) -> Result<(), ApiError> {
    if links.mail_configured {
        Ok(())
    } else {
        Err(ApiError::conflict(
            "mail_not_configured",
            "this server sends no mail (it has no SMTP server configured)",
        ))
    }
}

fn confirmation(now: i64) -> Confirmation {
    let token = new_token();
    Confirmation {
        hash: token_hash(&token),
        token,
        expires_at: now + CONFIRMATION_MS,
    }
}

fn check_confirmation_quota(
    conn: &mut crate::store::DbConnection,
    account_id: &str,
    address: &str,
    now: i64,
) -> Result<(), ApiError> {
    const DAY_MS: i64 = 86_400_000;
    let (by_account, to_address) =
        email::confirmations_since(conn, account_id, address, now - DAY_MS)?;
    if by_account >= CONFIRMATIONS_PER_DAY_PER_ACCOUNT
        || to_address >= CONFIRMATIONS_PER_DAY_PER_ADDRESS
    {
        return Err(ApiError::too_many(
            "rate_limited",
            format!(
                "at most {CONFIRMATIONS_PER_DAY_PER_ACCOUNT} confirmation mails a day per \
                 account, and {CONFIRMATIONS_PER_DAY_PER_ADDRESS} to one address"
            ),
            3_600,
        ));
    }
    Ok(())
}

/// Whether `token` has the shape of the tokens this server writes (letters and digits, 64
/// at most): any other is unknown without asking the database.
fn plausible_token(token: &str) -> bool {
    (1..=64).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Confirms the address a confirmation link was mailed to.
pub fn confirm(db: &Db, token: &str, now: i64) -> Result<EmailAddress, ApiError> {
    let not_found = || {
        ApiError::not_found(
            "confirmation_not_found",
            "no confirmation waits for this token (it expired, was replaced, or was used)",
        )
    };
    if !plausible_token(token) {
        return Err(not_found());
    }
    let hash = token_hash(token);
    db.write(|conn| email::confirm(conn, &hash, now))?
        .ok_or_else(not_found)
}

/// Stops what is mailed to the address of an unsubscribe link.
pub fn unsubscribe(db: &Db, token: &str, now: i64) -> Result<EmailAddress, ApiError> {
    let not_found = || {
        ApiError::not_found(
            "unsubscribe_not_found",
            "no address has this unsubscribe token (the address changed or was removed)",
        )
    };
    if !plausible_token(token) {
        return Err(not_found());
    }
    db.write(|conn| email::unsubscribe(conn, token, now))?
        .ok_or_else(not_found)
}

/// One mail, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// The one-click unsubscribe link, for every mail but a confirmation.
    pub unsubscribe: Option<String>,
    /// The same for the same items, so a mail sent again after a crash can be recognised.
    pub message_id: String,
}

/// The mail that carries `items` (due together for one account) to `address`.
pub fn compose(links: &MailLinks, address: &EmailAddress, items: &[OutboxItem]) -> Mail {
    let first = items.first().map_or(0, |item| item.id);
    let message_id = format!("<mail.{first}.{}@{}>", items.len(), links.host());
    if let [item] = items {
        if item.kind == email::CONFIRM_ADDRESS {
            return confirmation_mail(links, address, item, message_id);
        }
    }
    let notices: Vec<&OutboxItem> = items
        .iter()
        .filter(|item| item.kind != email::CONFIRM_ADDRESS)
        .collect();
    let mut body = String::new();
    for item in items
        .iter()
        .filter(|item| item.kind == email::CONFIRM_ADDRESS)
    {
        body.push_str(&confirmation_text(links, item));
        body.push_str("\n\n");
    }
    for notice in &notices {
        let (_, text) = describe(links, notice);
        body.push_str(&text);
        body.push_str("\n\n");
    }
    let subject = match notices.as_slice() {
        [one] if items.len() == 1 => describe(links, one).0,
        _ if address.digest => format!("Your turnpost digest: {} updates", notices.len()),
        _ => format!("{} updates from your turnpost games", notices.len()),
    };
    let unsubscribe = links.unsubscribe(&address.unsubscribe_token);
    body.push_str(&format!(
        "--\nYou get these mails because you chose them for {to} on turnpost.\nStop them with \
         one click: {unsubscribe}\n",
        to = address.address
    ));
    Mail {
        to: address.address.clone(),
        subject,
        body,
        unsubscribe: Some(unsubscribe),
        message_id,
    }
}

fn confirmation_mail(
    links: &MailLinks,
    address: &EmailAddress,
    item: &OutboxItem,
    message_id: String,
) -> Mail {
    Mail {
        to: address.address.clone(),
        subject: "Confirm your mail address for turnpost".to_owned(),
        body: format!(
            "{}\n\nIf you did not give this address to turnpost, ignore this mail: nothing \
             more will come.\n",
            confirmation_text(links, item)
        ),
        unsubscribe: None,
        message_id,
    }
}

fn confirmation_text(links: &MailLinks, item: &OutboxItem) -> String {
    let payload: serde_json::Value = serde_json::from_str(&item.payload).unwrap_or_default();
    let token = payload["token"].as_str().unwrap_or_default();
    format!(
        "Someone (we hope you) gave this address to a turnpost account. Confirm it within 48 \
         hours to get the mails you chose:\n{}",
        links.confirm(token)
    )
}

/// A subject line and a paragraph for one notification.
fn describe(links: &MailLinks, item: &OutboxItem) -> (String, String) {
    let payload: serde_json::Value = serde_json::from_str(&item.payload).unwrap_or_default();
    let (subject, text) = super::notification_text::describe(&item.kind, &payload);
    let game_id = payload["game_id"].as_str().unwrap_or_default();
    (subject, format!("{text}\n{}", links.game(game_id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links() -> MailLinks {
        MailLinks {
            base: "https://play.example.org".into(),
            mail_configured: true,
        }
    }

    fn address(digest: bool) -> EmailAddress {
        EmailAddress {
            account_id: "a1".into(),
            address: "ada@example.org".into(),
            confirmed_at: Some(1),
            confirmation_hash: None,
            confirmation_expires_at: None,
            topics: 31,
            digest,
            digest_hour: 7,
            unsubscribe_token: "u123".into(),
            busy_until: None,
            last_mailed_at: None,
            created_at: 0,
        }
    }

    fn item(id: i64, kind: &str, payload: serde_json::Value) -> OutboxItem {
        OutboxItem {
            id,
            account_id: "a1".into(),
            address: "ada@example.org".into(),
            kind: kind.into(),
            notification_id: Some(id),
            payload: payload.to_string(),
            due_at: 0,
            created_at: 0,
            attempts: 0,
        }
    }

    #[test]
    fn one_notification_is_one_mail_with_its_own_subject_and_an_unsubscribe_link() {
        let mail = compose(
            &links(),
            &address(false),
            &[item(
                9,
                "your_turn",
                serde_json::json!({"game_id": "g7", "game_kind": "eternal_palace"}),
            )],
        );
        assert_eq!(mail.subject, "Your turn in Eternal Palace game g7");
        assert!(mail.body.contains("https://play.example.org/games/g7"));
        assert_eq!(
            mail.unsubscribe.as_deref(),
            Some("https://play.example.org/email/unsubscribe?token=u123")
        );
        assert_eq!(mail.message_id, "<mail.9.1@play.example.org>");
    }

    #[test]
    fn several_items_go_in_one_mail_and_a_confirmation_has_no_unsubscribe_link() {
        let items = [
            item(
                3,
                "invitation",
                serde_json::json!({"game_id": "g1", "game_kind": "tikal", "by": "bo"}),
            ),
            item(
                4,
                "game_finished",
                serde_json::json!({"game_id": "g2", "game_kind": "java", "outcome": {"scores": [31, 27]}}),
            ),
        ];
        let mail = compose(&links(), &address(true), &items);
        assert_eq!(mail.subject, "Your turnpost digest: 2 updates");
        assert!(mail.body.contains("bo invites you to Tikal game g1."));
        assert!(mail
            .body
            .contains("Java game g2 is over. Scores by seat: 31, 27."));
        let confirmation = compose(
            &links(),
            &address(false),
            &[item(
                5,
                email::CONFIRM_ADDRESS,
                serde_json::json!({"token": "t0k"}),
            )],
        );
        assert!(confirmation
            .body
            .contains("https://play.example.org/email/confirm?token=t0k"));
        assert_eq!(confirmation.unsubscribe, None);
    }

    #[test]
    fn addresses_are_checked_as_the_pattern_says_and_lettre_takes_them() {
        assert_eq!(
            parse_address(" ada@example.org ").unwrap(),
            "ada@example.org"
        );
        let taken = [
            "ada@example.org".to_owned(),
            "ada.lovelace+games@mail.example.co.uk".to_owned(),
            "a_b%c-d.e.f@x-y.z9".to_owned(),
            format!("{}@example.org", "a".repeat(64)),
            format!("{}.{}@example.org", "a".repeat(31), "b".repeat(32)),
            format!("ada@{}.org", "d".repeat(63)),
        ];
        for address in &taken {
            assert!(parse_address(address).is_ok(), "{address}");
            assert!(matches_pattern(address), "{address}");
            assert!(address.parse::<lettre::Address>().is_ok(), "{address}");
        }
        let refused = [
            String::new(),
            "ada".to_owned(),
            "Ada <ada@example.org>".to_owned(),
            "a b@example.org".to_owned(),
            "ada@".to_owned(),
            "ada@localhost".to_owned(),
            "a..b@example.org".to_owned(),
            ".ada@example.org".to_owned(),
            "a.b.c.d@example.org".to_owned(),
            "ada@-example.org".to_owned(),
            "ada@example.org\0".to_owned(),
            "\"ada\"@example.org".to_owned(),
            format!("{}@example.org", "a".repeat(65)),
            format!("ada@{}.org", "d".repeat(64)),
            format!("ada@{}.org", vec!["d".repeat(60); 5].join(".")),
        ];
        for address in &refused {
            assert!(parse_address(address).is_err(), "{address:?}");
            assert!(!matches_pattern(address), "{address:?}");
        }
    }

    /// Whether a JSON Schema validator takes `text` for the spec's `address`.
    fn matches_pattern(text: &str) -> bool {
        let schema = serde_json::json!({
            "type": "string", "pattern": ADDRESS_PATTERN, "maxLength": 254
        });
        jsonschema::is_valid(&schema, &serde_json::json!(text))
    }

    #[test]
    fn the_message_id_names_the_public_host() {
        let mut links = links();
        links.base = "http://127.0.0.1:8080".into();
        assert_eq!(links.host(), "127.0.0.1");
    }
}
