//! The frame of a round: dice rolled and the turn order set at its start, the turn passed
//! while groups are placed, and its end: the game's end once someone holds enough layers,
//! else a new display and palace dice released for the next round.

use rand::{Rng, RngCore};

use super::advisors::{active_cards, deal_display};
use super::decision::{gain_goods, Ctx};
use crate::engine::Seat;
use crate::eternal_palace::data::{data, AdvisorEffect};
use crate::eternal_palace::event::{Event, Reason};
use crate::eternal_palace::scoring::final_scores;
use crate::eternal_palace::state::State;

pub(crate) fn start_round(cx: &mut Ctx, round: u32, rng: &mut dyn RngCore) {
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

fn has_unplaced(state: &State, seat: Seat) -> bool {
    state
        .player(seat)
        .is_some_and(|p| p.placed.iter().any(|placed| !placed))
}

/// Called when the active seat has nothing pending: pass the turn or end the round.
pub(super) fn finish_turn(cx: &mut Ctx, rng: &mut dyn RngCore) {
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
