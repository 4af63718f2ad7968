//! The memory-phase worker (MPW) of asynchronous memory phases (A-MP;
//! Rivas et al., ECRTS 2019, §4.3.2; seed notes 002 §A2.3): a task on the
//! master CPU that runs memory phases on behalf of `amp` jobs while they
//! execute. It serves a FIFO of requests one at a time, each as an S-MP:
//! it asks the memory-phase scheduler for the token with the lowest memory
//! priority (so it never delays a task's own phase), runs the phase while
//! it holds the token — above every task of the master CPU, which it keeps
//! from running meanwhile — and is suspended when a task's phase takes the
//! token from it.
//!
//! This type holds the worker's queue and state; the policy
//! ([`super::Mcs`]) drives it (token, timers, the master CPU) and tells the
//! driver when the master CPU works for it (`Kernel::occupy`): on real
//! threads a thread of the dispatch backend pinned there does the copies.

use crate::interface::{JobId, Time, TimerId};
use std::collections::VecDeque;

/// One request: a memory phase of `job`, its task's segment `segment`
/// (of `Task::segments`), of `left` ns still to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Request {
    pub job: JobId,
    pub segment: u32,
    pub left: Time,
    pub np: bool,
}

/// What the worker does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Nothing to do.
    Idle,
    /// It asked for the token for its current request, and waits for it
    /// (or was preempted and waits to get it back).
    Asking,
    /// It holds the token and runs its current request since `since`; the
    /// timer fires when the request is done.
    Running { since: Time, timer: TimerId },
}

#[derive(Debug)]
pub(crate) struct Worker {
    fifo: VecDeque<Request>,
    current: Option<Request>,
    pub state: State,
}

impl Worker {
    pub fn new() -> Worker {
        Worker { fifo: VecDeque::new(), current: None, state: State::Idle }
    }

    /// Queues a request.
    pub fn push(&mut self, r: Request) {
        self.fifo.push_back(r);
    }

    /// The request it serves.
    pub fn current(&self) -> Option<Request> {
        self.current
    }

    /// When idle with requests queued: the next becomes current (the
    /// caller asks for the token).
    pub fn next(&mut self) -> Option<Request> {
        if self.current.is_some() {
            return None;
        }
        self.current = self.fifo.pop_front();
        self.current
    }

    /// It runs from `now`: the instant its current request is done.
    pub fn run(&mut self, now: Time) -> Time {
        now.saturating_add(self.current.map_or(0, |r| r.left))
    }

    /// Its token was taken at `now`: the run so far is subtracted.
    pub fn preempted(&mut self, now: Time) {
        if let (State::Running { since, .. }, Some(r)) = (self.state, self.current.as_mut()) {
            r.left = r.left.saturating_sub(now.saturating_sub(since));
        }
        self.state = State::Asking;
    }

    /// The current request is done.
    pub fn finish(&mut self) -> Option<Request> {
        self.state = State::Idle;
        self.current.take()
    }

    /// Whether it runs (holds the token and works) now.
    pub fn running(&self) -> bool {
        matches!(self.state, State::Running { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_served_first_in_first_out_and_a_preemption_keeps_what_was_done() {
        let mut w = Worker::new();
        let j = |task| JobId { task, seq: 0 };
        w.push(Request { job: j(2), segment: 2, left: 10, np: false });
        w.push(Request { job: j(1), segment: 3, left: 5, np: false });
        assert_eq!(w.next().map(|r| r.job.task), Some(2));
        assert_eq!(w.next(), None, "one at a time");
        w.state = State::Running { since: 100, timer: TimerId(0) };
        w.preempted(104);
        assert_eq!(w.current().map(|r| r.left), Some(6));
        assert_eq!(w.run(200), 206);
        assert_eq!(w.finish().map(|r| r.job.task), Some(2));
        assert_eq!(w.next().map(|r| r.job.task), Some(1));
    }
}
