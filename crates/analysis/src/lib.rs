//! Schedulability analysis: a registry of explained tests
//! ([`schedulability`]), overhead accounting ([`accounting`]), the supply
//! bounds of CPU reservations ([`supply`]), and the analysis run the CLI and
//! Python present ([`report`]; for reservations also the budget selection,
//! [`interfaces`]). Partitioned and clustered tests pack with
//! `schedlab-admission`'s heuristics, a uniprocessor test serving as the fit
//! test through its admission hook.

pub mod accounting;
pub mod batch;
pub mod interfaces;
pub mod report;
pub mod schedulability;
pub mod supply;
