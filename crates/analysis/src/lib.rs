//! Schedulability analysis: a registry of explained tests
//! ([`schedulability`]), partitioning heuristics ([`partition`]), overhead
//! accounting ([`accounting`]), and the analysis run the CLI and Python
//! present ([`report`]).

pub mod accounting;
pub mod batch;
pub mod partition;
pub mod reduction;
pub mod report;
pub mod schedulability;
