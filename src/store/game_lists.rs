//! Lists of games: the lobby's pages with their filters and keyset positions, an account's
//! record of games played, and the finished games an archive or export walks.

use diesel::prelude::*;

use super::games::{corrupt, seats_of, Game, GameRow, GameStatus, GameWithSettings, SeatWithName};
use super::schema::{
    blocks, follows, game_invitations, game_settings, games, rating_changes, seats,
};
use super::settings::settings_columns;
use super::{DbConnection, StoreError};
use crate::games::engine::Seat;
use crate::games::server_events::Standing;
use diesel::dsl::sql;
use diesel::sql_types::Bool;

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
    /// Only public games (the archive and the games to watch), whoever lists.
    pub public_only: bool,
    /// Only games one of the accounts this account follows sits in.
    pub followed_by: Option<String>,
    /// Only games every one of these accounts sits in.
    pub players: Vec<String>,
    /// Only games with each of these options chosen.
    pub options: Vec<OptionFilter>,
    /// Only games with this kind of time control (`none`, `days_per_move`, `time_bank`).
    pub time_control: Option<&'static str>,
    /// Only games whose last activity (for a finished game: its end) is at or after this.
    pub since: Option<i64>,
    /// Only games whose last activity is before this.
    pub until: Option<i64>,
    /// Only finished games this account placed first in (shared or not).
    pub won_by: Option<String>,
    /// Only rated games whose every player was rated at least this before the game.
    pub min_rating: Option<f64>,
    /// Only rated games whose every player was rated at most this before the game.
    pub max_rating: Option<f64>,
    pub limit: i64,
    pub start: GameListStart,
}

