//! RUN's offline reduction (Regnier, Lima, Massa, Levin & Brandt 2011;
//! Compagnin's thesis on RUN in LITMUS^RT, and the RUN tools' reducer, whose
//! published behaviour this follows; no code was taken from either).
//!
//! Periodic implicit-deadline tasks with total utilisation U ≤ m are reduced
//! to uniprocessor problems:
//!
//! 1. **PACK** the tasks into level-0 servers of rate ≤ 1 with a bin-packing
//!    rule ([`crate::partition`]'s, default worst-fit decreasing), starting
//!    with min(n, m) bins and adding a bin while some task does not fit.
//! 2. **Slack**: when U is below the number of CPUs used, the spare capacity
//!    is given to the level-0 servers ([`Slack::Greedy`]: fill the largest
//!    up to rate 1 first, as the RUN tools do; [`Slack::Proportional`]:
//!    shares proportional to the rates, capped at 1, the rest shared again,
//!    as the thesis text says), so that the rates sum to an integer.
//! 3. **DUAL** each server that is not a unit server (rate 1 − ρ, same
//!    deadlines) and **PACK** the duals into the servers of the next level
//!    (starting with ⌈Σ⌉ bins), until every server is a unit server. A unit
//!    server is the root of its subsystem; normally there is one root.
//!
//! The number of levels is the highest root's level: 0 when the first PACK
//! already gives only unit servers (RUN is then partitioned EDF). With
//! n < m the reduction is done as with n CPUs. Everything is exact
//! (arbitrary-precision rationals): no float decides a fit.
//!
//! Servers are named `S1`, `S2`, ... in creation order: the level-0 servers
//! in bin order, then each level's servers in bin order (a bin of a single
//! item is not a server: see [`reduce`]).
//!
//! [`Slack::Greedy`]: schedlab_model::Slack::Greedy
//! [`Slack::Proportional`]: schedlab_model::Slack::Proportional

mod error;
mod reduce;
mod slack;
mod tree;

pub use error::ReductionError;
pub use reduce::{reduce, reduce_spec, DEFAULT_RUN_PACKING};
pub use tree::{server_name, slack_name, Children, Item, Server, Tree};

#[cfg(test)]
mod tests;
