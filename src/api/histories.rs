//! Finished games in bulk, for people who keep and study their games.

use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::web::Bytes;
use actix_web::{route, web, HttpMessage, HttpRequest, HttpResponse};
use futures_core::Stream;
use serde::Deserialize;
use tokio::sync::mpsc;
use utoipa::{IntoParams, ToSchema};

use super::blocking;
use super::moments::moment;
use super::play::GameExport;
use super::rate_limit::RateLimits;
use super::request_slots::Slot;
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::service::histories::{self, ExportSelection, GameResult};
use crate::service::play;
use crate::store::Db;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// Only games this account played (by name, any case).
    pub player: Option<String>,
    /// Only games of this kind.
    pub kind: Option<String>,
    /// Only games that finished at or after this moment (RFC 3339).
    #[param(format = DateTime, example = "2026-11-01T00:00:00Z")]
    pub since: Option<String>,
    /// Only games that finished before this moment (RFC 3339).
    #[param(format = DateTime, example = "2026-12-01T00:00:00Z")]
    pub until: Option<String>,
    /// Only games the `player` (without `player`: you) won (first place, shared or not) or
    /// lost.
    pub result: Option<ResultFilter>,
    /// Whether each document holds the game's chat (default `true`).
    pub chat: Option<bool>,
}

#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultFilter {
    Won,
    Lost,
}

/// Finished games in bulk, as NDJSON: one complete `GameExport` document a line, in the
/// order the games finished, each verifiable with `turnpost verify`.
///
/// The stream starts at once and is written game by game as the client reads it; until its
/// last line it holds one of the account's slots for requests under way (429
/// `too_many_requests_in_flight` for requests beyond them). Each account may start 30 bulk
/// exports an hour (429 `rate_limited` beyond). Without `player`
/// it holds every finished game (of `kind`, if given), for research.
#[utoipa::path(get, path = "/v1/exports", tag = "play", params(ExportQuery),
    responses(
        (status = 200, description = "One finished game's export document per line", content_type = "application/x-ndjson", body = GameExport),
        (status = 400, description = "`invalid_query`: a time that is not RFC 3339", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`account_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_game_kind`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited` (with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/exports", method = "GET", method = "HEAD")]
pub async fn bulk_export(
    db: web::Data<Db>,
    limits: web::Data<RateLimits>,
    user: AuthUser,
    query: web::Query<ExportQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let with_chat = query.chat.unwrap_or(true);
    let selection = selection(query, &user)?;
    limits
        .bulk_exports_per_account
        .take(&db, &user.account_id)
        .await?;
    let reader = db.clone();
    let ids = blocking(move || histories::select_finished_games(&reader, &selection)).await?;
    // A few documents ahead of the client at most: a slow reader holds the writer back
    // instead of making the server buffer its whole history.
    let (sender, receiver) = mpsc::channel::<Result<Bytes, actix_web::Error>>(4);
    // The server works for this request until the last line, after its head has left: the
    // account's slot goes with the work (see `request_slots`).
    let slot = request.extensions_mut().remove::<Slot>();
    actix_web::rt::spawn(async move {
        let _slot = slot;
        for id in ids {
            let (db, caller) = (db.clone(), user.clone());
            let line = blocking(move || play::export(&db, &id, &caller, with_chat))
                .await
                .map(|export| {
                    let mut line =
                        serde_json::to_vec(&GameExport::of(export, &user)).unwrap_or_default();
                    line.push(b'\n');
                    Bytes::from(line)
                })
                .map_err(actix_web::Error::from);
            let failed = line.is_err();
            if sender.send(line).await.is_err() || failed {
                break;
            }
        }
    });
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .streaming(Lines(receiver)))
}

fn selection(query: ExportQuery, caller: &AuthUser) -> Result<ExportSelection, ApiError> {
    super::games::check_kind_filter(query.kind.as_deref())?;
    // A result is someone's: the caller's own unless `player` names another.
    let player = match (query.player, query.result) {
        (None, Some(_)) => Some(caller.name.clone()),
        (player, _) => player,
    };
    Ok(ExportSelection {
        player,
        kind: query.kind,
        since: moment(query.since.as_deref(), "since")?.unwrap_or(i64::MIN),
        until: moment(query.until.as_deref(), "until")?.unwrap_or(i64::MAX),
        result: query.result.map(|result| match result {
            ResultFilter::Won => GameResult::Won,
            ResultFilter::Lost => GameResult::Lost,
        }),
        viewer: caller.account_id.clone(),
    })
}

/// The response body: the lines as the exporting task sends them.
struct Lines(mpsc::Receiver<Result<Bytes, actix_web::Error>>);

impl Stream for Lines {
    type Item = Result<Bytes, actix_web::Error>;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(context)
    }
}
