//! Labyrinth module: a single die moves the seat's marker along a red arrow to the next
//! station, paying the fish on the way and taking the station's goods.

use rand::RngCore;

use super::decision::{err, front_pending, gain_goods, pay_goods, Ctx, Decision};
use super::layers::take_decoration;
use super::round::finish_turn;
use crate::engine::Seat;
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, Goods, LABYRINTH};
use crate::eternal_palace::event::{Answer, Choice, Event, Reason};
use crate::eternal_palace::state::{Pending, State};

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
pub(super) fn visit_labyrinth(cx: &mut Ctx, seat: Seat) {
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
            take_decoration(cx, seat, &d.locations[LABYRINTH].key);
        }
    }
}

pub(super) fn decide_follow_path(
    state: &State,
    seat: Seat,
    station: &str,
    rng: &mut dyn RngCore,
) -> Decision {
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
