//! The rules: `setup`, and `decide`, `legal_actions` and `to_act`, which hand each action to
//! the file of its family. A family's file holds both its checks and its legal actions, so
//! the two cannot drift apart.

mod board;
mod cards;
mod developers;
mod end;
mod festival;
mod irrigation;
mod palaces;
mod placement;
mod tiles;
mod water;

use rand::seq::SliceRandom;
use rand::RngCore;

use super::action::{CardSource, JavaAction};
use super::codes::JavaRule;
use super::data::{board, data, Symbol};
use super::event::{Card, JavaEvent};
use super::state::{FestivalStage, JavaState, Phase};
use super::Java;
use crate::engine::{RuleError, Seat, SharedRule};
use crate::kit::Emitter;

use self::board::name;
use self::cards::decide_buy_card;
use self::developers::{
    decide_enter_developer, decide_move_developer, decide_withdraw_developer, developer_actions,
};
use self::end::decide_end_turn;
use self::festival::{
    decide_agree, decide_bid, decide_hold_festival, decide_pass, festival_actions,
};
use self::irrigation::{check_irrigation_space, decide_place_irrigation};
use self::palaces::{decide_build_palace, decide_raise_palace, palace_actions};
use self::tiles::{check_tile_kept, decide_place_tile, Effect, TileGuard};

// What the rest of the engine (the view, the tests) reads of the rules, at the paths it had
// when the rules were one file.
pub use self::board::{highest_rank, settlements, strengths, Settlement, Settlements};
pub use self::cards::{card_id, CARDS_PER_TURN};
pub use self::developers::{move_costs, rim_cost};
pub use self::end::final_count;
pub use self::festival::card_combos;
pub use self::placement::{
    check_placement, placements, tiles_in_stock, Placement, PlacementRefusal,
};
pub use self::tiles::{tile_owed, tile_possible, v2};
pub use self::water::{newly_enclosed_water, POINTS_PER_WATER_SPACE};

