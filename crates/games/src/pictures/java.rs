//! Java: the pointy-top hex map of `data/java/board.txt` with the tiles laid on it (and their
//! borders), water, palaces and developers.

use std::collections::{BTreeMap, BTreeSet};

use super::svg::{self, hexagon, Point, Svg, TextStyle};
use super::{named_in, with_side_panel, BoardContext, Panel, SeatSummary};
use crate::java::data::{board, CellKind, Symbol};
use crate::java::event::Card;
use crate::java::state::Terrain;
use crate::java::view::{JavaView, PhaseName, PlayerView, SpaceView};
use crate::kit::hex::Hex;
use crate::kit::seats::colour;

/// Circumradius of a hex.
const RADIUS: f64 = 23.0;
const MARGIN: f64 = 24.0;
const SQRT_3: f64 = 1.732_050_807_568_877_2;

/// Position of `hex` before the board is moved into the margins (pointy-top axial).
fn raw_centre(hex: Hex) -> Point {
    Point::new(
        RADIUS * SQRT_3 * (f64::from(hex.q) + f64::from(hex.r) / 2.0),
        RADIUS * 1.5 * f64::from(hex.r),
    )
}

fn fill(cell_kind: CellKind, space: Option<&SpaceView>) -> &'static str {
    let water = space.is_some_and(|space| space.water);
    match (cell_kind, space.and_then(|space| space.terrain)) {
        _ if water => "#5ea8dc",
        (_, Some(Terrain::Rice)) => "#5cae48",
        (_, Some(Terrain::Village)) => "#d89a5c",
        (CellKind::Mountains, None) => "#9c8a74",
        (CellKind::Lowlands, None) => "#bcd9a6",
        (_, None) => "#efe6cc",
    }
}

pub(super) fn picture(view: &JavaView, context: &BoardContext) -> String {
    let cells = &board().cells;
    let highlighted = named_in(&context.last_events);
    let by_name: BTreeMap<&str, &SpaceView> = view
        .spaces
        .iter()
        .map(|space| (space.space.as_str(), space))
        .collect();
    let min_x = cells
        .iter()
        .map(|cell| raw_centre(cell.hex).x)
        .fold(f64::INFINITY, f64::min);
    let max_x = cells
        .iter()
        .map(|cell| raw_centre(cell.hex).x)
        .fold(f64::NEG_INFINITY, f64::max);
    let max_y = cells
        .iter()
        .map(|cell| raw_centre(cell.hex).y)
        .fold(f64::NEG_INFINITY, f64::max);
    let offset = Point::new(MARGIN + RADIUS - min_x, MARGIN + 30.0 + RADIUS);
    let centre = |hex: Hex| {
        let raw = raw_centre(hex);
        Point::new(raw.x + offset.x, raw.y + offset.y)
    };
    let board_width = max_x - min_x + 2.0 * RADIUS + 2.0 * MARGIN;
    let board_height = max_y + 2.0 * RADIUS + 2.0 * MARGIN + 30.0;

    let mut svg = Svg::new();
    svg.text(
        Point::new(MARGIN, MARGIN + 8.0),
        TextStyle::new(16.0).bold(),
        "Java",
    );
    for cell in cells {
        let space = by_name.get(cell.name.as_str()).copied();
        let at = centre(cell.hex);
        let is_highlighted = highlighted.contains(&cell.name);
        svg.open_space(
            &cell.name,
            &space_title(&cell.name, cell.kind, space),
            is_highlighted,
        );
        svg.polygon(
            &hexagon(at, RADIUS, -90.0),
            fill(cell.kind, space),
            "#8a8070",
            0.8,
        );
        svg.close_group();
    }
    // Tile borders over the plain hex outlines: a thick line wherever the next cell is not
    // part of the same tile, so every laid tile reads as one piece.
    svg.open_group("tile-borders");
    for cell in cells {
        let Some(tile) = by_name.get(cell.name.as_str()).and_then(|space| space.tile) else {
            continue;
        };
        let at = centre(cell.hex);
        for (edge, neighbour) in cell.neighbors.iter().enumerate() {
            let same_tile = neighbour
                .and_then(|index| by_name.get(cells[index].name.as_str()))
                .is_some_and(|next| next.tile == Some(tile));
            if !same_tile {
                // Edge `edge` (NW, NE, E, SE, SW, W) runs between these two corners.
                let from = at.towards(-150.0 + 60.0 * edge as f64, RADIUS);
                let to = at.towards(-90.0 + 60.0 * edge as f64, RADIUS);
                svg.line(from, to, "#2a2418", 2.5);
            }
        }
    }
    svg.close_group();
    for cell in cells {
        let space = by_name.get(cell.name.as_str()).copied();
        let at = centre(cell.hex);
        svg.open_group("space-contents");
        draw_contents(&mut svg, at, &cell.name, space);
        if highlighted.contains(&cell.name) {
            svg.polygon(
                &hexagon(at, RADIUS - 2.5, -90.0),
                "none",
                svg::HIGHLIGHT,
                3.5,
            );
        }
        svg.close_group();
    }

    let seats: Vec<SeatSummary> = view.players.iter().map(seat_summary).collect();
    let places = finished_places(view);
    with_side_panel(
        svg,
        (board_width, board_height),
        context,
        &Panel {
            game: "Java",
            seats: &seats,
            places: places.as_deref(),
            facts: &facts(view),
        },
        &format!("Java after event {}", context.seq),
    )
}

