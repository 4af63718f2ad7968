//! Work a policy's own activity does for a task (`schedlab_policy::Activity`,
//! `Kernel::occupy`): the dispatch backend runs a policy's activity on a
//! thread of its own pinned on the CPU the policy occupies, and that thread
//! does the task's part of it through the task's job body
//! ([`super::JobBody::activity_work`]) — under `mcs`, the memory-phase
//! worker's copies of a `prem` task's Sections. A body without such work
//! leaves the thread to keep the CPU busy only.

/// A task's side of a policy's activity, shared between its job body (on
/// the task's thread) and the activity thread.
pub trait ActivityWork: Send + Sync {
    /// One step of the activity that serves the task's segment `segment`
    /// (of `Task::segments`); `at` is the activity's position in its chunk
    /// (0 at its start), advanced. Returns the bytes moved and whether the
    /// step finished a whole chunk.
    fn step(&self, segment: u32, at: &mut usize) -> (u64, bool);
    /// Accounts a stint of the activity: `bytes` moved in `cpu_ns` of the
    /// activity thread's CPU time for `segment`.
    fn account(&self, segment: u32, bytes: u64, cpu_ns: u64);
    /// What the task's jobs and the activity did, for the trace (a note).
    fn report(&self) -> serde_json::Value;
}
