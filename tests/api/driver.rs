//! Plays whole games over HTTP using only legal-actions, records every response each
//! viewer received, and afterwards proves from the finished game's export that no response
//! carried a secret its viewer may not see, and that the log replays from seed and actions.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use turnpost::games::engine::{Seat, Secret};
use turnpost::games::replay::GameRecord;
use turnpost::games::Table;

use crate::util::{Player, TestApp};

/// What one viewer received at one point of the game.
struct Observation {
    /// The game's seq when the response was produced.
    seq: i64,
    /// `None` for the spectator.
    viewer: Option<Seat>,
    what: String,
    body: String,
}

/// Picks one action out of the legal ones, seeing the acting seat's view; games differ in
/// what keeps a random game moving.
pub type Chooser = fn(&[Value], &Value, &mut ChaCha8Rng) -> usize;

pub fn uniform(actions: &[Value], _view: &Value, rng: &mut ChaCha8Rng) -> usize {
    rng.gen_range(0..actions.len())
}

pub struct FinishedGame {
    pub summary: Value,
    pub export: Value,
    pub actions_posted: usize,
}

pub struct GameDriver<'a> {
    app: &'a TestApp,
    players: &'a [Player],
    spectator: &'a Player,
    observations: Vec<Observation>,
}

impl<'a> GameDriver<'a> {
    pub fn new(app: &'a TestApp, players: &'a [Player], spectator: &'a Player) -> Self {
        GameDriver {
            app,
            players,
            spectator,
            observations: Vec::new(),
        }
    }

    fn observe(&mut self, seq: i64, viewer: Option<Seat>, what: String, body: String) {
        self.observations.push(Observation {
            seq,
            viewer,
            what,
            body,
        });
    }

    fn viewers(&self) -> Vec<(Option<Seat>, &'a Player)> {
        let mut viewers: Vec<(Option<Seat>, &Player)> = self
            .players
            .iter()
            .enumerate()
            .map(|(seat, player)| (Some(seat as Seat), player))
            .collect();
        viewers.push((None, self.spectator));
        viewers
    }

    /// Every viewer fetches the view, the log since `after`, and the running export.
    async fn observe_everything(&mut self, id: &str, seq: i64, after: i64) {
        for (viewer, player) in self.viewers() {
            for what in [
                format!("/v1/games/{id}/view"),
                format!("/v1/games/{id}/events?after={after}"),
                format!("/v1/games/{id}/export"),
                format!("/v1/games/{id}/legal-actions"),
                format!("/v1/games/{id}"),
                format!("/v1/games/{id}/board.svg"),
                format!("/v1/games/{id}/board.svg?layout=narrow"),
            ] {
                let response = self.app.get(player, &what).await.expect_status(200);
                self.observe(seq, viewer, what, response.text);
            }
        }
    }

    /// Plays game `id` to its end. `observe_every` is how many actions pass between full
    /// observations by every viewer.
    pub async fn play(
        &mut self,
        id: &str,
        seed: u64,
        choose: Chooser,
        observe_every: usize,
        max_actions: usize,
    ) -> FinishedGame {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut posted = 0;
        let mut last_full_observation = 0;
        loop {
            let summary = self
                .app
                .get(&self.players[0], &format!("/v1/games/{id}"))
                .await;
            let summary = summary.expect_status(200).json();
            if summary["status"] == "finished" {
                break;
            }
            assert_eq!(summary["status"], "running", "{summary}");
            let to_act: Vec<Seat> = serde_json::from_value(summary["to_act"].clone()).unwrap();
            assert!(
                !to_act.is_empty(),
                "a running game must have someone to act: {summary}"
            );
            let seat = to_act[rng.gen_range(0..to_act.len())];
            let player = &self.players[seat as usize];
            let legal = self
                .app
                .get(player, &format!("/v1/games/{id}/legal-actions"))
                .await
                .expect_status(200);
            let legal_json = legal.json();
            let seq = legal_json["seq"].as_i64().unwrap();
            self.observe(seq, Some(seat), "legal-actions".into(), legal.text);
            let actions = legal_json["actions"].as_array().unwrap().clone();
            assert!(
                !actions.is_empty(),
                "seat {seat} must act but has no legal action"
            );
            let view = self
                .app
                .get(player, &format!("/v1/games/{id}/view"))
                .await
                .expect_status(200);
            let view_json = view.json();
            assert_eq!(view_json["seq"], seq);
            // The summary's columns are a snapshot of the fold; the view is folded afresh.
            assert_eq!(
                summary["current_seq"], seq,
                "summary and log agree on the seq"
            );
            assert_eq!(
                summary["to_act"], view_json["to_act"],
                "stored turn equals the fold's"
            );
            self.observe(seq, Some(seat), "view".into(), view.text);
            let action = actions[choose(&actions, &view_json["view"], &mut rng)].clone();
            let response = self
                .app
                .post(
                    player,
                    &format!("/v1/games/{id}/actions"),
                    &json!({"expected_seq": seq, "action": action}),
                )
                .await;
            assert_eq!(
                response.status, 200,
                "a listed legal action was refused: {action} -> {}",
                response.text
            );
            let accepted = response.json();
            let new_seq = accepted["seq"].as_i64().unwrap();
            assert!(new_seq > seq);
            self.observe(new_seq, Some(seat), format!("post {action}"), response.text);
            posted += 1;
            assert!(
                posted <= max_actions,
                "game {id} did not end within {max_actions} actions"
            );
            // Once finished, the export rightly reveals everything; the end is checked apart.
            let finished = accepted["view"]["finished"] == true;
            if posted % observe_every == 0 && !finished {
                self.observe_everything(id, new_seq, last_full_observation)
                    .await;
                last_full_observation = new_seq;
            }
        }
        let summary = self
            .app
            .get(&self.players[0], &format!("/v1/games/{id}"))
            .await
            .expect_status(200)
            .json();
        let export = self
            .app
            .get(self.spectator, &format!("/v1/games/{id}/export"))
            .await
            .expect_status(200)
            .json();
        FinishedGame {
            summary,
            export,
            actions_posted: posted,
        }
    }

