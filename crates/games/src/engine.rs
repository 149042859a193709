//! The one contract between the server and every rule engine, in the decider style:
//! `setup` and `decide` turn intentions into events, `evolve` folds events into state,
//! everything else reads state. Nothing here knows about HTTP, SQL, clocks or global RNGs;
//! randomness arrives through the `rng` argument and its outcome is written into events,
//! so folding a log never rolls a die again.

use std::fmt::Debug;
use std::ops::RangeInclusive;

use get_size2::GetSize;
use rand::RngCore;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

pub use crate::kit::rule_code::{RuleCode, SharedRule};

/// A seat at the table, 0-based, in clockwise order from the first player.
pub type Seat = u8;

/// Why an action's events keep it from being taken back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TakeBackBarrier {
    /// It made something hidden or random known: a drawn tile or card, a roll, a shuffle.
    Reveals,
    /// It passed the turn on, or started what other seats answer (a bid, a round's end).
    EndsTurn,
    /// It reached another seat without passing the turn: scored for it, gave it something or
    /// took something from it, claimed a prize the seats race for, or began a scoring round
    /// that every seat plays. Another seat can feel it, so it stays (from the rules version
    /// each game's rules page names; earlier games took such actions back).
    ReachesOthers,
}

/// Who takes back, and under which rules: what a barrier may depend on beyond the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taker {
    /// The seat taking back its action.
    pub seat: Seat,
    /// The rules version the game is played under.
    pub rules_version: u32,
}

/// Who is looking at a state or an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Viewer {
    /// A seated player: sees public information plus that seat's own secrets.
    Seat(Seat),
    /// Anyone else: sees public information only.
    Spectator,
    /// Nobody is hidden from: used for the export of a finished game and for tests.
    Omniscient,
}

impl Viewer {
    /// Whether this viewer may see the secrets owned by `owner`.
    pub fn sees_secrets_of(self, owner: Seat) -> bool {
        match self {
            Viewer::Seat(seat) => seat == owner,
            Viewer::Spectator => false,
            Viewer::Omniscient => true,
        }
    }

    pub fn is_omniscient(self) -> bool {
        matches!(self, Viewer::Omniscient)
    }
}

/// A rule violation: the action was understood but the rules forbid it now.
/// `code` is the stable string of a typed rule code (clients branch on it), `message` is for
/// people and must not reveal anything the acting seat may not see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    pub code: &'static str,
    pub message: String,
}

impl RuleError {
    pub fn new(code: impl RuleCode, message: impl Into<String>) -> Self {
        RuleError {
            code: code.as_str(),
            message: message.into(),
        }
    }

    /// Whether this is a refusal with `code`.
    pub fn is(&self, code: impl RuleCode) -> bool {
        self.code == code.as_str()
    }
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for RuleError {}

/// Final result of a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Outcome {
    /// Final score per seat, indexed by seat.
    pub scores: Vec<i32>,
    /// Place per seat (1 = winner), indexed by seat; tied seats share a place.
    pub places: Vec<u8>,
}

/// Something hidden in a state, and who may see it. The server's tests search every
/// response for `needle` and fail if it reaches anyone who may not see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// The seat the secret belongs to; `None` means nobody may see it (deck order, seed...).
    pub owner: Option<Seat>,
    /// A string that occurs in `serde_json::to_string(&state)` exactly when this piece of
    /// information is there, and would occur in any JSON that leaked it (for example a
    /// quoted unique card id such as `"\"pc07\""`).
    pub needle: String,
}

/// One published version of a game's rules. A game is played to its end under the version it
/// started with: a fix that changes how play goes is a new version, never an edit of an old
/// one, so no stored game changes its outcome when the server is updated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RulesVersion {
    pub version: u32,
    /// The day new games started on it (ISO 8601).
    pub date: &'static str,
    /// What changed against the version before, for people.
    pub changes: &'static str,
}

