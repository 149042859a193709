//! Final places by standard competition ranking ("1224"): the best score is place 1, seats
//! with equal rank share a place, and the next place skips as many as shared the one before.

use std::cmp::Ordering;

/// Places for `keys` (indexed by seat), higher keys better; equal keys share a place.
/// A key is typically the score, or `(score, tie_break, ...)` when a game breaks ties.
pub fn competition_places<K: Ord>(keys: &[K]) -> Vec<u8> {
    places_by(keys.len(), |a, b| keys[b].cmp(&keys[a]), |_| None)
}

/// Places for `scores` where tied seats are split one at a time: `split` gets the seats
/// still tied (ascending) and names the one that ranks first among them, or `None` when
/// they cannot be split and share a place.
pub fn places_splitting_ties(
    scores: &[i32],
    split: impl FnMut(&[usize]) -> Option<usize>,
) -> Vec<u8> {
    places_by(scores.len(), |a, b| scores[b].cmp(&scores[a]), split)
}

fn places_by(
    seats: usize,
    better_first: impl Fn(usize, usize) -> Ordering,
    mut split: impl FnMut(&[usize]) -> Option<usize>,
) -> Vec<u8> {
    let mut order: Vec<usize> = (0..seats).collect();
    order.sort_by(|&a, &b| better_first(a, b).then(a.cmp(&b)));
    let mut places = vec![0u8; seats];
    let mut next_place = 1usize;
    let mut start = 0;
    while start < order.len() {
        let end = order[start..]
            .iter()
            .position(|&seat| better_first(order[start], seat) != Ordering::Equal)
            .map_or(order.len(), |offset| start + offset);
        let mut tied: Vec<usize> = order[start..end].to_vec();
        while !tied.is_empty() {
            let winner = if tied.len() > 1 { split(&tied) } else { None };
            match winner.filter(|seat| tied.contains(seat)) {
                Some(winner) => {
                    places[winner] = place(next_place);
                    next_place += 1;
                    tied.retain(|&seat| seat != winner);
                }
                None => {
                    for &seat in &tied {
                        places[seat] = place(next_place);
                    }
                    next_place += tied.len();
                    tied.clear();
                }
            }
        }
        start = end;
    }
    places
}

fn place(number: usize) -> u8 {
    u8::try_from(number).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_scores_share_a_place_and_the_next_place_skips() {
        assert_eq!(competition_places(&[10, 30, 10, 5]), [2, 1, 2, 4]);
        assert_eq!(competition_places(&[7, 7, 7]), [1, 1, 1]);
        assert_eq!(competition_places::<i32>(&[]), Vec::<u8>::new());
    }

    #[test]
    fn tuple_keys_break_ties_lexicographically() {
        assert_eq!(competition_places(&[(10, 1), (10, 3), (9, 9)]), [2, 1, 3]);
        assert_eq!(competition_places(&[(10, 2), (10, 2), (11, 0)]), [2, 2, 1]);
    }

    #[test]
    fn a_splitter_ranks_tied_seats_one_at_a_time() {
        // Seats 0, 1 and 3 tie on 20; the splitter prefers the highest seat number while
        // more than two are tied, then cannot split the last two.
        let places = places_splitting_ties(&[20, 20, 5, 20], |tied| {
            (tied.len() > 2).then(|| *tied.last().unwrap())
        });
        assert_eq!(places, [2, 2, 4, 1]);
    }
}
