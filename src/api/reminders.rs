//! When an account is reminded before its deadlines.

use actix_web::{route, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::RefOr;
use utoipa::ToSchema;

use super::blocking;
use crate::auth::user::AuthUser;
use crate::error::{ApiError, Problem};
use crate::store::{reminders, Db};

/// The longest time before a deadline a reminder may come: a week.
const MOST_MINUTES: u32 = 7 * 24 * 60;
/// The shortest: five minutes (the referee looks every second, but a reminder closer to
/// the deadline than that would not help).
const LEAST_MINUTES: u32 = 5;
/// The most reminders per deadline.
const MOST_REMINDERS: usize = 3;

/// When you are reminded before each of your deadlines.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Reminders {
    /// Minutes before each deadline, longest first: at most 3 times (a time given twice
    /// counts once); `[]` for none. Default: a day and an hour.
    #[schema(example = json!([1440, 60]), max_items = 3)]
    pub before_minutes: Vec<MinutesBefore>,
}

/// Minutes before a deadline: 5 to 10,080 (a week).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MinutesBefore(pub u32);

impl utoipa::PartialSchema for MinutesBefore {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int32)))
            .minimum(Some(LEAST_MINUTES))
            .maximum(Some(MOST_MINUTES))
            .description(Some("Minutes before a deadline: 5 to 10,080 (a week)."))
            .into()
    }
}

impl ToSchema for MinutesBefore {}

/// When you are reminded before your deadlines: a `reminder` notification (in the feed, the
/// stream and your webhooks) at each of these times before each deadline of a timed game in
/// which your seat must act.
#[utoipa::path(get, path = "/v1/me/reminders", tag = "notifications",
    responses(
        (status = 200, body = Reminders),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/reminders", method = "GET", method = "HEAD")]
pub async fn get_reminders(db: web::Data<Db>, user: AuthUser) -> Result<HttpResponse, ApiError> {
    let minutes = blocking(move || {
        Ok::<_, ApiError>(db.read(|conn| reminders::reminder_minutes(conn, &user.account_id))?)
    })
    .await?;
    Ok(HttpResponse::Ok().json(Reminders {
        before_minutes: minutes.into_iter().map(MinutesBefore).collect(),
    }))
}

/// Choose when you are reminded before your deadlines; deadlines already running get the
/// new times from their next change on.
#[utoipa::path(put, path = "/v1/me/reminders", tag = "notifications",
    request_body = Reminders,
    responses(
        (status = 200, description = "The times now chosen, longest first", body = Reminders),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_reminders`", body = Problem, content_type = "application/problem+json"),
    ))]
#[route("/v1/me/reminders", method = "PUT")]
pub async fn set_reminders(
    db: web::Data<Db>,
    user: AuthUser,
    body: super::transport::Json<Reminders>,
) -> Result<HttpResponse, ApiError> {
    let asked = body.into_inner().before_minutes;
    let mut minutes: Vec<u32> = asked.iter().map(|minutes| minutes.0).collect();
    minutes.sort_unstable_by(|a, b| b.cmp(a));
    minutes.dedup();
    if asked.len() > MOST_REMINDERS
        || minutes
            .iter()
            .any(|m| !(LEAST_MINUTES..=MOST_MINUTES).contains(m))
    {
        return Err(ApiError::unprocessable(
            "invalid_reminders",
            format!(
                "at most {MOST_REMINDERS} different times, each {LEAST_MINUTES} to {MOST_MINUTES} \
                 minutes before the deadline"
            ),
        ));
    }
    let stored = minutes.clone();
    blocking(move || {
        Ok::<_, ApiError>(
            db.write(|conn| reminders::set_reminder_minutes(conn, &user.account_id, &stored))?,
        )
    })
    .await?;
    Ok(HttpResponse::Ok().json(Reminders {
        before_minutes: minutes.into_iter().map(MinutesBefore).collect(),
    }))
}
