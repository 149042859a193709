//! `setup` and `decide`: the rules proper. Decisions are worked out on a
//! copy of the state that every emitted event is folded into at once, so later steps of the
//! same decision see the effects of earlier ones exactly as `evolve` will.

use rand::seq::SliceRandom;
use rand::{Rng, RngCore};

use super::action::{Action, MarketItem};
use super::codes::EternalPalaceRule;
use super::data::{
    data, AdvisorEffect, BonusChoice, Goods, HireSign, LocationKind, Resource, SCROLLS,
};
use super::event::{Answer, Choice, Event, HireSource, Reason};
use super::scoring::final_scores;
use super::state::{
    deck_token, demand_token, held_token, known_token, seal, token_card, unseal, Pending, Phase,
    State,
};
use super::EternalPalace;
use super::EternalPalaceOptions;
use crate::engine::{Engine, RuleCode, RuleError, Seat, SharedRule};
use crate::kit::seats::check_player_count;
use crate::kit::Emitter;

type Decision = Result<Vec<Event>, RuleError>;

fn err(code: impl RuleCode, message: impl Into<String>) -> RuleError {
    RuleError::new(code, message)
}

/// The working copy every decision emits its events onto.
type Ctx = Emitter<EternalPalace>;

// ---------------------------------------------------------------- setup and rounds

pub fn setup(
    options: &EternalPalaceOptions,
    seats: u8,
    rules_version: u32,
    seed_commitment: Option<&str>,
    rng: &mut dyn RngCore,
) -> Decision {
    check_player_count(EternalPalace::NAME, EternalPalace::player_counts(), seats)?;
    check_options(options, rules_version)?;
    let d = data();
    let mut cx = Ctx::new(&State::new(options, seats, rules_version));
    let mut order: Vec<Seat> = (0..seats).collect();
    order.shuffle(rng);
    let mut deck = d.deck_for(seats, options.privileges);
    deck.shuffle(rng);
    cx.emit(Event::GameSetUp {
        seats,
        privileges: options.privileges,
        turn_order: order,
        deck: Some(deck.iter().map(|c| deck_token(c)).collect()),
        seed_commitment: seed_commitment.map(str::to_owned),
    });
    // The modules shuffle only when chosen, so games without them draw from `rng` exactly
    // as before.
    if options.river_market {
        let mut demands: Vec<String> = d.demands.iter().map(|c| c.id.clone()).collect();
        demands.shuffle(rng);
        cx.emit(Event::DemandDeckShuffled {
            deck: Some(demands.iter().map(|c| demand_token(c)).collect()),
        });
        reveal_demand(&mut cx, rng);
    }
    if options.compositions {
        let mut cards: Vec<String> = d.composition_cards.iter().map(|c| c.id.clone()).collect();
        cards.shuffle(rng);
        let open = d
            .compositions
            .open_by_players
            .get(seats as usize)
            .copied()
            .unwrap_or(0);
        cards.truncate(open);
        cx.emit(Event::CompositionsDealt { cards });
    }
    deal_display(&mut cx, rng);
    start_round(&mut cx, 1, rng);
    Ok(cx.into_events())
}

/// The first rules version with the modules and location tiles.
pub const MODULES_FROM_VERSION: u32 = 3;

/// The first rules version with `any_group_at_module_locations`.
pub const ANY_GROUP_FROM_VERSION: u32 = 4;

