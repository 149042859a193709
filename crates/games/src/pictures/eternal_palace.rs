//! Eternal Palace: no hex grid but a table of locations. Each location is a labelled panel
//! (clickable by its key) with what lies on it: the groups placed this round, its track and
//! markers, temple / market spaces, monument ring and owner, yields, the bridge's bonuses;
//! then the palace track, the modules (labyrinth plan, river market card, compositions) and
//! the open advisors.

use std::collections::BTreeSet;

use super::svg::Part;
use super::svg::{self, clip, seat_fill, Point, Svg, TextStyle};
use super::{
    named_in, seats_part, with_side_panel, BoardContext, Layout, Panel, SeatSummary,
    NARROW_SMALLEST_TEXT,
};
use crate::engine::Seat;
use crate::eternal_palace::data::{data, BonusChoice, Goods, LocationKind};
use crate::eternal_palace::view::{
    EternalPalaceView, LabyrinthView, LocationView, PhaseView, PlayerView, RiverMarketView,
};
use crate::kit::seats::colour;

const MARGIN: f64 = 24.0;
const COLUMNS: usize = 4;
const CELL_WIDTH: f64 = 240.0;
const CELL_HEIGHT: f64 = 178.0;
const GAP: f64 = 10.0;
const FULL_WIDTH: f64 = CELL_WIDTH * COLUMNS as f64 + GAP * (COLUMNS as f64 - 1.0);
/// Around each part of a narrow picture.
const NARROW_MARGIN: f64 = 8.0;
/// The open cards' strip in a narrow picture: as wide as the seats' panel.
const NARROW_STRIP_WIDTH: f64 = 322.0;
/// The least height of a location card in a narrow picture.
const NARROW_CARD_HEIGHT: f64 = 56.0;
/// The narrowest box of the palace track before it is drawn in rows.
const PALACE_BOX: f64 = 28.0;
/// The mean width of a character of the strips' 11-unit text.
const STRIP_CHAR_WIDTH: f64 = 6.6;

fn kind_fill(kind: LocationKind) -> &'static str {
    match kind {
        LocationKind::FishMarket => "#d6ecf5",
        LocationKind::Academy => "#e6ddf3",
        LocationKind::Monument => "#f3e3c8",
        LocationKind::Resource => "#e3efd6",
        LocationKind::Temple => "#f4dede",
        LocationKind::Market => "#f6efcc",
        LocationKind::Bridge => "#dde6ee",
        LocationKind::Scrolls => "#efe6da",
        LocationKind::Labyrinth => "#dcefe6",
        LocationKind::RiverMarket => "#d4e6f6",
    }
}

fn kind_name(kind: LocationKind) -> &'static str {
    match kind {
        LocationKind::FishMarket => "fish market",
        LocationKind::Academy => "academy",
        LocationKind::Monument => "monument",
        LocationKind::Resource => "resource",
        LocationKind::Temple => "temple",
        LocationKind::Market => "market",
        LocationKind::Bridge => "bridge",
        LocationKind::Scrolls => "scrolls",
        LocationKind::Labyrinth => "labyrinth module",
        LocationKind::RiverMarket => "river market module",
    }
}

pub(super) fn picture(view: &EternalPalaceView, context: &BoardContext) -> String {
    let title = format!("Eternal Palace after event {}", context.seq);
    let highlighted = named_in(&context.last_events);
    let seats: Vec<SeatSummary> = view.players.iter().map(seat_summary).collect();
    let places: Option<Vec<u8>> = view.result.as_ref().map(|sheets| {
        let mut places = vec![0; view.players.len()];
        for sheet in sheets {
            if let Some(place) = places.get_mut(usize::from(sheet.seat)) {
                *place = sheet.place;
            }
        }
        places
    });
    let panel = Panel {
        game: "Eternal Palace",
        seats: &seats,
        places: places.as_deref(),
        facts: &facts(view),
    };
    match context.layout {
        Layout::Wide => {
            let (board, size) = whole_board(view, &highlighted);
            with_side_panel(board, size, context, &panel, &title)
        }
        Layout::Narrow => {
            let mut parts = narrow_parts(view, &highlighted, &title);
            parts.push(seats_part(context, &panel, &title));
            svg::stacked(parts, NARROW_SMALLEST_TEXT, &title)
        }
    }
}

