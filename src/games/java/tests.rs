use super::*;

#[test]
fn board_loads() {
    let b = data::board();
    assert!(b.len() > 150);
}
