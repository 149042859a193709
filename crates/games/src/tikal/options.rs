//! The options a game is created with: the basic game or the auction variant. Every rules
//! version offers both, so there is nothing to check against the version.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Options chosen when a game of Tikal is created.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TikalOptions {
    /// Play the auction variant ("Profiversion"): scores start at 20 and the turns of each
    /// round are auctioned. `false` (default) is the basic game.
    pub auction: bool,
}