/// Java's view has no places; once finished they follow from the scores (competition
/// ranks, as everywhere).
fn finished_places(view: &JavaView) -> Option<Vec<u8>> {
    (view.phase == PhaseName::Finished).then(|| {
        let scores: Vec<i32> = view.players.iter().map(|player| player.score).collect();
        scores
            .iter()
            .map(|score| 1 + scores.iter().filter(|other| *other > score).count() as u8)
            .collect()
    })
}

fn space_title(name: &str, kind: CellKind, space: Option<&SpaceView>) -> String {
    let mut parts = vec![format!(
        "{name}: {}",
        match kind {
            CellKind::Land => "land",
            CellKind::Irrigation => "irrigation",
            CellKind::Mountains => "mountains",
            CellKind::Lowlands => "lowlands",
        }
    )];
    if let Some(space) = space {
        if let Some(terrain) = space.terrain {
            parts.push(format!(
                "{} at level {}",
                match terrain {
                    Terrain::Rice => "rice",
                    Terrain::Village => "village",
                },
                space.height
            ));
        }
        if space.water && kind != CellKind::Irrigation {
            parts.push("irrigation tile".to_owned());
        }
        if let Some(palace) = &space.palace {
            parts.push(format!("palace {}", palace.value));
        }
        if let Some(seat) = space.developer {
            parts.push(format!("developer of {}", colour(seat)));
        }
    }
    parts.join(", ")
}

fn draw_contents(svg: &mut Svg, at: Point, name: &str, space: Option<&SpaceView>) {
    svg.text(
        Point::new(at.x, at.y - RADIUS * 0.45),
        TextStyle::new(8.0).middle().fill("#302818"),
        name,
    );
    let Some(space) = space else {
        return;
    };
    if let Some(palace) = &space.palace {
        let stroke = if palace.dancer { "#b00070" } else { "#202020" };
        svg.rect(at.x - 9.0, at.y - 6.0, 18.0, 15.0, "#ffffff", stroke, 2.0);
        svg.text(
            Point::new(at.x, at.y + 6.0),
            TextStyle::new(11.0).middle().bold(),
            &palace.value.to_string(),
        );
    }
    if let Some(seat) = space.developer {
        // The developer shows the level it stands on: what counts for its rank.
        let place = if space.palace.is_some() {
            Point::new(at.x + 10.0, at.y + 9.0)
        } else {
            Point::new(at.x, at.y + 3.0)
        };
        svg.seat_disc(place, 8.5, seat, &space.height.to_string());
    } else if space.height > 0 && space.palace.is_none() {
        svg.text(
            Point::new(at.x, at.y + 8.0),
            TextStyle::new(10.0).middle().bold().fill("#302818"),
            &space.height.to_string(),
        );
    }
}

