//! Memory-centric scheduling checks (`mcs` with its memory-phase
//! scheduler), from the trace itself: where each job is in its segments
//! (`release`, `segment-end`), what runs (`switch-to`, `switch-away`), and
//! the token events (`token-request`, `token-grant`, `token-preempt`,
//! `token-release`).
//!
//! - `memory-exclusive`: at most one CPU runs a job inside a memory segment
//!   (Rivas et al., ECRTS 2019, §4.1: "at any time there is at most one
//!   memory phase executing");
//! - `memory-grant-order`: the token is granted to the most urgent pending
//!   memory phase: at a `token-grant` no other requested or preempted phase
//!   has a higher memory priority, nor the same one with an earlier request
//!   (first come, first served);
//! - `memory-np`: a non-preemptive memory phase (a `preemptible: false`
//!   memory segment, or every one with `memory_preemption: false`) that has
//!   started is not suspended for another memory phase: no other job runs
//!   a memory segment while it is unfinished, and no `token-preempt` names it.
//!
//! The schedule-based bounds have the tolerance (a second memory phase may
//! overlap by at most that much, as the runtime's dispatch latency); the
//! token events are exact. A trace without token events leaves
//! `memory-grant-order` vacuous.

use crate::check::Check;
use crate::names::time;
use crate::recorder::{Detail, Recorder};
use schedlab_model::{PolicyEvent, PolicyName, Spec};
use schedlab_trace::{Event, JobRef, Time};
use std::collections::HashMap;

/// A job's place in its segments.
#[derive(Debug, Clone, Copy, Default)]
struct Place {
    segment: usize,
    /// It runs or ran in its current segment (it was on a CPU at the end
    /// of an instant since the segment began).
    started: bool,
    /// The CPU it runs on.
    cpu: Option<u32>,
}

pub(crate) struct MemoryPhases {
    tol: Time,
    /// Per task, per segment: (a memory phase, a non-preemptive one).
    kinds: Vec<Vec<(bool, bool)>>,
    rank: Vec<u64>,
    jobs: HashMap<JobRef, Place>,
    /// Pending phases (requested or preempted, not owning): (job, the
    /// worker's) → arrival.
    pending: HashMap<(JobRef, bool), u64>,
    /// The owner and its arrival (a preempted owner keeps its place in the queue).
    owner: Option<((JobRef, bool), u64)>,
    /// The worker runs a phase.
    worker_running: bool,
    arrivals: u64,
    /// Since when two memory phases run at once / a started
    /// non-preemptive phase is overlapped, and whether it was reported.
    overlap: Option<(Time, bool)>,
    np: Option<(Time, bool)>,
}

impl MemoryPhases {
    /// The tracker, when `mcs` schedules the spec with its memory-phase scheduler.
    pub fn new(spec: &Spec, tol: Time) -> Option<MemoryPhases> {
        let pol = spec.policy.as_ref()?;
        if pol.name != PolicyName::Mcs || pol.mps == Some(false) {
            return None;
        }
        let kinds = spec.tasks.iter().map(|t| t.memory_phase_flags(pol.memory_preemption)).collect();
        let rank = schedlab_policy::mcs::memory_ranks(spec).ok()?;
        Some(MemoryPhases {
            tol,
            kinds,
            rank,
            jobs: HashMap::new(),
            pending: HashMap::new(),
            owner: None,
            worker_running: false,
            arrivals: 0,
            overlap: None,
            np: None,
        })
    }

    fn kind(&self, j: JobRef, p: &Place) -> (bool, bool) {
        self.kinds.get(j.task as usize).and_then(|k| k.get(p.segment)).copied().unwrap_or((false, false))
    }

    /// One event of the trace.
    pub fn push(&mut self, e: &Event, rec: &mut Recorder) {
        match *e {
            Event::Release { task, job, .. } => {
                self.jobs.insert(JobRef { task, job }, Place::default());
            }
            Event::SegmentEnd { task, job, segment, .. } => {
                let p = self.jobs.entry(JobRef { task, job }).or_default();
                p.segment = segment as usize + 1;
                p.started = false;
            }
            Event::SwitchTo { cpu, task, job, .. } => {
                let p = self.jobs.entry(JobRef { task, job }).or_default();
                p.cpu = Some(cpu);
            }
            Event::SwitchAway { task, job, .. } => {
                if let Some(p) = self.jobs.get_mut(&JobRef { task, job }) {
                    p.cpu = None;
                }
            }
            Event::Completion { task, job, .. } => {
                let j = JobRef { task, job };
                self.jobs.remove(&j);
                self.pending.remove(&(j, false));
                if self.owner.is_some_and(|(o, _)| o == (j, false)) {
                    self.owner = None;
                }
            }
            Event::Policy { t, cpu, ref event } => self.token(t, cpu, event, rec),
            _ => {}
        }
    }