/// One game's rules. Implementations are zero-sized markers; all data lives in `State`.
pub trait Engine: 'static + Debug + Clone {
    /// Options chosen at game creation (e.g. a variant). `{}` must deserialize to the default.
    type Options: Serialize + DeserializeOwned + Default + Clone + Debug + PartialEq + ToSchema;
    /// Full state including every secret. Must round-trip through JSON unchanged.
    ///
    /// [`GetSize`] (derive it, `#[derive(GetSize)]` from `get_size2`, on the state and every
    /// type it holds) reports the heap bytes the state owns, which
    /// [`Table::memory_bytes`](crate::Table::memory_bytes) adds up so that a cache of folded
    /// states can be bounded in bytes. Data loaded once and held by `&'static` reference
    /// counts 0 there.
    type State: Serialize + DeserializeOwned + Clone + Debug + PartialEq + Send + Sync + GetSize;
    /// What a seat asks to do. Tagged JSON, e.g. `{"type":"end_turn"}`.
    type Action: Serialize + DeserializeOwned + Clone + Debug + PartialEq + ToSchema;
    /// What happened. Carries every random outcome. Must round-trip through JSON unchanged.
    type Event: Serialize + DeserializeOwned + Clone + Debug + PartialEq + ToSchema;
    /// The state as one viewer may see it; clients read it back with the same type.
    type View: Serialize + DeserializeOwned + Clone + Debug + ToSchema;

    /// Stable identifier used in the API and the database, e.g. `"tikal"`.
    const KIND: &'static str;
    /// Human name, e.g. `"Tikal"`.
    const NAME: &'static str;
    /// Every rules version this engine still plays, oldest first. New games start on the
    /// last one; a stored game keeps the one it started with and the state carries it, so
    /// `decide`, `legal_actions` and `evolve` branch on it where the versions differ.
    const RULES_VERSIONS: &'static [RulesVersion];
    /// Bumped whenever the JSON shape of `Event` changes; [`Engine::upcast`] then reads the
    /// older shapes.
    const EVENT_SCHEMA_VERSION: u32;
    /// The oldest event schema version whose payloads read as they are in today's shape
    /// (later versions only added optional fields); older ones need [`Engine::upcast`].
    const FIRST_COMPATIBLE_EVENT_SCHEMA_VERSION: u32;
    /// The actions each seat a person played must have made itself (bots' and taken-back
    /// actions not counting) for a finished game to count for ratings: a game a person
    /// resigned or timed out of before playing about a turn is no rated game. About one
    /// full turn of the game.
    const RATED_AFTER_ACTIONS: u32;
    /// The game's own rule codes.
    type Rule: RuleCode;
    /// The shared rule codes (`docs/vocabulary.md`) this game can return, beyond the
    /// ones of [`crate::kit::rule_code::EVERY_GAME`].
    const SHARED_RULES: &'static [SharedRule];

    /// Every rule code this game can return, with its meaning: the shared ones first.
    fn rule_codes() -> Vec<(&'static str, &'static str)> {
        let shared = crate::kit::rule_code::EVERY_GAME
            .iter()
            .chain(Self::SHARED_RULES)
            .map(|code| (code.as_str(), code.meaning()));
        let own = Self::Rule::ALL
            .iter()
            .map(|code| (code.as_str(), code.meaning()));
        shared.chain(own).collect()
    }

    /// The rules version new games start on.
    fn newest_rules_version() -> u32 {
        Self::RULES_VERSIONS
            .last()
            .map_or(0, |release| release.version)
    }

    /// Whether this engine can still play (and fold) games of `version`.
    fn plays_rules_version(version: u32) -> bool {
        Self::RULES_VERSIONS
            .iter()
            .any(|release| release.version == version)
    }

    /// A stored event payload of an older `schema_version`, rewritten into today's shape.
    /// Payloads of the compatible versions read as they are; a payload of any other
    /// version (written by a newer server) is refused rather than guessed at. An engine
    /// whose schema reshapes an event overrides this.
    fn upcast(schema_version: u32, payload: Value) -> Result<Value, String> {
        if (Self::FIRST_COMPATIBLE_EVENT_SCHEMA_VERSION..=Self::EVENT_SCHEMA_VERSION)
            .contains(&schema_version)
        {
            Ok(payload)
        } else {
            Err(format!(
                "{} events of schema version {schema_version} cannot be read; this engine \
                 reads versions {} to {}",
                Self::NAME,
                Self::FIRST_COMPATIBLE_EVENT_SCHEMA_VERSION,
                Self::EVENT_SCHEMA_VERSION
            ))
        }
    }

    fn player_counts() -> RangeInclusive<u8>;

    /// What the options' schema cannot say field by field (options that exclude each other),
    /// as JSON Schema keywords the published options schema adds: a client that validates
    /// against it never sends options the engine refuses.
    fn options_constraints() -> Option<serde_json::Value> {
        None
    }

    /// The state before any event, under `rules_version` (one of [`Engine::RULES_VERSIONS`]):
    /// what `setup`'s events are folded onto.
    fn initial_state(options: &Self::Options, seats: u8, rules_version: u32) -> Self::State;

    /// Opening events (shuffles, deals, ...) of a game under `rules_version`. The first is
    /// `game_set_up`, which records `seed_commitment` (the server's commitment to the seed
    /// behind `rng`, see [`crate::seed_commitment`]) for everyone to see. Errors for
    /// unsupported seat counts or options.
    fn setup(
        options: &Self::Options,
        seats: u8,
        rules_version: u32,
        seed_commitment: Option<&str>,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<Self::Event>, RuleError>;

    /// Checks `action` by `seat` against the rules and returns the events it causes.
    /// Must not panic on any deserializable action, whatever the state.
    fn decide(
        state: &Self::State,
        seat: Seat,
        action: &Self::Action,
        rng: &mut dyn RngCore,
    ) -> Result<Vec<Self::Event>, RuleError>;

    /// Applies one event. Only called with events that `setup`/`decide` produced for this
    /// state, so it may trust them.
    fn evolve(state: &mut Self::State, event: &Self::Event);

    /// Every action `seat` may take now; each must be accepted by `decide`.
    /// Empty when the seat need not act.
    fn legal_actions(state: &Self::State, seat: Seat) -> Vec<Self::Action>;

    /// Seats that must act now (several in simultaneous phases); empty once finished.
    fn to_act(state: &Self::State) -> Vec<Seat>;

    /// The outcome once the game is over, `None` while it runs.
    fn outcome(state: &Self::State) -> Option<Outcome>;

    /// Each seat's score as it stands now, indexed by seat: what a game that forfeits end
    /// early records (see [`crate::server_events`]).
    fn scores(state: &Self::State) -> Vec<i32>;

    /// What `viewer` may see of `state`.
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;

    /// `event` with everything `viewer` may not see removed (hidden fields become `None`).
    fn redact(event: &Self::Event, viewer: Viewer) -> Self::Event;

    /// One line for people, from an already redacted event, e.g.
    /// "Red uncovers the temple at C3 to 5". `state` is the state before the event.
    fn describe(state: &Self::State, event: &Self::Event) -> String;

    /// Everything hidden in `state`, for the leak tests.
    fn secrets(state: &Self::State) -> Vec<Secret>;

    /// Why an action whose events include `event` can no longer be taken back, whoever takes
    /// it back, if it can't (see [`crate::take_back`]): it revealed something hidden or
    /// random, or it passed the turn on (the clock's turn count reads this too). The default keeps every action final, so a new engine offers no take-back
    /// until it has sorted its events.
    fn take_back_barrier(event: &Self::Event) -> Option<TakeBackBarrier> {
        let _ = event;
        Some(TakeBackBarrier::Reveals)
    }

    /// The barrier `event` puts before `taker`'s take-back: [`Engine::take_back_barrier`],
    /// and [`TakeBackBarrier::ReachesOthers`] where the event reached a seat other than the
    /// taker's (points, goods or a card for or from it, a prize claimed, a scoring round
    /// begun) under a rules version whose take-back policy says so. Each game's rules page
    /// states the policy under "Taking back".
    fn take_back_barrier_for(event: &Self::Event, taker: Taker) -> Option<TakeBackBarrier> {
        let _ = taker;
        Self::take_back_barrier(event)
    }

    /// A state that `seat` cannot tell from `state`: everything hidden from it (the order of
    /// decks and piles, other seats' hands, sealed choices...) re-drawn at random, consistent
    /// with what it sees. `view(sample, Viewer::Seat(seat))` equals `view(state,
    /// Viewer::Seat(seat))`, `legal_actions(sample, seat)` equals `legal_actions(state,
    /// seat)`, and the material overall is the same; only what [`Engine::secrets`] hides from
    /// `seat` may differ. The draw is uniform over what the view allows: it does not weigh
    /// what the history hints at (a seat that passed a bid probably held nothing better).
    /// The bots simulate from such samples, so they never peek.
    ///
    /// The default returns a clone, which is right only for a game that hides nothing from
    /// a seated player; any other game overrides it (the bots' tests fail otherwise).
    fn sample_hidden(state: &Self::State, seat: Seat, rng: &mut dyn RngCore) -> Self::State {
        let _ = (seat, rng);
        state.clone()
    }
}
