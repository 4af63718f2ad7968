//! The schedule as reconstructed from the events so far: jobs in flight, what
//! each CPU runs, and which jobs are eligible in each domain.
//!
//! Memory is proportional to the jobs in flight: a job is forgotten when it
//! completes; per task only the released-but-unfinished job numbers and the
//! highest released number are kept, which is enough to tell "completed"
//! from "never released".

use schedlab_trace::{JobRef, Time};
use std::collections::{BTreeSet, HashMap, VecDeque};

/// A job in flight (released and not completed, or running before its release).
#[derive(Debug, Clone)]
pub(crate) struct JobState {
    /// `None` while the job runs without having been released (a violation).
    pub release: Option<Time>,
    pub deadline: Time,
    /// Execution time of its closed stints (overhead intervals on its CPU excluded).
    pub consumed: Time,
    /// Open stints: (CPU, start).
    pub runs: Vec<(u32, Time)>,
    pub blocked: bool,
    /// Since when the job has been eligible (for the non-preemptive decision
    /// check under a tolerance).
    pub eligible_since: Time,
    pub wcet_reported: bool,
}

impl JobState {
    fn new() -> JobState {
        JobState {
            release: None,
            deadline: 0,
            consumed: 0,
            runs: Vec::new(),
            blocked: false,
            eligible_since: 0,
            wcet_reported: false,
        }
    }

    pub fn running(&self) -> bool {
        !self.runs.is_empty()
    }

    pub fn runs_on(&self, cpu: u32) -> bool {
        self.runs.iter().any(|&(c, _)| c == cpu)
    }
}

/// Per task.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskState {
    /// Released, not completed, in increasing order.
    pub pending: VecDeque<u64>,
    pub max_released: Option<u64>,
    /// Due time of the last release (its release instant less a recorded
    /// release latency).
    pub last_release: Option<Time>,
    /// The task's job currently in its domain's eligible set.
    pub elig: Option<u64>,
}

impl TaskState {
    /// Was job `j` released and then completed?
    pub fn completed(&self, j: u64) -> bool {
        self.max_released.is_some_and(|m| j <= m) && !self.pending.contains(&j)
    }
}

/// Per CPU.
#[derive(Debug, Clone, Default)]
pub(crate) struct CpuState {
    /// Jobs running (more than one is a violation).
    pub jobs: Vec<JobRef>,
    /// The last job that completed while running here, and when.
    pub last_completed: Option<(JobRef, Time)>,
    pub domain: Option<usize>,
    /// Overhead intervals `[start, end)` recorded on this CPU, in order of
    /// start, kept while an open or future stint may overlap them.
    pub overheads: VecDeque<(Time, Time)>,
}

/// The reconstructed schedule.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub jobs: HashMap<JobRef, JobState>,
    pub tasks: Vec<TaskState>,
    pub cpus: Vec<CpuState>,
    /// Per domain: eligible jobs (released, not completed, predecessor
    /// completed, not blocked), running or not.
    pub eligible: Vec<BTreeSet<JobRef>>,
    pub task_domain: Vec<Option<usize>>,
    pub peak: usize,
}

impl State {
    pub fn new(tasks: usize, cpus: u32, domains: &[Vec<u32>], task_domain: Vec<Option<usize>>) -> State {
        let mut cs = vec![CpuState::default(); cpus as usize];
        for (d, dom) in domains.iter().enumerate() {
            for &c in dom {
                if let Some(cpu) = cs.get_mut(c as usize) {
                    cpu.domain = Some(d);
                }
            }
        }
        State {
            jobs: HashMap::new(),
            tasks: vec![TaskState::default(); tasks],
            cpus: cs,
            eligible: vec![BTreeSet::new(); domains.len()],
            task_domain,
            peak: 0,
        }
    }

    /// The job's state, created if unknown.
    pub fn job_mut(&mut self, j: JobRef) -> &mut JobState {
        let n = self.jobs.len();
        let added = !self.jobs.contains_key(&j);
        if added {
            self.peak = self.peak.max(n + 1);
        }
        self.jobs.entry(j).or_insert_with(JobState::new)
    }

    /// Is the job eligible: released, unfinished, first unfinished job of
    /// its task, not blocked?
    pub fn is_eligible(&self, j: JobRef) -> bool {
        let Some(js) = self.jobs.get(&j) else { return false };
        js.release.is_some() && !js.blocked && self.tasks[j.task as usize].pending.front() == Some(&j.job)
    }

