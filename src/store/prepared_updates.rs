//! The updates every move makes, as statements a connection prepares once. Diesel prepares
//! its own `UPDATE`s again on every call (a changeset may leave columns out, so it never
//! trusts their text to stay the same); on SQLite, where the transaction is the move's path,
//! that was a parse of the game's update, of the turn flags' when the turn passed and of
//! each changed seat's (its clock, on a timed game's every move), for every move. These
//! have one text each and a type of their own, under which the connection's statement
//! cache keeps them.

use diesel::backend::Backend;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Integer, Nullable, Text};

/// Gives the query its type as a static query id, under which the connection's statement
/// cache keeps it prepared (its text must never change), and lets it run.
macro_rules! kept_prepared {
    ($query:ident) => {
        impl QueryId for $query<'_> {
            type QueryId = $query<'static>;
            const HAS_STATIC_QUERY_ID: bool = true;
        }

        impl<Conn> RunQueryDsl<Conn> for $query<'_> {}
    };
}

/// `UPDATE games` to the append's new head, guarded by the seq and status it was decided
/// at. `STATUS_CHANGES` says whether the status column is set: left out when it stays, since
/// SQLite rewrites the entries of every index on a column the `SET` names, changed or not
/// (two of the games' indexes hold the status and nothing a move changes; docs/performance.md,
/// "What a move writes"). One text for each value of `STATUS_CHANGES`, each prepared under
/// its own type.
pub(super) struct GameHeadUpdate<'a, const STATUS_CHANGES: bool> {
    pub game_id: &'a str,
    pub expected_seq: i64,
    pub new_seq: i64,
    pub previous_status: &'a str,
    pub status: &'a str,
    pub to_act: String,
    pub outcome: Option<String>,
    pub updated_at: i64,
}

impl<DB, const STATUS_CHANGES: bool> QueryFragment<DB> for GameHeadUpdate<'_, STATUS_CHANGES>
where
    DB: Backend,
    DB: diesel::sql_types::HasSqlType<BigInt> + diesel::sql_types::HasSqlType<Text>,
    i64: diesel::serialize::ToSql<BigInt, DB>,
    str: diesel::serialize::ToSql<Text, DB>,
    String: diesel::serialize::ToSql<Text, DB>,
    Option<String>: diesel::serialize::ToSql<Nullable<Text>, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE games SET current_seq = ");
        out.push_bind_param::<BigInt, _>(&self.new_seq)?;
        if STATUS_CHANGES {
            out.push_sql(", status = ");
            out.push_bind_param::<Text, _>(self.status)?;
        }
        out.push_sql(", to_act = ");
        out.push_bind_param::<Text, _>(&self.to_act)?;
        out.push_sql(", outcome = ");
        out.push_bind_param::<Nullable<Text>, _>(&self.outcome)?;
        out.push_sql(", updated_at = ");
        out.push_bind_param::<BigInt, _>(&self.updated_at)?;
        out.push_sql(" WHERE id = ");
        out.push_bind_param::<Text, _>(self.game_id)?;
        out.push_sql(" AND current_seq = ");
        out.push_bind_param::<BigInt, _>(&self.expected_seq)?;
        // The seq alone would let a status the append did not read stay (when the `SET`
        // leaves it out) or be overwritten: a cancel changes an open game's status and not
        // its seq. Joins and leaves lock the open game first, so none races with a cancel
        // today; this keeps that from mattering should a path ever not.
        out.push_sql(" AND status = ");
        out.push_bind_param::<Text, _>(self.previous_status)?;
        Ok(())
    }
}

impl<const STATUS_CHANGES: bool> QueryId for GameHeadUpdate<'_, STATUS_CHANGES> {
    type QueryId = GameHeadUpdate<'static, STATUS_CHANGES>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<Conn, const STATUS_CHANGES: bool> RunQueryDsl<Conn> for GameHeadUpdate<'_, STATUS_CHANGES> {}

/// The turn flags of a game's seats when exactly one seat acts: that seat's set, every
/// other's cleared.
pub(super) struct OneSeatToAct<'a> {
    pub game_id: &'a str,
    pub seat: i32,
}

impl<DB> QueryFragment<DB> for OneSeatToAct<'_>
where
    DB: Backend,
    DB: diesel::sql_types::HasSqlType<Integer> + diesel::sql_types::HasSqlType<Text>,
    i32: diesel::serialize::ToSql<Integer, DB>,
    str: diesel::serialize::ToSql<Text, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE seats SET must_act = (seat = ");
        out.push_bind_param::<Integer, _>(&self.seat)?;
        out.push_sql(") WHERE game_id = ");
        out.push_bind_param::<Text, _>(self.game_id)?;
        Ok(())
    }
}

kept_prepared!(OneSeatToAct);

