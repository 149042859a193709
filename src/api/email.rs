//! An account's mail address, what is mailed to it, and the links mails carry.

use actix_web::{route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use crate::auth::user::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::service::email::{self as mail, MailLinks, NewSettings};
use crate::store::email::{EmailAddress, MailChoices, MailTopic};
use crate::store::Db;

/// Your mail address and what is mailed to it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EmailSettings {
    /// `null` when the account has none.
    #[schema(example = "ada@example.org")]
    pub address: Option<String>,
    /// Nothing but the confirmation is mailed until the link in it was followed.
    pub confirmed: bool,
    /// What is mailed, once confirmed.
    #[schema(example = json!(["your_turn", "reminder", "invitation"]))]
    pub topics: Vec<MailTopic>,
    /// The chosen notifications wait for one mail a day at `digest_hour` instead.
    pub digest: bool,
    /// The hour (UTC, 0-23) of the daily digest.
    #[schema(minimum = 0, maximum = 23, example = 7)]
    pub digest_hour: u8,
    /// Whether this server sends mail at all (without, it refuses addresses with 409
    /// `mail_not_configured`).
    pub mail_available: bool,
}

/// A new mail address or new choices. A new address gets a confirmation mail (its link
/// works 48 hours) and nothing else until it is confirmed; the same address again only
/// changes the choices.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailSettingsChange {
    /// `null` removes the address and everything waiting to be mailed to it. Up to three
    /// dot-separated words of letters, digits and `_%+-` before the `@` (64 characters at
    /// most), a domain of two or more labels after it.
    #[schema(
        example = "ada@example.org",
        max_length = 254,
        pattern = "^([A-Za-z0-9_%+-]{1,64}|[A-Za-z0-9_%+-]{1,31}[.][A-Za-z0-9_%+-]{1,32}|[A-Za-z0-9_%+-]{1,20}[.][A-Za-z0-9_%+-]{1,20}[.][A-Za-z0-9_%+-]{1,22})@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?([.][A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"
    )]
    pub address: Option<String>,
    /// Default: all five.
    #[serde(default = "all_topics")]
    #[schema(example = json!(["your_turn", "reminder", "invitation"]))]
    pub topics: Vec<MailTopic>,
    /// Default: false (each notification mailed as it comes, at most one mail a minute).
    #[serde(default)]
    #[schema(example = false)]
    pub digest: bool,
    /// Default: 7.
    #[serde(default = "default_digest_hour")]
    #[schema(minimum = 0, maximum = 23, example = 7)]
    pub digest_hour: u8,
}

fn all_topics() -> Vec<MailTopic> {
    MailTopic::ALL.to_vec()
}

fn default_digest_hour() -> u8 {
    7
}

/// The token of a link a mail carried.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MailToken {
    #[schema(
        example = "k3v9x2m4q8r7t6y5k3v9x2m4q8r7t6y5",
        pattern = "^[A-Za-z0-9]{1,64}$"
    )]
    pub token: String,
}

/// The address a link was about.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MailLinkFollowed {
    #[schema(example = "ada@example.org")]
    pub address: String,
}

fn settings_out(address: Option<EmailAddress>, links: &MailLinks) -> EmailSettings {
    match address {
        Some(address) => EmailSettings {
            confirmed: address.confirmed_at.is_some(),
            topics: MailTopic::from_bits(address.topics),
            digest: address.digest,
            digest_hour: u8::try_from(address.digest_hour).unwrap_or(7),
            address: Some(address.address),
            mail_available: links.mail_configured,
        },
        None => EmailSettings {
            address: None,
            confirmed: false,
            topics: Vec::new(),
            digest: false,
            digest_hour: default_digest_hour(),
            mail_available: links.mail_configured,
        },
    }
}