    /// Recomputes which job of `task` is in its domain's eligible set.
    pub fn refresh_eligibility(&mut self, task: u32, now: Time) {
        let ts = &self.tasks[task as usize];
        let front = ts.pending.front().copied();
        let want = front.filter(|&j| self.is_eligible(JobRef { task, job: j }));
        let old = ts.elig;
        if old == want {
            return;
        }
        if let Some(d) = self.task_domain[task as usize] {
            if let Some(o) = old {
                self.eligible[d].remove(&JobRef { task, job: o });
            }
            if let Some(w) = want {
                self.eligible[d].insert(JobRef { task, job: w });
            }
        }
        if let Some(w) = want {
            if let Some(js) = self.jobs.get_mut(&JobRef { task, job: w }) {
                js.eligible_since = now;
            }
        }
        self.tasks[task as usize].elig = want;
    }

    /// Starts a stint of `j` on `cpu`.
    pub fn start(&mut self, j: JobRef, cpu: u32, t: Time) {
        self.job_mut(j).runs.push((cpu, t));
        self.cpus[cpu as usize].jobs.push(j);
    }

    /// Ends the stint of `j` on `cpu`, if any; returns whether there was one.
    pub fn stop(&mut self, j: JobRef, cpu: u32, t: Time) -> bool {
        let Some(i) = self.jobs.get(&j).and_then(|js| js.runs.iter().position(|&(c, _)| c == cpu)) else {
            return false;
        };
        let s = self.jobs[&j].runs[i].1;
        let net = self.net(cpu, s, t);
        let js = self.jobs.get_mut(&j).expect("checked above");
        js.runs.swap_remove(i);
        js.consumed += net;
        self.cpus[cpu as usize].jobs.retain(|&x| x != j);
        self.prune(cpu, t);
        true
    }

    /// Time in `[s, e)` on `cpu` not covered by its overhead intervals: the
    /// execution a job running there then got (a job makes no progress
    /// while its CPU does kernel work).
    pub fn net(&self, cpu: u32, s: Time, e: Time) -> Time {
        if e <= s {
            return 0;
        }
        let mut stalled = 0;
        let mut covered = s;
        for &(a, b) in &self.cpus[cpu as usize].overheads {
            if a >= e {
                break;
            }
            let (lo, hi) = (a.max(covered), b.min(e));
            if hi > lo {
                stalled += hi - lo;
            }
            covered = covered.max(hi);
        }
        (e - s) - stalled
    }

    /// Records an overhead interval on `cpu`.
    pub fn overhead(&mut self, cpu: u32, t: Time, dur: Time) {
        if dur > 0 {
            self.cpus[cpu as usize].overheads.push_back((t, t.saturating_add(dur)));
        }
        self.prune(cpu, t);
    }

    /// Forgets overhead intervals no open or future stint on `cpu` can overlap.
    fn prune(&mut self, cpu: u32, now: Time) {
        let c = &self.cpus[cpu as usize];
        let from = c
            .jobs
            .iter()
            .filter_map(|j| self.jobs.get(j))
            .flat_map(|js| js.runs.iter())
            .filter(|r| r.0 == cpu)
            .map(|r| r.1)
            .min()
            .unwrap_or(now)
            .min(now);
        let c = &mut self.cpus[cpu as usize];
        while c.overheads.front().is_some_and(|&(_, b)| b <= from) {
            c.overheads.pop_front();
        }
    }

    /// When a job on `cpu` makes progress again from `t`: the end of the
    /// overhead intervals recorded so far that cover `t`, or `t`.
    pub fn progress_from(&self, cpu: u32, t: Time) -> Time {
        let mut from = t;
        for &(a, b) in &self.cpus[cpu as usize].overheads {
            if a > from {
                break;
            }
            from = from.max(b);
        }
        from
    }

    /// Execution time `j` consumed by `now`, including its open stints.
    pub fn consumed_at(&self, j: JobRef, now: Time) -> Time {
        let Some(js) = self.jobs.get(&j) else { return 0 };
        js.consumed + js.runs.iter().map(|&(c, s)| self.net(c, s, now)).sum::<Time>()
    }

    /// Ends every stint of `j`; returns the CPUs it ran on.
    pub fn stop_all(&mut self, j: JobRef, t: Time) -> Vec<u32> {
        let cpus: Vec<u32> = self.jobs.get(&j).map(|js| js.runs.iter().map(|&(c, _)| c).collect()).unwrap_or_default();
        for &c in &cpus {
            self.stop(j, c, t);
        }
        cpus
    }
}
