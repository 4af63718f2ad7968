//! Counter readings a policy may ask its kernel for
//! ([`crate::Kernel::counters`]): instructions, cycles, cache references and
//! misses and coherence misses of one CPU, each present only when the
//! driver's source counts it.
//!
//! The source is the driver's: the runtime's dispatcher reads Linux
//! `perf_event_open` counters of each CPU, the simulator a counter source
//! plugged into it (none until a platform model provides one), replay what
//! the trace recorded. Every source may answer [`CountersUnavailable`] —
//! a machine without a PMU, a trace without samples — and a policy must
//! then schedule without them.

use crate::interface::{Cpu, JobId, PolicyEvent};
use schedlab_model::CounterReading;
use std::fmt;

/// Cumulative counts of one CPU since the run started (a policy wanting a
/// rate takes differences of two readings). `None`: not counted by this
/// source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// Instructions retired.
    pub instructions: Option<u64>,
    /// CPU cycles.
    pub cycles: Option<u64>,
    /// Last-level cache references.
    pub cache_references: Option<u64>,
    /// Last-level cache misses.
    pub cache_misses: Option<u64>,
    /// Coherence misses: loads that hit a line modified in another core's
    /// cache (HITM).
    pub coherence_misses: Option<u64>,
    /// Software: CPU time counted on the CPU (ns, Linux `task-clock`/`cpu-clock`).
    pub cpu_clock: Option<u64>,
    /// Software: context switches on the CPU.
    pub context_switches: Option<u64>,
}

impl Counters {
    /// Whether any hardware count (instructions to coherence misses) is present.
    pub fn has_hardware(&self) -> bool {
        self.instructions.is_some()
            || self.cycles.is_some()
            || self.cache_references.is_some()
            || self.cache_misses.is_some()
            || self.coherence_misses.is_some()
    }

    /// The reading as a trace records it (a `counter-sample` policy event),
    /// with the job `running` on the CPU: a driver writes one per reading
    /// it gives a policy, so that replay can give the same.
    pub fn sample(&self, running: Option<JobId>) -> PolicyEvent {
        PolicyEvent::CounterSample(Box::new(CounterReading {
            task: running.map(|j| j.task),
            job: running.map(|j| j.seq),
            instructions: self.instructions,
            cycles: self.cycles,
            cache_references: self.cache_references,
            cache_misses: self.cache_misses,
            coherence_misses: self.coherence_misses,
            cpu_clock: self.cpu_clock,
            context_switches: self.context_switches,
        }))
    }

    /// The reading a `counter-sample` policy event records, or `None` for
    /// another kind of event.
    pub fn of_sample(event: &PolicyEvent) -> Option<Counters> {
        let PolicyEvent::CounterSample(r) = event else { return None };
        Some(Counters {
            instructions: r.instructions,
            cycles: r.cycles,
            cache_references: r.cache_references,
            cache_misses: r.cache_misses,
            coherence_misses: r.coherence_misses,
            cpu_clock: r.cpu_clock,
            context_switches: r.context_switches,
        })
    }
}

/// Why a driver has no counter reading to give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountersUnavailable {
    /// The driver has no counter source (`what` names the driver, e.g. the
    /// simulator until a platform model plugs one in).
    NoSource { what: &'static str },
    /// The operating system refused every counter: `perf_event_open` failed
    /// with `errno` (ENOENT/EOPNOTSUPP: no PMU, as in most VMs; EACCES:
    /// `perf_event_paranoid`).
    Refused { errno: i32 },
    /// The trace recorded no counter sample for this CPU.
    NotRecorded,
    /// The platform has no such CPU.
    UnknownCpu { cpu: Cpu, cpus: u32 },
}

impl fmt::Display for CountersUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CountersUnavailable::NoSource { what } => write!(f, "{what} has no counter source"),
            CountersUnavailable::Refused { errno } => write!(
                f,
                "perf_event_open refused the counters (errno {errno}: {})",
                match errno {
                    2 | 95 => "no PMU on this machine",
                    1 | 13 => "not permitted, see /proc/sys/kernel/perf_event_paranoid",
                    _ => "see perf_event_open(2)",
                }
            ),
            CountersUnavailable::NotRecorded => write!(f, "the trace recorded no counter sample"),
            CountersUnavailable::UnknownCpu { cpu, cpus } => {
                write!(f, "CPU {cpu} does not exist (CPUs 0..{cpus})")
            }
        }
    }
}

impl std::error::Error for CountersUnavailable {}