/// Options the short rules allow together, under a rules version that has them.
pub fn check_options(options: &EternalPalaceOptions, rules_version: u32) -> Result<(), RuleError> {
    if options.uses_version_3() && rules_version < MODULES_FROM_VERSION {
        return Err(err(
            SharedRule::InvalidOptions,
            format!(
                "the modules labyrinth, river_market and compositions and the location tiles \
                 need rules version {MODULES_FROM_VERSION}; this game is on version \
                 {rules_version}"
            ),
        ));
    }
    let chosen: Vec<&str> = [
        (options.labyrinth, "labyrinth"),
        (options.river_market, "river_market"),
        (options.compositions, "compositions"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name)
    .collect();
    if chosen.len() > 1 {
        return Err(err(
            SharedRule::InvalidOptions,
            format!(
                "labyrinth, river_market and compositions cannot be combined (chosen: {}); \
                 choose at most one of them (each combines with privileges and the tiles)",
                chosen.join(", ")
            ),
        ));
    }
    if options.any_group_at_module_locations {
        if rules_version < ANY_GROUP_FROM_VERSION {
            return Err(err(
                SharedRule::InvalidOptions,
                format!(
                    "any_group_at_module_locations needs rules version {ANY_GROUP_FROM_VERSION}; \
                     this game is on version {rules_version}"
                ),
            ));
        }
        if !options.labyrinth && !options.river_market {
            return Err(err(
                SharedRule::InvalidOptions,
                "any_group_at_module_locations changes the labyrinth and the river market only; \
                 choose one of them with it",
            ));
        }
    }
    for (i, tile) in options.location_tiles.iter().enumerate() {
        if options.location_tiles[..i].contains(tile) {
            return Err(err(
                SharedRule::InvalidOptions,
                format!(
                    "location_tiles names {:?} (the {}) twice; choose each tile at most once",
                    tile.id(),
                    tile.name()
                ),
            ));
        }
    }
    Ok(())
}

/// River market: reveals the next demand card, shuffling the used ones into a new deck when
/// the deck is empty.
fn reveal_demand(cx: &mut Ctx, rng: &mut dyn RngCore) {
    if cx.state().demand_deck.is_empty() && !cx.state().demand_discard.is_empty() {
        let mut fresh = cx.state().demand_discard.clone();
        fresh.shuffle(rng);
        cx.emit(Event::DemandDeckShuffled {
            deck: Some(fresh.iter().map(|c| demand_token(c)).collect()),
        });
    }
    if let Some(top) = cx.state().demand_deck.first() {
        let card = token_card(top).to_string();
        cx.emit(Event::DemandRevealed { card });
    }
}

/// Makes sure the deck holds at least `needed` cards if the discard pile allows: the
/// discard pile is shuffled and put under the remaining deck.
fn ensure_deck(cx: &mut Ctx, needed: usize, rng: &mut dyn RngCore) {
    if cx.state().deck.len() >= needed || cx.state().discard.is_empty() {
        return;
    }
    let mut fresh = cx.state().discard.clone();
    fresh.shuffle(rng);
    let mut deck = cx.state().deck.clone();
    deck.extend(fresh.iter().map(|c| deck_token(c)));
    cx.emit(Event::DeckReshuffled { deck: Some(deck) });
}

fn deal_display(cx: &mut Ctx, rng: &mut dyn RngCore) {
    let wanted = cx.state().seats as usize + data().display.extra_cards as usize;
    let missing = wanted.saturating_sub(cx.state().display.len());
    if missing == 0 {
        return;
    }
    ensure_deck(cx, missing, rng);
    let n = missing.min(cx.state().deck.len());
    if n > 0 {
        let cards = cx.state().deck[..n]
            .iter()
            .map(|t| token_card(t).to_string())
            .collect();
        cx.emit(Event::DisplayDealt { cards });
    }
}

fn start_round(cx: &mut Ctx, round: u32, rng: &mut dyn RngCore) {
    let dice: Vec<Vec<u8>> = cx
        .state()
        .players
        .iter()
        .map(|p| (0..p.active_dice).map(|_| rng.gen_range(1..=6u8)).collect())
        .collect();
    let sums: Vec<u32> = dice
        .iter()
        .map(|d| d.iter().map(|p| *p as u32).sum())
        .collect();
    cx.emit(Event::DiceRolled { round, dice });
    let mut order = cx.state().turn_order.clone();
    order.sort_by_key(|s| sums[*s as usize]);
    if order != cx.state().turn_order {
        cx.emit(Event::TurnOrderSet { order });
    }
    let lowest = sums.iter().copied().min().unwrap_or(0);
    let lowest_seats: Vec<usize> = (0..sums.len()).filter(|i| sums[*i] == lowest).collect();
    if let [alone] = lowest_seats.as_slice() {
        let seat = *alone as Seat;
        let cards = active_cards(cx.state(), seat, |e| {
            matches!(e, AdvisorEffect::ArtistLowestSum { .. })
        });
        for (card, effect) in cards {
            if let AdvisorEffect::ArtistLowestSum { gain } = effect {
                cx.emit(Event::AdvisorUsed {
                    seat,
                    card,
                    target: None,
                });
                gain_goods(cx, seat, gain, Reason::Advisor);
            }
        }
    }
}

/// Unused advisors of `seat` whose effect matches.
fn active_cards(
    state: &State,
    seat: Seat,
    filter: impl Fn(&AdvisorEffect) -> bool,
) -> Vec<(String, AdvisorEffect)> {
    let d = data();
    let Some(p) = state.player(seat) else {
        return Vec::new();
    };
    p.advisors
        .iter()
        .filter(|a| !a.used)
        .filter_map(|a| d.card(&a.card))
        .filter(|c| filter(&c.effect))
        .map(|c| (c.id.clone(), c.effect.clone()))
        .collect()
}

/// Gains from the supply, limited by the palace track's end and the privilege supply.
fn gain_goods(cx: &mut Ctx, seat: Seat, gain: Goods, reason: Reason) {
    let mut delta = gain;
    if let Some(p) = cx.state().player(seat) {
        let room = data().palace.length as i32 - p.palace as i32;
        delta.palace = delta.palace.clamp(0, room.max(0));
    }
    delta.privilege = delta.privilege.min(cx.state().privilege_supply.max(0));
    if !delta.is_empty() {
        cx.emit(Event::GoodsChanged {
            seat,
            delta,
            reason,
        });
    }
}

fn pay_goods(cx: &mut Ctx, seat: Seat, cost: Goods, reason: Reason) {
    if !cost.is_empty() {
        cx.emit(Event::GoodsChanged {
            seat,
            delta: cost.negated(),
            reason,
        });
    }
}

fn after_grouping(cx: &mut Ctx) {
    if cx.state().sealed.iter().any(Option::is_none) {
        return;
    }
    if cx.state().privileges {
        let seats: Vec<Seat> = cx
            .state()
            .turn_order
            .iter()
            .copied()
            .filter(|s| cx.state().player(*s).is_some_and(|p| p.stock.privilege > 0))
            .collect();
        if !seats.is_empty() {
            cx.emit(Event::PrivilegesOpened { seats });
            return;
        }
    }
    reveal(cx);
}

/// Privileges evaluated in turn order: a marker with a token swaps with the marker right
/// before it unless that one carries a token too.
pub fn privilege_order(order: &[Seat], played: &[bool]) -> Vec<Seat> {
    let mut result = order.to_vec();
    for seat in order {
        if !played.get(*seat as usize).copied().unwrap_or(false) {
            continue;
        }
        let Some(position) = result.iter().position(|s| s == seat) else {
            continue;
        };
        if position == 0 {
            continue;
        }
        let before = result[position - 1];
        if played.get(before as usize).copied().unwrap_or(false) {
            continue;
        }
        result.swap(position - 1, position);
    }
    result
}

fn reveal(cx: &mut Ctx) {
    if cx.state().privileges {
        let played: Vec<bool> = cx
            .state()
            .players
            .iter()
            .map(|p| p.privilege_played)
            .collect();
        let order = privilege_order(&cx.state().turn_order, &played);
        if order != cx.state().turn_order {
            cx.emit(Event::TurnOrderSet { order });
        }
    }
    let groups: Vec<Vec<Vec<u8>>> = cx
        .state()
        .sealed
        .iter()
        .map(|s| unseal(s.as_deref().unwrap_or("")))
        .collect();
    cx.emit(Event::GroupsRevealed { groups });
    if cx.state().rules_version >= 2 {
        offer_artist_groups(cx);
        if cx.state().pending.is_empty() {
            let first = cx.state().turn_order.first().copied();
            cx.emit(Event::TurnPassed { next: first });
        }
        return;
    }
    let rewards = &data().artist_group_rewards;
    for seat in cx.state().turn_order.clone() {
        let largest = cx
            .state()
            .player(seat)
            .and_then(|p| p.groups.iter().map(Vec::len).max())
            .unwrap_or(0);
        let cards = active_cards(cx.state(), seat, |e| {
            matches!(e, AdvisorEffect::ArtistGroups { .. })
        });
        for (card, effect) in cards {
            let AdvisorEffect::ArtistGroups { resource } = effect else {
                continue;
            };
            let gain = match largest {
                0 | 1 => continue,
                2 => rewards.two_dice,
                3 => Goods::resource(resource, rewards.three_dice_resource),
                _ => rewards.four_dice,
            };
            cx.emit(Event::AdvisorUsed {
                seat,
                card,
                target: None,
            });
            gain_goods(cx, seat, gain, Reason::Advisor);
        }
    }
    let first = cx.state().turn_order.first().copied();
    cx.emit(Event::TurnPassed { next: first });
}

/// What a group artist showing `resource` gives for a group of `dice` dice: nothing below
/// 2 dice, 5 dice count as 4.
fn artist_group_gain(dice: usize, resource: Resource) -> Option<Goods> {
    let rewards = &data().artist_group_rewards;
    match dice {
        0 | 1 => None,
        2 => Some(rewards.two_dice),
        3 => Some(Goods::resource(resource, rewards.three_dice_resource)),
        _ => Some(rewards.four_dice),
    }
}

/// Rules version 2 ("Erhalte zu Beginn der Runde für eine Deiner Würfelgruppen aus 2 / 3 /
/// 4 Würfeln ..."): the owner picks the group. In turn order, every unused group artist
/// whose owner's groups would give different rewards opens a choice of the groups of 2 or
/// more dice; with a single possible reward it is paid at once, with none the card stays
/// unused.
fn offer_artist_groups(cx: &mut Ctx) {
    for seat in cx.state().turn_order.clone() {
        let groups = cx
            .state()
            .player(seat)
            .map(|p| p.groups.clone())
            .unwrap_or_default();
        let cards = active_cards(cx.state(), seat, |e| {
            matches!(e, AdvisorEffect::ArtistGroups { .. })
        });
        for (card, effect) in cards {
            let AdvisorEffect::ArtistGroups { resource } = effect else {
                continue;
            };
            let eligible: Vec<u8> = (0..groups.len())
                .filter(|g| artist_group_gain(groups[*g].len(), resource).is_some())
                .map(|g| g as u8)
                .collect();
            let mut gains: Vec<Goods> = Vec::new();
            for g in &eligible {
                if let Some(gain) = artist_group_gain(groups[*g as usize].len(), resource) {
                    if !gains.contains(&gain) {
                        gains.push(gain);
                    }
                }
            }
            match gains.as_slice() {
                [] => {}
                [gain] => {
                    let gain = *gain;
                    cx.emit(Event::AdvisorUsed {
                        seat,
                        card,
                        target: None,
                    });
                    gain_goods(cx, seat, gain, Reason::Advisor);
                }
                _ => cx.emit(Event::ChoiceOffered {
                    seat,
                    choice: Choice::ArtistGroup {
                        card,
                        groups: eligible,
                    },
                }),
            }
        }
    }
}

fn decide_artist_group(state: &State, seat: Seat, group: u8) -> Decision {
    let Pending::Offered {
        choice: Choice::ArtistGroup { card, groups },
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not a group artist's",
        ));
    };
    let Some(dice) = state.players[seat as usize].groups.get(group as usize) else {
        return Err(err(
            EternalPalaceRule::NoSuchGroup,
            "you have no group with that number",
        ));
    };
    let resource = match data().card(card).map(|c| &c.effect) {
        Some(AdvisorEffect::ArtistGroups { resource }) => *resource,
        _ => {
            return Err(err(
                EternalPalaceRule::WrongChoice,
                "the pending choice is not a group artist's",
            ))
        }
    };
    let gain = match artist_group_gain(dice.len(), resource) {
        Some(gain) if groups.contains(&group) => gain,
        _ => {
            return Err(err(
                EternalPalaceRule::NotAnArtistGroup,
                "the artist rewards a group of two or more dice",
            ))
        }
    };
    let card = card.clone();
    let mut cx = Ctx::new(state);
    cx.emit(Event::ArtistGroupChosen {
        seat,
        card: card.clone(),
        group,
    });
    cx.emit(Event::AdvisorUsed {
        seat,
        card,
        target: None,
    });
    gain_goods(&mut cx, seat, gain, Reason::Advisor);
    // the last choice of the reveal starts the placing
    if cx.state().pending.is_empty() && cx.state().placer.is_none() {
        let first = cx.state().turn_order.first().copied();
        cx.emit(Event::TurnPassed { next: first });
    }
    Ok(cx.into_events())
}

fn has_unplaced(state: &State, seat: Seat) -> bool {
    state
        .player(seat)
        .is_some_and(|p| p.placed.iter().any(|placed| !placed))
}

/// Called when the active seat has nothing pending: pass the turn or end the round.
fn finish_turn(cx: &mut Ctx, rng: &mut dyn RngCore) {
    if !cx.state().pending.is_empty() {
        return;
    }
    let order = cx.state().turn_order.clone();
    let start = cx
        .state()
        .placer
        .and_then(|p| order.iter().position(|s| *s == p))
        .unwrap_or(0);
    let n = order.len();
    let next = (1..=n)
        .map(|k| order[(start + k) % n])
        .find(|s| has_unplaced(cx.state(), *s));
    cx.emit(Event::TurnPassed { next });
    if next.is_none() {
        end_round(cx, rng);
    }
}

