//! Palace festivals: holding one with cards matching the face-up card, the bidding and the
//! agreement to share that follow, and the points the winners take.

use rand::RngCore;

use super::board::{name, settlements, space, Settlements};
use super::tiles::{end_without_tile, tile_owed, tile_possible, v2};
use crate::engine::{RuleError, Seat, SharedRule};
use crate::java::action::JavaAction;
use crate::java::codes::JavaRule;
use crate::java::data::{data, Symbol};
use crate::java::event::{Card, JavaEvent};
use crate::java::state::{FestivalStage, HandCard, JavaState, Phase};
use crate::java::Java;
use crate::kit::Emitter;

/// The cards (by id) form a valid play for `seat`: returns the cards and their points.
fn check_cards(
    state: &JavaState,
    seat: Seat,
    ids: &[String],
    symbols: &[Symbol],
) -> Result<(Vec<Card>, u8), RuleError> {
    if ids.is_empty() {
        return Err(RuleError::new(
            JavaRule::NoCards,
            "play at least one palace card",
        ));
    }
    let hand = &state.players[seat as usize].hand;
    let mut cards: Vec<Card> = Vec::new();
    let mut points = 0u8;
    for id in ids {
        if cards.iter().any(|c| &c.id == id) {
            return Err(RuleError::new(
                JavaRule::DuplicateCard,
                format!("card {id} is listed twice"),
            ));
        }
        let Some(held) = hand.iter().find(|h| &h.card.id == id) else {
            return Err(RuleError::new(
                JavaRule::CardNotInHand,
                format!("card {id} is not in your hand"),
            ));
        };
        let p = held.card.points(symbols);
        if p == 0 {
            return Err(RuleError::new(
                JavaRule::CardDoesNotMatch,
                format!("card {id} shows none of the face-up card's symbols"),
            ));
        }
        points = points.saturating_add(p);
        cards.push(held.card.clone());
    }
    Ok((cards, points))
}

/// One play per distinct combination of matching card kinds worth at least `need`
/// points, naming the first cards of each kind in hand order.
pub fn card_combos(hand: &[HandCard], symbols: &[Symbol], need: u8) -> Vec<Vec<String>> {
    let mut groups: Vec<(&[Symbol], u8, Vec<&str>)> = Vec::new();
    for held in hand {
        let points = held.card.points(symbols);
        if points == 0 {
            continue;
        }
        match groups
            .iter_mut()
            .find(|(s, _, _)| *s == held.card.symbols.as_slice())
        {
            Some(group) => group.2.push(&held.card.id),
            None => groups.push((&held.card.symbols, points, vec![&held.card.id])),
        }
    }
    let mut result = Vec::new();
    let mut counts = vec![0usize; groups.len()];
    loop {
        let total: u32 = groups
            .iter()
            .zip(&counts)
            .map(|(g, &c)| u32::from(g.1) * c as u32)
            .sum();
        if counts.iter().any(|&c| c > 0) && total >= u32::from(need) {
            let mut ids = Vec::new();
            for (g, &c) in groups.iter().zip(&counts) {
                ids.extend(g.2[..c].iter().map(|s| s.to_string()));
            }
            result.push(ids);
        }
        // Odometer over the per-kind counts.
        let mut i = 0;
        loop {
            if i == groups.len() {
                return result;
            }
            if counts[i] < groups[i].2.len() {
                counts[i] += 1;
                break;
            }
            counts[i] = 0;
            i += 1;
        }
    }
}

/// Closing a festival, on the working copy of the state.
impl Emitter<Java> {
    /// Closes a decided festival and the host's turn.
    fn settle_festival(&mut self, rng: &mut dyn RngCore) {
        let Phase::Festival(festival) = &self.state().phase else {
            return;
        };
        let FestivalStage::Decided { winners, shared } = &festival.stage else {
            return;
        };
        let palace = &self.state().palaces[festival.palace as usize];
        let table = data().festival_points(palace.value);
        let points = if *shared { table.shared } else { table.alone };
        let event = JavaEvent::FestivalEnded {
            space: name(palace.space),
            winners: winners.clone(),
            shared: *shared,
            points,
        };
        self.emit(event);
        self.refill_face_up(rng);
        self.finish_turn();
    }
}

