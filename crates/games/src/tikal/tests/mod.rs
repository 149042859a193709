//! Engine tests: worked examples of the rule text, one test per limit and error code,
//! leak tests and random playouts.

mod examples;
mod helpers;
mod hidden;
mod limits;
mod playouts;
mod spec;
