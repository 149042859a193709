//! The JSON bodies the API sends and receives that more than one resource shares.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use crate::auth::user::AuthUser;
use crate::error::ApiError;
use crate::games::bots::BotStrategy;
use crate::games::engine::Viewer;
use crate::games::replay::EventSource;
use crate::games::server_events::{Forfeit, ForfeitReason, TimeControl};
use crate::service::play::{Accepted, DescribedEvent, ViewAt, ViewJson};
use crate::service::{format_time, LoadedGame};
use crate::store::notifications::Notification;
use crate::store::{CancelReason, Visibility};

pub use crate::service::GameStatus;

/// An account as others see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AccountRef {
    pub id: String,
    pub name: String,
}

/// One seat at a game's table.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatInfo {
    /// 0-based seat index; seat 0 moves first.
    pub seat: u8,
    /// Who sat down there; `null` while the seat is open and for a bot seated at creation.
    /// A seat a bot took over keeps the account that left it.
    pub account: Option<AccountRef>,
    /// The bot that plays the seat now, if one does.
    pub bot: Option<BotStrategy>,
    /// Why the seat left the game early, if it did: it ranks last.
    pub forfeit: Option<ForfeitReason>,
    /// RFC 3339: when the seat must have acted, while its clock runs (timed games only).
    /// Missing it forfeits the seat like a resignation.
    pub deadline: Option<String>,
    /// Time bank games: milliseconds in the seat's bank when its clock last started or
    /// stopped (while it runs, what is left is `deadline` minus now).
    pub time_bank_ms: Option<i64>,
    /// The player here voted to abandon the game (`POST /v1/games/{id}/abandon`) and has
    /// not taken the vote back.
    pub abandon_vote: bool,
    /// RFC 3339: the player here is on vacation until then, and the seat's clock stands
    /// still (`POST /v1/me/vacation`); `null` otherwise.
    pub vacation_until: Option<String>,
    /// The player's rating in the game's kind now. `null` for open seats, bots, players
    /// without a rated game of the kind, and in the answers of moves and views, which do
    /// not read ratings (the lists, `GET /v1/games/{id}` and the lobby's answers do).
    pub rating: Option<SeatRating>,
    /// What this game did to the player's rating, once it finished rated; `null`
    /// otherwise (and where `rating` is not read).
    pub rating_change: Option<SeatRatingChange>,
}

/// A player's rating in one kind (see `RatingOut`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatRating {
    #[schema(example = 27.9)]
    pub rating: f64,
    #[schema(example = 7.1)]
    pub uncertainty: f64,
    /// `rating` minus three times `uncertainty`: what leaderboards rank by.
    #[schema(example = 6.6)]
    pub conservative: f64,
    /// Rated games of the kind counted.
    pub games: u32,
    /// Fewer rated games than a leaderboard needs: the rating is a first guess.
    pub provisional: bool,
}

/// What one finished rated game did to a player's rating.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatRatingChange {
    #[schema(example = 25.0)]
    pub before: f64,
    #[schema(example = 27.4)]
    pub after: f64,
}

/// Scores and places once a game is finished.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameOutcome {
    /// Final score per seat, indexed by seat.
    pub scores: Vec<i32>,
    /// Place per seat (1 = winner), indexed by seat; tied seats share a place. Seats that
    /// forfeited rank last (sharing that place) whatever their score.
    pub places: Vec<u8>,
    /// The seats that resigned or ran out of time.
    pub forfeits: Vec<Forfeit>,
}

/// When a seat must have acted.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatDeadline {
    pub seat: u8,
    /// RFC 3339.
    pub deadline: String,
}

