//! The short rules section by section (cited as "KSR <section>"), the decided values of the
//! data file, and one test per refusal code.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{act, placing, placing_under, refused, start};
use crate::engine::{Engine, Viewer};
use crate::eternal_palace::action::{Action, MarketItem};
use crate::eternal_palace::data::{data, Goods, Resource, BRIDGE};
use crate::eternal_palace::event::{Choice, Event, HireSource, Reason};
use crate::eternal_palace::rules::{cheapest_sum, partitions, privilege_order};
use crate::eternal_palace::scoring::{best_run, final_scores};
use crate::eternal_palace::state::{deck_token, OwnedAdvisor, Pending, Phase, State};
use crate::eternal_palace::{EternalPalace, EternalPalaceOptions};

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(1234)
}

fn place(group: u8, location: &str) -> Action {
    Action::PlaceDice {
        group,
        location: location.to_string(),
        value: None,
    }
}

fn bridge(group: u8, value: u8) -> Action {
    Action::PlaceDice {
        group,
        location: "bridge".to_string(),
        value: Some(value),
    }
}

fn give_card(state: &mut State, seat: u8, card: &str) {
    state.players[seat as usize].advisors.push(OwnedAdvisor {
        card: card.to_string(),
        used: false,
    });
    state.deck.retain(|t| !t.ends_with(&format!(":{card}")));
    state.display.retain(|c| c != card);
    state.discard.retain(|c| c != card);
}

fn goods_for(events: &[Event], seat: u8, reason: Reason) -> Goods {
    events
        .iter()
        .filter_map(|e| match e {
            Event::GoodsChanged {
                seat: s,
                delta,
                reason: r,
            } if *s == seat && *r == reason => Some(*delta),
            _ => None,
        })
        .fold(Goods::default(), |acc, d| acc.plus(&d))
}

fn index(key: &str) -> usize {
    data().location_index(key).expect("location")
}

// ------------------------------------------------------------------ KSR Vorbereitungen

#[test]
fn ksr_setup_material_by_player_count() {
    for seats in 2..=5u8 {
        for privileges in [false, true] {
            let (state, _, _) = start(seats, privileges, seats as u64);
            let fish = if seats >= 4 { 4 } else { 3 };
            for p in &state.players {
                assert_eq!(p.stock.fish, fish);
                assert_eq!(p.stock.wisdom, 2);
                for r in Resource::ALL {
                    assert_eq!(p.stock.get(r), 1);
                }
                assert_eq!(p.stock.privilege, if privileges { 1 } else { 0 });
                assert_eq!((p.active_dice, p.palace_dice), (3, 2));
                assert_eq!(p.rolled.len(), 3);
                assert_eq!(p.palace, 0);
            }
            assert_eq!(state.display.len(), seats as usize + 1);
            for key in ["3", "5", "8", "10"] {
                assert_eq!(state.rings[index(key)], 1, "monument {key} starts with 1");
            }
            assert_eq!(state.decorations.len(), 9);
            assert_eq!(state.phase, Phase::Grouping);
            assert_eq!(state.round, 1);
            let cards = data().deck_for(seats, privileges);
            assert_eq!(
                cards.contains(&"a10".to_string()),
                seats >= 4,
                "small figure"
            );
            assert_eq!(cards.contains(&"p01".to_string()), privileges);
            if privileges {
                assert_eq!(state.privilege_supply, 15 - seats as i32);
            }
        }
    }
}

#[test]
fn error_unsupported_player_count() {
    let mut rng = rng();
    for seats in [0u8, 1, 6] {
        let e = EternalPalace::setup(
            &EternalPalaceOptions::default(),
            seats,
            EternalPalace::newest_rules_version(),
            None,
            &mut rng,
        )
        .expect_err("refused");
        assert_eq!(e.code, "unsupported_player_count");
    }
    assert_eq!(EternalPalace::player_counts(), 2..=5);
}

