//! River market module: a single die fulfils a demand of the open card; a full card rewards
//! every marker on it and penalises every seat without one, then the next card is revealed.

use rand::seq::SliceRandom;
use rand::RngCore;

use super::decision::{err, front_pending, gain_goods, pay_goods, Ctx, Decision};
use super::layers::step_track;
use super::round::finish_turn;
use crate::engine::{Seat, SharedRule};
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, Goods, Resource};
use crate::eternal_palace::event::{Answer, Choice, Event, Reason};
use crate::eternal_palace::state::{demand_token, token_card, Pending, State};

/// River market: reveals the next demand card, shuffling the used ones into a new deck when
/// the deck is empty.
pub(crate) fn reveal_demand(cx: &mut Ctx, rng: &mut dyn RngCore) {
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

pub(super) fn visit_river_market(cx: &mut Ctx, seat: Seat, index: usize) {
    step_track(cx, seat, index);
    cx.emit(Event::ChoiceOffered {
        seat,
        choice: Choice::Demand,
    });
}

/// "Erfülle die Nachfrage eines noch freien Feldes (gib das Gezeigte ab) und lege einen
/// Marker auf das Feld."
pub(super) fn decide_fulfil_demand(
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
        settle_demand(&mut cx, seat, rng);
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

/// "Sind alle verfügbaren Nachfragefelder belegt, erhalte für jeden Deiner Marker die
/// gezeigte Belohnung. Jeder Spieler ohne Marker auf der Karte muss die gezeigte Strafe
/// hinnehmen, also soweit möglich Dinge abgeben oder gar im Palast rückwärts ziehen. Danach
/// gehen die Marker an die Spieler zurück und eine neue Karte wird aufgedeckt."
///
/// `filler` filled the last field; with the option `demand_reward_only_to_filler` (EP-R11)
/// only their markers are rewarded.
fn settle_demand(cx: &mut Ctx, filler: Seat, rng: &mut dyn RngCore) {
    let Some(card) = cx.state().demand_card.clone() else {
        return;
    };
    let Some(info) = data().demand(&card) else {
        return;
    };
    let owners: Vec<Seat> = cx.state().demand_fields.iter().flatten().copied().collect();
    let only_filler = cx.state().demand_reward_only_to_filler;
    for seat in owners
        .iter()
        .filter(|seat| !only_filler || **seat == filler)
    {
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
