//! Schedulability analysis: partitioning heuristics now; tests and overhead
//! accounting as they land.

pub mod accounting;
pub mod partition;
pub mod schedulability;