#[test]
fn options_default_from_empty_object() {
    let o: EternalPalaceOptions = serde_json::from_str("{}").expect("options");
    assert_eq!(o, EternalPalaceOptions::base(false));
    assert!(serde_json::from_str::<EternalPalaceOptions>(r#"{"catacombs":true}"#).is_err());
}

#[test]
fn actions_parse_from_tagged_json_and_reject_unknown_fields() {
    let hire: Action = serde_json::from_str(r#"{"type":"hire_advisor"}"#).expect("hire");
    assert_eq!(hire, Action::HireAdvisor { card: None });
    let place: Action =
        serde_json::from_str(r#"{"type":"place_dice","group":1,"location":"bridge","value":5}"#)
            .expect("place");
    assert_eq!(place, bridge(1, 5));
    let round_trip: Action =
        serde_json::from_str(&serde_json::to_string(&place).expect("json")).expect("back");
    assert_eq!(round_trip, place);
    assert!(serde_json::from_str::<Action>(r#"{"type":"hire_advisor","cards":"a01"}"#).is_err());
    assert!(serde_json::from_str::<Action>(r#"{"type":"dance"}"#).is_err());
}

#[test]
fn data_file_entries_name_their_source_and_are_consistent() {
    let d = data();
    assert_eq!(
        d.locations.len(),
        16,
        "14 printed and the two module locations"
    );
    assert_eq!(d.locations[BRIDGE].key, "bridge");
    // public facts: location 9 gives 1 kaolin for 2 dice, 3 for 3 dice
    let pit = &d.locations[index("9")];
    assert_eq!((pit.yield_for(2), pit.yield_for(3)), (1, 3));
    // the deck is large enough for five players' displays
    assert!(d.deck_for(5, false).len() >= 30);
    let mut ids: Vec<&String> = d.advisors.iter().map(|c| &c.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), d.advisors.len(), "unique card ids");
    for kind in ["patron", "trader", "diplomat", "artist"] {
        assert!(d
            .advisors
            .iter()
            .any(|c| format!("{:?}", c.kind()).to_lowercase() == kind));
    }
}

#[test]
fn data_file_marks_every_value_facts_calls_not_public_as_decided() {
    use crate::eternal_palace::data::{LocationKind, Source};
    let d = data();
    // FACTS.md "Not public": track lengths, bridge bonuses, yields (except 9 with 2 and 3
    // dice), the temple and market spaces with the dice each requires, the palace length,
    // the advisor deck.
    assert_eq!(d.palace.source, Source::Decided);
    for l in &d.locations {
        if let Some(track) = &l.track {
            assert_eq!(track.source, Source::Decided, "track at {}", l.key);
        }
        for y in &l.yields {
            let public = l.key == "9" && (y.dice == 2 || y.dice == 3);
            let expected = if public {
                Source::Public
            } else {
                Source::Decided
            };
            assert_eq!(y.source, expected, "yield at {} for {} dice", l.key, y.dice);
        }
        if matches!(l.kind, LocationKind::Temple | LocationKind::Market) {
            for space in &l.spaces {
                assert_eq!(space.source, Source::Decided, "space {}", space.id);
            }
        }
        for b in l.bonuses.iter().filter(|b| b.module.is_none()) {
            assert_eq!(b.source, Source::Decided, "bridge space {}", b.space);
        }
    }
    for card in &d.advisors {
        assert_eq!(card.source, Source::Decided, "advisor {}", card.id);
    }
}

// ------------------------------------------------------------------ KSR Weisheit und Fische

#[test]
fn ksr_wisdom_one_per_pip_step() {
    // 3 + 3 to the temple (7): one wisdom turns a 3 into a 4
    assert_eq!(cheapest_sum(&[3, 3], 7).map(|c| c.0), Some(1));
    let mut state = placing(2, false, 0, vec![vec![3, 3], vec![1]]);
    let events = act(&mut state, 0, place(0, "7"), &mut rng());
    match &events[0] {
        Event::DicePlaced { pips, wisdom, .. } => {
            assert_eq!(*wisdom, 1);
            assert_eq!(pips.iter().map(|p| *p as u32).sum::<u32>(), 7);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(state.players[0].stock.wisdom, 2 - 1 + 3);
}

#[test]
fn ksr_wisdom_two_for_one_six_swap() {
    // 6 + 1 to the palace market (12): turning the 1 into a 6 costs 2, not 5
    assert_eq!(cheapest_sum(&[6, 1], 12), Some((2, vec![6, 6])));
    // a single 2 to the quarry (6): 2 -> 1 (1) then 1 -> 6 (2) = 3, cheaper than 4 steps
    assert_eq!(cheapest_sum(&[2], 6).map(|c| c.0), Some(3));
    let mut state = placing(2, false, 0, vec![vec![6, 1], vec![1]]);
    act(&mut state, 0, place(0, "12"), &mut rng());
    assert_eq!(state.players[0].stock.wisdom, 0);
}

#[test]
fn ksr_fish_equal_to_colours_present_own_included() {
    let mut state = placing(3, false, 0, vec![vec![4], vec![2, 2], vec![1]]);
    state.players[0].stock.fish = 5;
    act(&mut state, 0, place(0, "4"), &mut rng());
    assert_eq!(state.players[0].stock.fish, 5, "nobody there yet");
    // one colour (our own) is there now
    act(&mut state, 0, place(1, "4"), &mut rng());
    assert_eq!(state.players[0].stock.fish, 4);
    // two colours: seat 1's dice join
    let i = index("4");
    state.location_dice[i].push(crate::eternal_palace::state::PlacedGroup {
        seat: 1,
        pips: vec![4],
    });
    state.players[0].groups.push(vec![4]);
    state.players[0].placed.push(false);
    state.players[0].active_dice += 1;
    state.players[0].palace_dice -= 1;
    let view = EternalPalace::view(&state, Viewer::Spectator);
    assert_eq!(view.locations[i].fish_to_pay, 2);
    act(&mut state, 0, place(3, "4"), &mut rng());
    assert_eq!(state.players[0].stock.fish, 2);
}

#[test]
fn ksr_no_fish_at_the_imperial_scrolls() {
    let mut state = placing(2, false, 0, vec![vec![5], vec![4], vec![3]]);
    state.players[0].stock.fish = 0;
    act(&mut state, 0, place(0, "scrolls"), &mut rng());
    act(&mut state, 0, place(1, "scrolls"), &mut rng());
    // the scrolls already hold our dice, still no fish are due, and they paid 2 fish each
    assert_eq!(state.players[0].stock.fish, 4);
}

#[test]
fn error_not_enough_fish_and_wisdom() {
    let mut state = placing(2, false, 0, vec![vec![4], vec![1]]);
    state.location_dice[index("4")].push(crate::eternal_palace::state::PlacedGroup {
        seat: 1,
        pips: vec![4],
    });
    state.players[0].stock.fish = 0;
    assert_eq!(refused(&state, 0, place(0, "4")), "not_enough_fish");
    state.players[0].stock.wisdom = 2;
    // 1 -> 6 needs the swap (2) and then nothing; 1 -> 5 needs 3
    assert_eq!(refused(&state, 0, place(1, "5")), "not_enough_wisdom");
    assert_eq!(refused(&state, 0, place(1, "12")), "wrong_sum");
}

// ------------------------------------------------------------------ KSR Rundenablauf

#[test]
fn ksr_groupings_are_the_distinct_partitions() {
    // equal pips are interchangeable: 3 equal dice split 3 ways, 3 distinct dice 5 ways
    assert_eq!(partitions(&[2, 2, 2]).len(), 3);
    assert_eq!(partitions(&[1, 2, 3]).len(), 5);
    assert_eq!(partitions(&[1, 2, 3, 4, 5]).len(), 52);
    let (state, _, _) = start(2, false, 4);
    let legal = EternalPalace::legal_actions(&state, 0);
    assert_eq!(legal.len(), partitions(&state.players[0].rolled).len());
    // any order of the same dice is accepted
    let mut rolled = state.players[0].rolled.clone();
    rolled.reverse();
    let groups = rolled.iter().map(|p| vec![*p]).collect();
    assert!(EternalPalace::decide(&state, 0, &Action::GroupDice { groups }, &mut rng()).is_ok());
}

#[test]
fn ksr_turn_order_by_ascending_pip_sum_ties_keep_order() {
    let mut seen_tie = false;
    for seed in 0..40u64 {
        let mut state = placing(4, false, 0, vec![vec![1]]);
        state.turn_order = vec![2, 0, 3, 1];
        let before = state.turn_order.clone();
        let mut r = ChaCha8Rng::seed_from_u64(seed);
        let events = act(&mut state, 0, place(0, "scrolls"), &mut r);
        let dice = events
            .iter()
            .find_map(|e| match e {
                Event::DiceRolled { dice, .. } => Some(dice.clone()),
                _ => None,
            })
            .expect("new round rolled");
        let sums: Vec<u32> = dice
            .iter()
            .map(|d| d.iter().map(|p| *p as u32).sum())
            .collect();
        let mut expected = before.clone();
        expected.sort_by_key(|s| sums[*s as usize]);
        assert_eq!(state.turn_order, expected);
        let mut sorted = sums.clone();
        sorted.sort_unstable();
        sorted.dedup();
        seen_tie |= sorted.len() < sums.len();
    }
    assert!(seen_tie, "a tie occurred and kept the old order");
}

#[test]
fn ksr_groups_are_placed_one_at_a_time_in_turn_order() {
    let (mut state, _, mut r) = start(3, false, 21);
    for seat in 0..3u8 {
        let groups = state.players[seat as usize]
            .rolled
            .iter()
            .map(|p| vec![*p])
            .collect();
        act(&mut state, seat, Action::GroupDice { groups }, &mut r);
    }
    let order = state.turn_order.clone();
    let mut placed_by = Vec::new();
    for _ in 0..6 {
        let seat = state.placer.expect("placer");
        placed_by.push(seat);
        let g = state.players[seat as usize]
            .placed
            .iter()
            .position(|p| !p)
            .expect("group left") as u8;
        act(&mut state, seat, place(g, "scrolls"), &mut r);
    }
    let mut expected = order.clone();
    expected.extend(order);
    assert_eq!(placed_by, expected);
}

// ------------------------------------------------------------------ KSR Ortsaktion spielen

#[test]
fn ksr_fish_market_draw_three_return_one_discard_one_hire_third() {
    let mut state = placing(3, false, 0, vec![vec![1], vec![1]]);
    for card in ["a01", "a11", "a25"] {
        give_card(&mut state, 1, card);
        state.players[1].advisors.clear();
    }
    let mut deck = vec![deck_token("a01"), deck_token("a11"), deck_token("a25")];
    deck.append(&mut state.deck);
    state.deck = deck;
    state.players[0].stock.fish = 5;
    let events = act(&mut state, 0, place(0, "1"), &mut rng());
    assert!(events.iter().any(|e| matches!(
        e,
        Event::AdvisorsDrawn { count: 3, cards: Some(c), .. } if c.len() == 3
    )));
    assert_eq!(state.players[0].tracks[index("1")], 1, "track step");
    // the drawn cards are seen by the drawer only
    let other = serde_json::to_string(&EternalPalace::view(&state, Viewer::Seat(1))).unwrap();
    assert!(!other.contains("Harbour Master"));
    let own = EternalPalace::view(&state, Viewer::Seat(0));
    assert_eq!(own.pending.and_then(|p| p.drawn).map(|d| d.len()), Some(3));
    let action = Action::ResolveFishMarket {
        returned: Some("a11".into()),
        discarded: Some("a25".into()),
        kept: None,
        hire: true,
    };
    assert!(EternalPalace::legal_actions(&state, 0).contains(&action));
    act(&mut state, 0, action, &mut rng());
    let p = &state.players[0];
    // Harbour Master: cost 1 wood, hiring costs 3 fish, patron gives 4 fish and 1 wisdom
    assert_eq!(p.stock.wood, 0);
    assert_eq!(p.stock.fish, 5 - 3 + 4);
    assert_eq!(p.stock.wisdom, 3);
    assert!(p.advisors.iter().any(|a| a.card == "a01"));
    assert_eq!(
        state.deck[0], "known0:a11",
        "back on top, known to the seat"
    );
    assert!(state.discard.contains(&"a25".to_string()));
    let secret = EternalPalace::secrets(&state)
        .into_iter()
        .find(|s| s.needle == "\"known0:a11\"")
        .expect("secret");
    assert_eq!(secret.owner, Some(0));
    let known = EternalPalace::view(&state, Viewer::Seat(0)).known_deck_cards;
    assert_eq!(known[0].position, 0);
    assert!(EternalPalace::view(&state, Viewer::Seat(1))
        .known_deck_cards
        .is_empty());
}

#[test]
fn ksr_fish_market_without_hiring_discards_the_third() {
    let mut state = placing(2, false, 0, vec![vec![1], vec![1]]);
    let drawn: Vec<String> = state.deck[..3]
        .iter()
        .map(|t| t.trim_start_matches("deck:").to_string())
        .collect();
    act(&mut state, 0, place(0, "1"), &mut rng());
    let discard_before = state.discard.len();
    act(
        &mut state,
        0,
        Action::ResolveFishMarket {
            returned: Some(drawn[0].clone()),
            discarded: Some(drawn[1].clone()),
            kept: None,
            hire: false,
        },
        &mut rng(),
    );
    assert_eq!(state.discard.len(), discard_before + 2);
    assert!(state.discard.contains(&drawn[2]));
    assert!(state.players[0].advisors.is_empty());
}

#[test]
fn error_fish_market_choices() {
    let mut state = placing(2, false, 0, vec![vec![1], vec![1]]);
    let drawn: Vec<String> = state.deck[..3]
        .iter()
        .map(|t| t.trim_start_matches("deck:").to_string())
        .collect();
    act(&mut state, 0, place(0, "1"), &mut rng());
    let missing = Action::ResolveFishMarket {
        returned: Some(drawn[0].clone()),
        discarded: None,
        kept: None,
        hire: false,
    };
    assert_eq!(refused(&state, 0, missing), "invalid_fish_market_choice");
    let same = Action::ResolveFishMarket {
        returned: Some(drawn[0].clone()),
        discarded: Some(drawn[0].clone()),
        kept: None,
        hire: false,
    };
    assert_eq!(refused(&state, 0, same), "not_drawn");
    let other = Action::ResolveFishMarket {
        returned: Some("zz99".into()),
        discarded: Some(drawn[0].clone()),
        kept: None,
        hire: false,
    };
    assert_eq!(refused(&state, 0, other), "not_drawn");
    state.players[0].stock = Goods::default();
    let hire = Action::ResolveFishMarket {
        returned: Some(drawn[0].clone()),
        discarded: Some(drawn[1].clone()),
        kept: None,
        hire: true,
    };
    assert_eq!(refused(&state, 0, hire), "cannot_afford");
    assert_eq!(refused(&state, 0, place(1, "scrolls")), "choice_pending");
    assert_eq!(
        refused(&state, 1, Action::HireAdvisor { card: None }),
        "not_your_turn"
    );
    assert_eq!(
        refused(&state, 0, Action::HireAdvisor { card: None }),
        "wrong_choice"
    );
}

#[test]
fn ksr_academy_hires_an_open_advisor_with_wisdom_sign_and_patron_acts_once() {
    let mut state = placing(2, false, 0, vec![vec![2], vec![1]]);
    give_card(&mut state, 1, "a05");
    state.players[1].advisors.clear();
    state.display.push("a05".into());
    act(&mut state, 0, place(0, "2"), &mut rng());
    assert_eq!(state.players[0].tracks[index("2")], 1);
    assert!(matches!(
        state.pending.first(),
        Some(Pending::Offered {
            choice: Choice::Hire {
                source: HireSource::Academy
            },
            ..
        })
    ));
    let events = act(
        &mut state,
        0,
        Action::HireAdvisor {
            card: Some("a05".into()),
        },
        &mut rng(),
    );
    let p = &state.players[0];
    // Lady of the Lake: cost 1 stone, hiring gives 2 wisdom; patron: 1 fish and a step at 1
    assert_eq!(p.stock.stone, 0);
    assert_eq!(p.stock.wisdom, 4);
    assert_eq!(p.stock.fish, 4);
    assert_eq!(p.tracks[index("1")], 1);
    assert!(!state.display.contains(&"a05".to_string()));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::AdvisorHired {
            from: HireSource::Academy,
            ..
        }
    )));
    // a patron cannot be used again
    assert_eq!(
        refused(
            &state,
            0,
            Action::UseAdvisor {
                card: "a05".into(),
                target: None
            }
        ),
        "not_usable"
    );
}

#[test]
fn error_hire_choices() {
    let mut state = placing(2, false, 0, vec![vec![2], vec![1]]);
    give_card(&mut state, 1, "a04");
    state.players[1].advisors.clear();
    state.display.push("a04".into());
    act(&mut state, 0, place(0, "2"), &mut rng());
    let not_there = Action::HireAdvisor {
        card: Some("a34".into()),
    };
    assert_eq!(refused(&state, 0, not_there), "not_in_display");
    // Imperial Chamberlain costs kaolin + bronze and 2 wisdom at the academy
    state.players[0].stock.bronze = 0;
    let expensive = Action::HireAdvisor {
        card: Some("a04".into()),
    };
    assert_eq!(refused(&state, 0, expensive.clone()), "cannot_afford");
    assert!(!EternalPalace::legal_actions(&state, 0).contains(&expensive));
    assert_eq!(
        refused(
            &state,
            0,
            Action::TakeResource {
                resource: Resource::Wood
            }
        ),
        "wrong_choice"
    );
}

#[test]
fn ksr_monument_pay_the_ring_ring_grows_palace_steps() {
    let mut state = placing(2, false, 0, vec![vec![1, 2], vec![3], vec![1]]);
    let i = index("3");
    let events = act(&mut state, 0, place(0, "3"), &mut rng());
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::MonumentTaken { paid: 1, .. })));
    assert_eq!(state.rings[i], 2);
    assert_eq!(state.monument_owners[i], Some(0));
    assert_eq!(state.players[0].stock.wood, 0);
    assert_eq!(state.players[0].palace, 1);
    assert_eq!(
        state.players[0].layers,
        vec!["3".to_string()],
        "layer on first visit"
    );
    assert_eq!(state.decorations.len(), 9, "monuments have no decoration");
    // second visit as owner: 2 wood now, 2 palace steps, no second layer
    assert_eq!(refused(&state, 0, place(1, "3")), "not_enough_resources");
    state.players[0].stock.wood = 2;
    act(&mut state, 0, place(1, "3"), &mut rng());
    assert_eq!(state.rings[i], 3);
    assert_eq!(state.players[0].stock.wood, 0);
    assert_eq!(state.players[0].palace, 3);
    assert_eq!(state.players[0].layers.len(), 1);
}

#[test]
fn ksr_monument_changes_hands() {
    let mut state = placing(2, false, 1, vec![vec![5], vec![1]]);
    let i = index("5");
    state.monument_owners[i] = Some(0);
    act(&mut state, 1, place(0, "5"), &mut rng());
    assert_eq!(state.monument_owners[i], Some(1));
    assert_eq!(state.players[1].palace, 1, "not owner before: one step");
}

#[test]
fn ksr_resource_location_yield_by_dice_track_layer_and_decoration() {
    let mut state = placing(
        2,
        false,
        0,
        vec![vec![4, 5], vec![3, 3, 3], vec![6, 3], vec![1]],
    );
    let i = index("9");
    let length = data().locations[i].track_length().expect("track");
    let events = act(&mut state, 0, place(0, "9"), &mut rng());
    assert_eq!(goods_for(&events, 0, Reason::ResourceLocation).kaolin, 1);
    assert_eq!(state.players[0].tracks[i], 1, "one step per visit");
    let events = act(&mut state, 0, place(1, "9"), &mut rng());
    assert_eq!(goods_for(&events, 0, Reason::ResourceLocation).kaolin, 3);
    assert_eq!(state.players[0].tracks[i], 2);
    assert!(state.players[0].layers.is_empty());
    // one step before the end: the next visit takes the layer and the decoration
    state.players[0].tracks[i] = length - 1;
    state.players[0].stock.fish = 5;
    let events = act(&mut state, 0, place(2, "9"), &mut rng());
    assert_eq!(state.players[0].tracks[i], length);
    assert!(state.players[0].layers.contains(&"9".to_string()));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::DecorationTaken { seat: 0, .. })));
    assert_eq!(state.players[0].decorations, 1);
    assert!(!state.decorations.contains(&"9".to_string()));
    // a finished track still yields, without further steps
    let events = act(&mut state, 0, place(3, "scrolls"), &mut rng());
    assert!(!events.is_empty());
    // the next player to finish this track gets the layer but no decoration
    let mut later = placing(2, false, 1, vec![vec![4, 5], vec![1]]);
    later.decorations.retain(|k| k != "9");
    later.players[1].tracks[i] = length - 1;
    let events = act(&mut later, 1, place(0, "9"), &mut rng());
    assert!(later.players[1].layers.contains(&"9".to_string()));
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::DecorationTaken { .. })));
}

