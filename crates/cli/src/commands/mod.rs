//! One file per verb.

pub mod check;
pub mod export;
pub mod gen;
pub mod schema;
pub mod simulate;
pub mod stats;
pub mod validate;
