//! Vacations: the account's current one (`accounts.vacation_until`), each one taken (for
//! the yearly allowance), and the running games whose seats do not yet follow their
//! player's vacation (which the next append of each brings in line, see
//! `service::vacations`).

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

use super::schema::{accounts, vacations};
use super::{DbConnection, StoreError};

const DAY_MS: i64 = 86_400_000;

/// The account's vacation settings and state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VacationState {
    /// Until when the player is on vacation, if that is later than now.
    pub until: Option<i64>,
    /// A deadline that would pass starts a vacation day instead, while days are left.
    pub automatic: bool,
    /// Whole days of vacation begun in this calendar year (UTC).
    pub days_used: i64,
}

/// The start of the calendar year (UTC) `now` is in.
pub fn year_start(now: i64) -> i64 {
    let date = time::OffsetDateTime::from_unix_timestamp(now.div_euclid(1000))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let start = time::Date::from_calendar_date(date.year(), time::Month::January, 1)
        .map(|day| day.midnight().assume_utc().unix_timestamp())
        .unwrap_or(0);
    start * 1000
}

/// The whole days a vacation from `started` to `ended` counts: each day begun, and the
/// first begins as it starts (a vacation ended at once still took a day).
pub fn days_counted(started: i64, ended: i64) -> i64 {
    let length = (ended - started).max(0);
    ((length + DAY_MS - 1) / DAY_MS).max(1)
}

pub fn state(
    conn: &mut DbConnection,
    account_id: &str,
    now: i64,
) -> Result<VacationState, StoreError> {
    let (until, automatic): (Option<i64>, bool) = accounts::table
        .find(account_id)
        .select((accounts::vacation_until, accounts::auto_vacation))
        .first(conn)?;
    let taken: Vec<(i64, i64, Option<i64>)> = vacations::table
        .filter(vacations::account_id.eq(account_id))
        .filter(vacations::started_at.ge(year_start(now)))
        .select((
            vacations::started_at,
            vacations::ends_at,
            vacations::ended_at,
        ))
        .load(conn)?;
    let days_used = taken
        .iter()
        .map(|(started, ends, ended)| days_counted(*started, ended.unwrap_or(*ends).min(*ends)))
        .sum();
    Ok(VacationState {
        until: until.filter(|until| *until > now),
        automatic,
        days_used,
    })
}

/// Starts a vacation of `days` days at `now`.
pub fn start(
    conn: &mut DbConnection,
    account_id: &str,
    now: i64,
    days: i64,
    automatic: bool,
) -> Result<i64, StoreError> {
    let until = now + days * DAY_MS;
    diesel::insert_into(vacations::table)
        .values((
            vacations::account_id.eq(account_id),
            vacations::started_at.eq(now),
            vacations::ends_at.eq(until),
            vacations::automatic.eq(automatic),
        ))
        .execute(conn)?;
    diesel::update(accounts::table.find(account_id))
        .set(accounts::vacation_until.eq(Some(until)))
        .execute(conn)?;
    Ok(until)
}

/// Ends the account's vacation at `now`; the days not begun are not counted.
pub fn end(conn: &mut DbConnection, account_id: &str, now: i64) -> Result<(), StoreError> {
    diesel::update(
        vacations::table
            .filter(vacations::account_id.eq(account_id))
            .filter(vacations::ends_at.gt(now))
            .filter(vacations::ended_at.is_null()),
    )
    .set(vacations::ended_at.eq(Some(now)))
    .execute(conn)?;
    diesel::update(accounts::table.find(account_id))
        .set(accounts::vacation_until.eq(None::<i64>))
        .execute(conn)?;
    Ok(())
}

pub fn set_automatic(
    conn: &mut DbConnection,
    account_id: &str,
    automatic: bool,
) -> Result<(), StoreError> {
    diesel::update(accounts::table.find(account_id))
        .set(accounts::auto_vacation.eq(automatic))
        .execute(conn)?;
    Ok(())
}

/// The latest moment any of `account_ids` started or ended a vacation, if ever. A pass that
/// read its clock earlier must not apply the change at a time before it happened.
pub fn latest_change(
    conn: &mut DbConnection,
    account_ids: &[&str],
) -> Result<Option<i64>, StoreError> {
    if account_ids.is_empty() {
        return Ok(None);
    }
    let (started, ended): (Option<i64>, Option<i64>) = vacations::table
        .filter(vacations::account_id.eq_any(account_ids))
        .select((
            diesel::dsl::max(vacations::started_at),
            diesel::dsl::max(vacations::ended_at),
        ))
        .first(conn)?;
    Ok(started.max(ended))
}

#[derive(QueryableByName)]
struct GameId {
    #[diesel(sql_type = Text)]
    game_id: String,
}

/// Running games in which a seat a person plays does not follow its player's vacation as
/// it stands at `now` (it started, moved, or ended), at most `limit`; with `account_id`,
/// only that account's.
pub fn games_out_of_step(
    conn: &mut DbConnection,
    account_id: Option<&str>,
    now: i64,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    // Two halves, each led by a column that is rarely set: seats that stand still, and
    // accounts on vacation.
    let sql = "SELECT seats.game_id AS game_id FROM seats
               JOIN accounts ON accounts.id = seats.account_id
               JOIN games ON games.id = seats.game_id
               WHERE seats.vacation_until IS NOT NULL AND games.status = 'running'
                 AND ($3 = '' OR accounts.id = $3)
                 AND (accounts.vacation_until IS NULL OR accounts.vacation_until <= $1
                      OR accounts.vacation_until <> seats.vacation_until)
               UNION
               SELECT seats.game_id AS game_id FROM accounts
               JOIN seats ON seats.account_id = accounts.id
               JOIN games ON games.id = seats.game_id
               WHERE accounts.vacation_until > $1 AND seats.vacation_until IS NULL
                 AND ($3 = '' OR accounts.id = $3)
                 AND games.status = 'running' AND seats.bot IS NULL AND seats.forfeit IS NULL
               LIMIT $2";
    let query = |sql: String| {
        diesel::sql_query(sql)
            .bind::<BigInt, _>(now)
            .bind::<BigInt, _>(limit)
            .bind::<Text, _>(account_id.unwrap_or_default().to_owned())
    };
    let rows: Vec<GameId> = match conn {
        DbConnection::Postgresql(pg) => query(sql.to_owned()).load(pg)?,
        DbConnection::Sqlite(sqlite) => query(sql.replace('$', "?")).load(sqlite)?,
    };
    Ok(rows.into_iter().map(|row| row.game_id).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_day_begun_counts_and_years_start_on_the_first_of_january() {
        assert_eq!(days_counted(0, 1), 1);
        assert_eq!(days_counted(0, DAY_MS), 1);
        assert_eq!(days_counted(0, DAY_MS + 1), 2);
        assert_eq!(days_counted(5, 5), 1);
        // 2026-11-27T16:00:00Z is in the year that began 2026-01-01T00:00:00Z.
        assert_eq!(year_start(1_795_795_200_000), 1_767_225_600_000);
        assert_eq!(year_start(1_767_225_600_000), 1_767_225_600_000);
    }
}
