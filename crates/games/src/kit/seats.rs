//! Seats go clockwise from seat 0; every game uses the same seat colours in the same order.

use std::ops::RangeInclusive;

use crate::engine::{RuleError, Seat, SharedRule};

/// Seat colours in seat order, the same in every game (`docs/vocabulary.md`).
pub const SEAT_COLOURS: [&str; 5] = ["Red", "Blue", "Yellow", "Green", "Purple"];

/// The colour that names `seat` in descriptions and views.
pub fn colour(seat: Seat) -> &'static str {
    SEAT_COLOURS
        .get(usize::from(seat))
        .copied()
        .unwrap_or("Nobody")
}

/// "The game is over: Red 31 (place 1), Blue 24 (place 2)": the final standing told the
/// same way in every game, from scores and places indexed by seat.
pub fn describe_final_standing(scores: &[i32], places: &[u8]) -> String {
    let parts: Vec<String> = scores
        .iter()
        .zip(places)
        .enumerate()
        .map(|(seat, (score, place))| {
            let seat = Seat::try_from(seat).unwrap_or(Seat::MAX);
            format!("{} {score} (place {place})", colour(seat))
        })
        .collect();
    format!("The game is over: {}", parts.join(", "))
}

/// The seat to the left of `seat` (clockwise) at a table of `seats`.
pub fn next_clockwise(seat: Seat, seats: u8) -> Seat {
    (seat + 1) % seats.max(1)
}

/// Every seat once, clockwise, starting with `first`.
pub fn clockwise_from(first: Seat, seats: u8) -> impl Iterator<Item = Seat> {
    let seats = seats.max(1);
    (0..seats).map(move |offset| (first % seats + offset) % seats)
}

/// Refuses a table of `seats` when `game` is not played by that many.
pub fn check_player_count(
    game: &str,
    counts: RangeInclusive<u8>,
    seats: u8,
) -> Result<(), RuleError> {
    if counts.contains(&seats) {
        return Ok(());
    }
    Err(RuleError::new(
        SharedRule::UnsupportedPlayerCount,
        format!(
            "{game} is played by {} to {} players, not {seats}",
            counts.start(),
            counts.end()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clockwise_order_wraps_around_the_table() {
        assert_eq!(next_clockwise(2, 3), 0);
        assert_eq!(next_clockwise(0, 3), 1);
        assert_eq!(clockwise_from(2, 4).collect::<Vec<_>>(), [2, 3, 0, 1]);
        assert_eq!(clockwise_from(0, 2).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn player_count_outside_the_range_is_refused_with_the_shared_code() {
        assert!(check_player_count("Tikal", 2..=4, 3).is_ok());
        let refusal = check_player_count("Tikal", 2..=4, 5).unwrap_err();
        assert!(refusal.is(SharedRule::UnsupportedPlayerCount));
        assert_eq!(refusal.message, "Tikal is played by 2 to 4 players, not 5");
    }

    #[test]
    fn the_final_standing_names_seats_by_colour() {
        assert_eq!(
            describe_final_standing(&[3, 36], &[2, 1]),
            "The game is over: Red 3 (place 2), Blue 36 (place 1)"
        );
    }

    #[test]
    fn colours_follow_the_one_seat_order() {
        assert_eq!(colour(0), "Red");
        assert_eq!(colour(2), "Yellow");
        assert_eq!(colour(3), "Green");
        assert_eq!(colour(9), "Nobody");
    }
}
