//! `schedlab probe latency`: what the platform gives before a run is
//! trusted. A SCHED_FIFO thread per CPU (pinned) sleeps on absolute timers
//! (`clock_nanosleep(TIMER_ABSTIME)` on CLOCK_MONOTONIC) every interval and
//! records how late it woke — cyclictest's measurement (`-m -S -p PRIO -i
//! INTERVAL`) — first on the idle machine, then under a load it generates
//! (one SCHED_OTHER thread per CPU walking a 4 MiB buffer and yielding).
//! It also lists the IRQ threads (`irq/...`) and the other real-time kernel
//! threads with their priorities (after Henriques, "Threaded IRQs on Linux
//! PREEMPT-RT", OSPERT 2009: a probe or task below an IRQ thread's
//! priority waits for that interrupt's handling).

use crate::clock;
use crate::error::RunError;
use crate::guard::Guard;
use crate::overheads::Stats;
use crate::sched::{self, Class, CpuSet};
use crate::signals::SignalScope;
use crate::stop::Stop;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// Wake-up interval (ns).
    pub interval: u64,
    /// Duration of each phase (ns).
    pub duration: u64,
    /// SCHED_FIFO priority of the probe threads.
    pub priority: u32,
    /// Also measure under generated load.
    pub load: bool,
}

impl Default for ProbeConfig {
    fn default() -> ProbeConfig {
        ProbeConfig { interval: 200_000, duration: 5_000_000_000, priority: 90, load: true }
    }
}

/// Upper bounds (µs) of the histogram buckets; the last bucket is open.
pub const BUCKETS_US: [u64; 9] = [5, 10, 20, 50, 100, 200, 500, 1000, 10_000];

#[derive(Debug, Clone, Serialize)]
pub struct CpuLatency {
    pub cpu: u32,
    pub stats: Stats,
    /// Counts per bucket of [`BUCKETS_US`] plus one for everything above.
    pub histogram: Vec<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    pub name: &'static str,
    pub cpus: Vec<CpuLatency>,
    pub all: Stats,
}

#[derive(Debug, Clone, Serialize)]
pub struct KernelThread {
    pub pid: i32,
    pub name: String,
    pub policy: &'static str,
    pub priority: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProbeReport {
    pub interval_ns: u64,
    pub priority: u32,
    pub phases: Vec<Phase>,
    pub irq_threads: Vec<KernelThread>,
    pub other_rt_threads: Vec<KernelThread>,
    /// `threadirqs` on the command line or a PREEMPT_RT kernel.
    pub threaded_irqs: bool,
    pub preempt_rt: bool,
}

fn policy_name(p: u32) -> &'static str {
    match p {
        sched::SCHED_OTHER => "SCHED_OTHER",
        sched::SCHED_FIFO => "SCHED_FIFO",
        sched::SCHED_RR => "SCHED_RR",
        sched::SCHED_BATCH => "SCHED_BATCH",
        sched::SCHED_IDLE => "SCHED_IDLE",
        sched::SCHED_DEADLINE => "SCHED_DEADLINE",
        _ => "other",
    }
}

/// IRQ threads and other real-time threads of the machine (kernel threads).
pub fn kernel_threads() -> (Vec<KernelThread>, Vec<KernelThread>) {
    let (mut irq, mut rt) = (Vec::new(), Vec::new());
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for p in rd.flatten() {
            let Ok(pid) = p.file_name().to_string_lossy().parse::<i32>() else { continue };
            let name = std::fs::read_to_string(p.path().join("comm")).map(|s| s.trim().to_string()).unwrap_or_default();
            let Ok(a) = sched::get_attr(pid) else { continue };
            let t = KernelThread { pid, name: name.clone(), policy: policy_name(a.policy), priority: a.priority };
            if name.starts_with("irq/") {
                irq.push(t);
            } else if sched::is_realtime(a.policy) && pid != std::process::id() as i32 {
                rt.push(t);
            }
        }
    }
    irq.sort_by_key(|t| (std::cmp::Reverse(t.priority), t.pid));
    rt.sort_by_key(|t| (std::cmp::Reverse(t.priority), t.pid));
    (irq, rt)
}

fn histogram(samples: &[u64]) -> Vec<u64> {
    let mut h = vec![0u64; BUCKETS_US.len() + 1];
    for &s in samples {
        let us = s / 1000;
        let i = BUCKETS_US.iter().position(|&b| us < b).unwrap_or(BUCKETS_US.len());
        h[i] += 1;
    }
    h
}

fn phase(
    name: &'static str,
    cfg: &ProbeConfig,
    cpus: &[u32],
    guard: &Arc<Guard>,
    stop: &Arc<Stop>,
) -> Result<Phase, RunError> {
    let n = (cfg.duration / cfg.interval) as usize + 1;
    let start = Arc::new(std::sync::Barrier::new(cpus.len() + 1));
    let mut hs = Vec::new();
    for &cpu in cpus {
        let (guard, stop, start, cfg) = (guard.clone(), stop.clone(), start.clone(), cfg.clone());
        hs.push(std::thread::spawn(move || -> Result<Vec<u64>, RunError> {
            let mut v: Vec<u64> = vec![0; n]; // prefault
            v.clear();
            let tid = clock::gettid();
            let setup = guard
                .record_thread(tid)
                .and_then(|_| sched::set_affinity(tid, &CpuSet::of(&[cpu])))
                .and_then(|_| sched::set_class(tid, Class::Fifo { priority: cfg.priority }));
            start.wait();
            setup.map_err(|e| RunError::system(format!("probe thread on CPU {cpu}"), e))?;
            let mut next = clock::now() + cfg.interval;
            for _ in 0..n {
                if stop.is_set() {
                    break;
                }
                clock::sleep_until(next);
                let now = clock::now();
                v.push(now.saturating_sub(next));
                next += cfg.interval;
                if now > next {
                    next = now + cfg.interval; // overran an interval: resynchronise
                }
            }
            let _ = sched::set_class(tid, Class::Other { nice: 0 });
            Ok(v)
        }));
    }
    start.wait();
    let mut out = Vec::new();
    let mut all = Vec::new();
    for (h, &cpu) in hs.into_iter().zip(cpus) {
        let v = h.join().map_err(|_| RunError::System("a probe thread panicked".into()))??;
        all.extend_from_slice(&v);
        out.push(CpuLatency { cpu, stats: Stats::of(&v), histogram: histogram(&v) });
    }
    Ok(Phase { name, cpus: out, all: Stats::of(&all) })
}

