//! Replaying a finished game's export with no server: fold its stored events, or re-derive
//! every event from the revealed seed and the recorded actions and compare, and check the
//! seed against the commitment published before the first move. The server's tests, the
//! rules-version fixtures and `turnpost verify` all read exports through here.
//!
//! Besides its payload, each event of an export shows its `seq`, `seat`, `type` and `text`:
//! the server stores none of the texts (it writes them from the payload whenever the log is
//! read), and the others follow from the replay too, so a replay checks all of them. Its
//! `time` (when the server appended it) and its `schema_version` (the shape the server that
//! appended it wrote) are not re-derivable: only the schema version is checked, to be one
//! this build reads.

use serde::Deserialize;
use serde_json::Value;

use crate::engine::{Seat, Viewer};
use crate::server_events::{format_time, ServerEvent, ServerFold, Standing};
use crate::take_back::{self, LoggedAction, TakeBack, TakeBackFold, Taker};
use crate::{decode_seed, find_game_rules, rng_for, GameRules, ReplayError, Table};

/// The parts of a `turnpost-game` export document that replaying needs (unknown fields are
/// ignored, so every export format version with these fields reads).
#[derive(Debug, Clone, Deserialize)]
pub struct GameRecord {
    /// `turnpost-game` in an export.
    #[serde(default)]
    pub format: Option<String>,
    /// Whether the export holds everything (a finished game) or one viewer's part.
    #[serde(default)]
    pub complete: Option<bool>,
    pub kind: String,
    pub rules_version: u32,
    pub options: Value,
    pub seats: Vec<Value>,
    /// Hex-encoded 32-byte seed; only in the export of a finished game.
    #[serde(default)]
    pub seed: Option<String>,
    /// The commitment to the seed published when the game was created; absent in exports
    /// of games from before commitments.
    #[serde(default)]
    pub seed_commitment: Option<String>,
    #[serde(default)]
    pub outcome: Option<Standing>,
    pub events: Vec<RecordedLogEvent>,
    /// Only in the export of a finished game.
    #[serde(default)]
    pub actions: Option<Vec<RecordedAction>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RecordedLogEvent {
    pub seq: i64,
    /// Who wrote it: the game's engine (absent in exports from before server events) or
    /// the server (clocks, resignations, timeouts, take-overs).
    #[serde(default)]
    pub source: EventSource,
    pub schema_version: u32,
    pub payload: Value,
    /// The event's `type` tag as the export shows it (also `payload.type`); a record that
    /// leaves it out has nothing to check.
    #[serde(default, rename = "type")]
    pub event_type: Option<String>,
    /// The seat whose action caused the event as the export shows it: `Some(None)` for
    /// `null` (the opening events and the server's), `None` when the record leaves it out.
    #[serde(default, deserialize_with = "present")]
    pub seat: Option<Option<Seat>>,
    /// The one line for people the export shows; never stored, so the replay writes it
    /// again from the payload (for everybody: a finished game hides nothing).
    #[serde(default)]
    pub text: Option<String>,
}

/// A field that may be `null` but also left out: `Some(value)` when it is there.
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// Who wrote an event into a game's log.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EventSource {
    /// The game's rules engine: folded into the game's state.
    #[default]
    Engine,
    /// The server (see [`crate::server_events`]): never seen by the engine.
    Server,
}

impl RecordedLogEvent {
    fn server_event(&self) -> Result<Option<ServerEvent>, Divergence> {
        match self.source {
            EventSource::Engine => Ok(None),
            EventSource::Server
                if !(crate::server_events::FIRST_SCHEMA_VERSION
                    ..=crate::server_events::SCHEMA_VERSION)
                    .contains(&self.schema_version) =>
            {
                Err(Divergence::Unreadable(format!(
                    "the server event at seq {} has schema version {}; this build reads \
                     versions {} to {}",
                    self.seq,
                    self.schema_version,
                    crate::server_events::FIRST_SCHEMA_VERSION,
                    crate::server_events::SCHEMA_VERSION
                )))
            }
            EventSource::Server => serde_json::from_value(self.payload.clone())
                .map(Some)
                .map_err(|error| {
                    Divergence::Unreadable(format!("server event at seq {}: {error}", self.seq))
                }),
        }
    }

