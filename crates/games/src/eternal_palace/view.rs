//! What one viewer may see: of the state, of each event (`redact`), and the needles of the
//! secrets for the leak tests.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::data::{
    data, AdvisorCard, ArrowData, BonusData, CompositionCard, DemandCard, Goods, LocationKind,
    Resource, SpaceData, StationData,
};
use super::event::{Choice, Event, ScoreSheet};
use super::legal::to_act;
use super::scoring::final_scores;
use super::state::{token_card, token_owner, unseal, Pending, Phase, Player, State};
use crate::engine::{Seat, Secret, Viewer};

/// Phase of play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = EternalPalacePhaseView)]
pub enum PhaseView {
    Setup,
    /// Everybody groups in secret (simultaneous).
    Grouping,
    /// Privileges module: play a token or not, in turn order.
    Privileges,
    /// Groups are placed one at a time.
    Placement,
    Finished,
}

/// A group lying on a location this round.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalacePlacedGroupView)]
pub struct PlacedGroupView {
    pub seat: Seat,
    /// Pips after wisdom.
    pub pips: Vec<u8>,
}

/// A temple / market space and who marked it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceSpaceView)]
pub struct SpaceView {
    #[serde(flatten)]
    pub space: SpaceData,
    /// Seats with a mark on this space.
    pub marked_by: Vec<Seat>,
}

/// Resources gained at a resource location for a number of dice.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceYieldView)]
pub struct YieldView {
    pub dice: usize,
    pub amount: i32,
}

/// One location of the board.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceLocationView)]
pub struct LocationView {
    /// "1".."12", "bridge" or "scrolls" (the name used in actions).
    pub key: String,
    pub name: String,
    pub kind: LocationKind,
    /// Groups lying here this round.
    pub dice: Vec<PlacedGroupView>,
    /// Fish a new group pays here now (distinct colours present; 0 at the scrolls).
    pub fish_to_pay: i32,
    /// Track length (last space gives the layer), for track locations and the bridge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub track_length: Option<u8>,
    /// Marker position per seat (index = seat), for track locations and the bridge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<u8>,
    /// The decoration token is still here.
    pub decoration_available: bool,
    /// Resource of a resource location or monument.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<Resource>,
    /// Resource location yields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub yields: Vec<YieldView>,
    /// Monument: resources in the ring (the price of the next visit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ring: Option<i32>,
    /// Monument: current owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<Seat>,
    /// Temple / market spaces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spaces: Vec<SpaceView>,
    /// Bridge bonuses in play (the tile's when the Eternal Bridge tile is in play).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bonuses: Vec<BonusData>,
    /// The location tile lies on this location (its action replaces the printed one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tile: bool,
}

/// Labyrinth module: the plan and where the markers stand.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceLabyrinthView)]
pub struct LabyrinthView {
    pub stations: Vec<StationData>,
    /// The red arrows, with the fish paid on the way.
    pub arrows: Vec<ArrowData>,
    /// Each seat's station (index = seat).
    pub markers: Vec<String>,
}

/// River market module: one demand field of the open card.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceDemandFieldView)]
pub struct DemandFieldView {
    /// 0 = top.
    pub field: u8,
    /// The resources the field accepts (one of them).
    pub resources: Vec<Resource>,
    /// The seat whose marker lies here.
    pub marker: Option<Seat>,
}

/// River market module: the open card, its fields and the deck's size (its order is secret).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceRiverMarketView)]
pub struct RiverMarketView {
    /// The open demand card.
    pub card: Option<DemandCard>,
    /// The demand fields in play (2 with 2-3 players, 3 with 4-5).
    pub fields: Vec<DemandFieldView>,
    /// Face-down cards left.
    pub deck_size: usize,
    /// Cards used up since the last shuffle (ids), oldest first.
    pub used: Vec<String>,
}

/// A group of the viewer (before the reveal) or of anybody (after it).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceGroupView)]
pub struct GroupView {
    /// Index used by the `place` action.
    pub index: u8,
    pub pips: Vec<u8>,
    pub placed: bool,
}

/// An advisor in front of a player.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceOwnedAdvisorView)]
pub struct OwnedAdvisorView {
    pub card: AdvisorCard,
    /// Turned sideways this round.
    pub used: bool,
}

