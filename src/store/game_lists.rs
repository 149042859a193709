//! Lists of games: the lobby's pages with their filters and keyset positions, an account's
//! record of games played, and the finished games an archive or export walks.

use diesel::prelude::*;

use super::games::{corrupt, seats_of, Game, GameRow, GameStatus, GameWithSettings, SeatWithName};
use super::schema::{game_invitations, game_settings, games, seats};
use super::settings::settings_columns;
use super::{DbConnection, StoreError};
use crate::games::engine::Seat;
use crate::games::server_events::Standing;

/// Which games to list; all filters apply at once, paging happens in SQL.
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    /// The account that lists: games that are not public show only to their players and
    /// invitees.
    pub viewer: String,
    /// Only games this account sits in.
    pub member: Option<String>,
    /// Only games this account is invited to.
    pub invited: Option<String>,
    /// Only games where this account's seat must act now, nearest deadline first.
    pub to_act: Option<String>,
    pub status: Option<GameStatus>,
    pub kind: Option<String>,
    pub limit: i64,
    pub start: GameListStart,
}

/// Where a page of games starts.
#[derive(Debug, Clone, Default)]
pub enum GameListStart {
    #[default]
    First,
    /// After this many games (the older `offset`).
    Offset(i64),
    /// After the game at this position of the list's order.
    After(GameListPosition),
}

/// A game's place in the list's order: its last activity and id, and for the games where
/// an account must act, first that seat's deadline (`i64::MAX` when it has none).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameListPosition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<i64>,
    pub updated_at: i64,
    pub id: String,
}

/// One page of games with their seats: two queries whatever the page size. Most recently
/// active first, or, for the games where an account must act, nearest deadline first.
pub fn list_games(
    conn: &mut DbConnection,
    filter: &GameFilter,
) -> Result<Vec<(Game, Vec<SeatWithName>)>, StoreError> {
    use diesel::dsl::sql;
    use diesel::sql_types::BigInt;
    let member_games = |account: &str| {
        seats::table
            .filter(seats::account_id.eq(account.to_owned()))
            .select(seats::game_id)
    };
    let invited_games = |account: &str| {
        game_invitations::table
            .filter(game_invitations::account_id.eq(account.to_owned()))
            .filter(game_invitations::declined_at.is_null())
            .select(game_invitations::game_id)
    };
    // The caller's seat where it must act, joined for its deadline (when listing `to_act`).
    let acting_seat = diesel::alias!(seats as acting_seat);
    let mut query = games::table
        .left_join(
            acting_seat.on(acting_seat.field(seats::game_id).eq(games::id).and(
                acting_seat
                    .field(seats::account_id)
                    .eq(filter.to_act.clone().unwrap_or_default())
                    .and(acting_seat.field(seats::must_act).eq(true))
                    .and(acting_seat.field(seats::bot).is_null()),
            )),
        )
        .left_join(game_settings::table)
        .select((GameRow::as_select(), settings_columns!().nullable()))
        .into_boxed();
    query = query.filter(
        games::private
            .eq(false)
            .or(games::created_by.eq(filter.viewer.clone()))
            .or(games::id.eq_any(member_games(&filter.viewer)))
            .or(games::id.eq_any(invited_games(&filter.viewer))),
    );
    if let Some(member) = &filter.member {
        query = query.filter(games::id.eq_any(member_games(member)));
    }
    if let Some(invited) = &filter.invited {
        query = query.filter(games::id.eq_any(invited_games(invited)));
    }
    if filter.to_act.is_some() {
        query = query
            .filter(acting_seat.field(seats::seat).is_not_null())
            .order(sql::<BigInt>("COALESCE(acting_seat.deadline, 9223372036854775807)").asc());
    }
    if let Some(status) = filter.status {
        query = query.filter(games::status.eq(status.as_str()));
    }
    if let Some(kind) = &filter.kind {
        query = query.filter(games::kind.eq(kind.clone()));
    }
    let mut offset = 0;
    match &filter.start {
        GameListStart::First => {}
        GameListStart::Offset(skipped) => offset = *skipped,
        GameListStart::After(position) => {
            let later = games::updated_at
                .lt(position.updated_at)
                .or(games::updated_at
                    .eq(position.updated_at)
                    .and(games::id.gt(position.id.clone())));
            query = match (filter.to_act.is_some(), position.deadline) {
                (true, Some(deadline)) => {
                    let acting_deadline =
                        || sql::<BigInt>("COALESCE(acting_seat.deadline, 9223372036854775807)");
                    query.filter(
                        acting_deadline()
                            .gt(deadline)
                            .or(acting_deadline().eq(deadline).and(later)),
                    )
                }
                _ => query.filter(later),
            };
        }
    }
    let rows: Vec<GameWithSettings> = query
        .then_order_by((games::updated_at.desc(), games::id.asc()))
        .limit(filter.limit)
        .offset(offset)
        .load(conn)?;
    let games = rows
        .into_iter()
        .map(Game::try_from)
        .collect::<Result<Vec<Game>, StoreError>>()?;
    let ids: Vec<String> = games.iter().map(|game| game.id.clone()).collect();
    let mut seats_by_game = seats_of(conn, ids)?;
    Ok(games
        .into_iter()
        .map(|game| {
            let seats = seats_by_game.remove(&game.id).unwrap_or_default();
            (game, seats)
        })
        .collect())
}

