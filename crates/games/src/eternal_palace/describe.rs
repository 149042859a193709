//! The log's lines: one sentence per event, for people reading the game's history.

use super::data::{data, Goods};
use super::event::{Answer, Choice, Event, HireSource, Reason};
use super::state::{self, token_card, State};
use crate::engine::Seat;

fn colour(seat: Seat) -> &'static str {
    crate::kit::seats::colour(seat)
}

fn card_name(id: &str) -> String {
    match data().card(id) {
        Some(c) => format!("{} ({})", c.name, c.id),
        None => id.to_string(),
    }
}

fn location_name(key: &str) -> String {
    let d = data();
    match d.location_index(key) {
        Some(i) if d.locations[i].number().is_some() => {
            format!("{} ({})", d.locations[i].name, key)
        }
        Some(i) => d.locations[i].name.clone(),
        None => key.to_string(),
    }
}

fn seats_text(seats: &[Seat]) -> String {
    seats
        .iter()
        .map(|s| colour(*s))
        .collect::<Vec<_>>()
        .join(", ")
}

fn reason_text(reason: Reason) -> &'static str {
    match reason {
        Reason::ResourceLocation => "at the resource location",
        Reason::Temple => "at the Temple of Wisdom",
        Reason::Market => "at the Palace Market",
        Reason::Scrolls => "at the Imperial Scrolls",
        Reason::Bridge => "from the Eternal Bridge",
        Reason::Monument => "at the monument",
        Reason::Hire => "for hiring",
        Reason::Advisor => "from an advisor",
        Reason::Diplomacy => "from a diplomat",
        Reason::Labyrinth => "in the labyrinth",
        Reason::RiverMarket => "to fulfil a demand at the river market",
        Reason::DemandReward => "as the river market's reward",
        Reason::DemandPenalty => "as the river market's penalty",
        Reason::Composition => "for a composition",
        Reason::FishMarket => "to draw more advisors",
        Reason::Academy => "from the academy's reserve",
    }
}

fn station_name(id: &str) -> String {
    data()
        .station(id)
        .map_or_else(|| id.to_string(), |s| s.name.clone())
}

