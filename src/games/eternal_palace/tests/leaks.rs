//! Hidden information.
