//! `legal_actions` and `to_act`: exactly what `decide` accepts, listed.

use super::action::{Action, MarketItem};
use super::data::{data, AdvisorEffect, LocationKind, Resource};
use super::event::{Choice, HireSource};
use super::rules::{
    affordable_paths, available_market_items, can_hire, check_place, fulfillable_fields,
    market_tile_kinds, partitions,
};
use super::state::{token_card, Pending, Phase, State};
use crate::engine::Seat;

pub fn legal_actions(state: &State, seat: Seat) -> Vec<Action> {
    if seat >= state.seats {
        return Vec::new();
    }
    match state.phase {
        Phase::Grouping => {
            if state.sealed[seat as usize].is_some() {
                return Vec::new();
            }
            partitions(&state.players[seat as usize].rolled)
                .into_iter()
                .map(|groups| Action::GroupDice { groups })
                .collect()
        }
        Phase::Privileges => {
            if state.privilege_queue.first() != Some(&seat) {
                return Vec::new();
            }
            vec![
                Action::ChoosePrivilege { play: true },
                Action::ChoosePrivilege { play: false },
            ]
        }
        Phase::Placement => legal_placement(state, seat),
        Phase::Setup | Phase::Finished => Vec::new(),
    }
}

fn legal_placement(state: &State, seat: Seat) -> Vec<Action> {
    if let Some(pending) = state.pending.first() {
        return match pending {
            _ if pending.seat() != seat => Vec::new(),
            Pending::FishMarket {
                cards, draw_more, ..
            } if state.tile("1") => fish_market_tile_answers(state, seat, cards, *draw_more),
            Pending::FishMarket { cards, .. } => fish_market_answers(state, seat, cards),
            Pending::Offered { choice, .. } => choice_answers(state, seat, choice),
        };
    }
    if state.placer != Some(seat) {
        return Vec::new();
    }
    let mut out = placements(state, seat);
    out.extend(advisor_uses(state, seat));
    out
}

