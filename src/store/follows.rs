//! One-sided follows between accounts: who follows whom, with a count per follower kept on
//! its account row for the quota.

use diesel::prelude::*;

use super::schema::{accounts, follows, games, seats};
use super::{on_backend, DbConnection, GameStatus, StoreError};

/// What a follow did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Followed {
    /// A new follow.
    Added,
    /// The follower followed the account already.
    Already,
    /// The follower follows as many accounts as it may.
    QuotaFull,
}

/// `follower` follows `followed`, unless it follows `most` accounts already. Holds the
/// follower's row (the count's update) until the transaction ends, so that follows at once
/// from several instances cannot pass the quota together.
pub fn follow(
    conn: &mut DbConnection,
    follower: &str,
    followed: &str,
    now: i64,
    most: i32,
) -> Result<Followed, StoreError> {
    let counted = diesel::update(accounts::table.find(follower))
        .filter(accounts::follow_count.lt(most))
        .set(accounts::follow_count.eq(accounts::follow_count + 1))
        .execute(conn)?;
    let insert = diesel::insert_into(follows::table)
        .values((
            follows::follower_id.eq(follower),
            follows::followed_id.eq(followed),
            follows::created_at.eq(now),
        ))
        .on_conflict_do_nothing();
    if counted == 0 {
        return Ok(if follows(conn, follower, followed)? {
            Followed::Already
        } else {
            Followed::QuotaFull
        });
    }
    let inserted = on_backend!(&mut *conn, |c| insert.execute(c))?;
    if inserted == 0 {
        uncount(conn, follower, 1)?;
        return Ok(Followed::Already);
    }
    Ok(Followed::Added)
}

fn uncount(conn: &mut DbConnection, follower: &str, removed: i32) -> Result<(), StoreError> {
    diesel::update(accounts::table.find(follower))
        .set(accounts::follow_count.eq(accounts::follow_count - removed))
        .execute(conn)?;
    Ok(())
}

/// `follower` no longer follows `followed`; false when it did not.
pub fn unfollow(
    conn: &mut DbConnection,
    follower: &str,
    followed: &str,
) -> Result<bool, StoreError> {
    let removed = diesel::delete(follows::table.find((follower, followed))).execute(conn)?;
    if removed == 1 {
        uncount(conn, follower, 1)?;
    }
    Ok(removed == 1)
}

/// Neither account follows the other any more (one of them blocked the other).
pub fn unfollow_both_ways(conn: &mut DbConnection, a: &str, b: &str) -> Result<(), StoreError> {
    unfollow(conn, a, b)?;
    unfollow(conn, b, a)?;
    Ok(())
}

/// Whether `follower` follows `followed`.
pub fn follows(
    conn: &mut DbConnection,
    follower: &str,
    followed: &str,
) -> Result<bool, StoreError> {
    Ok(follows::table
        .find((follower, followed))
        .select(follows::created_at)
        .first::<i64>(conn)
        .optional()?
        .is_some())
}

/// How many accounts follow `followed` and how many it follows.
pub fn counts(conn: &mut DbConnection, account: &str) -> Result<(i64, i64), StoreError> {
    let followers: i64 = follows::table
        .filter(follows::followed_id.eq(account))
        .count()
        .get_result(conn)?;
    let following: i32 = accounts::table
        .find(account)
        .select(accounts::follow_count)
        .first(conn)?;
    Ok((followers, i64::from(following)))
}

/// An account someone follows, with when, and how many public games it waits in for
/// players.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowedAccount {
    pub account_id: String,
    pub name: String,
    /// The name as the list is ordered by.
    pub name_key: String,
    pub since: i64,
    pub open_games: i64,
}

/// The accounts `follower` follows, by name: at most `limit`, after the name key
/// `after_name_key`.
pub fn followed_by(
    conn: &mut DbConnection,
    follower: &str,
    after_name_key: Option<&str>,
    limit: i64,
) -> Result<Vec<FollowedAccount>, StoreError> {
    entries(conn, follower, after_name_key, None, limit)
}

/// `follower`'s entry for `followed`, if it follows it.
pub fn entry(
    conn: &mut DbConnection,
    follower: &str,
    followed: &str,
) -> Result<Option<FollowedAccount>, StoreError> {
    Ok(entries(conn, follower, None, Some(followed), 1)?.pop())
}

fn entries(
    conn: &mut DbConnection,
    follower: &str,
    after_name_key: Option<&str>,
    only: Option<&str>,
    limit: i64,
) -> Result<Vec<FollowedAccount>, StoreError> {
    let mut query = follows::table
        .inner_join(accounts::table.on(accounts::id.eq(follows::followed_id)))
        .filter(follows::follower_id.eq(follower))
        .into_boxed();
    if let Some(after) = after_name_key {
        query = query.filter(accounts::name_key.gt(after.to_owned()));
    }
    if let Some(only) = only {
        query = query.filter(follows::followed_id.eq(only.to_owned()));
    }
    let rows: Vec<(String, String, String, i64)> = query
        .order(accounts::name_key.asc())
        .limit(limit)
        .select((
            follows::followed_id,
            accounts::name,
            accounts::name_key,
            follows::created_at,
        ))
        .load(conn)?;
    let ids: Vec<String> = rows.iter().map(|row| row.0.clone()).collect();
    let open: Vec<(Option<String>, i64)> = seats::table
        .inner_join(games::table)
        .filter(seats::account_id.eq_any(ids))
        .filter(games::status.eq(GameStatus::Open.as_str()))
        .filter(games::private.eq(false))
        .group_by(seats::account_id)
        .select((seats::account_id, diesel::dsl::count_star()))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(account_id, name, name_key, since)| FollowedAccount {
            open_games: open
                .iter()
                .find(|(id, _)| id.as_deref() == Some(account_id.as_str()))
                .map_or(0, |(_, count)| *count),
            account_id,
            name,
            name_key,
            since,
        })
        .collect())
}