#[test]
fn decided_finished_track_still_gives_the_location_action() {
    let mut state = placing(2, false, 0, vec![vec![4], vec![1]]);
    let i = index("4");
    let length = data().locations[i].track_length().expect("track");
    state.players[0].tracks[i] = length;
    state.players[0].layers.push("4".into());
    let events = act(&mut state, 0, place(0, "4"), &mut rng());
    assert_eq!(goods_for(&events, 0, Reason::ResourceLocation).wood, 1);
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::TrackAdvanced { .. } | Event::LayerTaken { .. })));
}

#[test]
fn ksr_temple_three_wisdom_marks_and_layer_on_second_mark() {
    let mut state = placing(
        2,
        false,
        0,
        vec![vec![3, 4], vec![1, 2, 4], vec![2, 5], vec![1]],
    );
    state.players[0].stock.fish = 5;
    let events = act(&mut state, 0, place(0, "7"), &mut rng());
    assert_eq!(goods_for(&events, 0, Reason::Temple).wisdom, 3);
    assert_eq!(state.players[0].marks, vec!["7a".to_string()]);
    assert!(state.players[0].layers.is_empty());
    act(&mut state, 0, place(1, "7"), &mut rng());
    assert_eq!(state.players[0].marks.len(), 2);
    assert_eq!(state.players[0].layers, vec!["7".to_string()]);
    assert_eq!(state.players[0].decorations, 1);
    // the 2-dice space is marked already: wisdom still, no new mark
    let events = act(&mut state, 0, place(2, "7"), &mut rng());
    assert_eq!(goods_for(&events, 0, Reason::Temple).wisdom, 3);
    assert_eq!(state.players[0].marks.len(), 2);
}

