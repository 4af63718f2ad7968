//! schedlab trace → sched_trace: one file per CPU (`st-<cpu>.bin`), the
//! records a LITMUS^RT kernel would have written for the same schedule.
//!
//! Events at one instant are written in the order the importer merges them
//! (departures, system release, releases and resumes, switch-tos; then by
//! CPU), so that files written here read back and re-export byte for byte.

use super::import::rank;
use super::{Kind, Param, Record};
use crate::error::InteropError;
use schedlab_trace::{Event, Header, SwitchReason};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

/// PID of task `i` in the files written: `PID_BASE + i`.
pub const PID_BASE: u32 = 1000;

/// What the export could not carry over, by event kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    pub records: u64,
    /// Events with no sched_trace record (`deadline-miss`,
    /// `budget-exhausted`, `overhead`, `policy`), by kind.
    pub dropped: BTreeMap<String, u64>,
}

/// Writes the per-CPU files of one trace.
pub struct Exporter<W: Write> {
    outs: Vec<W>,
    /// Events of the current instant, waiting to be ordered.
    batch: Vec<(Event, u8, u8)>,
    exec: HashMap<(u32, u64), u64>,
    on_cpu: HashMap<(u32, u64), u32>,
    stats: Stats,
    /// The file of each task's releases: its CPU, or the first CPU of its cluster.
    release_file: Vec<u8>,
}

fn pid(task: u32) -> Result<u16, InteropError> {
    u16::try_from(PID_BASE + task)
        .map_err(|_| InteropError::usage(format!("task {task}: sched_trace PIDs are 16 bits; too many tasks")))
}

fn job_no(job: u64) -> Result<u32, InteropError> {
    u32::try_from(job + 1).map_err(|_| InteropError::usage(format!("job {job}: sched_trace job numbers are 32 bits")))
}

fn cpu8(cpu: u32) -> Result<u8, InteropError> {
    u8::try_from(cpu).map_err(|_| InteropError::usage(format!("CPU {cpu}: sched_trace CPU numbers are 8 bits")))
}

impl<W: Write> Exporter<W> {
    /// Start the export of a trace with `header`; `outs[c]` receives CPU c's
    /// file (one per CPU of the spec's platform). Writes the `name` and
    /// `param` records of every task to CPU 0's file.
    pub fn new(header: &Header, mut outs: Vec<W>) -> Result<Exporter<W>, InteropError> {
        let cpus = header.spec.platform.cpus as usize;
        if outs.len() != cpus || cpus == 0 {
            return Err(InteropError::usage(format!("need one output per CPU ({cpus}), got {}", outs.len())));
        }
        cpu8(header.spec.platform.cpus - 1)?;
        let mut stats = Stats::default();
        let mut release_file = Vec::new();
        for (i, t) in header.spec.tasks.iter().enumerate() {
            let p = pid(i as u32)?;
            let u32_of = |what: &str, v: u64| {
                u32::try_from(v).map_err(|_| {
                    InteropError::usage(format!(
                        "task `{}`: {what} {v} ns does not fit sched_trace's 32-bit field (at most 4.29 s)",
                        t.name
                    ))
                })
            };
            let part = match header.placement.get(i) {
                Some(schedlab_model::Placement::Cpu { cpu }) => cpu8(*cpu)?,
                // Clustered plugins record the cluster in `partition`.
                Some(schedlab_model::Placement::Cluster { cluster, .. }) => cpu8(*cluster)?,
                _ => t.cpu.map(cpu8).transpose()?.unwrap_or(0),
            };
            release_file.push(match header.placement.get(i) {
                Some(schedlab_model::Placement::Cluster { cpus, .. }) => {
                    cpus.first().copied().map(cpu8).transpose()?.unwrap_or(0)
                }
                _ => part,
            });
            let param = Param {
                wcet: u32_of("wcet", t.wcet.0)?,
                period: u32_of("period", t.period.0)?,
                phase: u32_of("offset", t.offset.0)?,
                partition: part,
                class: match t.class {
                    schedlab_model::Class::Hrt => 0,
                    schedlab_model::Class::Srt => 1,
                    schedlab_model::Class::Be => 2,
                },
            };
            for r in [Record::new_name(0, p, &t.name), Record::new_param(0, p, param)] {
                outs[0].write_all(&r.encode()).map_err(|e| InteropError::io("st-0.bin", e))?;
                stats.records += 1;
            }
        }
        Ok(Exporter { outs, batch: Vec::new(), exec: HashMap::new(), on_cpu: HashMap::new(), stats, release_file })
    }

    /// The file (CPU) and merge rank of an event; `None` for events that
    /// have no record.
    fn place(&self, ev: &Event) -> Option<(u8, u8)> {
        let on = |task: u32, job: u64| self.on_cpu.get(&(task, job)).map(|&c| c as u8);
        Some(match *ev {
            Event::SysRelease { .. } => (0, rank(Kind::SysRelease)),
            Event::Release { task, .. } => (self.release_file.get(task as usize).copied().unwrap_or(0), 2),
            Event::SwitchTo { cpu, .. } => (cpu as u8, 3),
            Event::SwitchAway { cpu, .. } | Event::Completion { cpu, .. } => (cpu as u8, 0),
            Event::Block { task, job, .. } => (on(task, job).unwrap_or(0), 0),
            Event::Resume { .. } => (0, 2),
            _ => return None,
        })
    }