/// The bridge and the labyrinth need the whole width for their paths.
fn is_wide(location: &LocationView) -> bool {
    matches!(
        location.kind,
        LocationKind::Bridge | LocationKind::Labyrinth
    )
}

fn wide_height(location: &LocationView) -> f64 {
    if location.kind == LocationKind::Labyrinth {
        230.0
    } else {
        130.0
    }
}

/// Everything but the seats in one drawing, with its size: the ordinary locations in a grid
/// in the data's order, the wide ones under them, the palace track, the open cards.
fn whole_board(view: &EternalPalaceView, highlighted: &BTreeSet<String>) -> (Svg, (f64, f64)) {
    let mut svg = Svg::new();
    svg.text(
        Point::new(MARGIN, MARGIN + 8.0),
        TextStyle::new(16.0).bold(),
        &format!("Eternal Palace \u{b7} round {}", view.round),
    );
    let mut y = MARGIN + 24.0;
    let grid: Vec<&LocationView> = view.locations.iter().filter(|l| !is_wide(l)).collect();
    for (index, location) in grid.iter().enumerate() {
        let column = index % COLUMNS;
        let row = index / COLUMNS;
        let x = MARGIN + column as f64 * (CELL_WIDTH + GAP);
        let top = y + row as f64 * (CELL_HEIGHT + GAP);
        location_panel(
            &mut svg,
            view,
            location,
            x,
            top,
            CELL_WIDTH,
            CELL_HEIGHT,
            highlighted,
        );
    }
    y += grid.len().div_ceil(COLUMNS) as f64 * (CELL_HEIGHT + GAP);
    for location in view.locations.iter().filter(|l| is_wide(l)) {
        let height = wide_height(location);
        location_panel(
            &mut svg,
            view,
            location,
            MARGIN,
            y,
            FULL_WIDTH,
            height,
            highlighted,
        );
        y += height + GAP;
    }
    let strip = Strip {
        left: MARGIN,
        width: FULL_WIDTH,
    };
    y = palace_track(&mut svg, view, strip, y);
    for (heading, lines) in open_cards(view) {
        y = text_strip(&mut svg, strip, y, heading, lines);
    }
    (svg, (MARGIN + FULL_WIDTH + MARGIN, y + MARGIN))
}

