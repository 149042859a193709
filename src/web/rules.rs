//! Each game's rules page (and the vocabulary they share), rendered from the Markdown in
//! `docs/` into the binary, so that the page a player opens from a game is the very text
//! the repository keeps. Headings get GitHub's anchors, so the pages' links within and
//! between themselves keep working.

use std::collections::HashMap;
use std::sync::OnceLock;

use actix_web::{route, web, HttpResponse};
use pulldown_cmark::{html, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// The pages: their path under `/rules/`, their title and their Markdown.
const PAGES: [(&str, &str, &str); 4] = [
    ("tikal", "Tikal", include_str!("../../docs/rules/tikal.md")),
    ("java", "Java", include_str!("../../docs/rules/java.md")),
    (
        "eternal-palace",
        "Eternal Palace",
        include_str!("../../docs/rules/eternal-palace.md"),
    ),
    (
        "vocabulary",
        "The shared vocabulary",
        include_str!("../../docs/vocabulary.md"),
    ),
];

/// GitHub's anchor for a heading: lower case, spaces to hyphens, punctuation dropped.
fn anchor(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c == ' ' {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Where a link of the Markdown goes on the site: the other pages by their route.
fn site_link(target: &str) -> String {
    let (path, fragment) = target
        .split_once('#')
        .map_or((target, None), |(p, f)| (p, Some(f)));
    let page = path
        .trim_start_matches("../")
        .trim_start_matches("rules/")
        .trim_end_matches(".md");
    let routed = if path.is_empty() {
        String::new()
    } else if PAGES.iter().any(|(name, _, _)| *name == page) {
        format!("/rules/{page}")
    } else {
        return target.to_owned();
    };
    match fragment {
        Some(fragment) => format!("{routed}#{fragment}"),
        None => routed,
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The Markdown as HTML, each heading with its anchor (`id`), numbered like GitHub's when
/// two headings have the same words.
fn render(markdown: &str) -> String {
    let mut used: HashMap<String, usize> = HashMap::new();
    let mut events: Vec<Event> = Vec::new();
    let mut heading: Option<(HeadingLevel, Vec<Event>)> = None;
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        let event = match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Link {
                link_type,
                dest_url: CowStr::from(site_link(&dest_url)),
                title,
                id,
            }),
            other => other,
        };
        match (&mut heading, event) {
            (None, Event::Start(Tag::Heading { level, .. })) => {
                heading = Some((level, Vec::new()));
            }
            (Some(_), Event::End(TagEnd::Heading(_))) => {
                let (level, inner) = heading.take().unwrap_or((HeadingLevel::H2, Vec::new()));
                let words: String = inner
                    .iter()
                    .filter_map(|event| match event {
                        Event::Text(text) | Event::Code(text) => Some(text.as_ref()),
                        _ => None,
                    })
                    .collect();
                let base = anchor(&words);
                let seen = used.entry(base.clone()).or_insert(0);
                let id = if *seen == 0 {
                    base
                } else {
                    format!("{base}-{seen}")
                };
                *seen += 1;
                let mut inner_html = String::new();
                html::push_html(&mut inner_html, inner.into_iter());
                events.push(Event::Html(CowStr::from(format!(
                    "<{level} id=\"{}\">{inner_html}</{level}>\n",
                    escape(&id)
                ))));
            }
            (Some((_, inner)), event) => inner.push(event),
            (None, event) => events.push(event),
        }
    }
    let mut out = String::new();
    html::push_html(&mut out, events.into_iter());
    out
}

/// The whole HTML page of rules page `name`, or `None` when there is none.
fn page(name: &str) -> Option<&'static str> {
    static RENDERED: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    let rendered = RENDERED.get_or_init(|| {
        PAGES
            .iter()
            .map(|(name, title, markdown)| {
                let others: Vec<String> = PAGES
                    .iter()
                    .filter(|(other, _, _)| other != name)
                    .map(|(other, title, _)| format!("<a href=\"/rules/{other}\">{title}</a>"))
                    .collect();
                let html = format!(
                    "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
                     <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
                     <title>{title}: the rules - turnpost</title>\n\
                     <link rel=\"stylesheet\" href=\"/app.css\">\n\
                     <link rel=\"manifest\" href=\"/manifest.webmanifest\">\n</head>\n\
                     <body class=\"rules-page\">\n<nav aria-label=\"Pages\"><a href=\"/\">turnpost</a> \
                     · {}</nav>\n<main>\n{}</main>\n</body>\n</html>\n",
                    others.join(" · "),
                    render(markdown)
                );
                (*name, html)
            })
            .collect()
    });
    let name = if name == "eternal_palace" {
        "eternal-palace"
    } else {
        name
    };
    rendered
        .iter()
        .find(|(page, _)| *page == name)
        .map(|(_, html)| html.as_str())
}

/// A game's rules (`tikal`, `java`, `eternal-palace`, or the kind's name
/// `eternal_palace`), or the vocabulary they share.
#[route("/rules/{name}", method = "GET", method = "HEAD")]
pub async fn rules_page(name: web::Path<String>) -> HttpResponse {
    match page(&name) {
        Some(html) => HttpResponse::Ok()
            .content_type("text/html; charset=utf-8")
            .insert_header((
                "Content-Security-Policy",
                "default-src 'self'; style-src 'self' 'unsafe-inline'",
            ))
            .insert_header(("Cache-Control", "public, max-age=3600"))
            .body(html),
        None => actix_web::ResponseError::error_response(&crate::error::ApiError::not_found(
            "route_not_found",
            "there are rules pages for tikal, java, eternal-palace and vocabulary",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_githubs_anchors_and_links_their_routes() {
        let html = render(
            "# Tikal\n\n## Decisions where the texts are silent\n\nSee \
             [the vocabulary](../vocabulary.md#around-the-rules-clocks-forfeits-and-bots), \
             [Java](rules/java.md#board) and [below](#decisions-where-the-texts-are-silent).\n\n\
             ## `tikal-R2`: the limit per turn (or per round)\n\n## Options\n\n## Options\n",
        );
        assert!(html.contains(r#"<h1 id="tikal">Tikal</h1>"#), "{html}");
        assert!(html.contains(r#"<h2 id="decisions-where-the-texts-are-silent">"#));
        assert!(
            html.contains(r#"href="/rules/vocabulary#around-the-rules-clocks-forfeits-and-bots""#)
        );
        assert!(html.contains(r##"href="/rules/java#board""##));
        assert!(html.contains(r##"href="#decisions-where-the-texts-are-silent""##));
        assert!(
            html.contains(r#"id="tikal-r2-the-limit-per-turn-or-per-round""#),
            "{html}"
        );
        assert!(html.contains(r#"<h2 id="options">"#) && html.contains(r#"<h2 id="options-1">"#));
    }

    #[test]
    fn every_anchor_a_rules_page_links_to_is_there() {
        for (name, _, _) in PAGES {
            let html = page(name).unwrap();
            let mut at = 0;
            while let Some(found) = html[at..].find("href=\"") {
                let start = at + found + 6;
                let end = start + html[start..].find('"').unwrap();
                let target = &html[start..end];
                at = end;
                let (path, fragment) = match target.split_once('#') {
                    Some((path, fragment)) => (path, fragment),
                    None => continue,
                };
                let linked = if path.is_empty() {
                    html
                } else {
                    page(path.trim_start_matches("/rules/"))
                        .unwrap_or_else(|| panic!("{name} links to {target}"))
                };
                assert!(
                    linked.contains(&format!("id=\"{fragment}\"")),
                    "{name} links to {target}, which has no such anchor"
                );
            }
        }
        assert!(page("eternal_palace").is_some() && page("chess").is_none());
    }
}
