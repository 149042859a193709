//! The fish market: advisors drawn, one put back, one discarded and the last hired or not;
//! with the Fish Market tile more are drawn for fish and the kept one is named. Both answer
//! the same pending choice, so both live here.

use rand::RngCore;

use super::advisors::{can_hire, ensure_deck, hire};
use super::decision::{err, front_pending, pay_goods, Ctx, Decision};
use super::layers::step_track;
use super::round::finish_turn;
use crate::engine::{Seat, SharedRule};
use crate::eternal_palace::codes::EternalPalaceRule;
use crate::eternal_palace::data::{data, Goods};
use crate::eternal_palace::event::{Event, HireSource, Reason};
use crate::eternal_palace::state::{held_token, known_token, token_card, Pending, State};

pub(super) fn visit_fish_market(
    cx: &mut Ctx,
    seat: Seat,
    index: usize,
    tile: bool,
    rng: &mut dyn RngCore,
) {
    let d = data();
    step_track(cx, seat, index);
    let draw = if tile {
        d.fish_market_tile.draw
    } else {
        d.fish_market.draw
    };
    ensure_deck(cx, draw, rng);
    let n = draw.min(cx.state().deck.len());
    if n > 0 {
        let cards = cx.state().deck[..n]
            .iter()
            .map(|t| held_token(seat, token_card(t)))
            .collect();
        cx.emit(Event::AdvisorsDrawn {
            seat,
            count: n as u8,
            cards: Some(cards),
        });
    }
}

/// What `resolve_fish_market` names.
pub struct FishMarketChoice<'a> {
    pub returned: Option<&'a str>,
    pub discarded: Option<&'a str>,
    pub kept: Option<&'a str>,
    pub hire: bool,
}

pub(super) fn decide_fish_market(
    state: &State,
    seat: Seat,
    choice: FishMarketChoice,
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::FishMarket { cards, .. } = front_pending(state, seat)? else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the fish market",
        ));
    };
    if state.tile("1") {
        return decide_fish_market_tile(state, seat, cards, choice, rng);
    }
    let FishMarketChoice {
        returned,
        discarded,
        kept,
        hire: hire_it,
    } = choice;
    if kept.is_some() {
        return Err(err(
            EternalPalaceRule::InvalidFishMarketChoice,
            "name the kept card only at the Fish Market tile",
        ));
    }
    let ids: Vec<&str> = cards.iter().map(|t| token_card(t)).collect();
    let need_return = ids.len() >= 2;
    let need_discard = ids.len() >= 3;
    if returned.is_some() != need_return || discarded.is_some() != need_discard {
        return Err(err(
            EternalPalaceRule::InvalidFishMarketChoice,
            "with 3 cards name one to return and one to discard, with 2 only one to return, with 1 neither",
        ));
    }
    let mut rest: Vec<&str> = ids.clone();
    for chosen in [returned, discarded].into_iter().flatten() {
        let Some(pos) = rest.iter().position(|c| *c == chosen) else {
            return Err(err(
                EternalPalaceRule::NotDrawn,
                "name two different cards among the ones you drew",
            ));
        };
        rest.remove(pos);
    }
    let Some(kept) = rest.first().map(|c| c.to_string()) else {
        return Err(err(EternalPalaceRule::NotDrawn, "no card left to hire"));
    };
    if hire_it && !can_hire(state, seat, &kept, HireSource::FishMarket) {
        return Err(err(
            SharedRule::CannotAfford,
            "you cannot pay for the remaining card",
        ));
    }
    let mut discards: Vec<String> = discarded.map(str::to_string).into_iter().collect();
    if !hire_it {
        discards.push(kept.clone());
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::FishMarketResolved {
        seat,
        returned: returned.map(|c| known_token(seat, c)),
        discarded: discards,
        hired: hire_it.then(|| kept.clone()),
    });
    if hire_it {
        hire(&mut cx, seat, &kept, HireSource::FishMarket);
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}

