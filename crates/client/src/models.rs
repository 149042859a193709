//! The API's JSON bodies, typed with the engines' own actions, events, views and options.
//!
//! Every type refuses fields it does not know, so a server that drifts from the contract
//! fails loudly instead of silently losing data.

use serde::{Deserialize, Serialize};

pub use turnpost_games::bots::BotStrategy;
/// A game kind: its engine names the kind and the types of its actions, events, views
/// and options (`turnpost_games::tikal::Tikal`, `java::Java`, `eternal_palace::EternalPalace`).
pub use turnpost_games::engine::Engine as Game;
pub use turnpost_games::replay::EventSource;
pub use turnpost_games::server_events::{Forfeit, ForfeitReason, ServerEvent, TimeControl};

/// An RFC 9457 problem: every error the API sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// `urn:turnpost:problem:<code>`.
    #[serde(rename = "type")]
    pub type_uri: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// The stable code to branch on, e.g. `stale_seq`.
    pub code: String,
    /// For `illegal_action`: the game's rule code.
    #[serde(default)]
    pub rule: Option<String>,
    /// For `stale_seq`: the game's seq now.
    #[serde(default)]
    pub current_seq: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountRef {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountCreated {
    pub id: String,
    pub name: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenIssued {
    pub token: String,
    pub token_type: String,
    pub expires_at: u64,
    pub account: AccountRef,
}

/// What a personal token may do (the server answers 403 `missing_scope` outside them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scope {
    /// Read games, logs, exports, pictures, players and notifications.
    #[serde(rename = "games:read")]
    GamesRead,
    /// Create, join, leave and cancel games, act, resign.
    #[serde(rename = "games:play")]
    GamesPlay,
    /// Everything under `/v1/me/webhooks`.
    #[serde(rename = "webhooks:manage")]
    WebhooksManage,
    /// Change the password, sign out everywhere, manage personal tokens.
    #[serde(rename = "account:manage")]
    AccountManage,
}

/// The body of `POST /v1/me/personal-tokens`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewPersonalToken {
    pub name: String,
    pub scopes: Vec<Scope>,
    /// 1 to 365; the server's default (90) when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in_days: Option<u32>,
}

/// A personal token just created: `token` is shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonalTokenCreated {
    pub id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub created_at: String,
    pub expires_at: String,
    /// Send as the bearer token (e.g. `Client::with_token`).
    pub token: String,
}

/// A personal token as listed, without its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonalToken {
    pub id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub created_at: String,
    pub expires_at: String,
    #[serde(default)]
    pub last_used_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonalTokenList {
    pub personal_tokens: Vec<PersonalToken>,
    /// The next page's cursor; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    Open,
    Running,
    Finished,
    Cancelled,
    /// Every player agreed to stop: ended without a result.
    Abandoned,
}

/// Who may see a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Listed; anyone may join and watch.
    #[default]
    Public,
    /// Watched by anyone with its id, in no list; joined by invitation.
    Unlisted,
    /// Seen only by its seats (and invitees while open); joined by invitation.
    Private,
}

/// Why a cancelled game never started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelReason {
    Creator,
    Expired,
    /// A moderator suspended its creator.
    Suspended,
}

/// When a seat must have acted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatDeadline {
    pub seat: u8,
    pub deadline: String,
}

/// A seat given to a bot when the game is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotSeat {
    pub seat: u8,
    pub strategy: BotStrategy,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatInfo {
    pub seat: u8,
    pub account: Option<AccountRef>,
    pub bot: Option<BotStrategy>,
    pub forfeit: Option<ForfeitReason>,
    pub deadline: Option<String>,
    pub time_bank_ms: Option<i64>,
    /// The player here voted to abandon the game.
    pub abandon_vote: bool,
    /// RFC 3339: the player here is on vacation until then; the seat's clock stands still.
    pub vacation_until: Option<String>,
    /// The player's rating in the game's kind now (in lists and game summaries; `None` in
    /// the answers of moves, for bots, open seats and unrated players).
    pub rating: Option<SeatRating>,
    /// What the finished rated game did to the player's rating.
    pub rating_change: Option<SeatRatingChange>,
}

/// A seated player's rating in the game's kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatRating {
    pub rating: f64,
    pub uncertainty: f64,
    pub conservative: f64,
    pub games: u32,
    /// Fewer rated games than a leaderboard needs.
    pub provisional: bool,
}

