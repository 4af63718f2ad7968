//! Global EDF tests (sufficient): GFB, BAK, BAR, BCL, BCL-iterative, RTA,
//! FF-DBF, LOAD, and `gedf.any`, which tries them cheapest first.
//!
//! Every test is one generic core (`core(tasks, m, explain)`) over a slice
//! of tasks and a CPU count, so clustered analysis can call it per cluster:
//!
//! - `decide(tasks, m) -> Verdict`: the fast path for batches (no strings,
//!   no big rationals unless a comparison is a near-tie; see [`explain`]);
//! - `check(tasks, m) -> Outcome`: the same decision, explained;
//! - `check_input(&Input) -> Outcome`: the registry entry (task names).
//!
//! All of them read integer nanoseconds and decide exactly: integer
//! arithmetic in i128/u128 (parameters up to 2⁴⁰ ns), and rational sums
//! through [`exact::cmp_sum`]. Common to all: sporadic tasks without
//! release jitter (offsets are covered: any sporadic release pattern is);
//! a WCET above min(D, T) or U > m answers unschedulable (necessary
//! conditions); a sufficient test that fails answers inconclusive.

pub mod bak;
pub mod bar;
pub mod bcl;
pub mod bcl_iterative;
pub mod combined;
pub mod dominance;
pub mod exact;
pub mod explain;
pub mod ffdbf;
pub mod gfb;
pub mod load;
pub mod model;
pub mod piecewise;
pub mod rta;
