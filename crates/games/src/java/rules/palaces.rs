//! Building and raising palaces: only the seat with the highest rank in the village or city
//! may, a palace is worth at most its village spaces, and it changes once per turn at most.

use super::board::{highest_rank, is_village, name, settlements, space, strengths, Settlements};
use super::tiles::{pay, Effect, TileGuard};
use crate::engine::{RuleError, Seat, SharedRule};
use crate::java::action::JavaAction;
use crate::java::codes::JavaRule;
use crate::java::data::data;
use crate::java::event::JavaEvent;
use crate::java::state::JavaState;
use crate::java::Java;
use crate::kit::Emitter;

pub(super) fn decide_build_palace(
    state: &JavaState,
    seat: Seat,
    at: &str,
    value: &u8,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(at)?;
    if !is_village(state, cell) {
        return Err(RuleError::new(
            JavaRule::NotAVillageSpace,
            "palaces are built on village spaces",
        ));
    }
    let s = &state.spaces[cell];
    if s.developer.is_some() || s.palace.is_some() {
        return Err(RuleError::new(
            SharedRule::SpaceOccupied,
            "the space is not empty",
        ));
    }
    let towns = settlements(state);
    let Some(village) = towns.of_space(cell) else {
        return Err(RuleError::new(JavaRule::NotAVillageSpace, "not a village"));
    };
    if village.palace.is_some() {
        return Err(RuleError::new(
            JavaRule::AlreadyACity,
            "this village already has a palace: raise it instead",
        ));
    }
    check_palace_value(state, *value, village.cells.len())?;
    if highest_rank(&strengths(state, &village.cells)) != Some(seat) {
        return Err(RuleError::new(
            JavaRule::NotHighestRank,
            "only the player with the highest rank in the village may build",
        ));
    }
    pay(state, 1)?;
    out.emit(JavaEvent::PalaceBuilt {
        seat,
        space: name(cell),
        value: *value,
        points: *value / 2,
    });
    Ok(())
}

pub(super) fn decide_raise_palace(
    state: &JavaState,
    seat: Seat,
    at: &str,
    value: &u8,
    out: &mut Emitter<Java>,
) -> Result<(), RuleError> {
    let cell = space(at)?;
    let Some(index) = state.spaces[cell].palace else {
        return Err(RuleError::new(
            JavaRule::NoPalace,
            "there is no palace on that space",
        ));
    };
    let palace = &state.palaces[index as usize];
    if palace.changed_in_turn == state.turn.number {
        return Err(RuleError::new(
            JavaRule::PalaceChangedThisTurn,
            "a palace may change only once per turn",
        ));
    }
    if *value <= palace.value {
        return Err(RuleError::new(
            JavaRule::ValueNotHigher,
            format!("the palace is already worth {}", palace.value),
        ));
    }
    let towns = settlements(state);
    let Some(city) = towns.of_space(cell) else {
        return Err(RuleError::new(
            JavaRule::NoPalace,
            "there is no palace on that space",
        ));
    };
    check_palace_value(state, *value, city.cells.len())?;
    if highest_rank(&strengths(state, &city.cells)) != Some(seat) {
        return Err(RuleError::new(
            JavaRule::NotHighestRank,
            "only the player with the highest rank in the city may raise its palace",
        ));
    }
    pay(state, 1)?;
    out.emit(JavaEvent::PalaceRaised {
        seat,
        space: name(cell),
        from: palace.value,
        value: *value,
        points: *value / 2,
    });
    Ok(())
}

fn check_palace_value(state: &JavaState, value: u8, size: usize) -> Result<(), RuleError> {
    if !data().palace_values().any(|v| v == value) {
        return Err(RuleError::new(
            JavaRule::InvalidPalaceValue,
            "palace values are 2, 4, 6, 8 and 10",
        ));
    }
    if usize::from(value) > size {
        return Err(RuleError::new(
            JavaRule::SettlementTooSmall,
            format!("a palace may not be worth more than its {size} village spaces"),
        ));
    }
    if state.palace_stock(value) == 0 {
        return Err(RuleError::new(
            JavaRule::NoPalaceTile,
            format!("no palace tiles of value {value} left"),
        ));
    }
    Ok(())
}

/// Building and raising the palaces where `seat` has the highest rank.
pub(crate) fn palace_actions(
    state: &JavaState,
    seat: Seat,
    towns: &Settlements,
    guard: &TileGuard,
    actions: &mut Vec<JavaAction>,
) {
    if state.turn.ap == 0 {
        return;
    }
    for town in &towns.groups {
        let values: Vec<u8> = data()
            .palace_values()
            .filter(|&v| usize::from(v) <= town.cells.len() && state.palace_stock(v) > 0)
            .collect();
        if values.is_empty() || highest_rank(&strengths(state, &town.cells)) != Some(seat) {
            continue;
        }
        match town.palace {
            None => {
                for &cell in &town.cells {
                    if state.spaces[cell].developer.is_some()
                        || !guard.allows(1, Effect::Builds(cell))
                    {
                        continue;
                    }
                    for &value in &values {
                        actions.push(JavaAction::BuildPalace {
                            space: name(cell),
                            value,
                        });
                    }
                }
            }
            Some(index) => {
                let palace = &state.palaces[index as usize];
                if palace.changed_in_turn == state.turn.number || !guard.allows(1, Effect::Spends) {
                    continue;
                }
                for &value in values.iter().filter(|&&v| v > palace.value) {
                    actions.push(JavaAction::RaisePalace {
                        space: name(palace.space),
                        value,
                    });
                }
            }
        }
    }
}
