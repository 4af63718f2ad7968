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
    /// Execution time of its closed stints.
    pub consumed: Time,
    /// Overhead intervals recorded on its CPU while it ran (not its execution).
    pub overhead: Time,
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
            overhead: 0,
            runs: Vec::new(),
            blocked: false,
            eligible_since: 0,
            wcet_reported: false,
        }
    }

    /// Execution time consumed by `now`, including open stints.
    pub fn consumed_at(&self, now: Time) -> Time {
        self.consumed + self.runs.iter().map(|&(_, s)| now.saturating_sub(s)).sum::<Time>()
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
        let Some(js) = self.jobs.get_mut(&j) else { return false };
        let Some(i) = js.runs.iter().position(|&(c, _)| c == cpu) else { return false };
        let (_, s) = js.runs.swap_remove(i);
        js.consumed += t.saturating_sub(s);
        self.cpus[cpu as usize].jobs.retain(|&x| x != j);
        true
    }

    /// Ends every stint of `j`; returns the CPUs it ran on.
    pub fn stop_all(&mut self, j: JobRef, t: Time) -> Vec<u32> {
        let cpus: Vec<u32> = self.jobs.get(&j).map(|js| js.runs.iter().map(|&(c, _)| c).collect()).unwrap_or_default();
        for &c in &cpus {
            self.stop(j, c, t);
        }
        cpus
    }

    /// The single job running on `cpu`, if exactly one.
    pub fn running_on(&self, cpu: u32) -> Option<JobRef> {
        match self.cpus.get(cpu as usize).map(|c| c.jobs.as_slice()) {
            Some([j]) => Some(*j),
            _ => None,
        }
    }
}
