//! One file per verb.

pub mod check;
pub mod export;
pub mod gen;
pub mod schema;
pub mod stats;
