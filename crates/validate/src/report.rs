//! The validator's report: pass/fail, the first violation of each check with
//! the events leading to it, violation counts, deadline misses, overruns and
//! decision latencies. Serializable, and rendered for people by
//! [`Report::render`].

use crate::check::Check;
use crate::latency::LatencyReport;
use crate::names::time;
use schedlab_trace::{Event, Source, Time};
use serde::Serialize;

/// One violation of a check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    pub check: Check,
    /// When the deviation began.
    pub t: Time,
    /// When it was found to be a violation (after the tolerance elapsed);
    /// equals `t` for immediate violations.
    pub detected: Time,
    pub cpu: Option<u32>,
    /// The whole first line: `t=12.5ms cpu 1: G-EDF conformance: ...`.
    pub message: String,
    /// The jobs that ran (on the CPU or domain concerned).
    pub ran: Vec<String>,
    /// The jobs that should have run instead (empty when the rule is not
    /// about a choice, e.g. a job on two CPUs).
    pub expected: Vec<String>,
    /// The events leading to the violation, oldest first (rendered).
    pub events: Vec<String>,
    /// The same events as recorded.
    #[serde(skip)]
    pub raw_events: Vec<Event>,
}

impl Violation {
    /// The message followed by the preceding events, one per line.
    pub fn render(&self) -> String {
        let mut s = self.message.clone();
        if !self.events.is_empty() {
            s.push_str("\n  preceding events:");
            for e in &self.events {
                s.push_str("\n    ");
                s.push_str(e);
            }
        }
        s
    }
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    pub check: Check,
    pub rule: &'static str,
    pub violations: u64,
    pub first: Option<Violation>,
}

/// A job that missed its deadline (not a violation: schedulability is the
/// analysis' business; the OSPERT 2009 completion and deadline tests T1/T3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Miss {
    pub job: String,
    pub deadline: Time,
    /// Completion time, or `None` when the job was unfinished at the horizon.
    pub completed: Option<Time>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Misses {
    pub count: u64,
    /// Jobs unfinished at the horizon although their deadline had passed.
    pub unfinished: u64,
    /// Largest completion − deadline among completed jobs.
    pub max_tardiness: Time,
    pub first: Vec<Miss>,
}

/// A job that executed longer than its WCET, as the spec's `executions`
/// list allows (information, not a violation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Overrun {
    pub job: String,
    pub executed: Time,
    pub wcet: Time,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Overruns {
    pub count: u64,
    pub first: Vec<Overrun>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct JobCounts {
    pub released: u64,
    pub completed: u64,
    /// Released and not completed at the horizon.
    pub pending: u64,
    /// Most jobs the validator held at once (its memory is proportional to this).
    pub peak_in_flight: u64,
}

/// Which policy checks ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyChecks {
    PriorityDriven,
    Replay,
    /// Generic invariants only.
    None,
}

/// The validator's verdict on a trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// No check found a violation.
    pub pass: bool,
    /// The policy's name (`gedf`), when it was built.
    pub policy: Option<String>,
    pub policy_checks: PolicyChecks,
    pub source: Source,
    pub tolerance: Time,
    pub horizon: Time,
    pub events: u64,
    pub jobs: JobCounts,
    /// Every check that ran, in a fixed order.
    pub checks: Vec<CheckReport>,
    pub misses: Misses,
    pub overruns: Overruns,
    /// Decision latencies (with policy checks only).
    pub latency: Option<LatencyReport>,
    /// Remarks (checks skipped and why).
    pub notes: Vec<String>,
}

impl Report {
    /// The report of one check, if it ran.
    pub fn check(&self, check: Check) -> Option<&CheckReport> {
        self.checks.iter().find(|c| c.check == check)
    }

    /// Violations of one check (0 when it did not run).
    pub fn violations(&self, check: Check) -> u64 {
        self.check(check).map_or(0, |c| c.violations)
    }

    /// The first violation of one check.
    pub fn first(&self, check: Check) -> Option<&Violation> {
        self.check(check).and_then(|c| c.first.as_ref())
    }

    /// The earliest violation of any check.
    pub fn first_violation(&self) -> Option<&Violation> {
        self.checks.iter().filter_map(|c| c.first.as_ref()).min_by_key(|v| (v.t, v.detected))
    }

    /// The checks that found violations.
    pub fn failed(&self) -> Vec<Check> {
        self.checks.iter().filter(|c| c.violations > 0).map(|c| c.check).collect()
    }

    /// A human-readable report.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let policy = match (&self.policy, self.policy_checks) {
            (Some(p), PolicyChecks::PriorityDriven) => format!("{p}, priority-driven conformance"),
            (Some(p), PolicyChecks::Replay) => format!("{p}, replay"),
            (Some(p), PolicyChecks::None) => format!("{p}, generic checks only"),
            (None, _) => "generic checks only".to_string(),
        };
        let _ = writeln!(
            s,
            "{}: {policy}; {} events to {}, tolerance {}",
            if self.pass { "PASS" } else { "FAIL" },
            self.events,
            time(self.horizon),
            time(self.tolerance)
        );
        let _ = writeln!(
            s,
            "jobs: {} released, {} completed, {} pending at the horizon",
            self.jobs.released, self.jobs.completed, self.jobs.pending
        );
        let width = self.checks.iter().map(|c| c.check.name().len()).max().unwrap_or(0);
        for c in &self.checks {
            let verdict = match c.violations {
                0 => "ok".to_string(),
                1 => "1 violation".to_string(),
                n => format!("{n} violations"),
            };
            let _ = writeln!(s, "  {:width$}  {verdict}", c.check.name());
        }
        for c in self.checks.iter().filter(|c| c.first.is_some()) {
            let _ = writeln!(s, "\n{}", c.first.as_ref().map(Violation::render).unwrap_or_default());
        }
        if self.misses.count > 0 {
            let _ = write!(
                s,
                "\ndeadline misses: {} ({} unfinished at the horizon), max tardiness {}:",
                self.misses.count,
                self.misses.unfinished,
                time(self.misses.max_tardiness)
            );
            for m in &self.misses.first {
                match m.completed {
                    Some(c) => {
                        let _ = write!(s, "\n  {} deadline {} completed {}", m.job, time(m.deadline), time(c));
                    }
                    None => {
                        let _ = write!(s, "\n  {} deadline {} unfinished", m.job, time(m.deadline));
                    }
                }
            }
            s.push('\n');
        } else {
            s.push_str("\ndeadline misses: none\n");
        }
        if self.overruns.count > 0 {
            let _ = write!(s, "overruns allowed by the spec's executions: {}", self.overruns.count);
            for o in &self.overruns.first {
                let _ = write!(s, "\n  {} executed {} (wcet {})", o.job, time(o.executed), time(o.wcet));
            }
            s.push('\n');
        }
        if let Some(l) = &self.latency {
            let _ = writeln!(s, "decision latency (event until the assignment conforms again):");
            for (name, st) in
                [("all", &l.all), ("release", &l.release), ("completion", &l.completion), ("resume", &l.resume)]
            {
                if st.count > 0 {
                    let _ = writeln!(
                        s,
                        "  {name:10} n={} min {} mean {} p99 {} max {}",
                        st.count,
                        time(st.min),
                        time(st.mean),
                        time(st.p99),
                        time(st.max)
                    );
                }
            }
            if l.unresolved > 0 {
                let _ = writeln!(s, "  {} events never followed by a conforming assignment", l.unresolved);
            }
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }
}
