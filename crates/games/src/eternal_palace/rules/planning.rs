//! The planning phase of a round: every seat groups its dice in secret, the seats holding
//! privilege tokens decide in turn order whether to play one, then the groups are revealed
//! (and group artists pay or ask which group they reward).

use super::advisors::{active_cards, offer_artist_groups};
use super::decision::{err, gain_goods, Ctx, Decision};
use crate::engine::{Seat, SharedRule};
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, AdvisorEffect, Goods};
use crate::eternal_palace::event::{Event, Reason};
use crate::eternal_palace::state::{seal, unseal, Phase, State};

pub(super) fn decide_group(state: &State, seat: Seat, groups: &[Vec<u8>]) -> Decision {
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

pub(super) fn decide_privilege(state: &State, seat: Seat, play: bool) -> Decision {
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
