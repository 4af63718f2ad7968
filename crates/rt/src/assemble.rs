//! Turns what a run recorded — the workers' records (releases, first
//! instructions, completions, misses, exceptions) and, when available, the
//! kernel's sched_switch / sched_wakeup events — into a schedlab trace:
//! times relative to the synchronous release, switch-to / switch-away from
//! the kernel's own context switches (so the kernel's decisions are what
//! the validator checks), overhead intervals, and an integrity record.
//!
//! A job's execution window is [max(release, previous completion),
//! completion]; its running segments are the thread's kernel running
//! intervals clipped to that window. Kernel times have µs resolution (read
//! as the middle of the µs) and are widened by half a µs when clipped to
//! the workers' ns-exact times. Without the kernel events, a job runs as one
//! segment from its first instruction to its completion on the CPU it
//! started on (preemptions and migrations are then invisible).

use crate::ftrace::KernelEvents;
use crate::overheads::Samples;
use crate::record::{Kind, Record};
use crate::stall::{Stall, THRESHOLD_NS};
use crate::tracebuf::Collected;
use schedlab_trace::{Event, OverheadKind, SwitchReason};
use serde::Serialize;

/// Whether the trace lost anything, per thread and in the kernel.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Integrity {
    pub threads: Vec<ThreadIntegrity>,
    /// Kernel events lost by the tracefs buffer (None: no kernel trace).
    pub kernel_lost: Option<u64>,
    /// Kernel trace lines that could not be parsed.
    pub kernel_unparsed: u64,
    /// Jobs whose kernel running intervals did not hold their first
    /// instruction and completion (drawn as one segment on the CPU they
    /// started on, so a preemption of theirs would be missing): with a
    /// kernel trace, the trace is incomplete unless this is 0.
    pub kernel_unmatched_jobs: Vec<(u32, u64)>,
    /// Switches to a run thread missing from the kernel's trace while the
    /// switch away from it is there: the running interval starts at the
    /// thread's wake-up on that CPU instead (see `runs_of`).
    pub kernel_switches_repaired: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadIntegrity {
    pub name: String,
    pub task: Option<u32>,
    pub produced: u64,
    pub collected: u64,
    pub dropped: u64,
    /// Sequence numbers 0..produced all present, in order.
    pub contiguous: bool,
}

impl Integrity {
    /// Nothing was lost anywhere.
    pub fn complete(&self) -> bool {
        self.threads.iter().all(|t| t.contiguous)
            && self.kernel_lost.unwrap_or(0) == 0
            && self.kernel_unparsed == 0
            && self.kernel_unmatched_jobs.is_empty()
    }
}

#[derive(Debug, Clone, Default)]
struct Job {
    release: u64,
    deadline: u64,
    start: Option<(u64, u32, bool)>,
    complete: Option<(u64, u32, u64, bool)>,
    miss: bool,
}

/// A running interval of a thread: [from, to) on `cpu`; `runnable`: it
/// was preempted at `to` (not sleeping).
#[derive(Debug, Clone, Copy)]
struct Run {
    from: u64,
    to: u64,
    cpu: u32,
    runnable: bool,
}

fn runs_of(k: &KernelEvents, tid: i32, end: u64) -> (Vec<Run>, u64) {
    let mut out = Vec::new();
    let mut open: Option<(u64, u32)> = None;
    let mut last_close = 0u64;
    let mut repaired = 0u64;
    for s in &k.switches {
        if s.prev == tid {
            match open.take() {
                Some((from, cpu)) => out.push(Run { from, to: s.t, cpu, runnable: s.prev_runnable }),
                None => {
                    // The kernel's trace lacks the switch *to* the thread
                    // (seen on this VM when the CPU's previous thread belonged
                    // to the VM's init process, `entries-written` equal to
                    // `entries-in-buffer`: not a buffer loss). Since its last
                    // switch-out it ran on this CPU only (a switch away from
                    // another CPU would be there), from its wake-up (on
                    // whichever target) at the earliest.
                    let woke = k.wakeups.iter().rev().find(|w| w.pid == tid && w.t >= last_close && w.t <= s.t);
                    if let Some(w) = woke {
                        out.push(Run { from: w.t, to: s.t, cpu: s.cpu, runnable: s.prev_runnable });
                        repaired += 1;
                    }
                }
            }
            last_close = s.t;
        }
        if s.next == tid {
            open = Some((s.t, s.cpu));
        }
    }
    if let Some((from, cpu)) = open {
        out.push(Run { from, to: end, cpu, runnable: true });
    }
    (out, repaired)
}

