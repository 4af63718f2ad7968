//! Chrome / Perfetto trace-event JSON: open the file in ui.perfetto.dev
//! ("Open trace file") or chrome://tracing.
//!
//! Layout:
//! - process "CPUs" (pid 1): per CPU a track `CPU n` with the job slices that
//!   ran on it (named `<task> #<job>`, category `job`), its `segment-end`
//!   instants (segment boundaries, category `segment`) and the CPU's policy
//!   events and notes as instants named after their `kind` or `name`
//!   (category `policy`; `preemption-point` for an FPDS point taken);
//!   `counter-sample` events become a counter track `CPU n counters`
//!   (`"ph": "C"`, one series per counter read),
//!   followed by a track `CPU n overheads` with the overhead intervals
//!   (category `overhead`, named after the kind). Overheads get their own
//!   track because they may straddle a job slice's edge, and slices on one
//!   track must nest. Policy events and notes without a CPU are process-wide
//!   instants.
//! - process "Tasks" (pid 2): per task a track with its jobs' slices,
//!   `suspended` slices from a job's `block` to its `resume` (category
//!   `suspension`; to the end of the trace when it never resumes), and
//!   instants `release`, `deadline` (when within the trace), `MISS` (at the
//!   deadline of every job that missed), `block`, `resume`, `segment-end`,
//!   `preemption-point`, `budget-exhausted`.
//!
//! Every job slice has args `task`, `task_index`, `job`, `cpu`,
//! `release_ns`, `deadline_ns`, `missed` and `end` (why the slice ended).
//! Times are microseconds with up to three decimals, so no nanosecond is
//! lost; `displayTimeUnit` is `ns`. Track names and order come from metadata
//! events (`process_name`, `thread_name`, `process_sort_index`,
//! `thread_sort_index`); thread ids are unique across both processes.

use super::{collect, json_str, micros, suspensions, Collected};
use crate::{Event, Header, JobRef, PolicyEvent};
use std::borrow::Borrow;
use std::collections::HashMap;
use std::io::{self, Write};

/// Process id of the CPU tracks.
pub const PID_CPUS: u32 = 1;
/// Process id of the task tracks.
pub const PID_TASKS: u32 = 2;

/// Write the trace-event JSON of a trace.
pub fn write_perfetto<W: Write, E: Borrow<Event>>(
    w: &mut W,
    header: &Header,
    events: impl IntoIterator<Item = E>,
) -> io::Result<()> {
    let c = collect(header, events);
    write_collected(w, header, &c)
}

/// The trace-event JSON of a trace, as a string.
pub fn perfetto_json<E: Borrow<Event>>(header: &Header, events: impl IntoIterator<Item = E>) -> String {
    let mut out = Vec::new();
    write_perfetto(&mut out, header, events).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("the exporter writes UTF-8")
}

struct Tracks {
    /// CPU number → (job track tid, overhead track tid).
    cpus: HashMap<u32, (u32, u32)>,
    /// Task index → tid.
    tasks: HashMap<u32, u32>,
}

impl Tracks {
    /// Every CPU of an event has a track (the metrics list every CPU seen).
    fn cpu(&self, cpu: u32) -> (u32, u32) {
        self.cpus[&cpu]
    }
    /// Every task with a job has a track; a block or resume of a task that
    /// never had a job has none.
    fn task(&self, task: u32) -> Option<u32> {
        self.tasks.get(&task).copied()
    }
}

