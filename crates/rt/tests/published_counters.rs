//! Counters the workloads publish, read by a policy on real threads
//! (root, dispatch backend): two `memwalk` tasks of one shared-data group on
//! CPUs 0 and 1, writing a shared line after every 4 and every 8 lines of
//! their own. A policy that reads `Kernel::counters` of the CPU at every
//! decision sees, per CPU, monotone counts whose shared-write share is that
//! CPU's task's (1/5 and 1/9: the counts land on the CPU that did the work),
//! no more than its body did and most of it, and the trace names the source.

mod common;
use common::*;
use schedlab_policy::{Counters, Cpu, Job, JobId, JobView, Kernel, Policy, PolicyInfo, Priority, TimerId};
use schedlab_rt::counters::CounterChoice;
use schedlab_rt::workload::memwalk::{MemWalk, Pattern, SharedLines};
use schedlab_rt::{run, BackendKind, JobBody, JobCtx, PolicyFactory, RunConfig, WorkloadSpec};
use schedlab_trace::Event;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const MS: u64 = 1_000_000;
/// Own lines per shared write, by task (task i runs on CPU i).
const EVERY: [u64; 2] = [4, 8];

type Log = Arc<Mutex<Vec<(Cpu, Counters)>>>;

/// The spec's policy, reading the CPU's counters at every decision.
struct Reader {
    inner: Box<dyn Policy>,
    log: Log,
}

impl Policy for Reader {
    fn info(&self) -> &PolicyInfo {
        self.inner.info()
    }
    fn release(&mut self, job: Job, k: &mut dyn Kernel) {
        self.inner.release(job, k)
    }
    fn complete(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.complete(job, k)
    }
    fn block(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.block(job, k)
    }
    fn resume(&mut self, job: JobId, k: &mut dyn Kernel) {
        self.inner.resume(job, k)
    }
    fn timer(&mut self, timer: TimerId, tag: u64, k: &mut dyn Kernel) {
        self.inner.timer(timer, tag, k)
    }
    fn schedule(&mut self, cpu: Cpu, k: &mut dyn Kernel) -> Option<JobId> {
        match k.counters(cpu) {
            Ok(c) => self.log.lock().unwrap().push((cpu, c)),
            Err(e) => panic!("the workload source answers every CPU: {e}"),
        }
        self.inner.schedule(cpu, k)
    }
    fn priority(&self, job: &JobView) -> Option<Priority> {
        self.inner.priority(job)
    }
}

