//! Random playouts driven only by `legal_actions`.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::engine::{Engine, Seat};
use crate::eternal_palace::action::Action;
use crate::eternal_palace::data::{data, LOCATIONS};
use crate::eternal_palace::state::{token_card, Pending, Phase, State};
use crate::eternal_palace::{EternalPalace, EternalPalaceOptions, Event};
use crate::kit::playout::Playout;

/// Everything that must hold between any two decisions.
pub fn check_invariants(state: &State) {
    let d = data();
    assert!(state.round <= d.round_limit.rounds, "round bound");
    // dice are conserved: active + palace, and placed dice lie on the board
    for (i, p) in state.players.iter().enumerate() {
        assert_eq!(p.active_dice + p.palace_dice, d.dice.per_player);
        if state.phase == Phase::Placement {
            let in_groups: usize = p.groups.iter().map(Vec::len).sum();
            assert_eq!(in_groups, p.active_dice as usize, "groups use all dice");
            let placed: usize = p
                .groups
                .iter()
                .zip(&p.placed)
                .filter(|(_, placed)| **placed)
                .map(|(g, _)| g.len())
                .sum();
            let on_board: usize = state
                .location_dice
                .iter()
                .flatten()
                .filter(|g| g.seat as usize == i)
                .map(|g| g.pips.len())
                .sum();
            assert_eq!(placed, on_board, "placed dice lie on the board");
        }
        if state.phase == Phase::Grouping {
            assert_eq!(p.rolled.len(), p.active_dice as usize);
        }
        // no negative stock
        let s = p.stock;
        for v in [
            s.fish,
            s.wisdom,
            s.wood,
            s.stone,
            s.kaolin,
            s.bronze,
            s.privilege,
        ] {
            assert!(v >= 0, "negative stock {s:?}");
        }
        assert_eq!(s.palace, 0);
        assert!(p.palace <= d.palace.length);
        for (li, pos) in p.tracks.iter().enumerate() {
            let max = d.locations[li].track_length().unwrap_or(0);
            assert!(*pos <= max);
        }
        let mut layers = p.layers.clone();
        layers.sort();
        layers.dedup();
        assert_eq!(layers.len(), p.layers.len(), "layers are unique");
    }
    // advisor cards are conserved
    let mut cards: Vec<String> = state
        .deck
        .iter()
        .map(|t| token_card(t).to_string())
        .collect();
    cards.extend(state.discard.iter().cloned());
    cards.extend(state.display.iter().cloned());
    for p in &state.players {
        cards.extend(p.advisors.iter().map(|a| a.card.clone()));
    }
    for pending in &state.pending {
        if let Pending::FishMarket { cards: held, .. } = pending {
            cards.extend(held.iter().map(|t| token_card(t).to_string()));
        }
    }
    cards.sort();
    let mut expected = d.deck_for(state.seats, state.privileges);
    expected.sort();
    assert_eq!(cards, expected, "advisor cards conserved");
    // decorations and privilege tokens are conserved
    let decorations = d
        .locations
        .iter()
        .filter(|l| l.decoration.is_some())
        .count() as i32;
    let taken: i32 = state.players.iter().map(|p| p.decorations).sum();
    assert_eq!(state.decorations.len() as i32 + taken, decorations);
    let held: i32 = state.players.iter().map(|p| p.stock.privilege).sum();
    let total = if state.privileges {
        d.privileges.tokens
    } else {
        0
    };
    assert_eq!(held + state.privilege_supply, total, "privileges conserved");
    assert!(state.privilege_supply >= 0);
    assert_eq!(state.location_dice.len(), LOCATIONS);
    // somebody must act until the end
    let acting = EternalPalace::to_act(state);
    assert_eq!(acting.is_empty(), state.phase == Phase::Finished);
}

/// Longest legal-action list seen (reported, to size client expectations).
static MAX_LEGAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Light bias so games end: prefer real locations over the scrolls and hiring over not.
fn choose(actions: &[Action], rng: &mut ChaCha8Rng) -> Action {
    let useful: Vec<&Action> = actions
        .iter()
        .filter(|a| match a {
            Action::PlaceDice { location, .. } => location != "scrolls",
            Action::HireAdvisor { card } => card.is_some(),
            _ => true,
        })
        .collect();
    if !useful.is_empty() && rng.gen_bool(0.85) {
        return (*useful.choose(rng).expect("non-empty")).clone();
    }
    actions.choose(rng).expect("non-empty").clone()
}

pub struct Summary {
    pub rounds: u32,
    pub winner_score: i32,
}

/// Plays one game to the end; `check_every` is how often the JSON round trip and the full
/// fold are checked (besides the end).
pub fn playout(seats: u8, privileges: bool, seed: u64, check_every: usize) -> Summary {
    playout_with(seats, privileges, seed, check_every, &mut |_, _| {})
}

/// As `playout`, calling `hook` with the state after each decision (and after setup) and
/// the events that led to it.
pub fn playout_with(
    seats: u8,
    privileges: bool,
    seed: u64,
    check_every: usize,
    hook: &mut dyn FnMut(&State, &[Event]),
) -> Summary {
    let runner = Playout::<EternalPalace>::new(EternalPalaceOptions { privileges }, seats)
        .fold_every(check_every);
    let strategy = |_: &State, _: Seat, legal: &[Action], rng: &mut ChaCha8Rng| {
        MAX_LEGAL.fetch_max(legal.len(), std::sync::atomic::Ordering::Relaxed);
        choose(legal, rng)
    };
    let finished = runner.run(seed, strategy, |state, events| {
        check_invariants(state);
        hook(state, events);
    });
    Summary {
        rounds: finished.state.round,
        winner_score: *finished.outcome.scores.iter().max().unwrap_or(&0),
    }
}

fn run(seats: u8) {
    let mut rounds = Vec::new();
    let mut scores = Vec::new();
    for seed in 0..1000u64 {
        let summary = playout(seats, seed % 2 == 1, seed, 97);
        rounds.push(summary.rounds);
        scores.push(summary.winner_score);
    }
    let limit = data().round_limit.rounds;
    assert!(rounds.iter().all(|r| *r <= limit));
    let at_limit = rounds.iter().filter(|r| **r == limit).count();
    let avg = rounds.iter().sum::<u32>() as f64 / rounds.len() as f64;
    let score = scores.iter().sum::<i32>() as f64 / scores.len() as f64;
    eprintln!(
        "{seats} players: average {avg:.1} rounds ({at_limit} at the limit), winner {score:.1} VP, \
         longest legal list {}",
        MAX_LEGAL.load(std::sync::atomic::Ordering::Relaxed)
    );
}

#[test]
fn playouts_two_players() {
    run(2);
}

#[test]
fn playouts_three_players() {
    run(3);
}

#[test]
fn playouts_four_players() {
    run(4);
}

#[test]
fn playouts_five_players() {
    run(5);
}