fn end_round(cx: &mut Ctx, rng: &mut dyn RngCore) {
    let d = data();
    let round = cx.state().round;
    cx.emit(Event::RoundEnded { round });
    let someone_done = cx
        .state()
        .players
        .iter()
        .any(|p| p.layers.len() >= d.end.layers);
    // Rules version 1 also ends the game after a decided round limit; from version 2 on
    // only the short rules' own condition ends it.
    let limit_reached = d
        .round_limit(cx.state().rules_version)
        .is_some_and(|limit| round >= limit);
    if someone_done || limit_reached {
        let (sheets, sequence) = final_scores(cx.state());
        let completion = cx.state().completion;
        cx.emit(Event::GameFinished {
            scores: sheets.iter().map(|sheet| sheet.total).collect(),
            places: sheets.iter().map(|sheet| sheet.place).collect(),
            sheets,
            completion,
            sequence,
        });
        return;
    }
    if !cx.state().display.is_empty() {
        let cards = cx.state().display.clone();
        cx.emit(Event::DisplayCleared { cards });
    }
    deal_display(cx, rng);
    let per_round = d
        .palace_dice_per_round
        .by_players
        .get(cx.state().seats as usize)
        .copied()
        .unwrap_or(0);
    let mut released = Vec::new();
    for _ in 0..per_round {
        if let Some(seat) = palace_die_recipient(cx.state(), &released) {
            cx.emit(Event::PalaceDieReleased { seat });
            released.push(seat);
        }
    }
    start_round(cx, round + 1, rng);
}

/// Who gets the next palace die: fewest active dice, then furthest in the palace, then
/// the earliest to arrive on that palace space. Seats in `released` already got one in
/// this preparation.
pub fn palace_die_recipient(state: &State, released: &[Seat]) -> Option<Seat> {
    (0..state.seats)
        .filter(|s| !released.contains(s))
        .filter(|s| state.players[*s as usize].palace_dice > 0)
        .min_by_key(|s| {
            let p = &state.players[*s as usize];
            (p.active_dice, std::cmp::Reverse(p.palace), p.palace_arrival)
        })
}

// ---------------------------------------------------------------- dice and wisdom

/// Least wisdom needed to make `pips` add up to `target`, with the pips afterwards.
pub fn cheapest_sum(pips: &[u8], target: u32) -> Option<(i32, Vec<u8>)> {
    let d = data();
    // best[sum] = (cost, chosen pips) over the dice processed so far
    let mut best: Vec<Option<(i32, Vec<u8>)>> = vec![None; 31];
    best[0] = Some((0, Vec::new()));
    for pip in pips {
        let mut next: Vec<Option<(i32, Vec<u8>)>> = vec![None; 31];
        for (sum, entry) in best.iter().enumerate() {
            let Some((cost, chosen)) = entry else {
                continue;
            };
            for value in 1..=6u8 {
                let s = sum + value as usize;
                if s > 30 {
                    continue;
                }
                let c = cost + d.pip_cost(*pip, value);
                if next[s].as_ref().is_none_or(|(old, _)| c < *old) {
                    let mut v = chosen.clone();
                    v.push(value);
                    next[s] = Some((c, v));
                }
            }
        }
        best = next;
    }
    best.get(target as usize).cloned().flatten()
}

/// Every distinct way to split `dice` into groups (equal pips are interchangeable), each
/// group sorted high to low and the groups sorted.
pub fn partitions(dice: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let mut sorted = dice.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut out: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut current: Vec<Vec<u8>> = Vec::new();
    fn rec(rest: &[u8], current: &mut Vec<Vec<u8>>, out: &mut Vec<Vec<Vec<u8>>>) {
        let Some((first, tail)) = rest.split_first() else {
            let canonical = canonical_groups(current);
            if !out.contains(&canonical) {
                out.push(canonical);
            }
            return;
        };
        for i in 0..current.len() {
            current[i].push(*first);
            rec(tail, current, out);
            current[i].pop();
        }
        current.push(vec![*first]);
        rec(tail, current, out);
        current.pop();
    }
    rec(&sorted, &mut current, &mut out);
    out.sort();
    out
}

pub fn canonical_groups(groups: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut result: Vec<Vec<u8>> = groups
        .iter()
        .map(|g| {
            let mut g = g.clone();
            g.sort_unstable_by(|a, b| b.cmp(a));
            g
        })
        .collect();
    result.sort_unstable_by(|a, b| b.cmp(a));
    result
}

// ---------------------------------------------------------------- decide

pub fn decide(state: &State, seat: Seat, action: &Action, rng: &mut dyn RngCore) -> Decision {
    if state.phase == Phase::Finished {
        return Err(err(SharedRule::GameOver, "the game is over"));
    }
    if seat >= state.seats {
        return Err(err(
            SharedRule::NoSuchSeat,
            "there is no such seat at this table",
        ));
    }
    match action {
        Action::GroupDice { groups } => decide_group(state, seat, groups),
        Action::ChoosePrivilege { play } => decide_privilege(state, seat, *play),
        Action::PlaceDice {
            group,
            location,
            value,
        } => decide_place(state, seat, *group, location, *value, rng),
        Action::UseAdvisor { card, target } => decide_use_advisor(state, seat, card, *target),
        Action::ResolveFishMarket {
            returned,
            discarded,
            kept,
            hire,
        } => decide_fish_market(
            state,
            seat,
            FishMarketChoice {
                returned: returned.as_deref(),
                discarded: discarded.as_deref(),
                kept: kept.as_deref(),
                hire: *hire,
            },
            rng,
        ),
        Action::HireAdvisor { card } => decide_hire(state, seat, card.as_deref(), rng),
        Action::TakeResource { resource } => decide_take_resource(state, seat, *resource, rng),
        Action::BuyAtMarket { items } => decide_market(state, seat, items, rng),
        Action::ReadScrolls { goods, resource } => {
            decide_scrolls(state, seat, *goods, *resource, rng)
        }
        Action::ChooseArtistGroup { group } => decide_artist_group(state, seat, *group),
        Action::FollowPath { station } => decide_follow_path(state, seat, station, rng),
        Action::FulfilDemand { field, resource } => {
            decide_fulfil_demand(state, seat, *field, *resource, rng)
        }
        Action::DrawAdvisors { fish } => decide_draw_advisors(state, seat, *fish, rng),
        Action::TakeReserve => decide_take_reserve(state, seat, rng),
        Action::BuyWisdom { paid } => decide_buy_wisdom(state, seat, paid, rng),
        Action::ChooseMarketTile {
            step,
            palace,
            bundle,
            advisor,
            privilege,
        } => decide_market_tile(
            state,
            seat,
            MarketTileChoice {
                step: *step,
                palace: *palace,
                bundle: *bundle,
                advisor: advisor.clone(),
                privilege: *privilege,
            },
            rng,
        ),
        Action::StepForResource { resource } => decide_resource_step(state, seat, *resource, rng),
    }
}

fn decide_group(state: &State, seat: Seat, groups: &[Vec<u8>]) -> Decision {
    if state.phase != Phase::Grouping {
        return Err(err(
            SharedRule::WrongPhase,
            "dice are grouped only after the roll",
        ));
    }
    if state.sealed.get(seat as usize).is_some_and(Option::is_some) {
        return Err(err(
            EternalPalaceRule::AlreadyGrouped,
            "your grouping is locked for this round",
        ));
    }
    if groups.iter().any(Vec::is_empty) {
        return Err(err(
            EternalPalaceRule::EmptyGroup,
            "a group needs at least one die",
        ));
    }
    let mut given: Vec<u8> = groups.iter().flatten().copied().collect();
    given.sort_unstable();
    let mut rolled = state.players[seat as usize].rolled.clone();
    rolled.sort_unstable();
    if given != rolled {
        return Err(err(
            EternalPalaceRule::NotYourDice,
            "the groups must use exactly the dice you rolled, each once",
        ));
    }
    let canonical = canonical_groups(groups);
    let mut cx = Ctx::new(state);
    cx.emit(Event::DiceGrouped {
        seat,
        sealed: Some(seal(state.round, seat, &canonical)),
    });
    after_grouping(&mut cx);
    Ok(cx.into_events())
}

fn decide_privilege(state: &State, seat: Seat, play: bool) -> Decision {
    if state.phase != Phase::Privileges {
        return Err(err(
            SharedRule::WrongPhase,
            "privileges are played after grouping",
        ));
    }
    if state.privilege_queue.first() != Some(&seat) {
        return Err(err(
            SharedRule::NotYourTurn,
            "another seat decides on privileges now",
        ));
    }
    if play && state.players[seat as usize].stock.privilege < 1 {
        return Err(err(
            EternalPalaceRule::NoPrivilege,
            "you hold no privilege token",
        ));
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::PrivilegeDecided { seat, play });
    if cx.state().privilege_queue.is_empty() {
        reveal(&mut cx);
    }
    Ok(cx.into_events())
}

fn check_turn(state: &State, seat: Seat) -> Result<(), RuleError> {
    if state.phase != Phase::Placement {
        return Err(err(
            SharedRule::WrongPhase,
            "groups are placed after the reveal",
        ));
    }
    if state.placer != Some(seat) {
        return Err(err(SharedRule::NotYourTurn, "another seat is placing now"));
    }
    if !state.pending.is_empty() {
        return Err(err(
            EternalPalaceRule::ChoicePending,
            "finish the choice of your current location first",
        ));
    }
    Ok(())
}

