//! Records violations: counts per check, the first violation of each with
//! the last events before it.

use crate::check::Check;
use crate::names::{time, Names};
use crate::report::Violation;
use schedlab_trace::{Event, Time};
use std::collections::VecDeque;

pub(crate) struct Recorder {
    pub counts: Vec<u64>,
    pub first: Vec<Option<Violation>>,
    ring: VecDeque<Event>,
    history: usize,
    pub names: Names,
    /// The policy's written name (`G-EDF`), for policy checks' labels.
    pub policy_title: String,
}

/// What a violation says, built only for the first one of a check.
pub(crate) struct Detail {
    pub body: String,
    pub ran: Vec<String>,
    pub expected: Vec<String>,
}

impl Detail {
    pub fn new(body: impl Into<String>) -> Detail {
        Detail { body: body.into(), ran: Vec::new(), expected: Vec::new() }
    }
    pub fn ran(mut self, ran: Vec<String>) -> Detail {
        self.ran = ran;
        self
    }
    pub fn expected(mut self, expected: Vec<String>) -> Detail {
        self.expected = expected;
        self
    }
}

impl Recorder {
    pub fn new(names: Names, history: usize, policy_title: String) -> Recorder {
        Recorder {
            counts: vec![0; Check::ALL.len()],
            first: vec![None; Check::ALL.len()],
            ring: VecDeque::with_capacity(history + 1),
            history,
            names,
            policy_title,
        }
    }

    /// Remembers an event for the context of later violations.
    pub fn push(&mut self, e: Event) {
        if self.history == 0 {
            return;
        }
        if self.ring.len() == self.history {
            self.ring.pop_front();
        }
        self.ring.push_back(e);
    }

    /// The label of a check in messages: `eligibility`, `G-EDF conformance`.
    pub fn label(&self, check: Check) -> String {
        if check.is_policy() && !self.policy_title.is_empty() {
            format!("{} {}", self.policy_title, check.name())
        } else {
            check.name().to_string()
        }
    }

    /// Counts a violation; builds its detail only if it is the check's first.
    pub fn violation(
        &mut self,
        check: Check,
        t: Time,
        detected: Time,
        cpu: Option<u32>,
        detail: impl FnOnce(&Names) -> Detail,
    ) {
        let i = check.index();
        self.counts[i] += 1;
        if self.first[i].is_some() {
            return;
        }
        let d = detail(&self.names);
        let cpu_s = cpu.map(|c| format!(" cpu {c}")).unwrap_or_default();
        let message = format!("t={}{cpu_s}: {}: {}", time(t), self.label(check), d.body);
        let raw: Vec<Event> = self.ring.iter().cloned().collect();
        self.first[i] = Some(Violation {
            check,
            t,
            detected,
            cpu,
            message,
            ran: d.ran,
            expected: d.expected,
            events: raw.iter().map(|e| self.names.event(e)).collect(),
            raw_events: raw,
        });
    }
}