/// For a phone: the ordinary locations as a list of cards one under the other (each as wide
/// as a phone once its small text is readable), then each module location and the bridge as
/// a part of its own, the palace track and the open cards.
fn narrow_parts(
    view: &EternalPalaceView,
    highlighted: &BTreeSet<String>,
    title: &str,
) -> Vec<Part> {
    let card_part_width = CELL_WIDTH + 2.0 * NARROW_MARGIN;
    let own_part =
        |location: &LocationView| is_wide(location) || location.kind == LocationKind::RiverMarket;
    let mut cards = Svg::new();
    cards.text(
        Point::new(NARROW_MARGIN, 20.0),
        TextStyle::new(16.0).bold(),
        &format!("Eternal Palace \u{b7} round {}", view.round),
    );
    let mut y = 30.0;
    for location in view.locations.iter().filter(|l| !own_part(l)) {
        // A card in a list is as tall as what is on it: drawn once aside to learn that.
        let content = location_panel(
            &mut Svg::new(),
            view,
            location,
            NARROW_MARGIN,
            y,
            CELL_WIDTH,
            CELL_HEIGHT,
            highlighted,
        );
        let height = (content - y + 10.0).clamp(NARROW_CARD_HEIGHT, CELL_HEIGHT);
        location_panel(
            &mut cards,
            view,
            location,
            NARROW_MARGIN,
            y,
            CELL_WIDTH,
            height,
            highlighted,
        );
        y += height + GAP;
    }
    let mut parts = vec![Part {
        name: "locations",
        title: format!("{title}: the locations"),
        drawing: cards,
        width: card_part_width,
        height: y,
    }];
    for location in view.locations.iter().filter(|l| own_part(l)) {
        let (name, width, height) = match location.kind {
            LocationKind::Bridge => ("bridge", FULL_WIDTH, wide_height(location)),
            LocationKind::Labyrinth => ("labyrinth", FULL_WIDTH, wide_height(location)),
            _ => ("river-market", CELL_WIDTH, CELL_HEIGHT),
        };
        let mut drawing = Svg::new();
        location_panel(
            &mut drawing,
            view,
            location,
            NARROW_MARGIN,
            NARROW_MARGIN,
            width,
            height,
            highlighted,
        );
        parts.push(Part {
            name,
            title: format!("{title}: {}", location.name),
            drawing,
            width: width + 2.0 * NARROW_MARGIN,
            height: height + 2.0 * NARROW_MARGIN,
        });
    }
    let mut palace = Svg::new();
    let strip = Strip {
        left: NARROW_MARGIN,
        width: CELL_WIDTH,
    };
    let bottom = palace_track(&mut palace, view, strip, NARROW_MARGIN);
    parts.push(Part {
        name: "palace",
        title: format!("{title}: the palace track"),
        drawing: palace,
        width: card_part_width,
        height: bottom,
    });
    // The open cards are plain lines of the panel's size: a strip as wide as the seats.
    let mut cards = Svg::new();
    let strip = Strip {
        left: NARROW_MARGIN,
        width: NARROW_STRIP_WIDTH,
    };
    let mut y = NARROW_MARGIN;
    for (heading, lines) in open_cards(view) {
        y = text_strip(&mut cards, strip, y, heading, lines);
    }
    parts.push(Part {
        name: "cards",
        title: format!("{title}: the open cards"),
        drawing: cards,
        width: NARROW_STRIP_WIDTH + 2.0 * NARROW_MARGIN,
        height: y,
    });
    parts
}

/// The open compositions (with that module) and advisors, a heading and its lines each.
fn open_cards(view: &EternalPalaceView) -> Vec<(&'static str, Vec<String>)> {
    let mut strips = Vec::new();
    if let Some(cards) = &view.compositions {
        strips.push((
            "Compositions (open cards)",
            cards
                .iter()
                .map(|card| {
                    format!(
                        "{}: layers {} \u{b7} {} seals \u{b7} gives {}",
                        card.id,
                        card.layers.join(", "),
                        card.seals,
                        card.gain.text()
                    )
                })
                .collect(),
        ));
    }
    let mut advisors: Vec<String> = view
        .display
        .iter()
        .map(|card| format!("{} {} (cost {})", card.id, card.name, card.cost.text()))
        .collect();
    advisors.push(format!(
        "deck {} \u{b7} discard {} \u{b7} privilege tokens in supply {}",
        view.deck_size,
        view.discard.len(),
        view.privilege_supply
    ));
    for known in &view.known_deck_cards {
        advisors.push(format!(
            "you know deck card {} at position {}: {}",
            known.card.id, known.position, known.card.name
        ));
    }
    strips.push(("Open advisors", advisors));
    strips
}

