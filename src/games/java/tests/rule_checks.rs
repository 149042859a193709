//! One test per rule restriction, asserting its rule code.
