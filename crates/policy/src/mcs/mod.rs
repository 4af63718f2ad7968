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
//! A-MP (`memory_mode: amp`): the job runs its first prefetch itself and
//! then its execution segments ([`schedlab_model::spec::prem::amp_plan`]);
//! the memory-phase worker ([`worker`]) on the master CPU runs the other
//! phases. At the start of Section k's execution the job queues the
//! write-back of Section k−1 and the prefetch of Section k+1, in that
//! order; before Section k+1's execution it waits (blocked) until the
//! worker has done both; its last write-back is queued at its completion,
//! and the task's next job waits for it before its first prefetch.
//!
//! Every decision is a typed trace event (`token-request`, `token-grant`,
//! `token-preempt`, `token-release`; `worker: true` for the worker's
//! phases, named by the job they serve), and the validator checks a
//! schedule by replaying the policy and by the memory-phase invariants.

pub(crate) mod mps;
pub(crate) mod worker;

use crate::build::AdmissionError;
use crate::engine::Engine;
use crate::fp::Fp;
use crate::interface::{
    Activity, Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyEvent, PolicyInfo, Priority, TimerId,
};
use mps::{MemoryPhaseScheduler, Start};
use schedlab_model::spec::prem::{amp_plan, roles, sections, AmpPlan, Role};
use schedlab_model::{MemoryMode, PolicyName, SegmentKind, Spec};
use worker::{Request, State, Worker};

/// The tag of the worker's timer: its current request is done.
const WORKER_TAG: u64 = 1 << 60;

/// What a blocked `amp` job waits for from the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Await {
    /// Its requests, before Section k's execution (then it queues Section k's).
    Section(usize),
    /// Its predecessor's requests, before its first prefetch.
    Prefetch,
}

/// An `amp` task's plan, and where each Section's execution starts.
struct Amp {
    plan: AmpPlan,
    /// Per own segment: `Some(k)` when it is the first execution segment of Section k.
    starts: Vec<Option<usize>>,
    /// Per Section: the index of its prefetch and of its write-back among
    /// the task's segments (what the worker's requests name).
    prefetch_at: Vec<Option<u32>>,
    writeback_at: Vec<Option<u32>>,
}

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
    /// An `amp` job waiting for the worker (blocked).
    AwaitWorker,
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
    /// Per task: its A-MP plan (`amp` tasks).
    amp: Vec<Option<Amp>>,
    /// The memory-phase worker, its id in the memory-phase scheduler (one
    /// past the last task), its CPU, and whether its phases are all
    /// non-preemptive.
    worker: Worker,
    worker_id: u32,
    master: Cpu,
    all_np: bool,
    /// Per task: the worker's requests not yet done, and what its blocked job awaits.
    outstanding: Vec<u32>,
    awaiting: Vec<Option<Await>>,
}

