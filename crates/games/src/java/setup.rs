//! How a game starts: the player count and options checked, the palace cards shuffled (the
//! deck recorded in `game_set_up`), dealt and one turned face up, then the first turn.

use rand::seq::SliceRandom;
use rand::RngCore;

use super::data::{data, Symbol};
use super::event::{Card, JavaEvent};
use super::options::{self, JavaOptions};
use super::rules::card_id;
use super::Java;
use crate::engine::{Engine, RuleError, SharedRule};

pub fn setup(
    options: &JavaOptions,
    seats: u8,
    rules_version: u32,
    seed_commitment: Option<&str>,
    rng: &mut dyn RngCore,
) -> Result<Vec<JavaEvent>, RuleError> {
    if !Java::player_counts().contains(&seats) {
        return Err(RuleError::new(
            SharedRule::UnsupportedPlayerCount,
            "Java is played by 2 to 4 players",
        ));
    }
    options::check(options, rules_version)?;
    Ok(deal(seats, seed_commitment, rng))
}

/// The opening events: the shuffled deck, each seat's hand, the face-up card, turn 1.
fn deal(seats: u8, seed_commitment: Option<&str>, rng: &mut dyn RngCore) -> Vec<JavaEvent> {
    let d = data();
    let mut symbols: Vec<Vec<Symbol>> = d
        .cards
        .iter()
        .flat_map(|(s, count)| std::iter::repeat_n(s.clone(), *count as usize))
        .collect();
    symbols.shuffle(rng);
    let deck: Vec<Card> = symbols
        .into_iter()
        .enumerate()
        .map(|(i, symbols)| Card {
            id: card_id(i as u32 + 1),
            symbols,
        })
        .collect();
    let dealt = d.material.palace_cards_dealt as usize;
    let mut events = vec![JavaEvent::GameSetUp {
        seats,
        deck: Some(deck.clone()),
        seed_commitment: seed_commitment.map(str::to_owned),
    }];
    for seat in 0..seats {
        let start = seat as usize * dealt;
        events.push(JavaEvent::CardsDealt {
            seat,
            count: dealt as u8,
            cards: Some(deck[start..start + dealt].to_vec()),
        });
    }
    events.push(JavaEvent::FaceUpRevealed {
        card: deck[seats as usize * dealt].clone(),
    });
    events.push(JavaEvent::TurnStarted { seat: 0, turn: 1 });
    events
}
