//! The log's lines: one sentence per event, for people reading the game's history.

use super::action::{CardSource, TileKind};
use super::data::Symbol;
use super::event::{Card, EndReason, JavaEvent};
use super::state::JavaState;
use crate::engine::Seat;
use crate::kit::seats::{colour, describe_final_standing};

fn symbols_text(symbols: &[Symbol]) -> String {
    let words: Vec<&str> = symbols
        .iter()
        .map(|s| match s {
            Symbol::Drum => "drum",
            Symbol::Mask => "mask",
            Symbol::Puppet => "puppet",
        })
        .collect();
    words.join(" and ")
}

fn cards_text(cards: &[Card]) -> String {
    let parts: Vec<String> = cards
        .iter()
        .map(|c| format!("{} ({})", c.id, symbols_text(&c.symbols)))
        .collect();
    parts.join(", ")
}

fn tile_text(tile: TileKind) -> &'static str {
    match tile {
        TileKind::ThreeSpace => "a three-space tile",
        TileKind::TwoSpace => "a two-space tile",
        TileKind::OneSpaceRice => "a one-space rice tile",
        TileKind::OneSpaceVillage => "a one-space village tile",
    }
}

fn ap(cost: u8) -> String {
    match cost {
        0 => "for free".to_string(),
        1 => "for 1 AP".to_string(),
        n => format!("for {n} AP"),
    }
}

fn seat_list(seats: &[Seat]) -> String {
    let names: Vec<&str> = seats.iter().map(|&s| colour(s)).collect();
    names.join(" and ")
}

pub fn describe(state: &JavaState, event: &JavaEvent) -> String {
    describe_cards(event)
        .or_else(|| describe_festival(state, event))
        .or_else(|| describe_turn(event))
        .or_else(|| describe_board(event))
        .or_else(|| describe_palaces_and_water(event))
        .unwrap_or_default()
}

/// Dealing, buying and reshuffling palace cards.
fn describe_cards(event: &JavaEvent) -> Option<String> {
    match event {
        JavaEvent::GameSetUp { seats, .. } => Some(format!(
            "A game of Java for {seats} players is set up; the palace cards are shuffled"
        )),
        JavaEvent::CardsDealt { seat, count, cards } => Some(match cards {
            Some(cards) => format!(
                "{} is dealt {count} palace cards: {}",
                colour(*seat),
                cards_text(cards)
            ),
            None => format!("{} is dealt {count} palace cards", colour(*seat)),
        }),
        JavaEvent::FaceUpRevealed { card } => Some(format!(
            "The face-up palace card is now {} ({})",
            card.id,
            symbols_text(&card.symbols)
        )),
        JavaEvent::CardBought { seat, source, card } => Some(match (source, card) {
            (CardSource::FaceUp, Some(card)) => format!(
                "{} buys the face-up palace card {} ({})",
                colour(*seat),
                card.id,
                symbols_text(&card.symbols)
            ),
            (_, Some(card)) => format!(
                "{} buys palace card {} ({}) from the deck",
                colour(*seat),
                card.id,
                symbols_text(&card.symbols)
            ),
            (_, None) => format!("{} buys a palace card from the deck", colour(*seat)),
        }),
        JavaEvent::DeckReshuffled { count, .. } => Some(format!(
            "The {count} discarded palace cards are shuffled into a new deck"
        )),
        _ => None,
    }
}

/// Festivals.
fn describe_festival(state: &JavaState, event: &JavaEvent) -> Option<String> {
    match event {
        JavaEvent::FestivalStarted {
            seat,
            space: palace,
            cards,
            points,
            ..
        } => Some({
            let value = state
                .spaces
                .get(state.space_index(palace))
                .and_then(|s| s.palace)
                .map_or(0, |p| state.palaces[p as usize].value);
            format!(
                "{} calls a festival at the palace {palace} (worth {value}) with {} for {points}",
                colour(*seat),
                cards_text(cards)
            )
        }),
        JavaEvent::BidPlaced {
            seat,
            cards,
            points,
        } => Some(format!(
            "{} plays {} and now bids {points}",
            colour(*seat),
            cards_text(cards)
        )),
        JavaEvent::Passed { seat } => {
            Some(format!("{} passes and leaves the festival", colour(*seat)))
        }
        JavaEvent::Agreed { seat } => {
            Some(format!("{} agrees to share the festival", colour(*seat)))
        }
        JavaEvent::FestivalEnded {
            space: palace,
            winners,
            shared,
            points,
        } => Some({
            if *shared {
                format!(
                    "{} share the festival at {palace} and score {points} each",
                    seat_list(winners)
                )
            } else {
                format!(
                    "{} holds the festival at {palace} alone and scores {points}",
                    seat_list(winners)
                )
            }
        }),
        _ => None,
    }
}