/// Builds `mcs` with the memory-phase scheduler (`mps: true`).
pub(crate) fn build(spec: &Spec, inner: Engine<Fp>) -> Result<Mcs, AdmissionError> {
    let pol = spec.policy.as_ref().expect("built from a policy");
    let mut amp = Vec::with_capacity(spec.tasks.len());
    for (i, t) in spec.tasks.iter().enumerate() {
        if t.memory_mode() != MemoryMode::Amp {
            amp.push(None);
            continue;
        }
        let Some(plan) = amp_plan(&t.segments()) else {
            return Err(AdmissionError::at(
                format!("tasks[{i}].memory_mode"),
                "`amp` needs PREM Sections that start with a prefetch (docs/spec.md)",
            ));
        };
        let mut starts = vec![None; plan.job.len()];
        for (j, s) in plan.job.iter().enumerate() {
            let k = plan.section_of[j];
            if s.kind == SegmentKind::Exec
                && (j == 0 || plan.section_of[j - 1] != k || plan.job[j - 1].kind != SegmentKind::Exec)
            {
                starts[j] = Some(k);
            }
        }
        let segs = t.segments();
        let role = roles(&segs);
        let at = |want: Role| -> Vec<Option<u32>> {
            sections(&segs)
                .map(|secs| {
                    secs.iter().map(|s| (s.first..=s.last).find(|&j| role[j] == want).map(|j| j as u32)).collect()
                })
                .unwrap_or_default()
        };
        let (prefetch_at, writeback_at) = (at(Role::Prefetch), at(Role::Writeback));
        amp.push(Some(Amp { plan, starts, prefetch_at, writeback_at }));
    }
    let master = pol.master.unwrap_or(spec.platform.cpus.saturating_sub(1));
    let all_np = pol.memory_preemption == Some(false);
    let memory = spec.tasks.iter().map(|t| t.memory_phase_flags(pol.memory_preemption)).collect();
    let cpu_of = inner.info().placement.iter().map(|p| p.cpu().unwrap_or(0)).collect();
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
        amp,
        worker: Worker::new(),
        worker_id: n as u32,
        master,
        all_np,
        outstanding: vec![0; n],
        awaiting: vec![None; n],
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

    /// A worker event about the job of its current request.
    fn note_worker(&self, k: &mut dyn Kernel, event: impl FnOnce(u32, u64) -> PolicyEvent) {
        if k.tracing() {
            if let Some(r) = self.worker.current() {
                k.note(Some(self.master), event(r.job.task, r.job.seq));
            }
        }
    }

    /// The worker holds the token: it runs its current request.
    fn worker_run(&mut self, k: &mut dyn Kernel) {
        self.note_worker(k, |task, job| PolicyEvent::TokenGrant { task, job, worker: true });
        if let Some(r) = self.worker.current() {
            k.occupy(self.master, Some(Activity { job: r.job, segment: r.segment }));
        }
        let now = k.now();
        let at = self.worker.run(now);
        let timer = k.arm(at, WORKER_TAG);
        self.worker.state = State::Running { since: now, timer };
        k.resched(self.master);
    }

    /// When idle with requests queued, the worker asks for the token.
    fn worker_pump(&mut self, k: &mut dyn Kernel) {
        let Some(r) = self.worker.next() else { return };
        self.note_worker(k, |task, job| PolicyEvent::TokenRequest { task, job, worker: true });
        match self.mps.start(self.worker_id, u64::MAX, r.np) {
            Start::Granted | Start::Preempts(_) => self.worker_run(k),
            Start::Waits => self.worker.state = State::Asking,
        }
    }

    /// Queues the worker's requests for `job` of `task` when Section `k`'s
    /// execution starts: the write-back of Section k−1, the prefetch of k+1.
    fn issue(&mut self, task: u32, job: JobId, section: usize, k: &mut dyn Kernel) {
        let Some(a) = &self.amp[task as usize] else { return };
        let w = section.checked_sub(1).and_then(|p| a.plan.writeback[p].zip(a.writeback_at[p]));
        let p =
            a.plan.prefetch.get(section + 1).copied().flatten().zip(a.prefetch_at.get(section + 1).copied().flatten());
        for (s, segment) in [w, p].into_iter().flatten() {
            let np = self.all_np || !s.preemptible;
            self.worker.push(Request { job, segment, left: s.length.0, np });
            self.outstanding[task as usize] += 1;
        }
        self.worker_pump(k);
    }

    /// The worker finished a request of `task`: a job waiting for the
    /// task's requests goes on.
    fn worker_done(&mut self, task: u32, k: &mut dyn Kernel) {
        let o = &mut self.outstanding[task as usize];
        *o = o.saturating_sub(1);
        if *o > 0 {
            return;
        }
        let Some(what) = self.awaiting[task as usize].take() else { return };
        let Some(j) = self.job[task as usize] else { return };
        match what {
            Await::Section(s) => {
                self.phase[task as usize] = Phase::Free;
                self.issue(task, j, s, k);
            }
            Await::Prefetch => self.phase[task as usize] = Phase::ToRequest,
        }
        self.inner.resume(j, k);
    }

    /// The token goes to `next` (waiting or preempted): its job resumes.
    fn hand_to(&mut self, next: Option<u32>, k: &mut dyn Kernel) {
        let Some(t) = next else { return };
        if t == self.worker_id {
            self.worker_run(k);
            return;
        }
        self.phase[t as usize] = Phase::Owner;
        self.note(t, k, |task, job| PolicyEvent::TokenGrant { task, job, worker: false });
        if let Some(j) = self.job[t as usize] {
            self.inner.resume(j, k);
        }
    }

    /// The owner `task` gives the token back.
    fn release_token(&mut self, task: u32, k: &mut dyn Kernel) {
        self.note(task, k, |task, job| PolicyEvent::TokenRelease { task, job, worker: false });
        self.phase[task as usize] = Phase::Free;
        let next = self.mps.end(task);
        self.hand_to(next, k);
    }

    /// `memphase_start` by the job `j`, picked by its CPU `cpu`: whether it
    /// may run now.
    fn request(&mut self, j: JobId, cpu: Cpu, k: &mut dyn Kernel) -> bool {
        let t = j.task;
        let (_, np) = self.is_memory(t, self.segment[t as usize]);
        self.note(t, k, |task, job| PolicyEvent::TokenRequest { task, job, worker: false });
        match self.mps.start(t, self.rank[t as usize], np) {
            Start::Granted => {
                self.phase[t as usize] = Phase::Owner;
                self.note(t, k, |task, job| PolicyEvent::TokenGrant { task, job, worker: false });
                true
            }
            Start::Waits => {
                self.phase[t as usize] = Phase::Waiting;
                self.inner.block(j, k);
                false
            }
            Start::Preempts(owner) if owner == self.worker_id => {
                if let State::Running { timer, .. } = self.worker.state {
                    k.cancel(timer);
                }
                self.note_worker(k, |task, job| PolicyEvent::TokenPreempt { task, job, worker: true });
                self.worker.preempted(k.now());
                k.occupy(self.master, None);
                if self.master != cpu {
                    k.resched(self.master);
                }
                self.phase[t as usize] = Phase::Owner;
                self.note(t, k, |task, job| PolicyEvent::TokenGrant { task, job, worker: false });
                true
            }
            Start::Preempts(owner) => {
                self.phase[owner as usize] = Phase::Preempted;
                self.note(owner, k, |task, job| PolicyEvent::TokenPreempt { task, job, worker: false });
                if let Some(oj) = self.job[owner as usize] {
                    self.inner.block(oj, k);
                }
                // The owner's CPU may have answered already in this round:
                // the driver asks it again in the next round.
                let ocpu = self.cpu_of[owner as usize];
                if ocpu != cpu {
                    k.resched(ocpu);
                }
                self.phase[t as usize] = Phase::Owner;
                self.note(t, k, |task, job| PolicyEvent::TokenGrant { task, job, worker: false });
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
                Phase::Free | Phase::ToRequest | Phase::AwaitWorker => {}
            }
            self.phase[t] = Phase::Free;
            self.awaiting[t] = None;
            self.job[t] = None;
            // A-MP: the last write-back goes to the worker.
            if let Some(a) = &self.amp[t] {
                if let Some((s, segment)) =
                    a.plan.writeback.last().copied().flatten().zip(a.writeback_at.last().copied().flatten())
                {
                    let np = self.all_np || !s.preemptible;
                    self.worker.push(Request { job, segment, left: s.length.0, np });
                    self.outstanding[t] += 1;
                }
            }
        }
        self.inner.complete(job, k);
        self.worker_pump(k);
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.block(job, k);
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        // A job the memory-phase scheduler or the worker holds stays blocked.
        if !matches!(self.phase[job.task as usize], Phase::Waiting | Phase::Preempted | Phase::AwaitWorker) {
            self.inner.resume(job, k);
        }
    }
    fn segment_end(&mut self, job: JobId, segment: u32, kind: SegmentKind, k: &mut dyn Kernel) {
        let t = job.task as usize;
        if self.job[t] == Some(job) {
            if kind == SegmentKind::Memory && self.phase[t] == Phase::Owner {
                self.release_token(job.task, k);
            }
            if kind == SegmentKind::Memory && self.phase[t] == Phase::Preempted {
                // The job finished its phase as the preemption reached it
                // (on real threads the hold can land after the job's thread
                // passed the segment's end): the phase is done, it leaves
                // the queue and goes on.
                self.note(job.task, k, |task, job| PolicyEvent::TokenRelease { task, job, worker: false });
                self.phase[t] = Phase::Free;
                let next = self.mps.withdraw(job.task);
                self.hand_to(next, k);
                self.inner.resume(job, k);
            }
            let next = segment as usize + 1;
            self.segment[t] = next;
            if self.is_memory(job.task, next).0 {
                self.phase[t] = Phase::ToRequest;
                k.resched(self.cpu_of[t]);
            } else {
                self.phase[t] = Phase::Free;
            }
            // A-MP: a Section's execution starts.
            if let Some(s) = self.amp[t].as_ref().and_then(|a| a.starts.get(next).copied().flatten()) {
                if s > 0 && self.outstanding[t] > 0 {
                    self.phase[t] = Phase::AwaitWorker;
                    self.awaiting[t] = Some(Await::Section(s));
                    self.inner.segment_end(job, segment, kind, k);
                    self.inner.block(job, k);
                    return;
                }
                self.issue(job.task, job, s, k);
            }
        }
        self.inner.segment_end(job, segment, kind, k);
    }
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        if tag == WORKER_TAG {
            if !matches!(self.worker.state, State::Running { timer: t, .. } if t == timer) {
                return;
            }
            self.note_worker(k, |task, job| PolicyEvent::TokenRelease { task, job, worker: true });
            let done = self.worker.finish();
            k.occupy(self.master, None);
            k.resched(self.master);
            let next = self.mps.end(self.worker_id);
            self.hand_to(next, k);
            if let Some(r) = done {
                self.worker_done(r.job.task, k);
            }
            self.worker_pump(k);
        } else {
            self.inner.timer(timer, tag, k);
        }
    }
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        // The worker runs above every task of the master CPU.
        if cpu == self.master && self.worker.running() {
            return None;
        }
        loop {
            let j = self.inner.schedule(cpu, k)?;
            let t = j.task as usize;
            if self.phase[t] != Phase::ToRequest {
                return Some(j);
            }
            // A-MP: the first prefetch waits for the predecessor's write-back.
            if self.amp[t].is_some() && self.segment[t] == 0 && self.outstanding[t] > 0 {
                self.phase[t] = Phase::AwaitWorker;
                self.awaiting[t] = Some(Await::Prefetch);
                self.inner.block(j, k);
                continue;
            }
            if self.request(j, cpu, k) {
                return Some(j);
            }
        }
    }
    fn priority(&self, _job: &JobView) -> Option<Priority> {
        None
    }
    fn activity_cpus(&self) -> Vec<Cpu> {
        if self.amp.iter().any(|a| a.is_some()) {
            vec![self.master]
        } else {
            Vec::new()
        }
    }
}
