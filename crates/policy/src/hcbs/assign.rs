//! H-CBS's assignment at an instant: which queue each CPU serves, then
//! which tasks run on the CPUs serving a queue. Its working vectors are
//! kept between instants ([`Scratch`]): nothing is allocated per event once
//! they have grown.

use super::{Hcbs, NONE};
use crate::interface::{JobId, Time};

/// The assignment's working vectors, reused from one instant to the next.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Per CPU: its boosted job (inside a non-preemptive section) and queue.
    boosted: Vec<Option<(JobId, usize)>>,
    /// Per queue: ready tasks no CPU took yet.
    left: Vec<usize>,
    /// Per CPU: the queues it would serve, best first.
    prefs: Vec<Vec<usize>>,
    /// Per CPU: the queue it serves (`NONE`: none).
    serving: Vec<usize>,
    /// Per CPU: the job and queue it runs now (the result).
    pub next: Vec<Option<(JobId, usize)>>,
    cpus: Vec<usize>,
    chosen: Vec<u32>,
    rest: Vec<JobId>,
    /// Per node: work pending in its subtree (for the wake-up rule).
    pub pending: Vec<bool>,
}

impl Hcbs {
    /// Computes the job and queue each CPU should run now into
    /// `self.scratch.next` (`NONE` queue: background).
    pub(super) fn assign(&mut self) {
        let mut sc = std::mem::take(&mut self.scratch);
        self.assign_into(&mut sc);
        self.scratch = sc;
    }

    fn assign_into(&self, sc: &mut Scratch) {
        let m = self.assigned.len();
        // A job running inside a non-preemptive section is boosted: it
        // keeps its CPU, and the CPU serves its group, before anything else
        // (Fig. 2's order).
        sc.boosted.clear();
        sc.boosted.extend((0..m).map(|c| self.held[c].filter(|&(j, _)| self.boosted(j))));
        let boosted = &sc.boosted;
        let is_boosted = |t: u32| boosted.iter().flatten().any(|(j, _)| j.task == t);
        sc.left.clear();
        sc.left.extend(self.nodes.iter().map(|n| n.tasks.iter().filter(|&&t| self.ready(t) && !is_boosted(t)).count()));
        sc.prefs.resize_with(m, Vec::new);
        for (c, order) in sc.prefs.iter_mut().enumerate() {
            order.clear();
            self.preference(c, &self.roots, order);
        }
        // First the CPUs that keep serving the queue they serve (when it is
        // still their first choice with a task left), then the others, each
        // in CPU order: a task does not move for nothing.
        sc.serving.clear();
        sc.serving.resize(m, NONE);
        for keep in [true, false] {
            for (c, pinned) in boosted.iter().enumerate() {
                if sc.serving[c] != NONE || pinned.is_some() {
                    continue;
                }
                let Some(&q) = sc.prefs[c].iter().find(|&&q| sc.left[q] > 0) else { continue };
                if !keep || self.held[c].is_some_and(|(_, a)| a == q) {
                    sc.left[q] -= 1;
                    sc.serving[c] = q;
                }
            }
        }
        sc.next.clear();
        sc.next.extend_from_slice(boosted);
        // Each queue served, once (at its first CPU): its highest-priority
        // ready tasks on its CPUs. Queues take disjoint CPUs, so their order
        // does not matter.
        for first in 0..m {
            let q = sc.serving[first];
            if q == NONE || sc.serving[..first].contains(&q) {
                continue;
            }
            sc.cpus.clear();
            sc.cpus.extend((first..m).filter(|&c| sc.serving[c] == q));
            sc.chosen.clear();
            sc.chosen.extend(
                self.nodes[q].tasks.iter().copied().filter(|&t| self.ready(t) && !is_boosted(t)).take(sc.cpus.len()),
            );
            self.place(&sc.chosen, &sc.cpus, q, &mut sc.next, &mut sc.rest);
        }
        sc.cpus.clear();
        sc.cpus.extend((0..m).filter(|&c| sc.serving[c] == NONE && boosted[c].is_none()));
        sc.chosen.clear();
        sc.chosen
            .extend(self.background.iter().copied().filter(|&t| self.ready(t) && !is_boosted(t)).take(sc.cpus.len()));
        self.place(&sc.chosen, &sc.cpus, NONE, &mut sc.next, &mut sc.rest);
    }

    /// Appends the queues CPU `c` would serve to `out`, best first:
    /// depth-first over the eligible servers with work, EDF at each level
    /// (ties: tree order), picking each level's next server by a scan.
    fn preference(&self, c: usize, level: &[usize], out: &mut Vec<usize>) {
        let mut last: Option<(Time, usize)> = None;
        loop {
            let mut best: Option<(Time, usize)> = None;
            for &i in level {
                let n = &self.nodes[i];
                let Some(s) = n.servers[c].as_ref() else { continue };
                let key = (s.deadline, i);
                if !(n.backlogged && s.eligible()) || last.is_some_and(|l| key <= l) {
                    continue;
                }
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
            let Some(b) = best else { return };
            last = Some(b);
            if self.nodes[b.1].children.is_empty() {
                out.push(b.1);
            } else {
                self.preference(c, &self.nodes[b.1].children, out);
            }
        }
    }

    /// Puts `chosen` on `cpus`: a task already on one of them stays there,
    /// the others take the remaining CPUs in order.
    fn place(
        &self,
        chosen: &[u32],
        cpus: &[usize],
        q: usize,
        next: &mut [Option<(JobId, usize)>],
        rest: &mut Vec<JobId>,
    ) {
        rest.clear();
        for &t in chosen {
            let j = JobId { task: t, seq: self.tasks[t as usize].job.unwrap_or(0) };
            match cpus.iter().find(|&&c| self.held[c].is_some_and(|(a, _)| a == j)) {
                Some(&c) => next[c] = Some((j, q)),
                None => rest.push(j),
            }
        }
        // The CPUs still free, in order, for the others in priority order.
        let mut k = 0;
        for &j in rest.iter() {
            while k < cpus.len() && next[cpus[k]].is_some() {
                k += 1;
            }
            let Some(&c) = cpus.get(k) else { break };
            next[c] = Some((j, q));
            k += 1;
        }
    }
}
