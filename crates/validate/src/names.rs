//! How reports name things: times (`12.5ms`), jobs (`T3#4`, the task's name
//! in the spec and the job's sequence number), policies (`G-EDF`) and events.

use schedlab_model::Duration;
use schedlab_trace::{Event, JobRef, Time};

/// A time or duration, with the largest unit that keeps it exact.
pub fn time(t: Time) -> String {
    Duration(t).to_string()
}

/// The conventional written name of a policy (its descriptor's title), or
/// the name itself for a policy schedlab does not know.
pub fn policy_title(name: &str) -> String {
    schedlab_model::spec::descriptor::title_of(name)
}

/// Task names, for naming jobs.
#[derive(Debug, Clone)]
pub struct Names {
    tasks: Vec<String>,
}

impl Names {
    pub fn new(tasks: Vec<String>) -> Names {
        Names { tasks }
    }

    pub fn task(&self, task: u32) -> String {
        self.tasks.get(task as usize).cloned().unwrap_or_else(|| format!("task{task}"))
    }

    pub fn job(&self, j: JobRef) -> String {
        format!("{}#{}", self.task(j.task), j.job)
    }

    /// One event, one line: `12.5ms cpu 1 switch-to T3#4`.
    pub fn event(&self, e: &Event) -> String {
        let t = time(e.t());
        let j = |task: u32, job: u64| self.job(JobRef { task, job });
        match e {
            Event::SysRelease { .. } => format!("{t} sys-release"),
            Event::Release { task, job, deadline, .. } => {
                format!("{t} release {} (deadline {})", j(*task, *job), time(*deadline))
            }
            Event::SwitchTo { cpu, task, job, .. } => format!("{t} cpu {cpu} switch-to {}", j(*task, *job)),
            Event::SwitchAway { cpu, task, job, reason, exec, .. } => {
                let r =
                    serde_json::to_value(reason).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                format!("{t} cpu {cpu} switch-away {} ({r}, exec {})", j(*task, *job), time(*exec))
            }
            Event::Completion { cpu, task, job, exec, forced, .. } => {
                format!(
                    "{t} cpu {cpu} completion {} (exec {}{})",
                    j(*task, *job),
                    time(*exec),
                    if *forced { ", forced" } else { "" }
                )
            }
            Event::Block { task, job, .. } => format!("{t} block {}", j(*task, *job)),
            Event::Resume { task, job, .. } => format!("{t} resume {}", j(*task, *job)),
            Event::SegmentEnd { cpu, task, job, segment, .. } => {
                format!("{t} cpu {cpu} segment-end {} (segment {segment})", j(*task, *job))
            }
            Event::DeadlineMiss { task, job, .. } => format!("{t} deadline-miss {}", j(*task, *job)),
            Event::BudgetExhausted { task, job, .. } => format!("{t} budget-exhausted {}", j(*task, *job)),
            Event::Overhead { cpu, kind, dur, .. } => {
                let k =
                    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                format!("{t} cpu {cpu} overhead {k} {}", time(*dur))
            }
            Event::Policy { cpu, event, .. } => {
                let c = cpu.map(|c| format!(" cpu {c}")).unwrap_or_default();
                let mut fields = serde_json::to_value(event).unwrap_or_default();
                if let Some(o) = fields.as_object_mut() {
                    o.remove("kind");
                }
                format!("{t}{c} policy {} {fields}", event.kind())
            }
            Event::Note { cpu, name, data, .. } => {
                let c = cpu.map(|c| format!(" cpu {c}")).unwrap_or_default();
                if data.is_null() {
                    format!("{t}{c} note {name}")
                } else {
                    format!("{t}{c} note {name} {data}")
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_jobs() {
        assert_eq!(time(12_500_000), "12.5ms");
        assert_eq!(time(0), "0ns");
        let n = Names::new(vec!["T1".into(), "video".into()]);
        assert_eq!(n.job(JobRef { task: 1, job: 4 }), "video#4");
        assert_eq!(n.event(&Event::SwitchTo { t: 1_000_000, cpu: 1, task: 0, job: 2 }), "1ms cpu 1 switch-to T1#2");
        assert_eq!(policy_title("gedf"), "G-EDF");
        assert_eq!(policy_title("pd2"), "PD^2");
        assert_eq!(policy_title("sched-other"), "sched-other");
    }
}