#[test]
fn a_policy_reads_monotone_per_cpu_counts_the_memwalk_bodies_publish() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec(
        "platform: {cpus: 2}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 4ms, period: 20ms, cpu: 0, wss: 256KiB}\n  - {name: b, wcet: 4ms, period: 20ms, cpu: 1, wss: 256KiB}\n",
    );
    let log: Log = Arc::default();
    let l = log.clone();
    let factory = PolicyFactory(Arc::new(move |s: &schedlab_model::Spec| {
        Box::new(Reader { inner: schedlab_policy::build(s, None).unwrap(), log: l.clone() }) as Box<dyn Policy>
    }));
    let group = SharedLines::new(4096, 64);
    // Per task: own lines and shared writes its body made, after each job.
    let done: Arc<[[AtomicU64; 2]; 2]> = Arc::new(Default::default());
    let (g, d) = (group.clone(), done.clone());
    let body = WorkloadSpec::rust("memwalk-shared", move |task| {
        let t = task as usize;
        let mut w = MemWalk::new(256 * 1024, 64, Pattern::Sequential, t as u64).with_shared(g.clone(), EVERY[t]);
        let d = d.clone();
        Box::new(move |ctx: &mut JobCtx| {
            let r = w.run(ctx);
            d[t][0].store(w.touched, Ordering::Relaxed);
            d[t][1].store(w.shared_writes, Ordering::Relaxed);
            r
        })
    });
    let config = RunConfig {
        backend: BackendKind::Dispatch,
        duration: 400 * MS,
        workload: body,
        counters: CounterChoice::Workload,
        start_margin: 200 * MS,
        wait: true,
        policy: Some(factory),
        ..RunConfig::default()
    };
    let o = run(&spec, &config).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine's state is restored");
    log_line(&o.notes.join("; "));
    assert!(o.notes.iter().any(|n| n.starts_with("counters: published by the workloads")), "{:?}", o.notes);
    let source = o.events.iter().find_map(|e| match e {
        Event::Note { t: 0, name, data, .. } if name == "counter-source" => Some(data.clone()),
        _ => None,
    });
    assert_eq!(source.as_ref().map(|s| s["source"].clone()), Some(serde_json::json!("workload")), "{source:?}");

    let log = log.lock().unwrap().clone();
    let own = |t: usize| done[t][0].load(Ordering::Relaxed);
    let shared = |t: usize| done[t][1].load(Ordering::Relaxed);
    assert_eq!(group.writes(), shared(0) + shared(1), "every shared write reached the group's lines");
    for cpu in 0..2u32 {
        let r: Vec<Counters> = log.iter().filter(|(c, _)| *c == cpu).map(|(_, c)| *c).collect();
        assert!(r.len() >= 20, "CPU {cpu}: {} readings", r.len());
        let refs: Vec<u64> = r.iter().map(|c| c.cache_references.unwrap()).collect();
        let coh: Vec<u64> = r.iter().map(|c| c.coherence_misses.unwrap()).collect();
        assert!(refs.windows(2).all(|w| w[0] <= w[1]), "CPU {cpu}: references not monotone: {refs:?}");
        assert!(coh.windows(2).all(|w| w[0] <= w[1]), "CPU {cpu}: coherence not monotone: {coh:?}");
        assert!(r.iter().all(|c| c.instructions.is_none() && c.cache_misses.is_none()));
        let (last_refs, last_coh) = (*refs.last().unwrap(), *coh.last().unwrap());
        let t = cpu as usize;
        let body_total = own(t) + shared(t);
        log_line(&format!(
            "CPU {cpu}: {} readings, last: {last_refs} lines, {last_coh} shared writes; task {t}'s body: {} own lines, {} shared writes",
            r.len(),
            own(t),
            shared(t)
        ));
        // Published by the body that ran there, no more than it did, and
        // most of it (the last reading is at a decision before the last job ended).
        assert!(last_refs <= body_total && last_coh <= shared(t), "CPU {cpu}: counted more than its body did");
        assert!(last_refs * 10 >= body_total * 8, "CPU {cpu}: {last_refs} of the body's {body_total} lines");
        // Each CPU's share of shared writes is its task's: 1 / (EVERY + 1).
        let share = last_coh as f64 / last_refs as f64;
        let want = 1.0 / (EVERY[t] + 1) as f64;
        assert!((share - want).abs() < 0.01, "CPU {cpu}: shared-write share {share:.4}, want {want:.4}");
    }
    // Each reading the policy got is a counter sample in the trace (replay reads them back).
    let samples =
        count(&o.events, |e| matches!(e, Event::Policy { event: schedlab_trace::PolicyEvent::CounterSample(_), .. }));
    assert_eq!(samples, log.len());
}

fn log_line(s: &str) {
    common::log(&format!("published counters: {s}"));
}

/// The same from the spec alone: `data_group` and `write_ratio` (0.2 and
/// 1/9) on `memwalk` tasks give each CPU's counts its task's shared-write share.
#[test]
fn a_specs_shared_data_group_and_write_ratio_drive_the_published_counts() {
    require_root();
    let _s = serial();
    let spec = spec(
        "platform: {cpus: 2, cache: {size: 8MiB, ways: 16, line: 64B}}\npolicy: {name: pfp}\ntasks:\n  - {name: a, wcet: 4ms, period: 20ms, cpu: 0, wss: 128KiB, data_group: g0, write_ratio: 0.2}\n  - {name: b, wcet: 4ms, period: 20ms, cpu: 1, wss: 128KiB, data_group: g0, write_ratio: 0.111111}\n",
    );
    let log: Log = Arc::default();
    let l = log.clone();
    let factory = PolicyFactory(Arc::new(move |s: &schedlab_model::Spec| {
        Box::new(Reader { inner: schedlab_policy::build(s, None).unwrap(), log: l.clone() }) as Box<dyn Policy>
    }));
    let config = RunConfig {
        backend: BackendKind::Dispatch,
        duration: 200 * MS,
        workload: "memwalk".parse().unwrap(),
        counters: CounterChoice::Workload,
        start_margin: 200 * MS,
        wait: true,
        policy: Some(factory),
        ..RunConfig::default()
    };
    run(&spec, &config).unwrap_or_else(|e| panic!("{e}"));
    let log = log.lock().unwrap().clone();
    for (cpu, want) in [(0u32, 0.2), (1, 1.0 / 9.0)] {
        let last = log.iter().rev().find(|(c, _)| *c == cpu).map(|(_, c)| *c).expect("readings");
        let (refs, coh) = (last.cache_references.unwrap(), last.coherence_misses.unwrap());
        log_line(&format!("spec run, CPU {cpu}: {refs} lines, {coh} shared writes"));
        assert!(refs > 10_000, "CPU {cpu}: {refs} lines");
        let share = coh as f64 / refs as f64;
        assert!((share - want).abs() < 0.01, "CPU {cpu}: shared-write share {share:.4}, want {want:.4}");
    }
}