/// A game as listed and summarised.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameSummary {
    pub id: String,
    /// The game's name for people: its `title`, or its kind and players ("Tikal: alice,
    /// bob and a bot"), or while one player sits alone "Tikal, open game by alice".
    #[schema(example = "Tikal: alice and bob")]
    pub name: String,
    /// The name its creator gave it (`title` of `POST /v1/games`), if any.
    pub title: Option<String>,
    /// Game kind, e.g. `tikal`.
    pub kind: String,
    /// The rules version the game started with; it keeps replaying under it.
    pub rules_version: u32,
    /// SHA-256 (hex) of `turnpost seed commitment v1\n` followed by the game's secret
    /// 32-byte seed, fixed when the game is created and recorded in its `game_set_up`
    /// event. The export of the finished game reveals the seed, so anyone can check that
    /// every shuffle and roll came from a seed chosen before the first move.
    #[schema(example = "7f0f3b426ccf69ba96a206ea123ce670bd4223e5f8ad7335882ea1364949ebdd")]
    pub seed_commitment: String,
    /// The options chosen at creation, with defaults filled in.
    #[schema(value_type = Object)]
    pub options: Value,
    pub status: GameStatus,
    pub seat_count: u8,
    pub seats: Vec<SeatInfo>,
    /// Seq of the last event in the log (0 before the game starts). Send it back as
    /// `expected_seq` when acting.
    pub current_seq: i64,
    /// Seats that must act now (several during simultaneous phases).
    pub to_act: Vec<u8>,
    /// The caller's seat, if seated.
    pub your_seat: Option<u8>,
    /// Whether the caller's seat must act now.
    pub your_turn: bool,
    /// Whether the caller created the game: the creator cancels an open game
    /// (`POST /v1/games/{id}/cancel`), anyone else seated leaves it.
    pub created_by_you: bool,
    /// Present once the game is finished.
    pub outcome: Option<GameOutcome>,
    /// How long players may think.
    pub time_control: TimeControl,
    /// How the clock counts, pinned when the game was created: 2, a time bank's increment
    /// and days per move count the seat's turns; 1 (games created before version 2), they
    /// counted its actions.
    #[schema(minimum = 1, maximum = 2, example = 2)]
    pub clock_version: u32,
    /// Who may see the game: `public`, `unlisted` (watched by link, never listed) or
    /// `private` (only its seats and invitees see it).
    pub visibility: Visibility,
    /// `visibility` is `private` (kept for clients written before `visibility`). Unlisted
    /// games, which only invited accounts may join too, say `false` here.
    pub private: bool,
    /// Why a `cancelled` game never started.
    pub cancel_reason: Option<CancelReason>,
    /// Whether the game counts for its players' ratings.
    pub rated: bool,
    /// Whether spectators may write in its chat (players always may).
    pub spectator_chat: bool,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339: the last join or move.
    pub updated_at: String,
}

impl GameSummary {
    pub fn of(loaded: &LoadedGame, caller: &AuthUser) -> GameSummary {
        let game = &loaded.game;
        let timed_bank = matches!(game.time_control, TimeControl::TimeBank { .. });
        let seats = (0..game.seat_count)
            .map(|seat| {
                let taken = loaded.seats.iter().find(|taken| taken.seat == seat);
                SeatInfo {
                    seat,
                    account: taken.and_then(|taken| {
                        Some(AccountRef {
                            id: taken.account_id.clone()?,
                            name: taken.account_name.clone()?,
                        })
                    }),
                    bot: taken.and_then(|taken| taken.bot),
                    forfeit: taken.and_then(|taken| taken.forfeit),
                    deadline: taken
                        .and_then(|taken| taken.clock.deadline_ms)
                        .map(format_time),
                    time_bank_ms: taken
                        .filter(|taken| timed_bank && taken.bot.is_none())
                        .map(|taken| taken.clock.bank_ms),
                    abandon_vote: taken.is_some_and(|taken| taken.abandon_vote),
                    vacation_until: taken
                        .and_then(|taken| taken.vacation_until)
                        .map(format_time),
                    rating: taken
                        .and_then(|taken| taken.account_id.as_ref())
                        .and_then(|account| loaded.people.ratings.get(account))
                        .map(|kind| SeatRating {
                            rating: kind.rating.rating,
                            uncertainty: kind.rating.uncertainty,
                            conservative: kind.rating.conservative(),
                            games: u32::try_from(kind.games).unwrap_or(0),
                            provisional: kind.provisional(),
                        }),
                    rating_change: taken
                        .and_then(|taken| taken.account_id.as_ref())
                        .and_then(|account| loaded.people.changes.get(account))
                        .map(|change| SeatRatingChange {
                            before: change.before,
                            after: change.after,
                        }),
                }
            })
            .collect();
        let your_seat = loaded.seat_of(caller);
        GameSummary {
            name: loaded.display_name(),
            title: game.title.clone(),
            id: game.id.clone(),
            kind: game.kind.clone(),
            rules_version: game.rules_version,
            seed_commitment: loaded.seed_commitment(),
            options: game.options.clone(),
            status: game.status,
            seat_count: game.seat_count,
            seats,
            current_seq: game.current_seq,
            // A seat a bot took over is the bot's to play, not its former player's.
            your_turn: loaded
                .seat_row_of(caller)
                .is_some_and(|seat| seat.bot.is_none() && game.to_act.contains(&seat.seat)),
            to_act: game.to_act.clone(),
            your_seat,
            created_by_you: game.created_by == caller.account_id,
            outcome: game.outcome.as_ref().map(|outcome| GameOutcome {
                scores: outcome.scores.clone(),
                places: outcome.places.clone(),
                forfeits: outcome.forfeits.clone(),
            }),
            time_control: game.time_control,
            clock_version: game.settings.clock_version.number(),
            visibility: game.visibility,
            private: game.visibility == Visibility::Private,
            cancel_reason: game.cancel_reason,
            rated: game.settings.rated,
            spectator_chat: game.settings.spectators_may_write,
            created_at: format_time(game.created_at),
            updated_at: format_time(game.updated_at),
        }
    }
}