#[test]
fn ksr_palace_market_items_by_dice_count() {
    for (dice, count) in [(vec![6, 6], 3u8), (vec![4, 4, 4], 4), (vec![3, 3, 3, 3], 5)] {
        let mut state = placing(2, false, 0, vec![dice, vec![1]]);
        act(&mut state, 0, place(0, "12"), &mut rng());
        assert!(matches!(
            state.pending.first(),
            Some(Pending::Offered { choice: Choice::Market { count: c }, .. }) if *c == count
        ));
        assert_eq!(state.players[0].marks.len(), 1);
        let items: Vec<MarketItem> = MarketItem::ALL[..count as usize].to_vec();
        let before = state.players[0].clone();
        act(&mut state, 0, Action::BuyAtMarket { items }, &mut rng());
        let p = &state.players[0];
        assert_eq!(p.stock.fish, before.stock.fish + 2);
        assert_eq!(p.stock.wisdom, before.stock.wisdom + 2);
        assert_eq!(p.palace, before.palace + 1);
    }
}

#[test]
fn error_market_choices() {
    let mut state = placing(2, false, 0, vec![vec![6, 6], vec![1]]);
    act(&mut state, 0, place(0, "12"), &mut rng());
    use MarketItem::*;
    assert_eq!(
        refused(
            &state,
            0,
            Action::BuyAtMarket {
                items: vec![Fish, Wood]
            }
        ),
        "wrong_item_count"
    );
    assert_eq!(
        refused(
            &state,
            0,
            Action::BuyAtMarket {
                items: vec![Fish, Fish, Wood]
            }
        ),
        "duplicate_item"
    );
    assert_eq!(
        refused(
            &state,
            0,
            Action::BuyAtMarket {
                items: vec![Fish, Wood, Privilege]
            }
        ),
        "item_unavailable"
    );
    let mut module = placing(2, true, 0, vec![vec![6, 6], vec![1]]);
    act(&mut module, 0, place(0, "12"), &mut rng());
    let before = module.players[0].stock.privilege;
    act(
        &mut module,
        0,
        Action::BuyAtMarket {
            items: vec![Fish, Wood, Privilege],
        },
        &mut rng(),
    );
    assert_eq!(module.players[0].stock.privilege, before + 1);
}

