//! Accounts' mail addresses and the mail outbox. A notification of a topic the account has
//! mailed is queued in the transaction that writes it (see [`queue_notification`]); the
//! mail workers claim one account at a time and send everything of it that is due in one
//! mail (see [`claim_next`]), so an account's mail is never sent by two instances at once
//! and accounts take turns.

use diesel::prelude::*;

pub use super::notice::MailTopic;
use super::notice::NewNotification;
use super::schema::{accounts, email_addresses, mail_outbox};
use super::{Change, DbConnection, StoreError};

/// The outbox kind of a mail that asks to confirm an address.
pub const CONFIRM_ADDRESS: &str = "confirm_address";

/// Items one account may have waiting: notifications beyond them are not mailed (the feed,
/// the stream and the webhooks still have them).
pub const MOST_WAITING: i64 = 200;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = email_addresses)]
pub struct EmailAddress {
    pub account_id: String,
    pub address: String,
    pub confirmed_at: Option<i64>,
    pub confirmation_hash: Option<String>,
    pub confirmation_expires_at: Option<i64>,
    pub topics: i32,
    pub digest: bool,
    pub digest_hour: i32,
    pub unsubscribe_token: String,
    pub busy_until: Option<i64>,
    pub last_mailed_at: Option<i64>,
    pub created_at: i64,
}

/// What is mailed with an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MailChoices {
    pub topics: i32,
    pub digest: bool,
    pub digest_hour: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = mail_outbox)]
pub struct OutboxItem {
    pub id: i64,
    pub account_id: String,
    pub address: String,
    pub kind: String,
    pub notification_id: Option<i64>,
    pub payload: String,
    pub due_at: i64,
    pub created_at: i64,
    pub attempts: i32,
}