    fn token(&mut self, t: Time, cpu: Option<u32>, event: &PolicyEvent, rec: &mut Recorder) {
        let Some((task, job)) = event.job() else { return };
        let j = JobRef { task, job };
        match *event {
            PolicyEvent::TokenRequest { worker, .. } => {
                self.pending.insert((j, worker), self.arrivals);
                self.arrivals += 1;
            }
            PolicyEvent::TokenPreempt { worker, .. } => {
                // Back among the pending, with the arrival of its request.
                let a = match self.owner.take() {
                    Some((o, a)) if o == (j, worker) => a,
                    _ => {
                        self.arrivals += 1;
                        self.arrivals - 1
                    }
                };
                self.pending.insert((j, worker), a);
                if worker {
                    self.worker_running = false;
                    return;
                }
                let np = self.jobs.get(&j).map(|p| self.kind(j, p).1).unwrap_or(false);
                if np {
                    rec.violation(Check::MemoryNp, t, t, cpu, |n| {
                        Detail::new(format!("the non-preemptive memory phase of {} was preempted", n.job(j)))
                    });
                }
            }
            PolicyEvent::TokenGrant { worker, .. } => {
                let me = self.pending.remove(&(j, worker));
                self.owner = Some(((j, worker), me.unwrap_or(u64::MAX)));
                self.worker_running |= worker;
                let rank = |j: &JobRef, w: bool| {
                    if w {
                        u64::MAX
                    } else {
                        self.rank.get(j.task as usize).copied().unwrap_or(u64::MAX)
                    }
                };
                let mine = (rank(&j, worker), me.unwrap_or(u64::MAX));
                let better = self
                    .pending
                    .iter()
                    .filter(|(&(o, w), &a)| (rank(&o, w), a) < mine)
                    .min_by_key(|(&(o, w), &a)| (rank(&o, w), a))
                    .map(|(&(o, w), _)| (o, w));
                if let Some((o, w)) = better {
                    let (ro, rj) = (rank(&o, w), rank(&j, worker));
                    let who = |n: &crate::names::Names, j: JobRef, w: bool| {
                        if w {
                            format!("the worker (for {})", n.job(j))
                        } else {
                            n.job(j)
                        }
                    };
                    rec.violation(Check::MemoryGrantOrder, t, t, cpu, |n| {
                        let why = if ro < rj {
                            "a higher memory priority"
                        } else {
                            "the same memory priority, asked earlier"
                        };
                        let p = |r: u64| if r == u64::MAX { "lowest".to_string() } else { r.to_string() };
                        Detail::new(format!(
                            "the memory token went to {} (memory priority {}) while {} waited with {why} ({})",
                            who(n, j, worker),
                            p(rj),
                            who(n, o, w),
                            p(ro)
                        ))
                    });
                }
            }
            PolicyEvent::TokenRelease { worker, .. } => {
                if self.owner.is_some_and(|(o, _)| o == (j, worker)) {
                    self.owner = None;
                }
                // A preempted phase its job had finished as the preemption
                // reached it (real threads) is released from the queue.
                self.pending.remove(&(j, worker));
                if worker {
                    self.worker_running = false;
                }
            }
            _ => {}
        }
    }

    /// After the last event of instant `t`: the conditions now.
    pub fn settle(&mut self, t: Time) {
        let mut running_memory: Vec<JobRef> = Vec::new();
        let mut np_started: Vec<JobRef> = Vec::new();
        // A job running at the end of an instant runs in its segment from then on.
        for p in self.jobs.values_mut() {
            p.started |= p.cpu.is_some();
        }
        for (j, p) in &self.jobs {
            let (m, np) = self.kind(*j, p);
            if m && p.cpu.is_some() {
                running_memory.push(*j);
            }
            if np && p.started {
                np_started.push(*j);
            }
        }
        let phases = running_memory.len() + usize::from(self.worker_running);
        let overlap = phases >= 2;
        let np = np_started.iter().any(|a| self.worker_running || running_memory.iter().any(|b| b != a));
        for (flag, on) in [(&mut self.overlap, overlap), (&mut self.np, np)] {
            match (on, flag.is_some()) {
                (true, false) => *flag = Some((t, false)),
                (false, true) => *flag = None,
                _ => {}
            }
        }
    }

    /// Time passes to `next` with the schedule unchanged.
    pub fn elapsed(&mut self, next: Time, rec: &mut Recorder) {
        let tol = self.tol;
        let running: Vec<(JobRef, u32)> = self
            .jobs
            .iter()
            .filter(|(j, p)| p.cpu.is_some() && self.kind(**j, p).0)
            .map(|(j, p)| (*j, p.cpu.unwrap_or(0)))
            .collect();
        if let Some((since, reported)) = self.overlap.as_mut() {
            if !*reported && next - *since > tol {
                *reported = true;
                let (s, mut r, w) = (*since, running.clone(), self.worker_running);
                r.sort();
                rec.violation(Check::MemoryExclusive, s, next, r.first().map(|x| x.1), |n| {
                    let mut list: Vec<String> = r.iter().map(|(j, c)| format!("{} on cpu {c}", n.job(*j))).collect();
                    if w {
                        list.push("the memory-phase worker".to_string());
                    }
                    Detail::new(format!(
                        "{} memory phases ran at once from {}: {}",
                        list.len(),
                        time(s),
                        list.join(", ")
                    ))
                });
            }
        }
        if let Some((since, reported)) = self.np.as_mut() {
            if !*reported && next - *since > tol {
                *reported = true;
                let s = *since;
                let mut nps: Vec<JobRef> = Vec::new();
                for (j, p) in &self.jobs {
                    let k = self.kinds.get(j.task as usize).and_then(|k| k.get(p.segment)).copied();
                    if k.is_some_and(|k| k.1) && p.started {
                        nps.push(*j);
                    }
                }
                nps.sort();
                let other = running.iter().find(|(j, _)| !nps.contains(j)).copied();
                rec.violation(Check::MemoryNp, s, next, other.map(|x| x.1), |n| {
                    Detail::new(format!(
                        "the non-preemptive memory phase of {} was unfinished while {} ran a memory phase",
                        nps.first().map(|j| n.job(*j)).unwrap_or_default(),
                        other.map(|(j, _)| n.job(j)).unwrap_or_else(|| "the memory-phase worker".to_string())
                    ))
                });
            }
        }
    }
}
