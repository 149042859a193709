//! Tikal: the flat-top hex board of `data/tikal/board.txt` with every explored hex, its
//! stepping stones, temples, treasures, camps and expeditions.

use std::collections::BTreeSet;

use super::svg::{self, hexagon, seat_fill, seat_ink, Point, Svg, TextStyle};
use super::{named_in, with_side_panel, BoardContext, Panel, SeatSummary};
use crate::kit::hex::Hex;
use crate::tikal::action::PieceKind;
use crate::tikal::data::{data, Terrain, LAYOUT};
use crate::tikal::view::{PhaseName, SpaceView, TikalView, TileView};

/// Circumradius of a hex.
const RADIUS: f64 = 48.0;
const MARGIN: f64 = 24.0;
const SQRT_3: f64 = 1.732_050_807_568_877_2;

fn terrain_fill(terrain: Terrain) -> &'static str {
    match terrain {
        Terrain::BaseCamp => "#d8c08c",
        Terrain::Temple => "#b8b0a0",
        Terrain::Jungle => "#8cc474",
        Terrain::Treasure => "#f0d070",
        Terrain::Volcano => "#b0503a",
    }
}

/// Centre of `hex` on the picture (flat-top axial coordinates).
fn centre(hex: Hex) -> Point {
    Point::new(
        MARGIN + RADIUS + RADIUS * 1.5 * f64::from(hex.q),
        MARGIN
            + 30.0
            + RADIUS * SQRT_3 / 2.0
            + RADIUS * SQRT_3 * (f64::from(hex.r) + f64::from(hex.q) / 2.0),
    )
}

pub(super) fn picture(view: &TikalView, context: &BoardContext) -> String {
    let board = data();
    let mut svg = Svg::new();
    let highlighted = named_in(&context.last_events);
    let columns = i32::from(board.columns);
    let rows = i32::from(board.rows);
    let board_width = 2.0 * MARGIN + RADIUS * (2.0 + 1.5 * f64::from(columns - 1));
    let board_height = 2.0 * MARGIN + 30.0 + RADIUS * SQRT_3 * (f64::from(rows) + 0.5);
    svg.text(
        Point::new(MARGIN, MARGIN + 8.0),
        TextStyle::new(16.0).bold(),
        "Tikal",
    );
    // Every space of the board in column order, explored or not, so the picture shows the
    // whole grid with its names.
    for column in 0..columns {
        for row in 0..rows {
            let hex = LAYOUT.hex_at(column, row);
            let Some(name) = LAYOUT.name(hex) else {
                continue;
            };
            let explored = view.board.iter().find(|space| space.space == name);
            draw_space(&mut svg, hex, &name, explored, &highlighted);
        }
    }
    let seats: Vec<SeatSummary> = view.players.iter().map(seat_summary).collect();
    let places = view
        .outcome
        .as_ref()
        .map(|outcome| outcome.places.as_slice());
    with_side_panel(
        svg,
        (board_width, board_height),
        context,
        &Panel {
            game: "Tikal",
            seats: &seats,
            places,
            facts: &facts(view),
        },
        &format!("Tikal after event {}", context.seq),
    )
}

fn draw_space(
    svg: &mut Svg,
    hex: Hex,
    name: &str,
    explored: Option<&SpaceView>,
    highlighted: &BTreeSet<String>,
) {
    let at = centre(hex);
    let corners = hexagon(at, RADIUS - 1.0, 0.0);
    let is_highlighted = highlighted.contains(name);
    let title = match explored {
        Some(space) => space_title(space),
        None => format!("{name}: unexplored"),
    };
    svg.open_space(name, &title, is_highlighted);
    match explored {
        None => svg.dashed_polygon(&corners, "#efe9da", "#b0a890"),
        Some(space) => {
            svg.polygon(&corners, terrain_fill(space.terrain), "#5a5040", 1.5);
            draw_stones(svg, at, &space.stones);
            draw_contents(svg, at, space);
        }
    }
    svg.text(
        Point::new(at.x, at.y - RADIUS * 0.42),
        TextStyle::new(12.0).middle().bold().fill("#302818"),
        name,
    );
    if is_highlighted {
        svg.polygon(&hexagon(at, RADIUS - 4.0, 0.0), "none", svg::HIGHLIGHT, 4.0);
    }
    svg.close_group();
}

