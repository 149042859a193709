//! Playing a game: views, legal actions, acting, the turn log and the export.

use crate::games::bots::BotStrategy;
use crate::games::server_events::TimeControl;
use actix_web::http::header::ContentType;
use actix_web::{post, route, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::blocking;
use super::games::game_id;
use super::metrics::{Metrics, PlayPath};
use super::models::{
    ActionAccepted, EventOut, GameOutcome, GameStatus, IdempotencyHeader, SeatInfo, ViewOut,
};
use super::paging::{page_response, Pager};
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::games::engine::Viewer;
use crate::service::actions::{self, ActionRequest};
use crate::service::fold_cache::FoldCache;
use crate::service::play::{self, ActionFilter, NotOnWorker};
use crate::service::play_on_worker;
use crate::store::Db;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ViewQuery {
    /// Show the game as it was right after this seq (default: now).
    #[param(minimum = 0, example = 12)]
    pub at: Option<i64>,
}

/// The game as the caller may see it, now or at any past seq.
///
/// A seated caller sees its own secrets; anyone else gets the spectator view.
#[utoipa::path(get, path = "/v1/games/{id}/view", tag = "play",
    params(("id" = String, Path, description = "Game id"), ViewQuery),
    responses(
        (status = 200, body = ViewOut),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`: the game was started under a rules version this server cannot play (a newer server started it); another instance may serve it", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_started`; `seq_out_of_range`: the game has not reached `at`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/view", method = "GET", method = "HEAD")]
pub async fn get_view(
    db: web::Data<Db>,
    metrics: web::Data<Metrics>,
    cache: web::Data<FoldCache>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<ViewQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let at = query.into_inner().at;
    let on_worker = play_on_worker::view(&db, &cache, &id, &user, at).await;
    let view = match answered_on_worker(&metrics, on_worker) {
        Some(answer) => answer?,
        None => blocking(move || play::view(&db, &cache, &id, &user, at)).await?,
    };
    Ok(HttpResponse::Ok().json(ViewOut::from(view)))
}

/// The answer to a play request that its worker thread gave alone
/// ([`play_on_worker`]), counted by where it came from; `None` when the pool's path has to
/// answer instead.
fn answered_on_worker<T>(
    metrics: &Metrics,
    on_worker: Result<T, NotOnWorker>,
) -> Option<Result<T, ApiError>> {
    let answer = match on_worker {
        Ok(answer) => Some(Ok(answer)),
        Err(NotOnWorker::Refused(error)) => Some(Err(error)),
        Err(NotOnWorker::Elsewhere) => None,
    };
    metrics.played(if answer.is_some() {
        PlayPath::Worker
    } else {
        PlayPath::Pool
    });
    answer
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LegalActionsQuery {
    /// Only actions with this `type` tag (e.g. `move`), to keep large lists small.
    #[serde(rename = "type")]
    pub action_type: Option<String>,
    /// Only actions that name this space in any field (`space`, `from`, `to`, `rice`, ...):
    /// what a click on that space can mean.
    #[param(example = "G6")]
    pub space: Option<String>,
    /// Only actions that lay this tile kind (Java: `three_space`, `two_space`,
    /// `one_space_rice`, `one_space_village`).
    #[param(example = "two_space")]
    pub tile: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LegalActions {
    pub game_id: String,
    /// The game's kind; it says which `<Kind>Action` schema the actions follow.
    pub kind: String,
    /// The seq these actions are legal at: post one with this `expected_seq`.
    pub seq: i64,
    /// The caller's seat; `null` for a spectator.
    pub seat: Option<u8>,
    /// Every action the caller's seat may take now, each postable verbatim as `action`
    /// (see the `<Kind>Action` schemas). Empty when the seat need not act.
    #[schema(value_type = Vec<Object>)]
    pub actions: Vec<Value>,
}

/// Every action the caller's seat may take now.
#[utoipa::path(get, path = "/v1/games/{id}/legal-actions", tag = "play",
    params(("id" = String, Path, description = "Game id"), LegalActionsQuery),
    responses(
        (status = 200, body = LegalActions),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`: the game was started under a rules version this server cannot play (a newer server started it); another instance may serve it", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/legal-actions", method = "GET", method = "HEAD")]
pub async fn get_legal_actions(
    db: web::Data<Db>,
    metrics: web::Data<Metrics>,
    cache: web::Data<FoldCache>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<LegalActionsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let query = query.into_inner();
    let filter = ActionFilter {
        action_type: query.action_type,
        space: query.space,
        tile: query.tile,
    };
    let game_id = id.clone();
    let on_worker = play_on_worker::legal_actions(&db, &cache, &id, &user, &filter).await;
    let legal = match answered_on_worker(&metrics, on_worker) {
        Some(answer) => answer?,
        None => blocking(move || play::legal_actions(&db, &cache, &id, &user, &filter)).await?,
    };
    Ok(HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(legal_actions_body(game_id, legal)?))
}

/// A [`LegalActions`] body around the service's ready-made JSON array of actions, which is
/// copied in as it is instead of being parsed into values and written again.
fn legal_actions_body(game_id: String, legal: play::LegalActions) -> Result<String, ApiError> {
    let head = LegalActions {
        game_id,
        kind: legal.kind,
        seq: legal.seq,
        seat: legal.seat,
        actions: Vec::new(),
    };
    let head = serde_json::to_string(&head).unwrap_or_default();
    // `actions` is the last field, so the head ends with it, empty.
    let fields = head
        .strip_suffix("\"actions\":[]}")
        .ok_or_else(|| ApiError::Internal("legal actions did not end in `actions`".into()))?;
    let actions = legal.actions_json.get();
    // Sized once: `format!` would grow the string by doubling, copying Java's long lists
    // several times.
    let mut body = String::with_capacity(fields.len() + actions.len() + 12);
    body.push_str(fields);
    body.push_str("\"actions\":");
    body.push_str(actions);
    body.push('}');
    Ok(body)
}

/// At most this many picks in one request: no action of any kind has more fields.
const MAX_PICKS: usize = 16;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code, reason = "documents the query `legal_choices` reads itself")]
pub struct LegalChoicesQuery {
    /// The options picked so far, one per step in order, each an option's `choice` as the
    /// previous step offered it; repeat the parameter for each step
    /// (`?choice=place_tile&choice=three_space`). None: the first step.
    #[param(style = Form, explode, max_items = 16, example = json!(["place_tile", "three_space"]))]
    pub choice: Option<Vec<String>>,
    /// The seq the picks were made at (the `seq` of the first step): a game that has moved on
    /// answers 409 `stale_seq` instead of offering the next seq's actions under old picks.
    #[param(minimum = 0)]
    pub seq: Option<i64>,
}

/// A field of the action fixed so far.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ChosenField {
    pub field: String,
    /// The field's value (any JSON value); `null` when the actions left do not have the
    /// field.
    pub value: Value,
    /// `true` when the rules left no other value, so it took no pick.
    pub forced: bool,
}

/// One value the next field can take.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ChoiceOption {
    /// What to send as the next `choice`: a text value as it is (`E1`), any other value as
    /// its JSON (`3`, `true`, `["pc07","pc11"]`), `null` for "without this field".
    pub choice: String,
    /// The value itself (any JSON value).
    pub value: Value,
    /// How many legal actions lie under this option.
    pub actions: u32,
    /// The complete action when it is the only one under this option (post it as it is).
    #[schema(value_type = Option<Object>)]
    pub action: Option<Value>,
}

/// One step through the caller's legal actions: the fields fixed so far, and the options
/// for the next one, or the complete action.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LegalChoices {
    pub game_id: String,
    /// The game's kind; it says which `<Kind>Action` schema the actions follow.
    pub kind: String,
    /// The seq the choices are legal at: post the action with this `expected_seq`, and send
    /// it as `seq` with the next picks.
    pub seq: i64,
    /// The caller's seat; `null` for a spectator.
    pub seat: Option<u8>,
    /// The action's fields fixed so far, in order: each pick, and between them the fields the
    /// rules leave only one value for.
    pub chosen: Vec<ChosenField>,
    /// The field to pick next (e.g. `type`, `tile`, `space`, `rotation`); `null` once
    /// `action` is complete, or when the seat has nothing to do.
    pub field: Option<String>,
    /// The values `field` can take, in the rules' order; empty when `field` is `null`.
    pub options: Vec<ChoiceOption>,
    /// The complete action the picks lead to: post it as `action`.
    #[schema(value_type = Option<Object>)]
    pub action: Option<Value>,
    /// How many legal actions the picks leave (all of them on the first step; 0 when the
    /// seat has nothing to do).
    pub remaining: u32,
}

impl From<play::LegalChoices> for LegalChoices {
    fn from(legal: play::LegalChoices) -> LegalChoices {
        let count = |count: usize| u32::try_from(count).unwrap_or(u32::MAX);
        LegalChoices {
            game_id: String::new(),
            kind: legal.kind,
            seq: legal.seq,
            seat: legal.seat,
            chosen: legal
                .choices
                .chosen
                .into_iter()
                .map(|chosen| ChosenField {
                    field: chosen.field,
                    value: chosen.value,
                    forced: chosen.forced,
                })
                .collect(),
            field: legal.choices.field,
            options: legal
                .choices
                .options
                .into_iter()
                .map(|option| ChoiceOption {
                    choice: option.choice,
                    value: option.value,
                    actions: count(option.actions),
                    action: option.action,
                })
                .collect(),
            action: legal.choices.action,
            remaining: count(legal.choices.remaining),
        }
    }
}

/// The caller's legal actions one choice at a time: first what, then where, then how.
///
/// Instead of every action at once (thousands at some steps), each step names one field
/// and offers its values with how many actions lie under each; send the picks back as
/// repeated `choice` parameters to get the next step, until `action` is complete. Fields
/// that the earlier picks leave only one value for are filled in (`forced`) and take no
/// pick. The tree offers exactly the actions of `GET /v1/games/{id}/legal-actions`, each by
/// one path. A seat that need not act (or a spectator) gets an empty step.
#[utoipa::path(get, path = "/v1/games/{id}/legal-choices", tag = "play",
    params(("id" = String, Path, description = "Game id"), LegalChoicesQuery),
    responses(
        (status = 200, body = LegalChoices),
        (status = 400, description = "`invalid_query`: an unknown parameter, more than 16 picks, or a `seq` that is not a number", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`stale_seq` (with `current_seq`): the game is no longer at `seq`; `no_such_choice`: a pick is not among its step's options, or the action is complete before the last pick", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`: the game was started under a rules version this server cannot play (a newer server started it); another instance may serve it", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/legal-choices", method = "GET", method = "HEAD")]
pub async fn get_legal_choices(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    user: AuthUser,
    path: web::Path<String>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let (picks, at_seq) = legal_choices_query(request.query_string())?;
    let game_id = id.clone();
    let legal =
        blocking(move || play::legal_choices(&db, &cache, &id, &user, &picks, at_seq)).await?;
    let mut body = LegalChoices::from(legal);
    body.game_id = game_id;
    Ok(HttpResponse::Ok().json(body))
}

/// The picks and the seq of a `legal-choices` query: repeated `choice` parameters (which a
/// typed query struct cannot read) and at most one `seq`.
fn legal_choices_query(query: &str) -> Result<(Vec<String>, Option<i64>), ApiError> {
    let invalid = |detail: String| ApiError::bad_request("invalid_query", detail);
    let mut picks = Vec::new();
    let mut seq = None;
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match name.as_ref() {
            "choice" => picks.push(value.into_owned()),
            "seq" if seq.is_none() => {
                seq = Some(
                    value
                        .parse::<i64>()
                        .ok()
                        .filter(|seq| *seq >= 0)
                        .ok_or_else(|| invalid(format!("`seq` is not a seq: {value:?}")))?,
                );
            }
            "seq" => return Err(invalid("`seq` is given twice".into())),
            other => {
                return Err(invalid(format!(
                    "unknown parameter `{other}` (only `choice` and `seq`)"
                )))
            }
        }
    }
    if picks.len() > MAX_PICKS {
        return Err(invalid(format!("at most {MAX_PICKS} `choice` parameters")));
    }
    Ok((picks, seq))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PreviewQuery {
    /// Also draw the board after the action (`board_svg`), as `GET /v1/games/{id}/board.svg`
    /// draws it, with what the action changed highlighted.
    #[serde(default)]
    pub board: bool,
    /// How `board_svg` is laid out: `wide` (default) or `narrow` for a phone, as
    /// `GET /v1/games/{id}/board.svg?layout=` takes it.
    #[serde(default)]
    #[param(inline)]
    pub layout: super::board::BoardLayout,
}

/// What posting an action would do, with nothing written.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ActionPreview {
    /// The game's kind.
    pub kind: String,
    /// The seq the action was tried at (the `expected_seq` sent).
    pub from_seq: i64,
    /// The seq the game would reach with `events`.
    pub seq: i64,
    /// The events posting the action would append, as the caller would see them: the
    /// game's, then the server's (clocks, the game's end).
    pub events: Vec<EventOut>,
    /// The caller's view after `events`.
    pub view: ViewOut,
    /// `false` when the preview stops before an event that would reveal something hidden
    /// or random (a drawn tile or card, a roll): that is decided only when the action is
    /// posted, so `events` and `view` end just before it.
    pub complete: bool,
    /// The board after the action as SVG (with `board=true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_svg: Option<String>,
}

/// Try an action: what posting it would append and your view after it, with nothing written.
///
/// Checked exactly as `POST /v1/games/{id}/actions` checks it, with the same refusals, so a
/// client can show the result before the player confirms. Nothing hidden or random is
/// revealed: a preview stops before a draw or a roll (`complete: false`). No
/// `Idempotency-Key`: nothing is written, so a preview can be sent any number of times.
#[utoipa::path(post, path = "/v1/games/{id}/actions/preview", tag = "play",
    params(("id" = String, Path, description = "Game id"), PreviewQuery),
    request_body = NewAction,
    responses(
        (status = 200, body = ActionPreview),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`, `not_your_seat`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "As for posting the action: `stale_seq` (with `current_seq`), `game_not_started`, `game_finished`, `game_cancelled`, `game_abandoned`, `deadline_passed`, `seat_forfeited`, `bot_seat`, `not_your_turn`, `illegal_action` (with the game's `rule` code)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`malformed_action`: not an action of this game's kind (its `<Kind>Action` schema)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`: the game was started under a rules version this server cannot play (a newer server started it); another instance may serve it", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/actions/preview")]
pub async fn preview_action(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<PreviewQuery>,
    request: HttpRequest,
    body: super::transport::Json<NewAction>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let PreviewQuery {
        board: with_board,
        layout,
    } = query.into_inner();
    let body = body.into_inner();
    let from_seq = body.expected_seq;
    let action_request = ActionRequest {
        expected_seq: body.expected_seq,
        seat: body.seat,
        body: Value::Null,
        action: body.action,
        idempotency_key: None,
    };
    let now = request
        .app_data::<web::Data<crate::clock::Clock>>()
        .map_or_else(crate::service::now_millis, |clock| clock.now_millis());
    let preview =
        blocking(move || actions::preview(&db, &cache, &id, &user, &action_request, now)).await?;
    let board_svg = if with_board {
        Some(super::board::picture(
            &preview.view,
            preview.seat_names,
            preview.events.clone(),
            layout,
        )?)
    } else {
        None
    };
    Ok(HttpResponse::Ok().json(ActionPreview {
        kind: preview.view.kind.clone(),
        from_seq,
        seq: preview.view.seq,
        events: preview.events.into_iter().map(EventOut::from).collect(),
        view: ViewOut::from(preview.view),
        complete: preview.complete,
        board_svg,
    }))
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAction {
    /// The game's `current_seq` the action was chosen at. If the game has moved on, the
    /// action is refused with 409 `stale_seq` and nothing is written.
    pub expected_seq: i64,
    /// The acting seat, optional: the server knows the caller's seat; a different seat is 403.
    #[serde(default)]
    pub seat: Option<u8>,
    /// One of the game's actions (see the `<Kind>Action` schemas), e.g.
    /// `{"type":"end_turn"}`.
    #[schema(value_type = Object)]
    pub action: Value,
}

/// Act: post one action of the caller's seat.
///
/// Everything the action causes is appended atomically, or nothing is. Retrying with the
/// same `Idempotency-Key` and body returns the first result and appends nothing.
#[utoipa::path(post, path = "/v1/games/{id}/actions", tag = "play",
    params(("id" = String, Path, description = "Game id"), IdempotencyHeader),
    request_body = NewAction,
    responses(
        (status = 200, description = "Accepted", body = ActionAccepted),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`, `not_your_seat`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`: the game was started under a rules version this server cannot play (a newer server started it); another instance may serve it", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`stale_seq` (with `current_seq`), `game_not_started`, `game_finished`, `game_cancelled`, `game_abandoned`, `deadline_passed` (your deadline passed; the timeout is being recorded), `seat_forfeited` and `bot_seat` (a bot plays the seat); what the game's state refuses: `not_your_turn`, `illegal_action` (with the game's `rule` code)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`malformed_action`: not an action of this game's kind (its `<Kind>Action` schema); `idempotency_key_reused`, `invalid_idempotency_key`", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/actions")]
pub async fn post_action(
    db: web::Data<Db>,
    metrics: web::Data<Metrics>,
    cache: web::Data<FoldCache>,
    user: AuthUser,
    path: web::Path<String>,
    request: HttpRequest,
    body: super::transport::Json<NewAction>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let idempotency_key = idempotency_key(&request)?;
    let body = body.into_inner();
    let action_request = ActionRequest {
        expected_seq: body.expected_seq,
        seat: body.seat,
        body: serde_json::to_value(&body).unwrap_or_default(),
        action: body.action,
        idempotency_key,
    };
    let now = request
        .app_data::<web::Data<crate::clock::Clock>>()
        .map_or_else(crate::service::now_millis, |clock| clock.now_millis());
    let on_worker = play_on_worker::act(&db, &cache, &id, &user, &action_request, now).await;
    let accepted = match answered_on_worker(&metrics, on_worker) {
        Some(answer) => answer?,
        None => {
            blocking(move || actions::act(&db, &cache, &id, &user, &action_request, now)).await?
        }
    };
    if accepted.appended {
        metrics.actions_appended.inc();
    }
    Ok(HttpResponse::Ok().json(ActionAccepted::from(accepted)))
}

#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"expected_seq": 43}))]
pub struct NewTakeBack {
    /// The game's `current_seq` as the caller saw it. If the game has moved on, nothing is
    /// taken back: 409 `stale_seq`. A second take-back sent with the same seq is thus
    /// refused rather than taking back one more action.
    pub expected_seq: i64,
}

/// Take back your last action within your turn.
///
/// Appends an `actions_taken_back` event to the log (nothing is deleted): the events from
/// its `from_seq` to its `to_seq` no longer count, and the game is as it was before the
/// action. In a timed game a `clock_started` event puts your clock back as it was before
/// the action. Allowed while no other seat has acted since (nor forfeited, nor been taken
/// over by a bot), the action revealed nothing hidden or random (a drawn tile or card, a
/// roll, a shuffle) and did not end your turn, and you took back fewer than 20 actions this
/// turn; earlier actions of the same turn can be taken back one by one. Each game's rules
/// page lists which of its actions can be taken back. The response is the appended events
/// and your view after them, as for an action.
#[utoipa::path(post, path = "/v1/games/{id}/take-back", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    request_body = NewTakeBack,
    responses(
        (status = 200, description = "Taken back", body = ActionAccepted),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`stale_seq` (with `current_seq`), `game_not_started`, `game_finished`, `game_cancelled`, `game_abandoned`, `seat_forfeited`, `bot_seat`, `deadline_passed` (your deadline, or the one you had before the action, has passed); why the action stays: `nothing_to_take_back` (the game's last action is not yours), `other_seat_acted`, `outcome_revealed`, `others_affected`, `turn_over`, `take_back_limit`, `clock_stood_still` (your clock stood still for a vacation during or since the action)", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/v1/games/{id}/take-back")]
pub async fn take_back(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    clock: web::Data<crate::clock::Clock>,
    user: AuthUser,
    path: web::Path<String>,
    body: super::transport::Json<NewTakeBack>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let expected_seq = body.into_inner().expected_seq;
    let now = clock.now_millis();
    let accepted = blocking(move || {
        crate::service::take_backs::take_back(&db, &cache, &id, &user, expected_seq, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(ActionAccepted::from(accepted)))
}

/// Whether you could take back your last action now.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TakeBackAvailability {
    /// `POST /v1/games/{id}/take-back` with the game's current seq would succeed now.
    pub possible: bool,
    /// When not: the problem code that take-back would answer (`nothing_to_take_back`,
    /// `other_seat_acted`, `outcome_revealed`, `others_affected`, `turn_over`,
    /// `take_back_limit`, `deadline_passed`, `clock_stood_still`, `not_a_player`,
    /// `game_finished`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "outcome_revealed")]
    pub code: Option<String>,
    /// When not: why, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Whether a take-back of your last action would succeed now, and if not why, with nothing
/// written: clients offer "take back" only where it can succeed. Spectators get `possible:
/// false` with `not_a_player`.
#[utoipa::path(get, path = "/v1/games/{id}/take-back", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    responses(
        (status = 200, body = TakeBackAvailability),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/take-back", method = "GET", method = "HEAD")]
pub async fn take_back_availability(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    clock: web::Data<crate::clock::Clock>,
    user: AuthUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let now = clock.now_millis();
    let available =
        blocking(move || crate::service::take_backs::availability(&db, &cache, &id, &user, now))
            .await?;
    Ok(HttpResponse::Ok().json(match available {
        Ok(()) => TakeBackAvailability {
            possible: true,
            code: None,
            reason: None,
        },
        Err((code, reason)) => TakeBackAvailability {
            possible: false,
            code: Some(code.to_owned()),
            reason: Some(reason),
        },
    }))
}

fn idempotency_key(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = request.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    match value.to_str() {
        Ok(key) if (1..=200).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(key.to_owned()))
        }
        _ => Err(ApiError::unprocessable(
            "invalid_idempotency_key",
            "an Idempotency-Key has 1 to 200 visible ASCII characters",
        )),
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// At most this many events (1 to 1,000, default 1,000).
    #[param(minimum = 1, maximum = 1000, example = 1000)]
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    /// Only events after this seq (default 0: from the first); not with `cursor`.
    #[param(minimum = 0, example = 12)]
    pub after: Option<i64>,
    /// Long poll: when nothing is past `after` yet, wait up to this many seconds (at most
    /// 60) for the next append by any instance before answering, possibly with no events.
    #[param(minimum = 0, maximum = 60, example = 30)]
    pub wait: Option<u64>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct EventLog {
    pub game_id: String,
    /// The game's kind; it says which `<Kind>LogEvent` schema the payloads follow.
    pub kind: String,
    pub current_seq: i64,
    pub events: Vec<EventOut>,
    /// The next page's `cursor`; `null` on the last page (a long poll then continues with
    /// `after` = `current_seq`).
    #[schema(required = true)]
    pub next: Option<String>,
}

pub const EVENTS: Pager = Pager::new("events", 1000, 1000);

/// The turn log as the caller may see it, a page at a time.
#[utoipa::path(get, path = "/v1/games/{id}/events", tag = "play",
    params(("id" = String, Path, description = "Game id"), EventsQuery),
    responses(
        (status = 200, body = EventLog),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, `cursor_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams` (a long poll, `wait` > 0, while the account, its address or the server holds as many streams and long polls as allowed; with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`: the game was started under a rules version this server cannot play (a newer server started it); another instance may serve it", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/events", method = "GET", method = "HEAD")]
pub async fn list_events(
    db: web::Data<Db>,
    hub: web::Data<crate::push::Hub>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<EventsQuery>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let query = query.into_inner();
    let page = super::live::log_page(&EVENTS, query.cursor.as_deref(), query.limit, query.after)?;
    let after = page.after.unwrap_or(0);
    if let Some(wait) = query.wait.filter(|seconds| *seconds > 0) {
        if wait > super::live::MAX_WAIT_SECONDS {
            return Err(ApiError::bad_request(
                "invalid_query",
                "`wait` is at most 60 seconds",
            ));
        }
        let slot = super::live::admit(&request, &user)?;
        // A long poll ended to make room for another account's answers at once.
        tokio::select! {
            waited = super::live::wait_past(
                &db,
                &hub,
                &user,
                &id,
                after,
                std::time::Duration::from_secs(wait),
            ) => { waited?; }
            () = slot.ended() => {}
        }
    }
    let (game_id, limit) = (id.clone(), page.limit);
    let log = blocking(move || play::events(&db, &id, &user, after, limit)).await?;
    // The page ends before the log does: the next starts after its last seq.
    let last_seq = after.saturating_add(limit);
    let next = (last_seq < log.current_seq).then(|| EVENTS.cursor(&last_seq));
    let body = EventLog {
        game_id,
        kind: log.kind,
        current_seq: log.current_seq,
        events: log.events.into_iter().map(EventOut::from).collect(),
        next: next.clone(),
    };
    Ok(page_response(&request, next.as_deref(), &body))
}

/// An exported game: enough to replay and verify it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GameExport {
    /// Always `turnpost-game`.
    pub format: String,
    /// Version of this document's shape: 2 added the server's events (`source: server`),
    /// `time_control`, forfeits in the outcome and the bot of each bot action; 3 the chat
    /// and the `abandoned` status; 4 take-backs (`actions_taken_back` events, whose
    /// ranges no longer count, while `actions` keeps every action taken back); 5
    /// `clock_version`.
    pub format_version: u32,
    pub game_id: String,
    pub kind: String,
    pub rules_version: u32,
    #[schema(value_type = Object)]
    pub options: Value,
    pub status: GameStatus,
    pub seats: Vec<SeatInfo>,
    pub time_control: TimeControl,
    /// How the clock counted (see the game summary's `clock_version`).
    #[schema(minimum = 1, maximum = 2, example = 2)]
    pub clock_version: u32,
    /// RFC 3339.
    pub created_at: String,
    /// `true` when nothing is hidden (a finished game); `false` when this is the caller's
    /// redacted view of a running game.
    pub complete: bool,
    /// The seat whose secrets a redacted export includes.
    pub viewer_seat: Option<u8>,
    /// The commitment to the seed published when the game was created (see the game
    /// summary); `turnpost verify` checks the revealed `seed` against it.
    pub seed_commitment: String,
    /// Hex-encoded 32-byte seed (finished games only). Random outcomes after seq `n` come
    /// from ChaCha20 seeded with it, stream `n` (stream 0 for the opening events).
    pub seed: Option<String>,
    pub outcome: Option<GameOutcome>,
    pub events: Vec<EventOut>,
    /// Every accepted action with the seqs of the events it caused (finished games only).
    pub actions: Option<Vec<ExportedAction>>,
    /// The game's chat, oldest first, deleted messages as tombstones; left out when asked
    /// with `chat=false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat: Option<Vec<super::chat::ChatMessageOut>>,
}

impl GameExport {
    /// The document for `export`, as `caller` asked for it.
    pub fn of(export: play::Export, caller: &AuthUser) -> GameExport {
        let summary = super::models::GameSummary::of(&export.game, caller);
        GameExport {
            format: "turnpost-game".to_owned(),
            format_version: 5,
            game_id: summary.id,
            kind: summary.kind,
            rules_version: summary.rules_version,
            options: summary.options,
            status: summary.status,
            seats: summary.seats,
            time_control: summary.time_control,
            clock_version: summary.clock_version,
            created_at: summary.created_at,
            complete: export.viewer == Viewer::Omniscient,
            viewer_seat: match export.viewer {
                Viewer::Seat(seat) => Some(seat),
                _ => None,
            },
            seed_commitment: summary.seed_commitment,
            seed: export.seed,
            outcome: summary.outcome,
            events: export.events.into_iter().map(EventOut::from).collect(),
            actions: export.actions.map(|actions| {
                actions
                    .into_iter()
                    .map(|recorded| ExportedAction {
                        first_seq: recorded.first_seq,
                        last_seq: recorded.last_seq,
                        seat: recorded.seat,
                        action: recorded.action,
                        bot: recorded.bot,
                    })
                    .collect()
            }),
            chat: export.chat.map(|messages| {
                messages
                    .iter()
                    .map(super::chat::ChatMessageOut::of)
                    .collect()
            }),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportOptions {
    /// Whether the document holds the game's chat (default `true`).
    pub chat: Option<bool>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ExportedAction {
    pub first_seq: i64,
    pub last_seq: i64,
    pub seat: u8,
    #[schema(value_type = Object)]
    pub action: Value,
    /// The bot that chose the action (its choice is drawn from the seed's bot stream for
    /// `first_seq`); `null` for a player's action.
    pub bot: Option<BotStrategy>,
}

/// The whole history as one JSON document.
///
/// For a finished game it includes every secret, the seed and the actions, so anyone can
/// verify it by replaying; for a running game it is the caller's redacted view.
#[utoipa::path(get, path = "/v1/games/{id}/export", tag = "play",
    params(("id" = String, Path, description = "Game id"), ExportOptions),
    responses(
        (status = 200, body = GameExport),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`unsupported_rules_version`: the game was started under a rules version this server cannot play (a newer server started it); another instance may serve it", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/games/{id}/export", method = "GET", method = "HEAD")]
pub async fn export_game(
    db: web::Data<Db>,
    user: AuthUser,
    path: web::Path<String>,
    query: web::Query<ExportOptions>,
) -> Result<HttpResponse, ApiError> {
    let id = game_id(path)?;
    let caller = user.clone();
    let with_chat = query.chat.unwrap_or(true);
    let export = blocking(move || play::export(&db, &id, &caller, with_chat)).await?;
    Ok(HttpResponse::Ok().json(GameExport::of(export, &user)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_legal_actions_body_carries_the_actions_as_they_came() {
        let legal = play::LegalActions {
            kind: "tikal".to_owned(),
            seq: 7,
            seat: Some(1),
            actions_json: serde_json::value::RawValue::from_string(
                r#"[{"type":"end_turn"},{"type":"dig","space":"B3"}]"#.to_owned(),
            )
            .unwrap()
            .into(),
        };
        let body = legal_actions_body("g1".to_owned(), legal).unwrap();
        let parsed: LegalActions = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (
                parsed.game_id.as_str(),
                parsed.kind.as_str(),
                parsed.seq,
                parsed.seat
            ),
            ("g1", "tikal", 7, Some(1))
        );
        assert_eq!(
            Value::Array(parsed.actions),
            serde_json::json!([{"type": "end_turn"}, {"type": "dig", "space": "B3"}])
        );
    }
}
