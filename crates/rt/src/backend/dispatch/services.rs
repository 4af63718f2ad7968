//! The dispatcher's kernel services: what `policy::driver` needs from a
//! real-time host. The clock (nanoseconds since the synchronous release,
//! advanced to a timer's due time when it fires), execution accounting (a
//! worker's thread CPU clock since its job started) and switching (hold
//! signals, affinity changes and gate stores to the workers). Policy notes
//! are recorded up to a budget reserved at start-up; `tracing()` says
//! whether the next one would be. Counters (`Kernel::counters`) are read
//! from the run's counter source opened at start-up (`crate::counters`:
//! per-CPU `perf_event_open` events, or the counts the workloads publish).

use super::activity::ActivityShared;
use super::sync::{self, Shared};
use crate::clock;
use crate::counters::Source;
use crate::sched::{self, CpuSet};
use schedlab_policy::{Activity, Counters, CountersUnavailable, Cpu, Delivery, Host, JobId, PolicyEvent, Time};
use schedlab_trace::Event;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A job as the dispatcher posts it (times relative to t0).
#[derive(Debug, Clone, Copy)]
pub(super) struct JobRec {
    pub release: u64,
    pub deadline: u64,
    pub exec: u64,
}

/// The policy's kernel in real time, less what the driver does itself.
pub(super) struct KernelServices {
    pub t0: u64,
    /// What the policy sees as now (a nominal event time, see the loop).
    pub now: Time,
    /// This wake-up, relative (`real`) and absolute (`wake`).
    pub real: Time,
    pub wake: u64,
    pub running: Vec<Option<JobId>>,
    pub tids: Vec<i32>,
    pub shared: Vec<Arc<Shared>>,
    /// Per task: the job released to the policy (what a switch-to posts).
    pub active: Vec<Option<JobRec>>,
    /// Per task: the CPU its worker is pinned to (None: the platform's CPUs).
    pub affinity: Vec<Option<u32>>,
    /// Per task: the job released to the policy at its release time, and
    /// the wake-up that did it (for release latency).
    pub prompt: Vec<Option<(u64, u64)>>,
    /// Jobs dispatched in the wake-up they were released: (task, seq, absolute release).
    pub prompts: Vec<(u32, u64, u64)>,
    /// Switch commands given (switch-aways, switch-tos, migrations).
    pub commands: [u64; 3],
    /// A switch command was given in this wake-up.
    pub changed: bool,
    /// Policy notes of this wake-up (moved to the trace after it).
    pub notes: Vec<(u64, u8, Event)>,
    /// Notes that may still be recorded in the run.
    pub note_budget: usize,
    pub notes_dropped: u64,
    /// Per segmented task: the segment demands of its jobs released and not
    /// yet given to the policy (as many per job as it has segments), oldest
    /// first, and those of the job the policy has (what a switch-to posts).
    pub seg_queue: Vec<VecDeque<u64>>,
    pub seg_active: Vec<Vec<u64>>,
    /// The CPUs' counters.
    pub counters: Source,
    /// Per CPU: the policy's own activity it asked for in this instant
    /// (`Kernel::occupy`), the one carried out, and the thread that runs
    /// it (`activity.rs`; none on a CPU the policy did not name).
    pub occupy: Vec<Option<Activity>>,
    pub occupied: Vec<Option<Activity>>,
    pub activities: Vec<Option<Arc<ActivityShared>>>,
    /// Activity commands given (starts, stops).
    pub activity_commands: [u64; 2],
}

impl Host<u64> for KernelServices {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, job: JobId) -> Time {
        let Some(sh) = self.shared.get(job.task as usize) else { return 0 };
        if sh.started.load(Ordering::Acquire) != job.seq + 1 {
            return 0;
        }
        if sh.done.load(Ordering::Acquire) > job.seq {
            return 0;
        }
        let tid = sh.tid.load(Ordering::Acquire);
        sync::thread_cpu_of(tid).saturating_sub(sh.cpu0.load(Ordering::Acquire))
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        self.running.get(cpu as usize).copied().flatten()
    }
    /// The switches wait until the instant settled ([`KernelServices::apply`]):
    /// the workers get one command per instant, and `running` stays what
    /// the CPUs ran at the wake-up while the rounds go on.
    fn switch(&mut self, _cpus: &[Cpu], _chosen: &[Option<JobId>]) {}
    fn delivering(&mut self, what: &Delivery<u64>) {
        match *what {
            Delivery::Timer { due } => self.now = self.now.max(due),
            Delivery::Release { job, x, .. } => {
                let i = job.id.task as usize;
                self.active[i] = Some(JobRec { release: job.release, deadline: job.deadline, exec: x });
                let n = self.seg_active[i].len();
                for k in 0..n {
                    self.seg_active[i][k] = self.seg_queue[i].pop_front().unwrap_or(0);
                }
                // Released to the policy at its release time (not held behind its predecessor).
                self.prompt[i] = (job.release + 1_000_000 >= self.real).then_some((job.id.seq, self.wake));
            }
            Delivery::Complete(j) => self.active[j.task as usize] = None,
            Delivery::Block(_) | Delivery::Resume(_) | Delivery::SegmentEnd { .. } => {}
        }
    }
    fn counters(&mut self, cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        let read = self.counters.read(cpu);
        // Each reading goes into the trace (within the note budget), so
        // replay answers from it.
        if let (Ok(c), true) = (&read, self.tracing()) {
            let running = self.running.get(cpu as usize).copied().flatten();
            self.note(Some(cpu), c.sample(running));
        }
        read
    }
    fn tracing(&self) -> bool {
        self.note_budget > 0
    }
    fn occupy(&mut self, cpu: Cpu, activity: Option<Activity>) {
        if let Some(o) = self.occupy.get_mut(cpu as usize) {
            *o = activity;
        }
    }
    fn note(&mut self, cpu: Option<Cpu>, event: PolicyEvent) {
        if self.note_budget == 0 {
            self.notes_dropped += 1;
            return;
        }
        self.note_budget -= 1;
        self.notes.push((self.now, 6, Event::Policy { t: self.now, cpu, event }));
    }
}

