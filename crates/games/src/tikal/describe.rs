//! The log's lines: one sentence per event, for people reading the game's history.

use super::data::{data, Terrain};
use super::event::TikalEvent;
use super::state::TikalState;
use crate::kit::seats::{colour, describe_final_standing};

fn tile_label(id: &str) -> String {
    match data().tile(id) {
        Some(t) if t.terrain == Terrain::Temple => {
            format!("a temple of value {} ({id})", t.value)
        }
        Some(t) if t.terrain == Terrain::Treasure => {
            format!("a treasure site with {} masks ({id})", t.value)
        }
        Some(t) => format!("a {} hex ({id})", t.terrain.name()),
        None => id.to_string(),
    }
}

pub fn describe(state: &TikalState, event: &TikalEvent) -> String {
    describe_deal(event)
        .or_else(|| describe_action(event))
        .or_else(|| describe_turn(state, event))
        .unwrap_or_default()
}

/// Set-up, drawing and the auction variant's bidding.
fn describe_deal(event: &TikalEvent) -> Option<String> {
    match event {
        TikalEvent::GameSetUp { seats, auction, .. } => Some(format!(
            "A game of Tikal for {seats} players{} is set up; the hexes and treasures are shuffled",
            if *auction { " (auction variant)" } else { "" }
        )),
        TikalEvent::TileDrawn { seat, tile } => Some({
            let drawn = tile_label(tile);
            if data()
                .tile(tile)
                .is_some_and(|t| t.terrain == Terrain::Volcano)
            {
                format!("{} draws {drawn} and sets it aside", colour(*seat))
            } else {
                format!("{} draws {drawn}", colour(*seat))
            }
        }),
        TikalEvent::TilesRevealed { tiles } => Some(format!(
            "A new round: {} are revealed",
            tiles
                .iter()
                .map(|t| tile_label(t))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        TikalEvent::BiddingOpened { opener } => Some(format!(
            "Bidding for the next turn opens with {}",
            colour(*opener)
        )),
        TikalEvent::BidPlaced { seat, amount } => Some(format!("{} bids {amount}", colour(*seat))),
        TikalEvent::Passed { seat } => Some(format!("{} passes", colour(*seat))),
        TikalEvent::AuctionWon { seat, price } if *price == 0 => {
            Some(format!("{} gets the turn for free", colour(*seat)))
        }
        TikalEvent::AuctionWon { seat, price } => Some({
            let unit = if *price == 1 { "point" } else { "points" };
            format!("{} wins the turn for {price} {unit}", colour(*seat))
        }),
        TikalEvent::TileChosen { seat, tile } => {
            Some(format!("{} takes {}", colour(*seat), tile_label(tile)))
        }
        _ => None,
    }
}

/// What a seat does on the board: the hex it lays and what it spends action points on.
fn describe_action(event: &TikalEvent) -> Option<String> {
    match event {
        TikalEvent::TilePlaced {
            seat,
            tile,
            space,
            rotation,
            treasure_tokens,
        } => Some({
            let mut line = format!(
                "{} lays {} at {space} (rotation {rotation})",
                colour(*seat),
                tile_label(tile)
            );
            if *treasure_tokens > 0 {
                line.push_str(&format!("; {treasure_tokens} treasures are put on it"));
            }
            line
        }),
        TikalEvent::PieceEntered { seat, space, piece } => Some(format!(
            "{} brings a {} into {space}",
            colour(*seat),
            piece.name()
        )),
        TikalEvent::PieceMoved {
            seat,
            from,
            to,
            piece,
            cost,
        } => Some(format!(
            "{} moves a {} from {from} to {to} for {cost} AP",
            colour(*seat),
            piece.name()
        )),
        TikalEvent::TempleUncovered { seat, space, value } => Some(format!(
            "{} uncovers the temple at {space} to {value}",
            colour(*seat)
        )),
        TikalEvent::TreasureRecovered { seat, space, kind } => Some(format!(
            "{} recovers a treasure of kind {kind} at {space}",
            colour(*seat)
        )),
        TikalEvent::TreasureExchanged {
            seat,
            target,
            took,
            gave,
        } => Some(format!(
            "{} takes a treasure of kind {took} from {} and gives one of kind {gave}",
            colour(*seat),
            colour(*target)
        )),
        TikalEvent::CampBuilt { seat, space } => {
            Some(format!("{} builds a camp at {space}", colour(*seat)))
        }
        TikalEvent::GuardPlaced {
            seat,
            space,
            piece,
            removed,
        } => Some(format!(
            "{} guards the temple at {space} with a {}; {removed} other figures leave the game",
            colour(*seat),
            piece.name()
        )),
        _ => None,
    }
}

/// Turns, scoring and the end.
fn describe_turn(state: &TikalState, event: &TikalEvent) -> Option<String> {
    match event {
        TikalEvent::ScoringRoundStarted {
            number, trigger, ..
        } => Some(match trigger {
            Some(seat) => format!(
                "Scoring round {number} begins: {} found a volcano",
                colour(*seat)
            ),
            None => format!("The final scoring round ({number}) begins"),
        }),
        TikalEvent::TurnStarted { seat, scoring } => Some(format!(
            "{} begins a {} turn with 10 AP",
            colour(*seat),
            if *scoring { "scoring" } else { "normal" }
        )),
        TikalEvent::TurnEnded {
            seat,
            action_points_unused,
        } => Some(format!(
            "{} ends the turn ({action_points_unused} AP unused)",
            colour(*seat)
        )),
        TikalEvent::PlayerScored {
            seat,
            temple_points,
            treasure_points,
        } => Some({
            let before = state.players.get(*seat as usize).map_or(0, |p| p.score);
            format!(
                "{} scores {temple_points} for temples and {treasure_points} for treasures ({} in all)",
                colour(*seat),
                before + (*temple_points + *treasure_points) as i32
            )
        }),
        TikalEvent::ScoringRoundCompleted { number } => {
            Some(format!("Scoring round {number} is complete"))
        }
        TikalEvent::GameFinished { scores, places } => {
            Some(describe_final_standing(scores, places))
        }
        _ => None,
    }
}