/// What placing costs and how the pips end up, or why it is refused.
pub struct Placement {
    pub location: usize,
    pub pips: Vec<u8>,
    pub wisdom: i32,
    pub fish: i32,
}

/// The pips a group shows where it is placed, and the wisdom that turning them costs.
/// `any_group`: the module locations take any group (option `any_group_at_module_locations`).
fn pips_and_wisdom(
    p: &super::state::Player,
    dice: &[u8],
    index: usize,
    value: Option<u8>,
    any_group: bool,
) -> Result<(Vec<u8>, i32), RuleError> {
    let d = data();
    let spot = &d.locations[index];
    match spot.kind {
        LocationKind::Scrolls => {
            if value.is_some() {
                return Err(err(
                    EternalPalaceRule::UnexpectedValue,
                    "a value is given only at the bridge",
                ));
            }
            Ok((dice.to_vec(), 0))
        }
        LocationKind::Bridge => {
            let [pip] = dice else {
                return Err(err(
                    EternalPalaceRule::SingleDieOnly,
                    "the Eternal Bridge takes a single die only",
                ));
            };
            let Some(v) = value.filter(|v| (1..=6).contains(v)) else {
                return Err(err(
                    EternalPalaceRule::InvalidValue,
                    "at the bridge give the die's value after wisdom, 1 to 6",
                ));
            };
            let length = spot.track_length().unwrap_or(0);
            if p.tracks[index] >= length {
                return Err(err(
                    EternalPalaceRule::BridgeComplete,
                    "your marker has already crossed the bridge",
                ));
            }
            Ok((vec![v], d.pip_cost(*pip, v)))
        }
        LocationKind::Labyrinth | LocationKind::RiverMarket => {
            if value.is_some() {
                return Err(err(
                    EternalPalaceRule::UnexpectedValue,
                    "a value is given only at the bridge",
                ));
            }
            let count = spot.dice.as_ref().map_or(1, |rule| rule.count);
            if dice.len() != count && !any_group {
                return Err(err(
                    EternalPalaceRule::SingleDieOnly,
                    format!("the {} takes a single die only", spot.name),
                ));
            }
            Ok((dice.to_vec(), 0))
        }
        _ => {
            if value.is_some() {
                return Err(err(
                    EternalPalaceRule::UnexpectedValue,
                    "a value is given only at the bridge",
                ));
            }
            let target = spot.number().unwrap_or(0);
            let Some((cost, pips)) = cheapest_sum(dice, target) else {
                return Err(err(
                    EternalPalaceRule::WrongSum,
                    format!("this group cannot add up to {target}"),
                ));
            };
            Ok((pips, cost))
        }
    }
}

pub fn check_place(
    state: &State,
    seat: Seat,
    group: u8,
    location: &str,
    value: Option<u8>,
) -> Result<Placement, RuleError> {
    let d = data();
    let p = &state.players[seat as usize];
    let Some(dice) = p.groups.get(group as usize) else {
        return Err(err(
            EternalPalaceRule::NoSuchGroup,
            "you have no group with that number",
        ));
    };
    if p.placed.get(group as usize).copied().unwrap_or(true) {
        return Err(err(
            EternalPalaceRule::GroupPlaced,
            "that group is already placed",
        ));
    }
    let Some(index) = d
        .location_index(location)
        .filter(|index| state.in_play(*index))
    else {
        return Err(err(
            EternalPalaceRule::NoSuchLocation,
            "locations are \"1\"..\"12\", \"bridge\", \"scrolls\" and the chosen module's \
             \"labyrinth\" or \"river_market\"",
        ));
    };
    let spot = &d.locations[index];
    let (pips, wisdom) =
        pips_and_wisdom(p, dice, index, value, state.any_group_at_module_locations)?;
    if wisdom > p.stock.wisdom {
        return Err(err(
            EternalPalaceRule::NotEnoughWisdom,
            format!("that needs {wisdom} wisdom"),
        ));
    }
    let fish = if index == SCROLLS {
        0
    } else {
        state.colours_at(index)
    };
    if fish > p.stock.fish {
        return Err(err(
            EternalPalaceRule::NotEnoughFish,
            format!("that needs {fish} fish"),
        ));
    }
    if spot.kind == LocationKind::Labyrinth {
        let station = &p.station;
        if d.arrows_from(station).next().is_none() {
            return Err(err(
                EternalPalaceRule::LabyrinthComplete,
                "your marker has already left the labyrinth",
            ));
        }
        let left = p.stock.fish - fish;
        if !d.arrows_from(station).any(|a| a.fish <= left) {
            return Err(err(
                EternalPalaceRule::NotEnoughFish,
                "no way out of your station is paid for with the fish you would have left",
            ));
        }
    }
    if spot.kind == LocationKind::RiverMarket && fulfillable_fields(state, seat).is_empty() {
        return Err(err(
            EternalPalaceRule::NoDemandToFulfil,
            "you cannot fulfil the demand of any free field of the river market",
        ));
    }
    if spot.kind == LocationKind::Monument {
        let resource = spot.resource.unwrap_or(Resource::Wood);
        if p.stock.get(resource) < state.rings[index] {
            return Err(err(
                EternalPalaceRule::NotEnoughResources,
                format!(
                    "the monument needs {} {}",
                    state.rings[index],
                    resource.name()
                ),
            ));
        }
    }
    Ok(Placement {
        location: index,
        pips,
        wisdom,
        fish,
    })
}

