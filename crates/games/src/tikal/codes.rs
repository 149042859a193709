//! Every refusal of Tikal's own, with its stable code; the shared ones are in
//! [`crate::kit::SharedRule`] (see [`super::Tikal::SHARED_RULES`]).

use crate::rule_codes;

rule_codes! {
    /// Why Tikal refuses an action.
    pub enum TikalRule {
        /// The space has no terrain hex yet.
        NotExplored = "not_explored",
        /// A laid hex must touch the explored area with a stone on a shared edge.
        NotConnected = "not_connected",
        /// The tile named is not among the revealed ones (auction variant).
        UnknownTile = "unknown_tile",
        /// Figures enter only at the base camp or at the seat's own camps.
        NotAnEntry = "not_an_entry",
        /// The seat has no figure of that kind left in its supply.
        NoneInSupply = "none_in_supply",
        /// The seat has no figure of that kind where the action needs one.
        NoPiece = "no_piece",
        /// Only a temple can be uncovered or guarded.
        NotATemple = "not_a_temple",
        /// A guarded temple can no longer be uncovered.
        TempleGuarded = "temple_guarded",
        /// At most two levels of one temple can be uncovered in one turn.
        UncoverLimit = "uncover_limit",
        /// Each level uncovered (or treasure recovered) in one turn needs one more of the
        /// seat's figures on that hex.
        NeedsMorePieces = "needs_more_pieces",
        /// No temple tile with the next number is left.
        NoTempleTile = "no_temple_tile",
        /// Treasures lie only on treasure hexes.
        NotATreasureSite = "not_a_treasure_site",
        /// No treasure is left on this hex.
        NoTreasureLeft = "no_treasure_left",
        /// At most two treasures of one hex can be recovered in one turn.
        RecoverLimit = "recover_limit",
        /// Treasure kinds are numbered 1 to 8.
        InvalidKind = "invalid_kind",
        /// Exchanging a treasure for one of its own kind changes nothing.
        SameKind = "same_kind",
        /// Both treasures of an exchange must be held by their owners.
        NoSuchTreasure = "no_such_treasure",
        /// Pairs and triplets cannot be split by an exchange.
        CannotSplitSet = "cannot_split_set",
        /// A camp needs a treasure hex whose treasures are all recovered.
        TreasureLeft = "treasure_left",
        /// Camps are built on jungle or emptied treasure hexes only.
        CampNotAllowed = "camp_not_allowed",
        /// The hex already has a camp.
        CampExists = "camp_exists",
        /// The seat has built all its camps.
        NoCampsLeft = "no_camps_left",
        /// The temple already has a guard.
        AlreadyGuarded = "already_guarded",
        /// The seat has already guarded two temples.
        NoGuardsLeft = "no_guards_left",
        /// A guard needs the strict majority of figures on the temple.
        NoMajority = "no_majority",
        /// A bid may not exceed the bidder's score (auction variant).
        BidExceedsScore = "bid_exceeds_score",
    }
}
