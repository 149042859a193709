//! A picture of the board: the server draws every kind from the view, so a link is enough to
//! follow a game and any client can show it.

use actix_web::{route, web, HttpResponse};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::blocking;
use super::games::game_id;
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::games::engine::Viewer;
use crate::games::pictures::{board_svg, BoardContext, Layout};
use crate::service::fold_cache::FoldCache;
use crate::service::play;
use crate::store::Db;

/// How a board picture is laid out for the screen that shows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BoardLayout {
    /// The board with the seats beside it, to be scaled to the screen as a whole.
    #[default]
    Wide,
    /// For a phone: the board, the game's own panels (Eternal Palace: its locations as a
    /// list of cards, the bridge, each module) and the seats one under the other, as nested
    /// `<svg class="part part-NAME" data-part="NAME">` elements. Each is drawn so that
    /// shown at one unit per CSS pixel (its `width` attribute) no text is under 11 px; a page
    /// may move the parts into blocks of its own and pan the ones wider than the screen.
    Narrow,
}

impl From<BoardLayout> for Layout {
    fn from(layout: BoardLayout) -> Layout {
        match layout {
            BoardLayout::Wide => Layout::Wide,
            BoardLayout::Narrow => Layout::Narrow,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// Show the game as it was right after this seq (default: now).
    #[param(minimum = 0, example = 12)]
    pub at: Option<i64>,
    /// `wide` (default): the board with the seats beside it, to be scaled as a whole;
    /// `narrow`: for a phone, in parts each readable at one unit per CSS pixel (a part
    /// wider than the screen is meant to be panned).
    #[serde(default)]
    #[param(inline)]
    pub layout: BoardLayout,
}

/// The board as an SVG picture, now or at any past seq.
///
/// Drawn from the same view `GET /v1/games/{id}/view` returns, so it shows exactly what the
/// caller may see: a spectator's picture holds no secret, not even in its markup. Spaces,
/// pieces in seat colours, scores, whose turn, and the last action's spaces highlighted;
/// every space carries `data-space="<id>"`, the value `legal-actions?space=` takes.
/// `layout=narrow` lays the picture out for a phone: the board, the game's own panels and the
/// seats one under the other, as nested `<svg class="part part-NAME" data-part="NAME">`
/// elements, each scaled so that shown at its `width` in CSS pixels no text is under 11 px.
#[utoipa::path(get, path = "/v1/games/{id}/board.svg", tag = "play",
    params(("id" = String, Path, description = "Game id"), BoardQuery),
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
    query: web::Query<BoardQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let BoardQuery { at, layout } = query.into_inner();
    let board = blocking(move || play::board(&db, &cache, &id, &user, at)).await?;
    let svg = picture(&board.view, board.seat_names, board.last_events, layout)?;
    Ok(HttpResponse::Ok()
        .content_type("image/svg+xml; charset=utf-8")
        .body(svg))
}

/// The board of `view` as SVG in `layout`, with what `last_events` did highlighted and the
/// last one's text as the caption.
pub(super) fn picture(
    view: &play::ViewAt,
    seat_names: Vec<Option<String>>,
    last_events: Vec<play::DescribedEvent>,
    layout: BoardLayout,
) -> Result<String, ApiError> {
    let context = BoardContext {
        layout: layout.into(),
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
