//! The policy of `docs/writing-a-policy.md`, FPDS on one CPU written from
//! scratch against `schedlab_policy::interface`, simulated: it must give
//! exactly the schedule of the built-in `fpds` (the linking domain
//! scheduler) on random sets with subjobs, so the guide's code works and the
//! two implementations check each other.

use schedlab_model::rng::Rng;
use schedlab_model::{load_str, Placement, SegmentKind, Spec};
use schedlab_policy::{Conformance, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, TimerId};
use schedlab_sim::{simulate_collect, SimConfig};
use schedlab_trace::{Event, SwitchReason};

// --- the guide's code, as printed there ---

/// FPDS on one CPU: rate-monotonic priorities, ties to the lower task index.
pub struct TinyFpds {
    info: PolicyInfo,
    /// Per task: its rank (the period; smaller is more urgent).
    rank: Vec<u64>,
    /// Per task: its released job, unless blocked or complete.
    ready: Vec<Option<JobId>>,
    /// The job the CPU runs.
    running: Option<JobId>,
    /// The running job is at a preemption point.
    at_point: bool,
}

impl TinyFpds {
    pub fn new(spec: &Spec) -> TinyFpds {
        let n = spec.tasks.len();
        TinyFpds {
            info: PolicyInfo {
                name: "tiny-fpds",
                domains: vec![vec![0]],
                placement: vec![Placement::Global; n],
                conformance: Conformance::Deferred { work_conserving: true },
                quantum: None,
            },
            rank: spec.tasks.iter().map(|t| t.period.0).collect(),
            ready: vec![None; n],
            running: None,
            at_point: false,
        }
    }

    /// The most urgent ready job.
    fn top(&self) -> Option<JobId> {
        self.ready.iter().flatten().min_by_key(|j| (self.rank[j.task as usize], j.task)).copied()
    }
}

impl Policy for TinyFpds {
    fn info(&self) -> &PolicyInfo {
        &self.info
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.ready[job.id.task as usize] = Some(job.id);
        // An idle CPU takes it; a busy one waits for the next point.
        if self.running.is_none() {
            k.resched(0);
        }
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.ready[job.task as usize] = None;
        if self.running == Some(job) {
            self.running = None;
        }
        k.resched(0);
    }
    fn segment_end(&mut self, job: JobId, _segment: u32, _kind: SegmentKind, k: &mut dyn Kernel) {
        // A preemption point: decide at the end of the instant, once the
        // releases of this instant are in.
        if self.running == Some(job) {
            self.at_point = true;
            k.resched(0);
        }
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.ready[job.task as usize] = None;
        if self.running == Some(job) {
            self.running = None;
            k.resched(0);
        }
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.ready[job.task as usize] = Some(job);
        if self.running.is_none() {
            k.resched(0);
        }
    }
    fn timer(&mut self, _timer: TimerId, _tag: u64, _k: &mut dyn Kernel) {}
    fn schedule(&mut self, _cpu: Cpu, _k: &mut dyn Kernel) -> Option<JobId> {
        if self.running.is_none() || self.at_point {
            self.running = self.top();
            self.at_point = false;
        }
        self.running
    }
    fn priority(&self, job: &JobView) -> Option<Priority> {
        Some(Priority::new(self.rank[job.id.task as usize] as i128, 0, job.id.task))
    }
}

// --- end of the guide's code ---

/// The schedule: switches and completions.
fn schedule(events: &[Event]) -> Vec<Event> {
    events
        .iter()
        .filter(|e| matches!(e, Event::SwitchTo { .. } | Event::SwitchAway { .. } | Event::Completion { .. }))
        .cloned()
        .collect()
}

#[test]
fn the_guides_policy_runs_the_camera_example() {
    let yaml = "platform: {cpus: 1}\npolicy: {name: fpds}\ntasks:\n  \
                - {name: network, wcet: 1ms, period: 5ms, offset: 1ms}\n  \
                - {name: video, wcet: 6ms, period: 20ms, subjobs: [2ms, 2ms, 2ms]}\n";
    let spec = load_str(yaml, None, "camera.yaml").unwrap().spec;
    let (ev, _) = simulate_collect(&spec, &mut TinyFpds::new(&spec), &SimConfig::default()).unwrap();
    let starts: Vec<(u64, u32)> = ev
        .iter()
        .filter_map(|e| match *e {
            Event::SwitchTo { t, task, .. } => Some((t / 1_000_000, task)),
            _ => None,
        })
        .collect();
    assert_eq!(&starts[..4], [(0, 1), (2, 0), (3, 1), (7, 0)]);
}

#[test]
fn the_guides_policy_schedules_as_the_built_in_fpds() {
    let mut r = Rng::new(0x91de);
    let mut preempted = 0;
    for k in 0..300 {
        let n = r.range_u64(1, 6) as usize;
        let mut yaml = String::from("platform: {cpus: 1}\npolicy: {name: fpds, priorities: rm}\ntasks:\n");
        for i in 0..n {
            let p = [4u64, 5, 8, 10, 20][r.below(5) as usize];
            let parts: Vec<String> =
                (0..r.range_u64(1, 4)).map(|_| format!("{}us", r.range_u64(50, p * 1000 / 4 / n as u64))).collect();
            let c = parts.iter().map(|x| x.trim_end_matches("us").parse::<u64>().unwrap()).sum::<u64>();
            yaml += &format!("  - {{name: t{i}, wcet: {c}us, period: {p}ms, subjobs: [{}]}}\n", parts.join(", "));
        }
        let spec = load_str(&yaml, None, "r.yaml").unwrap().spec;
        let config = SimConfig { seed: k, ..SimConfig::default() };
        let (mine, _) = simulate_collect(&spec, &mut TinyFpds::new(&spec), &config).unwrap();
        let mut built = schedlab_policy::build(&spec, None).unwrap();
        let (theirs, _) = simulate_collect(&spec, built.as_mut(), &config).unwrap();
        assert_eq!(schedule(&mine), schedule(&theirs), "set {k}:\n{yaml}");
        preempted +=
            usize::from(mine.iter().any(|e| matches!(e, Event::SwitchAway { reason: SwitchReason::Preempt, .. })));
    }
    // The comparison covers preemptions at points, not only runs to completion.
    assert!(preempted >= 50, "only {preempted} of 300 sets preempt");
}

/// The guide prints this file's policy verbatim.
#[test]
fn the_guide_prints_this_code() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let me = std::fs::read_to_string(root.join("crates/sim/tests/writing_a_policy.rs")).unwrap();
    let code = &me[me.find("/// FPDS on one CPU: rate-monotonic").unwrap()
        ..me.find("// --- end of the guide's code ---").unwrap()];
    let guide = std::fs::read_to_string(root.join("docs/writing-a-policy.md")).unwrap();
    assert!(guide.contains(code.trim_end()), "docs/writing-a-policy.md no longer prints the policy of this test");
}