pub fn address_of(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<Option<EmailAddress>, StoreError> {
    Ok(email_addresses::table
        .find(account_id)
        .select(EmailAddress::as_select())
        .first(conn)
        .optional()?)
}

/// Keeps the account's mailed topics beside the account, where appends read them: the
/// chosen ones while the address is confirmed, none otherwise.
fn mirror_topics(conn: &mut DbConnection, account_id: &str) -> Result<(), StoreError> {
    let topics = address_of(conn, account_id)?
        .filter(|address| address.confirmed_at.is_some())
        .map_or(0, |address| address.topics);
    diesel::update(accounts::table.find(account_id))
        .set(accounts::mail_topics.eq(topics))
        .execute(conn)?;
    Ok(())
}

/// A new, unconfirmed address for the account with a confirmation outstanding and its
/// confirmation mail queued; whatever waited for the old address is dropped.
#[allow(clippy::too_many_arguments)]
pub fn set_address(
    conn: &mut DbConnection,
    account_id: &str,
    address: &str,
    choices: MailChoices,
    confirmation: &Confirmation,
    unsubscribe_token: &str,
    now: i64,
) -> Result<(), StoreError> {
    remove_address(conn, account_id, now)?;
    diesel::insert_into(email_addresses::table)
        .values((
            email_addresses::account_id.eq(account_id),
            email_addresses::address.eq(address),
            email_addresses::topics.eq(choices.topics),
            email_addresses::digest.eq(choices.digest),
            email_addresses::digest_hour.eq(choices.digest_hour),
            email_addresses::unsubscribe_token.eq(unsubscribe_token),
            email_addresses::created_at.eq(now),
        ))
        .execute(conn)?;
    start_confirmation(conn, account_id, address, confirmation, now)
}

/// A confirmation link's token: the hash is stored, the token only mailed.
#[derive(Debug, Clone)]
pub struct Confirmation {
    pub token: String,
    pub hash: String,
    pub expires_at: i64,
}

/// Replaces any outstanding confirmation of the account's address with this one, and
/// queues its mail.
pub fn start_confirmation(
    conn: &mut DbConnection,
    account_id: &str,
    address: &str,
    confirmation: &Confirmation,
    now: i64,
) -> Result<(), StoreError> {
    diesel::update(email_addresses::table.find(account_id))
        .set((
            email_addresses::confirmation_hash.eq(Some(&confirmation.hash)),
            email_addresses::confirmation_expires_at.eq(Some(confirmation.expires_at)),
        ))
        .execute(conn)?;
    // An older confirmation mail not sent yet would carry a token that no longer works.
    give_up_waiting(
        conn,
        account_id,
        Some(CONFIRM_ADDRESS),
        "a newer confirmation replaced it",
        now,
    )?;
    let payload = serde_json::json!({ "token": confirmation.token }).to_string();
    insert_item(
        conn,
        account_id,
        address,
        CONFIRM_ADDRESS,
        None,
        &payload,
        now,
        now,
    )
}

/// Confirmation mails queued since `since`: to this account, and to this address from any
/// account.
pub fn confirmations_since(
    conn: &mut DbConnection,
    account_id: &str,
    address: &str,
    since: i64,
) -> Result<(i64, i64), StoreError> {
    let recent = || {
        mail_outbox::table
            .filter(mail_outbox::kind.eq(CONFIRM_ADDRESS))
            .filter(mail_outbox::created_at.ge(since))
    };
    let by_account = recent()
        .filter(mail_outbox::account_id.eq(account_id))
        .count()
        .get_result(conn)?;
    let to_address = recent()
        .filter(mail_outbox::address.eq(address))
        .count()
        .get_result(conn)?;
    Ok((by_account, to_address))
}

/// Changes what is mailed to the account's address.
pub fn set_choices(
    conn: &mut DbConnection,
    account_id: &str,
    choices: MailChoices,
) -> Result<(), StoreError> {
    diesel::update(email_addresses::table.find(account_id))
        .set((
            email_addresses::topics.eq(choices.topics),
            email_addresses::digest.eq(choices.digest),
            email_addresses::digest_hour.eq(choices.digest_hour),
        ))
        .execute(conn)?;
    mirror_topics(conn, account_id)
}

/// Marks what waits to be mailed to the account (of `kind`, or all) as never to be sent,
/// with why. The rows stay a while: they count for the confirmation quota.
fn give_up_waiting(
    conn: &mut DbConnection,
    account_id: &str,
    kind: Option<&str>,
    why: &str,
    now: i64,
) -> Result<(), StoreError> {
    let waiting = mail_outbox::table
        .filter(mail_outbox::account_id.eq(account_id))
        .filter(mail_outbox::sent_at.is_null())
        .filter(mail_outbox::failed_at.is_null());
    let set = (
        mail_outbox::failed_at.eq(Some(now)),
        mail_outbox::last_error.eq(Some(why)),
    );
    match kind {
        Some(kind) => diesel::update(waiting.filter(mail_outbox::kind.eq(kind)))
            .set(set)
            .execute(conn)?,
        None => diesel::update(waiting).set(set).execute(conn)?,
    };
    Ok(())
}

/// Forgets the account's address; nothing waiting is mailed to it.
pub fn remove_address(
    conn: &mut DbConnection,
    account_id: &str,
    now: i64,
) -> Result<(), StoreError> {
    // The address row first, as the mail workers lock it before its items.
    diesel::delete(email_addresses::table.find(account_id)).execute(conn)?;
    give_up_waiting(
        conn,
        account_id,
        None,
        "the address was changed or removed",
        now,
    )?;
    mirror_topics(conn, account_id)
}

/// Confirms the address whose outstanding confirmation has this hash, if it has not
/// expired; the account's chosen topics are mailed from now on.
pub fn confirm(
    conn: &mut DbConnection,
    hash: &str,
    now: i64,
) -> Result<Option<EmailAddress>, StoreError> {
    let found: Option<EmailAddress> = email_addresses::table
        .filter(email_addresses::confirmation_hash.eq(hash))
        .filter(email_addresses::confirmation_expires_at.ge(now))
        .select(EmailAddress::as_select())
        .first(conn)
        .optional()?;
    let Some(address) = found else {
        return Ok(None);
    };
    diesel::update(email_addresses::table.find(&address.account_id))
        .set((
            email_addresses::confirmed_at.eq(Some(now)),
            email_addresses::confirmation_hash.eq(None::<String>),
            email_addresses::confirmation_expires_at.eq(None::<i64>),
        ))
        .execute(conn)?;
    mirror_topics(conn, &address.account_id)?;
    address_of(conn, &address.account_id)
}

/// Stops every mail to the address with this unsubscribe token but confirmations: no
/// topic, no digest, and nothing that waits is sent.
pub fn unsubscribe(
    conn: &mut DbConnection,
    token: &str,
    now: i64,
) -> Result<Option<EmailAddress>, StoreError> {
    let found: Option<EmailAddress> = email_addresses::table
        .filter(email_addresses::unsubscribe_token.eq(token))
        .select(EmailAddress::as_select())
        .first(conn)
        .optional()?;
    let Some(address) = found else {
        return Ok(None);
    };
    set_choices(
        conn,
        &address.account_id,
        MailChoices {
            topics: 0,
            digest: false,
            digest_hour: address.digest_hour,
        },
    )?;
    diesel::update(
        mail_outbox::table
            .filter(mail_outbox::account_id.eq(&address.account_id))
            .filter(mail_outbox::kind.ne(CONFIRM_ADDRESS))
            .filter(mail_outbox::sent_at.is_null())
            .filter(mail_outbox::failed_at.is_null()),
    )
    .set((
        mail_outbox::failed_at.eq(Some(now)),
        mail_outbox::last_error.eq(Some("unsubscribed")),
    ))
    .execute(conn)?;
    address_of(conn, &address.account_id)
}

/// Queues notification `notification_id` for the account's mail when `mailed_topics` (as
/// the caller read them with the account, or looked up here when `None`) hold its topic:
/// now, or at the account's next digest hour.
pub fn queue_notification(
    conn: &mut DbConnection,
    notification: &NewNotification,
    notification_id: i64,
    mailed_topics: Option<i32>,
) -> Result<(), StoreError> {
    let Some(topic) = MailTopic::of_notification(&notification.kind) else {
        return Ok(());
    };
    if mailed_topics.is_some_and(|topics| topics & topic.bit() == 0) {
        return Ok(());
    }
    let Some(address) = address_of(conn, &notification.account_id)? else {
        return Ok(());
    };
    if address.confirmed_at.is_none() || address.topics & topic.bit() == 0 {
        return Ok(());
    }
    let waiting: i64 = mail_outbox::table
        .filter(mail_outbox::account_id.eq(&notification.account_id))
        .filter(mail_outbox::sent_at.is_null())
        .filter(mail_outbox::failed_at.is_null())
        .count()
        .get_result(conn)?;
    if waiting >= MOST_WAITING {
        return Ok(());
    }
    let now = notification.created_at;
    let due_at = if address.digest {
        next_digest(now, address.digest_hour)
    } else {
        now
    };
    insert_item(
        conn,
        &notification.account_id,
        &address.address,
        &notification.kind,
        Some(notification_id),
        &notification.payload,
        due_at,
        now,
    )
}

/// The first time at `hour` o'clock UTC after `now` (milliseconds since the epoch).
pub fn next_digest(now: i64, hour: i32) -> i64 {
    const DAY: i64 = 86_400_000;
    let today = now.div_euclid(DAY) * DAY + i64::from(hour) * 3_600_000;
    if today > now {
        today
    } else {
        today + DAY
    }
}

#[allow(clippy::too_many_arguments)]
fn insert_item(
    conn: &mut DbConnection,
    account_id: &str,
    address: &str,
    kind: &str,
    notification_id: Option<i64>,
    payload: &str,
    due_at: i64,
    now: i64,
) -> Result<(), StoreError> {
    diesel::insert_into(mail_outbox::table)
        .values((
            mail_outbox::account_id.eq(account_id),
            mail_outbox::address.eq(address),
            mail_outbox::kind.eq(kind),
            mail_outbox::notification_id.eq(notification_id),
            mail_outbox::payload.eq(payload),
            mail_outbox::due_at.eq(due_at),
            mail_outbox::created_at.eq(now),
        ))
        .execute(conn)?;
    if due_at <= now {
        super::changes::record(Change::MailDue);
    }
    Ok(())
}

/// What one mail carries: the account's address and the items due.
#[derive(Debug, Clone)]
pub struct ClaimedMail {
    pub address: EmailAddress,
    pub items: Vec<OutboxItem>,
    /// The claim's lease: the items are not due again before it lapses.
    pub lease_until: i64,
}

/// How long sent and given-up items are kept.
const KEEP_MS: i64 = 7 * 86_400_000;

/// The most items one mail carries; the rest go in the next.
pub const MOST_ITEMS_PER_MAIL: i64 = 50;

/// Takes the account whose mail is due and which was mailed longest ago (never first),
/// not mailed since `spacing_ms` before `now`, for this instance until `lease_until`, with
/// its due items. On PostgreSQL the address row is locked `FOR UPDATE SKIP LOCKED`, so
/// instances claiming at once take different accounts. Must run in a write transaction.
pub fn claim_next(
    conn: &mut DbConnection,
    now: i64,
    lease_until: i64,
    spacing_ms: i64,
) -> Result<Option<ClaimedMail>, StoreError> {
    use diesel::sql_types::{BigInt, Text};
    #[derive(QueryableByName)]
    struct Claimed {
        #[diesel(sql_type = Text)]
        account_id: String,
    }
    let skip_locked = match conn {
        DbConnection::Postgresql(_) => "FOR UPDATE SKIP LOCKED",
        DbConnection::Sqlite(_) => "",
    };
    let sql = format!(
        "UPDATE email_addresses SET busy_until = $1
         WHERE account_id = (
             SELECT candidate.account_id FROM email_addresses candidate
             WHERE (candidate.busy_until IS NULL OR candidate.busy_until < $2)
               AND (candidate.last_mailed_at IS NULL OR candidate.last_mailed_at <= $3)
               AND EXISTS (SELECT 1 FROM mail_outbox due
                   WHERE due.account_id = candidate.account_id AND due.sent_at IS NULL
                     AND due.failed_at IS NULL AND due.due_at <= $2)
             ORDER BY candidate.last_mailed_at NULLS FIRST, candidate.account_id
             LIMIT 1
             {skip_locked})
         RETURNING account_id"
    );
    let query = |sql: String| {
        diesel::sql_query(sql)
            .bind::<BigInt, _>(lease_until)
            .bind::<BigInt, _>(now)
            .bind::<BigInt, _>(now - spacing_ms)
    };
    let claimed: Vec<Claimed> = match conn {
        DbConnection::Postgresql(pg) => query(sql).load(pg)?,
        DbConnection::Sqlite(sqlite) => query(sql.replace('$', "?")).load(sqlite)?,
    };
    let Some(claimed) = claimed.into_iter().next() else {
        return Ok(None);
    };
    let Some(address) = address_of(conn, &claimed.account_id)? else {
        return Ok(None);
    };
    let items: Vec<OutboxItem> = mail_outbox::table
        .filter(mail_outbox::account_id.eq(&address.account_id))
        .filter(mail_outbox::address.eq(&address.address))
        .filter(mail_outbox::sent_at.is_null())
        .filter(mail_outbox::failed_at.is_null())
        .filter(mail_outbox::due_at.le(now))
        .order(mail_outbox::id.asc())
        .limit(MOST_ITEMS_PER_MAIL)
        .select(OutboxItem::as_select())
        .load(conn)?;
    let ids: Vec<i64> = items.iter().map(|item| item.id).collect();
    // The items are this claim's until its lease lapses, even if the account is freed
    // before (by the record of an older mail): an item is never in two mails at once.
    diesel::update(mail_outbox::table.filter(mail_outbox::id.eq_any(&ids)))
        .set((
            mail_outbox::attempts.eq(mail_outbox::attempts + 1),
            mail_outbox::due_at.eq(lease_until),
        ))
        .execute(conn)?;
    Ok(Some(ClaimedMail {
        address,
        items,
        lease_until,
    }))
}

/// What sending one mail came to.
#[derive(Debug, Clone)]
pub enum MailResult {
    Sent {
        message_id: String,
    },
    /// Try again at `retry_at`, or never (`None`).
    Failed {
        error: String,
        retry_at: Option<i64>,
    },
}

/// Records how the mail of `items`, claimed until `lease_until`, went, and frees the
/// account for the next claim unless another claim holds it now.
pub fn record_mail(
    conn: &mut DbConnection,
    account_id: &str,
    items: &[i64],
    lease_until: i64,
    now: i64,
    result: &MailResult,
) -> Result<(), StoreError> {
    // The address row before the items, in the order every writer takes them (a writer
    // that took them the other way round could deadlock with this one on PostgreSQL).
    let address = email_addresses::table
        .find(account_id)
        .filter(email_addresses::busy_until.eq(lease_until));
    let target = mail_outbox::table.filter(mail_outbox::id.eq_any(items));
    match result {
        MailResult::Sent { message_id } => {
            diesel::update(address)
                .set((
                    email_addresses::busy_until.eq(None::<i64>),
                    email_addresses::last_mailed_at.eq(Some(now)),
                ))
                .execute(conn)?;
            diesel::update(target)
                .set((
                    mail_outbox::sent_at.eq(Some(now)),
                    mail_outbox::message_id.eq(Some(message_id)),
                    mail_outbox::last_error.eq(None::<String>),
                    // A sent confirmation's token is not kept.
                    mail_outbox::payload.eq("{}"),
                ))
                .execute(conn)?;
            // What was sent or given up a while ago has served its purpose (the quota
            // counts a day): the account's outbox stays as small as its recent mail.
            diesel::delete(
                mail_outbox::table
                    .filter(mail_outbox::account_id.eq(account_id))
                    .filter(mail_outbox::created_at.lt(now - KEEP_MS))
                    .filter(
                        mail_outbox::sent_at
                            .is_not_null()
                            .or(mail_outbox::failed_at.is_not_null()),
                    ),
            )
            .execute(conn)?;
        }
        MailResult::Failed { error, retry_at } => {
            diesel::update(address)
                .set(email_addresses::busy_until.eq(None::<i64>))
                .execute(conn)?;
            diesel::update(target)
                .set((
                    mail_outbox::due_at.eq(retry_at.unwrap_or(now)),
                    mail_outbox::failed_at.eq(retry_at.is_none().then_some(now)),
                    mail_outbox::last_error.eq(Some(error)),
                ))
                .execute(conn)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_comes_at_the_next_chosen_hour() {
        let day = 86_400_000;
        let hour = 3_600_000;
        // 10:30 on day 3: the 7 o'clock digest is tomorrow's, the 11 o'clock one today's.
        let now = 3 * day + 10 * hour + hour / 2;
        assert_eq!(next_digest(now, 7), 4 * day + 7 * hour);
        assert_eq!(next_digest(now, 11), 3 * day + 11 * hour);
        // Exactly at the hour: the next day's.
        assert_eq!(next_digest(3 * day + 7 * hour, 7), 4 * day + 7 * hour);
    }

    #[test]
    fn topics_round_trip_through_their_bits() {
        for topic in MailTopic::ALL {
            let named = serde_json::to_value(topic).unwrap();
            assert_eq!(serde_json::from_value::<MailTopic>(named).unwrap(), topic);
            assert_eq!(MailTopic::from_bits(topic.bit()), [topic]);
        }
        assert_eq!(
            serde_json::to_value(MailTopic::GameOver).unwrap(),
            "game_over"
        );
        assert_eq!(
            MailTopic::from_bits(MailTopic::bits(&MailTopic::ALL)),
            MailTopic::ALL
        );
        assert_eq!(MailTopic::of_notification("chat_message"), None);
        assert_eq!(
            MailTopic::of_notification("game_abandoned"),
            Some(MailTopic::GameOver)
        );
    }
}