impl KernelServices {
    /// Carries out the instant's decisions: `chosen(cpu)` is what each CPU
    /// must run now (all switch-aways, then all switch-tos).
    pub fn apply(&mut self, chosen: impl Fn(Cpu) -> Option<JobId>) {
        let m = self.running.len();
        for c in 0..m {
            self.switch_away(c, chosen(c as Cpu));
        }
        for c in 0..m {
            self.switch_activity(c);
        }
        for c in 0..m {
            self.switch_to(c, chosen(c as Cpu));
        }
        for c in 0..m {
            self.running[c] = chosen(c as Cpu);
        }
    }

    /// The policy's own activity on CPU `c` changed: the activity thread
    /// stops (hold) or starts on the new one (its parameters, then the gate).
    fn switch_activity(&mut self, c: usize) {
        let want = self.occupy.get(c).copied().flatten();
        if self.occupied.get(c).copied().flatten() == want {
            return;
        }
        self.occupied[c] = want;
        let Some(sh) = self.activities.get(c).and_then(|a| a.as_ref()) else { return };
        self.changed = true;
        let g = sh.gate.load(Ordering::Relaxed);
        if sync::state(g) == sync::EXIT {
            return;
        }
        match want {
            Some(a) => {
                self.activity_commands[0] += 1;
                sh.task.store(a.job.task, Ordering::Relaxed);
                sh.job.store(a.job.seq, Ordering::Relaxed);
                sh.segment.store(a.segment, Ordering::Relaxed);
                sh.run_cmd_t.store(clock::now(), Ordering::Relaxed);
                sh.gate.store(sync::next_gen(g, c as u32 + 1), Ordering::Release);
                sync::futex_wake(&sh.gate);
            }
            None => {
                self.activity_commands[1] += 1;
                sh.gate.store(sync::next_gen(g, sync::HOLD), Ordering::Release);
            }
        }
    }

    /// Preempted, or moving to another CPU: hold the worker and tell it (a
    /// move is then a quick hold → run on the new CPU).
    fn switch_away(&mut self, c: usize, want: Option<JobId>) {
        let Some(old) = self.running[c] else { return };
        if want == Some(old) {
            return;
        }
        self.changed = true;
        self.commands[0] += 1;
        let sh = &self.shared[old.task as usize];
        sh.hold_cmd_t.store(clock::now(), Ordering::Relaxed);
        let g = sh.gate.load(Ordering::Relaxed);
        if sync::state(g) != sync::EXIT {
            sh.gate.store(sync::next_gen(g, sync::HOLD), Ordering::Release);
        }
        sync::signal(self.tids[old.task as usize]);
    }

    /// Dispatches `want` on CPU `c`: affinity, the job's parameters, the gate.
    fn switch_to(&mut self, c: usize, want: Option<JobId>) {
        let Some(new) = want else { return };
        if self.running[c] == Some(new) {
            return;
        }
        self.changed = true;
        self.commands[1] += 1;
        let i = new.task as usize;
        let tid = self.tids[i];
        if self.affinity[i] != Some(c as u32) {
            if self.affinity[i].is_some() {
                self.commands[2] += 1;
            }
            let _ = sched::set_affinity(tid, &CpuSet::of(&[c as u32]));
            self.affinity[i] = Some(c as u32);
        }
        let sh = &self.shared[i];
        if sh.posted.load(Ordering::Relaxed) != new.seq + 1 {
            let j = self.active[i].expect("the driver checked the answer");
            sh.release.store(self.t0 + j.release, Ordering::Relaxed);
            sh.deadline.store(self.t0 + j.deadline, Ordering::Relaxed);
            sh.exec.store(j.exec, Ordering::Relaxed);
            for (d, &v) in sh.segs.iter().zip(&self.seg_active[i]) {
                d.store(v, Ordering::Relaxed);
            }
            sh.posted.store(new.seq + 1, Ordering::Release);
            if self.prompt[i] == Some((new.seq, self.wake)) && self.prompts.len() < self.prompts.capacity() {
                self.prompts.push((i as u32, new.seq, self.t0 + j.release));
            }
        }
        sh.run_cmd_t.store(clock::now(), Ordering::Release);
        let g = sh.gate.load(Ordering::Relaxed);
        if sync::state(g) != sync::EXIT {
            sh.gate.store(sync::next_gen(g, c as u32 + 1), Ordering::Release);
        }
        sync::futex_wake(&sh.gate);
    }
}