#[test]
fn ksr_eternal_bridge_single_die_moves_and_collects_passed_bonuses() {
    let mut state = placing(
        2,
        false,
        0,
        vec![vec![2], vec![6], vec![1], vec![3, 4], vec![1]],
    );
    state.players[0].stock.wisdom = 5;
    state.players[0].stock.fish = 10;
    assert_eq!(refused(&state, 0, bridge(3, 4)), "single_die_only");
    assert_eq!(refused(&state, 0, place(0, "bridge")), "invalid_value");
    assert_eq!(refused(&state, 0, bridge(0, 7)), "invalid_value");
    // a 2 raised to 5 costs 3 wisdom; spaces 2 (2 fish) and 4 (1 wisdom) are passed
    let events = act(&mut state, 0, bridge(0, 5), &mut rng());
    let b = goods_for(&events, 0, Reason::Bridge);
    assert_eq!((b.fish, b.wisdom, b.privilege), (2, 1, 0));
    assert_eq!(state.players[0].tracks[BRIDGE], 5);
    assert_eq!(state.players[0].stock.wisdom, 5 - 3 + 1);
    // 6 more: spaces 6 (resource), 8 (fish + wisdom), 9 (advisor), 11 (resource)
    let events = act(&mut state, 0, bridge(1, 6), &mut rng());
    let b = goods_for(&events, 0, Reason::Bridge);
    assert_eq!((b.fish, b.wisdom), (1, 1));
    assert_eq!(state.pending.len(), 3);
    act(
        &mut state,
        0,
        Action::TakeResource {
            resource: Resource::Bronze,
        },
        &mut rng(),
    );
    let free = state.display[0].clone();
    let stock = state.players[0].stock;
    act(
        &mut state,
        0,
        Action::HireAdvisor {
            card: Some(free.clone()),
        },
        &mut rng(),
    );
    assert!(state.players[0].advisors.iter().any(|a| a.card == free));
    let paid = data().card(&free).map(|c| c.cost).unwrap_or_default();
    assert!(paid.is_empty() || state.players[0].stock.covers(&stock.plus(&paid.negated())));
    act(
        &mut state,
        0,
        Action::TakeResource {
            resource: Resource::Wood,
        },
        &mut rng(),
    );
    assert_eq!(state.players[0].stock.bronze, 2);
    // the last space gives the layer and the decoration
    act(&mut state, 0, bridge(2, 1), &mut rng());
    assert!(state.players[0].layers.contains(&"bridge".to_string()));
    assert_eq!(state.players[0].decorations, 1);
    assert_eq!(refused(&state, 0, bridge(4, 1)), "bridge_complete");
}

#[test]
fn ksr_bridge_third_space_gives_a_privilege_with_the_module() {
    // KSR Vorbereitungen: markers start on the *first* field of the bridge (space 0), so
    // the module's tile on the "3. Feld" lies two steps ahead (space 2): a 2 reaches it.
    let mut state = placing(2, true, 0, vec![vec![2], vec![1]]);
    let before = state.players[0].stock.privilege;
    act(&mut state, 0, bridge(0, 2), &mut rng());
    assert_eq!(state.players[0].tracks[BRIDGE], 2);
    assert_eq!(state.players[0].stock.privilege, before + 1);
    // a single step ends on the second field: no token
    let mut short = placing(2, true, 0, vec![vec![1], vec![1]]);
    let before = short.players[0].stock.privilege;
    act(&mut short, 0, bridge(0, 1), &mut rng());
    assert_eq!(short.players[0].stock.privilege, before);
    // without the module the field gives no token
    let mut base = placing(2, false, 0, vec![vec![2], vec![1]]);
    act(&mut base, 0, bridge(0, 2), &mut rng());
    assert_eq!(base.players[0].stock.privilege, 0);
}

#[test]
fn ksr_imperial_scrolls_rewards() {
    let mut state = placing(2, false, 0, vec![vec![5], vec![2, 3], vec![1]]);
    let events = act(&mut state, 0, place(0, "scrolls"), &mut rng());
    let g = goods_for(&events, 0, Reason::Scrolls);
    assert_eq!((g.fish, g.wisdom), (2, 1));
    act(&mut state, 0, place(1, "scrolls"), &mut rng());
    assert_eq!(
        refused(
            &state,
            0,
            Action::ReadScrolls {
                goods: false,
                resource: None
            }
        ),
        "nothing_chosen"
    );
    assert_eq!(EternalPalace::legal_actions(&state, 0).len(), 9);
    let events = act(
        &mut state,
        0,
        Action::ReadScrolls {
            goods: false,
            resource: Some(Resource::Kaolin),
        },
        &mut rng(),
    );
    let g = goods_for(&events, 0, Reason::Scrolls);
    assert_eq!(
        g,
        Goods::resource(Resource::Kaolin, 1),
        "instead of fish and wisdom"
    );
}

// ------------------------------------------------------------------ KSR Berater