/// A CPU taken from a job of the run by a thread outside it.
struct Foreign {
    from: u64,
    cpu: u32,
    pid: i32,
    ns: u64,
}

/// Intervals longer than [`THRESHOLD_NS`] in which a thread outside the run
/// (a kernel thread or another process at a real-time priority) preempted a
/// job of the run and held its CPU: until the CPU's next recorded switch
/// (the trace records the switches into and out of the run's threads, so
/// the CPU ran threads outside the run, or idled with nothing of the run to
/// pull, until then). The policy's schedule cannot be expected there: a
/// platform stall (the kernel backend's G-FP run saw a CPU held 2.5 ms
/// while a job waited).
fn foreign_preemptions(k: &KernelEvents, tids: &[i32]) -> Vec<Foreign> {
    let ours = |pid: i32| pid != 0 && tids.contains(&pid);
    let mut out = Vec::new();
    for (i, s) in k.switches.iter().enumerate() {
        if !(ours(s.prev) && s.prev_runnable && s.next != 0 && !ours(s.next)) {
            continue;
        }
        let Some(end) = k.switches[i + 1..].iter().find(|x| x.cpu == s.cpu) else { continue };
        let ns = end.t.saturating_sub(s.t);
        if ns > THRESHOLD_NS {
            out.push(Foreign { from: s.t, cpu: s.cpu, pid: s.next, ns });
        }
    }
    out
}

/// What assembling produced.
pub struct Assembled {
    pub events: Vec<Event>,
    pub overheads: Samples,
    pub integrity: Integrity,
    /// End of the observed schedule (ns from the synchronous release).
    pub horizon: u64,
    /// Platform stalls (intervals that are not overheads; see [`crate::stall`]).
    pub stalls: Vec<Stall>,
}

/// Everything measured about one interval of a release: an overhead
/// sample and event, or a stall when it is longer than the threshold.
struct Measured {
    events: Vec<(u64, u8, Event)>,
    samples: Samples,
    stalls: Vec<Stall>,
}

impl Measured {
    fn interval(&mut self, t: u64, cpu: u32, kind: OverheadKind, dur: u64, task: u32, job: u64) {
        if dur > THRESHOLD_NS {
            self.stall(t, format!("timer-lateness ({})", kind.name()), task, job, dur);
        } else {
            self.samples.push(kind, dur);
            self.events.push((t, 5, Event::Overhead { t, cpu, kind, dur }));
        }
    }
    fn stall(&mut self, t: u64, kind: String, task: u32, job: u64, ns: u64) {
        self.events.push((
            t,
            6,
            Event::Note {
                t,
                cpu: None,
                name: crate::stall::PLATFORM_STALL.into(),
                data: serde_json::json!({"kind": kind, "task": task, "job": job, "ns": ns}),
            },
        ));
        self.stalls.push(Stall { t, kind, job: Some((task, job)), ns });
    }
}

/// Overhead intervals of one CPU made disjoint (a later one starts where
/// the earlier ends), so the totals per CPU never exceed the time the
/// clock allows; the samples keep each interval whole.
fn disjoint(events: &mut Vec<(u64, u8, Event)>) {
    events.sort_by_key(|(t, rank, _)| (*t, *rank));
    let mut until: Vec<u64> = Vec::new();
    events.retain_mut(|(at, _, e)| {
        let Event::Overhead { t, cpu, dur, .. } = e else { return true };
        let c = *cpu as usize;
        if until.len() <= c {
            until.resize(c + 1, 0);
        }
        let end = *t + *dur;
        if end <= until[c] {
            return false;
        }
        let from = (*t).max(until[c]);
        *dur = end - from;
        *t = from;
        *at = from;
        until[c] = end;
        true
    });
    events.sort_by_key(|(t, rank, _)| (*t, *rank));
}

