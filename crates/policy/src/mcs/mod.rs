//! Memory-centric scheduling (`mcs`; Rivas et al., ECRTS 2019, seed notes
//! 002 Part A): partitioned fixed priority on the CPUs, and above them the
//! system-wide memory-phase scheduler ([`mps`]) that lets one memory phase
//! run at a time by memory priority, preempting a lower-priority phase.
//!
//! A job's memory phases are its `memory` segments (prefetches and
//! write-backs of PREM Sections, `schedlab_model::spec::prem`). The job asks
//! for the memory token when it is about to run a memory phase: when its
//! CPU's fixed-priority scheduler picks it at the start of that segment
//! (the task calls `memphase_start` when it runs, Listing 3). Granted, it
//! runs; refused, it is blocked — to its CPU's scheduler a blocked job, so
//! that CPU runs its next local job or idles — until the token is handed to
//! it. A caller of higher memory priority takes the token from a preemptive
//! owner, whose job is blocked in the middle of its phase and resumes where
//! it stopped when the token comes back (Figures 5 and 6). At the end of a
//! memory segment (the segment boundary the driver reports, or the job's
//! completion) the owner gives the token back and the most urgent waiting
//! phase gets it (Listing 2).
//!
//! Decisions the paper leaves open (docs/policies.md, "MCS"): an owner
//! preempted *on its CPU* by a local job of higher task priority keeps the
//! token (the listings as written; the memory idles meanwhile); a job
//! aborted while it waits or owns leaves the queue or hands the token on.
//!
//! Every decision is a typed trace event (`token-request`, `token-grant`,
//! `token-preempt`, `token-release`), and the validator checks a schedule
//! by replaying the policy and by the memory-phase invariants.

pub(crate) mod mps;

use crate::build::AdmissionError;
use crate::engine::Engine;
use crate::fp::Fp;
use crate::interface::{
    Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyEvent, PolicyInfo, Priority, TimerId,
};
use mps::{MemoryPhaseScheduler, Start};
use schedlab_model::{Placement, PolicyName, SegmentKind, Spec};

/// Tags of the policy's re-scheduling timers: bit 61 and the CPU (the
/// engine uses bit 63 and task indices below 2³²).
const RESCHED_TAG: u64 = 1 << 61;

/// Where a task's released job stands with its current segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Not in a memory segment (or no job).
    Free,
    /// At a memory segment it has not asked the token for yet.
    ToRequest,
    /// Asked, waiting for the token (blocked).
    Waiting,
    /// Owns the token: its memory phase runs.
    Owner,
    /// Its phase was preempted by a more urgent one (blocked, still queued).
    Preempted,
}

/// The memory rank of every task (smaller is more urgent): the tasks'
/// `memory_priority` when given, else their fixed-priority rank under the
/// policy's `priorities` (rm when none). Equal ranks are served first come,
/// first served.
pub fn memory_ranks(spec: &Spec) -> Result<Vec<u64>, AdmissionError> {
    if spec.tasks.iter().all(|t| t.memory_priority.is_some()) && !spec.tasks.is_empty() {
        return Ok(spec.tasks.iter().map(|t| t.memory_priority.unwrap_or(u32::MAX) as u64).collect());
    }
    // As the CPUs' order (the loader makes `explicit` the default when every task has a `priority`).
    let how = spec.policy.as_ref().and_then(|p| p.priorities).unwrap_or_default();
    let fp = Fp::new(spec, how)?;
    Ok((0..spec.tasks.len() as u32).map(|t| fp.priority_of(t).major.clamp(0, u64::MAX as i128) as u64).collect())
}

pub(crate) struct Mcs {
    inner: Engine<Fp>,
    info: PolicyInfo,
    mps: MemoryPhaseScheduler,
    /// Per task: its memory rank.
    rank: Vec<u64>,
    /// Per task, per segment: whether it is a memory phase, and a
    /// non-preemptive one.
    memory: Vec<Vec<(bool, bool)>>,
    cpu_of: Vec<Cpu>,
    job: Vec<Option<JobId>>,
    segment: Vec<usize>,
    phase: Vec<Phase>,
}

/// Builds `mcs` with the memory-phase scheduler (`mps: true`).
pub(crate) fn build(spec: &Spec, inner: Engine<Fp>) -> Result<Mcs, AdmissionError> {
    let pol = spec.policy.as_ref().expect("built from a policy");
    for (i, t) in spec.tasks.iter().enumerate() {
        if t.memory_mode() == schedlab_model::MemoryMode::Amp {
            return Err(AdmissionError::at(
                format!("tasks[{i}].memory_mode"),
                "`amp` (the memory-phase worker) is not simulated yet; use `smp`",
            ));
        }
    }
    let all_np = pol.memory_preemption == Some(false);
    let memory = spec
        .tasks
        .iter()
        .map(|t| {
            t.segments()
                .iter()
                .map(|s| (s.kind == SegmentKind::Memory, s.kind == SegmentKind::Memory && (all_np || !s.preemptible)))
                .collect()
        })
        .collect();
    let cpu_of = inner
        .info()
        .placement
        .iter()
        .map(|p| match p {
            Placement::Cpu { cpu } => *cpu,
            _ => 0,
        })
        .collect();
    let mut info = inner.info().clone();
    info.name = PolicyName::Mcs.name();
    info.conformance = Conformance::Replay;
    let n = spec.tasks.len();
    Ok(Mcs {
        inner,
        info,
        mps: MemoryPhaseScheduler::new(),
        rank: memory_ranks(spec)?,
        memory,
        cpu_of,
        job: vec![None; n],
        segment: vec![0; n],
        phase: vec![Phase::Free; n],
    })
}

