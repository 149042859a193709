//! The location tiles that replace a printed location's action: Academy, Temple, Palace
//! Market and Eternal Bridge (the Fish Market tile shares `fish_market` with the location).

use rand::RngCore;

use super::advisors::hire;
use super::decision::{err, front_pending, gain_goods, pay_goods, Ctx, Decision};
use super::layers::{mark_space, step_track};
use super::round::finish_turn;
use crate::engine::{Seat, SharedRule};
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, Goods, LocationKind, Resource};
use crate::eternal_palace::event::{Answer, Choice, Event, HireSource, Reason};
use crate::eternal_palace::state::{Pending, State};

pub(super) fn has_any_resource(state: &State, seat: Seat) -> bool {
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

/// Academy tile: "Nimm alle in der Reserve der Akademie gesammelte Weisheit oder stelle 1
/// offenliegenden Berater ein und bezahle seine Kosten, lege ferner 1 Weisheit aus dem
/// Vorrat in die Reserve."
pub(super) fn visit_academy_tile(cx: &mut Ctx, seat: Seat, index: usize) {
    step_track(cx, seat, index);
    let reserve = cx.state().academy_reserve;
    cx.emit(Event::ChoiceOffered {
        seat,
        choice: Choice::AcademyTile { reserve },
    });
}

pub(super) fn decide_take_reserve(state: &State, seat: Seat, rng: &mut dyn RngCore) -> Decision {
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
pub(super) fn visit_temple_tile(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
    mark_space(cx, seat, index, dice);
    cx.emit(Event::ChoiceOffered {
        seat,
        choice: Choice::TempleTile,
    });
}

pub(super) fn decide_buy_wisdom(
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

pub(super) fn visit_market_tile(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
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

pub(super) fn decide_market_tile(
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

pub(super) fn decide_resource_step(
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