/// What a finished rated game did to a player's rating.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatRatingChange {
    pub before: f64,
    pub after: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameOutcome {
    pub scores: Vec<i32>,
    pub places: Vec<u8>,
    pub forfeits: Vec<Forfeit>,
}

/// A game's summary, its options typed by kind.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct GameSummary<G: Game> {
    pub id: String,
    /// The game's name for people: its title, or its kind and players.
    pub name: String,
    /// The name its creator gave it.
    pub title: Option<String>,
    pub kind: String,
    pub rules_version: u32,
    pub seed_commitment: String,
    pub options: G::Options,
    pub status: GameStatus,
    pub seat_count: u8,
    pub seats: Vec<SeatInfo>,
    pub current_seq: i64,
    pub to_act: Vec<u8>,
    pub your_seat: Option<u8>,
    pub your_turn: bool,
    /// The caller created the game (and cancels it rather than leaving).
    pub created_by_you: bool,
    pub outcome: Option<GameOutcome>,
    pub time_control: TimeControl,
    /// 2: the clock counts turns; 1: actions (games created before clock version 2).
    pub clock_version: u32,
    pub visibility: Visibility,
    /// `visibility` is `private`.
    pub private: bool,
    pub cancel_reason: Option<CancelReason>,
    pub rated: bool,
    pub spectator_chat: bool,
    pub created_at: String,
    pub updated_at: String,
}

/// The game as the caller may see it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct ViewOut<G: Game> {
    pub game_id: String,
    pub kind: String,
    pub seq: i64,
    pub viewer_seat: Option<u8>,
    pub to_act: Vec<u8>,
    pub deadlines: Vec<SeatDeadline>,
    pub finished: bool,
    pub view: G::View,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct LegalActions<G: Game> {
    pub game_id: String,
    pub kind: String,
    pub seq: i64,
    pub seat: Option<u8>,
    pub actions: Vec<G::Action>,
}

/// One step through the legal actions (`GET /v1/games/{id}/legal-choices`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct LegalChoices<G: Game> {
    pub game_id: String,
    pub kind: String,
    /// The seq the choices are legal at.
    pub seq: i64,
    pub seat: Option<u8>,
    /// The fields fixed so far: the picks, and what the rules left one value for.
    pub chosen: Vec<ChosenField>,
    /// The field to pick next; `None` once `action` is complete or nothing is to be done.
    pub field: Option<String>,
    pub options: Vec<ChoiceOption<G>>,
    /// The complete action the picks lead to.
    pub action: Option<G::Action>,
    /// How many legal actions the picks leave.
    pub remaining: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChosenField {
    pub field: String,
    pub value: serde_json::Value,
    /// Fixed by the rules rather than picked.
    pub forced: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct ChoiceOption<G: Game> {
    /// What to pick to take this option.
    pub choice: String,
    pub value: serde_json::Value,
    /// How many legal actions lie under it.
    pub actions: u32,
    /// The complete action when it is the only one under this option.
    pub action: Option<G::Action>,
}

/// What posting an action would do (`POST /v1/games/{id}/actions/preview`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct ActionPreview<G: Game> {
    pub kind: String,
    pub from_seq: i64,
    pub seq: i64,
    pub events: Vec<EventOut<G>>,
    pub view: ViewOut<G>,
    /// `false` when it stops before a draw or roll that only posting decides.
    pub complete: bool,
    #[serde(default)]
    pub board_svg: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct EventOut<G: Game> {
    pub seq: i64,
    pub time: String,
    pub seat: Option<u8>,
    #[serde(rename = "type")]
    pub event_type: String,
    pub source: EventSource,
    pub schema_version: u32,
    /// The event, with what the caller may not see set to `null`.
    pub payload: LogEvent<G>,
    /// One line for people.
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct ActionAccepted<G: Game> {
    pub kind: String,
    pub seq: i64,
    pub events: Vec<EventOut<G>>,
    pub view: ViewOut<G>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct EventLog<G: Game> {
    pub game_id: String,
    pub kind: String,
    pub current_seq: i64,
    pub events: Vec<EventOut<G>>,
    /// The next page's cursor; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct ExportedAction<G: Game> {
    pub first_seq: i64,
    pub last_seq: i64,
    pub seat: u8,
    pub action: G::Action,
    pub bot: Option<BotStrategy>,
}

/// An event of a game's log: the engine's own, or the server's (clocks, forfeits, bots).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged, bound = "")]
pub enum LogEvent<G: Game> {
    Server(ServerEvent),
    Engine(G::Event),
}

/// A game's whole history; complete (seed, actions, every secret) once it is finished.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct GameExport<G: Game> {
    pub format: String,
    pub format_version: u32,
    pub game_id: String,
    pub kind: String,
    pub rules_version: u32,
    pub options: G::Options,
    pub status: GameStatus,
    pub seats: Vec<SeatInfo>,
    pub time_control: TimeControl,
    /// Absent from exports before format version 5, whose games all counted actions.
    #[serde(default = "first_clock_version")]
    pub clock_version: u32,
    pub created_at: String,
    pub complete: bool,
    pub viewer_seat: Option<u8>,
    pub seed_commitment: String,
    pub seed: Option<String>,
    pub outcome: Option<GameOutcome>,
    pub events: Vec<EventOut<G>>,
    pub actions: Option<Vec<ExportedAction<G>>>,
    /// The game's chat (absent when asked without it).
    #[serde(default)]
    pub chat: Option<Vec<ChatMessage>>,
}

fn first_clock_version() -> u32 {
    1
}

/// A message in a game's chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatMessage {
    pub id: i64,
    pub author: AccountRef,
    pub seat: Option<u8>,
    /// `None` once its author deleted it (a tombstone), or while it is hidden.
    pub text: Option<String>,
    /// Why its text is not shown: a moderator hid it, or the reader blocks its author.
    pub hidden: Option<ChatHidden>,
    pub mentions: Vec<String>,
    pub created_at: String,
    pub deleted_at: Option<String>,
}

/// Why a chat message's text is not shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatHidden {
    Moderator,
    Blocked,
}

