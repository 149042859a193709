//! Arbitrary (also nonsensical) actions in the states of random games: `decide` never
//! panics, and whatever it accepts is listed by `legal_actions` (up to the order of dice
//! inside groupings and of market items).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::playouts::{playout_under, playout_with, Module};
use crate::engine::Engine;
use crate::eternal_palace::action::{Action, MarketItem};
use crate::eternal_palace::data::{data, Resource};
use crate::eternal_palace::rules::canonical_groups;
use crate::eternal_palace::state::{token_card, Pending, State};
use crate::eternal_palace::EternalPalace;

fn some_card(state: &State, rng: &mut ChaCha8Rng) -> String {
    let mut pool: Vec<String> = state.display.clone();
    for p in &state.pending {
        if let Pending::FishMarket { cards, .. } = p {
            pool.extend(cards.iter().map(|t| token_card(t).to_string()));
        }
    }
    for p in &state.players {
        pool.extend(p.advisors.iter().map(|a| a.card.clone()));
    }
    pool.push("zz99".into());
    pool.push(
        data().advisors[rng.gen_range(0..data().advisors.len())]
            .id
            .clone(),
    );
    pool.choose(rng).cloned().unwrap_or_default()
}

fn maybe_resource(rng: &mut ChaCha8Rng) -> Option<Resource> {
    rng.gen::<bool>()
        .then(|| *Resource::ALL.choose(rng).expect("resource"))
}

/// An action of the modules and tiles (rules version 3), often close to a legal one.
fn random_module_action(state: &State, rng: &mut ChaCha8Rng) -> Action {
    let resource = *Resource::ALL.choose(rng).expect("resource");
    match rng.gen_range(0..9) {
        0 => Action::FollowPath {
            station: match rng.gen_range(0..3) {
                0 => "nowhere".to_string(),
                _ => data().stations[rng.gen_range(0..data().stations.len())]
                    .id
                    .clone(),
            },
        },
        1 => Action::FulfilDemand {
            field: rng.gen_range(0..4),
            resource,
        },
        2 => Action::DrawAdvisors {
            fish: rng.gen_range(0..6),
        },
        3 => Action::TakeReserve,
        4 => Action::BuyWisdom {
            paid: (0..rng.gen_range(0..4))
                .map(|_| *Resource::ALL.choose(rng).expect("resource"))
                .collect(),
        },
        5 => Action::ChooseMarketTile {
            step: maybe_resource(rng),
            palace: rng.gen(),
            bundle: maybe_resource(rng),
            advisor: rng.gen::<bool>().then(|| some_card(state, rng)),
            privilege: rng.gen(),
        },
        6 => Action::StepForResource {
            resource: maybe_resource(rng),
        },
        7 => Action::ResolveFishMarket {
            returned: rng.gen::<bool>().then(|| some_card(state, rng)),
            discarded: None,
            kept: rng.gen::<bool>().then(|| some_card(state, rng)),
            hire: rng.gen(),
        },
        _ => Action::PlaceDice {
            group: rng.gen_range(0..5),
            location: ["labyrinth", "river_market", "1", "2", "7", "12", "bridge"]
                [rng.gen_range(0..7)]
            .to_string(),
            value: if rng.gen_bool(0.2) {
                Some(rng.gen_range(0..7))
            } else {
                None
            },
        },
    }
}