    /// Add the next event of the trace (in trace order).
    pub fn push(&mut self, ev: Event) -> Result<(), InteropError> {
        if let Some(last) = self.batch.last() {
            if last.0.t() != ev.t() {
                self.flush()?;
            }
        }
        if let Event::SwitchTo { cpu, .. } | Event::SwitchAway { cpu, .. } | Event::Completion { cpu, .. } = ev {
            cpu8(cpu)?;
            if cpu as usize >= self.outs.len() {
                return Err(InteropError::usage(format!("event on CPU {cpu}, beyond the platform's CPUs")));
            }
        }
        // Track where jobs run, for blocks (which have no CPU).
        match ev {
            Event::SwitchTo { cpu, task, job, .. } => {
                self.on_cpu.insert((task, job), cpu);
            }
            Event::SwitchAway { task, job, .. } => {
                self.on_cpu.remove(&(task, job));
            }
            _ => {}
        }
        match self.place(&ev) {
            Some((file, rank)) => self.batch.push((ev, file, rank)),
            None => *self.stats.dropped.entry(ev.name().to_string()).or_insert(0) += 1,
        }
        Ok(())
    }

    fn write(&mut self, cpu: u8, r: Record) -> Result<(), InteropError> {
        self.stats.records += 1;
        self.outs[cpu as usize].write_all(&r.encode()).map_err(|e| InteropError::io(&format!("st-{cpu}.bin"), e))
    }

    fn flush(&mut self) -> Result<(), InteropError> {
        let mut batch = std::mem::take(&mut self.batch);
        // Stable: keeps the trace order within one file and rank.
        batch.sort_by_key(|(_, file, rank)| (*rank, *file));
        let mut i = 0;
        while i < batch.len() {
            let (ev, file, _) = &batch[i];
            let next = batch.get(i + 1).map(|(e, _, _)| e);
            match *ev {
                Event::SysRelease { t } => self.write(0, Record::timed(Kind::SysRelease, 0, 0, 0, t, t))?,
                Event::Release { t, task, job, deadline } => {
                    self.write(*file, Record::timed(Kind::Release, *file, pid(task)?, job_no(job)?, t, deadline))?
                }
                Event::SwitchTo { t, cpu, task, job } => {
                    let exec = self.exec.get(&(task, job)).copied().unwrap_or(0);
                    let mut r = Record::timed(Kind::SwitchTo, cpu as u8, pid(task)?, job_no(job)?, t, 0);
                    r.data[8..12].copy_from_slice(&(exec.min(u64::from(u32::MAX)) as u32).to_le_bytes());
                    self.write(cpu as u8, r)?
                }
                Event::SwitchAway { t, cpu, task, job, reason, exec } => {
                    let (p, j, c) = (pid(task)?, job_no(job)?, cpu as u8);
                    self.exec.insert((task, job), exec);
                    let ends = |e: Option<&Event>, kind: &str| match (e, kind) {
                        (Some(Event::Completion { task: t2, job: j2, .. }), "completion") => *t2 == task && *j2 == job,
                        (Some(Event::Block { task: t2, job: j2, .. }), "block") => *t2 == task && *j2 == job,
                        _ => false,
                    };
                    if matches!(reason, SwitchReason::Complete | SwitchReason::Abort) && ends(next, "completion") {
                        // LITMUS^RT order: the completion, then the switch-away.
                        if let Some(Event::Completion { exec: cexec, forced, .. }) = next {
                            let w = Record::completion_word(*forced, *cexec);
                            self.write(c, Record::timed(Kind::Completion, c, p, j, t, w))?;
                            self.exec.remove(&(task, job));
                        }
                        self.write(c, Record::timed(Kind::SwitchAway, c, p, j, t, exec))?;
                        i += 2;
                        continue;
                    }
                    if reason == SwitchReason::Block && ends(next, "block") {
                        self.write(c, Record::timed(Kind::Block, c, p, j, t, 0))?;
                        self.write(c, Record::timed(Kind::SwitchAway, c, p, j, t, exec))?;
                        i += 2;
                        continue;
                    }
                    self.write(c, Record::timed(Kind::SwitchAway, c, p, j, t, exec))?
                }
                Event::Completion { t, cpu, task, job, exec, forced } => {
                    self.exec.remove(&(task, job));
                    let w = Record::completion_word(forced, exec);
                    self.write(cpu as u8, Record::timed(Kind::Completion, cpu as u8, pid(task)?, job_no(job)?, t, w))?
                }
                Event::Block { t, task, job } => {
                    self.write(*file, Record::timed(Kind::Block, *file, pid(task)?, job_no(job)?, t, 0))?
                }
                Event::Resume { t, task, job } => {
                    self.write(0, Record::timed(Kind::Resume, 0, pid(task)?, job_no(job)?, t, 0))?
                }
                _ => {}
            }
            i += 1;
        }
        Ok(())
    }

    /// Write what is left, flush the files and give them back.
    pub fn finish(mut self) -> Result<(Vec<W>, Stats), InteropError> {
        self.flush()?;
        for (c, o) in self.outs.iter_mut().enumerate() {
            o.flush().map_err(|e| InteropError::io(&format!("st-{c}.bin"), e))?;
        }
        Ok((self.outs, self.stats))
    }
}