pub(super) fn decide_draw_advisors(
    state: &State,
    seat: Seat,
    fish: u8,
    rng: &mut dyn RngCore,
) -> Decision {
    let Pending::FishMarket { draw_more, .. } = front_pending(state, seat)? else {
        return Err(err(
            EternalPalaceRule::WrongChoice,
            "the pending choice is not the fish market",
        ));
    };
    if !*draw_more {
        return Err(err(
            EternalPalaceRule::InvalidDraw,
            "more cards are drawn only at the Fish Market tile, once, before deciding",
        ));
    }
    let available = state.deck.len() + state.discard.len();
    if fish == 0 || usize::from(fish) > available {
        return Err(err(
            EternalPalaceRule::InvalidDraw,
            format!("pay 1 to {available} fish (one per card left to draw)"),
        ));
    }
    if i32::from(fish) > state.players[seat as usize].stock.fish {
        return Err(err(
            EternalPalaceRule::NotEnoughFish,
            format!("that needs {fish} fish"),
        ));
    }
    let mut cx = Ctx::new(state);
    pay_goods(
        &mut cx,
        seat,
        Goods {
            fish: i32::from(fish),
            ..Goods::default()
        },
        Reason::FishMarket,
    );
    ensure_deck(&mut cx, usize::from(fish), rng);
    let n = usize::from(fish).min(cx.state().deck.len());
    let cards = cx.state().deck[..n]
        .iter()
        .map(|t| held_token(seat, token_card(t)))
        .collect();
    cx.emit(Event::ExtraAdvisorsDrawn {
        seat,
        count: n as u8,
        cards: Some(cards),
    });
    Ok(cx.into_events())
}

/// Fish Market tile: "Entscheide: 1 behalten, 1 oben verdeckt auf den Stapel zurück und
/// Rest abwerfen." With 1 card it is kept; with 2 one is returned and the other kept; with
/// 3 or more `returned` and `kept` are named and the rest is discarded.
fn decide_fish_market_tile(
    state: &State,
    seat: Seat,
    cards: &[String],
    choice: FishMarketChoice,
    rng: &mut dyn RngCore,
) -> Decision {
    let ids: Vec<&str> = cards.iter().map(|t| token_card(t)).collect();
    let need_return = ids.len() >= 2;
    let need_kept = ids.len() >= 3;
    if choice.returned.is_some() != need_return
        || choice.kept.is_some() != need_kept
        || choice.discarded.is_some()
    {
        return Err(err(
            EternalPalaceRule::InvalidFishMarketChoice,
            "at the Fish Market tile name the returned card with 2 or more cards and the kept \
             one with 3 or more; the rest is discarded",
        ));
    }
    let mut rest: Vec<&str> = ids.clone();
    for chosen in [choice.returned, choice.kept].into_iter().flatten() {
        let Some(pos) = rest.iter().position(|c| *c == chosen) else {
            return Err(err(
                EternalPalaceRule::NotDrawn,
                "name different cards among the ones you drew",
            ));
        };
        rest.remove(pos);
    }
    let kept = match choice.kept {
        Some(k) => k.to_string(),
        None => match rest.pop() {
            Some(k) => k.to_string(),
            None => return Err(err(EternalPalaceRule::NotDrawn, "no card left to hire")),
        },
    };
    if choice.hire && !can_hire(state, seat, &kept, HireSource::FishMarket) {
        return Err(err(
            SharedRule::CannotAfford,
            "you cannot pay for the kept card",
        ));
    }
    let mut discards: Vec<String> = rest.iter().map(|c| c.to_string()).collect();
    if !choice.hire {
        discards.push(kept.clone());
    }
    let mut cx = Ctx::new(state);
    cx.emit(Event::FishMarketResolved {
        seat,
        returned: choice.returned.map(|c| known_token(seat, c)),
        discarded: discards,
        hired: choice.hire.then(|| kept.clone()),
    });
    if choice.hire {
        hire(&mut cx, seat, &kept, HireSource::FishMarket);
    }
    finish_turn(&mut cx, rng);
    Ok(cx.into_events())
}
