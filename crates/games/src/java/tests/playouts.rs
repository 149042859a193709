//! Random playouts driven only by `legal_actions`, with invariants checked at every step.

use std::collections::BTreeSet;

use rand::seq::SliceRandom;
use rand::Rng;

use rand_chacha::ChaCha8Rng;

use super::*;
use crate::engine::Viewer;
use crate::java::data::data;
use crate::java::event::EndReason;
use crate::java::rules::{settlements, tile_owed};
use crate::java::state::Phase;
use crate::kit::playout::{assert_no_leaks, Playout};

const FULL_FOLD_EVERY: usize = 40;
const LEAK_CHECK_EVERY: usize = 25;
const PROBE_EVERY: usize = 7;

fn weight(action: &JavaAction, state: &JavaState) -> f64 {
    match action {
        JavaAction::PlaceTile { tile, .. } => {
            let base = if tile_owed(state) { 12.0 } else { 2.5 };
            if *tile == TileKind::ThreeSpace {
                base
            } else {
                base * 0.25
            }
        }
        JavaAction::HoldFestival { .. } => 8.0,
        JavaAction::BuildPalace { .. } | JavaAction::RaisePalace { .. } => 6.0,
        JavaAction::EnterDeveloper { .. } => 3.0,
        JavaAction::MoveDeveloper { .. } => 2.0,
        JavaAction::WithdrawDeveloper { .. } => 0.2,
        JavaAction::PlaceIrrigation { .. } => 0.8,
        JavaAction::BuyCard { .. } => 2.0,
        JavaAction::UseActionChip => 0.4,
        JavaAction::EndTurn => 1.5,
        JavaAction::Bid { .. } => 2.0,
        JavaAction::Pass => 1.0,
        JavaAction::Agree => 2.0,
    }
}