#[allow(clippy::too_many_arguments)]
fn location_panel(
    svg: &mut Svg,
    view: &EternalPalaceView,
    location: &LocationView,
    x: f64,
    top: f64,
    width: f64,
    height: f64,
    highlighted: &BTreeSet<String>,
) -> f64 {
    let is_highlighted = highlighted.contains(&location.key)
        || location
            .spaces
            .iter()
            .any(|space| highlighted.contains(&space.space.id));
    svg.open_space(
        &location.key,
        &format!("{} \u{b7} {}", location.key, location.name),
        is_highlighted,
    );
    svg.rect(
        x,
        top,
        width,
        height,
        kind_fill(location.kind),
        "#6a6050",
        1.2,
    );
    svg.text(
        Point::new(x + 8.0, top + 18.0),
        TextStyle::new(14.0).bold(),
        &clip(&format!("{} \u{b7} {}", location.key, location.name), 26),
    );
    let mut badges = vec![kind_name(location.kind).to_owned()];
    if matches!(
        location.kind,
        LocationKind::Labyrinth | LocationKind::RiverMarket
    ) {
        let group = if view.any_group_at_module_locations {
            "any group"
        } else {
            "1 die"
        };
        badges.push(group.to_owned());
    }
    if location.tile {
        badges.push("tile".to_owned());
    }
    if location.decoration_available {
        badges.push("decoration".to_owned());
    }
    if location.kind != LocationKind::Scrolls {
        badges.push(format!("fish to pay {}", location.fish_to_pay));
    }
    svg.text(
        Point::new(x + 8.0, top + 33.0),
        TextStyle::new(9.0).fill("#504838"),
        &clip(&badges.join(" \u{b7} "), (width / 5.4) as usize),
    );
    let mut y = top + 40.0;
    y = placed_groups(svg, location, x + 8.0, y);
    let inner = width - 16.0;
    if let Some(length) = location.track_length {
        y = track(svg, location, length, x + 8.0, y, inner);
    }
    if !location.spaces.is_empty() {
        y = marked_spaces(svg, location, x + 8.0, y, inner);
    }
    let mut lines = Vec::new();
    if !location.yields.is_empty() {
        let resource = location.resource.map_or("", |resource| resource.name());
        let yields: Vec<String> = location
            .yields
            .iter()
            .map(|step| format!("{}d\u{2192}{}", step.dice, step.amount))
            .collect();
        lines.push(format!("{resource}: {}", yields.join(" ")));
    }
    if let Some(ring) = location.ring {
        let resource = location.resource.map_or("", |resource| resource.name());
        let owner = location.owner.map_or("no owner".to_owned(), |seat| {
            format!("owner {}", colour(seat))
        });
        lines.push(format!("ring {ring} {resource} \u{b7} {owner}"));
    }
    for line in lines {
        y += 14.0;
        svg.text(Point::new(x + 8.0, y), TextStyle::new(11.0), &line);
    }
    if let Some(owner) = location.owner {
        svg.seat_disc(Point::new(x + width - 16.0, top + 16.0), 9.0, owner, "M");
    }
    if location.kind == LocationKind::Labyrinth {
        if let Some(labyrinth) = &view.labyrinth {
            labyrinth_plan(svg, labyrinth, x + 8.0, y + 8.0, inner);
        }
    }
    if location.kind == LocationKind::RiverMarket {
        if let Some(market) = &view.river_market {
            river_market(svg, market, x + 8.0, y + 4.0);
        }
    }
    if is_highlighted {
        svg.rect(
            x + 2.0,
            top + 2.0,
            width - 4.0,
            height - 4.0,
            "none",
            svg::HIGHLIGHT,
            4.0,
        );
    }
    svg.close_group();
    y
}

/// The groups lying on the location this round, as seat-coloured tiles with their pips.
fn placed_groups(svg: &mut Svg, location: &LocationView, x: f64, top: f64) -> f64 {
    if location.dice.is_empty() {
        return top;
    }
    let mut left = x;
    for group in &location.dice {
        let pips: Vec<String> = group.pips.iter().map(u8::to_string).collect();
        let label = pips.join(" ");
        let width = 10.0 + 7.5 * label.chars().count() as f64;
        svg.rect(
            left,
            top + 2.0,
            width,
            16.0,
            seat_fill(group.seat),
            "#202020",
            1.0,
        );
        svg.text(
            Point::new(left + width / 2.0, top + 14.0),
            TextStyle::new(11.0)
                .middle()
                .bold()
                .fill(svg::seat_ink(group.seat)),
            &label,
        );
        left += width + 4.0;
    }
    top + 20.0
}