impl Mcs {
    fn is_memory(&self, task: u32, segment: usize) -> (bool, bool) {
        self.memory[task as usize].get(segment).copied().unwrap_or((false, false))
    }

    fn note(&self, task: u32, k: &mut dyn Kernel, event: impl FnOnce(u32, u64) -> PolicyEvent) {
        if k.tracing() {
            if let Some(j) = self.job[task as usize] {
                k.note(Some(self.cpu_of[task as usize]), event(task, j.seq));
            }
        }
    }

    /// The token goes to `next` (waiting or preempted): its job resumes.
    fn hand_to(&mut self, next: Option<u32>, k: &mut dyn Kernel) {
        let Some(t) = next else { return };
        self.phase[t as usize] = Phase::Owner;
        self.note(t, k, |task, job| PolicyEvent::TokenGrant { task, job });
        if let Some(j) = self.job[t as usize] {
            self.inner.resume(j, k);
        }
    }

    /// The owner `task` gives the token back.
    fn release_token(&mut self, task: u32, k: &mut dyn Kernel) {
        self.note(task, k, |task, job| PolicyEvent::TokenRelease { task, job });
        self.phase[task as usize] = Phase::Free;
        let next = self.mps.end(task);
        self.hand_to(next, k);
    }

    /// `memphase_start` by the job `j`, picked by its CPU `cpu`: whether it
    /// may run now.
    fn request(&mut self, j: JobId, cpu: Cpu, k: &mut dyn Kernel) -> bool {
        let t = j.task;
        let (_, np) = self.is_memory(t, self.segment[t as usize]);
        self.note(t, k, |task, job| PolicyEvent::TokenRequest { task, job });
        match self.mps.start(t, self.rank[t as usize], np) {
            Start::Granted => {
                self.phase[t as usize] = Phase::Owner;
                self.note(t, k, |task, job| PolicyEvent::TokenGrant { task, job });
                true
            }
            Start::Waits => {
                self.phase[t as usize] = Phase::Waiting;
                self.inner.block(j, k);
                false
            }
            Start::Preempts(owner) => {
                self.phase[owner as usize] = Phase::Preempted;
                self.note(owner, k, |task, job| PolicyEvent::TokenPreempt { task, job });
                if let Some(oj) = self.job[owner as usize] {
                    self.inner.block(oj, k);
                }
                // The owner's CPU may have answered already in this round:
                // a timer at once asks it again in the next round.
                let ocpu = self.cpu_of[owner as usize];
                if ocpu != cpu {
                    k.arm(k.now(), RESCHED_TAG | ocpu as u64);
                }
                self.phase[t as usize] = Phase::Owner;
                self.note(t, k, |task, job| PolicyEvent::TokenGrant { task, job });
                true
            }
        }
    }
}

impl Policy for Mcs {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        let t = job.id.task as usize;
        self.job[t] = Some(job.id);
        self.segment[t] = 0;
        self.phase[t] = if self.is_memory(job.id.task, 0).0 { Phase::ToRequest } else { Phase::Free };
        self.inner.release(job, k);
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        let t = job.task as usize;
        if self.job[t] == Some(job) {
            match self.phase[t] {
                Phase::Owner => self.release_token(job.task, k),
                Phase::Waiting | Phase::Preempted => {
                    let next = self.mps.withdraw(job.task);
                    self.hand_to(next, k);
                }
                Phase::Free | Phase::ToRequest => {}
            }
            self.phase[t] = Phase::Free;
            self.job[t] = None;
        }
        self.inner.complete(job, k);
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.block(job, k);
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        // A job the memory-phase scheduler holds stays blocked.
        if !matches!(self.phase[job.task as usize], Phase::Waiting | Phase::Preempted) {
            self.inner.resume(job, k);
        }
    }
    fn segment_end(&mut self, job: JobId, segment: u32, kind: SegmentKind, k: &mut dyn Kernel) {
        let t = job.task as usize;
        if self.job[t] == Some(job) {
            if kind == SegmentKind::Memory && self.phase[t] == Phase::Owner {
                self.release_token(job.task, k);
            }
            let next = segment as usize + 1;
            self.segment[t] = next;
            if self.is_memory(job.task, next).0 {
                self.phase[t] = Phase::ToRequest;
                k.resched(self.cpu_of[t]);
            } else {
                self.phase[t] = Phase::Free;
            }
        }
        self.inner.segment_end(job, segment, kind, k);
    }
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        if tag & RESCHED_TAG != 0 && tag & (1 << 63) == 0 {
            k.resched((tag & !RESCHED_TAG) as Cpu);
        } else {
            self.inner.timer(timer, tag, k);
        }
    }
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        loop {
            let j = self.inner.schedule(cpu, k)?;
            if self.phase[j.task as usize] != Phase::ToRequest || self.request(j, cpu, k) {
                return Some(j);
            }
        }
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
}