/// An action's `type` tag, split by tile kind for placements.
type GroupKey = (&'static str, Option<TileKind>);

/// Picks a group of actions (by `type`, placements by tile kind, moves into cities apart)
/// by the group's weight, then one action of it uniformly, so the thousands of tile
/// placements do not drown the rest.
fn choose(actions: &[JavaAction], state: &JavaState, rng: &mut impl Rng) -> JavaAction {
    // Developers heading into cities make contested festivals likely.
    let towns = settlements(state);
    let in_city = |name: &str| {
        towns
            .of_space(board().index(name).unwrap())
            .is_some_and(|t| t.palace.is_some())
    };
    let mut kinds: Vec<(GroupKey, f64, Vec<&JavaAction>)> = Vec::new();
    for action in actions {
        let (key, w) = match action {
            JavaAction::PlaceTile { tile, .. } => {
                (("place_tile", Some(*tile)), weight(action, state))
            }
            JavaAction::EnterDeveloper { to, .. } | JavaAction::MoveDeveloper { to, .. }
                if in_city(to) =>
            {
                (("into_city", None), 5.0)
            }
            other => ((other.kind(), None), weight(action, state)),
        };
        match kinds.iter_mut().find(|(k, _, _)| *k == key) {
            Some(entry) => entry.2.push(action),
            None => kinds.push((key, w, vec![action])),
        }
    }
    let total: f64 = kinds.iter().map(|k| k.1).sum();
    let mut pick = rng.gen_range(0.0..total);
    for (_, w, group) in &kinds {
        if pick < *w {
            return (*group.choose(rng).unwrap()).clone();
        }
        pick -= w;
    }
    (*kinds.last().unwrap().2.choose(rng).unwrap()).clone()
}

/// Equal up to the optional `cost` field (which `legal_actions` always fills in).
fn same_ignoring_cost(listed: &JavaAction, probe: &JavaAction) -> bool {
    use JavaAction as A;
    match (listed, probe) {
        (
            A::PlaceTile {
                tile,
                space,
                rotation,
                ..
            },
            A::PlaceTile {
                tile: t,
                space: s,
                rotation: o,
                ..
            },
        ) => tile == t && space == s && rotation == o,
        (A::EnterDeveloper { to, .. }, A::EnterDeveloper { to: t, .. }) => to == t,
        (A::MoveDeveloper { from, to, .. }, A::MoveDeveloper { from: f, to: t, .. }) => {
            from == f && to == t
        }
        (A::WithdrawDeveloper { from, .. }, A::WithdrawDeveloper { from: f, .. }) => from == f,
        (a, b) => a == b,
    }
}

/// Random actions that decide accepts must be listed (up to the optional cost).
fn probe_unlisted(state: &JavaState, seat: Seat, listed: &[JavaAction], rng: &mut impl Rng) {
    let cells = board().len();
    let name = |rng: &mut dyn rand::RngCore| board().name(rng.gen_range(0..cells)).to_string();
    let own: Vec<String> = (0..cells)
        .filter(|&c| state.spaces[c].developer == Some(seat))
        .map(|c| board().name(c).to_string())
        .collect();
    let values = [2u8, 4, 6, 8, 10];
    let mut probes = vec![
        JavaAction::EndTurn,
        JavaAction::UseActionChip,
        JavaAction::Pass,
        JavaAction::Agree,
        JavaAction::BuyCard {
            source: CardSource::Deck,
        },
        JavaAction::BuyCard {
            source: CardSource::FaceUp,
        },
    ];
    for _ in 0..6 {
        probes.push(JavaAction::PlaceTile {
            tile: TileKind::ALL[rng.gen_range(0..4)],
            space: name(rng),
            rotation: rng.gen_range(0..6),
            cost: None,
        });
        probes.push(JavaAction::EnterDeveloper {
            to: name(rng),
            cost: None,
        });
        probes.push(JavaAction::WithdrawDeveloper {
            from: own.choose(rng).cloned().unwrap_or_else(|| name(rng)),
            cost: None,
        });
        probes.push(JavaAction::MoveDeveloper {
            from: own.choose(rng).cloned().unwrap_or_else(|| name(rng)),
            to: name(rng),
            cost: None,
        });
        probes.push(JavaAction::BuildPalace {
            space: name(rng),
            value: *values.choose(rng).unwrap(),
        });
        probes.push(JavaAction::RaisePalace {
            space: name(rng),
            value: *values.choose(rng).unwrap(),
        });
        probes.push(JavaAction::PlaceIrrigation { space: name(rng) });
    }
    for probe in probes {
        if Java::decide(state, seat, &probe, &mut super::rng(5)).is_ok() {
            assert!(
                listed.iter().any(|l| same_ignoring_cost(l, &probe)),
                "accepted but not listed: {probe:?}"
            );
        }
    }
}

fn check_invariants(state: &JavaState, palace_tiles_used: u32) {
    let m = &data().material;
    let seats = state.seats as usize;
    // Tiles are conserved.
    let placed = |size: u8| state.tile_sizes.iter().filter(|&&s| s == size).count();
    assert_eq!(
        placed(3) + state.three_space_tiles as usize,
        m.three_space_tiles as usize
    );
    let two_left: usize = state
        .players
        .iter()
        .map(|p| p.two_space_tiles as usize)
        .sum();
    assert_eq!(placed(2) + two_left, seats * m.two_space_tiles as usize);
    let one_left: usize = state
        .players
        .iter()
        .map(|p| (p.one_space_rice_tiles + p.one_space_village_tiles) as usize)
        .sum();
    let one_start = (m.one_space_rice_tiles + m.one_space_village_tiles) as usize;
    assert_eq!(placed(1) + one_left, seats * one_start);
    let irrigation_placed = state.spaces.iter().filter(|s| s.irrigation).count();
    assert_eq!(
        irrigation_placed + state.irrigation_tiles as usize,
        m.irrigation_tiles as usize
    );
    // Developers are conserved and stand on free tiles.
    for seat in 0..seats {
        let on_board = state
            .spaces
            .iter()
            .filter(|s| s.developer == Some(seat as Seat))
            .count();
        assert_eq!(
            on_board + state.players[seat].developers as usize,
            m.developers as usize
        );
    }
    for (i, s) in state.spaces.iter().enumerate() {
        if s.developer.is_some() {
            assert!(s.height > 0 && s.palace.is_none(), "bad developer at {i}");
        }
        if s.irrigation {
            assert_eq!(s.height, 0);
        }
        if s.palace.is_some() {
            assert_eq!(s.terrain, Some(Terrain::Village));
        }
    }
    // Palace tiles are conserved; one palace per settlement.
    let supply: u32 = state.palace_supply.iter().map(|p| u32::from(p.count)).sum();
    let total: u32 = data().palaces.iter().map(|&(_, c)| u32::from(c)).sum();
    assert_eq!(supply + palace_tiles_used, total);
    for town in settlements(state).groups {
        let palaces = town
            .cells
            .iter()
            .filter(|&&c| state.spaces[c].palace.is_some())
            .count();
        assert!(palaces <= 1, "two palaces in one settlement");
    }
    // Cards are conserved and ids are unique.
    let mut ids = BTreeSet::new();
    let mut count = 0;
    let mut note = |id: &str| {
        assert!(ids.insert(id.to_string()), "card {id} twice");
        count += 1;
    };
    state.deck.iter().for_each(|c| note(&c.id));
    state.discard.iter().for_each(|c| note(&c.id));
    state.face_up.iter().for_each(|c| note(&c.id));
    for p in &state.players {
        p.hand.iter().for_each(|h| note(&h.card.id));
    }
    if let Some(f) = state.festival() {
        for b in &f.bidders {
            b.played.iter().for_each(|c| note(&c.id));
        }
    }
    let deck_size: usize = data().cards.iter().map(|(_, n)| *n as usize).sum();
    assert_eq!(count, deck_size);
    assert!(state.turn.ap <= 7);
    // The named seat is the one that may act.
    let acting = Java::to_act(state);
    match state.phase {
        Phase::Finished => assert!(acting.is_empty()),
        _ => assert_eq!(acting.len(), 1),
    }
}

pub struct PlayoutStats {
    pub steps: usize,
    pub festivals: usize,
    pub contested_festivals: usize,
    pub shared_festivals: usize,
    pub reshuffles: usize,
    pub water_scored: usize,
    pub raises: usize,
    /// Turns that ended without a tile and left the game going on.
    pub played_on_without_tile: usize,
    /// Ends begun by a whole round without a tile.
    pub ended_by_a_round_without_tile: usize,
    /// Ends begun by a turn in which no tile fitted.
    pub ended_by_no_tile: usize,
}

pub fn playout(seats: u8, seed: u64, rules_version: u32, options: &JavaOptions) -> PlayoutStats {
    let mut stats = PlayoutStats {
        steps: 0,
        festivals: 0,
        contested_festivals: 0,
        shared_festivals: 0,
        reshuffles: 0,
        water_scored: 0,
        raises: 0,
        played_on_without_tile: 0,
        ended_by_a_round_without_tile: 0,
        ended_by_no_tile: 0,
    };
    let mut probes = 0;
    let strategy = |state: &JavaState, seat: Seat, actions: &[JavaAction], rng: &mut ChaCha8Rng| {
        // A few other listed actions must be accepted as well.
        for probe in actions.choose_multiple(rng, 2) {
            if let Err(e) = Java::decide(state, seat, probe, &mut rng.clone()) {
                panic!("seed {seed}: listed {probe:?} refused: {e}");
            }
        }
        probes += 1;
        if probes % PROBE_EVERY == 0 {
            probe_unlisted(state, seat, actions, rng);
        }
        choose(actions, state, rng)
    };
    let mut palace_tiles_used = 0;
    let mut before: Option<JavaState> = None;
    let runner = Playout::<Java>::new(options.clone(), seats)
        .rules_version(rules_version)
        .max_actions(5000)
        .fold_every(FULL_FOLD_EVERY);
    let finished = runner.run(seed, strategy, |state, events| {
        if let Some(mut previous) = before.take() {
            stats.steps += 1;
            for event in events {
                count_event(&mut stats, &mut palace_tiles_used, &previous, event);
                Java::evolve(&mut previous, event);
            }
            if stats.steps.is_multiple_of(LEAK_CHECK_EVERY) {
                assert_no_leaks::<Java>(state, events, seats);
            }
        }
        check_invariants(state, palace_tiles_used);
        before = Some(state.clone());
    });
    assert!(finished.state.players.iter().all(|p| p.counted));
    stats
}

/// Checks an event against the state before it (no action costs more AP than are left)
/// and counts what the playouts must exercise.
fn count_event(
    stats: &mut PlayoutStats,
    palace_tiles_used: &mut u32,
    before: &JavaState,
    event: &JavaEvent,
) {
    let _ = Java::describe(before, &Java::redact(event, Viewer::Spectator));
    match event {
        JavaEvent::TilePlaced { cost, .. }
        | JavaEvent::DeveloperEntered { cost, .. }
        | JavaEvent::DeveloperMoved { cost, .. }
        | JavaEvent::DeveloperWithdrawn { cost, .. } => assert!(*cost <= before.turn.ap),
        JavaEvent::PalaceBuilt { .. } => *palace_tiles_used += 1,
        JavaEvent::PalaceRaised { .. } => {
            *palace_tiles_used += 1;
            stats.raises += 1;
        }
        JavaEvent::FestivalStarted { participants, .. } => {
            stats.festivals += 1;
            if !participants.is_empty() {
                stats.contested_festivals += 1;
            }
        }
        JavaEvent::FestivalEnded { shared: true, .. } => stats.shared_festivals += 1,
        JavaEvent::DeckReshuffled { .. } => stats.reshuffles += 1,
        JavaEvent::WaterEnclosed {
            scorer: Some(_), ..
        } => stats.water_scored += 1,
        JavaEvent::TurnStarted { .. }
            if before.end_started_by.is_none()
                && matches!(before.phase, Phase::Turn | Phase::Festival(_))
                && before.turn.tiles_placed == 0 =>
        {
            assert!(
                before.play_on_when_no_tile_fits,
                "a tile-less turn played on"
            );
            stats.played_on_without_tile += 1;
        }
        JavaEvent::EndTriggered {
            reason: EndReason::NoTileForARound,
            ..
        } => {
            assert_eq!(before.turns_without_tile + 1, before.seats);
            stats.ended_by_a_round_without_tile += 1;
        }
        JavaEvent::EndTriggered {
            reason: EndReason::NoTilePlaceable,
            ..
        } => stats.ended_by_no_tile += 1,
        _ => {}
    }
}

fn run_seeds(seats: u8, seeds: std::ops::Range<u64>) {
    run_seeds_under(Java::newest_rules_version(), seats, seeds);
}

fn run_seeds_under(rules_version: u32, seats: u8, seeds: std::ops::Range<u64>) {
    run_seeds_with(&JavaOptions::default(), rules_version, seats, seeds);
}

fn run_seeds_with(
    options: &JavaOptions,
    rules_version: u32,
    seats: u8,
    seeds: std::ops::Range<u64>,
) -> (usize, usize) {
    let mut totals = (0, 0, 0, 0, 0, 0);
    let mut without_tile = (0, 0);
    let mut ended_by_no_tile = 0;
    let games = seeds.end - seeds.start;
    for seed in seeds {
        let stats = playout(seats, seed, rules_version, options);
        without_tile.0 += stats.played_on_without_tile;
        without_tile.1 += stats.ended_by_a_round_without_tile;
        ended_by_no_tile += stats.ended_by_no_tile;
        totals.0 += stats.festivals;
        totals.1 += stats.contested_festivals;
        totals.2 += stats.shared_festivals;
        totals.3 += stats.reshuffles;
        totals.4 += stats.water_scored;
        totals.5 += stats.raises;
    }
    // The playouts must exercise the interesting parts of the rules.
    assert!(totals.0 > 0, "no festival");
    assert!(totals.1 > 0, "no contested festival");
    assert!(totals.2 > 0, "no shared festival");
    assert!(totals.4 > 0, "no water scored");
    assert!(totals.5 > 0, "no palace raised");
    if seats > 2 {
        assert!(totals.3 > 0, "no reshuffle");
    }
    eprintln!(
        "rules v{rules_version} {options:?}, {seats} players: of {games} games {ended_by_no_tile} \
         ended by a turn without a possible tile, {} by a round without one ({} turns played \
         on without a tile)",
        without_tile.1, without_tile.0
    );
    without_tile
}

/// Games per seat count in the test command; the invariants are checked at every step of
/// each, and these seeds reach every rule the totals ask for.
const SEEDS_PER_SEAT_COUNT: u64 = 100;
/// Games per seat count in the heavy check, run by hand with
/// `cargo test --profile test -p turnpost-games -- --ignored heavy_java_playouts`.
const HEAVY_SEEDS_PER_SEAT_COUNT: u64 = 2_000;

#[test]
fn random_playouts_two_players() {
    run_seeds(2, 0..SEEDS_PER_SEAT_COUNT);
}

#[test]
fn random_playouts_three_players() {
    run_seeds(3, 1000..1000 + SEEDS_PER_SEAT_COUNT);
}

#[test]
fn random_playouts_four_players() {
    run_seeds(4, 2000..2000 + SEEDS_PER_SEAT_COUNT);
}

#[test]
#[ignore = "6,000 whole games; run by hand"]
fn heavy_java_playouts() {
    for (seats, first_seed) in [(2, 10_000), (3, 20_000), (4, 30_000)] {
        run_seeds(seats, first_seed..first_seed + HEAVY_SEEDS_PER_SEAT_COUNT);
    }
}

/// Games started under rules version 1 keep being played by its rules: its legal actions
/// must still be exactly what its `decide` accepts.
#[test]
fn random_playouts_under_rules_version_1() {
    run_seeds_under(1, 2, 3000..3040);
    run_seeds_under(1, 3, 4000..4040);
    run_seeds_under(1, 4, 5000..5040);
}

/// The option `play_on_when_no_tile_fits` (rules version 3): turns without a possible tile
/// end without one and the game goes on, every game still ends (a round without a tile ends
/// it), and every invariant holds as in the default game.
#[test]
fn random_playouts_playing_on_when_no_tile_fits() {
    let options = JavaOptions {
        play_on_when_no_tile_fits: true,
    };
    let mut totals = (0, 0);
    for (seats, seeds) in [(2, 6000..6060), (3, 7000..7060), (4, 8000..8060)] {
        let (played_on, ended_by_a_round) = run_seeds_with(&options, 3, seats, seeds);
        totals.0 += played_on;
        totals.1 += ended_by_a_round;
    }
    assert!(totals.0 > 0, "no turn played on without a tile");
    assert!(totals.1 > 0, "no game ended by a round without a tile");
}