#[test]
fn ksr_trader_once_per_round_turned_sideways_and_reactivated() {
    let mut state = placing(2, false, 0, vec![vec![1]]);
    give_card(&mut state, 0, "a11");
    let use_it = Action::UseAdvisor {
        card: "a11".into(),
        target: None,
    };
    assert!(EternalPalace::legal_actions(&state, 0).contains(&use_it));
    act(&mut state, 0, use_it.clone(), &mut rng());
    // Fish Trader: 2 fish for 2 wisdom
    assert_eq!(state.players[0].stock.fish, 1);
    assert_eq!(state.players[0].stock.wisdom, 4);
    assert_eq!(refused(&state, 0, use_it.clone()), "advisor_used");
    act(&mut state, 0, place(0, "scrolls"), &mut rng());
    assert!(!state.players[0].advisors[0].used, "upright next round");
}

#[test]
fn ksr_diplomat_gives_to_another_player() {
    let mut state = placing(3, false, 0, vec![vec![1]]);
    give_card(&mut state, 0, "a19");
    let card = || "a19".to_string();
    assert_eq!(
        refused(
            &state,
            0,
            Action::UseAdvisor {
                card: card(),
                target: None
            }
        ),
        "target_required"
    );
    assert_eq!(
        refused(
            &state,
            0,
            Action::UseAdvisor {
                card: card(),
                target: Some(0)
            }
        ),
        "no_such_seat"
    );
    assert_eq!(
        refused(
            &state,
            0,
            Action::UseAdvisor {
                card: card(),
                target: Some(3)
            }
        ),
        "no_such_seat"
    );
    act(
        &mut state,
        0,
        Action::UseAdvisor {
            card: card(),
            target: Some(2),
        },
        &mut rng(),
    );
    // Envoy: 1 fish to the other player, 2 wisdom from the supply
    assert_eq!(state.players[0].stock.fish, 2);
    assert_eq!(state.players[2].stock.fish, 4);
    assert_eq!(state.players[0].stock.wisdom, 4);
    give_card(&mut state, 0, "a12");
    assert_eq!(
        refused(
            &state,
            0,
            Action::UseAdvisor {
                card: "a12".into(),
                target: Some(1)
            }
        ),
        "unexpected_target"
    );
    assert_eq!(
        refused(
            &state,
            0,
            Action::UseAdvisor {
                card: "a30".into(),
                target: None
            }
        ),
        "not_your_advisor"
    );
    state.players[0].stock.wood = 0;
    assert_eq!(
        refused(
            &state,
            0,
            Action::UseAdvisor {
                card: "a12".into(),
                target: None
            }
        ),
        "cannot_afford"
    );
}

#[test]
fn ksr_artist_extra_resource_at_resource_locations_once_per_round() {
    let mut state = placing(2, false, 0, vec![vec![4, 5], vec![6, 3], vec![1]]);
    state.players[0].stock.fish = 5;
    give_card(&mut state, 0, "a25");
    let events = act(&mut state, 0, place(0, "9"), &mut rng());
    assert_eq!(goods_for(&events, 0, Reason::Advisor).wood, 1);
    let events = act(&mut state, 0, place(1, "9"), &mut rng());
    assert_eq!(
        goods_for(&events, 0, Reason::Advisor).wood,
        0,
        "used this round"
    );
}

#[test]
fn ksr_artist_two_wisdom_for_the_sole_lowest_pip_sum() {
    let (mut alone, mut tied) = (false, false);
    for seed in 0..60u64 {
        let mut state = placing(3, false, 0, vec![vec![1]]);
        give_card(&mut state, 1, "a29");
        let mut r = ChaCha8Rng::seed_from_u64(seed);
        let events = act(&mut state, 0, place(0, "scrolls"), &mut r);
        let sums: Vec<u32> = events
            .iter()
            .find_map(|e| match e {
                Event::DiceRolled { dice, .. } => Some(
                    dice.iter()
                        .map(|d| d.iter().map(|p| *p as u32).sum())
                        .collect(),
                ),
                _ => None,
            })
            .expect("rolled");
        let min = *sums.iter().min().unwrap();
        let sole = sums[1] == min && sums.iter().filter(|s| **s == min).count() == 1;
        let gained = goods_for(&events, 1, Reason::Advisor).wisdom;
        assert_eq!(gained, if sole { 2 } else { 0 }, "sums {sums:?}");
        alone |= sole;
        tied |= sums[1] == min && !sole;
    }
    assert!(alone && tied, "both cases occurred");
}

#[test]
fn ksr_artist_reward_for_a_group_of_two_three_four_dice() {
    for (dice, expect) in [
        (vec![2u8, 3, 4], Goods::resource(Resource::Wood, 1)),
        (
            vec![2, 3],
            Goods {
                fish: 1,
                ..Goods::default()
            },
        ),
        (
            vec![2, 3, 4, 5],
            Goods {
                palace: 1,
                ..Goods::default()
            },
        ),
    ] {
        let (mut state, _, mut r) = start(2, false, 8);
        give_card(&mut state, 0, "a31");
        let n = dice.len() as u8;
        state.players[0].rolled = dice.clone();
        state.players[0].active_dice = n;
        state.players[0].palace_dice = 5 - n;
        act(
            &mut state,
            0,
            Action::GroupDice {
                groups: vec![dice.clone()],
            },
            &mut r,
        );
        let groups = state.players[1].rolled.iter().map(|p| vec![*p]).collect();
        let events = act(&mut state, 1, Action::GroupDice { groups }, &mut r);
        assert_eq!(goods_for(&events, 0, Reason::Advisor), expect);
    }
}

// ------------------------------------------------------------------ KSR Nächste Runde vorbereiten

#[test]
fn ksr_palace_dice_to_fewest_active_then_furthest_then_first_there() {
    let mut state = placing(4, false, 0, vec![vec![1, 1, 1]]);
    // seat 2 has 4 active dice; seats 1 and 3 stand on palace space 2, seat 3 arrived first
    state.players[2].active_dice = 4;
    state.players[2].palace_dice = 1;
    for (seat, pos, arrival) in [(0usize, 1u8, 0u32), (1, 2, 3), (3, 2, 2)] {
        state.players[seat].palace = pos;
        state.players[seat].palace_arrival = arrival;
    }
    let events = act(&mut state, 0, place(0, "3"), &mut rng());
    let released: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            Event::PalaceDieReleased { seat } => Some(*seat),
            _ => None,
        })
        .collect();
    // the monument step moved seat 0 to space 2 as the latest arrival
    assert_eq!(
        released,
        vec![3, 1],
        "two dice with 4 players, in priority order"
    );
    assert_eq!(state.players[3].active_dice, 4);
    assert_eq!(state.players[3].rolled.len(), 4);
    // with 3 players only one die per round
    let mut three = placing(3, false, 0, vec![vec![1]]);
    let events = act(&mut three, 0, place(0, "scrolls"), &mut rng());
    let n = events
        .iter()
        .filter(|e| matches!(e, Event::PalaceDieReleased { .. }))
        .count();
    assert_eq!(n, 1);
}