fn space_title(space: &SpaceView) -> String {
    let mut parts = vec![format!("{}: {}", space.space, space.terrain.name())];
    if let Some(value) = space.temple_value {
        parts.push(format!("temple {value}"));
    }
    if let Some(owner) = space.temple_owner {
        parts.push(format!("held by {}", crate::kit::seats::colour(owner)));
    }
    if space.treasures_left > 0 {
        parts.push(format!("{} treasures", space.treasures_left));
    }
    if let Some(camp) = space.camp {
        parts.push(format!("camp of {}", crate::kit::seats::colour(camp)));
    }
    if let Some(guard) = &space.guard {
        parts.push(format!(
            "guarded by {}",
            crate::kit::seats::colour(guard.seat)
        ));
    }
    for pieces in &space.pieces {
        let leader = if pieces.leader { " and leader" } else { "" };
        parts.push(format!(
            "{}: {} workers{leader}",
            crate::kit::seats::colour(pieces.seat),
            pieces.workers
        ));
    }
    parts.join(", ")
}

/// Stepping stones as small dots just inside each edge (edges N, NE, SE, S, SW, NW).
fn draw_stones(svg: &mut Svg, at: Point, stones: &[u8]) {
    for (edge, &count) in stones.iter().enumerate().take(6) {
        let angle = -90.0 + 60.0 * edge as f64;
        let middle = at.towards(angle, RADIUS * SQRT_3 / 2.0 - 4.5);
        for stone in 0..count {
            let offset = (f64::from(stone) - f64::from(count - 1) / 2.0) * 8.0;
            let dot = middle.towards(angle + 90.0, offset);
            svg.circle(dot, 3.0, "#f4f0e4", "#5a5040");
        }
    }
}

/// Temple number, treasures, camp, guard and the figures of each seat.
fn draw_contents(svg: &mut Svg, at: Point, space: &SpaceView) {
    if let Some(value) = space.temple_value {
        let stroke = space.temple_owner.map_or("#5a5040", seat_fill);
        svg.rect(at.x - 12.0, at.y - 18.0, 24.0, 20.0, "#ffffff", stroke, 3.0);
        svg.text(
            Point::new(at.x, at.y - 3.0),
            TextStyle::new(14.0).middle().bold(),
            &value.to_string(),
        );
    }
    if space.terrain == Terrain::Treasure || space.treasures_left > 0 {
        svg.text(
            Point::new(at.x, at.y - 3.0),
            TextStyle::new(13.0).middle().bold().fill("#6a4a00"),
            &format!("\u{25c6}{}", space.treasures_left),
        );
    }
    if space.terrain == Terrain::Volcano {
        svg.text(
            Point::new(at.x, at.y - 3.0),
            TextStyle::new(11.0).middle().bold().fill("#ffffff"),
            "volcano",
        );
    }
    if space.terrain == Terrain::BaseCamp {
        svg.text(
            Point::new(at.x, at.y - 3.0),
            TextStyle::new(10.0).middle().bold(),
            "base camp",
        );
    }
    if let Some(camp) = space.camp {
        let base = Point::new(at.x - 30.0, at.y - 2.0);
        svg.polygon(
            &[
                Point::new(base.x - 8.0, base.y + 7.0),
                Point::new(base.x, base.y - 8.0),
                Point::new(base.x + 8.0, base.y + 7.0),
            ],
            seat_fill(camp),
            "#202020",
            1.0,
        );
    }
    if let Some(guard) = &space.guard {
        let label = match guard.piece {
            PieceKind::Leader => "GL",
            PieceKind::Worker => "G",
        };
        svg.seat_disc(Point::new(at.x + 28.0, at.y - 8.0), 9.0, guard.seat, label);
    }
    // Up to four seats' expeditions in a row below the centre.
    let count = space.pieces.len() as f64;
    for (index, pieces) in space.pieces.iter().enumerate() {
        let x = at.x + (index as f64 - (count - 1.0) / 2.0) * 20.0;
        let label = match (pieces.leader, pieces.workers) {
            (true, 0) => "L".to_owned(),
            (true, workers) => format!("L{workers}"),
            (false, workers) => workers.to_string(),
        };
        let centre = Point::new(x, at.y + 20.0);
        svg.circle(centre, 10.0, seat_fill(pieces.seat), "#202020");
        svg.text(
            Point::new(x, at.y + 24.0),
            TextStyle::new(if label.len() > 1 { 10.0 } else { 12.0 })
                .middle()
                .bold()
                .fill(seat_ink(pieces.seat)),
            &label,
        );
    }
}

