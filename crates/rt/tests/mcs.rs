//! `mcs` on real threads (backend `dispatch`, root), with the `prem`
//! workload: `examples/mcs-two-cpus.yaml`'s shape with phases four times
//! longer (the validator's tolerance is a fifth of the shortest phase), an
//! A-MP task on CPU 0 whose later memory phases the memory-phase worker
//! does on the master CPU 1, and an S-MP task on CPU 1. The worker is a real thread pinned on CPU 1
//! (the backend's activity thread, `Kernel::occupy`): each of its token
//! grants is one stint of that thread, in which it copied whole chunks
//! (Section windows) of the task it served; every request it completed
//! (a worker `token-release`) had at least one chunk copied; its stints
//! never overlap the master CPU's task; every A-MP job had its three
//! worker phases (W^A, P^B, W^B). The trace passes the validator's replay
//! and memory-phase checks. Retries: a failure with a platform stall's
//! evidence only (`common.rs`). About 2 s.

mod common;
use common::*;
use schedlab_rt::{run, WorkloadSpec};
use schedlab_trace::{Event, PolicyEvent};

/// An activity stint as the trace's `activity` note gives it.
#[derive(Debug, Clone, Copy)]
struct Stint {
    t: u64,
    to: u64,
    cpu: u32,
    task: u32,
    job: u64,
    segment: u32,
    chunks: u64,
    bytes: u64,
}

fn stints(events: &[Event]) -> Vec<Stint> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Note { t, name, data, .. } if name == "activity" => Some(Stint {
                t: *t,
                to: data["to"].as_u64()?,
                cpu: data["cpu"].as_u64()? as u32,
                task: data["task"].as_u64()? as u32,
                job: data["job"].as_u64()?,
                segment: data["segment"].as_u64()? as u32,
                chunks: data["chunks"].as_u64()?,
                bytes: data["bytes"].as_u64()?,
            }),
            _ => None,
        })
        .collect()
}

#[test]
fn the_memory_phase_worker_is_a_thread_on_the_master_cpu_that_copies_the_sections() {
    require_root();
    let _s = serial();
    let before = state();
    let spec = spec(
        "platform: {cpus: 2}
policy: {name: mcs, master: 1}
tasks:
  - {name: blur, period: 60ms, cpu: 0, memory_priority: 1, memory_mode: amp, wss: 512KiB,
     segments: [{memory: 4ms}, {exec: 16ms}, {memory: 4ms}, {memory: 4ms}, {exec: 16ms}, {memory: 4ms}]}
  - {name: sum, period: 75ms, cpu: 1, memory_priority: 2, wss: 256KiB,
     segments: [{memory: 8ms}, {exec: 12ms}, {memory: 8ms}]}
",
    );
    let attempt = || -> Result<(), Failure> {
        let cfg = schedlab_rt::RunConfig { workload: WorkloadSpec::Prem, ..dispatch_cfg(1200) };
        let o = run(&spec, &cfg).map_err(|e| format!("mcs: {e}"))?;
        eprintln!("mcs: {}", o.notes.join("; "));
        ensure!(
            o.stop == schedlab_rt::StopReason::Finished && o.integrity.complete(),
            "stopped {:?}, integrity {:?}",
            o.stop,
            o.integrity
        );
        let tol = validate_dispatch(&o, &spec, "mcs")?;
        let ev = &o.events;
        let grants: Vec<(u64, u32, u64)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Policy { t, event: PolicyEvent::TokenGrant { task, job, worker: true }, .. } => {
                    Some((*t, *task, *job))
                }
                _ => None,
            })
            .collect();
        let preempts_at: Vec<u64> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Policy { t, event: PolicyEvent::TokenPreempt { worker: true, .. }, .. } => Some(*t),
                _ => None,
            })
            .collect();
        let releases =
            count(ev, |e| matches!(e, Event::Policy { event: PolicyEvent::TokenRelease { worker: true, .. }, .. }));
        let st = stints(ev);
        // A grant taken back in its own instant never reaches the thread.
        let served = grants.iter().filter(|g| !preempts_at.contains(&g.0)).count();
        eprintln!(
            "mcs: {} worker grants ({served} served), {releases} worker phases done, {} activity stints, {} chunks, tolerance {tol} ns",
            grants.len(),
            st.len(),
            st.iter().map(|s| s.chunks).sum::<u64>()
        );
        ensure!(!grants.is_empty(), "the worker was never granted the token");
        ensure!(st.len() == served, "{} activity stints for {served} worker grants", st.len());
        for (s, g) in st.iter().zip(grants.iter().filter(|g| !preempts_at.contains(&g.0))) {
            ensure!((s.task, s.job) == (g.1, g.2), "stint {s:?} for grant {g:?}");
            ensure!(s.cpu == 1 && s.task == 0, "stint {s:?}: not the A-MP task's, or not on the master CPU 1");
            ensure!([2, 3, 5].contains(&s.segment), "stint {s:?}: segment {} is not a worker phase", s.segment);
            ensure!(s.t >= g.0, "stint {s:?} before its grant at {}", g.0);
        }
        // Every request the worker completed: at least one whole chunk copied.
        let mut per_request: Vec<((u64, u32), u64, u64)> = Vec::new();
        for s in &st {
            match per_request.iter_mut().find(|r| r.0 == (s.job, s.segment)) {
                Some(r) => {
                    r.1 += s.chunks;
                    r.2 += s.bytes;
                }
                None => per_request.push(((s.job, s.segment), s.chunks, s.bytes)),
            }
        }
        let copied = per_request.iter().filter(|r| r.1 >= 1).count();
        ensure!(
            copied >= releases,
            "{copied} requests with a chunk copied, {releases} worker phases done: {per_request:?}"
        );
        // Every A-MP job had its three worker phases.
        let jobs = count(ev, |e| matches!(e, Event::Completion { task: 0, .. }));
        ensure!(releases + 1 >= 3 * jobs && releases <= 3 * jobs, "{releases} worker phases for {jobs} A-MP jobs");
        // The master CPU never ran the task's job and the worker together.
        let mut on_master: Vec<(u64, u64)> = Vec::new();
        let mut open: Option<u64> = None;
        for e in ev {
            match e {
                Event::SwitchTo { t, cpu: 1, .. } => open = Some(*t),
                Event::SwitchAway { t, cpu: 1, .. } => {
                    if let Some(f) = open.take() {
                        on_master.push((f, *t));
                    }
                }
                _ => {}
            }
        }
        for s in &st {
            if let Some(j) = on_master.iter().find(|j| j.0 < s.to && s.t < j.1) {
                return Err(Failure::Hard(format!("the worker's stint {s:?} overlaps the master CPU's job in {j:?}")));
            }
        }
        // The task's report: the worker moved its Sections (256 KiB windows).
        let prem = ev
            .iter()
            .find_map(|e| match e {
                Event::Note { name, data, .. } if name == "prem" && data["task"] == 0 => Some(data.clone()),
                _ => None,
            })
            .ok_or_else(|| Failure::Hard("no prem note of task 0".into()))?;
        ensure!(prem["window_bytes"] == 256 * 1024, "window {}", prem["window_bytes"]);
        for role in ["worker-prefetch", "worker-write-back", "prefetch", "exec"] {
            ensure!(prem[role]["bytes"].as_u64().unwrap_or(0) > 0, "task 0 did no {role}: {prem}");
        }
        ensure!(prem.get("write-back").is_none(), "an A-MP job wrote back itself: {prem}");
        Ok(())
    };
    retry_stalls("mcs", attempt).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine is as before");
}