pub fn setup(seats: u8, seed_commitment: Option<&str>, rng: &mut dyn RngCore) -> Vec<JavaEvent> {
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

/// The seat exists and may take this kind of action in the current phase.
fn check_actor(state: &JavaState, seat: Seat, action: &JavaAction) -> Result<(), RuleError> {
    if seat >= state.seats {
        return Err(RuleError::new(
            SharedRule::NoSuchSeat,
            "no such seat in this game",
        ));
    }
    let festival_action = matches!(
        action,
        JavaAction::Bid { .. } | JavaAction::Pass | JavaAction::Agree
    );
    match &state.phase {
        Phase::Setup => {
            return Err(RuleError::new(
                SharedRule::WrongPhase,
                "the game has not started",
            ))
        }
        Phase::Finished => return Err(RuleError::new(SharedRule::GameOver, "the game is over")),
        Phase::Festival(f) => {
            if f.to_act() != Some(seat) {
                return Err(RuleError::new(
                    SharedRule::NotYourTurn,
                    "another player must act in the festival now",
                ));
            }
            if !festival_action {
                return Err(RuleError::new(
                    SharedRule::WrongPhase,
                    "a festival is running: bid, pass or agree",
                ));
            }
        }
        Phase::Turn => {
            if seat != state.current {
                return Err(RuleError::new(
                    SharedRule::NotYourTurn,
                    "it is not your turn",
                ));
            }
            if festival_action {
                return Err(RuleError::new(
                    SharedRule::WrongPhase,
                    "no festival is running",
                ));
            }
        }
    }
    Ok(())
}

pub fn decide(
    state: &JavaState,
    seat: Seat,
    action: &JavaAction,
    rng: &mut dyn RngCore,
) -> Result<Vec<JavaEvent>, RuleError> {
    check_actor(state, seat, action)?;
    let mut out = Emitter::<Java>::new(state);
    match action {
        JavaAction::PlaceTile {
            tile,
            space: at,
            rotation,
            cost,
        } => decide_place_tile(state, seat, tile, at, rotation, cost, &mut out)?,
        JavaAction::EnterDeveloper { to, cost } => {
            decide_enter_developer(state, seat, to, cost, &mut out)?
        }
        JavaAction::MoveDeveloper { from, to, cost } => {
            decide_move_developer(state, seat, from, to, cost, &mut out)?
        }
        JavaAction::WithdrawDeveloper { from, cost } => {
            decide_withdraw_developer(state, seat, from, cost, &mut out)?
        }
        JavaAction::BuildPalace { space: at, value } => {
            decide_build_palace(state, seat, at, value, &mut out)?
        }
        JavaAction::RaisePalace { space: at, value } => {
            decide_raise_palace(state, seat, at, value, &mut out)?
        }
        JavaAction::PlaceIrrigation { space: at } => {
            decide_place_irrigation(state, seat, at, &mut out)?
        }
        JavaAction::BuyCard { source } => decide_buy_card(state, seat, source, rng, &mut out)?,
        JavaAction::UseActionChip => decide_use_action_chip(state, seat, &mut out)?,
        JavaAction::HoldFestival {
            space: palace,
            cards,
        } => decide_hold_festival(state, seat, palace, cards, rng, &mut out)?,
        JavaAction::Bid { cards } => decide_bid(state, seat, cards, rng, &mut out)?,
        JavaAction::Pass => decide_pass(state, seat, rng, &mut out)?,
        JavaAction::Agree => decide_agree(state, seat, rng, &mut out)?,
        JavaAction::EndTurn => decide_end_turn(state, seat, &mut out)?,
    }
    let may_block_the_tile = matches!(
        action,
        JavaAction::EnterDeveloper { .. }
            | JavaAction::MoveDeveloper { .. }
            | JavaAction::WithdrawDeveloper { .. }
            | JavaAction::BuildPalace { .. }
            | JavaAction::RaisePalace { .. }
            | JavaAction::PlaceIrrigation { .. }
            | JavaAction::BuyCard { .. }
    );
    if may_block_the_tile && v2(state) {
        check_tile_kept(state, seat, out.state())?;
    }
    Ok(out.into_events())
}

fn decide_use_action_chip(
    state: &JavaState,
    seat: Seat,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    if state.players[seat as usize].action_chips == 0 {
        return Err(RuleError::new(
            JavaRule::NoActionChip,
            "no action chips left",
        ));
    }
    if state.turn.chip_used {
        return Err(RuleError::new(
            JavaRule::ChipAlreadyUsed,
            "at most one action chip per turn",
        ));
    }
    out.emit(JavaEvent::ActionChipUsed { seat });
    Ok(())
}

pub fn legal_actions(state: &JavaState, seat: Seat) -> Vec<JavaAction> {
    let mut actions = Vec::new();
    match &state.phase {
        Phase::Festival(festival) if festival.to_act() == Some(seat) => {
            let hand = &state.players[seat as usize].hand;
            let points = festival.bidder(seat).map_or(0, |b| b.points);
            let needed = match festival.stage {
                FestivalStage::Agreement { .. } => {
                    actions.push(JavaAction::Agree);
                    festival.high.saturating_add(1)
                }
                _ => {
                    actions.push(JavaAction::Pass);
                    festival.high
                }
            };
            let need = needed.saturating_sub(points).max(1);
            actions.extend(
                card_combos(hand, &festival.symbols, need)
                    .into_iter()
                    .map(|cards| JavaAction::Bid { cards }),
            );
        }
        Phase::Turn if state.current == seat => turn_actions(state, seat, &mut actions),
        _ => {}
    }
    actions
}

fn turn_actions(state: &JavaState, seat: Seat, actions: &mut Vec<JavaAction>) {
    let player = &state.players[seat as usize];
    let towns = settlements(state);
    let tiles = placements(state, seat, &towns, false);
    let no_tile_possible = tiles.is_empty();
    let owed = tile_owed(state);
    let guard = TileGuard {
        state,
        seat,
        towns: &towns,
        tiles: &tiles,
        reserve: if owed {
            tiles.iter().map(|t| t.3.cost).min().unwrap_or(0)
        } else {
            0
        },
        watching: v2(state) && owed && !no_tile_possible,
    };
    for (kind, cell, rotation, p) in &tiles {
        actions.push(JavaAction::PlaceTile {
            tile: *kind,
            space: name(*cell),
            rotation: *rotation,
            cost: Some(p.cost),
        });
    }
    developer_actions(state, seat, &guard, actions);
    palace_actions(state, seat, &towns, &guard, actions);
    supply_actions(state, &guard, actions);
    if player.action_chips > 0 && !state.turn.chip_used {
        actions.push(JavaAction::UseActionChip);
    }
    if !owed || (v2(state) && no_tile_possible) {
        festival_actions(state, seat, &towns, actions);
    }
    if !owed || no_tile_possible {
        actions.push(JavaAction::EndTurn);
    }
}

/// Irrigation tiles and palace cards from the common supply.
fn supply_actions(state: &JavaState, guard: &TileGuard, actions: &mut Vec<JavaAction>) {
    if state.turn.ap == 0 {
        return;
    }
    if state.irrigation_tiles > 0 {
        for cell in 0..board().cells.len() {
            if check_irrigation_space(state, cell).is_ok()
                && guard.allows(1, Effect::Occupies(cell))
            {
                actions.push(JavaAction::PlaceIrrigation { space: name(cell) });
            }
        }
    }
    if state.turn.cards_bought < CARDS_PER_TURN && guard.allows(1, Effect::Spends) {
        if state.face_up.is_some() {
            actions.push(JavaAction::BuyCard {
                source: CardSource::FaceUp,
            });
        }
        if !state.deck.is_empty() || !state.discard.is_empty() {
            actions.push(JavaAction::BuyCard {
                source: CardSource::Deck,
            });
        }
    }
}

pub fn to_act(state: &JavaState) -> Vec<Seat> {
    match &state.phase {
        Phase::Turn => vec![state.current],
        Phase::Festival(f) => f.to_act().into_iter().collect(),
        Phase::Setup | Phase::Finished => Vec::new(),
    }
}