fn symbols_text(symbols: &[Symbol]) -> String {
    symbols
        .iter()
        .map(|symbol| match symbol {
            Symbol::Drum => "drum",
            Symbol::Mask => "mask",
            Symbol::Puppet => "puppet",
        })
        .collect::<Vec<_>>()
        .join("+")
}

fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|card| format!("{} {}", card.id, symbols_text(&card.symbols)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn seat_summary(player: &PlayerView) -> SeatSummary {
    let mut lines = vec![
        format!(
            "developers: {} in reserve, {} on the map \u{b7} chips {}",
            player.developers_in_reserve, player.developers_on_board, player.action_chips
        ),
        format!(
            "tiles: 2-space {} \u{b7} rice {} \u{b7} village {} \u{b7} cards {}",
            player.two_space_tiles,
            player.one_space_rice_tiles,
            player.one_space_village_tiles,
            player.card_count
        ),
    ];
    // The whole hand is in the view only for its owner (and the export).
    match &player.hand {
        Some(hand) if !hand.is_empty() => lines.push(format!("hand: {}", cards_text(hand))),
        _ if !player.known_cards.is_empty() => {
            lines.push(format!("known cards: {}", cards_text(&player.known_cards)))
        }
        _ => {}
    }
    SeatSummary {
        seat: player.seat,
        score: player.score,
        lines,
    }
}

fn facts(view: &JavaView) -> Vec<String> {
    let phase = match view.phase {
        PhaseName::Setup => "setup",
        PhaseName::Turn => "turn",
        PhaseName::Festival => "festival",
        PhaseName::Finished => "finished",
    };
    let mut facts = vec![format!(
        "Turn {} of {} ({phase}) \u{b7} action points left {}{}",
        view.turn.number,
        colour(view.current_seat),
        view.turn.action_points_left,
        if view.turn.tile_required {
            " \u{b7} a tile is still owed"
        } else {
            ""
        }
    )];
    let palaces: Vec<String> = view
        .supply
        .palaces
        .iter()
        .filter(|stock| stock.count > 0)
        .map(|stock| format!("{}\u{d7}{}", stock.count, stock.value))
        .collect();
    facts.push(format!(
        "Supply: 3-space tiles {} \u{b7} irrigation {} \u{b7} palaces {}",
        view.supply.three_space_tiles,
        view.supply.irrigation_tiles,
        palaces.join(" ")
    ));
    facts.push(format!(
        "Palace cards: deck {} \u{b7} face up {} \u{b7} discarded {}",
        view.supply.deck_size,
        view.supply
            .face_up
            .as_ref()
            .map_or("none".to_owned(), |card| cards_text(std::slice::from_ref(
                card
            ))),
        view.supply.discard.len()
    ));
    if view.play_on_when_no_tile_fits && view.end_started_by.is_none() {
        facts.push(format!(
            "Option: play on when no tile fits \u{b7} turns in a row without a tile {} of {}",
            view.turns_without_tile, view.seats
        ));
    }
    if let Some(seat) = view.end_started_by {
        facts.push(format!("The end began in the turn of {}", colour(seat)));
    }
    if let Some(festival) = &view.festival {
        let bidders: Vec<String> = festival
            .bidders
            .iter()
            .map(|bidder| {
                format!(
                    "{} {:?} {}",
                    colour(bidder.seat),
                    bidder.status,
                    bidder.points
                )
            })
            .collect();
        facts.push(format!(
            "Festival at {} (palace {}), host {}, {}: wanted {}, high {}; {}",
            festival.palace,
            festival.palace_value,
            colour(festival.host),
            festival.stage,
            symbols_text(&festival.symbols),
            festival.high,
            bidders.join(", ")
        ));
    }
    let cities: BTreeSet<String> = view
        .settlements
        .iter()
        .filter_map(|town| {
            town.palace
                .as_ref()
                .map(|palace| format!("{palace} ({} spaces)", town.size))
        })
        .collect();
    if !cities.is_empty() {
        facts.push(format!(
            "Cities: {}",
            cities.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    facts
}
