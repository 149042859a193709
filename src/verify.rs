//! `turnpost verify <export.json>`: checks a finished game's export with no server and no
//! database. The revealed seed must hash to the commitment published before the first move,
//! and replaying every recorded action from that seed must reproduce every event and the
//! outcome exactly: each event's payload, and the seq, seat, type and text shown with it
//! (the server writes the texts from the payloads whenever a log is read; only the times
//! cannot be derived).

use crate::games::replay::{Divergence, GameRecord};

/// The exit statuses of `turnpost verify` (also in its `--help`).
pub mod exit_codes {
    /// The export verifies.
    pub const VERIFIED: u8 = 0;
    /// `NOT VERIFIED`: the export was read but is not a finished game's export that
    /// replays exactly (tampered, divergent, not JSON or not an export at all).
    pub const NOT_VERIFIED: u8 = 1;
    /// The command line is wrong (clap's usage error).
    pub const USAGE: u8 = 2;
    /// `cannot read file`: the file is missing or cannot be read; nothing was checked.
    pub const CANNOT_READ: u8 = 3;
}

/// [`verify_export`] of a file's bytes: bytes that are not UTF-8 are no JSON export.
pub fn verify_export_bytes(bytes: &[u8]) -> Result<String, String> {
    match std::str::from_utf8(bytes) {
        Ok(text) => verify_export(text),
        Err(error) => Err(format!(
            "NOT VERIFIED: the file is not a JSON export (it is not UTF-8 text: {error})"
        )),
    }
}

/// The verdict on an export's text: `Ok` with the report when it verifies, `Err` with the
/// report (naming the first differing seq where there is one) when it does not.
pub fn verify_export(text: &str) -> Result<String, String> {
    let refused = |divergence: Divergence| {
        let mut report = format!("NOT VERIFIED: {divergence}");
        if let Some(seq) = divergence.first_seq() {
            report.push_str(&format!("\nfirst differing seq: {seq}"));
        }
        report
    };
    let record = GameRecord::from_json(text).map_err(refused)?;
    let verified = record.verify().map_err(refused)?;
    let commitment = match &record.seed_commitment {
        Some(commitment) => format!("the revealed seed matches the commitment {commitment}"),
        None => "the export records no seed commitment (a game from before commitments), so \
                 only the replay was checked"
            .to_owned(),
    };
    let name = crate::games::find_game_rules(&record.kind)
        .map_or(record.kind.as_str(), |rules| rules.name());
    let (ending, outcome) = match &verified.outcome {
        Some(outcome) => (
            "a finished game",
            format!(
                "outcome: scores {:?}, places {:?}",
                outcome.scores, outcome.places
            ),
        ),
        None => (
            "an abandoned game",
            "outcome: none; every player agreed to abandon the game".to_owned(),
        ),
    };
    Ok(format!(
        "verified: {ending} of {name} (rules version {}), {} events from {} actions\n\
         {commitment}\n{outcome}",
        record.rules_version, verified.events, verified.actions,
    ))
}
