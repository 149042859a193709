//! The small kit every engine is built from, so that the three games share one way of doing
//! the same things: emitting events while deciding, walking seats, ranking final scores,
//! hex coordinates and space names, loading data files, naming rule codes, and testing
//! (given/when/then specifications and random playouts with invariants).

pub mod data;
pub mod emitter;
pub mod hex;
pub mod playout;
pub mod ranking;
pub mod rule_code;
pub mod seats;
pub mod spec;

pub use emitter::Emitter;
pub use rule_code::{RuleCode, SharedRule};

/// For `#[serde(skip_serializing_if = "...")]` on options and state fields added later, so
/// that a value left at its default keeps the serialised form it always had.
pub fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}
