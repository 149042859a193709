//! Every refusal of Eternal Palace's own, with its stable code; the shared ones are in
//! [`crate::kit::SharedRule`] (see [`super::EternalPalace::SHARED_RULES`]).

use crate::rule_codes;

rule_codes! {
    /// Why Eternal Palace refuses an action.
    pub enum EternalPalaceRule {
        /// The seat's grouping is already locked for this round.
        AlreadyGrouped = "already_grouped",
        /// The groups must use exactly the dice the seat rolled, each once.
        NotYourDice = "not_your_dice",
        /// A group needs at least one die.
        EmptyGroup = "empty_group",
        /// The seat holds no privilege token to play.
        NoPrivilege = "no_privilege",
        /// The seat has no group with that number.
        NoSuchGroup = "no_such_group",
        /// That group is already placed.
        GroupPlaced = "group_placed",
        /// Locations are "1" to "12", "bridge" and "scrolls".
        NoSuchLocation = "no_such_location",
        /// The group's pips cannot be made to add up to the location's number.
        WrongSum = "wrong_sum",
        /// The location takes a single die only: the Eternal Bridge, and the labyrinth and
        /// the river market unless the game plays `any_group_at_module_locations`.
        SingleDieOnly = "single_die_only",
        /// A die value is given only at the bridge.
        UnexpectedValue = "unexpected_value",
        /// At the bridge the die's value after wisdom must be 1 to 6.
        InvalidValue = "invalid_value",
        /// The seat's marker has already crossed the bridge.
        BridgeComplete = "bridge_complete",
        /// The placement needs more fish than the seat has.
        NotEnoughFish = "not_enough_fish",
        /// The placement needs more wisdom than the seat has.
        NotEnoughWisdom = "not_enough_wisdom",
        /// The seat lacks the resources to build there.
        NotEnoughResources = "not_enough_resources",
        /// The seat must first finish the choice its location opened.
        ChoicePending = "choice_pending",
        /// There is nothing to choose now.
        NoChoicePending = "no_choice_pending",
        /// The action answers another choice than the one pending.
        WrongChoice = "wrong_choice",
        /// At the fish market: with three cards name one to return and one to discard, with
        /// two only one to return, with one neither.
        InvalidFishMarketChoice = "invalid_fish_market_choice",
        /// The cards named are not among the ones the seat drew.
        NotDrawn = "not_drawn",
        /// That advisor is not on display.
        NotInDisplay = "not_in_display",
        /// The seat has no such advisor.
        NotYourAdvisor = "not_your_advisor",
        /// The advisor was already used this round.
        AdvisorUsed = "advisor_used",
        /// Only traders and diplomats are used by hand.
        NotUsable = "not_usable",
        /// A diplomat needs the seat that receives.
        TargetRequired = "target_required",
        /// A trader gives to the supply, not to a seat.
        UnexpectedTarget = "unexpected_target",
        /// The market item is not on offer.
        ItemUnavailable = "item_unavailable",
        /// Market items must all differ.
        DuplicateItem = "duplicate_item",
        /// The market takes exactly as many items as the group allows.
        WrongItemCount = "wrong_item_count",
        /// Take the fish and wisdom, a resource, or both.
        NothingChosen = "nothing_chosen",
        /// At the Academy an affordable advisor must be hired (option
        /// `academy_hire_compulsory`).
        HiringRequired = "hiring_required",
        /// A group artist rewards a group of two or more dice only.
        NotAnArtistGroup = "not_an_artist_group",
        /// Labyrinth: the seat's marker is on the exit; no arrow leads on.
        LabyrinthComplete = "labyrinth_complete",
        /// Labyrinth: no red arrow the seat can pay for leads from its station there.
        NoSuchPath = "no_such_path",
        /// River market: the seat cannot fulfil the demand of any free field.
        NoDemandToFulfil = "no_demand_to_fulfil",
        /// River market: there is no demand field with that number in play.
        NoSuchField = "no_such_field",
        /// River market: a marker already lies on that demand field.
        FieldTaken = "field_taken",
        /// River market: the field asks for another resource.
        DemandNotMet = "demand_not_met",
        /// Fish Market tile: more cards are drawn once, for 1 or more fish, at most as many
        /// as the deck and discard pile hold.
        InvalidDraw = "invalid_draw",
        /// Temple tile: pay no resource, one or two.
        NoSuchOffer = "no_such_offer",
    }
}