const HALF_US: u64 = 500;

/// Assembles the trace. `tids[i]`: the thread of task i; `t0`: the
/// synchronous release (absolute ns).
pub fn assemble(
    collected: &[Collected],
    tids: &[i32],
    kernel: Option<&KernelEvents>,
    t0: u64,
    end_abs: u64,
) -> Assembled {
    let rel = |t: u64| t.saturating_sub(t0);
    let mut m =
        Measured { events: vec![(0, 0, Event::SysRelease { t: 0 })], samples: Samples::default(), stalls: Vec::new() };
    // Every job's running segments (absolute), for the per-CPU occupancy check.
    let mut busy: Vec<(u32, u64, u64, (u32, u64))> = Vec::new();
    struct Pending {
        tid: i32,
        task: u32,
        job: u64,
        release: u64,
        start: (u64, u32),
    }
    let mut pending: Vec<Pending> = Vec::new();
    let mut integrity = Integrity::default();

    for c in collected {
        integrity.threads.push(ThreadIntegrity {
            name: c.name.clone(),
            task: c.task,
            produced: c.produced,
            collected: c.records.len() as u64,
            dropped: c.dropped,
            contiguous: c.contiguous(),
        });
        let Some(task) = c.task else { continue };
        let tid = tids.get(task as usize).copied().unwrap_or(0);
        let mut jobs: std::collections::BTreeMap<u64, Job> = std::collections::BTreeMap::new();
        for r in &c.records {
            let Record { t, kind, cpu, job, a, b, .. } = *r;
            match kind {
                Kind::Release => {
                    let j = jobs.entry(job).or_default();
                    j.release = t;
                    j.deadline = a;
                }
                Kind::Start => jobs.entry(job).or_default().start = Some((t, cpu, a == 1)),
                Kind::Complete => jobs.entry(job).or_default().complete = Some((t, cpu, a, b == 1)),
                Kind::Miss => jobs.entry(job).or_default().miss = true,
                Kind::Budget => m.events.push((rel(t), 3, Event::BudgetExhausted { t: rel(t), task, job })),
                Kind::Skip => m.events.push((rel(t), 6, Event::Note { t: rel(t), cpu: None, name: "skipped-release".into(), data: serde_json::json!({"task": task, "job": job}) })),
                Kind::ScopeTime => {
                    let s = crate::timing::unpack_scope(a, b);
                    m.events.push((
                        rel(t),
                        6,
                        Event::Note {
                            t: rel(t),
                            cpu: Some(cpu),
                            name: "scope-time".into(),
                            data: serde_json::json!({"task": task, "job": job, "label": s.label, "limit": s.limit, "ns": s.ns, "limit_ns": s.limit_ns}),
                        },
                    ))
                }
                Kind::Exception => m.events.push((
                    rel(t),
                    6,
                    Event::Note {
                        t: rel(t),
                        cpu: Some(cpu),
                        name: "timing-exception".into(),
                        data: serde_json::json!({"task": task, "job": job, "limit": if a == 1 { "wcet" } else { "deadline" }, "value": b}),
                    },
                )),
            }
        }
        let (runs, repaired) = kernel.map(|k| runs_of(k, tid, end_abs)).unwrap_or_default();
        integrity.kernel_switches_repaired += repaired;
        let mut prev_done = 0u64;
        for (&job, j) in &jobs {
            if j.deadline == 0 {
                continue; // no release record (cannot happen with contiguous records)
            }
            m.events.push((
                rel(j.release),
                2,
                Event::Release { t: rel(j.release), task, job, deadline: rel(j.deadline) },
            ));
            if j.miss {
                m.events.push((rel(j.deadline), 1, Event::DeadlineMiss { t: rel(j.deadline), task, job }));
            }
            let Some((start, start_cpu, slept)) = j.start else { continue };
            let window_from = j.release.max(prev_done);
            let window_to = j.complete.map_or(end_abs, |c| c.0);
            // Segments: kernel running intervals clipped to the window.
            let mut segs: Vec<(u64, u64, u32, bool)> = Vec::new();
            if !runs.is_empty() {
                for r in &runs {
                    let from = r.from.saturating_sub(HALF_US).max(window_from);
                    let to = (r.to + HALF_US).min(window_to);
                    if to > from || (to == from && j.complete.is_some_and(|c| c.0 == to) && segs.is_empty()) {
                        let from = segs.last().map_or(from, |l: &(u64, u64, u32, bool)| from.max(l.1));
                        if to >= from {
                            segs.push((from, to, r.cpu, r.runnable));
                        }
                    }
                }
                // The job's first instruction and completion must lie in its segments.
                if segs.is_empty()
                    || segs[0].0 > start
                    || segs.last().is_some_and(|l| j.complete.is_some_and(|c| l.1 < c.0))
                {
                    segs.clear();
                }
            }
            let exact = !segs.is_empty();
            if !exact && kernel.is_some() {
                integrity.kernel_unmatched_jobs.push((task, job));
            }
            if !exact {
                segs.push((start.max(window_from), window_to, start_cpu, true));
            }
            let mut exec = 0u64;
            let n = segs.len();
            for (i, &(from, to, cpu, runnable)) in segs.iter().enumerate() {
                m.events.push((rel(from), 4, Event::SwitchTo { t: rel(from), cpu, task, job }));
                busy.push((cpu, from, to, (task, job)));
                exec += to - from;
                let last = i + 1 == n;
                match (last, j.complete) {
                    (true, Some((ct, _, _, forced))) => {
                        let reason = if forced { SwitchReason::Abort } else { SwitchReason::Complete };
                        m.events.push((rel(ct), 1, Event::SwitchAway { t: rel(ct), cpu, task, job, reason, exec }));
                        m.events.push((rel(ct), 1, Event::Completion { t: rel(ct), cpu, task, job, exec, forced }));
                    }
                    (true, None) => {}
                    (false, _) => {
                        let reason = if runnable { SwitchReason::Preempt } else { SwitchReason::Block };
                        m.events.push((rel(to), 0, Event::SwitchAway { t: rel(to), cpu, task, job, reason, exec }));
                        if !runnable {
                            m.events.push((rel(to), 0, Event::Block { t: rel(to), task, job }));
                            let next = segs[i + 1].0;
                            m.events.push((rel(next), 3, Event::Resume { t: rel(next), task, job }));
                        }
                    }
                }
            }
            if slept && start >= j.release {
                if exact {
                    pending.push(Pending { tid, task, job, release: j.release, start: (start, start_cpu) });
                } else {
                    m.interval(rel(j.release), start_cpu, OverheadKind::ReleaseLatency, start - j.release, task, job);
                }
            }
            prev_done = window_to;
        }
    }

    // Kernel-side overheads of releases, only where no job of the run
    // occupied the CPU (so they are the kernel's time, not a job's).
    if let Some(k) = kernel {
        let free = |cpu: u32, a: u64, b: u64| !busy.iter().any(|&(c, f, t, _)| c == cpu && f < b && t > a);
        // Free of every job but `own`.
        let free_but = |cpu: u32, a: u64, b: u64, own: (u32, u64)| {
            !busy.iter().any(|&(c, f, t, j)| j != own && c == cpu && f < b && t > a)
        };
        for p in &pending {
            let w =
                k.wakeups.iter().find(|w| w.pid == p.tid && w.t + HALF_US >= p.release && w.t <= p.start.0 + HALF_US);
            let sw = w.and_then(|w| {
                k.switches.iter().find(|s| s.next == p.tid && s.t + HALF_US >= w.t && s.t <= p.start.0 + HALF_US)
            });
            let (Some(w), Some(sw)) = (w, sw) else {
                // The kernel's trace lacks the wake-up or the switch to the
                // thread (see `runs_of`): the release latency is still the
                // worker's own measure when no other job held its CPU.
                if free_but(p.start.1, p.release, p.start.0, (p.task, p.job)) {
                    let d = p.start.0 - p.release;
                    m.interval(rel(p.release), p.start.1, OverheadKind::ReleaseLatency, d, p.task, p.job);
                }
                continue;
            };
            // Release latency counts only when no other job of the run held
            // the CPU meanwhile (waiting behind a higher-priority job is
            // interference, not latency).
            if free(sw.cpu, p.release, sw.t.saturating_sub(HALF_US)) {
                m.interval(
                    rel(p.release),
                    p.start.1,
                    OverheadKind::ReleaseLatency,
                    p.start.0 - p.release,
                    p.task,
                    p.job,
                );
            }
            let wt = w.t.max(p.release);
            if free(w.cpu, p.release, wt) {
                m.interval(rel(p.release), w.cpu, OverheadKind::Release, wt - p.release, p.task, p.job);
            }
            let st = sw.t.max(wt);
            let kind = if w.cpu != sw.cpu { OverheadKind::Ipi } else { OverheadKind::Schedule };
            if free(sw.cpu, wt, st) {
                m.interval(rel(wt), sw.cpu, kind, st - wt, p.task, p.job);
            }
            let first = p.start.0.max(st);
            m.interval(rel(st), sw.cpu, OverheadKind::ContextSwitch, first - st, p.task, p.job);
        }
        integrity.kernel_lost = Some(k.lost);
        integrity.kernel_unparsed = k.unparsed;
    }

    if let Some(k) = kernel {
        for st in foreign_preemptions(k, tids) {
            let kind = format!("foreign-thread (pid {})", st.pid);
            m.events.push((
                rel(st.from),
                6,
                Event::Note {
                    t: rel(st.from),
                    cpu: Some(st.cpu),
                    name: crate::stall::PLATFORM_STALL.into(),
                    data: serde_json::json!({"kind": kind, "ns": st.ns}),
                },
            ));
            m.stalls.push(Stall { t: rel(st.from), kind, job: None, ns: st.ns });
        }
    }

    // Same-instant order: switch-aways and completions, misses, releases,
    // resumes, switch-tos, overheads, policy events.
    disjoint(&mut m.events);
    let horizon = m.events.last().map_or(0, |e| e.0);
    let Measured { events, samples, stalls } = m;
    let mut out: Vec<Event> = events.into_iter().map(|(_, _, e)| e).collect();
    out.push(Event::Note {
        t: horizon,
        cpu: None,
        name: "rt-integrity".into(),
        data: serde_json::to_value(&integrity).unwrap_or_default(),
    });
    Assembled { events: out, overheads: samples, integrity, horizon, stalls }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftrace::{Switch, Wakeup};

    const T0: u64 = 1_000_000_000;

    fn records(task: u32, list: &[(u64, Kind, u64, u64)]) -> Collected {
        let records: Vec<Record> = list
            .iter()
            .enumerate()
            .map(|(i, &(t, kind, a, b))| Record { seq: i as u64, t: T0 + t, kind, cpu: 0, job: 0, a, b })
            .collect();
        Collected { name: format!("w{task}"), task: Some(task), produced: records.len() as u64, records, dropped: 0 }
    }

    #[test]
    fn a_switch_missing_from_the_kernel_trace_is_repaired_and_the_preemption_kept() {
        // Task 0 (tid 10) runs 0.05-3 ms, preempted by task 1 (tid 11) from
        // 1.04 to 2.06 ms; the kernel's trace lacks the switch to tid 10.
        let collected = vec![
            records(
                0,
                &[
                    (0, Kind::Release, T0 + 10_000_000, 0),
                    (50_000, Kind::Start, 1, 0),
                    (3_000_000, Kind::Complete, 2_000_000, 0),
                ],
            ),
            records(
                1,
                &[
                    (1_000_000, Kind::Release, T0 + 5_000_000, 0),
                    (1_050_000, Kind::Start, 1, 0),
                    (2_050_000, Kind::Complete, 1_000_000, 0),
                ],
            ),
        ];
        let sw =
            |t: u64, prev: i32, prev_runnable: bool, next: i32| Switch { t: T0 + t, cpu: 0, prev, prev_runnable, next };
        let k = KernelEvents {
            switches: vec![sw(1_040_000, 10, true, 11), sw(2_060_000, 11, false, 10), sw(3_010_000, 10, false, 0)],
            wakeups: vec![
                Wakeup { t: T0 + 20_000, cpu: 0, pid: 10, target: 0 },
                Wakeup { t: T0 + 1_030_000, cpu: 0, pid: 11, target: 0 },
            ],
            lost: 0,
            unparsed: 0,
        };
        let a = assemble(&collected, &[10, 11], Some(&k), T0, T0 + 4_000_000);
        assert_eq!(a.integrity.kernel_switches_repaired, 1);
        assert!(a.integrity.kernel_unmatched_jobs.is_empty(), "{:?}", a.integrity);
        assert!(a.integrity.complete());
        let preempted = a.events.iter().any(
            |e| matches!(e, Event::SwitchAway { task: 0, reason: SwitchReason::Preempt, t, .. } if *t == 1_040_500),
        );
        assert!(preempted, "task 0's preemption is in the trace: {:#?}", a.events);
        let to0 = a.events.iter().filter(|e| matches!(e, Event::SwitchTo { task: 0, .. })).count();
        assert_eq!(to0, 2, "task 0 runs twice");
        // Its release latency is still measured (the worker's own first instruction).
        assert!(
            a.events
                .iter()
                .any(|e| matches!(e, Event::Overhead { kind: OverheadKind::ReleaseLatency, dur: 50_000, .. })),
            "{:#?}",
            a.events
        );
    }

    #[test]
    fn overhead_intervals_of_a_cpu_are_made_disjoint() {
        let oh = |t: u64, cpu: u32, dur: u64| (t, 5, Event::Overhead { t, cpu, kind: OverheadKind::Release, dur });
        let mut ev = vec![oh(0, 0, 100), oh(0, 0, 100), oh(50, 0, 100), oh(0, 1, 100), oh(500, 0, 10)];
        disjoint(&mut ev);
        let got: Vec<(u64, u32, u64)> = ev
            .iter()
            .map(|(_, _, e)| match e {
                Event::Overhead { t, cpu, dur, .. } => (*t, *cpu, *dur),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(got, vec![(0, 0, 100), (0, 1, 100), (100, 0, 50), (500, 0, 10)]);
    }

    /// A job preempted by a thread outside the run whose CPU stays away
    /// from the run for more than the threshold is a stall; a short
    /// preemption, or a job that blocked, is not.
    #[test]
    fn a_cpu_held_by_a_thread_outside_the_run_is_a_stall() {
        use crate::ftrace::Switch;
        let sw =
            |t: u64, cpu: u32, prev: i32, prev_runnable: bool, next: i32| Switch { t, cpu, prev, prev_runnable, next };
        let k = KernelEvents {
            switches: vec![
                sw(1_000, 1, 77, true, 99),
                sw(1_500, 0, 78, false, 0),
                sw(1_000 + THRESHOLD_NS + 1, 1, 99, false, 78),
                sw(5_000_000, 1, 78, true, 98),
                sw(5_000_000 + THRESHOLD_NS / 2, 1, 98, false, 78),
                sw(6_000_000, 0, 77, false, 97),
                sw(9_000_000, 0, 97, false, 77),
            ],
            ..KernelEvents::default()
        };
        let f = foreign_preemptions(&k, &[77, 78]);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].from, f[0].cpu, f[0].pid, f[0].ns), (1_000, 1, 99, THRESHOLD_NS + 1));
    }

    #[test]
    fn an_interval_above_the_threshold_is_a_stall_not_an_overhead() {
        let mut m = Measured { events: Vec::new(), samples: Samples::default(), stalls: Vec::new() };
        m.interval(0, 0, OverheadKind::Release, THRESHOLD_NS, 0, 0);
        m.interval(10, 0, OverheadKind::Release, THRESHOLD_NS + 1, 1, 4);
        assert_eq!(m.samples.get(OverheadKind::Release), &[THRESHOLD_NS]);
        assert_eq!(m.stalls.len(), 1);
        assert_eq!((m.stalls[0].job, m.stalls[0].ns), (Some((1, 4)), THRESHOLD_NS + 1));
        assert!(m.events.iter().any(|(_, _, e)| matches!(e, Event::Note { name, .. } if name == "platform-stall")));
    }
}
