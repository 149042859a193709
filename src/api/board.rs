//! A picture of the board: the server draws every kind from the view, so a link is enough to
//! follow a game and any client can show it.

use actix_web::{route, web, HttpResponse};

use super::blocking;
use super::games::game_id;
use super::play::ViewQuery;
use crate::auth::AuthUser;
use crate::error::{ApiError, Problem};
use crate::games::engine::Viewer;
use crate::games::pictures::{board_svg, BoardContext};
use crate::service::fold_cache::FoldCache;
use crate::service::play;
use crate::store::Db;

/// The board as an SVG picture, now or at any past seq.
///
/// Drawn from the same view `GET /v1/games/{id}/view` returns, so it shows exactly what the
/// caller may see: a spectator's picture holds no secret, not even in its markup. Spaces,
/// pieces in seat colours, scores, whose turn, and the last action's spaces highlighted;
/// every space carries `data-space="<id>"`, the value `legal-actions?space=` takes.
#[utoipa::path(get, path = "/v1/games/{id}/board.svg", tag = "play",
    params(("id" = String, Path, description = "Game id"), ViewQuery),
    responses(
        (status = 200, description = "The picture", content_type = "image/svg+xml", body = String),
        (status = 409, description = "`game_not_started`; `seq_out_of_range`: the game has not reached `at`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/board.svg", method = "GET", method = "HEAD")]
pub async fn get_board(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<ViewQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let at = query.into_inner().at;
    let board = blocking(move || play::board(&db, &cache, &id, &user, at)).await?;
    let svg = picture(&board.view, board.seat_names, board.last_events)?;
    Ok(HttpResponse::Ok()
        .content_type("image/svg+xml; charset=utf-8")
        .body(svg))
}

/// The board of `view` as SVG, with what `last_events` did highlighted and the last one's
/// text as the caption.
pub(super) fn picture(
    view: &play::ViewAt,
    seat_names: Vec<Option<String>>,
    last_events: Vec<play::DescribedEvent>,
) -> Result<String, ApiError> {
    let context = BoardContext {
        seq: view.seq,
        seat_names,
        to_act: view.to_act.clone(),
        finished: view.finished,
        viewer_seat: match view.viewer {
            Viewer::Seat(seat) => Some(seat),
            Viewer::Spectator | Viewer::Omniscient => None,
        },
        // The caption says what happened last, not the clock that started after it.
        last_text: last_events
            .iter()
            .rev()
            .find(|event| {
                !(event.from_server
                    && crate::games::server_events::ServerEvent::is_clock_event(&event.event_type))
            })
            .or(last_events.last())
            .map(|event| event.text.clone()),
        last_events: last_events.into_iter().map(|event| event.payload).collect(),
    };
    board_svg(&view.kind, &view.view.to_value(), &context)
        .map_err(|error| ApiError::Internal(format!("drawing the board failed: {error}")))
}