/// One event of a game's log, as the caller may see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EventOut {
    pub seq: i64,
    /// RFC 3339 time of the append.
    pub time: String,
    /// The seat whose action caused the event; `null` for the opening events.
    pub seat: Option<u8>,
    /// The event's type tag (also `payload.type`).
    #[serde(rename = "type")]
    pub event_type: String,
    /// `engine` for the game's own events, `server` for clocks, resignations, timeouts and
    /// take-overs (the `ServerEvent...` variants of the `<Kind>LogEvent` schemas).
    pub source: EventSource,
    /// Version of the payload's JSON shape.
    pub schema_version: u32,
    /// The typed event (see the `<Kind>LogEvent` schemas: the game's own and the server's),
    /// with hidden fields `null`.
    #[schema(value_type = Object)]
    pub payload: Value,
    /// One line for people, e.g. "Red uncovers the temple at C3 to 5".
    pub text: String,
}

impl From<DescribedEvent> for EventOut {
    fn from(event: DescribedEvent) -> EventOut {
        EventOut {
            seq: event.seq,
            time: format_time(event.created_at),
            seat: event.seat,
            event_type: event.event_type,
            source: if event.from_server {
                EventSource::Server
            } else {
                EventSource::Engine
            },
            schema_version: event.schema_version,
            payload: event.payload,
            text: event.text,
        }
    }
}

/// The state of a game as the caller may see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ViewOut {
    pub game_id: String,
    pub kind: String,
    /// The seq this view shows the game at.
    pub seq: i64,
    /// The seat whose secrets this view includes; `null` for a spectator.
    pub viewer_seat: Option<u8>,
    /// Seats that must act at this seq.
    pub to_act: Vec<u8>,
    /// The deadlines of the seats whose clocks run at this seq (timed games).
    pub deadlines: Vec<SeatDeadline>,
    pub finished: bool,
    /// The game's own view (see the `<Kind>View` schemas).
    #[schema(value_type = Object)]
    pub view: ViewJson,
}