fn decide_place(
    state: &State,
    seat: Seat,
    group: u8,
    location: &str,
    value: Option<u8>,
    rng: &mut dyn RngCore,
) -> Decision {
    check_turn(state, seat)?;
    let placement = check_place(state, seat, group, location, value)?;
    let d = data();
    let index = placement.location;
    let spot = &d.locations[index];
    let dice = state.players[seat as usize].groups[group as usize].len();
    let mut cx = Ctx::new(state);
    cx.emit(Event::DicePlaced {
        seat,
        group,
        location: spot.key.clone(),
        pips: placement.pips.clone(),
        wisdom: placement.wisdom,
        fish: placement.fish,
    });
    let tile = state.tile(&spot.key);
    match spot.kind {
        LocationKind::FishMarket => visit_fish_market(&mut cx, seat, index, tile, rng),
        LocationKind::Academy if tile => visit_academy_tile(&mut cx, seat, index),
        LocationKind::Academy => visit_academy(&mut cx, seat, index),
        LocationKind::Resource => visit_resource_location(&mut cx, seat, index, dice),
        LocationKind::Monument => visit_monument(&mut cx, seat, index),
        LocationKind::Temple if tile => visit_temple_tile(&mut cx, seat, index, dice),
        LocationKind::Temple => visit_temple(&mut cx, seat, index, dice),
        LocationKind::Market if tile => visit_market_tile(&mut cx, seat, index, dice),
        LocationKind::Market => visit_market(&mut cx, seat, index, dice),
        LocationKind::Labyrinth => visit_labyrinth(&mut cx, seat),
        LocationKind::RiverMarket => visit_river_market(&mut cx, seat, index),
        LocationKind::Bridge => cross_bridge(
            &mut cx,
            seat,
            index,
            placement.pips.first().copied().unwrap_or(0),
        ),
        LocationKind::Scrolls => visit_scrolls(&mut cx, seat, dice),
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

fn visit_fish_market(cx: &mut Ctx, seat: Seat, index: usize, tile: bool, rng: &mut dyn RngCore) {
    let d = data();
    step_track(cx, seat, index);
    let draw = if tile {
        d.fish_market_tile.draw
    } else {
        d.fish_market.draw
    };
    ensure_deck(cx, draw, rng);
    let n = draw.min(cx.state().deck.len());
    if n > 0 {
        let cards = cx.state().deck[..n]
            .iter()
            .map(|t| held_token(seat, token_card(t)))
            .collect();
        cx.emit(Event::AdvisorsDrawn {
            seat,
            count: n as u8,
            cards: Some(cards),
        });
    }
}

fn visit_academy(cx: &mut Ctx, seat: Seat, index: usize) {
    step_track(cx, seat, index);
    let any = cx
        .state()
        .display
        .iter()
        .any(|c| can_hire(cx.state(), seat, c, HireSource::Academy));
    if any {
        cx.emit(Event::ChoiceOffered {
            seat,
            choice: Choice::Hire {
                source: HireSource::Academy,
            },
        });
    }
}

fn visit_resource_location(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
    let d = data();
    let spot = &d.locations[index];
    step_track(cx, seat, index);
    let resource = spot.resource.unwrap_or(Resource::Wood);
    gain_goods(
        cx,
        seat,
        Goods::resource(resource, spot.yield_for(dice)),
        Reason::ResourceLocation,
    );
    let cards = active_cards(cx.state(), seat, |e| {
        matches!(e, AdvisorEffect::ArtistResourceVisit { .. })
    });
    for (card, effect) in cards {
        if let AdvisorEffect::ArtistResourceVisit { resource } = effect {
            cx.emit(Event::AdvisorUsed {
                seat,
                card,
                target: None,
            });
            gain_goods(cx, seat, Goods::resource(resource, 1), Reason::Advisor);
        }
    }
}

fn visit_monument(cx: &mut Ctx, seat: Seat, index: usize) {
    let d = data();
    let spot = &d.locations[index];
    let already_owner = cx.state().monument_owners[index] == Some(seat);
    let paid = cx.state().rings[index];
    cx.emit(Event::MonumentTaken {
        seat,
        location: spot.key.clone(),
        paid,
    });
    let steps = if already_owner { 2 } else { 1 };
    gain_goods(
        cx,
        seat,
        Goods {
            palace: steps,
            ..Goods::default()
        },
        Reason::Monument,
    );
    if !cx.state().players[seat as usize].layers.contains(&spot.key) {
        take_layer(cx, seat, index);
    }
}

fn visit_temple(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
    let d = data();
    let spot = &d.locations[index];
    gain_goods(
        cx,
        seat,
        Goods {
            wisdom: spot.wisdom.unwrap_or(0),
            ..Goods::default()
        },
        Reason::Temple,
    );
    mark_space(cx, seat, index, dice);
}

fn visit_market(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
    let d = data();
    let spot = &d.locations[index];
    mark_space(cx, seat, index, dice);
    let available = available_market_items(cx.state()).len();
    let count = spot.items_for(dice).min(available);
    if count > 0 {
        cx.emit(Event::ChoiceOffered {
            seat,
            choice: Choice::Market { count: count as u8 },
        });
    }
}

fn cross_bridge(cx: &mut Ctx, seat: Seat, index: usize, moved: u8) {
    let d = data();
    let spot = &d.locations[index];
    let from = cx.state().players[seat as usize].tracks[index];
    let length = spot.track_length().unwrap_or(0);
    let to = (from + moved).min(length);
    cx.emit(Event::TrackAdvanced {
        seat,
        location: spot.key.clone(),
        to,
    });
    let bonuses: Vec<_> = d
        .bridge_bonuses(cx.state().privileges, cx.state().tile("bridge"))
        .filter(|b| b.space > from && b.space <= to)
        .cloned()
        .collect();
    for bonus in bonuses {
        gain_goods(cx, seat, bonus.gain, Reason::Bridge);
        match bonus.choice {
            Some(BonusChoice::Resource) => cx.emit(Event::ChoiceOffered {
                seat,
                choice: Choice::Resource,
            }),
            Some(BonusChoice::Advisor) if !cx.state().display.is_empty() => {
                cx.emit(Event::ChoiceOffered {
                    seat,
                    choice: Choice::Hire {
                        source: HireSource::Bridge,
                    },
                })
            }
            Some(BonusChoice::ResourceStep) if has_any_resource(cx.state(), seat) => {
                cx.emit(Event::ChoiceOffered {
                    seat,
                    choice: Choice::ResourceStep,
                })
            }
            _ => {}
        }
    }
    if to >= length {
        take_layer(cx, seat, index);
    }
}

fn visit_scrolls(cx: &mut Ctx, seat: Seat, dice: usize) {
    if dice >= 2 {
        cx.emit(Event::ChoiceOffered {
            seat,
            choice: Choice::Scrolls,
        });
    } else {
        gain_goods(cx, seat, scroll_goods(), Reason::Scrolls);
    }
}

fn scroll_goods() -> Goods {
    let s = &data().scrolls;
    Goods {
        fish: s.fish,
        wisdom: s.wisdom,
        ..Goods::default()
    }
}

/// One step on a location track; the last space brings the layer.
fn step_track(cx: &mut Ctx, seat: Seat, index: usize) {
    let d = data();
    let spot = &d.locations[index];
    let Some(length) = spot.track_length() else {
        return;
    };
    let at = cx.state().players[seat as usize].tracks[index];
    if at >= length {
        return;
    }
    cx.emit(Event::TrackAdvanced {
        seat,
        location: spot.key.clone(),
        to: at + 1,
    });
    if at + 1 >= length {
        take_layer(cx, seat, index);
    }
}

fn take_layer(cx: &mut Ctx, seat: Seat, index: usize) {
    let d = data();
    let spot = &d.locations[index];
    if !spot.layer {
        // the river market's last field: the decoration only
        take_decoration(cx, seat, &spot.key);
        return;
    }
    if cx.state().players[seat as usize].layers.contains(&spot.key) {
        return;
    }
    cx.emit(Event::LayerTaken {
        seat,
        layer: spot.key.clone(),
    });
    if spot.kind != LocationKind::Monument {
        take_decoration(cx, seat, &spot.key);
    }
    if cx.state().compositions {
        claim_compositions(cx, seat);
    }
}

fn take_decoration(cx: &mut Ctx, seat: Seat, key: &str) {
    if cx.state().decorations.iter().any(|k| k == key) {
        cx.emit(Event::DecorationTaken {
            seat,
            location: key.to_string(),
        });
    }
}

/// Compositions: "Der erste Spieler, der alle Bildebenen der auf der Karte gezeigten 3 Orte
/// besitzt, erhält die unten gezeigte Belohnung. Die Karte geht aus dem Spiel."
fn claim_compositions(cx: &mut Ctx, seat: Seat) {
    let d = data();
    for card in cx.state().composition_cards.clone() {
        let Some(info) = d.composition(&card) else {
            continue;
        };
        let layers = &cx.state().players[seat as usize].layers;
        if info.layers.iter().all(|l| layers.contains(l)) {
            cx.emit(Event::CompositionClaimed {
                seat,
                card: card.clone(),
            });
            gain_goods(cx, seat, info.gain, Reason::Composition);
        }
    }
}

fn mark_space(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
    let d = data();
    let spot = &d.locations[index];
    let Some(space) = spot.space_for(dice) else {
        return;
    };
    if cx.state().players[seat as usize].marks.contains(&space.id) {
        return;
    }
    cx.emit(Event::SpaceMarked {
        seat,
        space: space.id.clone(),
    });
    let marks_here = spot
        .spaces
        .iter()
        .filter(|s| cx.state().players[seat as usize].marks.contains(&s.id))
        .count();
    if marks_here >= spot.layer_at_marks.unwrap_or(2) {
        take_layer(cx, seat, index);
    }
}

pub fn available_market_items(state: &State) -> Vec<MarketItem> {
    let d = data();
    MarketItem::ALL
        .into_iter()
        .filter(|item| d.market_items(state.privileges).any(|m| m.id == item.id()))
        .filter(|item| *item != MarketItem::Privilege || state.privilege_supply > 0)
        .collect()
}

fn market_goods(item: MarketItem) -> Goods {
    data()
        .market_items
        .iter()
        .find(|m| m.id == item.id())
        .map(|m| m.gain)
        .unwrap_or_default()
}

/// What hiring `card` costs from `source` (cost plus the fish / wisdom sign).
pub fn hire_cost(card: &str, source: HireSource) -> Option<(Goods, Goods)> {
    let d = data();
    let card = d.card(card)?;
    let mut pay = card.cost;
    let mut gain = Goods::default();
    match source {
        HireSource::Bridge | HireSource::PalaceMarket => return Some((Goods::default(), gain)),
        HireSource::AcademyTile => {}
        HireSource::FishMarket => match card.hire {
            HireSign::Gain => gain.fish = d.fish_market.hire_fish,
            HireSign::Pay => pay.fish += d.fish_market.hire_fish,
        },
        HireSource::Academy => match card.hire {
            HireSign::Gain => gain.wisdom = d.academy.hire_wisdom,
            HireSign::Pay => pay.wisdom += d.academy.hire_wisdom,
        },
    }
    Some((pay, gain))
}

pub fn can_hire(state: &State, seat: Seat, card: &str, source: HireSource) -> bool {
    match hire_cost(card, source) {
        Some((pay, _)) => state.players[seat as usize].stock.covers(&pay),
        None => false,
    }
}

/// Hire a card (already taken out of the fish market draw or lying in the display).
fn hire(cx: &mut Ctx, seat: Seat, card: &str, source: HireSource) {
    let Some((pay, gain)) = hire_cost(card, source) else {
        return;
    };
    let delta = gain.plus(&pay.negated());
    if !delta.is_empty() {
        cx.emit(Event::GoodsChanged {
            seat,
            delta,
            reason: Reason::Hire,
        });
    }
    cx.emit(Event::AdvisorHired {
        seat,
        card: card.to_string(),
        from: source,
    });
    let d = data();
    if let Some(AdvisorEffect::Patron { gain, track_steps }) = d.card(card).map(|c| &c.effect) {
        gain_goods(cx, seat, *gain, Reason::Advisor);
        for key in track_steps {
            if let Some(index) = d.location_index(key) {
                step_track(cx, seat, index);
            }
        }
    }
}

fn front_pending(state: &State, seat: Seat) -> Result<&Pending, RuleError> {
    if state.phase != Phase::Placement {
        return Err(err(SharedRule::WrongPhase, "choices come up while placing"));
    }
    match state.pending.first() {
        Some(p) if p.seat() == seat => Ok(p),
        Some(_) => Err(err(SharedRule::NotYourTurn, "another seat is choosing now")),
        None => Err(err(
            EternalPalaceRule::NoChoicePending,
            "there is nothing to choose now",
        )),
    }
}

/// What `resolve_fish_market` names.
pub struct FishMarketChoice<'a> {
    pub returned: Option<&'a str>,
    pub discarded: Option<&'a str>,
    pub kept: Option<&'a str>,
    pub hire: bool,
}

fn decide_fish_market(
    state: &State,
    seat: Seat,
    choice: FishMarketChoice,
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::FishMarket { cards, .. } = front_pending(state, seat)? else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the fish market",
        ));
    };
    if state.tile("1") {
        return decide_fish_market_tile(state, seat, cards, choice, rng);
    }
    let FishMarketChoice {
        returned,
        discarded,
        kept,
        hire: hire_it,
    } = choice;
    if kept.is_some() {
        return Err(err(
            EternalPalaceRule::InvalidFishMarketChoice,
            "name the kept card only at the Fish Market tile",
        ));
    }
    let ids: Vec<&str> = cards.iter().map(|t| token_card(t)).collect();
    let need_return = ids.len() >= 2;
    let need_discard = ids.len() >= 3;
    if returned.is_some() != need_return || discarded.is_some() != need_discard {
        return Err(err(
            EternalPalaceRule::InvalidFishMarketChoice,
            "with 3 cards name one to return and one to discard, with 2 only one to return, with 1 neither",
        ));
    }
    let mut rest: Vec<&str> = ids.clone();
    for chosen in [returned, discarded].into_iter().flatten() {
        let Some(pos) = rest.iter().position(|c| *c == chosen) else {
            return Err(err(
                EternalPalaceRule::NotDrawn,
                "name two different cards among the ones you drew",
            ));
        };
        rest.remove(pos);
    }
    let Some(kept) = rest.first().map(|c| c.to_string()) else {
        return Err(err(EternalPalaceRule::NotDrawn, "no card left to hire"));
    };
    if hire_it && !can_hire(state, seat, &kept, HireSource::FishMarket) {
        return Err(err(
            SharedRule::CannotAfford,
            "you cannot pay for the remaining card",
        ));
    }
    let mut discards: Vec<String> = discarded.map(str::to_string).into_iter().collect();
    if !hire_it {
        discards.push(kept.clone());
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::FishMarketResolved {
        seat,
        returned: returned.map(|c| known_token(seat, c)),
        discarded: discards,
        hired: hire_it.then(|| kept.clone()),
    });
    if hire_it {
        hire(&mut cx, seat, &kept, HireSource::FishMarket);
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

fn decide_hire(state: &State, seat: Seat, card: Option<&str>, rng: &mut dyn RngCore) -> Decision {
    let source = match front_pending(state, seat)? {
        Pending::Offered {
            choice: Choice::Hire { source },
            ..
        } => *source,
        Pending::Offered {
            choice: Choice::AcademyTile { .. },
            ..
        } => {
            if card.is_none() {
                return Err(err(
                    EternalPalaceRule::NothingChosen,
                    "at the Academy tile take the reserve or name an advisor to hire",
                ));
            }
            HireSource::AcademyTile
        }
        _ => {
            return Err(err(
                EternalPalaceRule::WrongChoice,
                "the pending choice is not hiring",
            ))
        }
    };
    if let Some(card) = card {
        if !state.display.iter().any(|c| c == card) {
            return Err(err(
                EternalPalaceRule::NotInDisplay,
                "that advisor is not on display",
            ));
        }
        if !can_hire(state, seat, card, source) {
            return Err(err(
                SharedRule::CannotAfford,
                "you cannot pay for that advisor",
            ));
        }
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceMade {
        seat,
        card: card.map(str::to_string),
        resource: None,
        items: Vec::new(),
    });
    if let Some(card) = card {
        hire(&mut cx, seat, card, source);
    }
    if source == HireSource::AcademyTile {
        // "lege ferner 1 Weisheit aus dem Vorrat in die Reserve"
        let wisdom = cx.state().academy_reserve + data().academy_tile.reserve_per_hire;
        cx.emit(Event::AcademyReserveSet { wisdom });
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

fn decide_take_resource(
    state: &State,
    seat: Seat,
    resource: Resource,
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::Offered {
        choice: Choice::Resource,
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not a resource",
        ));
    };
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceMade {
        seat,
        card: None,
        resource: Some(resource),
        items: Vec::new(),
    });
    gain_goods(&mut cx, seat, Goods::resource(resource, 1), Reason::Bridge);
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

fn decide_market(
    state: &State,
    seat: Seat,
    items: &[MarketItem],
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::Offered {
        choice: Choice::Market { count },
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the market",
        ));
    };
    if items.len() != *count as usize {
        return Err(err(
            EternalPalaceRule::WrongItemCount,
            format!("take exactly {count} different items"),
        ));
    }
    let available = available_market_items(state);
    for (i, item) in items.iter().enumerate() {
        if items[..i].contains(item) {
            return Err(err(
                EternalPalaceRule::DuplicateItem,
                "the items must all differ",
            ));
        }
        if !available.contains(item) {
            return Err(err(
                EternalPalaceRule::ItemUnavailable,
                "that item is not on offer",
            ));
        }
    }
    let mut sorted = items.to_vec();
    sorted.sort_unstable();
    let total = sorted
        .iter()
        .fold(Goods::default(), |acc, i| acc.plus(&market_goods(*i)));
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceMade {
        seat,
        card: None,
        resource: None,
        items: sorted,
    });
    gain_goods(&mut cx, seat, total, Reason::Market);
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