/// A filter on a game's options, as its kind's options schema names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionFilter {
    /// The yes/no option is yes.
    On(String),
    /// The list option holds at least one choice.
    AnyOf(String),
    /// The list option holds this choice.
    Holds(String, String),
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
    if filter.public_only {
        query = query.filter(games::private.eq(false));
    }
    // Lists of other people's games (the lobby, watching, the archive) leave out the games
    // of accounts the viewer blocks or that block the viewer; the viewer's own lists keep
    // every game it sits in or is invited to.
    if filter.member.is_none() && filter.invited.is_none() && filter.to_act.is_none() {
        let blocked_by_viewer = blocks::table
            .filter(blocks::account_id.eq(filter.viewer.clone()))
            .select(blocks::blocked_id.nullable());
        let blocking_viewer = blocks::table
            .filter(blocks::blocked_id.eq(filter.viewer.clone()))
            .select(blocks::account_id.nullable());
        query = query
            .filter(
                games::id.ne_all(
                    seats::table
                        .filter(seats::account_id.eq_any(blocked_by_viewer))
                        .select(seats::game_id),
                ),
            )
            .filter(
                games::id.ne_all(
                    seats::table
                        .filter(seats::account_id.eq_any(blocking_viewer))
                        .select(seats::game_id),
                ),
            );
    }
    if let Some(follower) = &filter.followed_by {
        let followed = follows::table
            .filter(follows::follower_id.eq(follower.clone()))
            .select(follows::followed_id.nullable());
        let games_of_followed = seats::table
            .filter(seats::account_id.eq_any(followed))
            .select(seats::game_id);
        query = query.filter(games::id.eq_any(games_of_followed));
    }
    for player in &filter.players {
        query = query.filter(games::id.eq_any(member_games(player)));
    }
    let postgres = matches!(conn, DbConnection::Postgresql(_));
    for option in &filter.options {
        query = query.filter(option_condition(option, postgres));
    }
    if let Some(winner) = &filter.won_by {
        query = query.filter(won_by_condition(winner, postgres));
    }
    if let Some(time_control) = filter.time_control {
        query = query.filter(games::time_control.like(format!("{{\"type\":\"{time_control}\"%")));
    }
    if let Some(since) = filter.since {
        query = query.filter(games::updated_at.ge(since));
    }
    if let Some(until) = filter.until {
        query = query.filter(games::updated_at.lt(until));
    }
    if filter.min_rating.is_some() || filter.max_rating.is_some() {
        query =
            query.filter(games::id.eq_any(rating_changes::table.select(rating_changes::game_id)));
    }
    if let Some(least) = filter.min_rating {
        query = query.filter(
            games::id.ne_all(
                rating_changes::table
                    .filter(rating_changes::rating_before.lt(least))
                    .select(rating_changes::game_id),
            ),
        );
    }
    if let Some(most) = filter.max_rating {
        query = query.filter(
            games::id.ne_all(
                rating_changes::table
                    .filter(rating_changes::rating_before.gt(most))
                    .select(rating_changes::game_id),
            ),
        );
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

/// The SQL condition of an option filter on `games.options` (JSON text), in the backend's
/// own JSON functions. Names and choices are written into the SQL text, so only those made
/// of lowercase letters, digits and `_` are (the API takes them from the kind's options
/// schema, which has no others); any other filter matches no game.
fn option_condition(option: &OptionFilter, postgres: bool) -> diesel::expression::SqlLiteral<Bool> {
    let plain = |text: &str| {
        !text.is_empty()
            && text
                .bytes()
                .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_')
    };
    let condition = match (option, postgres) {
        (OptionFilter::On(name), _) if !plain(name) => None,
        (OptionFilter::AnyOf(name), _) if !plain(name) => None,
        (OptionFilter::Holds(name, choice), _) if !plain(name) || !plain(choice) => None,
        (OptionFilter::On(name), true) => {
            Some(format!("(games.options::jsonb -> '{name}') = 'true'::jsonb"))
        }
        (OptionFilter::On(name), false) => {
            Some(format!("json_type(games.options, '$.{name}') = 'true'"))
        }
        (OptionFilter::AnyOf(name), true) => Some(format!(
            "jsonb_typeof(games.options::jsonb -> '{name}') = 'array' \
             AND jsonb_array_length(games.options::jsonb -> '{name}') > 0"
        )),
        (OptionFilter::AnyOf(name), false) => Some(format!(
            "json_type(games.options, '$.{name}') = 'array' \
             AND json_array_length(games.options, '$.{name}') > 0"
        )),
        (OptionFilter::Holds(name, choice), true) => Some(format!(
            "jsonb_typeof(games.options::jsonb -> '{name}') = 'array' \
             AND (games.options::jsonb -> '{name}') @> '[\"{choice}\"]'::jsonb"
        )),
        (OptionFilter::Holds(name, choice), false) => Some(format!(
            "json_type(games.options, '$.{name}') = 'array' AND EXISTS \
             (SELECT 1 FROM json_each(games.options, '$.{name}') WHERE json_each.value = '{choice}')"
        )),
    };
    sql::<Bool>(&format!(
        "({})",
        condition.unwrap_or_else(|| "1 = 0".to_owned())
    ))
}

/// The SQL condition "`account` sat at the game and placed first": its seat's place in the
/// outcome's `places` (JSON text). Account ids are letters and digits, written into the SQL
/// text; any other id matches no game.
fn won_by_condition(account: &str, postgres: bool) -> diesel::expression::SqlLiteral<Bool> {
    if account.is_empty() || !account.bytes().all(|byte| byte.is_ascii_alphanumeric()) {
        return sql::<Bool>("(1 = 0)");
    }
    let place = if postgres {
        "(games.outcome::jsonb -> 'places' ->> winner.seat) = '1'"
    } else {
        "json_extract(games.outcome, '$.places[' || winner.seat || ']') = 1"
    };
    sql::<Bool>(&format!(
        "(games.status = 'finished' AND EXISTS (SELECT 1 FROM seats winner \
         WHERE winner.game_id = games.id AND winner.account_id = '{account}' AND {place}))"
    ))
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
