//! Compositions module: the first seat to hold the painting layers of a card's three
//! locations takes its reward, whenever it takes a layer.

use super::decision::{gain_goods, Ctx};
use crate::engine::Seat;
use crate::eternal_palace::data::data;
use crate::eternal_palace::event::{Event, Reason};

/// Compositions: "Der erste Spieler, der alle Bildebenen der auf der Karte gezeigten 3 Orte
/// besitzt, erhält die unten gezeigte Belohnung. Die Karte geht aus dem Spiel."
pub(super) fn claim_compositions(cx: &mut Ctx, seat: Seat) {
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
