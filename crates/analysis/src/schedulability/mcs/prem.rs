//! From PREM tasks to flows, as the paper models them for its holistic
//! analysis (Rivas et al., ECRTS 2019, §5, Figure 10; seed notes 002 §A3.1):
//! memory phases (P, W) become steps on the `Mem` resource at the task's
//! memory priority, execution phases (E) steps on the task's CPU at its
//! task priority.
//!
//! - S-MP with k Sections: `P1(Mem) → E1(CPU) → W1(Mem) → P2(Mem) → … → Wk(Mem)`
//!   (a phase of length 0 is no step).
//! - A-MP: "composed of just two sub-tasks: one for the initial S-MP needed,
//!   and another for the sum of all E-Phases" [S2:L366]: `P1(Mem) → ΣE(CPU)`.
//!   The memory-phase worker's phases (every other P and W) run at the
//!   lowest memory priority; the paper assumes the E phases cover them
//!   [S2:L312]. They are kept as a background flow: they load `Mem` (its
//!   utilisation) and, when non-preemptive, block every other memory phase,
//!   but the task's response does not wait for them.

use super::flow::{Flow, Resource, Step};

/// Who runs a PREM task's memory phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Synchronous memory phases: the job runs each P and W itself.
    Smp,
    /// Asynchronous: a worker runs all but the first prefetch.
    Amp,
}

/// One Section's phases in ns (0: the phase is absent), and whether its
/// memory phases may be preempted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Section {
    pub prefetch: u64,
    pub exec: u64,
    pub writeback: u64,
    pub prefetch_preemptive: bool,
    pub writeback_preemptive: bool,
}

/// A PREM task as the analysis needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PremTask {
    /// Index in the task set.
    pub task: usize,
    pub period: u64,
    pub deadline: u64,
    pub jitter: u64,
    /// The CPU its E phases run on.
    pub cpu: u32,
    /// Task priority on its CPU (smaller: higher).
    pub priority: u64,
    /// Memory priority, global (smaller: higher).
    pub memory_priority: u64,
    pub mode: Mode,
    pub sections: Vec<Section>,
    /// The best case of every phase as a fraction num/den of its worst
    /// case (the task's BCET over its WCET).
    pub best: (u64, u64),
}

/// The memory priority of the worker's background phases: below every task's.
pub const BACKGROUND: u64 = u64::MAX;

impl PremTask {
    fn step(&self, label: String, resource: Resource, wcet: u64, preemptive: bool) -> Step {
        let priority = if resource == Resource::Mem { self.memory_priority } else { self.priority };
        let bcet = (wcet as u128 * self.best.0 as u128 / self.best.1.max(1) as u128).min(wcet as u128) as u64;
        Step { label, resource, wcet, bcet, priority, preemptive }
    }

    /// The task's flow, and for A-MP the worker's background flow.
    pub fn flows(&self) -> (Flow, Option<Flow>) {
        let flow = |steps| Flow {
            task: self.task,
            period: self.period,
            deadline: self.deadline,
            jitter: self.jitter,
            steps,
            background: false,
        };
        let cpu = Resource::Cpu(self.cpu);
        let mut steps = Vec::new();
        match self.mode {
            Mode::Smp => {
                for (k, s) in self.sections.iter().enumerate() {
                    let n = k + 1;
                    if s.prefetch > 0 {
                        steps.push(self.step(format!("P{n}"), Resource::Mem, s.prefetch, s.prefetch_preemptive));
                    }
                    if s.exec > 0 {
                        steps.push(self.step(format!("E{n}"), cpu, s.exec, true));
                    }
                    if s.writeback > 0 {
                        steps.push(self.step(format!("W{n}"), Resource::Mem, s.writeback, s.writeback_preemptive));
                    }
                }
                (flow(steps), None)
            }
            Mode::Amp => {
                let first = self.sections.first().copied().unwrap_or_default();
                if first.prefetch > 0 {
                    steps.push(self.step("P1".into(), Resource::Mem, first.prefetch, first.prefetch_preemptive));
                }
                let e: u64 = self.sections.iter().fold(0u64, |a, s| a.saturating_add(s.exec));
                if e > 0 {
                    steps.push(self.step("ΣE".into(), cpu, e, true));
                }
                let mut worker = Vec::new();
                for (k, s) in self.sections.iter().enumerate() {
                    let n = k + 1;
                    for (label, len, pre) in [
                        (format!("P{n}"), if k == 0 { 0 } else { s.prefetch }, s.prefetch_preemptive),
                        (format!("W{n}"), s.writeback, s.writeback_preemptive),
                    ] {
                        if len > 0 {
                            let mut st = self.step(format!("MPW {label}"), Resource::Mem, len, pre);
                            st.priority = BACKGROUND;
                            worker.push(st);
                        }
                    }
                }
                let bg = (!worker.is_empty()).then(|| Flow { background: true, ..flow(worker) });
                (flow(steps), bg)
            }
        }
    }
}