fn random_action(state: &State, rng: &mut ChaCha8Rng) -> Action {
    let resource = *Resource::ALL.choose(rng).expect("resource");
    match rng.gen_range(0..10) {
        0 => Action::GroupDice {
            groups: (0..rng.gen_range(0..4))
                .map(|_| {
                    (0..rng.gen_range(0..4))
                        .map(|_| rng.gen_range(0..8))
                        .collect()
                })
                .collect(),
        },
        1 => Action::ChoosePrivilege { play: rng.gen() },
        2 => {
            let keys = [
                "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
            ];
            let location = match rng.gen_range(0..4) {
                0 => "bridge".to_string(),
                1 => "scrolls".to_string(),
                2 => ["0", "13", "C3", ""][rng.gen_range(0..4)].to_string(),
                _ => keys[rng.gen_range(0..12)].to_string(),
            };
            Action::PlaceDice {
                group: rng.gen_range(0..7),
                location,
                value: if rng.gen() {
                    Some(rng.gen_range(0..9))
                } else {
                    None
                },
            }
        }
        3 => Action::UseAdvisor {
            card: some_card(state, rng),
            target: if rng.gen() {
                Some(rng.gen_range(0..7))
            } else {
                None
            },
        },
        4 => Action::ResolveFishMarket {
            returned: rng.gen::<bool>().then(|| some_card(state, rng)),
            discarded: rng.gen::<bool>().then(|| some_card(state, rng)),
            kept: None,
            hire: rng.gen(),
        },
        5 => Action::HireAdvisor {
            card: rng.gen::<bool>().then(|| some_card(state, rng)),
        },
        6 => Action::TakeResource { resource },
        7 => Action::BuyAtMarket {
            items: (0..rng.gen_range(0..7))
                .map(|_| *MarketItem::ALL.choose(rng).expect("item"))
                .collect(),
        },
        9 => Action::ChooseArtistGroup {
            group: rng.gen_range(0..7),
        },
        _ => Action::ReadScrolls {
            goods: rng.gen(),
            resource: rng.gen::<bool>().then_some(resource),
        },
    }
}

fn canonical(action: &Action) -> Action {
    match action {
        Action::GroupDice { groups } => Action::GroupDice {
            groups: canonical_groups(groups),
        },
        Action::BuyAtMarket { items } => {
            let mut items = items.clone();
            items.sort_unstable();
            Action::BuyAtMarket { items }
        }
        Action::BuyWisdom { paid } => {
            let mut paid = paid.clone();
            paid.sort_unstable();
            Action::BuyWisdom { paid }
        }
        other => other.clone(),
    }
}

#[test]
fn arbitrary_actions_never_panic_and_accepted_ones_are_listed() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let mut accepted = 0;
    for (seats, rules_version) in (2..=5u8).flat_map(|seats| [(seats, 1), (seats, 2)]) {
        for seed in 0..12u64 {
            let privileges = seed % 2 == 0;
            playout_under(
                rules_version,
                seats,
                privileges,
                9000 + seed,
                1000,
                &mut |state, _| {
                    for _ in 0..12 {
                        let seat = rng.gen_range(0..seats + 1);
                        let action = random_action(state, &mut rng);
                        if EternalPalace::decide(state, seat, &action, &mut rng).is_ok() {
                            accepted += 1;
                            let legal = EternalPalace::legal_actions(state, seat);
                            assert!(
                                legal.contains(&canonical(&action)),
                                "accepted but not listed: {action:?}"
                            );
                        }
                    }
                },
            );
        }
    }
    assert!(
        accepted > 100,
        "the fuzzer reached accepted actions: {accepted}"
    );
}

/// Rules version 3 with every module and the tiles: arbitrary and near-legal actions never
/// panic, whatever is accepted is listed, and every listed action is accepted.
#[test]
fn module_actions_accepted_exactly_when_listed() {
    let mut rng = ChaCha8Rng::seed_from_u64(78);
    let mut accepted = 0;
    let mut listed = 0;
    for module in Module::ALL {
        for seats in 2..=5u8 {
            for seed in 0..6u64 {
                playout_with(
                    EternalPalace::newest_rules_version(),
                    module.options(seed + 1),
                    seats,
                    9100 + seed,
                    1000,
                    &mut |state, _| {
                        for _ in 0..12 {
                            let seat = rng.gen_range(0..seats + 1);
                            let action = if rng.gen_bool(0.6) {
                                random_module_action(state, &mut rng)
                            } else {
                                random_action(state, &mut rng)
                            };
                            if EternalPalace::decide(state, seat, &action, &mut rng).is_ok() {
                                accepted += 1;
                                let legal = EternalPalace::legal_actions(state, seat);
                                assert!(
                                    legal.contains(&canonical(&action)),
                                    "accepted but not listed: {action:?}"
                                );
                            }
                        }
                        for seat in EternalPalace::to_act(state) {
                            let legal = EternalPalace::legal_actions(state, seat);
                            for action in legal.choose_multiple(&mut rng, 40) {
                                listed += 1;
                                if let Err(e) = EternalPalace::decide(state, seat, action, &mut rng)
                                {
                                    panic!("listed but refused: {action:?}: {e}");
                                }
                            }
                        }
                    },
                );
            }
        }
    }
    assert!(accepted > 100, "accepted: {accepted}");
    assert!(listed > 1000, "listed: {listed}");
}