/// A track of boxes 0 (start) to `length`, each seat's marker on its box.
fn track(svg: &mut Svg, location: &LocationView, length: u8, x: f64, top: f64, width: f64) -> f64 {
    let boxes = f64::from(length) + 1.0;
    let step = width / boxes;
    for position in 0..=length {
        let left = x + step * f64::from(position);
        let bonus = location
            .bonuses
            .iter()
            .filter(|bonus| bonus.space == position)
            .map(|bonus| match bonus.choice {
                Some(BonusChoice::Resource) => "any resource".to_owned(),
                Some(BonusChoice::Advisor) => "free advisor".to_owned(),
                Some(BonusChoice::ResourceStep) => "resource step".to_owned(),
                None => goods_short(&bonus.gain),
            })
            .collect::<Vec<_>>();
        let fill = if position == length {
            "#fff4c0"
        } else {
            "#ffffff"
        };
        svg.rect(
            left + 1.0,
            top + 4.0,
            step - 2.0,
            34.0,
            fill,
            "#8a8070",
            1.0,
        );
        svg.text(
            Point::new(left + 4.0, top + 14.0),
            TextStyle::new(9.0).fill("#605848"),
            &position.to_string(),
        );
        for (index, line) in bonus.iter().enumerate() {
            svg.text(
                Point::new(left + step / 2.0, top + 50.0 + 10.0 * index as f64),
                TextStyle::new(8.0).middle().fill("#404040"),
                &clip(line, 14),
            );
        }
        let here: Vec<Seat> = location
            .markers
            .iter()
            .enumerate()
            .filter(|(_, marker)| **marker == position)
            .map(|(seat, _)| seat as Seat)
            .collect();
        markers(
            svg,
            &here,
            Point::new(left + step / 2.0, top + 27.0),
            step - 4.0,
        );
    }
    let bonus_rows = (0..=length)
        .map(|position| {
            location
                .bonuses
                .iter()
                .filter(|bonus| bonus.space == position)
                .count()
        })
        .max()
        .unwrap_or(0);
    top + 42.0 + 10.0 * bonus_rows as f64
}

/// Seat markers side by side around `centre`, squeezed to fit `width`.
fn markers(svg: &mut Svg, seats: &[Seat], centre: Point, width: f64) {
    if seats.is_empty() {
        return;
    }
    let count = seats.len() as f64;
    let spacing = (width / count).min(12.0);
    let radius = (spacing / 2.0 - 0.5).clamp(2.5, 5.5);
    for (index, seat) in seats.iter().enumerate() {
        let x = centre.x + (index as f64 - (count - 1.0) / 2.0) * spacing;
        svg.circle(Point::new(x, centre.y), radius, seat_fill(*seat), "#202020");
    }
}

/// Temple / market spaces with their dice and the seats that marked them.
fn marked_spaces(svg: &mut Svg, location: &LocationView, x: f64, top: f64, width: f64) -> f64 {
    let count = location.spaces.len() as f64;
    let step = width / count;
    for (index, space) in location.spaces.iter().enumerate() {
        let left = x + step * index as f64;
        let data = &space.space;
        svg.rect(
            left + 1.0,
            top + 4.0,
            step - 2.0,
            40.0,
            "#ffffff",
            "#8a8070",
            1.0,
        );
        let dice = if data.dice_min == data.dice_max {
            format!("{} dice", data.dice_min)
        } else {
            format!("{}-{} dice", data.dice_min, data.dice_max)
        };
        svg.text(
            Point::new(left + 4.0, top + 16.0),
            TextStyle::new(9.0).bold(),
            &format!("{} \u{b7} {dice}", data.id),
        );
        markers(
            svg,
            &space.marked_by,
            Point::new(left + step / 2.0, top + 32.0),
            step - 6.0,
        );
    }
    top + 48.0
}

