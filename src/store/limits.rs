//! Limits counted in the database, so that every instance on it counts them together: token
//! buckets per limit and key (sign-ins per address, chat messages per account, ...), and
//! what password guessing has cost each name and which addresses signed in to it. Each
//! bucket is taken in one statement; rows that would read as untouched are forgotten by
//! [`forget_idle`].

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Integer, Nullable, Text};

use super::jobs::statement;
use super::{DbConnection, StoreError};

/// How often a limit lets something happen: `count` in `period_ms`, in bursts of `count`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BucketRate {
    pub count: u32,
    pub period_ms: i64,
}

impl BucketRate {
    fn capacity(self) -> f64 {
        f64::from(self.count.max(1))
    }

    /// Milliseconds a bucket takes to win back one event.
    fn ms_per_token(self) -> f64 {
        self.period_ms as f64 / self.capacity()
    }
}

#[derive(QueryableByName)]
struct Tokens {
    #[diesel(sql_type = Double)]
    tokens: f64,
    #[diesel(sql_type = BigInt)]
    updated_at: i64,
}

/// A key as stored: PostgreSQL's text holds no NUL, which a client may put in a name.
fn stored(key: &str) -> String {
    key.replace('\0', "\u{FFFD}")
}

/// The smaller of two numbers in the backend's SQL.
fn least(conn: &DbConnection) -> &'static str {
    match conn {
        DbConnection::Postgresql(_) => "LEAST",
        DbConnection::Sqlite(_) => "MIN",
    }
}

/// Takes one event from `limit`'s bucket for `key` at `now`: `None` when taken, or the
/// milliseconds until the bucket holds one again. One statement, so instances taking from
/// one bucket at once each see the other's take.
pub fn take(
    conn: &mut DbConnection,
    limit: &str,
    key: &str,
    rate: BucketRate,
    now: i64,
) -> Result<Option<i64>, StoreError> {
    let least = least(conn);
    // $3 capacity, $4 now, $5 milliseconds a token takes. A bucket that was full is
    // written as it is after this take; `full_at` is when it will be full again.
    let refilled = format!("{least}($3, b.tokens + ($4 - b.updated_at) / $5)");
    let sql = format!(
        "INSERT INTO rate_buckets AS b (limit_name, bucket_key, tokens, updated_at, full_at)
         VALUES ($1, $2, $3 - 1, $4, $4 + CAST($5 AS BIGINT) + 1)
         ON CONFLICT (limit_name, bucket_key) DO UPDATE SET
             tokens = {refilled} - 1,
             updated_at = $4,
             full_at = $4 + CAST(($3 - ({refilled} - 1)) * $5 AS BIGINT) + 1
         WHERE {refilled} >= 1
         RETURNING tokens, updated_at"
    );
    let query = statement(conn, &sql)
        .bind::<Text, _>(limit)
        .bind::<Text, _>(stored(key))
        .bind::<Double, _>(rate.capacity())
        .bind::<BigInt, _>(now)
        .bind::<Double, _>(rate.ms_per_token());
    let taken: Vec<Tokens> = super::on_backend!(&mut *conn, |c| query.load(c))?;
    if !taken.is_empty() {
        return Ok(None);
    }
    let query = statement(
        conn,
        "SELECT tokens, updated_at FROM rate_buckets WHERE limit_name = $1 AND bucket_key = $2",
    )
    .bind::<Text, _>(limit)
    .bind::<Text, _>(stored(key));
    let stored: Vec<Tokens> = super::on_backend!(&mut *conn, |c| query.load(c))?;
    let refilled = stored.first().map_or(rate.capacity(), |bucket| {
        (bucket.tokens + (now - bucket.updated_at) as f64 / rate.ms_per_token())
            .min(rate.capacity())
    });
    Ok(Some(
        ((1.0 - refilled) * rate.ms_per_token()).ceil().max(1.0) as i64,
    ))
}

/// What password guessing has cost one name so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuessedName {
    /// Wrong passwords left before waits start (refilled over the hour).
    pub allowance: f64,
    /// Wrong passwords past the allowance since the name was last left alone for an hour.
    pub overdrawn: i32,
    pub updated_at: i64,
    /// Addresses that never signed in to the name wait until then.
    pub blocked_until: Option<i64>,
}

#[derive(QueryableByName)]
struct GuessedRow {
    #[diesel(sql_type = Double)]
    allowance: f64,
    #[diesel(sql_type = Integer)]
    overdrawn: i32,
    #[diesel(sql_type = BigInt)]
    updated_at: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    blocked_until: Option<i64>,
}