/// One game an account sits in, for its record: kind, status, outcome and seat.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedGame {
    pub game_id: String,
    pub kind: String,
    pub status: GameStatus,
    pub outcome: Option<Standing>,
    pub seat: Seat,
    /// When the game last moved (for a finished game: when it finished).
    pub updated_at: i64,
    /// The game is public: it shows in its players' public histories.
    pub public: bool,
}

/// A [`PlayedGame`] as read: id, kind, status, outcome, seat, last activity, not public.
type PlayedGameColumns = (String, String, String, Option<String>, i32, i64, bool);

/// Every game `account_id` sits in, oldest activity first.
pub fn games_played_by(
    conn: &mut DbConnection,
    account_id: &str,
) -> Result<Vec<PlayedGame>, StoreError> {
    let rows: Vec<PlayedGameColumns> = seats::table
        .inner_join(games::table)
        .filter(seats::account_id.eq(account_id))
        .order((games::updated_at.asc(), games::id.asc()))
        .select((
            games::id,
            games::kind,
            games::status,
            games::outcome,
            seats::seat,
            games::updated_at,
            games::private,
        ))
        .load(conn)?;
    rows.into_iter()
        .map(
            |(game_id, kind, status, outcome, seat, updated_at, private)| {
                Ok(PlayedGame {
                    public: !private,
                    status: GameStatus::parse(&status)?,
                    outcome: outcome
                        .as_deref()
                        .map(serde_json::from_str)
                        .transpose()
                        .map_err(|error| corrupt(&game_id, "outcome", error))?,
                    seat: Seat::try_from(seat).map_err(|error| corrupt(&game_id, "seat", error))?,
                    kind,
                    updated_at,
                    game_id,
                })
            },
        )
        .collect()
}

/// The finished games of `kind` (every kind when `None`) that finished in
/// `[since, until)`, oldest first: the public ones, and those `viewer` sat at.
pub fn finished_game_ids(
    conn: &mut DbConnection,
    kind: Option<&str>,
    since: i64,
    until: i64,
    viewer: &str,
) -> Result<Vec<String>, StoreError> {
    let viewer_games = seats::table
        .filter(seats::account_id.eq(viewer.to_owned()))
        .select(seats::game_id);
    let mut query = games::table
        .filter(games::status.eq_any([
            GameStatus::Finished.as_str(),
            GameStatus::Abandoned.as_str(),
        ]))
        .filter(games::private.eq(false).or(games::id.eq_any(viewer_games)))
        .filter(games::updated_at.ge(since))
        .filter(games::updated_at.lt(until))
        .select(games::id)
        .into_boxed();
    if let Some(kind) = kind {
        query = query.filter(games::kind.eq(kind.to_owned()));
    }
    Ok(query
        .order((games::updated_at.asc(), games::id.asc()))
        .load(conn)?)
}
