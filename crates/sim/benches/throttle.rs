//! The cost of `cap-gs-dynamic`'s per-quantum hook (the EPOS thesis' Table
//! 17: timer handler + `time_slicer` + `evaluate_hpcs`, 3.432 µs per 10 ms):
//! one quantum boundary of 8 CPUs through the driver (`policy::driver`, as
//! the simulator and the dispatcher run it): the 8 sampling timers fire,
//! each reads its CPU's counter, compares the rise with the threshold,
//! checks the sharers and re-arms; the rounds of `schedule` follow. The
//! host's counter read is a memory load: the cost of reading a real PMU
//! counter (`rdpmc`, a `perf_event` `read`) and of waking a thread is not
//! in it.
//!
//! Two cases on the thesis' shape (8 CPUs, 4 HRT, 8 SRT in 4 colour groups,
//! one BE per group, the BE tasks on CPUs 6 and 7, away from their groups),
//! every job released and none completing:
//! - `quiet`: every counter rose by less than the threshold;
//! - `held`: every counter rose above it; the BE job running on CPUs 6 and 7
//!   is held (its SRT sharers keep working) and stays held.
//!
//! `cargo bench -p schedlab-sim --bench throttle`

use criterion::{criterion_group, criterion_main, Criterion};
use schedlab_model::load_str;
use schedlab_policy::driver::Host;
use schedlab_policy::{build, Counters, CountersUnavailable, Cpu, Driver, Job, JobId, Policy, PolicyEvent, Time};

/// A host whose CPUs run what the driver chose and whose counters rise by
/// `step` at each read of the CPU.
struct Bench {
    now: Time,
    hitm: Vec<u64>,
    step: u64,
    running: Vec<Option<JobId>>,
    throttles: u32,
}

impl Host for Bench {
    fn now(&self) -> Time {
        self.now
    }
    fn consumed(&self, _job: JobId) -> Time {
        0
    }
    fn running(&self, cpu: Cpu) -> Option<JobId> {
        self.running[cpu as usize]
    }
    fn switch(&mut self, cpus: &[Cpu], chosen: &[Option<JobId>]) {
        for &c in cpus {
            self.running[c as usize] = chosen[c as usize];
        }
    }
    fn counters(&mut self, cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        let h = &mut self.hitm[cpu as usize];
        *h += self.step;
        Ok(Counters { coherence_misses: Some(*h), ..Counters::default() })
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
    // HRT on CPUs 0-1 and group g on CPU 2+g, as CAP-GS puts them; the BE tasks on CPUs 6 and 7,
    // away from their groups (the thesis' experiment drew their CPUs at random).
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
            6 + g % 2
        );
    }
    load_str(&y, None, "bench.yaml").unwrap().spec
}

/// The policy and its driver after the release of every job at 0.
fn ready(host: &mut Bench) -> (Box<dyn Policy>, Driver) {
    let spec = spec();
    let mut p = build(&spec, None).unwrap();
    let mut d = Driver::new(8, p.info().placement.clone());
    for (t, task) in spec.tasks.iter().enumerate() {
        d.release(Job { id: JobId { task: t as u32, seq: 0 }, release: 0, deadline: task.period.0 }, (), 0);
    }
    d.instant(p.as_mut(), host, 0).unwrap();
    (p, d)
}

fn hook(c: &mut Criterion) {
    let mut g = c.benchmark_group("throttle");
    for (name, step) in [("quiet", 1), ("held", 1000)] {
        let mut host = Bench { now: 0, hitm: vec![0; 8], step, running: vec![None; 8], throttles: 0 };
        let (mut p, mut d) = ready(&mut host);
        host.now = 10_000_000;
        let now = host.now;
        d.instant(p.as_mut(), &mut host, now).unwrap();
        let held = host.throttles;
        g.bench_function(name, |b| {
            b.iter(|| {
                host.now += 10_000_000;
                let now = host.now;
                d.instant(p.as_mut(), &mut host, now).unwrap();
            })
        });
        // The case is what it says: no throttle, or the BE jobs held once and for good.
        assert_eq!(host.throttles, held, "{name}: the state is steady");
        assert_eq!(held > 0, step > 1, "{name}: {held} throttles");
    }
    g.finish();
}

criterion_group!(benches, hook);
criterion_main!(benches);
