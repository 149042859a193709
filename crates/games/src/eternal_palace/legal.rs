//! `legal_actions` and `to_act`: exactly what `decide` accepts, listed.

use super::action::{Action, MarketItem};
use super::data::{data, AdvisorEffect, LocationKind, Resource};
use super::event::{Choice, HireSource};
use super::rules::{available_market_items, can_hire, check_place, partitions};
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
            out.push(Action::HireAdvisor { card: None });
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