fn seat_summary(player: &crate::tikal::view::PlayerView) -> SeatSummary {
    let leader = if player.leader_in_supply {
        "leader in supply"
    } else {
        "leader out"
    };
    let treasures: Vec<String> = player
        .treasures
        .iter()
        .map(|held| format!("{}\u{d7}kind {}", held.count, held.kind))
        .collect();
    let mut lines = vec![
        format!(
            "workers in supply {} \u{b7} {leader} \u{b7} camps {} \u{b7} guards {}",
            player.workers_in_supply, player.camps_left, player.guards_left
        ),
        format!(
            "temples now {} \u{b7} treasures now {} \u{b7} removed {}",
            player.temple_points_now, player.treasure_points_now, player.pieces_removed
        ),
    ];
    if !treasures.is_empty() {
        lines.push(format!("treasures: {}", treasures.join(", ")));
    }
    SeatSummary {
        seat: player.seat,
        score: player.score,
        lines,
    }
}

fn tile_text(tile: &TileView) -> String {
    match tile.terrain {
        Terrain::Temple => format!("temple {}", tile.value),
        Terrain::Treasure => format!("treasure ({} tokens)", tile.value),
        other => other.name().to_owned(),
    }
}

fn facts(view: &TikalView) -> Vec<String> {
    let phase = match view.phase {
        PhaseName::NotStarted => "not started",
        PhaseName::PlaceTile => "lay the hex in hand",
        PhaseName::Actions => "actions",
        PhaseName::ScoringTurn => "scoring turn",
        PhaseName::Bidding => "bidding for the turn",
        PhaseName::ChooseTile => "choose a hex",
        PhaseName::Finished => "finished",
    };
    let mut facts = vec![format!(
        "Phase: {phase} \u{b7} action points left {}",
        view.action_points_left
    )];
    if let Some(tile) = &view.tile_in_hand {
        facts.push(format!("Hex in hand: {}", tile_text(tile)));
    }
    let stacks: Vec<String> = view
        .stacks
        .iter()
        .map(|stack| format!("{} {}", stack.stack, stack.remaining))
        .collect();
    facts.push(format!("Hexes left: {}", stacks.join(" \u{b7} ")));
    let temples: Vec<String> = view
        .temple_tiles
        .iter()
        .filter(|tiles| tiles.remaining > 0)
        .map(|tiles| format!("{}\u{d7}{}", tiles.remaining, tiles.value))
        .collect();
    facts.push(format!("Temple tiles left: {}", temples.join(" ")));
    facts.push(format!(
        "Treasure tokens left {} \u{b7} scorings done {}{}",
        view.treasure_tokens_left,
        view.scorings_completed,
        if view.final_round {
            " \u{b7} final round"
        } else {
            ""
        }
    ));
    if !view.revealed.is_empty() {
        let revealed: Vec<String> = view.revealed.iter().map(tile_text).collect();
        facts.push(format!("Revealed hexes: {}", revealed.join(", ")));
    }
    if let Some(bidding) = &view.bidding {
        let high = bidding
            .high
            .as_ref()
            .map_or("no bid yet".to_owned(), |bid| {
                format!(
                    "high bid {} by {}",
                    bid.amount,
                    crate::kit::seats::colour(bid.seat)
                )
            });
        facts.push(format!(
            "Auction: {high}, {} to bid",
            crate::kit::seats::colour(bidding.current)
        ));
    }
    facts
}
