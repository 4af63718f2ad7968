//! The memory token of memory-centric scheduling (`mcs`) seen from a
//! trace's `token-*` policy events: how long memory phases waited for the
//! token (request to grant), how often a phase lost it to a higher memory
//! priority, and — the latency of the arbiter on real threads — how long a
//! job granted the token while off its CPU took to run again (grant to its
//! next switch-to). Computed from the events alone, so a recorded run and a
//! simulation report the same figures; in a simulation a grant is acted on
//! at its own instant, so the grant-to-run latency is 0.

use crate::event::Time;
use crate::histogram::Histogram;
use crate::JobRef;
use schedlab_model::PolicyEvent;
use serde::Serialize;
use std::collections::HashMap;

/// Latencies of one kind, in ns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyStats {
    pub count: u64,
    pub mean: f64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

impl LatencyStats {
    fn of(h: &Histogram) -> Option<LatencyStats> {
        (h.count() > 0).then(|| LatencyStats {
            count: h.count(),
            mean: h.mean(),
            p50: h.quantile(0.5),
            p99: h.quantile(0.99),
            max: h.max(),
        })
    }
}

/// The memory token over a trace (left out of the JSON without token events).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TokenStats {
    /// Requests and grants of the tasks' own memory phases.
    pub requests: u64,
    pub grants: u64,
    /// Grants to the memory-phase worker (A-MP), for the tasks' jobs.
    pub worker_grants: u64,
    /// Memory phases that lost the token to a higher memory priority.
    pub preemptions: u64,
    /// Request to grant of the tasks' own phases (the wait for the token).
    pub wait: Option<LatencyStats>,
    /// Grant to the job's next switch-to, for grants to a job that was not
    /// running (it waited off its CPU): the arbiter's hand-over latency.
    pub grant_to_run: Option<LatencyStats>,
}

/// The accumulator: O(phases in flight) memory.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tokens {
    seen: bool,
    requests: u64,
    grants: u64,
    worker_grants: u64,
    preemptions: u64,
    /// Open requests (own phases): the request instant.
    requested: HashMap<JobRef, Time>,
    /// Grants to jobs off their CPU: the grant instant.
    granted_off_cpu: HashMap<JobRef, Time>,
    wait: Histogram,
    grant_to_run: Histogram,
}

impl Tokens {
    /// A policy event at `t`; `running`: whether the event's job is on a CPU.
    pub fn policy(&mut self, t: Time, event: &PolicyEvent, running: impl Fn(JobRef) -> bool) {
        let (key, worker) = match *event {
            PolicyEvent::TokenRequest { task, job, worker }
            | PolicyEvent::TokenGrant { task, job, worker }
            | PolicyEvent::TokenRelease { task, job, worker }
            | PolicyEvent::TokenPreempt { task, job, worker } => (JobRef { task, job }, worker),
            _ => return,
        };
        self.seen = true;
        match *event {
            PolicyEvent::TokenRequest { .. } if !worker => {
                self.requests += 1;
                self.requested.insert(key, t);
            }
            PolicyEvent::TokenGrant { .. } if worker => self.worker_grants += 1,
            PolicyEvent::TokenGrant { .. } => {
                self.grants += 1;
                if let Some(at) = self.requested.remove(&key) {
                    self.wait.add(t.saturating_sub(at));
                }
                if !running(key) {
                    self.granted_off_cpu.insert(key, t);
                }
            }
            PolicyEvent::TokenPreempt { .. } => self.preemptions += 1,
            _ => {}
        }
    }

    /// The job was switched to at `t`.
    #[inline]
    pub fn switched_to(&mut self, t: Time, key: JobRef) {
        if self.granted_off_cpu.is_empty() {
            return;
        }
        if let Some(at) = self.granted_off_cpu.remove(&key) {
            self.grant_to_run.add(t.saturating_sub(at));
        }
    }

    /// The job left the trace (completed or aborted). Without token events
    /// (every policy but `mcs`) the maps are empty and nothing is hashed.
    #[inline]
    pub fn ended(&mut self, key: JobRef) {
        if !self.requested.is_empty() {
            self.requested.remove(&key);
        }
        if !self.granted_off_cpu.is_empty() {
            self.granted_off_cpu.remove(&key);
        }
    }

    pub fn stats(&self) -> Option<TokenStats> {
        self.seen.then(|| TokenStats {
            requests: self.requests,
            grants: self.grants,
            worker_grants: self.worker_grants,
            preemptions: self.preemptions,
            wait: LatencyStats::of(&self.wait),
            grant_to_run: LatencyStats::of(&self.grant_to_run),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: &str, task: u32, job: u64, worker: bool) -> PolicyEvent {
        match kind {
            "request" => PolicyEvent::TokenRequest { task, job, worker },
            "grant" => PolicyEvent::TokenGrant { task, job, worker },
            "release" => PolicyEvent::TokenRelease { task, job, worker },
            _ => PolicyEvent::TokenPreempt { task, job, worker },
        }
    }

    /// Figures 5/6 of the paper: τ2 (task 1) holds the token from 0, τ1
    /// (task 0) asks at 1 and preempts it, gives it back at 2; τ2 is granted
    /// again at 2 while off its CPU and runs at 2.05.
    #[test]
    fn waits_preemptions_and_the_hand_over() {
        let mut k = Tokens::default();
        let a = JobRef { task: 1, job: 0 };
        let b = JobRef { task: 0, job: 0 };
        k.policy(0, &ev("request", 1, 0, false), |_| true);
        k.policy(0, &ev("grant", 1, 0, false), |_| true);
        k.policy(1_000, &ev("request", 0, 0, false), |_| true);
        k.policy(1_000, &ev("preempt", 1, 0, false), |_| true);
        k.policy(1_000, &ev("grant", 0, 0, false), |_| true);
        k.policy(2_000, &ev("release", 0, 0, false), |_| true);
        k.policy(2_000, &ev("grant", 1, 0, false), |j| j != a);
        k.switched_to(2_050, b); // not the granted job
        k.switched_to(2_050, a);
        k.policy(2_500, &ev("grant", 0, 1, true), |_| false);
        let s = k.stats().expect("token events");
        assert_eq!((s.requests, s.grants, s.worker_grants, s.preemptions), (2, 3, 1, 1));
        let w = s.wait.expect("waits");
        assert_eq!((w.count, w.max, w.p50), (2, 0, 0), "both requests were granted at once");
        let g = s.grant_to_run.expect("one hand-over");
        assert_eq!((g.count, g.max), (1, 50));
    }

    #[test]
    fn a_trace_without_tokens_has_no_stats() {
        let mut k = Tokens::default();
        k.policy(0, &PolicyEvent::Server { server: None }, |_| true);
        assert!(k.stats().is_none());
    }
}
