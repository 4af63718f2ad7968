//! Preemption points and self-suspensions of a job body: what
//! [`JobCtx::preemption_point`](crate::job::JobCtx::preemption_point) and
//! [`JobCtx::suspend`](crate::job::JobCtx::suspend) talk to. The dispatch
//! backend's workers implement [`PointHost`] (`backend/dispatch/points.rs`):
//! the dispatcher raises a per-job flag when it wants the CPU at the job's
//! next point, so a job that is not asked pays one atomic load per point.
//! Without a host (the kernel backend, a detached context) a point does
//! nothing and a suspension is skipped: the CPU segments run back to back.

use schedlab_model::SegmentKind;

/// The runtime side of a job's segment boundaries.
pub trait PointHost {
    /// Whether the dispatcher wants the job's CPU at its next preemption
    /// point (one relaxed atomic load).
    fn wanted(&self) -> bool;
    /// The job ended its segment `segment` (of kind `kind`) at a point the
    /// dispatcher wanted: report it (the policy's `segment_end`) and come
    /// back when the policy let the job go on — at once, or after it was
    /// switched away and dispatched again.
    fn reached(&self, segment: u32, kind: SegmentKind);
    /// The job suspends itself for `ns` of wall-clock time. `ended` is the
    /// CPU segment that ends here (`None` for a suspension that begins the
    /// job or follows another). Reported as the segment's end and a block;
    /// after the sleep as a resume; returns when the job is dispatched again.
    fn suspend(&self, ended: Option<(u32, SegmentKind)>, ns: u64);
}
