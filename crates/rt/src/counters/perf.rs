//! Per-CPU counters for `Kernel::counters` on real hardware: Linux
//! `perf_event_open(2)` events counting everything that runs on one CPU
//! (pid −1, that CPU), opened once at start-up and read with `read(2)`.
//!
//! Hardware events (instructions, cycles, last-level cache references and
//! misses) need a PMU; most VMs have none and the kernel answers ENOENT or
//! EOPNOTSUPP — then the reading has no hardware count, and when no event
//! at all could be opened the answer is `CountersUnavailable::Refused` with
//! the errno of the first refusal. Software events (cpu-clock,
//! context-switches) work without a PMU and are offered when they open.
//! Coherence (HITM) misses need model-specific raw events and are not
//! counted.

use schedlab_policy::{Counters, CountersUnavailable, Cpu};

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_SOFTWARE: u32 = 1;
const HW_CPU_CYCLES: u64 = 0;
const HW_INSTRUCTIONS: u64 = 1;
const HW_CACHE_REFERENCES: u64 = 2;
const HW_CACHE_MISSES: u64 = 3;
const SW_CPU_CLOCK: u64 = 0;
const SW_CONTEXT_SWITCHES: u64 = 3;

/// `struct perf_event_attr`, as far as `PERF_ATTR_SIZE_VER0` (64 bytes).
#[repr(C)]
#[derive(Default)]
struct Attr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    /// Bit flags: 0 disabled, 1 inherit, ...; none set (counting at once).
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

/// One CPU's events: (field, fd), fd −1 when the event did not open.
#[derive(Debug)]
struct CpuEvents {
    fds: [i32; 6],
}

/// Which field of [`Counters`] each event fills, in `CpuEvents::fds` order.
const EVENTS: [(u32, u64); 6] = [
    (PERF_TYPE_HARDWARE, HW_INSTRUCTIONS),
    (PERF_TYPE_HARDWARE, HW_CPU_CYCLES),
    (PERF_TYPE_HARDWARE, HW_CACHE_REFERENCES),
    (PERF_TYPE_HARDWARE, HW_CACHE_MISSES),
    (PERF_TYPE_SOFTWARE, SW_CPU_CLOCK),
    (PERF_TYPE_SOFTWARE, SW_CONTEXT_SWITCHES),
];

/// The counters of the platform's CPUs.
#[derive(Debug)]
pub struct PerfCounters {
    cpus: Vec<CpuEvents>,
    /// The errno of the first event refused, if any.
    refused: Option<i32>,
}

fn open(kind: u32, config: u64, cpu: Cpu) -> Result<i32, i32> {
    open_event(kind, config, -1, cpu as i32)
}

/// Opens one counting event: `pid` −1 with a CPU counts everything on that
/// CPU; `pid` 0 with CPU −1 counts the calling thread wherever it runs
/// (`perf_event_open(2)`). The fd, or the errno of the refusal.
pub(crate) fn open_event(kind: u32, config: u64, pid: i32, cpu: i32) -> Result<i32, i32> {
    let attr = Attr { kind, size: std::mem::size_of::<Attr>() as u32, config, ..Attr::default() };
    // SAFETY: a valid, fully initialised perf_event_attr of the size given;
    // no group, no flags (counting starts at once).
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const Attr,
            pid as libc::pid_t,
            cpu as libc::c_int,
            -1 as libc::c_int,
            0 as libc::c_ulong,
        )
    };
    if fd < 0 {
        Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
    } else {
        Ok(fd as i32)
    }
}

/// Reads a counting event's value, `None` when the read fails.
pub(crate) fn read_event(fd: i32) -> Option<u64> {
    let mut x = 0u64;
    // SAFETY: reads 8 bytes into a u64 from a perf event fd the caller owns.
    let n = unsafe { libc::read(fd, &mut x as *mut u64 as *mut libc::c_void, 8) };
    (n == 8).then_some(x)
}

impl PerfCounters {
    /// Opens every event on CPUs `0..cpus`; what the kernel refuses is
    /// remembered, not an error.
    pub fn open(cpus: u32) -> PerfCounters {
        let mut refused = None;
        let cpus = (0..cpus)
            .map(|c| {
                let mut fds = [-1; 6];
                for (i, &(kind, config)) in EVENTS.iter().enumerate() {
                    match open(kind, config, c) {
                        Ok(fd) => fds[i] = fd,
                        Err(e) => {
                            refused.get_or_insert(e);
                        }
                    }
                }
                CpuEvents { fds }
            })
            .collect();
        PerfCounters { cpus, refused }
    }

    /// Whether any hardware event opened (the machine has a usable PMU).
    pub fn hardware(&self) -> bool {
        self.cpus.iter().any(|c| c.fds[..4].iter().any(|&fd| fd >= 0))
    }

    /// The counts of `cpu` since the events were opened.
    pub fn read(&self, cpu: Cpu) -> Result<Counters, CountersUnavailable> {
        let Some(c) = self.cpus.get(cpu as usize) else {
            return Err(CountersUnavailable::UnknownCpu { cpu, cpus: self.cpus.len() as u32 });
        };
        if c.fds.iter().all(|&fd| fd < 0) {
            return Err(CountersUnavailable::Refused { errno: self.refused.unwrap_or(0) });
        }
        let mut v = [None; 6];
        for (i, &fd) in c.fds.iter().enumerate() {
            if fd < 0 {
                continue;
            }
            v[i] = read_event(fd);
        }
        Ok(Counters {
            instructions: v[0],
            cycles: v[1],
            cache_references: v[2],
            cache_misses: v[3],
            coherence_misses: None,
            cpu_clock: v[4],
            context_switches: v[5],
        })
    }
}

impl Drop for PerfCounters {
    fn drop(&mut self) {
        for c in &self.cpus {
            for &fd in c.fds.iter().filter(|&&fd| fd >= 0) {
                // SAFETY: closes an fd this value opened and owns.
                unsafe { libc::close(fd) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attr_is_perf_attr_size_ver0() {
        assert_eq!(std::mem::size_of::<Attr>(), 64);
    }

    /// On this machine: either some event opens and CPU 0 reads (the
    /// software cpu-clock grows), or every event is refused with a reason.
    #[test]
    fn counters_open_or_say_why_not() {
        let p = PerfCounters::open(1);
        eprintln!("CPU 0 counters: {:?} (first refusal: errno {:?})", p.read(0), p.refused);
        match p.read(0) {
            Ok(a) => {
                let spin = std::time::Instant::now();
                while spin.elapsed() < std::time::Duration::from_millis(2) {}
                let b = p.read(0).unwrap();
                if let (Some(x), Some(y)) = (a.cpu_clock, b.cpu_clock) {
                    assert!(y >= x);
                }
                assert_eq!(a.has_hardware(), p.hardware(), "{a:?}");
            }
            Err(e) => {
                assert!(matches!(e, CountersUnavailable::Refused { errno } if errno > 0), "{e}");
            }
        }
        assert_eq!(p.read(1), Err(CountersUnavailable::UnknownCpu { cpu: 1, cpus: 1 }));
    }
}
