//! The web page: plain HTML, CSS and JavaScript compiled into the binary, using only the
//! public API (sign in, list games, watch a board, step through the history, play). It is
//! installable (a web app manifest and icons), and its service worker keeps the shell on
//! the device and shows Web Push messages.

pub mod email_links;
pub mod rules;

use std::sync::OnceLock;

use actix_web::{route, HttpResponse};
use sha2::{Digest, Sha256};

const PAGE: &str = include_str!("index.html");
const SCRIPT: &str = include_str!("app.js");
const PEOPLE_SCRIPT: &str = include_str!("people.js");
const STYLE: &str = include_str!("app.css");
const SERVICE_WORKER: &str = include_str!("sw.js");
const MANIFEST: &str = include_str!("manifest.webmanifest");
const ICON_192: &[u8] = include_bytes!("icon-192.png");
const ICON_512: &[u8] = include_bytes!("icon-512.png");

/// The shell's version: a hash of everything the service worker caches, so that any
/// change to the page is a new worker (and a new cache) on the devices.
fn shell_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut hash = Sha256::new();
        for part in [
            PAGE.as_bytes(),
            SCRIPT.as_bytes(),
            PEOPLE_SCRIPT.as_bytes(),
            STYLE.as_bytes(),
            SERVICE_WORKER.as_bytes(),
            MANIFEST.as_bytes(),
            ICON_192,
            ICON_512,
        ] {
            hash.update((part.len() as u64).to_be_bytes());
            hash.update(part);
        }
        hash.finalize()[..8]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    })
}

fn service_worker() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| SERVICE_WORKER.replace("__SHELL_VERSION__", shell_version()))
}

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

/// The people around the games: a player's page, the leaderboards, the archive and the
/// games to watch (the page shows each from its path).
#[route("/players/{name}", method = "GET", method = "HEAD")]
pub async fn player_page() -> HttpResponse {
    page()
}

#[route("/leaderboards", method = "GET", method = "HEAD")]
pub async fn leaderboards_page() -> HttpResponse {
    page()
}

#[route("/leaderboards/{kind}", method = "GET", method = "HEAD")]
pub async fn leaderboard_page() -> HttpResponse {
    page()
}

#[route("/archive", method = "GET", method = "HEAD")]
pub async fn archive_page() -> HttpResponse {
    page()
}

#[route("/watch", method = "GET", method = "HEAD")]
pub async fn watch_page() -> HttpResponse {
    page()
}

#[route("/people.js", method = "GET", method = "HEAD")]
pub async fn people_script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .body(PEOPLE_SCRIPT)
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

/// The service worker, at the root so that it serves the whole site; never cached by HTTP,
/// so that browsers see a new version at once.
#[route("/sw.js", method = "GET", method = "HEAD")]
pub async fn service_worker_script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("Cache-Control", "no-cache"))
        .body(service_worker())
}

#[route("/manifest.webmanifest", method = "GET", method = "HEAD")]
pub async fn manifest() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/manifest+json")
        .body(MANIFEST)
}

#[route("/icon-{size}.png", method = "GET", method = "HEAD")]
pub async fn icon(size: actix_web::web::Path<String>) -> HttpResponse {
    let bytes = match size.as_str() {
        "192" => ICON_192,
        "512" => ICON_512,
        _ => return HttpResponse::NotFound().finish(),
    };
    HttpResponse::Ok()
        .content_type("image/png")
        .insert_header(("Cache-Control", "public, max-age=86400"))
        .body(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_carries_the_shells_version() {
        assert_eq!(shell_version().len(), 16);
        assert!(service_worker().contains(shell_version()));
        assert!(!service_worker().contains("__SHELL_VERSION__"));
        let parsed_manifest: serde_json::Value = serde_json::from_str(MANIFEST).unwrap();
        assert_eq!(parsed_manifest["start_url"], "/");
        assert_eq!(&ICON_192[1..4], b"PNG");
    }
}
