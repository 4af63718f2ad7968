//! Trace assembly for the dispatch backend: the workers' stint logs become
//! the switch-to / switch-away / completion events (the workers' truth), the
//! dispatcher's records become releases, deadline misses, policy notes and
//! overheads, and the decision and dispatch latencies are summarised.

use super::activity::ActivityStint;
use super::dispatcher::Dispatcher;
use super::sync::End;
use super::worker::WorkerLog;
use super::{Executed, DISPATCHER_CPU};
use crate::overheads::Stats;
use crate::stall::{DISPATCHER_LATENESS, PLATFORM_STALL};
use schedlab_trace::{Event, OverheadKind, SwitchReason};
use std::collections::HashMap;

impl Dispatcher {
    /// Turns the workers' stint logs and the dispatcher's records into the
    /// trace, overheads and notes; the activity threads' stints (per CPU)
    /// become `activity` notes, the job bodies' reports (per task) `prem`
    /// notes.
    pub(super) fn finish(
        mut self,
        logs: &[Option<WorkerLog>],
        activities: &[(u32, Vec<ActivityStint>)],
        reports: &[Option<serde_json::Value>],
        ex: &mut Executed,
    ) {
        let t0 = self.host.t0;
        let prompt: HashMap<(u32, u64), u64> = self.host.prompts.iter().map(|&(t, j, r)| ((t, j), r)).collect();
        for &(rel, task, job) in &self.skipped {
            let data = serde_json::json!({"task": task, "job": job});
            self.events.push((rel, 6, Event::Note { t: rel, cpu: None, name: "skipped-release".into(), data }));
        }
        for &(t, ns) in &self.late_wakeups {
            let data = serde_json::json!({"kind": DISPATCHER_LATENESS, "ns": ns});
            self.events.push((t, 6, Event::Note { t, cpu: None, name: PLATFORM_STALL.into(), data }));
        }
        let rel = |t: u64| t.saturating_sub(t0);
        let mut preempt_lat: Vec<u64> = Vec::new();
        let mut horizon = self.ended_at;
        for (i, log) in logs.iter().enumerate() {
            let Some(log) = log else { continue };
            let task = i as u32;
            if log.dropped > 0 {
                ex.notes.push(format!("task {task}: {} running stints not logged (log full)", log.dropped));
            }
            let mut exec_of: HashMap<u64, u64> = HashMap::new();
            let mut first_of: HashMap<u64, u64> = HashMap::new();
            for s in &log.stints {
                let (from, mut to) = (rel(s.from), rel(s.to));
                if s.end == End::Open {
                    to = rel(ex.end).max(from);
                }
                if to == from && matches!(s.end, End::Preempt | End::Block) {
                    continue; // stopped (or suspended) before its first instruction
                }
                let exec = exec_of.entry(s.job).or_insert(0);
                *exec += to - from;
                first_of.entry(s.job).or_insert(s.from);
                self.events.push((from, 4, Event::SwitchTo { t: from, cpu: s.cpu, task, job: s.job }));
                if s.run_cmd != 0 && s.from >= s.run_cmd {
                    let lat = s.from - s.run_cmd;
                    let kind = if s.cpu == DISPATCHER_CPU { OverheadKind::ContextSwitch } else { OverheadKind::Ipi };
                    self.samples.push(kind, lat);
                    self.events.push((
                        rel(s.run_cmd),
                        5,
                        Event::Overhead { t: rel(s.run_cmd), cpu: s.cpu, kind, dur: lat },
                    ));
                }
                match s.end {
                    End::Preempt => {
                        if s.hold_cmd != 0 && s.to >= s.hold_cmd {
                            preempt_lat.push(s.to - s.hold_cmd);
                        }
                        self.events.push((
                            to,
                            0,
                            Event::SwitchAway {
                                t: to,
                                cpu: s.cpu,
                                task,
                                job: s.job,
                                reason: SwitchReason::Preempt,
                                exec: *exec,
                            },
                        ));
                    }
                    End::Block => {
                        let ev = Event::SwitchAway {
                            t: to,
                            cpu: s.cpu,
                            task,
                            job: s.job,
                            reason: SwitchReason::Block,
                            exec: *exec,
                        };
                        self.events.push((to, 0, ev));
                    }
                    End::Complete | End::Forced => {
                        let forced = s.end == End::Forced;
                        let reason = if forced { SwitchReason::Abort } else { SwitchReason::Complete };
                        self.events.push((
                            to,
                            1,
                            Event::SwitchAway { t: to, cpu: s.cpu, task, job: s.job, reason, exec: *exec },
                        ));
                        self.events.push((
                            to,
                            1,
                            Event::Completion { t: to, cpu: s.cpu, task, job: s.job, exec: *exec, forced },
                        ));
                    }
                    End::Open => {}
                }
                horizon = horizon.max(to);
            }
            // Release latency: release → first instruction, for jobs
            // dispatched in the instant they were released.
            for (job, first) in first_of {
                if let Some(&release) = prompt.get(&(task, job)) {
                    if first >= release {
                        self.samples.push(OverheadKind::ReleaseLatency, first - release);
                        let cpu = log.stints.iter().find(|s| s.job == job).map_or(0, |s| s.cpu);
                        self.events.push((
                            rel(release),
                            5,
                            Event::Overhead {
                                t: rel(release),
                                cpu,
                                kind: OverheadKind::ReleaseLatency,
                                dur: first - release,
                            },
                        ));
                    }
                }
            }
        }
        // The policy's activities as the threads did them.
        let mut activity_lat: Vec<u64> = Vec::new();
        for (c, stints) in activities {
            let (mut bytes, mut chunks) = (0u64, 0u64);
            for s in stints {
                bytes += s.bytes;
                chunks += s.chunks;
                if s.run_cmd != 0 && s.from >= s.run_cmd {
                    activity_lat.push(s.from - s.run_cmd);
                }
                let data = serde_json::json!({"cpu": s.cpu, "task": s.task, "job": s.job, "segment": s.segment,
                    "to": rel(s.to), "bytes": s.bytes, "chunks": s.chunks, "cpu_ns": s.cpu_ns});
                let t = rel(s.from);
                // A phase the worker began as the run ended is in the trace too.
                horizon = horizon.max(t);
                self.events.push((t, 6, Event::Note { t, cpu: Some(*c), name: "activity".into(), data }));
            }
            let l = Stats::of(&activity_lat);
            ex.notes.push(format!(
                "activity thread on CPU {c}: {} stints ({} started, {} stopped by the dispatcher), {chunks} chunks, {:.1} MiB moved; start (run → working) p50 {:.1} µs, max {:.1} µs",
                stints.len(), self.host.activity_commands[0], self.host.activity_commands[1], bytes as f64 / (1 << 20) as f64, l.p50 as f64 / 1000.0, l.max as f64 / 1000.0
            ));
        }
        for (task, r) in reports.iter().enumerate() {
            if let Some(r) = r {
                let mut data = r.clone();
                data["task"] = task.into();
                self.events.push((horizon, 7, Event::Note { t: horizon, cpu: None, name: "prem".into(), data }));
            }
        }
        // Unfinished jobs whose deadline passed.
        for i in 0..self.tasks.len() as u32 {
            let delivered = self.drv.delivered(i).map(|(j, _)| j);
            for j in delivered.into_iter().chain(self.drv.held(i).map(|h| h.job)) {
                if j.deadline <= horizon {
                    self.events.push((j.deadline, 1, Event::DeadlineMiss { t: j.deadline, task: i, job: j.id.seq }));
                }
            }
        }
        let d = Stats::of(&self.decisions);
        let p = Stats::of(&preempt_lat);
        let cs = Stats::of(self.samples.get(OverheadKind::ContextSwitch));
        let ipi = Stats::of(self.samples.get(OverheadKind::Ipi));
        let us = |v: u64| v as f64 / 1000.0;
        ex.notes.push(format!(
            "dispatcher: {} decisions (p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs); {} switch-aways, {} switch-tos, {} migrations; preemption (hold → the worker stopped): n={} p50 {:.1} µs p99 {:.1} µs max {:.1} µs; dispatch (run → first instruction) same CPU p50 {:.1} / p99 {:.1} µs, other CPU p50 {:.1} / p99 {:.1} µs",
            d.count, us(d.p50), us(d.p99), us(d.max), self.host.commands[0], self.host.commands[1], self.host.commands[2], p.count, us(p.p50), us(p.p99), us(p.max), us(cs.p50), us(cs.p99), us(ipi.p50), us(ipi.p99)
        ));
        if self.points[0] > 0 {
            ex.notes.push(format!(
                "dispatcher: {} preemption points reported (a waiting job outranked the running one), {} taken",
                self.points[0], self.points[1]
            ));
        }
        if self.host.notes_dropped > 0 {
            ex.notes.push(format!(
                "dispatcher: {} policy notes not recorded (the run's note budget was used up)",
                self.host.notes_dropped
            ));
        }
        let stats = serde_json::json!({
            "decision": stats_json(&d), "preemption": stats_json(&p), "dispatch-same-cpu": stats_json(&cs), "dispatch-other-cpu": stats_json(&ipi),
            "points-reported": self.points[0], "points-taken": self.points[1], "switch-aways": self.host.commands[0], "switch-tos": self.host.commands[1], "migrations": self.host.commands[2], "notes-dropped": self.host.notes_dropped,
        });
        self.events.push((
            horizon,
            7,
            Event::Note { t: horizon, cpu: None, name: "dispatch-stats".into(), data: stats },
        ));
        // The counter source the policy read (`Kernel::counters`).
        ex.notes.push(self.host.counters.describe());
        self.events.push((
            0,
            0,
            Event::Note { t: 0, cpu: None, name: "counter-source".into(), data: self.host.counters.to_json() },
        ));
        self.events.sort_by_key(|(t, r, _)| (*t, *r));
        ex.events = self.events.into_iter().map(|(_, _, e)| e).collect();
        ex.overheads = self.samples;
        ex.horizon = horizon;
    }
}

fn stats_json(s: &Stats) -> serde_json::Value {
    serde_json::json!({"n": s.count, "p50": s.p50, "p99": s.p99, "p999": s.p999, "max": s.max})
}
