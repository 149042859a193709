//! How visits turn into painting layers: a step on a location's track or a marked space,
//! the layer at the track's end or with enough marks, and the decoration that comes with it.

use super::compositions::claim_compositions;
use super::decision::Ctx;
use crate::engine::Seat;
use crate::eternal_palace::data::{data, LocationKind};
use crate::eternal_palace::event::Event;

/// One step on a location track; the last space brings the layer.
pub(super) fn step_track(cx: &mut Ctx, seat: Seat, index: usize) {
    let d = data();
    let spot = &d.locations[index];
    let Some(length) = spot.track_length() else {
        return;
    };
    let at = cx.state().players[seat as usize].tracks[index];
    if at >= length {
        return;
    }
    cx.emit(Event::TrackAdvanced {
        seat,
        location: spot.key.clone(),
        to: at + 1,
    });
    if at + 1 >= length {
        take_layer(cx, seat, index);
    }
}

pub(super) fn take_layer(cx: &mut Ctx, seat: Seat, index: usize) {
    let d = data();
    let spot = &d.locations[index];
    if !spot.layer {
        // the river market's last field: the decoration only
        take_decoration(cx, seat, &spot.key);
        return;
    }
    if cx.state().players[seat as usize].layers.contains(&spot.key) {
        return;
    }
    cx.emit(Event::LayerTaken {
        seat,
        layer: spot.key.clone(),
    });
    if spot.kind != LocationKind::Monument {
        take_decoration(cx, seat, &spot.key);
    }
    if cx.state().compositions {
        claim_compositions(cx, seat);
    }
}

pub(super) fn take_decoration(cx: &mut Ctx, seat: Seat, key: &str) {
    if cx.state().decorations.iter().any(|k| k == key) {
        cx.emit(Event::DecorationTaken {
            seat,
            location: key.to_string(),
        });
    }
}

pub(super) fn mark_space(cx: &mut Ctx, seat: Seat, index: usize, dice: usize) {
    let d = data();
    let spot = &d.locations[index];
    let Some(space) = spot.space_for(dice) else {
        return;
    };
    if cx.state().players[seat as usize].marks.contains(&space.id) {
        return;
    }
    cx.emit(Event::SpaceMarked {
        seat,
        space: space.id.clone(),
    });
    let marks_here = spot
        .spaces
        .iter()
        .filter(|s| cx.state().players[seat as usize].marks.contains(&s.id))
        .count();
    if marks_here >= spot.layer_at_marks.unwrap_or(2) {
        take_layer(cx, seat, index);
    }
}