/// The labyrinth's stations in columns by distance from the entrance, its arrows with the
/// fish to pay, and each seat's marker.
fn labyrinth_plan(svg: &mut Svg, labyrinth: &LabyrinthView, x: f64, top: f64, width: f64) {
    let stations = &labyrinth.stations;
    let index_of = |id: &str| stations.iter().position(|station| station.id == id);
    // Longest distance from a station without arrows into it (the arrows form no cycle).
    let mut depth = vec![0usize; stations.len()];
    for _ in 0..stations.len() {
        for arrow in &labyrinth.arrows {
            if let (Some(from), Some(to)) = (index_of(&arrow.from), index_of(&arrow.to)) {
                depth[to] = depth[to].max(depth[from] + 1);
            }
        }
    }
    let columns = depth.iter().max().map_or(1, |deepest| deepest + 1);
    let column_width = width / columns as f64;
    let (box_width, box_height) = ((column_width - 44.0).min(150.0), 40.0);
    let positions: Vec<Point> = (0..stations.len())
        .map(|station| {
            let same_column: Vec<usize> = (0..stations.len())
                .filter(|other| depth[*other] == depth[station])
                .collect();
            let row = same_column
                .iter()
                .position(|other| *other == station)
                .unwrap_or(0);
            let rows = same_column.len() as f64;
            let middle = top + 70.0;
            Point::new(
                x + column_width * depth[station] as f64 + column_width / 2.0,
                middle + (row as f64 - (rows - 1.0) / 2.0) * (box_height + 22.0),
            )
        })
        .collect();
    for arrow in &labyrinth.arrows {
        let (Some(from), Some(to)) = (index_of(&arrow.from), index_of(&arrow.to)) else {
            continue;
        };
        let start = Point::new(positions[from].x + box_width / 2.0, positions[from].y);
        let end = Point::new(positions[to].x - box_width / 2.0, positions[to].y);
        svg.line(start, end, "#c03020", 2.0);
        svg.circle(end, 3.0, "#c03020", "#c03020");
        if arrow.fish > 0 {
            svg.text(
                Point::new((start.x + end.x) / 2.0, (start.y + end.y) / 2.0 - 4.0),
                TextStyle::new(9.0).middle().bold().fill("#c03020"),
                &format!("{}f", arrow.fish),
            );
        }
    }
    for (index, station) in stations.iter().enumerate() {
        let at = positions[index];
        let fill = if station.middle { "#fff4c0" } else { "#ffffff" };
        svg.rect(
            at.x - box_width / 2.0,
            at.y - box_height / 2.0,
            box_width,
            box_height,
            fill,
            "#6a6050",
            1.0,
        );
        svg.text(
            Point::new(at.x, at.y - 6.0),
            TextStyle::new(10.0).middle().bold(),
            &clip(&station.name, 20),
        );
        svg.text(
            Point::new(at.x, at.y + 5.0),
            TextStyle::new(8.0).middle().fill("#504838"),
            &clip(&goods_short(&station.gain), 24),
        );
        let here: Vec<Seat> = labyrinth
            .markers
            .iter()
            .enumerate()
            .filter(|(_, marker)| **marker == station.id)
            .map(|(seat, _)| seat as Seat)
            .collect();
        markers(svg, &here, Point::new(at.x, at.y + 14.0), box_width - 8.0);
    }
    svg.text(
        Point::new(x, top + 150.0),
        TextStyle::new(9.0).fill("#c03020"),
        "Red arrows lead on; 2f = 2 fish to pay on the way.",
    );
}

/// The open demand card, its fields with the markers on them and the deck's size.
fn river_market(svg: &mut Svg, market: &RiverMarketView, x: f64, top: f64) {
    let card = market.card.as_ref().map_or("no card".to_owned(), |card| {
        format!(
            "card {}: reward {}, penalty {}",
            card.id,
            goods_short(&card.reward),
            goods_short(&card.penalty)
        )
    });
    svg.text(
        Point::new(x, top + 10.0),
        TextStyle::new(9.0),
        &clip(&card, 44),
    );
    for (index, field) in market.fields.iter().enumerate() {
        let row = top + 14.0 + 16.0 * index as f64;
        let resources: Vec<&str> = field.resources.iter().map(|r| r.name()).collect();
        svg.rect(x, row, 170.0, 14.0, "#ffffff", "#8a8070", 1.0);
        svg.text(
            Point::new(x + 4.0, row + 11.0),
            TextStyle::new(9.0),
            &format!("field {}: {}", field.field, resources.join("/")),
        );
        if let Some(seat) = field.marker {
            svg.circle(
                Point::new(x + 162.0, row + 7.0),
                5.0,
                seat_fill(seat),
                "#202020",
            );
        }
    }
    let bottom = top + 14.0 + 16.0 * market.fields.len() as f64 + 10.0;
    svg.text(
        Point::new(x, bottom),
        TextStyle::new(9.0).fill("#504838"),
        &format!(
            "demand deck {} \u{b7} used {}",
            market.deck_size,
            market.used.len()
        ),
    );
}

