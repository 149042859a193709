//! Typed rule codes: every refusal an engine can give is a variant of a per-game enum with a
//! stable string, so the list of codes a client may see is known to the compiler, the rules
//! pages and the OpenAPI document alike.

use std::fmt::Debug;

/// A closed set of rule codes with their stable wire strings.
pub trait RuleCode: Copy + Debug + Eq + 'static {
    /// Every code of the set, in declaration order.
    const ALL: &'static [Self];
    /// The stable string clients branch on, e.g. `"not_your_turn"`.
    fn as_str(self) -> &'static str;
    /// What the code means, for the documentation.
    fn meaning(self) -> &'static str;
}

/// Declares a rule-code enum: every variant carries its wire string and a doc comment that
/// becomes its documented meaning.
///
/// ```ignore
/// rule_codes! {
///     /// Why Tikal refuses an action.
///     pub enum TikalRule {
///         /// The space has no terrain hex yet.
///         NotExplored = "not_explored",
///     }
/// }
/// ```
#[macro_export]
macro_rules! rule_codes {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[doc = $doc:literal])+ $variant:ident = $code:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[doc = $doc])+ $variant, )+
        }

        impl $crate::kit::rule_code::RuleCode for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];

            fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $code,)+
                }
            }

            fn meaning(self) -> &'static str {
                match self {
                    $($name::$variant => concat!($($doc),+).trim_ascii(),)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::kit::rule_code::RuleCode::as_str(*self))
            }
        }
    };
}

rule_codes! {
    /// Refusals that mean the same in every game, named once for all of them
    /// (`docs/vocabulary.md`). A game returns only those it lists in
    /// [`crate::engine::Engine::SHARED_RULES`].
    pub enum SharedRule {
        /// The game has finished; no action is accepted any more.
        GameOver = "game_over",
        /// The seat is not among those who must act now.
        NotYourTurn = "not_your_turn",
        /// The action does not belong to the current phase of the game (e.g. a bid while no
        /// auction runs).
        WrongPhase = "wrong_phase",
        /// The game is not played by this many players.
        UnsupportedPlayerCount = "unsupported_player_count",
        /// The options object is not valid for this game.
        InvalidOptions = "invalid_options",
        /// The action names a seat that is not at the table (or names the acting seat where
        /// another one is required).
        NoSuchSeat = "no_such_seat",
        /// The action names a space that the board does not have.
        UnknownSpace = "unknown_space",
        /// The space is already taken by a piece or tile that excludes this one.
        SpaceOccupied = "space_occupied",
        /// Moving from a space to the same space.
        SameSpace = "same_space",
        /// No connection over which the piece could move.
        NoPath = "no_path",
        /// The rotation is outside 0-5 or not allowed for this piece.
        InvalidRotation = "invalid_rotation",
        /// The action costs more action points than the seat has left this turn.
        NotEnoughActionPoints = "not_enough_action_points",
        /// The `cost` given with the action differs from what the action costs.
        CostMismatch = "cost_mismatch",
        /// A bid that does not beat the highest bid so far.
        BidTooLow = "bid_too_low",
        /// The seat lacks the goods, points or cards to pay for the action.
        CannotAfford = "cannot_afford",
    }
}

/// The shared codes every game can return.
pub const EVERY_GAME: &[SharedRule] = &[
    SharedRule::GameOver,
    SharedRule::NotYourTurn,
    SharedRule::WrongPhase,
    SharedRule::UnsupportedPlayerCount,
    SharedRule::InvalidOptions,
    SharedRule::NoSuchSeat,
];

/// The shared codes of a game whose pieces move over named spaces for action points, with
/// bidding: [`EVERY_GAME`] and the space, movement, cost and bid codes.
pub const SPACES_AND_ACTION_POINTS: &[SharedRule] = &[
    SharedRule::UnknownSpace,
    SharedRule::SpaceOccupied,
    SharedRule::SameSpace,
    SharedRule::NoPath,
    SharedRule::InvalidRotation,
    SharedRule::NotEnoughActionPoints,
    SharedRule::CostMismatch,
    SharedRule::BidTooLow,
];

#[cfg(test)]
mod tests {
    use super::{RuleCode, SharedRule};

    #[test]
    fn codes_are_distinct_snake_case_and_documented() {
        let mut seen = std::collections::BTreeSet::new();
        for code in SharedRule::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit()));
            assert!(!code.meaning().is_empty(), "{text} has no meaning");
            assert_eq!(code.to_string(), text);
        }
    }
}
