//! Counters the job bodies publish themselves, for machines whose kernel
//! offers no hardware events (most VMs: `perf stat -e cycles` says
//! `<not supported>`). A workload that knows what it does counts it — the
//! `memwalk` workload its cache-line touches and its writes to lines of its
//! shared-data group — and adds the counts to the slot of the CPU it runs on
//! (`sched_getcpu`), with relaxed atomic adds: no lock, no system call
//! besides the vDSO-backed CPU lookup, one cache line per CPU.
//!
//! What the counts mean, as [`schedlab_policy::Counters`] fields:
//! `cache_references` — cache lines the bodies on the CPU touched (private
//! and shared); `coherence_misses` — the writes among them to lines of a
//! shared-data group (lines other CPUs' tasks write too): each is a line
//! another core may hold modified, the cause of HITM events, so the count
//! is a proxy for them (an upper bound on the transfers they cause, not the
//! hardware's count). Instructions, cycles and misses are not counted.

use schedlab_policy::{Counters, CountersUnavailable, Cpu};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// One CPU's counts, alone on its cache line (two, with the adjacent-line
/// prefetcher) so CPUs do not share lines.
#[repr(align(128))]
#[derive(Default)]
struct Slot {
    lines: AtomicU64,
    shared_writes: AtomicU64,
}

fn slots() -> &'static [Slot] {
    static SLOTS: OnceLock<Box<[Slot]>> = OnceLock::new();
    SLOTS.get_or_init(|| {
        // SAFETY: sysconf has no memory-safety preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.clamp(1, 4096) as usize;
        (0..n).map(|_| Slot::default()).collect()
    })
}

/// The CPU the calling thread runs on.
pub fn current_cpu() -> usize {
    // SAFETY: no preconditions; -1 on failure.
    let c = unsafe { libc::sched_getcpu() };
    c.max(0) as usize
}

/// Adds what the calling thread just did to its CPU's counts: `lines`
/// cache lines touched, `shared_writes` of them writes to shared-data lines.
#[inline]
pub fn publish(lines: u64, shared_writes: u64) {
    publish_on(current_cpu(), lines, shared_writes);
}

/// As [`publish`], on CPU `cpu`.
#[inline]
pub fn publish_on(cpu: usize, lines: u64, shared_writes: u64) {
    if let Some(s) = slots().get(cpu) {
        s.lines.fetch_add(lines, Ordering::Relaxed);
        if shared_writes > 0 {
            s.shared_writes.fetch_add(shared_writes, Ordering::Relaxed);
        }
    }
}

/// CPU `cpu`'s counts since the process started: (lines, shared writes).
pub fn totals(cpu: usize) -> Option<(u64, u64)> {
    slots().get(cpu).map(|s| (s.lines.load(Ordering::Relaxed), s.shared_writes.load(Ordering::Relaxed)))
}

/// The published counts of a run's CPUs, from the moment it was opened.
#[derive(Debug)]
pub struct Published {
    base: Vec<(u64, u64)>,
}

impl Published {
    /// Counts of CPUs `0..cpus` from now on.
    pub fn open(cpus: u32) -> Published {
        Published { base: (0..cpus as usize).map(|c| totals(c).unwrap_or((0, 0))).collect() }
    }

    /// `cpu`'s counts since [`Published::open`].
    pub fn read(&self, cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        let Some(&(l0, s0)) = self.base.get(cpu as usize) else {
            return Err(CountersUnavailable::UnknownCpu { cpu, cpus: self.base.len() as u32 });
        };
        let (l, s) = totals(cpu as usize).unwrap_or((l0, s0));
        Ok(Counters { cache_references: Some(l - l0), coherence_misses: Some(s - s0), ..Counters::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_per_cpu_from_the_opening() {
        let before = Published::open(2);
        publish_on(1, 64, 16);
        publish_on(1, 64, 0);
        let c = before.read(1).unwrap();
        assert!(c.cache_references.unwrap() >= 128, "{c:?}");
        assert!(c.coherence_misses.unwrap() >= 16, "{c:?}");
        let (n, _) = totals(1).unwrap();
        assert!(n >= 128);
        assert_eq!(c.instructions, None);
        assert_eq!(before.read(2), Err(CountersUnavailable::UnknownCpu { cpu: 2, cpus: 2 }));
    }
}
