//! One file per verb.

pub mod analyze;
pub mod check;
pub mod completions;
pub mod export;
pub mod gen;
pub mod overheads;
pub mod partition;
pub mod probe;
pub mod reduce;
pub mod restore;
pub mod run;
pub mod schema;
pub mod simulate;
pub mod stats;
pub mod tests;
pub mod validate;
