//! The runtime's raw trace record: fixed size, `Copy`, written by a worker
//! on its hot path into its own ring ([`crate::tracebuf`]) and turned into
//! schedlab trace events after the run ([`crate::assemble`]). Times are
//! absolute `CLOCK_MONOTONIC` ns.

/// What a record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Job `job` is released at `t` with absolute deadline `a`.
    Release,
    /// Job `job` executes its first instruction at `t` on `cpu`; `a` = 1 if
    /// the thread slept until the release (so `t - release` is a release
    /// latency), 0 if it was released while the thread was busy.
    Start,
    /// Job `job` completed at `t` on `cpu`; `a` = thread CPU time it used,
    /// `b` = 1 if it was ended by the system (aborted, stopped).
    Complete,
    /// Job `job` missed its deadline `t`.
    Miss,
    /// Job `job` exceeded a budget at `t` (a timing exception, or SIGXCPU).
    Budget,
    /// A release at `t` was skipped (overrun policy `skip`); `job` is the
    /// number the job would have had.
    Skip,
    /// A timing exception of job `job` was raised at `t`; `a` = 0 deadline,
    /// 1 WCET; `b` = the violated limit.
    Exception,
    /// Benchmark mode: a timing scope of job `job` ended at `t`; `a` packs
    /// the label, the limit and the limit's length ([`crate::timing::pack_scope`]),
    /// `b` = its duration (ns).
    ScopeTime,
}

/// One record. `seq` counts every record the thread produced, so gaps in
/// the collected sequence prove loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub seq: u64,
    pub t: u64,
    pub kind: Kind,
    pub cpu: u32,
    pub job: u64,
    pub a: u64,
    pub b: u64,
}