impl From<GuessedRow> for GuessedName {
    fn from(row: GuessedRow) -> GuessedName {
        GuessedName {
            allowance: row.allowance,
            overdrawn: row.overdrawn,
            updated_at: row.updated_at,
            blocked_until: row.blocked_until,
        }
    }
}

/// The guessing recorded for `name_key`, if any; with `lock`, its row stays locked until
/// the transaction ends (PostgreSQL), so that wrong passwords counted at once on several
/// instances add up.
pub fn guessed_name(
    conn: &mut DbConnection,
    name_key: &str,
    lock: bool,
) -> Result<Option<GuessedName>, StoreError> {
    let lock = match (&*conn, lock) {
        (DbConnection::Postgresql(_), true) => " FOR UPDATE",
        _ => "",
    };
    let query = statement(
        conn,
        &format!(
            "SELECT allowance, overdrawn, updated_at, blocked_until FROM guessed_names
             WHERE name_key = $1{lock}"
        ),
    )
    .bind::<Text, _>(stored(name_key));
    let rows: Vec<GuessedRow> = super::on_backend!(&mut *conn, |c| query.load(c))?;
    Ok(rows.into_iter().next().map(GuessedName::from))
}

/// Stores what guessing has cost `name_key` now.
pub fn record_guessed_name(
    conn: &mut DbConnection,
    name_key: &str,
    guessed: &GuessedName,
) -> Result<(), StoreError> {
    let query = statement(
        conn,
        "INSERT INTO guessed_names (name_key, allowance, overdrawn, updated_at, blocked_until)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (name_key) DO UPDATE SET allowance = $2, overdrawn = $3,
             updated_at = $4, blocked_until = $5",
    )
    .bind::<Text, _>(stored(name_key))
    .bind::<Double, _>(guessed.allowance)
    .bind::<Integer, _>(guessed.overdrawn)
    .bind::<BigInt, _>(guessed.updated_at)
    .bind::<Nullable<BigInt>, _>(guessed.blocked_until);
    super::on_backend!(&mut *conn, |c| query.execute(c))?;
    Ok(())
}

/// Whether `address` signed in to `name_key` at or after `since`.
pub fn signed_in_from(
    conn: &mut DbConnection,
    name_key: &str,
    address: &str,
    since: i64,
) -> Result<bool, StoreError> {
    #[derive(QueryableByName)]
    struct Found {
        #[diesel(sql_type = BigInt)]
        #[allow(dead_code)] // read to know a row exists
        signed_in_at: i64,
    }
    let query = statement(
        conn,
        "SELECT signed_in_at FROM sign_in_addresses
         WHERE name_key = $1 AND address = $2 AND signed_in_at >= $3",
    )
    .bind::<Text, _>(stored(name_key))
    .bind::<Text, _>(stored(address))
    .bind::<BigInt, _>(since);
    let found: Vec<Found> = super::on_backend!(&mut *conn, |c| query.load(c))?;
    Ok(!found.is_empty())
}

/// Remembers that `address` signed in to `name_key` at `now`.
pub fn record_sign_in_from(
    conn: &mut DbConnection,
    name_key: &str,
    address: &str,
    now: i64,
) -> Result<(), StoreError> {
    let query = statement(
        conn,
        "INSERT INTO sign_in_addresses (name_key, address, signed_in_at) VALUES ($1, $2, $3)
         ON CONFLICT (name_key, address) DO UPDATE SET signed_in_at = $3",
    )
    .bind::<Text, _>(stored(name_key))
    .bind::<Text, _>(stored(address))
    .bind::<BigInt, _>(now);
    super::on_backend!(&mut *conn, |c| query.execute(c))?;
    Ok(())
}

/// Forgets what reads as untouched at `now`: full buckets, names left alone for an hour
/// and no longer held back, sign-ins older than `known_since`. Returns the rows removed.
pub fn forget_idle(
    conn: &mut DbConnection,
    now: i64,
    known_since: i64,
) -> Result<usize, StoreError> {
    let full =
        statement(conn, "DELETE FROM rate_buckets WHERE full_at < $1").bind::<BigInt, _>(now);
    let mut removed = super::on_backend!(&mut *conn, |c| full.execute(c))?;
    let quiet = statement(
        conn,
        "DELETE FROM guessed_names WHERE updated_at < $1
         AND (blocked_until IS NULL OR blocked_until < $2)",
    )
    .bind::<BigInt, _>(now - 3_600_000)
    .bind::<BigInt, _>(now);
    removed += super::on_backend!(&mut *conn, |c| quiet.execute(c))?;
    let stale = statement(
        conn,
        "DELETE FROM sign_in_addresses WHERE signed_in_at < $1",
    )
    .bind::<BigInt, _>(known_since);
    removed += super::on_backend!(&mut *conn, |c| stale.execute(c))?;
    Ok(removed)
}
