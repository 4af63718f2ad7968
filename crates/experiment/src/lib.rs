//! Experiments: an experiment file declares a grid of generator parameters,
//! a number of samples per grid point, a seed, and what to evaluate on every
//! generated task set (schedulability tests, packing heuristics, overhead
//! models with their accounting, CPMD values, simulations); a sweep generates
//! one set per (point, sample) from a seed derived from the experiment seed
//! and the point, evaluates it, and writes one row per (set, evaluation).
//!
//! * [`file`]       – the experiment file (YAML or JSON) and its errors;
//! * [`grid`]       – grid expansion into points, each a generator setting;
//! * [`seed`]       – per-(point, sample) seeds;
//! * [`generate`]   – the batch generator (sets straight into test inputs);
//! * [`evaluate`]   – evaluations of one set;
//! * [`table`]      – the result rows as columns; CSV and Parquet writers;
//! * [`sweep`]      – chunks on all cores, progress, checkpoints and resume;
//! * [`prem`]       – PREM sets (`generator.prem`): drawn by `schedlab gen
//!   --prem`, decided by `mcs.*` tests and simulated under `mcs` with per-task
//!   response times and execution-time jitter;
//! * [`metrics`]    – schedulability ratios with Wilson intervals, weighted
//!   schedulability (EPOS Eq. 4), simulation metrics per point.
//!
//! Every set depends only on the experiment seed, the point's parameters and
//! the sample index, so results do not depend on threads, chunking or
//! machine, and an interrupted sweep resumed from its checkpoint writes the
//! same file as an uninterrupted one.

pub mod evaluate;
pub mod file;
pub mod generate;
pub mod grid;
pub mod metrics;
pub mod parquet;
pub mod prem;
pub mod seed;
pub mod sweep;
pub mod table;

pub use file::{load_path, load_str, Experiment, ExperimentError};
pub use sweep::{Plan, Sweep};
