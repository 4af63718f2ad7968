//! Test parameters the spec has no field for: blocking terms, FPDS final
//! non-preemptive regions, the packing heuristics and admission test of
//! partitioned analysis, the global tests and fit reading of clustered
//! analysis. Every field defaults to "what the spec implies".

use schedlab_admission::partition::Heuristic;

/// How clustered analysis decides that a task fits a cluster (the two
/// readings of the EPOS thesis, §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ClusterFit {
    /// The literal reading: pack by utilisation with capacity = the
    /// cluster's CPU count, then run the global tests on each cluster.
    Capacity,
    /// Bastoni/Brandenburg style: a task joins a cluster only if the
    /// cluster stays schedulable under the global tests (test-driven).
    #[default]
    Schedulable,
}

impl ClusterFit {
    pub fn name(self) -> &'static str {
        match self {
            ClusterFit::Capacity => "capacity",
            ClusterFit::Schedulable => "schedulable",
        }
    }
}

/// Parameters of tests beyond the task model (see each field).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    /// Per-task blocking term Bᵢ in ns (the longest time a job can wait for
    /// a lower-priority task's critical section under PCP/SRP), used by the
    /// fixed-priority response-time analyses. Empty: no blocking.
    pub blocking: Vec<u64>,
    /// Per-task length in ns of the final non-preemptive region (FPDS: the
    /// final subjob; the job is preemptive before it). `None` or an empty
    /// list: the whole job (one subjob, i.e. non-preemptive FP).
    pub npr: Vec<Option<u64>>,
    /// Per-task subjobs as the spec declares them (`subjobs`, or the CPU
    /// segments of `segments`), for FPDS: `None` or an empty list: one
    /// subjob of the WCET. An explicit `npr` entry wins over it.
    pub subjobs: Vec<Option<Subjobs>>,
    /// Packing heuristics of partitioned and clustered analysis, tried in
    /// turn (the first that succeeds gives the partition). Empty: the spec's
    /// `policy.partitioning`, or else FFD, BFD, WFD (the EPOS thesis, §5.1).
    pub heuristics: Vec<Heuristic>,
    /// The uniprocessor test that admits a task onto a CPU in test-driven
    /// partitioned packing, by registry ID; `None`: the test's own default.
    pub admission: Option<String>,
    /// The global tests that check a cluster, by registry ID (a cluster
    /// passes if any of them accepts it); empty: every registered global
    /// test of the policy family.
    pub cluster_tests: Vec<String>,
    /// How clustered packing decides a fit.
    pub cluster_fit: ClusterFit,
    /// Tests, by registry ID, that the combined G-EDF test (`gedf.any`,
    /// also as a cluster test) leaves out: the EPOS thesis left Baruah's
    /// test out for its light-uniform sets, whose pseudo-polynomial cost it
    /// could not afford. Empty: every test.
    pub skip: Vec<String>,
}

/// What the FPDS analysis needs of a task's subjobs (its CPU segments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subjobs {
    /// The longest subjob: how long a job of the task can keep a
    /// higher-priority job waiting (Bᵢ of the tasks above it).
    pub longest: u64,
    /// The final subjob Fᵢ (the final non-preemptive region).
    pub last: u64,
    /// The task also suspends itself (a `suspend` segment): the FPDS
    /// analysis does not model it.
    pub suspends: bool,
    /// Some segment is not preemptible (`preemptible: false`): a
    /// non-preemptive section, which `hcbs` runs past a budget's exhaustion.
    pub nonpreemptive: bool,
}

impl Subjobs {
    /// The subjobs of a spec's task, when it declares segments or subjobs.
    pub fn of(task: &schedlab_model::Task) -> Option<Subjobs> {
        if !task.segmented() {
            return None;
        }
        let segments = task.segments();
        let cpu: Vec<u64> = segments.iter().filter(|s| s.kind.on_cpu()).map(|s| s.length.0).collect();
        Some(Subjobs {
            longest: cpu.iter().copied().max().unwrap_or(0),
            last: cpu.last().copied().unwrap_or(0),
            suspends: segments.iter().any(|s| !s.kind.on_cpu()),
            nonpreemptive: segments.iter().any(|s| !s.preemptible),
        })
    }
}

impl Options {
    /// Task `i`'s blocking term (0 when not given).
    pub fn blocking(&self, i: usize) -> u64 {
        self.blocking.get(i).copied().unwrap_or(0)
    }
    /// Task `i`'s final non-preemptive region, given its WCET (the whole job
    /// when not given; at most the WCET).
    pub fn npr(&self, i: usize, wcet: u64) -> u64 {
        match (self.npr.get(i).copied().flatten(), self.subjobs.get(i).copied().flatten()) {
            (Some(f), _) => f.min(wcet),
            (None, Some(s)) => s.last.min(wcet),
            (None, None) => wcet,
        }
    }
    /// Task `i`'s longest non-preemptive stretch, given its WCET: its
    /// longest subjob, or its final region when `npr` gives one (the job is
    /// preemptive before it), or the whole job.
    pub fn longest_subjob(&self, i: usize, wcet: u64) -> u64 {
        match (self.npr.get(i).copied().flatten(), self.subjobs.get(i).copied().flatten()) {
            (Some(f), _) => f.min(wcet),
            (None, Some(s)) => s.longest.min(wcet),
            (None, None) => wcet,
        }
    }
    /// Whether task `i` suspends itself (a `suspend` segment).
    pub fn suspends(&self, i: usize) -> bool {
        self.subjobs.get(i).copied().flatten().is_some_and(|s| s.suspends)
    }
}
