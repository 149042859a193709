//! Ratings per game kind: Weng-Lin (a Bayesian rating for games of any number of players,
//! the model OpenSkill uses), from the `skillratings` crate. Each player is a team of one,
//! ranked by their place in the game's final standing; tied places count as ties.

use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

/// A player's rating in one kind: `rating` is the estimate of their skill, `uncertainty` how
/// unsure it still is (it shrinks with every game).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub uncertainty: f64,
}

impl Rating {
    /// Where every player starts: 25 with an uncertainty of 25/3, Weng-Lin's defaults.
    pub fn initial() -> Rating {
        let start = WengLinRating::new();
        Rating {
            rating: start.rating,
            uncertainty: start.uncertainty,
        }
    }

    /// The rating the player almost surely has at least (rating minus three times the
    /// uncertainty): what leaderboards rank by, so one lucky game does not top them.
    pub fn conservative(self) -> f64 {
        self.rating - 3.0 * self.uncertainty
    }
}

/// Everyone's rating after one game, given each player's rating before it and their place
/// (1 = first; equal places are ties). In the order given.
pub fn after_game(players: &[(Rating, u8)]) -> Vec<Rating> {
    let teams: Vec<[WengLinRating; 1]> = players
        .iter()
        .map(|(before, _)| {
            [WengLinRating {
                rating: before.rating,
                uncertainty: before.uncertainty,
            }]
        })
        .collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(players)
        .map(|(team, (_, place))| (&team[..], MultiTeamOutcome::new(usize::from(*place))))
        .collect();
    weng_lin_multi_team(&ranked, &WengLinConfig::new())
        .into_iter()
        .map(|team| Rating {
            rating: team[0].rating,
            uncertainty: team[0].uncertainty,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_winner_gains_and_the_loser_loses_and_both_grow_surer() {
        let start = Rating::initial();
        let after = after_game(&[(start, 2), (start, 1)]);
        assert!(after[1].rating > start.rating && after[0].rating < start.rating);
        assert!(after.iter().all(|r| r.uncertainty < start.uncertainty));
        assert!((after[0].rating - start.rating + after[1].rating - start.rating).abs() < 1e-9);
    }

    #[test]
    fn places_order_a_multiplayer_game_and_ties_stay_level() {
        let start = Rating::initial();
        let after = after_game(&[(start, 1), (start, 2), (start, 2), (start, 4)]);
        assert!(after[0].rating > after[1].rating);
        assert!((after[1].rating - after[2].rating).abs() < 1e-9);
        assert!(after[2].rating > after[3].rating);
    }

    #[test]
    fn beating_a_stronger_player_gains_more() {
        let start = Rating::initial();
        let strong = Rating {
            rating: 35.0,
            uncertainty: 3.0,
        };
        let against_equal = after_game(&[(start, 1), (start, 2)])[0].rating;
        let against_strong = after_game(&[(start, 1), (strong, 2)])[0].rating;
        assert!(against_strong > against_equal);
    }
}