/// Every way to return, discard and keep the cards drawn at the fish market.
fn fish_market_answers(state: &State, seat: Seat, cards: &[String]) -> Vec<Action> {
    let ids: Vec<&str> = cards.iter().map(|t| token_card(t)).collect();
    let mut options: Vec<(Option<&str>, Option<&str>, &str)> = Vec::new();
    match ids.len() {
        1 => options.push((None, None, ids[0])),
        2 => {
            options.push((Some(ids[0]), None, ids[1]));
            options.push((Some(ids[1]), None, ids[0]));
        }
        _ => {
            for r in 0..ids.len() {
                for x in (0..ids.len()).filter(|x| *x != r) {
                    if let Some(k) = (0..ids.len()).find(|k| *k != r && *k != x) {
                        options.push((Some(ids[r]), Some(ids[x]), ids[k]));
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for (returned, discarded, kept) in options {
        for hire in [true, false] {
            if hire && !can_hire(state, seat, kept, HireSource::FishMarket) {
                continue;
            }
            out.push(Action::ResolveFishMarket {
                returned: returned.map(str::to_string),
                discarded: discarded.map(str::to_string),
                kept: None,
                hire,
            });
        }
    }
    out
}

/// Fish Market tile: drawing more (once) and every way to return one card, keep one and
/// discard the rest.
fn fish_market_tile_answers(
    state: &State,
    seat: Seat,
    cards: &[String],
    draw_more: bool,
) -> Vec<Action> {
    let mut out = Vec::new();
    if draw_more {
        let available = state.deck.len() + state.discard.len();
        let fish = state.players[seat as usize].stock.fish.max(0) as usize;
        for n in 1..=available.min(fish).min(u8::MAX as usize) {
            out.push(Action::DrawAdvisors { fish: n as u8 });
        }
    }
    let ids: Vec<&str> = cards.iter().map(|t| token_card(t)).collect();
    let mut options: Vec<(Option<&str>, Option<&str>, &str)> = Vec::new();
    match ids.len() {
        0 => {}
        1 => options.push((None, None, ids[0])),
        2 => {
            options.push((Some(ids[0]), None, ids[1]));
            options.push((Some(ids[1]), None, ids[0]));
        }
        _ => {
            for r in 0..ids.len() {
                for k in (0..ids.len()).filter(|k| *k != r) {
                    options.push((Some(ids[r]), Some(ids[k]), ids[k]));
                }
            }
        }
    }
    for (returned, kept, card) in options {
        for hire in [true, false] {
            if hire && !can_hire(state, seat, card, HireSource::FishMarket) {
                continue;
            }
            out.push(Action::ResolveFishMarket {
                returned: returned.map(str::to_string),
                discarded: None,
                kept: kept.map(str::to_string),
                hire,
            });
        }
    }
    out
}

/// Every answer to the choice a location offered.
fn choice_answers(state: &State, seat: Seat, choice: &Choice) -> Vec<Action> {
    let mut out = Vec::new();
    match choice {
        Choice::Hire { source } => {
            for card in &state.display {
                if can_hire(state, seat, card, *source) {
                    out.push(Action::HireAdvisor {
                        card: Some(card.clone()),
                    });
                }
            }
            // The Academy offers the choice only when an advisor is affordable.
            let compulsory = *source == HireSource::Academy && state.academy_hire_compulsory;
            if !compulsory {
                out.push(Action::HireAdvisor { card: None });
            }
        }
        Choice::Resource => {
            out.extend(Resource::ALL.map(|resource| Action::TakeResource { resource }));
        }
        Choice::Market { count } => {
            let items = available_market_items(state);
            for combo in combinations(&items, *count as usize) {
                out.push(Action::BuyAtMarket { items: combo });
            }
        }
        Choice::ArtistGroup { groups, .. } => {
            out.extend(
                groups
                    .iter()
                    .map(|group| Action::ChooseArtistGroup { group: *group }),
            );
        }
        Choice::Path { stations } => {
            let affordable = affordable_paths(state, seat);
            out.extend(
                stations
                    .iter()
                    .filter(|s| affordable.contains(s))
                    .map(|station| Action::FollowPath {
                        station: station.clone(),
                    }),
            );
        }
        Choice::Demand => {
            out.extend(
                fulfillable_fields(state, seat)
                    .into_iter()
                    .map(|(field, resource)| Action::FulfilDemand { field, resource }),
            );
        }
        Choice::AcademyTile { .. } => {
            out.push(Action::TakeReserve);
            for card in &state.display {
                if can_hire(state, seat, card, HireSource::AcademyTile) {
                    out.push(Action::HireAdvisor {
                        card: Some(card.clone()),
                    });
                }
            }
        }
        Choice::TempleTile => {
            let stock = state.players[seat as usize].stock;
            let offers = &data().temple_tile.offers;
            for offer in offers {
                for paid in resource_multisets(offer.resources) {
                    let mut cost = crate::eternal_palace::data::Goods::default();
                    for r in &paid {
                        *cost.resource_mut(*r) += 1;
                    }
                    if stock.covers(&cost) {
                        out.push(Action::BuyWisdom { paid });
                    }
                }
            }
        }
        Choice::MarketTile { count } => {
            out.extend(market_tile_answers(state, seat, *count as usize));
        }
        Choice::ResourceStep => {
            let stock = state.players[seat as usize].stock;
            let cost = data().market_tile.step_cost;
            for resource in Resource::ALL {
                if stock.get(resource) >= cost {
                    out.push(Action::StepForResource {
                        resource: Some(resource),
                    });
                }
            }
            out.push(Action::StepForResource { resource: None });
        }
        Choice::Scrolls => {
            out.push(Action::ReadScrolls {
                goods: true,
                resource: None,
            });
            for resource in Resource::ALL {
                for goods in [true, false] {
                    out.push(Action::ReadScrolls {
                        goods,
                        resource: Some(resource),
                    });
                }
            }
        }
    }
    out
}

/// Every group of `seat` on every location where it may go.
fn placements(state: &State, seat: Seat) -> Vec<Action> {
    let p = &state.players[seat as usize];
    let mut out = Vec::new();
    for g in (0..p.groups.len()).filter(|g| !p.placed[*g]) {
        for spot in &data().locations {
            let values: Vec<Option<u8>> = if spot.kind == LocationKind::Bridge {
                (1..=6).map(Some).collect()
            } else {
                vec![None]
            };
            for value in values {
                if check_place(state, seat, g as u8, &spot.key, value).is_ok() {
                    out.push(Action::PlaceDice {
                        group: g as u8,
                        location: spot.key.clone(),
                        value,
                    });
                }
            }
        }
    }
    out
}

/// Every use of an unused trader or diplomat that `seat` can pay for.
fn advisor_uses(state: &State, seat: Seat) -> Vec<Action> {
    let p = &state.players[seat as usize];
    let mut out = Vec::new();
    for owned in p.advisors.iter().filter(|owned| !owned.used) {
        let Some(info) = data().card(&owned.card) else {
            continue;
        };
        match &info.effect {
            AdvisorEffect::Trader { give, .. } if p.stock.covers(give) => {
                out.push(Action::UseAdvisor {
                    card: owned.card.clone(),
                    target: None,
                });
            }
            AdvisorEffect::Diplomat { give, .. } if p.stock.covers(give) => {
                for t in (0..state.seats).filter(|t| *t != seat) {
                    out.push(Action::UseAdvisor {
                        card: owned.card.clone(),
                        target: Some(t),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// Every sorted multiset of `k` resources.
fn resource_multisets(k: usize) -> Vec<Vec<Resource>> {
    let mut out = vec![Vec::new()];
    for _ in 0..k {
        let mut next = Vec::new();
        for set in &out {
            for r in Resource::ALL {
                if set.last().is_none_or(|last| *last <= r) {
                    let mut s = set.clone();
                    s.push(r);
                    next.push(s);
                }
            }
        }
        out = next;
    }
    out
}

/// Every answer to the Palace Market tile with exactly `count` different items.
fn market_tile_answers(state: &State, seat: Seat, count: usize) -> Vec<Action> {
    let (step_ok, advisor_ok, privilege_ok) = market_tile_kinds(state, seat);
    let stock = state.players[seat as usize].stock;
    let cost = data().market_tile.step_cost;
    let mut steps: Vec<Option<Resource>> = vec![None];
    if step_ok {
        steps.extend(
            Resource::ALL
                .into_iter()
                .filter(|r| stock.get(*r) >= cost)
                .map(Some),
        );
    }
    let bundles: Vec<Option<Resource>> = std::iter::once(None)
        .chain(Resource::ALL.into_iter().map(Some))
        .collect();
    let mut advisors: Vec<Option<String>> = vec![None];
    if advisor_ok {
        advisors.extend(state.display.iter().cloned().map(Some));
    }
    let privileges: Vec<bool> = if privilege_ok {
        vec![false, true]
    } else {
        vec![false]
    };
    let mut out = Vec::new();
    for step in &steps {
        for palace in [false, true] {
            for bundle in &bundles {
                for advisor in &advisors {
                    for privilege in &privileges {
                        let n = usize::from(step.is_some())
                            + usize::from(palace)
                            + usize::from(bundle.is_some())
                            + usize::from(advisor.is_some())
                            + usize::from(*privilege);
                        if n == count {
                            out.push(Action::ChooseMarketTile {
                                step: *step,
                                palace,
                                bundle: *bundle,
                                advisor: advisor.clone(),
                                privilege: *privilege,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

fn combinations(items: &[MarketItem], k: usize) -> Vec<Vec<MarketItem>> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    fn rec(
        items: &[MarketItem],
        k: usize,
        start: usize,
        current: &mut Vec<MarketItem>,
        out: &mut Vec<Vec<MarketItem>>,
    ) {
        if current.len() == k {
            out.push(current.clone());
            return;
        }
        for i in start..items.len() {
            current.push(items[i]);
            rec(items, k, i + 1, current, out);
            current.pop();
        }
    }
    rec(items, k, 0, &mut current, &mut out);
    out
}

/// Seats that must act now.
pub fn to_act(state: &State) -> Vec<Seat> {
    match state.phase {
        Phase::Grouping => (0..state.seats)
            .filter(|s| state.sealed[*s as usize].is_none())
            .collect(),
        Phase::Privileges => state.privilege_queue.first().copied().into_iter().collect(),
        Phase::Placement => match state.pending.first() {
            Some(p) => vec![p.seat()],
            None => state.placer.into_iter().collect(),
        },
        Phase::Setup | Phase::Finished => Vec::new(),
    }
}
