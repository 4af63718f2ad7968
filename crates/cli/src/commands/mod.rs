//! One file per verb.

pub mod check;
pub mod gen;
pub mod schema;