    /// Checks what the record shows of this event beside its payload, the event at `seq`,
    /// against what the server writes for it: its seq, type, seat and text.
    fn check_shown(
        &self,
        seq: i64,
        event_type: &str,
        seat: Option<Seat>,
        text: &str,
    ) -> Result<(), Divergence> {
        let differs = |field: &'static str, expected: String, found: String| {
            Err(Divergence::FieldDiffers {
                seq,
                field,
                expected,
                found,
            })
        };
        if self.seq != seq {
            return differs("seq", seq.to_string(), self.seq.to_string());
        }
        if let Some(found) = self
            .event_type
            .as_deref()
            .filter(|found| *found != event_type)
        {
            return differs("type", format!("{event_type:?}"), format!("{found:?}"));
        }
        if let Some(found) = self.seat.filter(|found| *found != seat) {
            let shown = |seat: Option<Seat>| seat.map_or("null".to_owned(), |s| s.to_string());
            return differs("seat", shown(seat), shown(found));
        }
        if let Some(found) = self.text.as_deref().filter(|found| *found != text) {
            return differs("text", format!("{text:?}"), format!("{found:?}"));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct RecordedAction {
    pub first_seq: i64,
    pub last_seq: i64,
    pub seat: Seat,
    pub action: Value,
}

/// Where a replay parted from the record.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Divergence {
    #[error("the record cannot be replayed: {0}")]
    Unreadable(String),
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error("the recorded action that starts at seq {seq} is refused: {reason}")]
    ActionRefused { seq: i64, reason: String },
    #[error("the take-back at seq {seq} is refused: {reason}")]
    TakeBackRefused { seq: i64, reason: String },
    #[error("seq {seq}: the record has {recorded}, the replay {replayed}")]
    EventDiffers {
        seq: i64,
        recorded: String,
        replayed: String,
    },
    /// What the record shows of an event beside its payload (its seq, type, seat or text)
    /// is not what the server writes for the event.
    #[error("seq {seq}: the event's {field} differs: expected {expected}, found {found}")]
    FieldDiffers {
        seq: i64,
        field: &'static str,
        expected: String,
        found: String,
    },
    #[error("the outcome differs: the record has {recorded:?}, the replay {replayed:?}")]
    OutcomeDiffers {
        recorded: Box<Option<Standing>>,
        replayed: Box<Option<Standing>>,
    },
    #[error(
        "the revealed seed does not match the commitment published at the start: the seed \
         hashes to {revealed}, the commitment is {committed}"
    )]
    CommitmentMismatch { committed: String, revealed: String },
}

impl Divergence {
    /// The first seq at which the record and the replay part, where there is one: the
    /// commitment is recorded in the set-up event at seq 1.
    pub fn first_seq(&self) -> Option<i64> {
        match self {
            Divergence::ActionRefused { seq, .. }
            | Divergence::TakeBackRefused { seq, .. }
            | Divergence::EventDiffers { seq, .. }
            | Divergence::FieldDiffers { seq, .. } => Some(*seq),
            Divergence::CommitmentMismatch { .. } => Some(1),
            _ => None,
        }
    }
}

/// The server's events as the replay passed them: folded, and in order with their seqs.
#[derive(Default)]
struct ServerLog {
    fold: ServerFold,
    events: Vec<(i64, ServerEvent)>,
}

/// A record that verified: every event and the outcome re-derived from the seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// None: the players abandoned the game, which ended without a result.
    pub outcome: Option<Standing>,
    pub events: usize,
    pub actions: usize,
    /// Whether the seed was checked against a commitment published before the first move
    /// (exports of games from before commitments have none).
    pub commitment_checked: bool,
}

impl GameRecord {
    pub fn from_json(text: &str) -> Result<GameRecord, Divergence> {
        serde_json::from_str(text).map_err(|error| Divergence::Unreadable(error.to_string()))
    }