/// A page of a game's chat.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatLog {
    pub game_id: String,
    pub spectators_may_write: bool,
    pub messages: Vec<ChatMessage>,
    /// The next page's cursor; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

/// The body of `POST /v1/games`.
#[derive(Debug, Clone, Serialize)]
#[serde(bound = "")]
pub struct CreateGame<G: Game> {
    pub kind: &'static str,
    pub seats: u8,
    pub options: G::Options,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    pub time_control: TimeControl,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<BotSeat>,
    /// Who may see the game; only unlisted and private games take invitations.
    pub visibility: Visibility,
    /// Account names invited to join (an unlisted or private game's); each is notified.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invite: Vec<String>,
    /// Spectators may write in the game's chat too (players always may).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub spectator_chat: bool,
    /// Whether the game counts for ratings (the server's default: yes).
    pub rated: bool,
    /// A name for the game (one line, at most 80 characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// The body of `POST /v1/games/{id}/actions`.
#[derive(Debug, Clone, Serialize)]
#[serde(bound = "")]
pub struct PostAction<'a, G: Game> {
    pub expected_seq: i64,
    pub action: &'a G::Action,
}

/// Legal-action filters: what one click on a space, or one tile kind, can mean.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionFilter {
    pub action_type: Option<String>,
    pub space: Option<String>,
    pub tile: Option<String>,
}

/// When an account is reminded before its deadlines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Reminders {
    pub before_minutes: Vec<u32>,
}

/// An account's vacation and its allowance.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vacation {
    /// RFC 3339: until when the account is on vacation.
    pub until: Option<String>,
    pub days_per_year: i64,
    pub days_used: i64,
    pub days_left: i64,
    /// A deadline that would pass starts a day of vacation instead.
    pub automatic: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct NewVacation {
    pub days: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct AutomaticVacation {
    pub automatic: bool,
}

/// What may be mailed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmailTopic {
    YourTurn,
    Reminder,
    /// A game finished or abandoned.
    GameOver,
    Invitation,
    Mention,
}

/// An account's mail address and what is mailed to it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmailSettings {
    pub address: Option<String>,
    /// Nothing but the confirmation is mailed before the link in it was followed.
    pub confirmed: bool,
    pub topics: Vec<EmailTopic>,
    /// Mailed once a day at `digest_hour` (UTC) instead of as it comes.
    pub digest: bool,
    pub digest_hour: u8,
    /// Whether the server sends mail at all.
    pub mail_available: bool,
}

/// A new address (`None` removes it) or new choices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmailSettingsUpdate {
    pub address: Option<String>,
    pub topics: Vec<EmailTopic>,
    pub digest: bool,
    pub digest_hour: u8,
}

/// The server's Web Push (VAPID) public key, for `PushManager.subscribe`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VapidPublicKey {
    /// Base64url of the uncompressed P-256 point.
    pub public_key: String,
}

