//! The worked examples of the rule text.
