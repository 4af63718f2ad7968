//! The H-CBS overhead experiment of OSPERT 2009 (paper 2, §5, Figs. 4–5)
//! in simulation: the time spent in each scheduler hook, per call, for the
//! `hcbs` policy against plain global fixed priority (`gfp`, the stock RT
//! class without throttling), on a flat and on a full hierarchy.
//!
//! The paper timed the kernel's RT-class hooks with the TSC while the FTQ
//! benchmark ran at RT priority, one thread per core of a quad-core. Here the
//! hooks are the policy's callbacks, which the simulator calls where the
//! kernel calls the paper's functions: `release` (a job wakes:
//! `enqueue_task_rt`, which applies the H-CBS wake-up rule), `complete`
//! (`dequeue_task_rt`), `timer` (the server timers: replenishment and budget
//! exhaustion, the paper's per-runqueue hrtimer) and `schedule`
//! (`pick_next_task_rt`). Each call is timed with a monotonic clock around
//! the callback alone; the table gives the median and 90th percentile.
//!
//! Workloads, 4 CPUs, 10 s simulated, FTQ-like threads (CPU-bound: each job
//! needs a whole 10 ms period, so a reservation below that keeps them
//! backlogged and its servers throttle):
//! - `gfp`: the 4 threads under global FP (the stock scheduler);
//! - `hcbs flat` (Fig. 4): the 4 threads in one group with 9.5 ms every 10 ms
//!   on each CPU;
//! - `hcbs full` (Fig. 5): two root groups with different periods (5 ms/10 ms
//!   and 2 ms/5 ms), the first with a nested subgroup (2 ms/20 ms) and a leaf
//!   queue, threads spread over them.
//!
//! `cargo run --release -p schedlab-sim --example hcbs_hooks` (numbers and
//! the machine in docs/reproductions.md).

use schedlab_model::Spec;
use schedlab_policy::{Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, TimerId};
use schedlab_sim::{simulate, SimConfig};
use std::time::Instant;

const HOOKS: [&str; 4] =
    ["release (enqueue)", "complete (dequeue)", "timer (replenish/exhaust)", "schedule (pick next)"];

/// A policy with its callbacks timed: every call's duration, by hook.
struct Timed {
    inner: Box<dyn Policy>,
    ns: [Vec<u64>; 4],
}

impl Timed {
    fn new(spec: &Spec) -> Timed {
        let inner = schedlab_policy::build(spec, None).expect("admitted");
        Timed { inner, ns: Default::default() }
    }
    fn time<R>(&mut self, hook: usize, f: impl FnOnce(&mut dyn Policy) -> R) -> R {
        let start = Instant::now();
        let r = f(self.inner.as_mut());
        self.ns[hook].push(start.elapsed().as_nanos() as u64);
        r
    }
}

/// The `q`-quantile of sorted samples.
fn quantile(sorted: &[u64], q: f64) -> u64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

impl Policy for Timed {
    fn info(&self) -> &PolicyInfo {
        self.inner.info()
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.time(0, |p| p.release(job, k))
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.time(1, |p| p.complete(job, k))
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.block(job, k)
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.resume(job, k)
    }
    fn segment_end(&mut self, job: JobId, segment: u32, kind: schedlab_model::SegmentKind, k: &mut dyn Kernel) {
        self.inner.segment_end(job, segment, kind, k)
    }
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        self.time(2, |p| p.timer(timer, tag, k))
    }
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        self.time(3, |p| p.schedule(cpu, k))
    }
    fn priority(&self, job: &JobView) -> Option<Priority> {
        self.inner.priority(job)
    }
}

fn spec(text: &str) -> Spec {
    schedlab_model::load_str(text, None, "hcbs_hooks.yaml").expect("a valid spec").spec
}

const TASKS: &str = "tasks:\n  - {name: f0, wcet: 10ms, period: 10ms}\n  - {name: f1, wcet: 10ms, period: 10ms}\n  - {name: f2, wcet: 10ms, period: 10ms}\n  - {name: f3, wcet: 10ms, period: 10ms}\n";

fn main() {
    let cases = [
        ("gfp", format!("platform: {{cpus: 4}}\npolicy: {{name: gfp}}\n{TASKS}")),
        (
            "hcbs flat",
            format!("platform: {{cpus: 4}}\npolicy: {{name: hcbs}}\n{TASKS}reservations:\n  - {{name: all, budget: 9.5ms, period: 10ms, tasks: [f0, f1, f2, f3]}}\n"),
        ),
        (
            "hcbs full",
            format!(
                "platform: {{cpus: 4}}\npolicy: {{name: hcbs}}\n{TASKS}reservations:\n  - {{name: a, budget: 5ms, period: 10ms, tasks: [f0], leaf_budget: 2ms, leaf_period: 20ms, groups: [{{name: a1, budget: 2ms, period: 20ms, tasks: [f1]}}]}}\n  - {{name: b, budget: 2ms, period: 5ms, tasks: [f2, f3]}}\n"
            ),
        ),
    ];
    let config = SimConfig { horizon: Some(10_000_000_000), spec_overheads: false, ..SimConfig::default() };
    // Medians and 90th percentiles: on a shared machine a call now and then
    // loses the CPU, which moves a mean but not these.
    println!("| workload | hook | calls | median ns | p90 ns |");
    println!("|---|---|---|---|---|");
    for (name, text) in cases {
        let spec = spec(&text);
        // A warm-up run, then the measured one.
        simulate(&spec, &mut Timed::new(&spec), &config, &mut |_| {}).expect("simulated");
        let mut timed = Timed::new(&spec);
        simulate(&spec, &mut timed, &config, &mut |_| {}).expect("simulated");
        for (h, hook) in HOOKS.iter().enumerate() {
            let v = &mut timed.ns[h];
            v.sort_unstable();
            let (med, p90) = if v.is_empty() {
                ("–".to_string(), "–".to_string())
            } else {
                (quantile(v, 0.5).to_string(), quantile(v, 0.9).to_string())
            };
            println!("| {name} | {hook} | {} | {med} | {p90} |", v.len());
        }
    }
}
