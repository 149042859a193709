//! The pages the links in mails open. Opening a link only shows a button: mail scanners
//! fetch links, and a fetch must not confirm or unsubscribe anything. The button posts to
//! the same address, which is also what a mail program's one-click unsubscribe posts
//! (RFC 8058: `List-Unsubscribe=One-Click` in the body, which is all it can say).

use actix_web::http::StatusCode;
use actix_web::{route, web, HttpResponse};
use serde::Deserialize;

use crate::clock::Clock;
use crate::service::email as mail;
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

/// The page of a confirmation link: a button that confirms.
#[route("/email/confirm", method = "GET", method = "HEAD", method = "POST")]
pub async fn confirm_page(
    request: actix_web::HttpRequest,
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    query: Option<web::Query<LinkQuery>>,
) -> HttpResponse {
    let Some(token) = token_of(query) else {
        return invalid_link();
    };
    if request.method() != actix_web::http::Method::POST {
        return button(
            "/email/confirm",
            &token,
            "Confirm your mail address",
            "Confirm that turnpost may mail you here.",
        );
    }
    let now = clock.now_millis();
    match web::block(move || mail::confirm(&db, &token, now)).await {
        Ok(Ok(address)) => page(
            StatusCode::OK,
            "Mail address confirmed",
            &format!(
                "<p>turnpost mails {} what you chose.</p>",
                escape(&address.address)
            ),
        ),
        _ => invalid_link(),
    }
}

/// The page of an unsubscribe link: a button that unsubscribes; what mail programs post.
#[route("/email/unsubscribe", method = "GET", method = "HEAD", method = "POST")]
pub async fn unsubscribe_page(
    request: actix_web::HttpRequest,
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    query: Option<web::Query<LinkQuery>>,
) -> HttpResponse {
    let Some(token) = token_of(query) else {
        return invalid_link();
    };
    if request.method() != actix_web::http::Method::POST {
        return button(
            "/email/unsubscribe",
            &token,
            "Unsubscribe",
            "Stop every mail from turnpost to this address.",
        );
    }
    let now = clock.now_millis();
    match web::block(move || mail::unsubscribe(&db, &token, now)).await {
        Ok(Ok(address)) => page(
            StatusCode::OK,
            "Unsubscribed",
            &format!(
                "<p>turnpost mails nothing more to {}. Choose again in your account's \
                 settings.</p>",
                escape(&address.address)
            ),
        ),
        _ => invalid_link(),
    }
}
