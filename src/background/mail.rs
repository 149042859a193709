//! Sending mail: a bounded pool of SMTP sends on every instance. One account's mail is
//! claimed as a whole (see `store::email::claim_next`): everything of it that is due goes
//! in one mail, accounts take turns (the one mailed longest ago first), and an account is
//! mailed at most once per spacing, so a flood of one account's notifications becomes one
//! mail a minute and never holds back another account's.
//!
//! An item is marked sent once the SMTP server accepted the mail. A crash between the two
//! sends the mail again when the lease lapses, with the same Message-ID (mail programs
//! show such a copy once); a crash before leaves the items waiting, so nothing is lost.

use std::sync::Arc;
use std::time::Duration;

use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::Mailbox;
use lettre::{Message, SmtpTransport, Transport};
use tokio::sync::{Notify, Semaphore};

use super::{blocking, Workers};
use crate::service::email::{compose, Mail, MailLinks};
use crate::service::people::name_games_in;
use crate::store::email::{self, ClaimedMail, MailResult};

/// How long an instance holds a claimed account's mail before another may send it.
const LEASE_MILLIS: i64 = 5 * 60_000;
/// Delays before the 2nd, 3rd, ... try of a mail the SMTP server refused for now; after
/// the last it is given up, as it is at once when the server refuses it for good.
const BACKOFF_SECONDS: [i64; 5] = [60, 300, 1_800, 7_200, 21_600];

#[derive(Debug, Clone)]
pub struct MailSettings {
    pub smtp_url: String,
    pub from: String,
    pub links: MailLinks,
    /// How often idle workers look for due mail without being woken.
    pub poll: Duration,
    /// How long the SMTP server has for each step.
    pub timeout: Duration,
    /// Mails in flight at once on this instance.
    pub concurrency: usize,
    /// The least time between two mails to one account.
    pub spacing_ms: i64,
}

/// Runs forever: claims due mail while the pool has room, and sends each in a task of its
/// own.
pub async fn run(workers: Workers, settings: MailSettings) {
    let transport = match SmtpTransport::from_url(&settings.smtp_url) {
        Ok(builder) => builder.timeout(Some(settings.timeout)).build(),
        Err(error) => {
            tracing::error!(%error, "mail is off: the SMTP URL cannot be used");
            return;
        }
    };
    let from: Mailbox = match settings.from.parse() {
        Ok(from) => from,
        Err(error) => {
            tracing::error!(%error, from = %settings.from, "mail is off: the sender is no address");
            return;
        }
    };
    let pool = Arc::new(Semaphore::new(settings.concurrency));
    let ended = Arc::new(Notify::new());
    loop {
        let Ok(slot) = pool.clone().acquire_owned().await else {
            return;
        };
        let woken = workers.hub.mail_due.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let (db, clock, spacing) = (
            workers.db.clone(),
            workers.clock.clone(),
            settings.spacing_ms,
        );
        let claimed = blocking(move || {
            let now = clock.now_millis();
            let claimed =
                db.write(|conn| email::claim_next(conn, now, now + LEASE_MILLIS, spacing));
            claimed.map(|claimed| {
                claimed.map(|mut claimed| {
                    let games: Vec<String> = claimed
                        .items
                        .iter()
                        .map(|item| game_of(&item.payload))
                        .collect();
                    name_games_in(
                        &db,
                        games
                            .iter()
                            .map(String::as_str)
                            .zip(claimed.items.iter_mut().map(|item| &mut item.payload)),
                    );
                    claimed
                })
            })
        })
        .await;
        match claimed {
            Some(Ok(Some(claimed))) => {
                let (workers, transport, from, links, ended) = (
                    workers.clone(),
                    transport.clone(),
                    from.clone(),
                    settings.links.clone(),
                    ended.clone(),
                );
                actix_web::rt::spawn(async move {
                    send_and_record(&workers, transport, from, &links, claimed).await;
                    drop(slot);
                    ended.notify_one();
                });
            }
            other => {
                drop(slot);
                if let Some(Err(error)) = other {
                    tracing::warn!(%error, "claiming mail failed");
                }
                tokio::select! {
                    _ = woken => {}
                    _ = ended.notified() => {}
                    _ = tokio::time::sleep(settings.poll) => {}
                }
            }
        }
    }
}

