//! Vacations: the player's clocks stand still in every game while they are away.

use actix_web::{route, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::blocking;
use crate::auth::user::AuthUser;
use crate::clock::Clock;
use crate::error::{ApiError, Problem};
use crate::service::fold_cache::FoldCache;
use crate::service::format_time;
use crate::service::vacations::{self, Allowance, MOST_DAYS};
use crate::store::vacations::VacationState;
use crate::store::Db;

/// Your vacation and your allowance.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Vacation {
    /// RFC 3339: until when you are on vacation; `null` when you are not.
    #[schema(example = "2026-12-24T18:00:00Z")]
    pub until: Option<String>,
    /// Vacation days per calendar year (UTC).
    #[schema(example = 30)]
    pub days_per_year: i64,
    /// Days of vacation begun this year (each day begun counts).
    #[schema(example = 4)]
    pub days_used: i64,
    #[schema(example = 26)]
    pub days_left: i64,
    /// A deadline that would pass starts a day of vacation instead, while days are left.
    pub automatic: bool,
}

/// A vacation to start now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewVacation {
    /// Whole days, 1 to 60 (and no more than are left this year).
    #[schema(minimum = 1, maximum = 60, example = 7)]
    pub days: i64,
}

/// Whether deadlines that would pass start a day of vacation.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AutomaticVacation {
    #[schema(example = true)]
    pub automatic: bool,
}

fn vacation_out(state: VacationState, allowance: Allowance) -> Vacation {
    Vacation {
        until: state.until.map(format_time),
        days_per_year: allowance.days_per_year,
        days_used: state.days_used,
        days_left: (allowance.days_per_year - state.days_used).max(0),
        automatic: state.automatic,
    }
}

/// Your vacation, the days you have left this year, and whether deadlines start vacation
/// days by themselves.
#[utoipa::path(get, path = "/v1/me/vacation", tag = "games",
    responses(
        (status = 200, body = Vacation),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/vacation", method = "GET", method = "HEAD")]
pub async fn get_vacation(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    allowance: web::Data<Allowance>,
    user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let now = clock.now_millis();
    let state = blocking(move || vacations::state(&db, &user.account_id, now)).await?;
    Ok(HttpResponse::Ok().json(vacation_out(state, **allowance)))
}

/// Go on vacation now for whole days: your clocks stand still in every game (each game's
/// log says so with `vacation_started` and the clock events), turns that come meanwhile
/// wait with their whole time, and at the end every clock runs again with the time it had
/// left. Other players see `vacation_until` on your seat. Each day begun counts against
/// the year's allowance.
#[utoipa::path(post, path = "/v1/me/vacation", tag = "games",
    request_body = NewVacation,
    responses(
        (status = 200, description = "You are on vacation", body = Vacation),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`already_on_vacation`, `no_vacation_days` (fewer days are left this year)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_vacation`: 1 to 60 days", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/vacation", method = "POST")]
pub async fn start_vacation(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    clock: web::Data<Clock>,
    allowance: web::Data<Allowance>,
    user: AuthUser,
    body: super::transport::Json<NewVacation>,
) -> Result<HttpResponse, ApiError> {
    let days = body.into_inner().days;
    if !(1..=MOST_DAYS).contains(&days) {
        return Err(ApiError::unprocessable(
            "invalid_vacation",
            format!("a vacation is 1 to {MOST_DAYS} whole days"),
        ));
    }
    let now = clock.now_millis();
    let allowance = **allowance;
    let state =
        blocking(move || vacations::start(&db, &cache, allowance, &user, days, now)).await?;
    Ok(HttpResponse::Ok().json(vacation_out(state, allowance)))
}

/// End your vacation now: your clocks run again on your turns with the time they had left;
/// the days not begun are not counted.
#[utoipa::path(delete, path = "/v1/me/vacation", tag = "games",
    responses(
        (status = 200, description = "You are back", body = Vacation),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`not_on_vacation`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/vacation", method = "DELETE")]
pub async fn end_vacation(
    db: web::Data<Db>,
    cache: web::Data<FoldCache>,
    clock: web::Data<Clock>,
    allowance: web::Data<Allowance>,
    user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let now = clock.now_millis();
    let state = blocking(move || vacations::end(&db, &cache, &user, now)).await?;
    Ok(HttpResponse::Ok().json(vacation_out(state, **allowance)))
}

/// Choose whether a deadline that would pass starts a day of vacation instead (while days
/// are left this year): a day later the deadline is back, and passes again unless you
/// moved, taking another day, until none is left.
#[utoipa::path(put, path = "/v1/me/vacation/automatic", tag = "games",
    request_body = AutomaticVacation,
    responses(
        (status = 200, body = Vacation),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/vacation/automatic", method = "PUT")]
pub async fn set_automatic_vacation(
    db: web::Data<Db>,
    clock: web::Data<Clock>,
    allowance: web::Data<Allowance>,
    user: AuthUser,
    body: super::transport::Json<AutomaticVacation>,
) -> Result<HttpResponse, ApiError> {
    let automatic = body.into_inner().automatic;
    let now = clock.now_millis();
    let state = blocking(move || vacations::set_automatic(&db, &user, automatic, now)).await?;
    Ok(HttpResponse::Ok().json(vacation_out(state, **allowance)))
}
