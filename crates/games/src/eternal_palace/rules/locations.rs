//! The actions of the printed locations but the fish market, and the choices they open:
//! resource locations, monuments, temple, Palace Market, the Eternal Bridge and the Imperial
//! Scrolls, and hiring the advisor that the academy or the bridge offers.

use rand::RngCore;

use super::advisors::{active_cards, can_hire, hire};
use super::decision::{err, front_pending, gain_goods, Ctx, Decision};
use super::layers::{mark_space, step_track, take_layer};
use super::location_tiles::has_any_resource;
use super::round::finish_turn;
use crate::engine::{Seat, SharedRule};
use crate::eternal_palace::action::MarketItem;
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, AdvisorEffect, BonusChoice, Goods, Resource};
use crate::eternal_palace::event::{Choice, Event, HireSource, Reason};
use crate::eternal_palace::state::{Pending, State};

pub(super) fn visit_academy(cx: &mut Ctx, seat: Seat, index: usize) {
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

pub(super) fn visit_resource_location(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
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

pub(super) fn visit_monument(cx: &mut Ctx, seat: Seat, index: usize) {
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

pub(super) fn visit_temple(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
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

pub(super) fn visit_market(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
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

pub(super) fn cross_bridge(cx: &mut Ctx, seat: Seat, index: usize, moved: u8) {
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

pub(super) fn visit_scrolls(cx: &mut Ctx, seat: Seat, dice: usize) {
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

pub(super) fn decide_hire(
    state: &State,
    seat: Seat,
    card: Option<&str>,
    rng: &mut dyn RngCore,
) -> Decision {
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
    if card.is_none() && source == HireSource::Academy && state.academy_hire_compulsory {
        return Err(err(
            EternalPalaceRule::HiringRequired,
            "at the Academy you must hire one of the open advisors you can pay for (this game \
             plays academy_hire_compulsory)",
        ));
    }
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

pub(super) fn decide_take_resource(
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

pub(super) fn decide_market(
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

pub(super) fn decide_scrolls(
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