fn answer_text(answer: &Answer) -> String {
    match answer {
        Answer::Path { station } => format!("takes the way to {}", station_name(station)),
        Answer::Demand { field, resource } => {
            format!("gives {} for demand field {field}", resource.name())
        }
        Answer::Reserve { wisdom } => format!("takes the academy's reserve of {wisdom} wisdom"),
        Answer::Temple { paid } if paid.is_empty() => "takes 1 wisdom at the temple".into(),
        Answer::Temple { paid } => format!(
            "pays {} for wisdom at the temple",
            paid.iter()
                .map(|r| r.name())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        Answer::MarketTile {
            step,
            palace,
            bundle,
            advisor,
            privilege,
        } => {
            let mut parts = Vec::new();
            if let Some(r) = step {
                parts.push(format!("a step for {}", r.name()));
            }
            if *palace {
                parts.push("a palace step".to_string());
            }
            if let Some(r) = bundle {
                parts.push(format!("wisdom, fish and {}", r.name()));
            }
            if let Some(c) = advisor {
                parts.push(card_name(c));
            }
            if *privilege {
                parts.push("a privilege".to_string());
            }
            format!("takes {} at the Palace Market", parts.join(", "))
        }
        Answer::ResourceStep { resource: Some(r) } => format!("pays {} for a step", r.name()),
        Answer::ResourceStep { resource: None } => "takes no step for a resource".to_string(),
    }
}

pub fn describe(state: &State, event: &Event) -> String {
    match event {
        Event::GameSetUp {
            seats, turn_order, ..
        } => format!(
            "A game for {seats} players begins; turn order {}",
            seats_text(turn_order)
        ),
        Event::DeckReshuffled { .. } => {
            format!(
                "The {} discarded advisors are shuffled into the deck",
                state.discard.len()
            )
        }
        Event::DisplayCleared { cards } => {
            format!("{} open advisor(s) are discarded", cards.len())
        }
        Event::DisplayDealt { cards } => format!(
            "New advisors on display: {}",
            cards
                .iter()
                .map(|c| card_name(c))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Event::GoodsChanged {
            seat,
            delta,
            reason,
        } => {
            let positive = Goods::only_positive(delta);
            let negative = Goods::only_positive(&delta.negated());
            let mut parts = Vec::new();
            if !positive.is_empty() {
                parts.push(format!("gains {}", positive.text()));
            }
            if !negative.is_empty() {
                parts.push(format!("pays {}", negative.text()));
            }
            format!(
                "{} {} {}",
                colour(*seat),
                parts.join(" and "),
                reason_text(*reason)
            )
        }
        Event::DiceRolled { round, dice } => {
            let rolls: Vec<String> = dice
                .iter()
                .enumerate()
                .map(|(s, d)| format!("{} {:?}", colour(s as Seat), d))
                .collect();
            format!("Round {round}: dice rolled: {}", rolls.join(", "))
        }
        Event::TurnOrderSet { order } => format!("Turn order: {}", seats_text(order)),
        Event::DiceGrouped { seat, sealed } => match sealed {
            Some(s) => format!(
                "{} locks the grouping {:?}",
                colour(*seat),
                state::unseal(s)
            ),
            None => format!("{} locks a grouping", colour(*seat)),
        },
        Event::PrivilegesOpened { seats } => {
            format!("Privileges: {} decide in this order", seats_text(seats))
        }
        Event::PrivilegeDecided { seat, play } => {
            if *play {
                format!("{} plays a privilege", colour(*seat))
            } else {
                format!("{} plays no privilege", colour(*seat))
            }
        }
        Event::GroupsRevealed { groups } => {
            let parts: Vec<String> = groups
                .iter()
                .enumerate()
                .map(|(s, g)| format!("{} {:?}", colour(s as Seat), g))
                .collect();
            format!("Groups revealed: {}", parts.join(", "))
        }
        Event::DicePlaced {
            seat,
            location,
            pips,
            wisdom,
            fish,
            ..
        } => {
            let mut text = format!(
                "{} places {:?} on {}",
                colour(*seat),
                pips,
                location_name(location)
            );
            if *wisdom > 0 {
                text.push_str(&format!(", spending {wisdom} wisdom"));
            }
            if *fish > 0 {
                text.push_str(&format!(", paying {fish} fish"));
            }
            text
        }
        Event::TrackAdvanced { seat, location, to } => format!(
            "{} moves to space {to} at {}",
            colour(*seat),
            location_name(location)
        ),
        Event::LayerTaken { seat, layer } => format!(
            "{} takes the painting layer of {}",
            colour(*seat),
            location_name(layer)
        ),
        Event::DecorationTaken { seat, location } => format!(
            "{} takes the decoration of {}",
            colour(*seat),
            location_name(location)
        ),
        Event::MonumentTaken {
            seat,
            location,
            paid,
        } => format!(
            "{} pays {paid} to the ring and takes the monument {}",
            colour(*seat),
            location_name(location)
        ),
        Event::SpaceMarked { seat, space } => {
            format!("{} marks space {space}", colour(*seat))
        }
        Event::ChoiceOffered { seat, choice } => {
            let what = match choice {
                Choice::Hire {
                    source: HireSource::Academy,
                } => "may hire an open advisor".to_string(),
                Choice::Hire { .. } => "may take an open advisor for free".to_string(),
                Choice::Resource => "chooses a resource".to_string(),
                Choice::Market { count } => format!("chooses {count} market items"),
                Choice::Scrolls => "chooses the scrolls' reward".to_string(),
                Choice::ArtistGroup { card, .. } => {
                    format!("chooses the group that {} rewards", card_name(card))
                }
                Choice::Path { .. } => "chooses a way through the labyrinth".to_string(),
                Choice::Demand => "chooses a demand to fulfil".to_string(),
                Choice::AcademyTile { reserve } => {
                    format!("takes the reserve of {reserve} wisdom or hires an advisor")
                }
                Choice::TempleTile => "chooses what to buy at the temple".to_string(),
                Choice::MarketTile { count } => format!("chooses {count} market items"),
                Choice::ResourceStep => "may pay a resource for a step".to_string(),
            };
            format!("{} {what}", colour(*seat))
        }
        Event::ChoiceMade {
            seat,
            card,
            resource,
            items,
        } => {
            let mut parts = Vec::new();
            if let Some(c) = card {
                parts.push(card_name(c));
            }
            if let Some(r) = resource {
                parts.push(r.name().to_string());
            }
            for i in items {
                parts.push(i.id().to_string());
            }
            if parts.is_empty() {
                format!("{} takes nothing", colour(*seat))
            } else {
                format!("{} chooses {}", colour(*seat), parts.join(", "))
            }
        }
        Event::ArtistGroupChosen { seat, card, group } => {
            let pips = state
                .player(*seat)
                .and_then(|p| p.groups.get(*group as usize))
                .cloned()
                .unwrap_or_default();
            format!(
                "{} chooses the group {:?} for {}",
                colour(*seat),
                pips,
                card_name(card)
            )
        }
        Event::AdvisorsDrawn { seat, count, cards } => match cards {
            Some(cards) => format!(
                "{} draws {}",
                colour(*seat),
                cards
                    .iter()
                    .map(|t| card_name(token_card(t)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!("{} draws {count} advisor(s)", colour(*seat)),
        },
        Event::FishMarketResolved {
            seat,
            returned,
            discarded,
            hired,
        } => {
            let mut parts = Vec::new();
            match returned {
                Some(t) => parts.push(format!("puts {} back on top", card_name(token_card(t)))),
                None => parts.push("puts a card back on top".to_string()),
            }
            if !discarded.is_empty() {
                parts.push(format!(
                    "discards {}",
                    discarded
                        .iter()
                        .map(|c| card_name(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if let Some(h) = hired {
                parts.push(format!("keeps {}", card_name(h)));
            }
            format!("{} {}", colour(*seat), parts.join(", "))
        }
        Event::AdvisorHired { seat, card, .. } => {
            format!("{} hires {}", colour(*seat), card_name(card))
        }
        Event::AdvisorUsed { seat, card, target } => match target {
            Some(t) => format!(
                "{} uses {} towards {}",
                colour(*seat),
                card_name(card),
                colour(*t)
            ),
            None => format!("{} uses {}", colour(*seat), card_name(card)),
        },
        Event::TurnPassed { next } => match next {
            Some(s) => format!("{} places next", colour(*s)),
            None => "Every group is placed".to_string(),
        },
        Event::RoundEnded { round } => format!("Round {round} ends"),
        Event::PalaceDieReleased { seat } => {
            format!("{} gets a die back from the palace", colour(*seat))
        }
        Event::GameFinished { scores, places, .. } => {
            crate::kit::seats::describe_final_standing(scores, places)
        }
        Event::DemandDeckShuffled { .. } => {
            "The river market's demand cards are shuffled face down".to_string()
        }
        Event::DemandRevealed { card } => format!("Demand card {card} is revealed"),
        Event::DemandFulfilled { seat, field } => {
            format!("{} puts a marker on demand field {field}", colour(*seat))
        }
        Event::DemandSettled { card } => {
            format!("Demand card {card} is full: markers return")
        }
        Event::LabyrinthMoved { seat, to } => format!(
            "{} moves to {} in the labyrinth",
            colour(*seat),
            station_name(to)
        ),
        Event::CompositionsDealt { cards } => {
            format!("Composition cards on display: {}", cards.join(", "))
        }
        Event::CompositionClaimed { seat, card } => {
            format!("{} completes composition {card}", colour(*seat))
        }
        Event::AcademyReserveSet { wisdom } => {
            format!("The academy's reserve now holds {wisdom} wisdom")
        }
        Event::ExtraAdvisorsDrawn { seat, count, cards } => match cards {
            Some(cards) => format!(
                "{} draws {} more",
                colour(*seat),
                cards
                    .iter()
                    .map(|t| card_name(token_card(t)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!("{} draws {count} more advisor(s)", colour(*seat)),
        },
        Event::ChoiceAnswered { seat, answer } => {
            format!("{} {}", colour(*seat), answer_text(answer))
        }
    }
}
