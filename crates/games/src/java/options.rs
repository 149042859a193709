//! The options a game is created with: other readings of sentences the texts leave open.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::engine::{RuleError, SharedRule};
use crate::kit::is_default;

/// Options chosen when the game is created. `{}` plays the rules as the engine reads them;
/// each option plays another reading of a sentence the texts leave open (see "Open
/// readings" in `docs/rules/java.md`) and needs rules version 3. Options left at their
/// default are omitted when the options are shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct JavaOptions {
    /// A turn in which no tile can be placed ends without one and the game goes on (the text
    /// ends the game only when the three-space tiles run out). The end begins when as many
    /// turns in a row as there are players ended without a tile (`end_triggered` with
    /// reason `no_tile_for_a_round`). Off: such a turn begins the end at once
    /// (`no_tile_placeable`).
    #[serde(skip_serializing_if = "is_default")]
    #[schema(example = true)]
    pub play_on_when_no_tile_fits: bool,
}

/// The first rules version with options.
pub const OPTIONS_FROM_VERSION: u32 = 3;

/// Options need a rules version that has them.
pub fn check(options: &JavaOptions, rules_version: u32) -> Result<(), RuleError> {
    if *options != JavaOptions::default() && rules_version < OPTIONS_FROM_VERSION {
        return Err(RuleError::new(
            SharedRule::InvalidOptions,
            format!(
                "play_on_when_no_tile_fits needs rules version {OPTIONS_FROM_VERSION}; this game \
                 is on version {rules_version}"
            ),
        ));
    }
    Ok(())
}