/// Where a full-width strip (the palace track, a list of cards) is drawn.
#[derive(Debug, Clone, Copy)]
struct Strip {
    left: f64,
    width: f64,
}

/// The palace track 0..length with each seat's marker (earlier arrivals first), in rows
/// when the strip is too narrow for boxes of [`PALACE_BOX`] units in one.
fn palace_track(svg: &mut Svg, view: &EternalPalaceView, strip: Strip, top: f64) -> f64 {
    let length = data().palace.length;
    let Strip { left: x, width } = strip;
    let inner = width - 16.0;
    let boxes = usize::from(length) + 1;
    let per_row = ((inner / PALACE_BOX) as usize).clamp(1, boxes);
    let rows = boxes.div_ceil(per_row);
    let step = inner / per_row as f64;
    let height = 26.0 + 44.0 * rows as f64;
    svg.open_group("palace-track");
    svg.rect(x, top, width, height, "#f0e8f6", "#6a6050", 1.2);
    svg.text(
        Point::new(x + 8.0, top + 18.0),
        TextStyle::new(14.0).bold(),
        "Palace track",
    );
    for position in 0..=length {
        let index = usize::from(position);
        let left = x + 8.0 + step * (index % per_row) as f64;
        let row_top = top + 44.0 * (index / per_row) as f64;
        svg.rect(
            left + 1.0,
            row_top + 26.0,
            step - 2.0,
            36.0,
            "#ffffff",
            "#8a8070",
            1.0,
        );
        svg.text(
            Point::new(left + 4.0, row_top + 36.0),
            TextStyle::new(9.0).fill("#605848"),
            &position.to_string(),
        );
        let mut here: Vec<&PlayerView> = view
            .players
            .iter()
            .filter(|player| player.palace == position)
            .collect();
        here.sort_by_key(|player| (player.palace_arrival, player.seat));
        let seats: Vec<Seat> = here.iter().map(|player| player.seat).collect();
        markers(
            svg,
            &seats,
            Point::new(left + step / 2.0, row_top + 50.0),
            step - 4.0,
        );
    }
    svg.close_group();
    top + height + GAP
}

/// A strip of text lines under a heading: in two columns of clipped lines on the whole
/// board's width, in one column of wrapped lines on a narrower strip.
fn text_strip(svg: &mut Svg, strip: Strip, top: f64, heading: &str, lines: Vec<String>) -> f64 {
    let Strip { left: x, width } = strip;
    let (columns, lines) = if width >= FULL_WIDTH {
        (2, lines.iter().map(|line| clip(line, 68)).collect())
    } else {
        let chars = ((width - 16.0) / STRIP_CHAR_WIDTH) as usize;
        (
            1,
            lines
                .iter()
                .flat_map(|line| svg::wrap(line, chars))
                .collect::<Vec<_>>(),
        )
    };
    let rows = lines.len().div_ceil(columns);
    let height = 28.0 + 14.0 * rows as f64;
    svg.open_group("strip");
    svg.rect(x, top, width, height, "#ffffff", "#6a6050", 1.0);
    svg.text(
        Point::new(x + 8.0, top + 17.0),
        TextStyle::new(13.0).bold(),
        heading,
    );
    for (index, line) in lines.iter().enumerate() {
        let column = index / rows.max(1);
        let row = index % rows.max(1);
        svg.text(
            Point::new(
                x + 8.0 + column as f64 * width / 2.0,
                top + 32.0 + 14.0 * row as f64,
            ),
            TextStyle::new(11.0),
            line,
        );
    }
    svg.close_group();
    top + height + GAP
}