/// Turns, the end trigger and the final count.
fn describe_turn(event: &JavaEvent) -> Option<String> {
    match event {
        JavaEvent::TurnStarted { seat, turn } => Some(format!("Turn {turn}: {} to play", colour(*seat))),
        JavaEvent::ActionChipUsed { seat } => Some(format!("{} spends an action chip for a 7th AP", colour(*seat))),
        JavaEvent::EndTriggered { seat, reason } => Some(match reason {
            EndReason::LastThreeSpaceTile => format!(
                "The last three-space tile is gone: {} finishes this turn, then everyone else plays one more turn",
                colour(*seat)
            ),
            EndReason::NoTilePlaceable => format!(
                "{} cannot place any tile: the end of the game begins",
                colour(*seat)
            ),
            EndReason::NoTileForARound => format!(
                "{} cannot place any tile either, a whole round without a tile: the end of the game begins",
                colour(*seat)
            ),
        }),
        JavaEvent::FinalCount {
            seat,
            points,
            palaces,
        } => Some(format!(
            "{} takes the Great Final Count: {points} points from {} palace{}",
            colour(*seat),
            palaces.len(),
            if palaces.len() == 1 { "" } else { "s" }
        )),
        JavaEvent::GameFinished { scores, places } => Some(describe_final_standing(scores, places)),
        _ => None,
    }
}

/// Tiles and developers.
fn describe_board(event: &JavaEvent) -> Option<String> {
    match event {
        JavaEvent::TilePlaced {
            seat,
            tile,
            village,
            rice,
            cost,
            ..
        } => Some({
            let mut parts = Vec::new();
            if let Some(v) = village {
                parts.push(format!("village {v}"));
            }
            if !rice.is_empty() {
                parts.push(format!("rice {}", rice.join(", ")));
            }
            format!(
                "{} places {} ({}) {}",
                colour(*seat),
                tile_text(*tile),
                parts.join("; "),
                ap(*cost)
            )
        }),
        JavaEvent::DeveloperEntered { seat, to, cost } => Some(format!(
            "{} brings a developer in at {to} {}",
            colour(*seat),
            ap(*cost)
        )),
        JavaEvent::DeveloperMoved {
            seat,
            from,
            to,
            cost,
        } => Some(format!(
            "{} moves a developer from {from} to {to} {}",
            colour(*seat),
            ap(*cost)
        )),
        JavaEvent::DeveloperWithdrawn { seat, from, cost } => Some(format!(
            "{} withdraws the developer at {from} {}",
            colour(*seat),
            ap(*cost)
        )),
        _ => None,
    }
}

/// Palaces and irrigation.
fn describe_palaces_and_water(event: &JavaEvent) -> Option<String> {
    match event {
        JavaEvent::PalaceBuilt {
            seat,
            space,
            value,
            points,
        } => Some(format!(
            "{} builds a palace worth {value} at {space} and scores {points}",
            colour(*seat)
        )),
        JavaEvent::PalaceRaised {
            seat,
            space,
            from,
            value,
            points,
        } => Some(format!(
            "{} raises the palace at {space} from {from} to {value} and scores {points}",
            colour(*seat)
        )),
        JavaEvent::IrrigationPlaced { seat, space } => Some(format!(
            "{} places an irrigation tile at {space}",
            colour(*seat)
        )),
        JavaEvent::WaterEnclosed {
            spaces,
            scorer,
            points,
        } => Some(match scorer {
            Some(seat) => format!(
                "The water at {} is enclosed: {} scores {points}",
                spaces.join(", "),
                colour(*seat)
            ),
            None => format!(
                "The water at {} is enclosed, but nobody holds the highest rank beside it",
                spaces.join(", ")
            ),
        }),
        _ => None,
    }
}