impl From<ViewAt> for ViewOut {
    fn from(view: ViewAt) -> ViewOut {
        ViewOut {
            game_id: view.game_id,
            kind: view.kind,
            seq: view.seq,
            viewer_seat: match view.viewer {
                Viewer::Seat(seat) => Some(seat),
                Viewer::Spectator | Viewer::Omniscient => None,
            },
            to_act: view.to_act,
            deadlines: view
                .deadlines
                .into_iter()
                .map(|(seat, deadline)| SeatDeadline {
                    seat,
                    deadline: format_time(deadline),
                })
                .collect(),
            finished: view.finished,
            view: view.view,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ActionAccepted {
    /// The game's kind.
    pub kind: String,
    /// The game's new seq.
    pub seq: i64,
    /// The events the action appended, as the caller may see them.
    pub events: Vec<EventOut>,
    /// The caller's view after the action.
    pub view: ViewOut,
}

/// Optional `Idempotency-Key` header.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IdempotencyHeader {
    /// Any string of 1 to 200 visible ASCII characters, unique per intended action (for
    /// example a random UUID, or `move-7f3a91`). A retry with the same key and body returns
    /// the first result and appends nothing; the same key with another body is 422
    /// `idempotency_key_reused`.
    // No `example`: Swagger UI would pre-fill it, and a second "Try it out" with another
    // action would then be refused as a reused key.
    #[param(rename = "Idempotency-Key", required = false, value_type = String, pattern = "^[!-~]{1,200}$")]
    pub idempotency_key: Option<String>,
}

impl From<Accepted> for ActionAccepted {
    fn from(accepted: Accepted) -> ActionAccepted {
        ActionAccepted {
            kind: accepted.view.kind.clone(),
            seq: accepted.seq,
            events: accepted.events.into_iter().map(EventOut::from).collect(),
            view: accepted.view.into(),
        }
    }
}

/// Something that concerns the caller in one of its games.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationOut {
    /// Increasing per account: resume a feed or stream after it.
    pub id: i64,
    #[serde(rename = "type")]
    #[schema(example = "your_turn")]
    pub kind: NotificationKind,
    pub game_id: String,
    #[schema(example = "tikal")]
    pub game_kind: String,
    /// The game's seq when it happened.
    pub seq: i64,
    /// The caller's seat in that game; absent when the caller has none (an `invitation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// Seats that must act after it.
    pub to_act: Vec<u8>,
    /// For `game_finished`: scores and places per seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<GameOutcome>,
    /// The name of the account whose act this reports: who invited you (`invitation`), who
    /// accepted or declined your invitation, who voted to abandon (`abandon_vote`), who
    /// wrote in the chat (`chat_message`, `mention`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "alice")]
    pub by: Option<String>,
    /// For an `invitation` to a rematch: the game it plays again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_of: Option<String>,
    /// For `chat_message` and `mention`: the message's id in the game's chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<i64>,
    /// For `reminder`: the deadline it reminds of (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<String>,
    /// RFC 3339.
    pub created_at: String,
}

/// What happened: `game_started` when a game you sit in starts, `your_turn` when your seat
/// must act (newly, or after another seat acted), `game_finished` with the outcome,
/// `game_cancelled` when an open game you sat down at is cancelled or expires,
/// `invitation` when someone invites you to a private game (a rematch among them),
/// `invitation_accepted` and `invitation_declined` when an account you invited answers,
/// `abandon_vote` when another player votes to abandon a game you play, `game_abandoned`
/// when every player agreed and the game ended without a result, `mention` when a message
/// in the chat of a game you play names you (`@name`), `chat_message` for every other
/// message another person writes there, `reminder` the chosen times before each of your
/// deadlines (`GET /v1/me/reminders`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotificationKind {
    GameStarted,
    YourTurn,
    GameFinished,
    GameCancelled,
    Invitation,
    InvitationAccepted,
    InvitationDeclined,
    AbandonVote,
    GameAbandoned,
    ChatMessage,
    Mention,
    Reminder,
}

impl NotificationOut {
    pub fn of(notification: &Notification) -> Result<NotificationOut, ApiError> {
        #[derive(Deserialize)]
        struct Stored {
            #[serde(rename = "type")]
            kind: NotificationKind,
            game_kind: String,
            #[serde(default)]
            seat: Option<u8>,
            to_act: Vec<u8>,
            #[serde(default)]
            outcome: Option<GameOutcome>,
            #[serde(default)]
            by: Option<String>,
            #[serde(default)]
            rematch_of: Option<String>,
            #[serde(default)]
            message_id: Option<i64>,
            #[serde(default)]
            deadline: Option<String>,
        }
        let stored: Stored = serde_json::from_str(&notification.payload).map_err(|error| {
            ApiError::Internal(format!(
                "notification {} is corrupt: {error}",
                notification.id
            ))
        })?;
        Ok(NotificationOut {
            id: notification.id,
            kind: stored.kind,
            game_id: notification.game_id.clone(),
            game_kind: stored.game_kind,
            seq: notification.seq,
            seat: stored.seat,
            to_act: stored.to_act,
            outcome: stored.outcome,
            by: stored.by,
            rematch_of: stored.rematch_of,
            message_id: stored.message_id,
            deadline: stored.deadline,
            created_at: format_time(notification.created_at),
        })
    }
}