/// "2 fish, 1 wisdom" in few letters, for the small boxes.
fn goods_short(goods: &Goods) -> String {
    let text = goods.text();
    if text == "nothing" {
        "-".to_owned()
    } else {
        text.replace("palace step(s)", "palace")
            .replace("privilege(s)", "privilege")
    }
}

fn seat_summary(player: &PlayerView) -> SeatSummary {
    let stock = &player.stock;
    let mut lines = vec![
        format!(
            "fish {} \u{b7} wisdom {} \u{b7} wood {} stone {} kaolin {} bronze {}",
            stock.fish, stock.wisdom, stock.wood, stock.stone, stock.kaolin, stock.bronze
        ),
        format!(
            "dice {} (+{} at palace) \u{b7} palace {} \u{b7} privileges {} \u{b7} deco {}",
            player.active_dice,
            player.palace_dice,
            player.palace,
            stock.privilege,
            player.decorations
        ),
        format!("layers: {}", list_or_none(&player.layers)),
    ];
    if !player.monuments.is_empty() {
        lines.push(format!("monuments: {}", player.monuments.join(", ")));
    }
    if !player.rolled.is_empty() {
        let rolled: Vec<String> = player.rolled.iter().map(u8::to_string).collect();
        lines.push(format!("rolled: {}", rolled.join(" ")));
    }
    // Groups are in the view only where the viewer may see them (its own while sealed).
    match &player.groups {
        Some(groups) => {
            let groups: Vec<String> = groups
                .iter()
                .map(|group| {
                    let pips: Vec<String> = group.pips.iter().map(u8::to_string).collect();
                    let placed = if group.placed { " placed" } else { "" };
                    format!("[{}{placed}]", pips.join(" "))
                })
                .collect();
            lines.push(format!("groups: {}", groups.join(" ")));
        }
        None if player.grouped => lines.push("groups: sealed".to_owned()),
        None => {}
    }
    if !player.advisors.is_empty() {
        let names: Vec<String> = player
            .advisors
            .iter()
            .map(|owned| {
                let used = if owned.used { " (used)" } else { "" };
                format!("{}{used}", owned.card.name)
            })
            .collect();
        lines.push(format!("advisors: {}", names.join(", ")));
    }
    if let Some(station) = &player.station {
        lines.push(format!("labyrinth station: {station}"));
    }
    if !player.compositions.is_empty() {
        lines.push(format!("compositions: {}", player.compositions.join(", ")));
    }
    SeatSummary {
        seat: player.seat,
        score: player.score,
        lines,
    }
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

fn facts(view: &EternalPalaceView) -> Vec<String> {
    let phase = match view.phase {
        PhaseView::Setup => "setup",
        PhaseView::Grouping => "grouping (secret)",
        PhaseView::Privileges => "privileges",
        PhaseView::Placement => "placement",
        PhaseView::Finished => "finished",
    };
    let order: Vec<&str> = view.turn_order.iter().map(|&seat| colour(seat)).collect();
    let mut facts = vec![
        format!(
            "Round {}{} \u{b7} phase {phase}",
            view.round,
            view.round_limit
                .map_or(String::new(), |limit| format!(" of at most {limit}"))
        ),
        format!("Turn order: {}", order.join(", ")),
        format!("Layers that end the game: {}", view.layers_to_end),
    ];
    if let Some(placer) = view.placer {
        facts.push(format!("Placing now: {}", colour(placer)));
    }
    if let Some(pending) = &view.pending {
        facts.push(format!("{} owes a decision", colour(pending.seat)));
    }
    if let Some(seat) = view.completion {
        facts.push(format!("Completion prize: {}", colour(seat)));
    }
    if let Some(seat) = view.sequence {
        facts.push(format!("Sequence prize: {}", colour(seat)));
    }
    if !view.location_tiles.is_empty() {
        facts.push(format!(
            "Location tiles on: {}",
            view.location_tiles.join(", ")
        ));
    }
    if let Some(reserve) = view.academy_reserve {
        facts.push(format!("Academy reserve: {reserve} wisdom"));
    }
    facts
}