/// The game a mail item's payload is about (`game_id`; none for a confirmation).
fn game_of(payload: &str) -> String {
    serde_json::from_str::<serde_json::Value>(payload)
        .ok()
        .and_then(|payload| payload["game_id"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

async fn send_and_record(
    workers: &Workers,
    transport: SmtpTransport,
    from: Mailbox,
    links: &MailLinks,
    claimed: ClaimedMail,
) {
    let ids: Vec<i64> = claimed.items.iter().map(|item| item.id).collect();
    let account_id = claimed.address.account_id.clone();
    let lease_until = claimed.lease_until;
    let attempts = claimed
        .items
        .iter()
        .map(|item| item.attempts + 1)
        .max()
        .unwrap_or(1);
    let result = if ids.is_empty() {
        // The items went (their address changed) between the claim's two statements.
        MailResult::Failed {
            error: "nothing to send".into(),
            retry_at: Some(workers.clock.now_millis()),
        }
    } else {
        let mail = compose(links, &claimed.address, &claimed.items);
        let message_id = mail.message_id.clone();
        let sent = blocking(move || send(&transport, from, &mail))
            .await
            .unwrap_or_else(|| Err(SendError::Temporary("the send was cancelled".into())));
        let now = workers.clock.now_millis();
        match sent {
            Ok(()) => MailResult::Sent { message_id },
            Err(SendError::Permanent(error)) => MailResult::Failed {
                error,
                retry_at: None,
            },
            Err(SendError::Temporary(error)) => {
                let delay = usize::try_from(attempts - 1)
                    .ok()
                    .and_then(|index| BACKOFF_SECONDS.get(index));
                MailResult::Failed {
                    error,
                    retry_at: delay.map(|seconds| now + seconds * 1_000),
                }
            }
        }
    };
    if !ids.is_empty() {
        let outcome = match &result {
            MailResult::Sent { .. } => "sent",
            MailResult::Failed {
                retry_at: Some(_), ..
            } => "failed",
            MailResult::Failed { retry_at: None, .. } => "given_up",
        };
        workers.metrics.mails.with_label_values(&[outcome]).inc();
    }
    let (db, clock) = (workers.db.clone(), workers.clock.clone());
    let recorded = blocking(move || {
        db.write(|conn| {
            email::record_mail(
                conn,
                &account_id,
                &ids,
                lease_until,
                clock.now_millis(),
                &result,
            )
        })
    })
    .await;
    if let Some(Err(error)) = recorded {
        tracing::warn!(%error, "recording a mail failed");
    }
}

enum SendError {
    /// The server refused the mail for good (a 5xx answer, an address it rejects).
    Permanent(String),
    /// Try again later.
    Temporary(String),
}

fn send(transport: &SmtpTransport, from: Mailbox, mail: &Mail) -> Result<(), SendError> {
    let to: Mailbox = mail.to.parse().map_err(|error| {
        log_failure(&mail.to, "unmailable address", &error);
        SendError::Permanent("the address cannot be mailed".into())
    })?;
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(mail.subject.clone())
        .message_id(Some(mail.message_id.clone()))
        .header(ContentType::TEXT_PLAIN)
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Auto-Submitted"),
            "auto-generated".to_owned(),
        ));
    if let Some(unsubscribe) = &mail.unsubscribe {
        builder = builder
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe"),
                format!("<{unsubscribe}>"),
            ))
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                "List-Unsubscribe=One-Click".to_owned(),
            ));
    }
    let message = builder.body(mail.body.clone()).map_err(|error| {
        log_failure(&mail.to, "unwritable", &error);
        SendError::Permanent(format!("the mail cannot be written: {error}"))
    })?;
    transport.send(&message).map(drop).map_err(|error| {
        let category = if error.is_permanent() {
            "refused"
        } else if error.is_timeout() {
            "timed out"
        } else {
            "failed"
        };
        log_failure(&mail.to, category, &error);
        let text = format!("could not send: {category}");
        if error.is_permanent() {
            SendError::Permanent(text)
        } else {
            SendError::Temporary(text)
        }
    })
}

/// A mail the SMTP server did not take is the operator's to look into (a relay that
/// refuses, times out or is down): logged at WARN with its category, the SMTP server's own
/// words beside it. The recipient's address stays out of the log.
fn log_failure(to: &str, category: &str, error: &dyn std::fmt::Display) {
    let domain = to.rsplit_once('@').map_or("", |(_, domain)| domain);
    tracing::warn!(category, domain, %error, "a mail was not sent");
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    /// What a subscriber writes, kept for the test to read.
    #[derive(Clone, Default)]
    struct Written(Arc<Mutex<Vec<u8>>>);

    impl Write for Written {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_mail_is_logged_at_warn_with_its_category() {
        let written = Written::default();
        let writer = written.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::WARN)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            super::log_failure("bob@mail.example", "timed out", &"connection timed out");
        });
        let logged = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
        assert!(logged.contains("WARN"), "{logged}");
        assert!(logged.contains("category=\"timed out\""), "{logged}");
        assert!(logged.contains("domain=\"mail.example\""), "{logged}");
        assert!(!logged.contains("bob@"), "{logged}");
    }
}