/// One seat as the viewer may see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalacePlayerView)]
pub struct PlayerView {
    pub seat: Seat,
    /// Colour name used in descriptions.
    pub colour: String,
    /// Victory points if the game ended now (the final score once it has).
    pub score: i32,
    /// Fish, wisdom, resources, privilege tokens (all public).
    pub stock: Goods,
    pub active_dice: u8,
    /// Dice still waiting on the palace.
    pub palace_dice: u8,
    /// Pips rolled this round (public).
    pub rolled: Vec<u8>,
    /// Grouping submitted this round (grouping phase).
    pub grouped: bool,
    /// Groups: the viewer's own before the reveal, everybody's after it; `null` when hidden.
    pub groups: Option<Vec<GroupView>>,
    pub advisors: Vec<OwnedAdvisorView>,
    /// Painting layers (location keys).
    pub layers: Vec<String>,
    pub decorations: i32,
    /// Monuments owned (location keys).
    pub monuments: Vec<String>,
    /// Palace track position.
    pub palace: u8,
    /// Arrival rank on the palace space (lower = arrived earlier, below in the stack).
    pub palace_arrival: u32,
    /// Temple / market spaces marked.
    pub marks: Vec<String>,
    /// Privilege played this round.
    pub privilege_played: bool,
    /// Labyrinth module: the station of the seat's marker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub station: Option<String>,
    /// Compositions module: the cards the seat took.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compositions: Vec<String>,
}

/// A deck card the viewer knows (put back on top by the viewer).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalaceKnownDeckCard)]
pub struct KnownDeckCard {
    /// 0 = top of the deck.
    pub position: usize,
    pub card: AdvisorCard,
}

/// The decision the active seat owes.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = EternalPalacePendingView)]
pub struct PendingView {
    pub seat: Seat,
    /// Set for every choice but the fish market.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choice: Option<Choice>,
    /// Fish market: number of cards drawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fish_market_cards: Option<usize>,
    /// Fish market: the drawn cards, only for the seat that drew them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drawn: Option<Vec<AdvisorCard>>,
    /// Fish Market tile: the seat may still pay fish to draw more (`draw_advisors`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub may_draw_more: bool,
}

/// The game as one viewer sees it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EternalPalaceView {
    pub round: u32,
    /// Rules version 1 only: the game ends after this round at the latest. `null` from rules
    /// version 2 on, where only 8 painting layers end the game.
    pub round_limit: Option<u32>,
    pub phase: PhaseView,
    /// Privileges module in play.
    pub privileges: bool,
    /// Option `any_group_at_module_locations`: the labyrinth and the river market take a
    /// group of any size (otherwise exactly one die).
    pub any_group_at_module_locations: bool,
    /// First to last.
    pub turn_order: Vec<Seat>,
    /// Seats that must act now.
    pub to_act: Vec<Seat>,
    /// The seat placing now.
    pub placer: Option<Seat>,
    pub locations: Vec<LocationView>,
    pub players: Vec<PlayerView>,
    /// Open advisors.
    pub display: Vec<AdvisorCard>,
    pub deck_size: usize,
    /// Discard pile, oldest first.
    pub discard: Vec<String>,
    /// Deck cards the viewer knows.
    pub known_deck_cards: Vec<KnownDeckCard>,
    pub pending: Option<PendingView>,
    /// Privilege tokens left in the supply.
    pub privilege_supply: i32,
    /// Privileges phase: seats still to decide, in order.
    pub privilege_queue: Vec<Seat>,
    /// Layers that end the game.
    pub layers_to_end: usize,
    /// Holder of the completion prize.
    pub completion: Option<Seat>,
    /// Holder of the sequence prize (after scoring).
    pub sequence: Option<Seat>,
    /// Final scoring.
    pub result: Option<Vec<ScoreSheet>>,
    /// Location keys whose tile is in play (rules version 3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub location_tiles: Vec<String>,
    /// Academy tile: the wisdom in the academy's reserve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub academy_reserve: Option<i32>,
    /// Labyrinth module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labyrinth: Option<LabyrinthView>,
    /// River market module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub river_market: Option<RiverMarketView>,
    /// Compositions module: the open cards not yet taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compositions: Option<Vec<CompositionCard>>,
}

fn card(id: &str) -> Option<AdvisorCard> {
    data().card(id).cloned()
}

