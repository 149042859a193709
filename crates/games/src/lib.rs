//! The rule engines and the one registry the server dispatches through.
//!
//! Each game lives in its own folder and implements [`engine::Engine`] with its own typed
//! state, actions and events. [`erased`] wraps any engine behind object-safe traits that speak
//! JSON, so the server handles every game alike.

pub mod bots;
pub mod choices;
pub mod engine;
pub mod erased;
pub mod eternal_palace;
pub mod java;
pub mod kit;
pub mod pictures;
pub mod replay;
pub mod server_events;
pub mod take_back;
pub mod tikal;
pub mod time_control;

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

pub use erased::{ActionError, GameRules, RecordedEvent, ReplayError, Table};

/// Every game the server hosts.
pub fn all_games() -> &'static [&'static dyn GameRules] {
    static TIKAL: erased::Rules<tikal::Tikal> = erased::Rules::new();
    static JAVA: erased::Rules<java::Java> = erased::Rules::new();
    static ETERNAL_PALACE: erased::Rules<eternal_palace::EternalPalace> = erased::Rules::new();
    static ALL: [&dyn GameRules; 3] = [&TIKAL, &JAVA, &ETERNAL_PALACE];
    &ALL
}

/// The game with this API identifier (e.g. `"tikal"`).
pub fn find_game_rules(kind: &str) -> Option<&'static dyn GameRules> {
    all_games()
        .iter()
        .copied()
        .find(|rules| rules.kind() == kind)
}

/// A game's secret seed as 64 lowercase hex digits, as stored and exported.
pub fn encode_seed(seed: &[u8; 32]) -> String {
    seed.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The seed back from [`encode_seed`]'s text; `None` for anything else.
pub fn decode_seed(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut seed = [0u8; 32];
    for (index, byte) in seed.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * index..2 * index + 2], 16).ok()?;
    }
    Some(seed)
}

/// The public commitment to a game's secret seed: SHA-256 of a fixed prefix and the seed,
/// as 64 lowercase hex digits. Published in the game's summary and its `game_set_up`
/// event before the first move; once the game is over, the export reveals the seed and
/// anyone can check that it hashes to this.
pub fn seed_commitment(seed: &[u8; 32]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(SEED_COMMITMENT_PREFIX);
    hasher.update(seed);
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// What is hashed before the seed, so the commitment cannot be mistaken for (or reused as)
/// a hash of anything else.
pub const SEED_COMMITMENT_PREFIX: &[u8] = b"turnpost seed commitment v1\n";

/// The random source for the events that will follow `seq` in a game with this seed: every
/// position in the log gets its own ChaCha stream, so a replay with the seed reproduces
/// every shuffle and roll, and no two commands share randomness.
pub fn rng_for(seed: [u8; 32], seq: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::from_seed(seed);
    rng.set_stream(seq);
    rng
}

/// The random source for a bot's choice of the action that will be appended at `seq`
/// (the seq [`rng_for`] gets for that action's own dice and draws): the same seed, but the
/// stream `seq | 1 << 63`, which no log position uses. The choice is thus replayable from
/// the seed, yet independent of what the chosen action will roll; with one stream for
/// both, a bot's playouts would be correlated with the very outcome they try to foresee.
pub fn bot_rng_for(seed: [u8; 32], seq: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::from_seed(seed);
    rng.set_stream(seq | 1 << 63);
    rng
}

/// A new game of `rules` for `seats` with its default options, its opening events applied
/// (the seed is `seats` repeated).
#[cfg(test)]
pub(crate) fn opened_table(rules: &dyn GameRules, seats: u8) -> Box<dyn Table> {
    let options = rules.default_options();
    let version = rules.newest_rules_version();
    let mut table = rules.new_table(&options, seats, version).unwrap();
    let opening = rules
        .setup(&options, seats, version, None, &mut rng_for([seats; 32], 0))
        .unwrap();
    for event in opening {
        let payload = event.payload.to_string();
        table.apply(&payload, rules.event_schema_version()).unwrap();
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_actions_and_views_as_json_are_the_values_serialised() {
        use rand::SeedableRng;
        for rules in all_games() {
            for seats in rules.player_counts() {
                let mut table = opened_table(*rules, seats);
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(seats));
                let mut compared = 0;
                while compared < 300 && table.outcome().is_none() {
                    for seat in table.to_act() {
                        // As values: whether a Value keeps its fields in order depends on
                        // serde_json's features, which the crates using this one choose.
                        let written: serde_json::Value =
                            serde_json::from_str(table.legal_actions_json(seat).get()).unwrap();
                        assert_eq!(
                            written,
                            serde_json::Value::Array(table.legal_actions(seat)),
                            "{} at {seats} seats",
                            rules.kind()
                        );
                        compared += 1;
                    }
                    for viewer in [engine::Viewer::Spectator, engine::Viewer::Seat(0)] {
                        let written: serde_json::Value =
                            serde_json::from_str(table.view_json(viewer).get()).unwrap();
                        assert_eq!(written, table.view(viewer), "{}", rules.kind());
                    }
                    table.play_randomly(1, &mut rng);
                }
                assert!(compared >= 100, "{}: {compared} compared", rules.kind());
            }
        }
    }

    #[test]
    fn seeds_round_trip_through_hex() {
        let seed: [u8; 32] = std::array::from_fn(|index| (index * 7) as u8);
        assert_eq!(decode_seed(&encode_seed(&seed)), Some(seed));
        assert_eq!(decode_seed("zz"), None);
        assert_eq!(decode_seed(&"é".repeat(32)), None);
    }

    #[test]
    fn bot_choices_draw_from_their_own_stream() {
        use rand::RngCore;
        let seed = [3; 32];
        for seq in [0, 1, 77] {
            let action = rng_for(seed, seq).next_u64();
            assert_ne!(bot_rng_for(seed, seq).next_u64(), action);
            assert_eq!(
                bot_rng_for(seed, seq).next_u64(),
                bot_rng_for(seed, seq).next_u64()
            );
        }
        assert_ne!(
            bot_rng_for(seed, 1).next_u64(),
            bot_rng_for(seed, 2).next_u64()
        );
    }

    #[test]
    fn a_commitment_is_the_prefixed_sha256_of_the_seed() {
        // `printf 'turnpost seed commitment v1\n' > c; head -c 32 /dev/zero >> c;
        // sha256sum c`
        assert_eq!(
            seed_commitment(&[0; 32]),
            "7f0f3b426ccf69ba96a206ea123ce670bd4223e5f8ad7335882ea1364949ebdd"
        );
        assert_ne!(seed_commitment(&[0; 32]), seed_commitment(&[1; 32]));
    }
}