fn write_collected<W: Write>(w: &mut W, header: &Header, c: &Collected) -> io::Result<()> {
    let r = &c.report;
    writeln!(
        w,
        "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"generator\":{},\"trace_tool\":{},\"source\":{},\"clock\":{},\"seed\":{},\"horizon_ns\":{}}},\"traceEvents\":[",
        json_str(schedlab_model::TOOL),
        json_str(&header.tool),
        serde_json::to_string(&header.source).expect("enum"),
        json_str(&header.clock),
        header.seed,
        r.horizon
    )?;
    let mut first = true;
    let mut line = |w: &mut W, s: &str| -> io::Result<()> {
        if !first {
            w.write_all(b",\n")?;
        }
        first = false;
        w.write_all(s.as_bytes())
    };

    // Metadata: names and order.
    let mut tracks = Tracks { cpus: HashMap::new(), tasks: HashMap::new() };
    let mut tid = 0u32;
    line(w, &meta_process(PID_CPUS, "CPUs", 0))?;
    line(w, &meta_process(PID_TASKS, "Tasks", 1))?;
    for cs in &r.cpus {
        let (jt, ot) = (tid + 1, tid + 2);
        tid += 2;
        tracks.cpus.insert(cs.cpu, (jt, ot));
        line(w, &meta_thread(PID_CPUS, jt, &format!("CPU {}", cs.cpu)))?;
        line(w, &meta_thread(PID_CPUS, ot, &format!("CPU {} overheads", cs.cpu)))?;
    }
    for ts in &r.tasks {
        tid += 1;
        tracks.tasks.insert(ts.task, tid);
        line(w, &meta_thread(PID_TASKS, tid, &ts.name))?;
    }

    let names: HashMap<u32, &str> = r.tasks.iter().map(|t| (t.task, t.name.as_str())).collect();
    let jobs: HashMap<JobRef, usize> = c.jobs.iter().enumerate().map(|(i, j)| (j.job_ref(), i)).collect();

    // Job slices, on their CPU and on their task.
    for iv in &c.intervals {
        let j = &c.jobs[jobs[&JobRef { task: iv.task, job: iv.job }]];
        let name = json_str(&format!("{} #{}", names[&iv.task], iv.job));
        let end = iv.reason.map_or("none", |r| r.name());
        let args = format!(
            "{{\"task\":{},\"task_index\":{},\"job\":{},\"cpu\":{},\"release_ns\":{},\"deadline_ns\":{},\"missed\":{},\"end\":\"{}\"}}",
            json_str(names[&iv.task]),
            iv.task,
            iv.job,
            iv.cpu,
            j.release,
            j.deadline,
            j.missed,
            end
        );
        let cname = if j.missed { ",\"cname\":\"terrible\"" } else { "" };
        let (ts, dur) = (micros(iv.start), micros(iv.end - iv.start));
        for (pid, tid) in [(PID_CPUS, Some(tracks.cpu(iv.cpu).0)), (PID_TASKS, tracks.task(iv.task))] {
            let Some(tid) = tid else { continue };
            line(
                w,
                &format!("{{\"ph\":\"X\",\"cat\":\"job\",\"name\":{name},\"pid\":{pid},\"tid\":{tid},\"ts\":{ts},\"dur\":{dur}{cname},\"args\":{args}}}"),
            )?;
        }
    }

    // Releases, deadlines and misses on the task tracks.
    for j in &c.jobs {
        let Some(tid) = tracks.task(j.task) else { continue };
        let args = format!("{{\"job\":{},\"release_ns\":{},\"deadline_ns\":{}}}", j.job, j.release, j.deadline);
        line(w, &instant("release", "release", PID_TASKS, tid, j.release, &args))?;
        if j.deadline <= r.horizon {
            line(w, &instant("deadline", "deadline", PID_TASKS, tid, j.deadline, &args))?;
        }
        if j.missed {
            let args = format!(
                "{{\"job\":{},\"deadline_ns\":{},\"tardiness_ns\":{},\"status\":\"{}\"}}",
                j.job,
                j.deadline,
                j.tardiness,
                j.status.name()
            );
            line(w, &instant("MISS", "miss", PID_TASKS, tid, j.deadline.min(r.horizon), &args))?;
        }
    }

    // Overheads, policy events and the other job events.
    for ev in &c.others {
        match ev {
            Event::Overhead { t, cpu, kind, dur } => line(
                w,
                &format!(
                    "{{\"ph\":\"X\",\"cat\":\"overhead\",\"name\":\"{}\",\"pid\":{PID_CPUS},\"tid\":{},\"ts\":{},\"dur\":{},\"args\":{{\"kind\":\"{}\",\"dur_ns\":{dur}}}}}",
                    kind.name(),
                    tracks.cpu(*cpu).1,
                    micros(*t),
                    micros(*dur),
                    kind.name()
                ),
            )?,
            Event::Policy { t, cpu, event } => {
                let mut args = serde_json::to_value(event).expect("a policy event serialises");
                if let Some(o) = args.as_object_mut() {
                    o.remove("kind");
                }
                // A CPU's counter samples: a counter track `CPU n counters`
                // with one series per counter read.
                if let (PolicyEvent::CounterSample(_), Some(c), Some(o)) = (event, cpu, args.as_object_mut()) {
                    o.remove("task");
                    o.remove("job");
                    line(
                        w,
                        &format!(
                            "{{\"ph\":\"C\",\"cat\":\"counters\",\"name\":\"CPU {c} counters\",\"pid\":{PID_CPUS},\"ts\":{},\"args\":{args}}}",
                            micros(*t)
                        ),
                    )?;
                    continue;
                }
                let args = args.to_string();
                line(w, &policy_instant(&tracks, event.kind(), *t, *cpu, &args))?;
                if let (PolicyEvent::PreemptionPoint { .. }, Some(tid)) =
                    (event, event.job().and_then(|(task, _)| tracks.task(task)))
                {
                    line(w, &instant(event.kind(), "policy", PID_TASKS, tid, *t, &args))?
                }
            }
            Event::Note { t, cpu, name, data } => {
                let args = match data {
                    serde_json::Value::Object(_) => data.to_string(),
                    serde_json::Value::Null => "{}".to_string(),
                    other => format!("{{\"data\":{other}}}"),
                };
                line(w, &policy_instant(&tracks, name, *t, *cpu, &args))?
            }
            Event::SegmentEnd { t, cpu, task, job, segment } => {
                let args = format!("{{\"task\":{task},\"job\":{job},\"segment\":{segment}}}");
                line(w, &instant(ev.name(), "segment", PID_CPUS, tracks.cpu(*cpu).0, *t, &args))?;
                if let Some(tid) = tracks.task(*task) {
                    line(w, &instant(ev.name(), "segment", PID_TASKS, tid, *t, &args))?
                }
            }
            Event::Block { t, task, job }
            | Event::Resume { t, task, job }
            | Event::BudgetExhausted { t, task, job } => {
                if let Some(tid) = tracks.task(*task) {
                    line(w, &instant(ev.name(), "job", PID_TASKS, tid, *t, &format!("{{\"job\":{job}}}")))?
                }
            }
            _ => {}
        }
    }

    // Suspensions: a slice from each block to the job's resume.
    for s in suspensions(&c.others, r.horizon) {
        let Some(tid) = tracks.task(s.job.task) else { continue };
        line(
            w,
            &format!(
                "{{\"ph\":\"X\",\"cat\":\"suspension\",\"name\":\"suspended\",\"pid\":{PID_TASKS},\"tid\":{tid},\"ts\":{},\"dur\":{},\"args\":{{\"job\":{},\"resumed\":{}}}}}",
                micros(s.start),
                micros(s.end - s.start),
                s.job.job,
                s.resumed
            ),
        )?;
    }
    w.write_all(b"\n]}\n")
}

/// An instant on a CPU's job track, or process-wide without a CPU.
fn policy_instant(tracks: &Tracks, name: &str, t: u64, cpu: Option<u32>, args: &str) -> String {
    match cpu {
        Some(cpu) => instant(name, "policy", PID_CPUS, tracks.cpu(cpu).0, t, args),
        None => format!(
            "{{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"policy\",\"name\":{},\"pid\":{PID_CPUS},\"ts\":{},\"args\":{args}}}",
            json_str(name),
            micros(t)
        ),
    }
}

fn meta_process(pid: u32, name: &str, sort: u32) -> String {
    format!(
        "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{pid},\"args\":{{\"name\":{}}}}},\n{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{pid},\"args\":{{\"sort_index\":{sort}}}}}",
        json_str(name)
    )
}

fn meta_thread(pid: u32, tid: u32, name: &str) -> String {
    format!(
        "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":{}}}}},\n{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"sort_index\":{tid}}}}}",
        json_str(name)
    )
}

fn instant(name: &str, cat: &str, pid: u32, tid: u32, t: u64, args: &str) -> String {
    format!("{{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"{cat}\",\"name\":{},\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"args\":{args}}}", json_str(name), micros(t))
}