pub fn view(state: &State, viewer: Viewer) -> EternalPalaceView {
    let d = data();
    EternalPalaceView {
        round: state.round,
        round_limit: d.round_limit(state.rules_version),
        phase: match state.phase {
            Phase::Setup => PhaseView::Setup,
            Phase::Grouping => PhaseView::Grouping,
            Phase::Privileges => PhaseView::Privileges,
            Phase::Placement => PhaseView::Placement,
            Phase::Finished => PhaseView::Finished,
        },
        privileges: state.privileges,
        any_group_at_module_locations: state.any_group_at_module_locations,
        turn_order: state.turn_order.clone(),
        to_act: to_act(state),
        placer: state.placer,
        locations: locations_view(state),
        players: players_view(state, viewer),
        display: state.display.iter().filter_map(|c| card(c)).collect(),
        deck_size: state.deck.len(),
        discard: state.discard.clone(),
        known_deck_cards: known_deck_cards(state, viewer),
        pending: pending_view(state, viewer),
        privilege_supply: state.privilege_supply,
        privilege_queue: state.privilege_queue.clone(),
        layers_to_end: d.end.layers,
        completion: state.completion,
        sequence: state.sequence_winner,
        result: state.result.clone(),
        location_tiles: state.tiles.clone(),
        academy_reserve: state.tile("2").then_some(state.academy_reserve),
        labyrinth: state.labyrinth.then(|| LabyrinthView {
            stations: d.stations.clone(),
            arrows: d.arrows.clone(),
            markers: state.players.iter().map(|p| p.station.clone()).collect(),
        }),
        river_market: state.river_market.then(|| RiverMarketView {
            card: state
                .demand_card
                .as_deref()
                .and_then(|c| d.demand(c))
                .cloned(),
            fields: state
                .demand_fields
                .iter()
                .enumerate()
                .map(|(i, marker)| DemandFieldView {
                    field: i as u8,
                    resources: d.river_market.fields.get(i).cloned().unwrap_or_default(),
                    marker: *marker,
                })
                .collect(),
            deck_size: state.demand_deck.len(),
            used: state.demand_discard.clone(),
        }),
        compositions: state.compositions.then(|| {
            state
                .composition_cards
                .iter()
                .filter_map(|c| d.composition(c).cloned())
                .collect()
        }),
    }
}

fn locations_view(state: &State) -> Vec<LocationView> {
    let d = data();
    let seats = state.seats;
    d.locations
        .iter()
        .enumerate()
        .filter(|(i, _)| state.in_play(*i))
        .map(|(i, l)| LocationView {
            key: l.key.clone(),
            name: l.name.clone(),
            kind: l.kind,
            dice: state.location_dice[i]
                .iter()
                .map(|g| PlacedGroupView {
                    seat: g.seat,
                    pips: g.pips.clone(),
                })
                .collect(),
            fish_to_pay: if l.kind == LocationKind::Scrolls {
                0
            } else {
                state.colours_at(i)
            },
            track_length: l.track_length(),
            markers: if l.track.is_some() {
                state.players.iter().map(|p| p.tracks[i]).collect()
            } else {
                Vec::new()
            },
            decoration_available: state.decorations.contains(&l.key),
            resource: l.resource,
            yields: l
                .yields
                .iter()
                .map(|y| YieldView {
                    dice: y.dice,
                    amount: y.amount,
                })
                .collect(),
            ring: (l.kind == LocationKind::Monument).then(|| state.rings[i]),
            owner: state.monument_owners[i],
            spaces: l
                .spaces
                .iter()
                .map(|s| SpaceView {
                    space: s.clone(),
                    marked_by: (0..seats)
                        .filter(|seat| state.players[*seat as usize].marks.contains(&s.id))
                        .collect(),
                })
                .collect(),
            bonuses: if l.kind == LocationKind::Bridge {
                d.bridge_bonuses(state.privileges, state.tile("bridge"))
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            },
            tile: state.tile(&l.key),
        })
        .collect()
}

fn players_view(state: &State, viewer: Viewer) -> Vec<PlayerView> {
    let d = data();
    let (sheets, _) = final_scores(state);
    state
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let seat = i as Seat;
            let sealed = state.sealed.get(i).cloned().flatten();
            let groups = groups_view(p, sealed.as_deref(), viewer.sees_secrets_of(seat));
            PlayerView {
                seat,
                colour: crate::kit::seats::colour(seat).to_string(),
                score: sheets.get(i).map_or(0, |sheet| sheet.total),
                stock: p.stock,
                active_dice: p.active_dice,
                palace_dice: p.palace_dice,
                rolled: p.rolled.clone(),
                grouped: sealed.is_some(),
                groups,
                advisors: p
                    .advisors
                    .iter()
                    .filter_map(|a| {
                        card(&a.card).map(|c| OwnedAdvisorView {
                            card: c,
                            used: a.used,
                        })
                    })
                    .collect(),
                layers: p.layers.clone(),
                decorations: p.decorations,
                monuments: d
                    .locations
                    .iter()
                    .enumerate()
                    .filter(|(li, _)| state.monument_owners[*li] == Some(seat))
                    .map(|(_, l)| l.key.clone())
                    .collect(),
                palace: p.palace,
                palace_arrival: p.palace_arrival,
                marks: p.marks.clone(),
                privilege_played: p.privilege_played,
                station: state.labyrinth.then(|| p.station.clone()),
                compositions: p.compositions.clone(),
            }
        })
        .collect()
}

