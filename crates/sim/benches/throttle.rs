//! The cost of `cap-gs-dynamic`'s per-quantum hook (the EPOS thesis' Table
//! 17: timer handler + `time_slicer` + `evaluate_hpcs`, 3.432 µs per 10 ms):
//! one sampling-timer expiry on one CPU, through `Policy::timer`, with a
//! kernel whose counter read is a memory load (the cost of reading a real
//! PMU counter, `rdpmc` or `perf_event` `read`, and of the driver's timer
//! dispatch is not in it).
//!
//! Two cases on the thesis' shape (8 CPUs, 4 HRT, 8 SRT in 4 colour groups,
//! one BE per group, each BE on another CPU than its group):
//! - `quiet`: the counter rose by less than the threshold: read, compare, re-arm;
//! - `held`: the counter rose above it, the CPU's BE job is held and its SRT
//!   sharer still has work: read, compare, check the sharers, keep holding.
//!
//! `cargo bench -p schedlab-sim --bench throttle`

use criterion::{criterion_group, criterion_main, Criterion};
use schedlab_model::load_str;
use schedlab_policy::{build, Counters, CountersUnavailable, Cpu, Job, JobId, Kernel, Policy, Time, TimerId};
use schedlab_policy::{PolicyEvent, THROTTLE_SAMPLE_TAG};
use std::hint::black_box;

struct Bench {
    now: Time,
    hitm: u64,
    step: u64,
    timers: u64,
    throttles: u32,
}

impl Kernel for Bench {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, _job: JobId) -> Time {
        0
    }
    fn running(&self, _cpu: Cpu) -> Option<JobId> {
        None
    }
    fn resched(&mut self, _cpu: Cpu) {}
    fn arm(&mut self, _at: Time, _tag: u64) -> TimerId {
        self.timers += 1;
        TimerId(self.timers)
    }
    fn arm_exec(&mut self, _job: JobId, _at: Time, _tag: u64) -> TimerId {
        self.timers += 1;
        TimerId(self.timers)
    }
    fn cancel(&mut self, _timer: TimerId) {}
    fn counters(&mut self, _cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        self.hitm += self.step;
        Ok(Counters { coherence_misses: Some(self.hitm), ..Counters::default() })
    }
    fn tracing(&self) -> bool {
        true
    }
    fn note(&mut self, _cpu: Option<Cpu>, event: PolicyEvent) {
        if matches!(event, PolicyEvent::Throttle { .. }) {
            self.throttles += 1;
        }
    }
}

fn spec() -> schedlab_model::Spec {
    let mut y = String::from(
        "platform: {cpus: 8, cache: {size: 8MiB, ways: 16, line: 64B}}\npolicy: {name: cap-gs-dynamic, capacity: 0.69}\ntasks:\n",
    );
    // Pinned as CAP-GS would put them: HRT on CPUs 0-1, groups g on CPU 2+g, BE of group g on CPU (3+g) % 4 + 2.
    for h in 0..4 {
        y += &format!("  - {{name: h{h}, wcet: 3ms, period: 10ms, colors: [{h}], cpu: {}}}\n", h / 2);
    }
    for g in 0..4 {
        for s in 0..2 {
            y += &format!(
                "  - {{name: s{g}{s}, wcet: 15ms, period: 50ms, colors: [{}], class: srt, cpu: {}}}\n",
                10 + g,
                2 + g
            );
        }
    }
    for g in 0..4 {
        y += &format!(
            "  - {{name: b{g}, wcet: 40ms, period: 100ms, colors: [{}], class: be, cpu: {}}}\n",
            10 + g,
            (3 + g) % 4 + 2
        );
    }
    load_str(&y, None, "bench.yaml").unwrap().spec
}

/// A policy with every job released and each CPU scheduled once.
fn ready(k: &mut Bench) -> Box<dyn Policy> {
    let spec = spec();
    let mut p = build(&spec, None).unwrap();
    for (t, task) in spec.tasks.iter().enumerate() {
        p.release(Job { id: JobId { task: t as u32, seq: 0 }, release: 0, deadline: task.period.0 }, k);
    }
    for c in 0..8 {
        p.schedule(c, k);
    }
    p
}

fn hook(c: &mut Criterion) {
    let mut g = c.benchmark_group("throttle");
    let mut k = Bench { now: 0, hitm: 0, step: 1, timers: 0, throttles: 0 };
    let mut p = ready(&mut k);
    g.bench_function("quiet", |b| {
        b.iter(|| {
            k.now += 10_000_000;
            p.timer(TimerId(0), THROTTLE_SAMPLE_TAG | 2, black_box(&mut k));
        })
    });
    let mut k = Bench { now: 0, hitm: 0, step: 1000, timers: 0, throttles: 0 };
    let mut p = ready(&mut k);
    // CPU 2 holds s00, s01 and b1 (whose group is on CPU 3): complete the
    // SRT jobs so that b1 is the CPU's job; s10 and s11 keep working.
    for s in [4u32, 5] {
        p.complete(JobId { task: s, seq: 0 }, &mut k);
    }
    p.schedule(2, &mut k);
    k.now += 10_000_000;
    p.timer(TimerId(0), THROTTLE_SAMPLE_TAG | 2, &mut k);
    assert_eq!(k.throttles, 1, "b1 is held from the first sample on");
    g.bench_function("held", |b| {
        b.iter(|| {
            k.now += 10_000_000;
            p.timer(TimerId(0), THROTTLE_SAMPLE_TAG | 2, black_box(&mut k));
        })
    });
    assert_eq!(k.throttles, 1, "and stays held while s10 and s11 work");
    g.finish();
}

criterion_group!(benches, hook);
criterion_main!(benches);
