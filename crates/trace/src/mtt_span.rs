//! Per-MTT spans from a trace: job *i* of a multithreaded task (the
//! spec's `mtt` groups, carried by the trace header) is the *i*-th job of
//! each of its threads, and its span runs from the first start of any of
//! them to the last completion. Computed from the events alone, so a
//! recorded run reports the same figure as a simulation.

use crate::event::Time;
use schedlab_model::Spec;
use serde::Serialize;
use std::collections::BTreeMap;

/// One MTT's spans over a trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MttStats {
    pub mtt: u32,
    pub name: String,
    /// MTT jobs whose every thread completed normally.
    pub jobs: u64,
    pub max_span: Option<Time>,
    pub mean_span: Option<f64>,
}

#[derive(Debug, Clone, Copy)]
struct Open {
    start: Time,
    done: u32,
    aborted: bool,
}

/// The accumulator: O(MTT jobs in flight) memory.
#[derive(Debug, Clone, Default)]
pub(crate) struct MttSpans {
    mtt_of: Vec<Option<u32>>,
    names: Vec<String>,
    threads: Vec<u32>,
    open: Vec<BTreeMap<u64, Open>>,
    jobs: Vec<u64>,
    max: Vec<Option<Time>>,
    sum: Vec<u128>,
}

impl MttSpans {
    pub fn new(spec: &Spec) -> MttSpans {
        let n = spec.mtts().len();
        MttSpans {
            mtt_of: spec.mtt_of_tasks().into_iter().map(|k| k.map(|k| k as u32)).collect(),
            names: spec.mtts().iter().map(|m| m.name.clone()).collect(),
            threads: (0..n).map(|k| spec.mtt_tasks(k).len() as u32).collect(),
            open: vec![BTreeMap::new(); n],
            jobs: vec![0; n],
            max: vec![None; n],
            sum: vec![0; n],
        }
    }

    /// A thread's job ended: `start` its first run, `finish` its end.
    #[inline]
    pub fn ended(&mut self, task: u32, job: u64, start: Option<Time>, finish: Time, completed: bool) {
        if let Some(Some(k)) = self.mtt_of.get(task as usize).copied() {
            self.thread_ended(k as usize, job, start, finish, completed);
        }
    }

    fn thread_ended(&mut self, k: usize, job: u64, start: Option<Time>, finish: Time, completed: bool) {
        let o = self.open[k].entry(job).or_insert(Open { start: Time::MAX, done: 0, aborted: false });
        o.start = o.start.min(start.unwrap_or(finish));
        o.done += 1;
        o.aborted |= !completed;
        if o.done < self.threads[k] {
            return;
        }
        let o = self.open[k].remove(&job).expect("just updated");
        if o.aborted {
            return;
        }
        let span = finish.saturating_sub(o.start);
        self.jobs[k] += 1;
        self.max[k] = Some(self.max[k].map_or(span, |m| m.max(span)));
        self.sum[k] += span as u128;
    }

    pub fn stats(&self) -> Vec<MttStats> {
        (0..self.names.len())
            .map(|k| MttStats {
                mtt: k as u32,
                name: self.names[k].clone(),
                jobs: self.jobs[k],
                max_span: self.max[k],
                mean_span: (self.jobs[k] > 0).then(|| self.sum[k] as f64 / self.jobs[k] as f64),
            })
            .collect()
    }
}
