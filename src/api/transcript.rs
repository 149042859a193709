//! A game's history as plain text for people: one numbered line per event with the seats
//! named, then the result. Redacted like the event log: a running game shows the caller
//! only what the caller may see.

use actix_web::{route, web, HttpResponse};

use super::blocking;
use super::games::game_id;
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::games::kit::seats::colour;
use crate::service::play::{self, Export};
use crate::service::{format_time, GameStatus};
use crate::store::Db;

/// The history as plain text.
///
/// One numbered line per event, the seats named by colour and account, the final scores
/// and places, and for a finished game the seed with its commitment, so the transcript
/// can be checked against the export.
#[utoipa::path(get, path = "/v1/games/{id}/transcript", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, description = "The transcript", content_type = "text/plain", body = String,
            example = "Tikal, game 482wsbxfihj2, rules version 1, 2 seats\nRed: alice\nBlue: bob\nSeed commitment: 7f0f3b42...\n\n1. A game of Tikal for 2 players is set up; the hexes and treasures are shuffled\n2. Red draws a temple of value 2 (tile-A6)\n...\n\nResult: Red alice 3 (place 2), Blue bob 36 (place 1)\n"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/transcript", method = "GET", method = "HEAD")]
pub async fn get_transcript(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let export = blocking(move || play::export(&db, &id, &user, false)).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body(transcript(&export)))
}

fn transcript(export: &Export) -> String {
    let game = &export.game.game;
    let name_of = |seat: u8| {
        export
            .game
            .seats
            .iter()
            .find(|taken| taken.seat == seat)
            .and_then(|taken| taken.display_name())
            .unwrap_or_else(|| "(open)".to_owned())
    };
    let mut lines = vec![format!(
        "{}, game {}, rules version {}, {} seats",
        export.game.rules.name(),
        game.id,
        game.rules_version,
        game.seat_count
    )];
    lines.extend((0..game.seat_count).map(|seat| format!("{}: {}", colour(seat), name_of(seat))));
    lines.push(format!("Created {}", format_time(game.created_at)));
    lines.push(format!(
        "Seed commitment: {}",
        export.game.seed_commitment()
    ));
    lines.push(String::new());
    lines.extend(
        export
            .events
            .iter()
            .map(|event| format!("{}. {}", event.seq, event.text)),
    );
    lines.push(String::new());
    match (&game.outcome, game.status) {
        (Some(outcome), _) => {
            let standing: Vec<String> = (0..game.seat_count)
                .map(|seat| {
                    let index = usize::from(seat);
                    format!(
                        "{} {} {} (place {})",
                        colour(seat),
                        name_of(seat),
                        outcome.scores.get(index).copied().unwrap_or_default(),
                        outcome.places.get(index).copied().unwrap_or_default()
                    )
                })
                .collect();
            lines.push(format!("Result: {}", standing.join(", ")));
        }
        (None, GameStatus::Open) => lines.push("Waiting for players.".to_owned()),
        (None, _) => lines.push(format!("Running, at seq {}.", game.current_seq)),
    }
    if let Some(seed) = &export.seed {
        lines.push(format!(
            "Seed: {seed} (check the export with `turnpost verify`)"
        ));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}
