//! `legal_actions` and `to_act`: what `decide` accepts, listed. Each family of actions in
//! `rules` lists its own (with the checks it shares with `decide`); this file walks the phase
//! and the turn and asks them.

use super::action::{CardSource, JavaAction};
use super::data::board;
use super::rules::{
    card_combos, check_irrigation_space, developer_actions, festival_actions, name, palace_actions,
    placements, settlements, tile_owed, v2, Effect, TileGuard, CARDS_PER_TURN,
};
use super::state::{FestivalStage, JavaState, Phase};
use crate::engine::Seat;

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
