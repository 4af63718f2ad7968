//! H-CBS's assignment at an instant: which queue each CPU serves, then
//! which tasks run on the CPUs serving a queue.

use super::{Hcbs, NONE};
use crate::interface::{JobId, Time};

impl Hcbs {
    /// The job and queue each CPU should run now (`NONE` queue: background).
    pub(super) fn assign(&self) -> Vec<Option<(JobId, usize)>> {
        let m = self.assigned.len();
        // A job running inside a non-preemptive section is boosted: it
        // keeps its CPU, and the CPU serves its group, before anything else
        // (Fig. 2's order).
        let boosted: Vec<Option<(JobId, usize)>> =
            (0..m).map(|c| self.held[c].filter(|&(j, _)| self.boosted(j))).collect();
        let is_boosted = |t: u32| boosted.iter().flatten().any(|(j, _)| j.task == t);
        let mut left: Vec<usize> =
            self.nodes.iter().map(|n| n.tasks.iter().filter(|&&t| self.ready(t) && !is_boosted(t)).count()).collect();
        // First the CPUs that keep serving the queue they serve (when it is
        // still their first choice with a task left), then the others, each
        // in CPU order: a task does not move for nothing.
        let prefs: Vec<Vec<usize>> = (0..m)
            .map(|c| {
                let mut order = Vec::new();
                self.preference(c, &self.roots, &mut order);
                order
            })
            .collect();
        let mut serving: Vec<usize> = vec![NONE; m];
        for keep in [true, false] {
            for c in 0..m {
                if serving[c] != NONE || boosted[c].is_some() {
                    continue;
                }
                let Some(&q) = prefs[c].iter().find(|&&q| left[q] > 0) else { continue };
                if !keep || self.held[c].is_some_and(|(_, a)| a == q) {
                    left[q] -= 1;
                    serving[c] = q;
                }
            }
        }
        let mut next: Vec<Option<(JobId, usize)>> = boosted.clone();
        let queues: Vec<usize> = {
            let mut v: Vec<usize> = serving.iter().copied().filter(|&q| q != NONE).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        for q in queues {
            let cpus: Vec<usize> = (0..m).filter(|&c| serving[c] == q).collect();
            let chosen: Vec<u32> = self.nodes[q]
                .tasks
                .iter()
                .copied()
                .filter(|&t| self.ready(t) && !is_boosted(t))
                .take(cpus.len())
                .collect();
            self.place(&chosen, &cpus, q, &mut next);
        }
        let idle: Vec<usize> = (0..m).filter(|&c| serving[c] == NONE && boosted[c].is_none()).collect();
        let chosen: Vec<u32> =
            self.background.iter().copied().filter(|&t| self.ready(t) && !is_boosted(t)).take(idle.len()).collect();
        self.place(&chosen, &idle, NONE, &mut next);
        next
    }

    /// The queues CPU `c` would serve, best first: depth-first over the
    /// eligible servers with work, EDF at each level.
    fn preference(&self, c: usize, level: &[usize], out: &mut Vec<usize>) {
        let mut here: Vec<(Time, usize)> = level
            .iter()
            .filter_map(|&i| {
                let n = &self.nodes[i];
                let s = n.servers[c].as_ref()?;
                (n.backlogged && s.eligible()).then_some((s.deadline, i))
            })
            .collect();
        here.sort_unstable();
        for (_, i) in here {
            if self.nodes[i].children.is_empty() {
                out.push(i);
            } else {
                self.preference(c, &self.nodes[i].children, out);
            }
        }
    }

    /// Puts `chosen` on `cpus`: a task already on one of them stays there.
    fn place(&self, chosen: &[u32], cpus: &[usize], q: usize, next: &mut [Option<(JobId, usize)>]) {
        let job = |t: u32| JobId { task: t, seq: self.tasks[t as usize].job.unwrap_or(0) };
        let mut rest = Vec::new();
        for &t in chosen {
            let j = job(t);
            match cpus.iter().find(|&&c| self.held[c].is_some_and(|(a, _)| a == j)) {
                Some(&c) => next[c] = Some((j, q)),
                None => rest.push(j),
            }
        }
        let free: Vec<usize> = cpus.iter().copied().filter(|&c| next[c].is_none()).collect();
        for (j, c) in rest.into_iter().zip(free) {
            next[c] = Some((j, q));
        }
    }
}
