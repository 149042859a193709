//! The web page: plain HTML, CSS and JavaScript compiled into the binary, using only the
//! public API (sign in, list games, watch a board, step through the history, play).

pub mod email_links;

use actix_web::{route, HttpResponse};

const PAGE: &str = include_str!("index.html");
const SCRIPT: &str = include_str!("app.js");
const STYLE: &str = include_str!("app.css");

fn page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
        ))
        .body(PAGE)
}

/// The lobby (or the sign-in form).
#[route("/", method = "GET", method = "HEAD")]
pub async fn home() -> HttpResponse {
    page()
}

/// One game: its board, its history and, on your turn, your moves.
#[route("/games/{id}", method = "GET", method = "HEAD")]
pub async fn game_page() -> HttpResponse {
    page()
}

#[route("/app.js", method = "GET", method = "HEAD")]
pub async fn script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .body(SCRIPT)
}

#[route("/app.css", method = "GET", method = "HEAD")]
pub async fn style() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .body(STYLE)
}