/// Your mail address and what is mailed to it.
#[utoipa::path(get, path = "/v1/me/email", tag = "notifications",
    responses(
        (status = 200, body = EmailSettings),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/email", method = "GET", method = "HEAD")]
pub async fn get_email(
    db: web::Data<Db>,
    links: web::Data<MailLinks>,
    user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let address = blocking(move || {
        Ok(db.read(|conn| crate::store::email::address_of(conn, &user.account_id))?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(settings_out(address, &links)))
}

/// Set your mail address and what is mailed to it: your turn, reminders, games over,
/// invitations and mentions, each as it comes (one mail a minute at most, carrying all
/// that came) or in a daily digest. A new address is mailed a confirmation link first;
/// every other mail has a one-click unsubscribe link (`List-Unsubscribe`).
#[utoipa::path(put, path = "/v1/me/email", tag = "notifications",
    request_body = EmailSettingsChange,
    responses(
        (status = 200, description = "What is now set", body = EmailSettings),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`mail_not_configured`: this server sends no mail", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_email_address`, `invalid_email_settings`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: 5 confirmation mails a day per account, 3 to one address", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/email", method = "PUT")]
pub async fn set_email(
    db: web::Data<Db>,
    links: web::Data<MailLinks>,
    clock: web::Data<Clock>,
    user: AuthUser,
    body: super::transport::Json<EmailSettingsChange>,
) -> Result<HttpResponse, ApiError> {
    let update = body.into_inner();
    if update.digest_hour > 23 {
        return Err(ApiError::unprocessable(
            "invalid_email_settings",
            "digest_hour is an hour of the day, 0 to 23",
        ));
    }
    let address = update
        .address
        .as_deref()
        .map(mail::parse_address)
        .transpose()?;
    let topics = update.topics;
    let settings = NewSettings {
        address,
        choices: MailChoices {
            topics: MailTopic::bits(&topics),
            digest: update.digest,
            digest_hour: i32::from(update.digest_hour),
        },
    };
    let now = clock.now_millis();
    let links_for_work = links.clone();
    let address =
        blocking(move || mail::set(&db, &links_for_work, &user.account_id, settings, now)).await?;
    Ok(HttpResponse::Ok().json(settings_out(address, &links)))
}

/// Mail a new confirmation link to your unconfirmed address (the earlier link stops
/// working).
#[utoipa::path(post, path = "/v1/me/email/confirmation", tag = "notifications",
    responses(
        (status = 202, description = "The confirmation mail is queued", body = EmailSettings),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`no_email_address`, `email_already_confirmed`, `mail_not_configured`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: 5 confirmation mails a day per account, 3 to one address", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/email/confirmation", method = "POST")]
pub async fn resend_confirmation(
    db: web::Data<Db>,
    links: web::Data<MailLinks>,
    clock: web::Data<Clock>,
    user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let now = clock.now_millis();
    let links_for_work = links.clone();
    let address =
        blocking(move || mail::resend_confirmation(&db, &links_for_work, &user.account_id, now))
            .await?;
    Ok(HttpResponse::Accepted().json(settings_out(Some(address), &links)))
}

/// Confirm a mail address with the token of the link mailed to it (no sign-in needed: the
/// token is the proof). The page the link opens calls this.
#[utoipa::path(post, path = "/v1/email/confirm", tag = "notifications",
    request_body = MailToken,
    security(()),
    responses(
        (status = 200, description = "The address is confirmed", body = MailLinkFollowed),
        (status = 404, description = "`confirmation_not_found`: expired, replaced or used", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many confirmation tokens tried from this address (20 an hour by default, counted across instances; with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/email/confirm", method = "POST")]
pub async fn confirm_email(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    limits: web::Data<super::rate_limit::RateLimits>,
    request: HttpRequest,
    body: super::transport::Json<MailToken>,
) -> Result<HttpResponse, ApiError> {
    // A token is 32 letters and digits: guessing one is hopeless, and a flood of guesses
    // is refused before it reaches the tokens.
    limits
        .email_confirmations_per_address
        .take(&db, &limits.client_address(&request))
        .await?;
    let token = body.into_inner().token;
    let now = clock.now_millis();
    let address = blocking(move || mail::confirm(&db, &token, now)).await?;
    Ok(HttpResponse::Ok().json(MailLinkFollowed {
        address: address.address,
    }))
}

/// Stop every mail but confirmations to the address of an unsubscribe link (no sign-in
/// needed). Mail programs use the link itself (`List-Unsubscribe-Post`).
#[utoipa::path(post, path = "/v1/email/unsubscribe", tag = "notifications",
    request_body = MailToken,
    security(()),
    responses(
        (status = 200, description = "Nothing more is mailed there", body = MailLinkFollowed),
        (status = 404, description = "`unsubscribe_not_found`: the address changed or was removed", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/email/unsubscribe", method = "POST")]
pub async fn unsubscribe_email(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    body: super::transport::Json<MailToken>,
) -> Result<HttpResponse, ApiError> {
    let token = body.into_inner().token;
    let now = clock.now_millis();
    let address = blocking(move || mail::unsubscribe(&db, &token, now)).await?;
    Ok(HttpResponse::Ok().json(MailLinkFollowed {
        address: address.address,
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_spec_states_the_address_pattern_the_server_checks() {
        let schema =
            serde_json::to_value(<super::EmailSettingsChange as utoipa::PartialSchema>::schema())
                .unwrap();
        assert_eq!(
            schema["properties"]["address"]["pattern"],
            crate::service::email::ADDRESS_PATTERN
        );
    }
}
