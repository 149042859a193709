//! Every refusal of Java's own, with its stable code; the shared ones are in
//! [`crate::kit::SharedRule`] (see [`super::Java::SHARED_RULES`]).

use crate::rule_codes;

rule_codes! {
    /// Why Java refuses an action.
    pub enum JavaRule {
        /// The seat has no tile of that kind left.
        NoTileLeft = "no_tile_left",
        /// The tile would lie (partly) outside the map.
        OffBoard = "off_board",
        /// A tile may not cover irrigation.
        CoversIrrigation = "covers_irrigation",
        /// A tile may not cover a developer.
        CoversDeveloper = "covers_developer",
        /// A tile may not cover a palace.
        CoversPalace = "covers_palace",
        /// Every space under a tile must be at the same height.
        NotFlat = "not_flat",
        /// A tile must cover at least one space of the board.
        NoBoardSpace = "no_board_space",
        /// A tile may not lie exactly on a tile of the same size.
        Congruent = "congruent",
        /// A tile may not join two cities.
        JoinsCities = "joins_cities",
        /// The turn's mandatory tile is still owed: place it first.
        MustPlaceTile = "must_place_tile",
        /// The action would leave no possible placement for the tile still owed this turn
        /// (too few action points; from rules version 2 also the last free spaces taken).
        TileStillOwed = "tile_still_owed",
        /// All the seat's developers are on the board.
        NoDeveloperInReserve = "no_developer_in_reserve",
        /// Developers enter and leave only at the rim of central Java.
        NotRimSpace = "not_rim_space",
        /// Developers stand only on tiles.
        NoTileThere = "no_tile_there",
        /// The seat has no developer on that space.
        NotYourDeveloper = "not_your_developer",
        /// Palaces are built on village spaces.
        NotAVillageSpace = "not_a_village_space",
        /// The village already has a palace: raise it instead.
        AlreadyACity = "already_a_city",
        /// Only the seat with the highest rank in the village or city may build or raise.
        NotHighestRank = "not_highest_rank",
        /// There is no palace on that space.
        NoPalace = "no_palace",
        /// A palace may change only once per turn.
        PalaceChangedThisTurn = "palace_changed_this_turn",
        /// A raised palace must be worth more than before.
        ValueNotHigher = "value_not_higher",
        /// Palace values are 2, 4, 6, 8 and 10.
        InvalidPalaceValue = "invalid_palace_value",
        /// A palace may not be worth more than its settlement has village spaces.
        SettlementTooSmall = "settlement_too_small",
        /// No palace tile of that value is left.
        NoPalaceTile = "no_palace_tile",
        /// The irrigation tiles are used up.
        NoIrrigationTileLeft = "no_irrigation_tile_left",
        /// Irrigation goes on a land space of central Java.
        NotABoardSpace = "not_a_board_space",
        /// Irrigation may not be placed at the rim of central Java.
        RimSpace = "rim_space",
        /// Irrigation goes directly on an empty board space.
        SpaceNotEmpty = "space_not_empty",
        /// At most two palace cards per turn.
        CardLimitReached = "card_limit_reached",
        /// There is no face-up palace card.
        NoFaceUpCard = "no_face_up_card",
        /// No palace cards are left to draw.
        DeckEmpty = "deck_empty",
        /// The seat has no action chip left.
        NoActionChip = "no_action_chip",
        /// At most one action chip per turn.
        ChipAlreadyUsed = "chip_already_used",
        /// This palace has held a festival since it last changed.
        FestivalAlreadyHeld = "festival_already_held",
        /// The host needs a developer in the city.
        NoDeveloperInCity = "no_developer_in_city",
        /// A festival play needs at least one palace card.
        NoCards = "no_cards",
        /// A card is listed twice.
        DuplicateCard = "duplicate_card",
        /// The card is not in the seat's hand.
        CardNotInHand = "card_not_in_hand",
        /// The card shows none of the face-up card's symbols.
        CardDoesNotMatch = "card_does_not_match",
        /// When offered an agreement, agree or bid higher.
        CannotPassNow = "cannot_pass_now",
        /// Nobody offers to share the festival now.
        NoAgreementOffered = "no_agreement_offered",
    }
}