fn decide_scrolls(
    state: &State,
    seat: Seat,
    goods: bool,
    resource: Option<Resource>,
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::Offered {
        choice: Choice::Scrolls,
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the scrolls",
        ));
    };
    if !goods && resource.is_none() {
        return Err(err(
            EternalPalaceRule::NothingChosen,
            "take the fish and wisdom, a resource, or both",
        ));
    }
    let mut gain = Goods::default();
    if goods {
        gain = scroll_goods();
    }
    if let Some(r) = resource {
        *gain.resource_mut(r) += data().scrolls.resource_from_two_dice;
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceMade {
        seat,
        card: None,
        resource,
        items: Vec::new(),
    });
    gain_goods(&mut cx, seat, gain, Reason::Scrolls);
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

fn decide_use_advisor(state: &State, seat: Seat, card: &str, target: Option<Seat>) -> Decision {
    check_turn(state, seat)?;
    let p = &state.players[seat as usize];
    let Some(owned) = p.advisors.iter().find(|a| a.card == card) else {
        return Err(err(
            EternalPalaceRule::NotYourAdvisor,
            "you have no such advisor",
        ));
    };
    if owned.used {
        return Err(err(
            EternalPalaceRule::AdvisorUsed,
            "that advisor was already used this round",
        ));
    }
    let Some(info) = data().card(card) else {
        return Err(err(
            EternalPalaceRule::NotYourAdvisor,
            "you have no such advisor",
        ));
    };
    let (give, get, diplomat) = match &info.effect {
        AdvisorEffect::Trader { give, get } => (*give, *get, false),
        AdvisorEffect::Diplomat { give, get } => (*give, *get, true),
        _ => {
            return Err(err(
                EternalPalaceRule::NotUsable,
                "only traders and diplomats are used by hand",
            ))
        }
    };
    match (diplomat, target) {
        (false, Some(_)) => {
            return Err(err(
                EternalPalaceRule::UnexpectedTarget,
                "a trader gives to the supply",
            ));
        }
        (true, None) => {
            return Err(err(
                EternalPalaceRule::TargetRequired,
                "name the seat that receives",
            ));
        }
        (true, Some(t)) if t == seat || t >= state.seats => {
            return Err(err(
                SharedRule::NoSuchSeat,
                "name another seat at this table",
            ));
        }
        _ => {}
    }
    if !p.stock.covers(&give) {
        return Err(err(
            SharedRule::CannotAfford,
            "you cannot give what the card asks",
        ));
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::AdvisorUsed {
        seat,
        card: card.to_string(),
        target,
    });
    pay_goods(&mut cx, seat, give, Reason::Advisor);
    if let Some(t) = target {
        if !give.is_empty() {
            cx.emit(Event::GoodsChanged {
                seat: t,
                delta: give,
                reason: Reason::Diplomacy,
            });
        }
    }
    gain_goods(&mut cx, seat, get, Reason::Advisor);
    Ok(cx.into_events())
}