/// Runs the probe. Needs CAP_SYS_NICE (exit 3 otherwise).
pub fn latency(cfg: &ProbeConfig) -> Result<ProbeReport, RunError> {
    if cfg.interval < 10_000 || cfg.duration < cfg.interval || cfg.priority == 0 || cfg.priority > 98 {
        return Err(RunError::BadInput("probe: interval ≥ 10us, duration ≥ interval, priority in 1..=98".into()));
    }
    crate::privilege::check(&crate::privilege::Needs { fifo_priority: cfg.priority, ..Default::default() })?;
    let cpus = sched::online_cpus();
    let guard = Arc::new(Guard::new());
    let stop = Arc::new(Stop::new());
    let _signals = SignalScope::install(stop.clone(), guard.clone(), false);
    let mut phases = vec![phase("idle", cfg, &cpus, &guard, &stop)?];
    if cfg.load && !stop.is_set() {
        let done = Arc::new(AtomicBool::new(false));
        let loads: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                let done = done.clone();
                std::thread::spawn(move || {
                    let _ = sched::set_affinity(0, &CpuSet::of(&[cpu]));
                    let mut w = crate::workload::memwalk::MemWalk::new(
                        4 << 20,
                        64,
                        crate::workload::memwalk::Pattern::Random,
                        cpu as u64,
                    );
                    while !done.load(Ordering::Relaxed) {
                        w.pass();
                        std::thread::yield_now();
                    }
                })
            })
            .collect();
        let r = phase("loaded", cfg, &cpus, &guard, &stop);
        done.store(true, Ordering::Relaxed);
        for l in loads {
            let _ = l.join();
        }
        phases.push(r?);
    }
    for e in guard.restore() {
        eprintln!("schedlab probe: could not restore: {e}");
    }
    let (irq, rt) = kernel_threads();
    let cmdline = std::fs::read_to_string("/proc/cmdline").unwrap_or_default();
    let preempt_rt = std::path::Path::new("/sys/kernel/realtime").exists();
    Ok(ProbeReport {
        interval_ns: cfg.interval,
        priority: cfg.priority,
        phases,
        irq_threads: irq,
        other_rt_threads: rt,
        threaded_irqs: preempt_rt || cmdline.split_whitespace().any(|w| w == "threadirqs"),
        preempt_rt,
    })
}

impl ProbeReport {
    pub fn render(&self) -> String {
        let mut s = format!(
            "timer wake-up latency: SCHED_FIFO {} thread per CPU, interval {} us (cyclictest -S -p{} -i{})\n",
            self.priority,
            self.interval_ns / 1000,
            self.priority,
            self.interval_ns / 1000
        );
        let us = |ns: u64| format!("{:.1}", ns as f64 / 1000.0);
        for p in &self.phases {
            s += &format!("\n{}:\n  {:<5} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}  histogram (us: <5 <10 <20 <50 <100 <200 <500 <1000 <10000 more)\n", p.name, "cpu", "samples", "min us", "avg us", "p99 us", "p99.9 us", "max us");
            for c in &p.cpus {
                s += &format!(
                    "  {:<5} {:>8} {:>9} {:>9.1} {:>9} {:>9} {:>9}  {:?}\n",
                    c.cpu,
                    c.stats.count,
                    us(c.stats.min),
                    c.stats.mean / 1000.0,
                    us(c.stats.p99),
                    us(c.stats.p999),
                    us(c.stats.max),
                    c.histogram
                );
            }
            s += &format!(
                "  {:<5} {:>8} {:>9} {:>9.1} {:>9} {:>9} {:>9}\n",
                "all",
                p.all.count,
                us(p.all.min),
                p.all.mean / 1000.0,
                us(p.all.p99),
                us(p.all.p999),
                us(p.all.max)
            );
        }
        s += &format!(
            "\nIRQ threads ({}; threaded IRQs: {}, PREEMPT_RT: {}):\n",
            self.irq_threads.len(),
            if self.threaded_irqs { "yes" } else { "no (only interrupts requested as threaded)" },
            if self.preempt_rt { "yes" } else { "no" }
        );
        for t in &self.irq_threads {
            s += &format!(
                "  {:>7} {:<24} {} {}{}\n",
                t.pid,
                t.name,
                t.policy,
                t.priority,
                if t.priority >= self.priority { "  (at or above the probe)" } else { "" }
            );
        }
        s += "other real-time threads:\n";
        for t in &self.other_rt_threads {
            s += &format!("  {:>7} {:<24} {} {}\n", t.pid, t.name, t.policy, t.priority);
        }
        s
    }
}
