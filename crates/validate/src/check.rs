//! The checks the validator runs: their names (stable, used in reports and
//! JSON), their rules and their sources.

use serde::Serialize;

/// One check of the validator. The kebab-case name is stable: reports, JSON
/// output and the CLI use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// No job runs before its release.
    Release,
    /// No job runs after its completion.
    Completion,
    /// No job runs on two CPUs at once.
    TwoCpus,
    /// A CPU runs at most one job.
    CpuBusy,
    /// Every switch-to is matched by a switch-away or a completion, and
    /// every switch-away by a switch-to.
    Matching,
    /// A job runs only where its placement allows.
    Placement,
    /// A job runs only when eligible: its predecessor completed and it is
    /// not blocked.
    Eligibility,
    /// Every job is released once, completed at most once, and only after
    /// its release; nothing happens after the horizon.
    Accounting,
    /// Releases of a task are separated by at least its period (less its
    /// jitter and the tolerance); deadlines match the task's relative deadline.
    Sporadic,
    /// A job executes at most its WCET (plus the tolerance), unless the
    /// spec's `executions` list allows more.
    Wcet,
    /// Priority-driven policies: in every domain, the running jobs are the
    /// highest-priority eligible jobs.
    Conformance,
    /// Work-conserving policies: no CPU idles while an eligible job of its
    /// domain that may run there waits.
    WorkConserving,
    /// Non-preemptive policies: no job is preempted.
    NpPreemption,
    /// Non-preemptive policies: a CPU that picks a job picks the
    /// highest-priority waiting job.
    NpDecision,
    /// Deferred-preemption policies: a running job is switched away for
    /// another only at one of its preemption points (a `segment-end` event,
    /// within the tolerance).
    PointPreemption,
    /// Deferred-preemption policies: at a preemption point the job goes on
    /// only if no higher-priority job that may take its CPU waits.
    PointDecision,
    /// Replay: the trace's per-CPU assignment is the policy's.
    Replay,
    /// Reservations (`hcbs`): a server runs at most its budget in each of
    /// its periods, and is replenished only as the CBS rules allow.
    Budget,
    /// Reservations: a throttled server's tasks do not run on its CPU.
    Throttle,
    /// Reservations: inside a group, the running tasks are its highest-priority ready ones.
    GroupPriority,
    /// Memory-centric scheduling: at most one memory phase runs at a time.
    MemoryExclusive,
    /// Memory-centric scheduling: the token goes to the most urgent pending
    /// memory phase (memory priority, then first come first served).
    MemoryGrantOrder,
    /// Memory-centric scheduling: a started non-preemptive memory phase is
    /// not suspended for another memory phase.
    MemoryNp,
}

impl Check {
    /// Every check, in report order.
    pub const ALL: &'static [Check] = &[
        Check::Release,
        Check::Completion,
        Check::TwoCpus,
        Check::CpuBusy,
        Check::Matching,
        Check::Placement,
        Check::Eligibility,
        Check::Accounting,
        Check::Sporadic,
        Check::Wcet,
        Check::Conformance,
        Check::WorkConserving,
        Check::NpPreemption,
        Check::NpDecision,
        Check::PointPreemption,
        Check::PointDecision,
        Check::Replay,
        Check::Budget,
        Check::Throttle,
        Check::GroupPriority,
        Check::MemoryExclusive,
        Check::MemoryGrantOrder,
        Check::MemoryNp,
    ];

    /// The check's stable name.
    pub fn name(self) -> &'static str {
        match self {
            Check::Release => "release",
            Check::Completion => "completion",
            Check::TwoCpus => "two-cpus",
            Check::CpuBusy => "cpu-busy",
            Check::Matching => "matching",
            Check::Placement => "placement",
            Check::Eligibility => "eligibility",
            Check::Accounting => "accounting",
            Check::Sporadic => "sporadic",
            Check::Wcet => "wcet",
            Check::Conformance => "conformance",
            Check::WorkConserving => "work-conserving",
            Check::NpPreemption => "np-preemption",
            Check::NpDecision => "np-decision",
            Check::PointPreemption => "point-preemption",
            Check::PointDecision => "point-decision",
            Check::Replay => "replay",
            Check::Budget => "budget",
            Check::Throttle => "throttle",
            Check::GroupPriority => "group-priority",
            Check::MemoryExclusive => "memory-exclusive",
            Check::MemoryGrantOrder => "memory-grant-order",
            Check::MemoryNp => "memory-np",
        }
    }

    /// The check's rule, one line.
    pub fn rule(self) -> &'static str {
        match self {
            Check::Release => "no job runs before its release",
            Check::Completion => "no job runs after its completion",
            Check::TwoCpus => "no job runs on two CPUs at once",
            Check::CpuBusy => "a CPU runs at most one job",
            Check::Matching => "every switch-to is matched by a switch-away or completion on the same CPU",
            Check::Placement => "a job runs only on CPUs its placement allows",
            Check::Eligibility => "a job runs only after its predecessor completed, and not while blocked",
            Check::Accounting => "each job is released once, completes at most once and after its release",
            Check::Sporadic => {
                "releases of a task are at least period - jitter apart; deadline = arrival + relative deadline"
            }
            Check::Wcet => "a job executes at most its WCET (or its listed execution time)",
            Check::Conformance => "in every domain the running jobs are the highest-priority eligible jobs",
            Check::WorkConserving => "no CPU idles while an eligible job that may run there waits",
            Check::NpPreemption => "a non-preemptive policy never preempts a job",
            Check::NpDecision => "a CPU that picks a job picks the highest-priority waiting job",
            Check::PointPreemption => {
                "a deferred-preemption policy preempts a job only at one of its preemption points"
            }
            Check::PointDecision => {
                "at a preemption point a job goes on only if no higher-priority job waits for its CPU"
            }
            Check::Replay => "each CPU runs the job the replayed policy chose",
            Check::Budget => {
                "a reservation server runs at most its budget in each period, replenished only by the CBS rules"
            }
            Check::Throttle => "a throttled reservation server's tasks do not run on its CPU until it is replenished",
            Check::GroupPriority => "inside a group the running tasks are its highest-priority ready ones",
            Check::MemoryExclusive => "at most one memory phase runs at a time, system-wide",
            Check::MemoryGrantOrder => {
                "the memory token goes to the pending memory phase of highest memory priority, first come first served"
            }
            Check::MemoryNp => "a started non-preemptive memory phase is not suspended for another memory phase",
        }
    }

    /// Whether the check belongs to the policy (conformance, replay) rather
    /// than to the generic invariants every schedule obeys.
    pub fn is_policy(self) -> bool {
        matches!(
            self,
            Check::Conformance
                | Check::WorkConserving
                | Check::NpPreemption
                | Check::NpDecision
                | Check::PointPreemption
                | Check::PointDecision
                | Check::Replay
                | Check::Budget
                | Check::Throttle
                | Check::GroupPriority
                | Check::MemoryExclusive
                | Check::MemoryGrantOrder
                | Check::MemoryNp
        )
    }

    pub(crate) fn index(self) -> usize {
        Check::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