// ---------------------------------------------------------------- modules and tiles

fn has_any_resource(state: &State, seat: Seat) -> bool {
    let step = data().market_tile.step_cost;
    state
        .player(seat)
        .is_some_and(|p| Resource::ALL.iter().any(|r| p.stock.get(*r) >= step))
}

/// The resource location (4, 6, 9, 11) of `resource`.
fn resource_location(resource: Resource) -> Option<usize> {
    data()
        .locations
        .iter()
        .position(|l| l.kind == LocationKind::Resource && l.resource == Some(resource))
}

/// Pays the step cost in `resource` and steps once on that resource's location track.
fn step_for_resource(cx: &mut Ctx, seat: Seat, resource: Resource, reason: Reason) {
    let cost = data().market_tile.step_cost;
    pay_goods(cx, seat, Goods::resource(resource, cost), reason);
    if let Some(index) = resource_location(resource) {
        step_track(cx, seat, index);
    }
}

/// Labyrinth: the stations the arrows from the seat's station lead to, whose fish the seat
/// can pay now.
pub fn affordable_paths(state: &State, seat: Seat) -> Vec<String> {
    let Some(p) = state.player(seat) else {
        return Vec::new();
    };
    data()
        .arrows_from(&p.station)
        .filter(|a| a.fish <= p.stock.fish)
        .map(|a| a.to.clone())
        .collect()
}

/// "Das Labyrinth kann mit einem einzelnen Würfel besucht werden. Der Marker zieht einem
/// roten Pfeil folgend zur nächsten Station."
fn visit_labyrinth(cx: &mut Ctx, seat: Seat) {
    let paths = affordable_paths(cx.state(), seat);
    match paths.as_slice() {
        [] => {}
        [only] => {
            let only = only.clone();
            move_in_labyrinth(cx, seat, &only);
        }
        _ => cx.emit(Event::ChoiceOffered {
            seat,
            choice: Choice::Path { stations: paths },
        }),
    }
}

/// "Zahle die auf dem Weg gezeigten Fische und erhalte das auf der Station gezeigte Gut."
fn move_in_labyrinth(cx: &mut Ctx, seat: Seat, to: &str) {
    let d = data();
    let from = cx.state().players[seat as usize].station.clone();
    let Some(arrow) = d.arrows_from(&from).find(|a| a.to == to) else {
        return;
    };
    pay_goods(
        cx,
        seat,
        Goods {
            fish: arrow.fish,
            ..Goods::default()
        },
        Reason::Labyrinth,
    );
    cx.emit(Event::LabyrinthMoved {
        seat,
        to: to.to_string(),
    });
    if let Some(station) = d.station(to) {
        gain_goods(cx, seat, station.gain, Reason::Labyrinth);
        if station.middle {
            take_decoration(cx, seat, &d.locations[super::data::LABYRINTH].key);
        }
    }
}

fn decide_follow_path(state: &State, seat: Seat, station: &str, rng: &mut dyn RngCore) -> Decision {
    let Pending::Offered {
        choice: Choice::Path { stations },
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the labyrinth",
        ));
    };
    if !stations.iter().any(|s| s == station) {
        return Err(err(
            EternalPalaceRule::NoSuchPath,
            "no red arrow you can pay for leads from your station there",
        ));
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceAnswered {
        seat,
        answer: Answer::Path {
            station: station.to_string(),
        },
    });
    move_in_labyrinth(&mut cx, seat, station);
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

/// River market: every (free field, resource) the seat can give now.
pub fn fulfillable_fields(state: &State, seat: Seat) -> Vec<(u8, Resource)> {
    let Some(p) = state.player(seat) else {
        return Vec::new();
    };
    if state.demand_card.is_none() {
        return Vec::new();
    }
    let fields = &data().river_market.fields;
    let mut out = Vec::new();
    for (i, taken) in state.demand_fields.iter().enumerate() {
        if taken.is_some() {
            continue;
        }
        for r in fields.get(i).into_iter().flatten() {
            if p.stock.get(*r) >= 1 {
                out.push((i as u8, *r));
            }
        }
    }
    out
}

fn visit_river_market(cx: &mut Ctx, seat: Seat, index: usize) {
    step_track(cx, seat, index);
    cx.emit(Event::ChoiceOffered {
        seat,
        choice: Choice::Demand,
    });
}

/// "Erfülle die Nachfrage eines noch freien Feldes (gib das Gezeigte ab) und lege einen
/// Marker auf das Feld."
fn decide_fulfil_demand(
    state: &State,
    seat: Seat,
    field: u8,
    resource: Resource,
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::Offered {
        choice: Choice::Demand,
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the river market",
        ));
    };
    let Some(taken) = state.demand_fields.get(field as usize) else {
        return Err(err(
            EternalPalaceRule::NoSuchField,
            format!(
                "the demand fields in play are 0 to {}",
                state.demand_fields.len().saturating_sub(1)
            ),
        ));
    };
    if taken.is_some() {
        return Err(err(
            EternalPalaceRule::FieldTaken,
            "a marker already lies on that field",
        ));
    }
    let accepted = &data().river_market.fields[field as usize];
    if !accepted.contains(&resource) {
        return Err(err(
            EternalPalaceRule::DemandNotMet,
            format!(
                "that field asks for {}",
                accepted
                    .iter()
                    .map(|r| r.name())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        ));
    }
    if state.players[seat as usize].stock.get(resource) < 1 {
        return Err(err(
            SharedRule::CannotAfford,
            format!("you have no {}", resource.name()),
        ));
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceAnswered {
        seat,
        answer: Answer::Demand { field, resource },
    });
    pay_goods(
        &mut cx,
        seat,
        Goods::resource(resource, 1),
        Reason::RiverMarket,
    );
    cx.emit(Event::DemandFulfilled { seat, field });
    if cx.state().demand_fields.iter().all(Option::is_some) {
        settle_demand(&mut cx, rng);
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

/// "Sind alle verfügbaren Nachfragefelder belegt, erhalte für jeden Deiner Marker die
/// gezeigte Belohnung. Jeder Spieler ohne Marker auf der Karte muss die gezeigte Strafe
/// hinnehmen, also soweit möglich Dinge abgeben oder gar im Palast rückwärts ziehen. Danach
/// gehen die Marker an die Spieler zurück und eine neue Karte wird aufgedeckt."
fn settle_demand(cx: &mut Ctx, rng: &mut dyn RngCore) {
    let Some(card) = cx.state().demand_card.clone() else {
        return;
    };
    let Some(info) = data().demand(&card) else {
        return;
    };
    let owners: Vec<Seat> = cx.state().demand_fields.iter().flatten().copied().collect();
    for seat in &owners {
        gain_goods(cx, *seat, info.reward, Reason::DemandReward);
    }
    for seat in (0..cx.state().seats).filter(|s| !owners.contains(s)) {
        let p = &cx.state().players[seat as usize];
        let s = p.stock;
        let pen = info.penalty;
        let loss = Goods {
            fish: pen.fish.min(s.fish),
            wisdom: pen.wisdom.min(s.wisdom),
            wood: pen.wood.min(s.wood),
            stone: pen.stone.min(s.stone),
            kaolin: pen.kaolin.min(s.kaolin),
            bronze: pen.bronze.min(s.bronze),
            palace: pen.palace.min(i32::from(p.palace)),
            privilege: pen.privilege.min(s.privilege),
        };
        pay_goods(cx, seat, loss, Reason::DemandPenalty);
    }
    cx.emit(Event::DemandSettled { card });
    reveal_demand(cx, rng);
}

fn decide_draw_advisors(state: &State, seat: Seat, fish: u8, rng: &mut dyn RngCore) -> Decision {
    let Pending::FishMarket { draw_more, .. } = front_pending(state, seat)? else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the fish market",
        ));
    };
    if !*draw_more {
        return Err(err(
            EternalPalaceRule::InvalidDraw,
            "more cards are drawn only at the Fish Market tile, once, before deciding",
        ));
    }
    let available = state.deck.len() + state.discard.len();
    if fish == 0 || usize::from(fish) > available {
        return Err(err(
            EternalPalaceRule::InvalidDraw,
            format!("pay 1 to {available} fish (one per card left to draw)"),
        ));
    }
    if i32::from(fish) > state.players[seat as usize].stock.fish {
        return Err(err(
            EternalPalaceRule::NotEnoughFish,
            format!("that needs {fish} fish"),
        ));
    }
    let mut cx = Ctx::new(state);
    pay_goods(
        &mut cx,
        seat,
        Goods {
            fish: i32::from(fish),
            ..Goods::default()
        },
        Reason::FishMarket,
    );
    ensure_deck(&mut cx, usize::from(fish), rng);
    let n = usize::from(fish).min(cx.state().deck.len());
    let cards = cx.state().deck[..n]
        .iter()
        .map(|t| held_token(seat, token_card(t)))
        .collect();
    cx.emit(Event::ExtraAdvisorsDrawn {
        seat,
        count: n as u8,
        cards: Some(cards),
    });
    Ok(cx.into_events())
}