/// One seat's clock, bot, forfeit and vacation as an append leaves them.
pub(super) struct SeatStateUpdate<'a> {
    pub game_id: &'a str,
    pub seat: i32,
    pub deadline: Option<i64>,
    pub bank_ms: i64,
    pub bot: Option<&'a str>,
    pub forfeit: Option<&'a str>,
    pub vacation_until: Option<i64>,
}

impl<DB> QueryFragment<DB> for SeatStateUpdate<'_>
where
    DB: Backend,
    DB: diesel::sql_types::HasSqlType<BigInt>
        + diesel::sql_types::HasSqlType<Integer>
        + diesel::sql_types::HasSqlType<Text>,
    i64: diesel::serialize::ToSql<BigInt, DB>,
    i32: diesel::serialize::ToSql<Integer, DB>,
    str: diesel::serialize::ToSql<Text, DB>,
    Option<i64>: diesel::serialize::ToSql<Nullable<BigInt>, DB>,
    for<'s> Option<&'s str>: diesel::serialize::ToSql<Nullable<Text>, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE seats SET deadline = ");
        out.push_bind_param::<Nullable<BigInt>, _>(&self.deadline)?;
        out.push_sql(", bank_ms = ");
        out.push_bind_param::<BigInt, _>(&self.bank_ms)?;
        out.push_sql(", bot = ");
        out.push_bind_param::<Nullable<Text>, _>(&self.bot)?;
        out.push_sql(", forfeit = ");
        out.push_bind_param::<Nullable<Text>, _>(&self.forfeit)?;
        out.push_sql(", vacation_until = ");
        out.push_bind_param::<Nullable<BigInt>, _>(&self.vacation_until)?;
        out.push_sql(" WHERE game_id = ");
        out.push_bind_param::<Text, _>(self.game_id)?;
        out.push_sql(" AND seat = ");
        out.push_bind_param::<Integer, _>(&self.seat)?;
        Ok(())
    }
}

kept_prepared!(SeatStateUpdate);

#[cfg(test)]
mod tests {
    use diesel::connection::SimpleConnection;
    use diesel::sqlite::{Sqlite, SqliteConnection};

    use super::*;

    fn head<const STATUS_CHANGES: bool>(
        expected_seq: i64,
        previous_status: &'static str,
        status: &'static str,
    ) -> GameHeadUpdate<'static, STATUS_CHANGES> {
        GameHeadUpdate {
            game_id: "g",
            expected_seq,
            new_seq: expected_seq + 1,
            previous_status,
            status,
            to_act: "[1]".into(),
            outcome: None,
            updated_at: 1000 + expected_seq,
        }
    }

    fn status_and_seq(conn: &mut SqliteConnection) -> (String, i64) {
        use crate::store::schema::games;
        games::table
            .select((games::status, games::current_seq))
            .first(conn)
            .unwrap()
    }

    #[test]
    fn the_head_sets_the_status_only_when_it_changes_and_never_over_one_it_did_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        drop(crate::store::Db::open(path.to_str().unwrap()).unwrap());
        let mut conn = SqliteConnection::establish(path.to_str().unwrap()).unwrap();
        conn.batch_execute(
            // A game row alone, without its creator's account.
            "PRAGMA foreign_keys = OFF; INSERT INTO games (id, kind, rules_version, options, seat_count, status, seed, \
             created_by, created_at, updated_at, current_seq, to_act, time_control, private) \
             VALUES ('g', 'tikal', 1, '{}', 2, 'open', 's', 'a', 0, 0, 3, '[]', '{}', 0)",
        )
        .unwrap();

        let staying =
            diesel::debug_query::<Sqlite, _>(&head::<false>(3, "open", "open")).to_string();
        assert!(
            !staying.contains("SET current_seq = ?, status"),
            "{staying}"
        );
        assert_eq!(head::<false>(3, "open", "open").execute(&mut conn), Ok(1));
        assert_eq!(status_and_seq(&mut conn), ("open".into(), 4));

        // A cancel under the append (the seq stays): an append decided on the open game is
        // refused, whether or not it would change the status.
        conn.batch_execute("UPDATE games SET status = 'cancelled'")
            .unwrap();
        assert_eq!(head::<false>(4, "open", "open").execute(&mut conn), Ok(0));
        assert_eq!(head::<true>(4, "open", "running").execute(&mut conn), Ok(0));
        assert_eq!(status_and_seq(&mut conn), ("cancelled".into(), 4));

        conn.batch_execute("UPDATE games SET status = 'open'")
            .unwrap();
        assert_eq!(head::<true>(4, "open", "running").execute(&mut conn), Ok(1));
        assert_eq!(status_and_seq(&mut conn), ("running".into(), 5));
    }
}
