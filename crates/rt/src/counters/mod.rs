//! The counter source behind the dispatcher's `Kernel::counters`: the
//! machine's `perf_event_open` events ([`perf`]) where it has hardware
//! events, else the counts the job bodies publish ([`published`]), so the
//! same policy code reads counters on every machine. The source in use is
//! printed and recorded in the trace (a `counter-source` note at time 0).

pub mod perf;
pub mod published;
pub mod thread;

pub use perf::PerfCounters;
pub use published::Published;

use schedlab_policy::{Counters, CountersUnavailable, Cpu};

/// Which source a run uses ([`crate::RunConfig::counters`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CounterChoice {
    /// `perf` where a hardware event opens, else `workload`.
    #[default]
    Auto,
    /// The machine's perf events only (a machine without them answers
    /// with the reason, `CountersUnavailable::Refused`).
    Perf,
    /// The job bodies' published counts (with perf's software events, cpu-clock
    /// and context switches, where they open).
    Workload,
}

impl std::str::FromStr for CounterChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<CounterChoice, String> {
        match s {
            "auto" => Ok(CounterChoice::Auto),
            "perf" => Ok(CounterChoice::Perf),
            "workload" => Ok(CounterChoice::Workload),
            _ => Err(format!("unknown counter source `{s}`; expected auto, perf or workload")),
        }
    }
}

/// A run's counter source.
#[derive(Debug)]
pub enum Source {
    Perf(PerfCounters),
    Workload { published: Published, software: PerfCounters },
}

impl Source {
    /// Opens the source `choice` names for CPUs `0..cpus`.
    pub fn open(choice: CounterChoice, cpus: u32) -> Source {
        let perf = PerfCounters::open(cpus);
        match choice {
            CounterChoice::Perf => Source::Perf(perf),
            CounterChoice::Auto if perf.hardware() => Source::Perf(perf),
            _ => Source::Workload { published: Published::open(cpus), software: perf },
        }
    }

    /// `perf_event_open` or `workload`.
    pub fn name(&self) -> &'static str {
        match self {
            Source::Perf(_) => "perf_event_open",
            Source::Workload { .. } => "workload",
        }
    }

    /// One line for the report.
    pub fn describe(&self) -> String {
        match self {
            Source::Perf(p) if p.hardware() => {
                "counters: perf_event_open (this machine's hardware events, per CPU)".into()
            }
            Source::Perf(_) => "counters: perf_event_open without hardware events (software events only, or none)".into(),
            Source::Workload { .. } => "counters: published by the workloads (no hardware events here): cache_references = cache lines memwalk bodies touched, coherence_misses = their writes to shared-data lines, per CPU".into(),
        }
    }

    /// The counts of `cpu` since the source was opened.
    pub fn read(&self, cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        match self {
            Source::Perf(p) => p.read(cpu),
            Source::Workload { published, software } => {
                let mut c = published.read(cpu)?;
                if let Ok(s) = software.read(cpu) {
                    c.cpu_clock = s.cpu_clock;
                    c.context_switches = s.context_switches;
                }
                Ok(c)
            }
        }
    }

    /// The trace's record of the source (a `counter-source` note's data).
    pub fn to_json(&self) -> serde_json::Value {
        let hardware = match self {
            Source::Perf(p) => p.hardware(),
            Source::Workload { .. } => false,
        };
        serde_json::json!({"source": self.name(), "hardware": hardware, "description": self.describe()})
    }
}
