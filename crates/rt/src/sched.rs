//! Linux scheduling classes and affinities of threads: `sched_setattr` /
//! `sched_getattr` (via `syscall`, glibc has no wrapper) and
//! `sched_setaffinity`.

use std::io;

pub const SCHED_OTHER: u32 = 0;
pub const SCHED_FIFO: u32 = 1;
pub const SCHED_RR: u32 = 2;
pub const SCHED_BATCH: u32 = 3;
pub const SCHED_IDLE: u32 = 5;
pub const SCHED_DEADLINE: u32 = 6;
/// `sched_flags`: children of the thread start at SCHED_OTHER.
pub const FLAG_RESET_ON_FORK: u64 = 0x01;
/// `sched_flags`: a SCHED_DEADLINE thread may reclaim bandwidth left unused
/// by the others (GRUB) instead of being throttled at runtime exhaustion.
pub const FLAG_RECLAIM: u64 = 0x02;
/// `sched_flags`: SIGXCPU when a SCHED_DEADLINE thread overruns its runtime.
pub const FLAG_DL_OVERRUN: u64 = 0x04;

/// `struct sched_attr`, SCHED_ATTR_SIZE_VER0 (48 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchedAttr {
    pub size: u32,
    pub policy: u32,
    pub flags: u64,
    pub nice: i32,
    pub priority: u32,
    pub runtime: u64,
    pub deadline: u64,
    pub period: u64,
}

/// A thread's scheduling parameters, as schedlab sets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// SCHED_OTHER with this nice value.
    Other { nice: i32 },
    /// SCHED_FIFO at this priority (1..=99).
    Fifo { priority: u32 },
    /// SCHED_DEADLINE with runtime ≤ deadline ≤ period (ns); `reclaim`:
    /// SCHED_FLAG_RECLAIM (GRUB bandwidth reclaiming). Always with
    /// SCHED_FLAG_DL_OVERRUN: SIGXCPU at a runtime overrun, which
    /// [`crate::overrun`] turns into the job's WCET violation.
    Deadline { runtime: u64, deadline: u64, period: u64, reclaim: bool },
}

impl Class {
    pub fn attr(self) -> SchedAttr {
        let size = std::mem::size_of::<SchedAttr>() as u32;
        match self {
            Class::Other { nice } => SchedAttr { size, policy: SCHED_OTHER, nice, ..Default::default() },
            Class::Fifo { priority } => SchedAttr { size, policy: SCHED_FIFO, priority, ..Default::default() },
            Class::Deadline { runtime, deadline, period, reclaim } => {
                let flags = FLAG_RESET_ON_FORK | FLAG_DL_OVERRUN | if reclaim { FLAG_RECLAIM } else { 0 };
                SchedAttr { size, policy: SCHED_DEADLINE, flags, runtime, deadline, period, ..Default::default() }
            }
        }
    }
    pub fn describe(self) -> String {
        match self {
            Class::Other { nice } => format!("SCHED_OTHER nice {nice}"),
            Class::Fifo { priority } => format!("SCHED_FIFO {priority}"),
            Class::Deadline { runtime, deadline, period, reclaim } => {
                format!(
                    "SCHED_DEADLINE runtime {runtime} ns, deadline {deadline} ns, period {period} ns{}",
                    if reclaim { ", reclaim" } else { "" }
                )
            }
        }
    }
}

/// Is this a real-time policy (FIFO, RR, DEADLINE)?
pub fn is_realtime(policy: u32) -> bool {
    matches!(policy, SCHED_FIFO | SCHED_RR | SCHED_DEADLINE)
}

/// Sets the scheduling attributes of thread `tid` (0: the caller).
pub fn set_attr(tid: i32, attr: &SchedAttr) -> io::Result<()> {
    if attr.flags & FLAG_DL_OVERRUN != 0 {
        // Never SIGXCPU's default action (it kills the process).
        crate::overrun::install();
    }
    // SAFETY: `attr` points to a valid, correctly sized sched_attr.
    let r = unsafe { libc::syscall(libc::SYS_sched_setattr, tid, attr as *const SchedAttr, 0u32) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Reads the scheduling attributes of thread `tid` (0: the caller).
pub fn get_attr(tid: i32) -> io::Result<SchedAttr> {
    let mut attr = SchedAttr::default();
    // SAFETY: the buffer is as large as the size we pass.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_getattr,
            tid,
            &mut attr as *mut SchedAttr,
            std::mem::size_of::<SchedAttr>() as u32,
            0u32,
        )
    };
    if r == 0 {
        attr.size = std::mem::size_of::<SchedAttr>() as u32;
        Ok(attr)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sets `tid`'s scheduling class.
pub fn set_class(tid: i32, class: Class) -> io::Result<()> {
    set_attr(tid, &class.attr())
}

/// A CPU mask.
#[derive(Clone, Copy)]
pub struct CpuSet(pub libc::cpu_set_t);

impl CpuSet {
    pub fn of(cpus: &[u32]) -> CpuSet {
        // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
        let mut s: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &c in cpus {
            // SAFETY: CPU_SET bounds-checks against the set's size.
            unsafe { libc::CPU_SET(c as usize, &mut s) };
        }
        CpuSet(s)
    }
    pub fn cpus(&self) -> Vec<u32> {
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| {
                // SAFETY: c < CPU_SETSIZE.
                unsafe { libc::CPU_ISSET(c, &self.0) }
            })
            .map(|c| c as u32)
            .collect()
    }
}

impl std::fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.cpus())
    }
}

impl PartialEq for CpuSet {
    fn eq(&self, o: &CpuSet) -> bool {
        self.cpus() == o.cpus()
    }
}

pub fn set_affinity(tid: i32, set: &CpuSet) -> io::Result<()> {
    // SAFETY: the mask is a valid cpu_set_t of the given size.
    let r = unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set.0) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

pub fn get_affinity(tid: i32) -> io::Result<CpuSet> {
    let mut s = CpuSet::of(&[]);
    // SAFETY: the mask is a valid out buffer of the given size.
    let r = unsafe { libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut s.0) };
    if r == 0 {
        Ok(s)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The CPUs that are online (`/sys/devices/system/cpu/online`, e.g. `0-1`).
pub fn online_cpus() -> Vec<u32> {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|s| parse_cpu_list(s.trim()))
        .unwrap_or_else(|| (0..std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as u32).collect())
}

/// Parses a kernel CPU list (`0-3,6,8-9`).
pub fn parse_cpu_list(s: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    if s.is_empty() {
        return Some(out);
    }
    for part in s.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                out.extend(a..=b);
            }
            None => out.push(part.trim().parse().ok()?),
        }
    }
    Some(out)
}

/// Formats CPUs as a kernel CPU list (`0-1`, `3`).
pub fn format_cpu_list(cpus: &[u32]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    parts.join(",")
}

/// Names the calling thread (at most 15 bytes are kept).
pub fn name_thread(name: &str) {
    let mut b: Vec<u8> = name.bytes().filter(|&c| c != 0).take(15).collect();
    b.push(0);
    // SAFETY: NUL-terminated buffer of at most 16 bytes.
    unsafe { libc::prctl(libc::PR_SET_NAME, b.as_ptr() as libc::c_ulong, 0, 0, 0) };
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(parse_cpu_list("0-3,6,8-9"), Some(vec![0, 1, 2, 3, 6, 8, 9]));
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("x"), None);
    }
    #[test]
    fn sched_attr_has_the_kernel_size() {
        assert_eq!(std::mem::size_of::<SchedAttr>(), 48);
    }
}
