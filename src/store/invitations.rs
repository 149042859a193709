//! Invitations to private games: sent with the game, declined by the invitee, and the
//! invitee's list of those still waiting.

use diesel::prelude::*;

use super::games::{seats_of, Game, GameRow, GameStatus, SeatWithName};
use super::schema::{accounts, game_invitations, game_settings, games, seats};
use super::settings::{settings_columns, SettingsColumns};
use super::{DbConnection, StoreError};

/// Invites accounts to a game at `now`; an account invited already keeps its invitation.
/// Returns the accounts newly invited.
pub fn invite(
    conn: &mut DbConnection,
    game_id: &str,
    account_ids: &[String],
    now: i64,
) -> Result<Vec<String>, StoreError> {
    let mut invited = Vec::new();
    for account_id in account_ids {
        let exists = game_invitations::table
            .find((game_id, account_id))
            .count()
            .get_result::<i64>(conn)?
            > 0;
        if !exists && !invited.contains(account_id) {
            diesel::insert_into(game_invitations::table)
                .values((
                    game_invitations::game_id.eq(game_id),
                    game_invitations::account_id.eq(account_id),
                    game_invitations::invited_at.eq(now),
                ))
                .execute(conn)?;
            invited.push(account_id.clone());
        }
    }
    Ok(invited)
}

/// The accounts invited to a game that have not declined.
pub fn invitations(conn: &mut DbConnection, game_id: &str) -> Result<Vec<String>, StoreError> {
    Ok(game_invitations::table
        .filter(game_invitations::game_id.eq(game_id))
        .filter(game_invitations::declined_at.is_null())
        .select(game_invitations::account_id)
        .order(game_invitations::account_id.asc())
        .load(conn)?)
}

/// One invitation of a game: (account id, account name, invited at, declined at).
pub type SentInvitationRow = (String, String, i64, Option<i64>);

/// Every invitation of a game, declined ones too, oldest first.
pub fn sent_invitations(
    conn: &mut DbConnection,
    game_id: &str,
) -> Result<Vec<SentInvitationRow>, StoreError> {
    Ok(game_invitations::table
        .inner_join(accounts::table.on(accounts::id.eq(game_invitations::account_id)))
        .filter(game_invitations::game_id.eq(game_id))
        .select((
            game_invitations::account_id,
            accounts::name,
            game_invitations::invited_at,
            game_invitations::declined_at,
        ))
        .order((game_invitations::invited_at.asc(), accounts::name.asc()))
        .load(conn)?)
}

/// Marks `account_id`'s invitation to a game declined; false when it has none standing.
pub fn decline_invitation(
    conn: &mut DbConnection,
    game_id: &str,
    account_id: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let updated = diesel::update(
        game_invitations::table
            .find((game_id, account_id))
            .filter(game_invitations::declined_at.is_null()),
    )
    .set(game_invitations::declined_at.eq(now))
    .execute(conn)?;
    Ok(updated == 1)
}

/// An invitation still waiting for its invitee: an open game, a seat not yet taken, not
/// declined.
#[derive(Debug, Clone)]
pub struct PendingInvitation {
    pub game: Game,
    pub seats: Vec<SeatWithName>,
    pub invited_at: i64,
}

/// `account_id`'s pending invitations, newest first (at most `limit`, after the invitation
/// at `after`: its time and game id).
pub fn pending_invitations(
    conn: &mut DbConnection,
    account_id: &str,
    limit: i64,
    after: Option<&(i64, String)>,
) -> Result<Vec<PendingInvitation>, StoreError> {
    let seated = seats::table
        .filter(seats::account_id.eq(account_id.to_owned()))
        .select(seats::game_id);
    let mut query = game_invitations::table
        .inner_join(games::table.left_join(game_settings::table))
        .filter(game_invitations::account_id.eq(account_id))
        .filter(game_invitations::declined_at.is_null())
        .filter(games::status.eq(GameStatus::Open.as_str()))
        .filter(games::id.ne_all(seated))
        .into_boxed();
    if let Some((invited_at, game_id)) = after {
        query = query.filter(
            game_invitations::invited_at
                .lt(*invited_at)
                .or(game_invitations::invited_at
                    .eq(*invited_at)
                    .and(games::id.gt(game_id.clone()))),
        );
    }
    let rows: Vec<(GameRow, SettingsColumns, i64)> = query
        .order((game_invitations::invited_at.desc(), games::id.asc()))
        .limit(limit)
        .select((
            GameRow::as_select(),
            settings_columns!().nullable(),
            game_invitations::invited_at,
        ))
        .load(conn)?;
    let ids: Vec<String> = rows.iter().map(|(game, _, _)| game.id.clone()).collect();
    let mut seats_by_game = seats_of(conn, ids)?;
    rows.into_iter()
        .map(|(game, settings, invited_at)| {
            let seats = seats_by_game.remove(&game.id).unwrap_or_default();
            Ok(PendingInvitation {
                game: Game::try_from((game, settings))?,
                seats,
                invited_at,
            })
        })
        .collect()
}