pub(super) fn decide_hold_festival(
    state: &JavaState,
    seat: Seat,
    palace: &str,
    cards: &[String],
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(palace)?;
    // Under rules version 2 a turn in which no tile can be placed may still end with a
    // festival; the turn then ends without its tile, which may begin the end of the game.
    let ends_without_tile = tile_owed(state);
    if ends_without_tile && (!v2(state) || tile_possible(state, seat)) {
        return Err(RuleError::new(
            JavaRule::MustPlaceTile,
            "place a tile before ending the turn with a festival",
        ));
    }
    let Some(face_up) = &state.face_up else {
        return Err(RuleError::new(
            JavaRule::NoFaceUpCard,
            "without a face-up card no festival can be held",
        ));
    };
    let Some(index) = state.spaces[cell].palace else {
        return Err(RuleError::new(
            JavaRule::NoPalace,
            "there is no palace on that space",
        ));
    };
    if state.palaces[index as usize].festival_held {
        return Err(RuleError::new(
            JavaRule::FestivalAlreadyHeld,
            "this palace held a festival since it last changed",
        ));
    }
    let towns = settlements(state);
    let city = towns
        .of_space(cell)
        .map(|c| c.cells.clone())
        .unwrap_or_default();
    let present = |s: Seat| city.iter().any(|&c| state.spaces[c].developer == Some(s));
    if !present(seat) {
        return Err(RuleError::new(
            JavaRule::NoDeveloperInCity,
            "you need a developer in the city",
        ));
    }
    let (played, points) = check_cards(state, seat, cards, &face_up.symbols)?;
    let participants = (1..state.seats)
        .map(|step| (seat + step) % state.seats)
        .filter(|&s| present(s) && !state.players[s as usize].hand.is_empty())
        .collect();
    if let Some(reason) = ends_without_tile.then(|| end_without_tile(state)).flatten() {
        // First, as for `end_turn`: the turn is over once its festival is called, and the
        // host's Great Final Count follows the festival like every count.
        out.emit(JavaEvent::EndTriggered { seat, reason });
    }
    out.emit(JavaEvent::FestivalStarted {
        seat,
        space: name(cell),
        cards: played,
        points,
        participants,
    });
    out.settle_festival(rng);
    Ok(())
}

pub(super) fn decide_bid(
    state: &JavaState,
    seat: Seat,
    cards: &[String],
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let Phase::Festival(festival) = &state.phase else {
        return Err(RuleError::new(
            SharedRule::WrongPhase,
            "no festival is running",
        ));
    };
    let (played, points) = check_cards(state, seat, cards, &festival.symbols)?;
    let before = festival.bidder(seat).map_or(0, |b| b.points);
    let total = before.saturating_add(points);
    let needed = match festival.stage {
        FestivalStage::Agreement { .. } => festival.high.saturating_add(1),
        _ => festival.high,
    };
    if total < needed {
        return Err(RuleError::new(
            SharedRule::BidTooLow,
            format!("your total must reach at least {needed}"),
        ));
    }
    out.emit(JavaEvent::BidPlaced {
        seat,
        cards: played,
        points: total,
    });
    out.settle_festival(rng);
    Ok(())
}

pub(super) fn decide_pass(
    state: &JavaState,
    seat: Seat,
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let Some(FestivalStage::Bidding { .. }) = state.festival().map(|f| &f.stage) else {
        return Err(RuleError::new(
            JavaRule::CannotPassNow,
            "when offered an agreement, agree or bid higher",
        ));
    };
    out.emit(JavaEvent::Passed { seat });
    out.settle_festival(rng);
    Ok(())
}

pub(super) fn decide_agree(
    state: &JavaState,
    seat: Seat,
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let Some(FestivalStage::Agreement { .. }) = state.festival().map(|f| &f.stage) else {
        return Err(RuleError::new(
            JavaRule::NoAgreementOffered,
            "nobody offers to share the festival now",
        ));
    };
    out.emit(JavaEvent::Agreed { seat });
    out.settle_festival(rng);
    Ok(())
}

/// Every festival `seat` can hold: a palace whose city holds one of its developers.
pub(crate) fn festival_actions(
    state: &JavaState,
    seat: Seat,
    towns: &Settlements,
    actions: &mut Vec<JavaAction>,
) {
    let Some(face_up) = &state.face_up else {
        return;
    };
    let hand = &state.players[seat as usize].hand;
    for palace in state.palaces.iter().filter(|palace| !palace.festival_held) {
        let Some(city) = towns.of_space(palace.space) else {
            continue;
        };
        if !city
            .cells
            .iter()
            .any(|&c| state.spaces[c].developer == Some(seat))
        {
            continue;
        }
        for cards in card_combos(hand, &face_up.symbols, 1) {
            actions.push(JavaAction::HoldFestival {
                space: name(palace.space),
                cards,
            });
        }
    }
}