/// Fish Market tile: "Entscheide: 1 behalten, 1 oben verdeckt auf den Stapel zurück und
/// Rest abwerfen." With 1 card it is kept; with 2 one is returned and the other kept; with
/// 3 or more `returned` and `kept` are named and the rest is discarded.
fn decide_fish_market_tile(
    state: &State,
    seat: Seat,
    cards: &[String],
    choice: FishMarketChoice,
    rng: &mut dyn RngCore,
) -> Decision {
    let ids: Vec<&str> = cards.iter().map(|t| token_card(t)).collect();
    let need_return = ids.len() >= 2;
    let need_kept = ids.len() >= 3;
    if choice.returned.is_some() != need_return
        || choice.kept.is_some() != need_kept
        || choice.discarded.is_some()
    {
        return Err(err(
            EternalPalaceRule::InvalidFishMarketChoice,
            "at the Fish Market tile name the returned card with 2 or more cards and the kept \
             one with 3 or more; the rest is discarded",
        ));
    }
    let mut rest: Vec<&str> = ids.clone();
    for chosen in [choice.returned, choice.kept].into_iter().flatten() {
        let Some(pos) = rest.iter().position(|c| *c == chosen) else {
            return Err(err(
                EternalPalaceRule::NotDrawn,
                "name different cards among the ones you drew",
            ));
        };
        rest.remove(pos);
    }
    let kept = match choice.kept {
        Some(k) => k.to_string(),
        None => match rest.pop() {
            Some(k) => k.to_string(),
            None => return Err(err(EternalPalaceRule::NotDrawn, "no card left to hire")),
        },
    };
    if choice.hire && !can_hire(state, seat, &kept, HireSource::FishMarket) {
        return Err(err(
            SharedRule::CannotAfford,
            "you cannot pay for the kept card",
        ));
    }
    let mut discards: Vec<String> = rest.iter().map(|c| c.to_string()).collect();
    if !choice.hire {
        discards.push(kept.clone());
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::FishMarketResolved {
        seat,
        returned: choice.returned.map(|c| known_token(seat, c)),
        discarded: discards,
        hired: choice.hire.then(|| kept.clone()),
    });
    if choice.hire {
        hire(&mut cx, seat, &kept, HireSource::FishMarket);
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

/// Academy tile: "Nimm alle in der Reserve der Akademie gesammelte Weisheit oder stelle 1
/// offenliegenden Berater ein und bezahle seine Kosten, lege ferner 1 Weisheit aus dem
/// Vorrat in die Reserve."
fn visit_academy_tile(cx: &mut Ctx, seat: Seat, index: usize) {
    step_track(cx, seat, index);
    let reserve = cx.state().academy_reserve;
    cx.emit(Event::ChoiceOffered {
        seat,
        choice: Choice::AcademyTile { reserve },
    });
}

fn decide_take_reserve(state: &State, seat: Seat, rng: &mut dyn RngCore) -> Decision {
    let Pending::Offered {
        choice: Choice::AcademyTile { .. },
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the Academy tile",
        ));
    };
    let wisdom = state.academy_reserve;
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceAnswered {
        seat,
        answer: Answer::Reserve { wisdom },
    });
    if wisdom > 0 {
        gain_goods(
            &mut cx,
            seat,
            Goods {
                wisdom,
                ..Goods::default()
            },
            Reason::Academy,
        );
        cx.emit(Event::AcademyReserveSet { wisdom: 0 });
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

/// Temple tile: the space is marked as on the printed temple (for the layer), then the seat
/// chooses what to buy.
fn visit_temple_tile(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
    mark_space(cx, seat, index, dice);
    cx.emit(Event::ChoiceOffered {
        seat,
        choice: Choice::TempleTile,
    });
}

fn decide_buy_wisdom(
    state: &State,
    seat: Seat,
    paid: &[Resource],
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::Offered {
        choice: Choice::TempleTile,
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the Temple tile",
        ));
    };
    let Some(offer) = data()
        .temple_tile
        .offers
        .iter()
        .find(|o| o.resources == paid.len())
    else {
        return Err(err(
            EternalPalaceRule::NoSuchOffer,
            "pay no resource, one or two",
        ));
    };
    let cost = paid
        .iter()
        .fold(Goods::default(), |acc, r| acc.plus(&Goods::resource(*r, 1)));
    if !state.players[seat as usize].stock.covers(&cost) {
        return Err(err(
            SharedRule::CannotAfford,
            "you do not have those resources",
        ));
    }
    let mut sorted = paid.to_vec();
    sorted.sort_unstable();
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceAnswered {
        seat,
        answer: Answer::Temple { paid: sorted },
    });
    let delta = Goods {
        wisdom: offer.wisdom,
        ..Goods::default()
    }
    .plus(&cost.negated());
    cx.emit(Event::GoodsChanged {
        seat,
        delta,
        reason: Reason::Temple,
    });
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

/// What `choose_market_tile` names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarketTileChoice {
    pub step: Option<Resource>,
    pub palace: bool,
    pub bundle: Option<Resource>,
    pub advisor: Option<String>,
    pub privilege: bool,
}

impl MarketTileChoice {
    pub fn count(&self) -> usize {
        usize::from(self.step.is_some())
            + usize::from(self.palace)
            + usize::from(self.bundle.is_some())
            + usize::from(self.advisor.is_some())
            + usize::from(self.privilege)
    }
}

/// Palace Market tile: which kinds of items the seat can take now: (step, advisor,
/// privilege); the palace step and the bundle are always on offer.
pub fn market_tile_kinds(state: &State, seat: Seat) -> (bool, bool, bool) {
    (
        has_any_resource(state, seat),
        !state.display.is_empty(),
        state.privileges && state.privilege_supply > 0,
    )
}

fn visit_market_tile(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
    mark_space(cx, seat, index, dice);
    let (step, advisor, privilege) = market_tile_kinds(cx.state(), seat);
    let available = 2 + usize::from(step) + usize::from(advisor) + usize::from(privilege);
    let count = data().market_tile.items_for(dice).min(available);
    if count > 0 {
        cx.emit(Event::ChoiceOffered {
            seat,
            choice: Choice::MarketTile { count: count as u8 },
        });
    }
}

fn decide_market_tile(
    state: &State,
    seat: Seat,
    choice: MarketTileChoice,
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::Offered {
        choice: Choice::MarketTile { count },
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the Palace Market tile",
        ));
    };
    if choice.count() != usize::from(*count) {
        return Err(err(
            EternalPalaceRule::WrongItemCount,
            format!("take exactly {count} different items"),
        ));
    }
    let d = data();
    let stock = state.players[seat as usize].stock;
    if let Some(r) = choice.step {
        if stock.get(r) < d.market_tile.step_cost {
            return Err(err(
                SharedRule::CannotAfford,
                format!("you have no {} to pay for the step", r.name()),
            ));
        }
    }
    if let Some(card) = &choice.advisor {
        if !state.display.contains(card) {
            return Err(err(
                EternalPalaceRule::NotInDisplay,
                "that advisor is not on display",
            ));
        }
    }
    if choice.privilege && !(state.privileges && state.privilege_supply > 0) {
        return Err(err(
            EternalPalaceRule::ItemUnavailable,
            "no privilege token is on offer",
        ));
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceAnswered {
        seat,
        answer: Answer::MarketTile {
            step: choice.step,
            palace: choice.palace,
            bundle: choice.bundle,
            advisor: choice.advisor.clone(),
            privilege: choice.privilege,
        },
    });
    if let Some(r) = choice.step {
        step_for_resource(&mut cx, seat, r, Reason::Market);
    }
    let mut gain = Goods::default();
    if choice.palace {
        gain = gain.plus(&d.market_tile.palace);
    }
    if let Some(r) = choice.bundle {
        gain = gain
            .plus(&d.market_tile.bundle)
            .plus(&Goods::resource(r, d.market_tile.bundle_resources));
    }
    if choice.privilege {
        gain.privilege += 1;
    }
    gain_goods(&mut cx, seat, gain, Reason::Market);
    if let Some(card) = &choice.advisor {
        hire(&mut cx, seat, card, HireSource::PalaceMarket);
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

fn decide_resource_step(
    state: &State,
    seat: Seat,
    resource: Option<Resource>,
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::Offered {
        choice: Choice::ResourceStep,
        ..
    } = front_pending(state, seat)?
    else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not a step for a resource",
        ));
    };
    if let Some(r) = resource {
        if state.players[seat as usize].stock.get(r) < data().market_tile.step_cost {
            return Err(err(
                SharedRule::CannotAfford,
                format!("you have no {} to pay for the step", r.name()),
            ));
        }
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::ChoiceAnswered {
        seat,
        answer: Answer::ResourceStep { resource },
    });
    if let Some(r) = resource {
        step_for_resource(&mut cx, seat, r, Reason::Bridge);
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}
