//! Calibration of the CPU spin: how many nanoseconds of thread CPU time one
//! iteration of the spin kernel ([`crate::workload::spin::kernel`]) takes
//! on this machine. Measured once per machine (31 trials of about 2 ms of
//! CPU time each, timed by `CLOCK_THREAD_CPUTIME_ID` so preemption does not
//! distort them; the 10th percentile is kept) and cached in
//! `$SCHEDLAB_CACHE_DIR`, else `$XDG_CACHE_HOME/schedlab`, else
//! `~/.cache/schedlab`, else `/var/tmp/schedlab`, in a file named after the
//! machine's identity (machine id, CPU model, CPU count, kernel release).

use crate::clock;
use crate::workload::spin;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A calibration result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The machine identity it was measured on.
    pub machine: String,
    /// Thread CPU time per spin iteration (ns), the 10th percentile of the trials.
    pub ns_per_iter: f64,
    /// (max - min) / kept value over the trials: the measured noise.
    pub spread: f64,
    pub trials: u32,
    /// Where it was read from or written to.
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// Whether it came from the cache.
    #[serde(skip)]
    pub cached: bool,
}

impl Calibration {
    /// Iterations for `ns` of CPU time.
    pub fn iterations(&self, ns: u64) -> u64 {
        (ns as f64 / self.ns_per_iter).round() as u64
    }
}

/// The machine identity calibrations are keyed by.
pub fn machine_identity() -> String {
    let id = std::fs::read_to_string("/etc/machine-id")
        .or_else(|_| std::fs::read_to_string("/var/lib/dbus/machine-id"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| hostname());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown-cpu".into());
    let release =
        std::fs::read_to_string("/proc/sys/kernel/osrelease").map(|s| s.trim().to_string()).unwrap_or_default();
    // The spin kernel's speed depends on how it was compiled.
    let build = if cfg!(debug_assertions) { "debug" } else { "release" };
    format!("{id}|{model}|{}cpus|{release}|{build}", crate::sched::online_cpus().len())
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown-host".into())
}

/// The cache directory.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SCHEDLAB_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("schedlab");
    }
    if let Some(h) = std::env::var_os("HOME") {
        return PathBuf::from(h).join(".cache").join("schedlab");
    }
    PathBuf::from("/var/tmp/schedlab")
}

fn cache_file(dir: &std::path::Path, machine: &str) -> PathBuf {
    // FNV-1a of the identity: a short, stable file name.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in machine.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    dir.join(format!("spin-{h:016x}.json"))
}

/// Measures the spin kernel now (about 70 ms of CPU time).
pub fn measure() -> Calibration {
    // Size a trial to about 2 ms from a first rough estimate.
    let t = clock::thread_cpu();
    spin::kernel(200_000);
    let rough = ((clock::thread_cpu() - t) as f64 / 200_000.0).max(0.01);
    let n = ((2_000_000.0 / rough) as u64).max(1000);
    for _ in 0..3 {
        spin::kernel(n);
    }
    let trials = 31u32;
    let mut v: Vec<f64> = (0..trials)
        .map(|_| {
            let t = clock::thread_cpu();
            spin::kernel(n);
            (clock::thread_cpu() - t) as f64 / n as f64
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    // The 10th percentile: the speed of an undisturbed core (trials slowed
    // by a co-runner on the same physical core or by cache pollution are
    // above it). A job then consumes the requested CPU time when it runs
    // undisturbed, and more under interference — as a fixed amount of real
    // work would.
    let p10 = v[v.len() / 10];
    Calibration {
        machine: machine_identity(),
        ns_per_iter: p10,
        spread: (v[v.len() - 1] - v[0]) / p10,
        trials,
        path: None,
        cached: false,
    }
}

/// The cached calibration for this machine, or a fresh one (then cached;
/// a cache that cannot be written is not an error). `force`: measure again.
pub fn load_or_measure(dir: Option<PathBuf>, force: bool) -> Calibration {
    let machine = machine_identity();
    let dir = dir.unwrap_or_else(cache_dir);
    let path = cache_file(&dir, &machine);
    if !force {
        if let Some(mut c) =
            std::fs::read_to_string(&path).ok().and_then(|s| serde_json::from_str::<Calibration>(&s).ok())
        {
            if c.machine == machine && c.ns_per_iter > 0.0 && c.ns_per_iter.is_finite() {
                c.path = Some(path);
                c.cached = true;
                return c;
            }
        }
    }
    let mut c = measure();
    if std::fs::create_dir_all(&dir).is_ok() {
        let tmp = path.with_extension("tmp");
        if std::fs::write(&tmp, serde_json::to_string_pretty(&c).unwrap_or_default()).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }
    c.path = Some(path);
    c
}