/// A player's groups: open once revealed, to the owner while sealed.
fn groups_view(p: &Player, sealed: Option<&str>, sees_secrets: bool) -> Option<Vec<GroupView>> {
    if !p.groups.is_empty() {
        Some(
            p.groups
                .iter()
                .enumerate()
                .map(|(g, pips)| GroupView {
                    index: g as u8,
                    pips: pips.clone(),
                    placed: p.placed.get(g).copied().unwrap_or(false),
                })
                .collect(),
        )
    } else if let (Some(sealed), true) = (sealed, sees_secrets) {
        Some(
            unseal(sealed)
                .into_iter()
                .enumerate()
                .map(|(g, pips)| GroupView {
                    index: g as u8,
                    pips,
                    placed: false,
                })
                .collect(),
        )
    } else {
        None
    }
}

/// Cards in the deck whose place the viewer knows (returned from the fish market).
fn known_deck_cards(state: &State, viewer: Viewer) -> Vec<KnownDeckCard> {
    state
        .deck
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            viewer.is_omniscient() || token_owner(t).is_some_and(|o| viewer.sees_secrets_of(o))
        })
        .filter_map(|(position, t)| {
            card(token_card(t)).map(|c| KnownDeckCard { position, card: c })
        })
        .collect()
}

fn pending_view(state: &State, viewer: Viewer) -> Option<PendingView> {
    state.pending.first().map(|p| match p {
        Pending::FishMarket {
            seat,
            cards,
            draw_more,
        } => PendingView {
            seat: *seat,
            choice: None,
            fish_market_cards: Some(cards.len()),
            drawn: viewer
                .sees_secrets_of(*seat)
                .then(|| cards.iter().filter_map(|t| card(token_card(t))).collect()),
            may_draw_more: *draw_more,
        },
        Pending::Offered { seat, choice } => PendingView {
            seat: *seat,
            choice: Some(choice.clone()),
            fish_market_cards: None,
            drawn: None,
            may_draw_more: false,
        },
    })
}

/// The event as `viewer` may see it: decks, drawn cards and sealed groupings blanked.
pub fn redact(event: &Event, viewer: Viewer) -> Event {
    let mut event = event.clone();
    match &mut event {
        Event::GameSetUp { deck, .. }
        | Event::DeckReshuffled { deck }
        | Event::DemandDeckShuffled { deck }
            if !viewer.is_omniscient() =>
        {
            *deck = None;
        }
        Event::ExtraAdvisorsDrawn { seat, cards, .. } if !viewer.sees_secrets_of(*seat) => {
            *cards = None;
        }
        Event::DiceGrouped { seat, sealed } if !viewer.sees_secrets_of(*seat) => *sealed = None,
        Event::AdvisorsDrawn { seat, cards, .. } if !viewer.sees_secrets_of(*seat) => {
            *cards = None;
        }
        Event::FishMarketResolved { seat, returned, .. } if !viewer.sees_secrets_of(*seat) => {
            *returned = None;
        }
        _ => {}
    }
    event
}

/// The needles of everything secret, with the seat that may see each, for the leak tests.
pub fn secrets(state: &State) -> Vec<Secret> {
    let mut out = Vec::new();
    for token in &state.deck {
        out.push(Secret {
            owner: token_owner(token),
            needle: format!("\"{token}\""),
        });
    }
    for token in &state.demand_deck {
        out.push(Secret {
            owner: None,
            needle: format!("\"{token}\""),
        });
    }
    for pending in &state.pending {
        if let Pending::FishMarket { seat, cards, .. } = pending {
            for token in cards {
                out.push(Secret {
                    owner: Some(*seat),
                    needle: format!("\"{token}\""),
                });
            }
        }
    }
    for (seat, sealed) in state.sealed.iter().enumerate() {
        if let Some(sealed) = sealed {
            out.push(Secret {
                owner: Some(seat as Seat),
                needle: format!("\"{sealed}\""),
            });
        }
    }
    out
}