    /// Folds the finished game's export locally and checks every recorded response against
    /// the secrets hidden at its seq. Returns how many (response, hidden secret) pairs were
    /// checked, so callers can insist the check had something to find.
    pub fn assert_no_secret_leaked(&self, finished: &FinishedGame) -> usize {
        let mut table = new_table(&finished.export);
        let events = finished.export["events"].as_array().unwrap();
        let mut secrets_at: BTreeMap<i64, Vec<Secret>> = BTreeMap::new();
        secrets_at.insert(0, table.secrets());
        for event in events {
            let schema_version = event["schema_version"].as_u64().unwrap() as u32;
            table
                .apply(&event["payload"].to_string(), schema_version)
                .unwrap();
            let secrets = table.secrets();
            let state = serde_json::to_string(&table.state_json()).unwrap();
            for secret in &secrets {
                assert!(
                    holds(&state, &secret.needle),
                    "needle {} is not in the state, so searching for it proves nothing",
                    secret.needle
                );
            }
            secrets_at.insert(event["seq"].as_i64().unwrap(), secrets);
        }
        let mut checked = 0;
        for observation in &self.observations {
            let secrets = &secrets_at[&observation.seq];
            for secret in secrets {
                if secret.owner.is_some() && secret.owner == observation.viewer {
                    continue;
                }
                checked += 1;
                // A picture carries ids as text and attributes, without JSON's quotes.
                let needle = if observation.what.ends_with(".svg") {
                    secret.needle.trim_matches('"')
                } else {
                    &secret.needle
                };
                assert!(
                    !holds(&observation.body, needle),
                    "{:?} received secret {} (owner {:?}) at seq {} from {}",
                    observation.viewer,
                    secret.needle,
                    secret.owner,
                    observation.seq,
                    observation.what
                );
            }
        }
        checked
    }
}

fn record(export: &Value) -> GameRecord {
    GameRecord::from_json(&export.to_string()).expect("an export reads as a game record")
}

fn new_table(export: &Value) -> Box<dyn Table> {
    let mut opening = record(export);
    opening.events.clear();
    opening
        .fold()
        .expect("the empty table of the export's rules version")
}

/// Verifies a finished export as `turnpost verify` does: the revealed seed matches the
/// commitment, and the whole log and the outcome re-derive from the seed, options and
/// actions under its rules version.
pub fn assert_replays_from_seed(export: &Value) {
    assert_eq!(export["complete"], true);
    let verified = record(export)
        .verify()
        .unwrap_or_else(|divergence| panic!("the export does not verify: {divergence}"));
    assert!(
        verified.commitment_checked,
        "a new game has a seed commitment"
    );
    let outcome = verified
        .outcome
        .expect("a game played to its end has a result");
    assert_eq!(json!(outcome.scores), export["outcome"]["scores"]);
    assert_eq!(json!(outcome.places), export["outcome"]["places"]);
}

/// Whether `text` contains `needle`. The leak checks search every answer of a whole game for
/// every hidden secret; `str::contains`, compiled into this unoptimised test crate, took a
/// tenth of the API tests' CPU for it, memchr's searcher (an optimised dependency) a
/// fraction of that.
fn holds(text: &str, needle: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some()
}
