//! Advisors: the deck and the open display, hiring (what it costs from each source), the
//! traders and diplomats used by hand, and the group artists, whose owner may choose the group
//! they reward.

use rand::seq::SliceRandom;
use rand::RngCore;

use super::decision::{check_turn, err, front_pending, gain_goods, pay_goods, Ctx, Decision};
use super::layers::step_track;
use crate::engine::{Seat, SharedRule};
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, AdvisorEffect, Goods, HireSign, Resource};
use crate::eternal_palace::event::{Choice, Event, HireSource, Reason};
use crate::eternal_palace::state::{deck_token, token_card, Pending, State};

/// Makes sure the deck holds at least `needed` cards if the discard pile allows: the
/// discard pile is shuffled and put under the remaining deck.
pub(super) fn ensure_deck(cx: &mut Ctx, needed: usize, rng: &mut dyn RngCore) {
    if cx.state().deck.len() >= needed || cx.state().discard.is_empty() {
        return;
    }
    let mut fresh = cx.state().discard.clone();
    fresh.shuffle(rng);
    let mut deck = cx.state().deck.clone();
    deck.extend(fresh.iter().map(|c| deck_token(c)));
    cx.emit(Event::DeckReshuffled { deck: Some(deck) });
}

pub(crate) fn deal_display(cx: &mut Ctx, rng: &mut dyn RngCore) {
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

/// Unused advisors of `seat` whose effect matches.
pub(super) fn active_cards(
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
pub(super) fn offer_artist_groups(cx: &mut Ctx) {
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

pub(super) fn decide_artist_group(state: &State, seat: Seat, group: u8) -> Decision {
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
pub(super) fn hire(cx: &mut Ctx, seat: Seat, card: &str, source: HireSource) {
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

pub(super) fn decide_use_advisor(
    state: &State,
    seat: Seat,
    card: &str,
    target: Option<Seat>,
) -> Decision {
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
