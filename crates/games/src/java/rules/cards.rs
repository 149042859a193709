//! Palace cards from the supply: buying the face-up card or the deck's top card, and
//! reshuffling the discard pile when the deck runs out (at once from rules version 2).

use rand::seq::SliceRandom;
use rand::RngCore;

use super::tiles::{pay, v2};
use crate::engine::{RuleError, Seat};
use crate::java::action::CardSource;
use crate::java::codes::JavaRule;
use crate::java::data::Symbol;
use crate::java::event::{Card, JavaEvent};
use crate::java::state::JavaState;
use crate::java::Java;
use crate::kit::Emitter;

/// Palace cards a player may buy in one turn.
pub const CARDS_PER_TURN: u8 = 2;

/// Drawing and revealing palace cards, on the working copy of the state.
impl Emitter<Java> {
    /// Rules version 2: "Sobald der Aufnahmestapel aufgebraucht ist": the discard pile is
    /// shuffled into a new deck right after the deck's last card is taken. If the discard
    /// pile is empty then, nothing happens now; the pile is shuffled the next time a card
    /// must be drawn (`reshuffle_if_needed`), as under version 1.
    fn reshuffle_if_run_out(&mut self, rng: &mut dyn RngCore) {
        if v2(self.state()) {
            self.reshuffle_if_needed(rng);
        }
    }

    /// Shuffles the discard pile into a new deck when the deck is empty (version 1: only
    /// when a card must be drawn from it).
    fn reshuffle_if_needed(&mut self, rng: &mut dyn RngCore) {
        if !self.state().deck.is_empty() || self.state().discard.is_empty() {
            return;
        }
        let mut symbols: Vec<Vec<Symbol>> = self
            .state()
            .discard
            .iter()
            .map(|c| c.symbols.clone())
            .collect();
        symbols.shuffle(rng);
        let first = self.state().next_card_number;
        let cards: Vec<Card> = symbols
            .into_iter()
            .enumerate()
            .map(|(i, symbols)| Card {
                id: card_id(first + i as u32),
                symbols,
            })
            .collect();
        self.emit(JavaEvent::DeckReshuffled {
            count: cards.len() as u8,
            cards: Some(cards),
        });
    }

    pub(super) fn refill_face_up(&mut self, rng: &mut dyn RngCore) {
        if self.state().face_up.is_some() {
            return;
        }
        self.reshuffle_if_needed(rng);
        if let Some(card) = self.state().deck.first().cloned() {
            self.emit(JavaEvent::FaceUpRevealed { card });
            self.reshuffle_if_run_out(rng);
        }
    }
}

pub fn card_id(number: u32) -> String {
    format!("pc{number:02}")
}

pub(super) fn decide_buy_card(
    state: &JavaState,
    seat: Seat,
    source: &CardSource,
    rng: &mut dyn RngCore,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    if state.turn.cards_bought >= CARDS_PER_TURN {
        return Err(RuleError::new(
            JavaRule::CardLimitReached,
            "at most 2 palace cards per turn",
        ));
    }
    match source {
        CardSource::FaceUp if state.face_up.is_none() => {
            return Err(RuleError::new(
                JavaRule::NoFaceUpCard,
                "there is no face-up card",
            ))
        }
        CardSource::Deck if state.deck.is_empty() && state.discard.is_empty() => {
            return Err(RuleError::new(JavaRule::DeckEmpty, "no cards left to draw"))
        }
        _ => {}
    }
    pay(state, 1)?;
    match source {
        CardSource::FaceUp => {
            out.emit(JavaEvent::CardBought {
                seat,
                source: *source,
                card: state.face_up.clone(),
            });
            out.refill_face_up(rng);
        }
        CardSource::Deck => {
            out.reshuffle_if_needed(rng);
            let card = out.state().deck.first().cloned();
            out.emit(JavaEvent::CardBought {
                seat,
                source: *source,
                card,
            });
            out.reshuffle_if_run_out(rng);
        }
    }
    Ok(())
}
