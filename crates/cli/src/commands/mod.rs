//! One file per verb.

pub mod analyze;
pub mod check;
pub mod completions;
pub mod export;
pub mod gen;
pub mod import;
pub mod overheads;
pub mod partition;
pub mod plot;
pub mod probe;
pub mod python;
pub mod reduce;
pub mod report;
pub mod restore;
pub mod run;
pub mod schema;
pub mod simulate;
pub mod stats;
pub mod sweep;
pub mod tests;
pub mod validate;
