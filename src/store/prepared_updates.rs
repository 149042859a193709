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

/// `UPDATE games` to the append's new head, guarded by the seq it was decided at.
pub(super) struct GameHeadUpdate<'a> {
    pub game_id: &'a str,
    pub expected_seq: i64,
    pub new_seq: i64,
    pub status: &'a str,
    pub to_act: String,
    pub outcome: Option<String>,
    pub updated_at: i64,
}

impl<DB> QueryFragment<DB> for GameHeadUpdate<'_>
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
        out.push_sql(", status = ");
        out.push_bind_param::<Text, _>(self.status)?;
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
        Ok(())
    }
}

kept_prepared!(GameHeadUpdate);

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