    fn rules(&self) -> Result<&'static dyn GameRules, Divergence> {
        find_game_rules(&self.kind)
            .ok_or_else(|| Divergence::Unreadable(format!("unknown game kind {:?}", self.kind)))
    }

    fn seat_count(&self) -> Result<u8, Divergence> {
        u8::try_from(self.seats.len())
            .map_err(|_| Divergence::Unreadable("too many seats".to_owned()))
    }

    fn empty_table(&self) -> Result<Box<dyn Table>, Divergence> {
        Ok(self
            .rules()?
            .new_table(&self.options, self.seat_count()?, self.rules_version)?)
    }

    /// Everything an offline verifier checks: that this is the complete export of a finished
    /// game, that the revealed seed matches the published commitment, and that replaying
    /// the actions from the seed reproduces every event and the outcome.
    pub fn verify(&self) -> Result<Verified, Divergence> {
        if self
            .format
            .as_deref()
            .is_some_and(|format| format != "turnpost-game")
        {
            return Err(Divergence::Unreadable(
                "not a turnpost-game export".to_owned(),
            ));
        }
        if self.complete == Some(false) {
            return Err(Divergence::Unreadable(
                "this export is one viewer's part of a running game; only a finished game's \
                 export can be verified"
                    .to_owned(),
            ));
        }
        let seed = self.decoded_seed()?;
        if let Some(committed) = &self.seed_commitment {
            let revealed = crate::seed_commitment(&seed);
            if &revealed != committed {
                return Err(Divergence::CommitmentMismatch {
                    committed: committed.clone(),
                    revealed,
                });
            }
        }
        let outcome = self.replay()?;
        Ok(Verified {
            outcome,
            events: self.events.len(),
            actions: self.actions.as_ref().map_or(0, Vec::len),
            commitment_checked: self.seed_commitment.is_some(),
        })
    }

    fn decoded_seed(&self) -> Result<[u8; 32], Divergence> {
        self.seed
            .as_deref()
            .and_then(decode_seed)
            .ok_or_else(|| Divergence::Unreadable("no 32-byte hex seed".to_owned()))
    }

    /// The state after every stored event, folded under the record's rules version (what
    /// was taken back no longer counts).
    pub fn fold(&self) -> Result<Box<dyn Table>, Divergence> {
        let mut fold = self.take_back_fold(self.empty_table()?)?;
        for event in &self.events {
            match event.server_event()? {
                None => fold
                    .before(event.seq)
                    .apply(&event.payload.to_string(), event.schema_version)?,
                Some(ServerEvent::ActionsTakenBack { from_seq, .. }) => {
                    fold.take_back(event.seq, from_seq)?
                }
                Some(_) => {}
            }
        }
        Ok(fold.into_table())
    }

    /// A fold from `table` that keeps the states the record's take-backs return to.
    fn take_back_fold(&self, table: Box<dyn Table>) -> Result<TakeBackFold, Divergence> {
        let mut server_events = Vec::new();
        for event in &self.events {
            server_events.extend(event.server_event()?);
        }
        let returns_to = take_back::taken_back(&server_events)
            .into_iter()
            .map(|(_, range)| range.from_seq);
        Ok(TakeBackFold::new(table, returns_to))
    }

    /// Re-derives the whole log from the seed, the options and the actions under the
    /// record's rules version, and checks that it equals the stored log event for event and
    /// ends in the recorded outcome. Returns that outcome: none when every player agreed to
    /// abandon the game (a game that simply has not ended does not replay).
    pub fn replay(&self) -> Result<Option<Standing>, Divergence> {
        let rules = self.rules()?;
        let seats = self.seat_count()?;
        let seed = self.decoded_seed()?;
        let actions = self
            .actions
            .as_ref()
            .ok_or_else(|| Divergence::Unreadable("no recorded actions".to_owned()))?;
        let mut table = self.take_back_fold(self.empty_table()?)?;
        let mut replayed = Vec::with_capacity(self.events.len());
        let mut server = ServerLog::default();
        let opening = rules
            .setup(
                &self.options,
                seats,
                self.rules_version,
                self.seed_commitment.as_deref(),
                &mut rng_for(seed, 0),
            )
            .map_err(|refusal| Divergence::Unreadable(format!("set-up refused: {refusal}")))?;
        self.take(rules, table.before(1), &mut replayed, None, opening)?;
        for (index, action) in actions.iter().enumerate() {
            self.take_server_events(
                rules,
                &mut server,
                &mut table,
                &actions[..index],
                &mut replayed,
            )?;
            if action.first_seq != replayed.len() as i64 + 1 {
                return Err(Divergence::EventDiffers {
                    seq: replayed.len() as i64 + 1,
                    recorded: format!("an action starting at seq {}", action.first_seq),
                    replayed: "the next action's events".to_owned(),
                });
            }
            let rng = &mut rng_for(seed, action.first_seq as u64);
            let acting = table.before(action.first_seq);
            let (_, events) =
                acting
                    .decide(action.seat, &action.action, rng)
                    .map_err(|refusal| Divergence::ActionRefused {
                        seq: action.first_seq,
                        reason: format!("{refusal:?}"),
                    })?;
            self.take(rules, acting, &mut replayed, Some(action.seat), events)?;
            if replayed.len() as i64 != action.last_seq {
                return Err(Divergence::EventDiffers {
                    seq: replayed.len() as i64,
                    recorded: format!("the action's last event at seq {}", action.last_seq),
                    replayed: "another number of events".to_owned(),
                });
            }
        }
        self.take_server_events(rules, &mut server, &mut table, actions, &mut replayed)?;
        if replayed.len() != self.events.len() {
            return Err(Divergence::EventDiffers {
                seq: replayed.len().min(self.events.len()) as i64 + 1,
                recorded: format!("{} events", self.events.len()),
                replayed: format!("{} events", replayed.len()),
            });
        }
        let server = server.fold;
        let outcome = server.standing(table.table().outcome().as_ref());
        if outcome != self.outcome {
            return Err(Divergence::OutcomeDiffers {
                recorded: Box::new(self.outcome.clone()),
                replayed: Box::new(outcome),
            });
        }
        if outcome.is_none() && !server.abandoned {
            return Err(Divergence::OutcomeDiffers {
                recorded: Box::new(None),
                replayed: Box::new(None),
            });
        }
        Ok(outcome)
    }

    /// Passes over the server's events at the replay's position (they are not re-derived:
    /// the server decided them from its clock), folding what they change about the end and
    /// checking what the record shows of them.
    fn take_server_events(
        &self,
        rules: &dyn GameRules,
        server: &mut ServerLog,
        table: &mut TakeBackFold,
        actions_before: &[RecordedAction],
        replayed: &mut Vec<Value>,
    ) -> Result<(), Divergence> {
        while let Some(stored) = self.events.get(replayed.len()) {
            match stored.server_event()? {
                Some(event) => {
                    let seq = replayed.len() as i64 + 1;
                    stored.check_shown(
                        seq,
                        event.event_type(),
                        None,
                        &event.describe(format_time),
                    )?;
                    if let ServerEvent::ActionsTakenBack {
                        seat,
                        from_seq,
                        to_seq,
                    } = event
                    {
                        let claimed = TakeBack { from_seq, to_seq };
                        self.check_take_back(
                            rules,
                            server,
                            table,
                            actions_before,
                            seq,
                            seat,
                            claimed,
                        )?;
                        table.take_back(seq, from_seq)?;
                    }
                    server.fold.apply(&event);
                    server.events.push((seq, event));
                    replayed.push(stored.payload.clone());
                }
                None => break,
            }
        }
        Ok(())
    }

    /// Refuses a take-back at `seq` that the server would not have accepted, or that
    /// claims another range than the one it takes back.
    #[allow(clippy::too_many_arguments)] // the replay's position, and the take-back
    fn check_take_back(
        &self,
        rules: &dyn GameRules,
        server: &ServerLog,
        table: &TakeBackFold,
        actions_before: &[RecordedAction],
        seq: i64,
        seat: Seat,
        claimed: TakeBack,
    ) -> Result<(), Divergence> {
        let refused = |reason: String| Divergence::TakeBackRefused { seq, reason };
        let actions: Vec<LoggedAction> = actions_before
            .iter()
            .map(|action| LoggedAction {
                first_seq: action.first_seq,
                last_seq: action.last_seq,
                seat: action.seat,
            })
            .collect();
        let now = table.table();
        let checked = take_back::check(
            seat,
            seq - 1,
            now.to_act().contains(&seat),
            &actions,
            &server.events,
            |at| {
                let event = usize::try_from(at - 1)
                    .ok()
                    .and_then(|index| self.events.get(index))
                    .filter(|event| event.source == EventSource::Engine);
                match event {
                    Some(event) => {
                        let taker = Taker {
                            seat,
                            rules_version: self.rules_version,
                        };
                        rules.take_back_barrier(
                            &event.payload.to_string(),
                            event.schema_version,
                            taker,
                        )
                    }
                    None => Ok(None),
                }
            },
        )?
        .map_err(|refusal| refused(refusal.message()))?;
        if checked != claimed {
            return Err(refused(format!(
                "it takes back seqs {} to {}, not {} to {}",
                checked.from_seq, checked.to_seq, claimed.from_seq, claimed.to_seq
            )));
        }
        let before = table
            .copy_before(claimed.from_seq)
            .ok_or_else(|| refused("the replay has no state to return to".to_owned()))?;
        if before.to_act() != now.to_act() {
            return Err(refused(take_back::TakeBackRefusal::TurnOver.message()));
        }
        Ok(())
    }

    /// Applies freshly decided events (by `seat`'s action, or the opening ones), checking
    /// each against the stored one at its seq (read in today's schema) and what the record
    /// shows of it against what the server writes.
    fn take(
        &self,
        rules: &dyn GameRules,
        table: &mut dyn Table,
        replayed: &mut Vec<Value>,
        seat: Option<Seat>,
        events: Vec<crate::RecordedEvent>,
    ) -> Result<(), Divergence> {
        for event in events {
            let seq = replayed.len() as i64 + 1;
            let stored = self
                .events
                .get(replayed.len())
                .filter(|stored| stored.source == EventSource::Engine);
            let recorded = stored
                .map(|stored| rules.upcast(stored.schema_version, stored.payload.clone()))
                .transpose()?;
            let stored = match stored {
                Some(stored) if recorded.as_ref() == Some(&event.payload) => stored,
                _ => {
                    return Err(Divergence::EventDiffers {
                        seq,
                        recorded: recorded.map_or("nothing".to_owned(), |e| e.to_string()),
                        replayed: event.payload.to_string(),
                    })
                }
            };
            // The export's text is the one the server writes for a viewer who sees
            // everything, from the state just before the event.
            let (_, text) = table.redact_and_apply(
                &event.payload.to_string(),
                rules.event_schema_version(),
                Viewer::Omniscient,
            )?;
            stored.check_shown(seq, &event.event_type, seat, &text)?;
            replayed.push(event.payload);
        }
        Ok(())
    }
}