#[test]
fn ksr_no_palace_die_once_the_palace_is_empty() {
    let mut state = placing(2, false, 0, vec![vec![1, 1, 1, 1, 1]]);
    state.players[1].active_dice = 5;
    state.players[1].palace_dice = 0;
    let events = act(&mut state, 0, place(0, "scrolls"), &mut rng());
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::PalaceDieReleased { .. })));
}

#[test]
fn ksr_display_refreshed_with_players_plus_one() {
    let mut state = placing(3, false, 0, vec![vec![1]]);
    state.display.truncate(1);
    let old = state.display[0].clone();
    act(&mut state, 0, place(0, "scrolls"), &mut rng());
    assert_eq!(state.display.len(), 4);
    assert!(state.discard.contains(&old));
}

#[test]
fn ksr_discard_pile_is_reshuffled_when_the_deck_runs_out() {
    let mut state = placing(2, false, 0, vec![vec![1], vec![1]]);
    let mut all: Vec<String> = state.deck.iter().map(|t| t[5..].to_string()).collect();
    let keep = all.split_off(1);
    state.deck.truncate(1);
    state.discard = keep;
    let events = act(&mut state, 0, place(0, "1"), &mut rng());
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::DeckReshuffled { .. })));
    assert!(matches!(
        state.pending.first(),
        Some(Pending::FishMarket { cards, .. }) if cards.len() == 3
    ));
    assert!(state.discard.is_empty());
}

// ------------------------------------------------------------------ KSR Spielende

#[test]
fn ksr_eight_layers_end_the_game_after_the_round() {
    let mut state = placing(2, false, 0, vec![vec![4], vec![1]]);
    state.players[0].layers = ["1", "2", "3", "5", "6", "7", "8"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let length = data().locations[index("4")].track_length().expect("track");
    state.players[0].tracks[index("4")] = length - 1;
    act(&mut state, 0, place(0, "4"), &mut rng());
    assert_eq!(state.completion, Some(0));
    assert_eq!(state.phase, Phase::Placement, "the round is played out");
    act(&mut state, 0, place(1, "scrolls"), &mut rng());
    assert_eq!(state.phase, Phase::Finished);
    let outcome = EternalPalace::outcome(&state).expect("over");
    let sheet = &state.result.as_ref().unwrap()[0];
    assert_eq!(sheet.completion, 1);
    assert_eq!(sheet.layers, 8);
    assert_eq!(outcome.scores[0], sheet.total);
    assert!(EternalPalace::to_act(&state).is_empty());
    assert_eq!(refused(&state, 0, place(0, "4")), "game_over");
}

#[test]
fn decided_round_limit_ends_a_rules_version_1_game() {
    let mut state = placing_under(1, 2, false, 0, vec![vec![1]]);
    state.round = data().round_limit(1).expect("version 1 has a round limit");
    act(&mut state, 0, place(0, "scrolls"), &mut rng());
    assert_eq!(state.phase, Phase::Finished);
}

fn scoring_state(layers: &[&[&str]], palace: &[u8]) -> State {
    let (mut state, _, _) = start(layers.len() as u8, false, 1);
    for (i, l) in layers.iter().enumerate() {
        state.players[i].layers = l.iter().map(|s| s.to_string()).collect();
        state.players[i].palace = palace[i];
    }
    state
}

#[test]
fn ksr_sequence_prize_longest_run_then_higher_end_else_nobody() {
    assert_eq!(best_run(&["1", "2", "3", "7"].map(String::from)), (3, 3));
    assert_eq!(best_run(&["bridge", "11", "12"].map(String::from)), (2, 12));
    let state = scoring_state(&[&["1", "2", "3"], &["5", "6", "7"]], &[0, 0]);
    assert_eq!(
        final_scores(&state).1,
        Some(1),
        "equal length, higher end wins"
    );
    let state = scoring_state(&[&["1", "2", "3"], &["1", "2", "3", "9"]], &[0, 0]);
    assert_eq!(final_scores(&state).1, None, "same run: nobody");
    let state = scoring_state(&[&["1", "2", "3", "4"], &["5", "6", "7"]], &[0, 0]);
    assert_eq!(final_scores(&state).1, Some(0), "longer run wins");
}

#[test]
fn ksr_imperial_seals_three_and_one_with_ties() {
    let seals = |palace: &[u8]| -> Vec<i32> {
        let layers: Vec<&[&str]> = palace.iter().map(|_| &[][..]).collect();
        let state = scoring_state(&layers, palace);
        final_scores(&state).0.iter().map(|s| s.seals).collect()
    };
    assert_eq!(seals(&[5, 3, 1]), vec![3, 1, 0]);
    assert_eq!(seals(&[5, 3, 3]), vec![3, 1, 1], "tie for second: both");
    assert_eq!(seals(&[5, 5, 3]), vec![3, 3, 0], "tie for first: no second");
}

#[test]
fn ksr_final_score_sums_and_sole_highest_layer_breaks_ties() {
    let mut state = scoring_state(
        &[&["1", "2", "12"], &["1", "2", "11"], &["1", "2", "11"]],
        &[0, 0, 0],
    );
    state.players[1].decorations = 1;
    state.monument_owners[index("3")] = Some(0);
    state.completion = Some(2);
    let (sheets, sequence) = final_scores(&state);
    assert_eq!(sequence, None);
    // everybody: 3 layers + 3 seals (tied at palace 0) + one extra VP each
    assert!(sheets.iter().all(|s| s.total == 7), "{sheets:?}");
    assert_eq!(sheets[0].monuments, 1);
    // seat 0 alone holds 12; seats 1 and 2 hold the same layers and share second place
    let places: Vec<u8> = sheets.iter().map(|s| s.place).collect();
    assert_eq!(places, vec![1, 2, 2]);
}

// ------------------------------------------------------------------ KSR Privilegien

#[test]
fn ksr_privilege_swaps_forward_unless_the_one_ahead_also_played() {
    // C plays: swaps with B
    assert_eq!(
        privilege_order(&[0, 1, 2, 3], &[false, false, true, false]),
        vec![0, 2, 1, 3]
    );
    // A and B play: A is first already, B is blocked by A
    assert_eq!(
        privilege_order(&[0, 1, 2, 3], &[true, true, false, false]),
        vec![0, 1, 2, 3]
    );
    // C and D play, evaluated in turn order: C passes B, then D passes B
    assert_eq!(
        privilege_order(&[0, 1, 2, 3], &[false, false, true, true]),
        vec![0, 2, 3, 1]
    );
}

#[test]
fn ksr_privileges_decided_in_turn_order_before_the_reveal() {
    let (mut state, _, mut r) = start(3, true, 5);
    let order = state.turn_order.clone();
    for seat in 0..3u8 {
        let groups = state.players[seat as usize]
            .rolled
            .iter()
            .map(|p| vec![*p])
            .collect();
        act(&mut state, seat, Action::GroupDice { groups }, &mut r);
    }
    assert_eq!(state.phase, Phase::Privileges);
    assert_eq!(EternalPalace::to_act(&state), vec![order[0]]);
    assert_eq!(
        refused(&state, order[1], Action::ChoosePrivilege { play: true }),
        "not_your_turn"
    );
    // groups stay hidden while privileges are decided
    assert!(EternalPalace::view(&state, Viewer::Spectator).players[0]
        .groups
        .is_none());
    act(
        &mut state,
        order[0],
        Action::ChoosePrivilege { play: false },
        &mut r,
    );
    act(
        &mut state,
        order[1],
        Action::ChoosePrivilege { play: false },
        &mut r,
    );
    let supply = state.privilege_supply;
    let events = act(
        &mut state,
        order[2],
        Action::ChoosePrivilege { play: true },
        &mut r,
    );
    assert_eq!(state.privilege_supply, supply + 1, "played tokens go back");
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::GroupsRevealed { .. })));
    assert_eq!(state.turn_order, vec![order[0], order[2], order[1]]);
    assert_eq!(state.phase, Phase::Placement);
}

