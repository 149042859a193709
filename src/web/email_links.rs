//! The pages the links in mails open. Opening a link only shows a button: mail scanners
//! fetch links, and a fetch must not confirm or unsubscribe anything. The button posts to
//! the same address, which is also what a mail program's one-click unsubscribe posts
//! (RFC 8058: `List-Unsubscribe=One-Click` in the body, which is all it can say).

use actix_web::http::StatusCode;
use actix_web::{route, web, HttpResponse};
use serde::Deserialize;

use crate::clock::Clock;
use crate::error::ApiError;
use crate::service::email as mail;
use crate::store::email::EmailAddress;
use crate::store::Db;

#[derive(Debug, Deserialize)]
pub struct LinkQuery {
    token: String,
}

/// The token of a link this server wrote: letters and digits only (so it goes into the
/// page as it is).
fn token_of(query: Option<web::Query<LinkQuery>>) -> Option<String> {
    let token = query?.into_inner().token;
    (!token.is_empty() && token.len() <= 64 && token.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then_some(token)
}

fn page(status: StatusCode, title: &str, body: &str) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Content-Security-Policy", "default-src 'self'"))
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{title} - turnpost</title><link rel=\"stylesheet\" href=\"/app.css\">\
             </head><body><main><h1>{title}</h1>{body}<p><a href=\"/\">turnpost</a></p>\
             </main></body></html>"
        ))
}

fn invalid_link() -> HttpResponse {
    page(
        StatusCode::NOT_FOUND,
        "This link does not work",
        "<p>It may have expired or been replaced by a newer one.</p>",
    )
}

fn button(path: &str, token: &str, label: &str, text: &str) -> HttpResponse {
    page(
        StatusCode::OK,
        label,
        &format!(
            "<p>{text}</p><form method=\"post\" action=\"{path}?token={token}\">\
             <button type=\"submit\">{label}</button></form>"
        ),
    )
}

/// Escapes text for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// What one kind of link does: its page's button, and what its post does.
struct LinkAction {
    path: &'static str,
    label: &'static str,
    asks: &'static str,
    done_title: &'static str,
    /// The page's words once done, given the address (escaped).
    done: fn(&str) -> String,
    follow: fn(&Db, &str, i64) -> Result<EmailAddress, ApiError>,
    /// Posts are rate limited per address (confirmations: see `POST /v1/email/confirm`).
    /// Unsubscribing is not: mail providers post their users' one-click unsubscribes from
    /// a few shared addresses, and its 32-character tokens cannot be guessed anyway.
    limited: bool,
}

/// A link's page: for a GET, a button that posts to it; for the post, the action.
async fn link_page(
    action: LinkAction,
    request: actix_web::HttpRequest,
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    query: Option<web::Query<LinkQuery>>,
) -> HttpResponse {
    let Some(token) = token_of(query) else {
        return invalid_link();
    };
    if request.method() != actix_web::http::Method::POST {
        return button(action.path, &token, action.label, action.asks);
    }
    if let Some(limits) = request
        .app_data::<web::Data<crate::api::rate_limit::RateLimits>>()
        .filter(|_| action.limited)
    {
        let address = limits.client_address(&request);
        if let Err(refusal) = limits
            .email_confirmations_per_address
            .take(&db, &address)
            .await
        {
            return page(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many tries",
                &format!("<p>{}</p>", escape(&refusal.to_string())),
            );
        }
    }
    let now = clock.now_millis();
    let follow = action.follow;
    match web::block(move || follow(&db, &token, now)).await {
        Ok(Ok(address)) => page(
            StatusCode::OK,
            action.done_title,
            &(action.done)(&escape(&address.address)),
        ),
        _ => invalid_link(),
    }
}

/// The page of a confirmation link: a button that confirms.
#[route("/email/confirm", method = "GET", method = "HEAD", method = "POST")]
pub async fn confirm_page(
    request: actix_web::HttpRequest,
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    query: Option<web::Query<LinkQuery>>,
) -> HttpResponse {
    let action = LinkAction {
        path: "/email/confirm",
        label: "Confirm your mail address",
        asks: "Confirm that turnpost may mail you here.",
        done_title: "Mail address confirmed",
        done: |address| format!("<p>turnpost mails {address} what you chose.</p>"),
        follow: mail::confirm,
        limited: true,
    };
    link_page(action, request, db, clock, query).await
}

/// The page of an unsubscribe link: a button that unsubscribes; what mail programs post.
#[route("/email/unsubscribe", method = "GET", method = "HEAD", method = "POST")]
pub async fn unsubscribe_page(
    request: actix_web::HttpRequest,
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    query: Option<web::Query<LinkQuery>>,
) -> HttpResponse {
    let action = LinkAction {
        path: "/email/unsubscribe",
        label: "Unsubscribe",
        asks: "Stop every mail from turnpost to this address.",
        done_title: "Unsubscribed",
        done: |address| {
            format!(
                "<p>turnpost mails nothing more to {address}. Choose again in your account's \
                 settings.</p>"
            )
        },
        follow: mail::unsubscribe,
        limited: false,
    };
    link_page(action, request, db, clock, query).await
}