/// A browser's push subscription keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PushSubscriptionKeys {
    pub p256dh: String,
    pub auth: String,
}

/// A browser's `PushSubscription` as its `toJSON()` gives it, and the topics to push.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewPushSubscription {
    pub endpoint: String,
    /// Milliseconds since the epoch, when the browser says.
    pub expiration_time: Option<f64>,
    pub keys: PushSubscriptionKeys,
    /// All topics when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topics: Option<Vec<EmailTopic>>,
}

/// One device of the caller's that gets pushes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PushSubscription {
    pub id: String,
    pub endpoint: String,
    /// The endpoint's host (and port).
    pub push_service: String,
    /// The browser and system it was added from.
    pub device: String,
    pub topics: Vec<EmailTopic>,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub last_delivered_at: Option<String>,
    pub last_failed_at: Option<String>,
    pub last_error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PushSubscriptionList {
    pub subscriptions: Vec<PushSubscription>,
    /// The next page's cursor; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PushTopics<'a> {
    pub topics: &'a [EmailTopic],
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct MailToken<'a> {
    pub token: &'a str,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MailLinkFollowed {
    pub address: String,
}

/// A rating in one kind (Weng-Lin).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rating {
    pub kind: String,
    pub rating: f64,
    pub uncertainty: f64,
    /// `rating` minus three times `uncertainty`: what leaderboards rank by.
    pub conservative: f64,
    pub games: u32,
    /// Fewer rated games than a leaderboard needs: a first guess, not on the board yet.
    pub provisional: bool,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardEntry {
    pub rank: u32,
    pub account: AccountRef,
    pub rating: Rating,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leaderboard {
    pub kind: String,
    /// Rated games a player needs to be on the board.
    pub minimum_games: u32,
    /// The caller's own place, while it is on the board.
    pub you: Option<LeaderboardEntry>,
    pub players: Vec<LeaderboardEntry>,
    /// The next page's cursor; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

/// What one rated game did to one player's rating.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingChange {
    /// `None` for an unlisted or private game, named only to the account itself.
    pub game_id: Option<String>,
    pub kind: String,
    /// `None` where `game_id` is.
    pub seat: Option<u8>,
    pub place: u8,
    pub rating_before: f64,
    pub uncertainty_before: f64,
    pub rating_after: f64,
    pub uncertainty_after: f64,
    pub at: String,
}

/// An account's ratings per kind and their latest changes, newest first.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountRatings {
    pub name: String,
    pub ratings: Vec<Rating>,
    pub history: Vec<RatingChange>,
    /// The next page's cursor; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

/// An invitation to an unlisted or private game waiting for the caller's answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invitation {
    pub game: AnyGameSummary,
    pub invited_by: AccountRef,
    pub invited_at: String,
    /// When the game is a rematch: the game it plays again.
    #[serde(default)]
    pub rematch_of: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct InvitationList {
    pub invitations: Vec<Invitation>,
    /// The next page's cursor; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}

/// A summary of a game of any kind, as lists return them.
#[derive(Debug, Clone)]
pub enum AnyGameSummary {
    Tikal(GameSummary<turnpost_games::tikal::Tikal>),
    Java(GameSummary<turnpost_games::java::Java>),
    EternalPalace(GameSummary<turnpost_games::eternal_palace::EternalPalace>),
}

impl AnyGameSummary {
    pub fn id(&self) -> &str {
        match self {
            AnyGameSummary::Tikal(game) => &game.id,
            AnyGameSummary::Java(game) => &game.id,
            AnyGameSummary::EternalPalace(game) => &game.id,
        }
    }
}

impl<'de> Deserialize<'de> for AnyGameSummary {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = serde_json::Value::deserialize(deserializer)?;
        let kind = value
            .get("kind")
            .and_then(|kind| kind.as_str())
            .unwrap_or_default();
        let typed = match kind {
            "tikal" => serde_json::from_value(value).map(AnyGameSummary::Tikal),
            "java" => serde_json::from_value(value).map(AnyGameSummary::Java),
            "eternal_palace" => serde_json::from_value(value).map(AnyGameSummary::EternalPalace),
            other => return Err(D::Error::custom(format!("unknown game kind {other:?}"))),
        };
        typed.map_err(D::Error::custom)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameList {
    pub games: Vec<AnyGameSummary>,
    /// The next page's cursor; `None` on the last page.
    #[serde(default)]
    pub next: Option<String>,
}