#[test]
fn error_no_privilege_to_play() {
    let (mut state, _, mut r) = start(2, true, 5);
    let first = state.turn_order[0];
    state.players[first as usize].stock.privilege = 0;
    state.privilege_supply += 1;
    for seat in 0..2u8 {
        let groups = state.players[seat as usize]
            .rolled
            .iter()
            .map(|p| vec![*p])
            .collect();
        act(&mut state, seat, Action::GroupDice { groups }, &mut r);
    }
    // only the seat holding a token is asked
    assert_eq!(state.privilege_queue, vec![state.turn_order[1]]);
    let second = state.turn_order[1];
    state.players[second as usize].stock.privilege = 0;
    state.privilege_supply += 1;
    assert_eq!(
        refused(&state, second, Action::ChoosePrivilege { play: true }),
        "no_privilege"
    );
}

// ------------------------------------------------------------------ refusals

#[test]
fn error_grouping_refusals() {
    let (mut state, _, mut r) = start(2, false, 2);
    let rolled = state.players[0].rolled.clone();
    assert_eq!(
        refused(
            &state,
            0,
            Action::GroupDice {
                groups: vec![rolled.clone(), vec![]]
            }
        ),
        "empty_group"
    );
    let mut wrong = rolled.clone();
    wrong[0] = if wrong[0] == 6 { 5 } else { wrong[0] + 1 };
    assert_eq!(
        refused(
            &state,
            0,
            Action::GroupDice {
                groups: vec![wrong]
            }
        ),
        "not_your_dice"
    );
    let mut extra = rolled.clone();
    extra.push(3);
    assert_eq!(
        refused(
            &state,
            0,
            Action::GroupDice {
                groups: vec![extra]
            }
        ),
        "not_your_dice"
    );
    assert_eq!(refused(&state, 0, place(0, "1")), "wrong_phase");
    assert_eq!(
        refused(&state, 0, Action::ChoosePrivilege { play: false }),
        "wrong_phase"
    );
    assert_eq!(
        refused(&state, 0, Action::HireAdvisor { card: None }),
        "wrong_phase"
    );
    assert_eq!(
        refused(
            &state,
            5,
            Action::GroupDice {
                groups: vec![rolled.clone()]
            }
        ),
        "no_such_seat"
    );
    act(
        &mut state,
        0,
        Action::GroupDice {
            groups: vec![rolled.clone()],
        },
        &mut r,
    );
    assert_eq!(
        refused(
            &state,
            0,
            Action::GroupDice {
                groups: vec![rolled]
            }
        ),
        "already_grouped"
    );
}

#[test]
fn error_placement_refusals() {
    let mut state = placing(2, false, 0, vec![vec![1], vec![2, 2]]);
    assert_eq!(refused(&state, 1, place(0, "1")), "not_your_turn");
    assert_eq!(refused(&state, 0, place(7, "1")), "no_such_group");
    assert_eq!(refused(&state, 0, place(0, "13")), "no_such_location");
    assert_eq!(refused(&state, 0, place(0, "C3")), "no_such_location");
    let with_value = Action::PlaceDice {
        group: 0,
        location: "1".into(),
        value: Some(1),
    };
    assert_eq!(refused(&state, 0, with_value), "unexpected_value");
    assert_eq!(
        refused(&state, 0, Action::HireAdvisor { card: None }),
        "no_choice_pending"
    );
    act(&mut state, 0, place(0, "scrolls"), &mut rng());
    assert_eq!(refused(&state, 0, place(0, "1")), "group_placed");
    assert_eq!(
        refused(
            &state,
            0,
            Action::GroupDice {
                groups: vec![vec![1]]
            }
        ),
        "wrong_phase"
    );
}

#[test]
fn legal_placements_are_exactly_the_accepted_ones() {
    let state = placing(2, false, 0, vec![vec![1], vec![2, 3], vec![6, 6, 5]]);
    let legal = EternalPalace::legal_actions(&state, 0);
    let mut r = rng();
    for group in 0..3u8 {
        for key in data().locations.iter().map(|l| l.key.clone()) {
            let values: Vec<Option<u8>> = if key == "bridge" {
                (0..=7).map(Some).chain([None]).collect()
            } else {
                vec![None, Some(3)]
            };
            for value in values {
                let action = Action::PlaceDice {
                    group,
                    location: key.clone(),
                    value,
                };
                let accepted = EternalPalace::decide(&state, 0, &action, &mut r).is_ok();
                assert_eq!(accepted, legal.contains(&action), "{action:?}");
            }
        }
    }
}

#[test]
fn api_schemas_are_named_for_eternal_palace() {
    use crate::eternal_palace::{EternalPalaceView, Event as EpEvent};
    use utoipa::{PartialSchema, ToSchema};
    let mut nested = Vec::new();
    EternalPalaceOptions::schemas(&mut nested);
    Action::schemas(&mut nested);
    EpEvent::schemas(&mut nested);
    EternalPalaceView::schemas(&mut nested);
    assert!(nested.len() > 10);
    for (name, schema) in &nested {
        assert!(
            name.starts_with("EternalPalace") || ["u8", "Seat"].contains(&name.as_str()),
            "schema {name} could clash with another game's"
        );
        serde_json::to_string(schema).expect("schema json");
    }
    let view = serde_json::to_string(&EternalPalaceView::schema()).expect("view");
    assert!(view.contains("EternalPalacePlayerView"));
    let action = serde_json::to_string(&Action::schema()).expect("action");
    assert!(action.contains("use_advisor") && action.contains("EternalPalaceMarketItem"));
}
