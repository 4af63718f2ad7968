//! PD^2 megatasks (Calandrino 2009 §3.2.1, after Anderson, Calandrino &
//! Devi, RTAS 2006): a megatask is a set of tasks that the top-level PD^2
//! schedules as one entity, and that PD^2 schedules among themselves.
//!
//! A megatask of total weight u gets ⌊u⌋ CPUs every quantum, plus one more
//! in each quantum the top level schedules its *special task*, a PD^2 task
//! of weight u − ⌊u⌋; inside, its tasks' eligible subtasks take those
//! allocations in PD^2 priority order. So at most ⌈u⌉ of its tasks ever run
//! together: grouping tasks whose working sets thrash the cache when more
//! than ⌈u⌉ of them run keeps them from thrashing it.
//!
//! The top level schedules the tasks in no megatask and the special tasks,
//! by PD^2, on the m − Σ⌊u⌋ CPUs the whole allocations leave. An allocation
//! a megatask cannot use (none of its subtasks eligible) idles.
//!
//! **Reweighting** (the dissertation's second remedy for the deadline misses
//! the misalignment of special-task quanta and component windows causes;
//! its formula is in the RTAS 2006 paper, not in the dissertation, notes
//! §2.4): decided here as rounding the special task up to weight 1, i.e.
//! ⌈u⌉ whole CPUs, with which PD^2 inside meets every deadline (total
//! weight ≤ ⌈u⌉ CPUs) at the cost of up to one CPU's idle fraction
//! ⌈u⌉ − u per megatask. Without it (the default) the exact weight is used
//! and tardiness is bounded, not zero (the first remedy).
//!
//! [`pack_greedy`] is the dissertation's packing.

use super::key::Key;
use super::subtasks::{Pos, Subtasks, TABLE_BUDGET};
use super::window::Weight;
use super::{key, Pd2, NONE};

/// A task to pack: its weight e/p (quanta) and its working set (the owner:
/// its MTT or itself, counted once however many of its tasks run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PackTask {
    pub e: u64,
    pub p: u64,
    pub owner: usize,
    pub wss: u64,
}

/// Exact sums of weights: numerators over the common denominator `l`.
fn lcm_of(ps: impl Iterator<Item = u64>) -> Option<u128> {
    let mut l: u128 = 1;
    for p in ps {
        let p = p as u128;
        l = (l / num_integer::gcd(l, p)).checked_mul(p)?;
    }
    Some(l)
}

/// The dissertation's greedy packing (§3.2.1): tasks by decreasing
/// working-set size (ties: lower owner, then lower task index), one
/// megatask at a time. A task joins the current megatask if its weight
/// keeps the megatask within the same integer (⌈u + u_T⌉ = ⌈u⌉), or else if
/// the k = ⌈u + u_T⌉ largest working sets among the megatask's owners with
/// it fit `cache` (any k tasks that may then run together do not thrash);
/// otherwise the megatask is closed and the task opens the next. Returns
/// the megatasks as task indices in packing order, or `None` when the
/// periods' least common multiple overflows.
pub(crate) fn pack_greedy(tasks: &[PackTask], cache: u64) -> Option<Vec<Vec<usize>>> {
    let l = lcm_of(tasks.iter().map(|t| t.p))?;
    let w = |t: &PackTask| t.e as u128 * (l / t.p as u128);
    let ceil = |x: u128| x.div_ceil(l);
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(tasks[i].wss), tasks[i].owner, i));
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    let mut u: u128 = 0;
    for i in order {
        let t = &tasks[i];
        let joined = u + w(t);
        let fits = cur.is_empty() || ceil(joined) == ceil(u) || {
            let k = ceil(joined) as usize;
            // Each owner's working set once, the k largest.
            let mut owners: Vec<(usize, u64)> =
                cur.iter().chain([&i]).map(|&j| (tasks[j].owner, tasks[j].wss)).collect();
            owners.sort_unstable();
            owners.dedup_by_key(|o| o.0);
            let mut sizes: Vec<u64> = owners.into_iter().map(|o| o.1).collect();
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            sizes.iter().take(k).map(|&s| s as u128).sum::<u128>() <= cache as u128
        };
        if !fits {
            out.push(std::mem::take(&mut cur));
            u = 0;
        }
        cur.push(i);
        u += w(t);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Some(out)
}

/// The weight of a megatask of `members` (weights e/p): ⌊u⌋ and the
/// fractional part as a reduced weight (`None` when u is an integer), or
/// `None` when the arithmetic overflows.
pub(crate) fn split_weight(weights: &[(u64, u64)], members: &[usize]) -> Option<(u64, Option<(u64, u64)>)> {
    let l = lcm_of(members.iter().map(|&i| weights[i].1))?;
    let mut sum: u128 = 0;
    for &i in members {
        let (e, p) = weights[i];
        sum = sum.checked_add((e as u128).checked_mul(l / p as u128)?)?;
    }
    let whole = u64::try_from(sum / l).ok()?;
    let rest = sum % l;
    if rest == 0 {
        return Some((whole, None));
    }
    let g = num_integer::gcd(rest, l);
    Some((whole, Some((u64::try_from(rest / g).ok()?, u64::try_from(l / g).ok()?))))
}

/// One megatask as built: its tasks, its whole CPUs and its special task's
/// weight (`None`: no special task).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MegataskParams {
    pub members: Vec<usize>,
    pub whole: u64,
    pub special: Option<(u64, u64)>,
}

struct Special {
    s: Subtasks,
    next: Pos,
}

/// The megatasks' state.
pub(crate) struct Megatasks {
    /// Per task: its megatask, `NONE` for none.
    of: Vec<u32>,
    whole: Vec<u32>,
    special: Vec<Option<Special>>,
    /// CPUs of the top level: m − Σ whole.
    top_cpus: usize,
    /// Scratch: the candidates of a boundary, the top level's entries, and
    /// each megatask's allocations.
    cand: Vec<(Key, u32)>,
    top: Vec<(Key, u32)>,
    alloc: Vec<u32>,
}

impl Megatasks {
    pub fn new(tasks: usize, m: u32, megatasks: &[MegataskParams]) -> Megatasks {
        let mut of = vec![NONE; tasks];
        for (g, mt) in megatasks.iter().enumerate() {
            for &i in &mt.members {
                of[i] = g as u32;
            }
        }
        let whole: Vec<u32> = megatasks.iter().map(|mt| mt.whole as u32).collect();
        let special = megatasks
            .iter()
            .map(|mt| {
                mt.special
                    .map(|(e, p)| Special { s: Subtasks::new(Weight::new(e, p), TABLE_BUDGET).0, next: Pos::FIRST })
            })
            .collect();
        let used: u32 = whole.iter().sum();
        Megatasks {
            of,
            top_cpus: m.saturating_sub(used) as usize,
            whole,
            special,
            cand: Vec::with_capacity(tasks),
            top: Vec::with_capacity(tasks + megatasks.len()),
            alloc: vec![0; megatasks.len()],
        }
    }
}

impl Pd2 {
    /// Fills `picked` with the tasks whose subtasks run in the aligned
    /// quantum at `t`: the top level's choice among the tasks in no
    /// megatask and the special tasks, then each megatask's allocations by
    /// PD^2 among its tasks.
    pub(super) fn pick_megatasks(&mut self, t: u64) {
        let tq = t / self.q;
        let mt = self.megatasks.as_mut().expect("megatask mode");
        let n = self.tasks.len() as u32;
        mt.cand.clear();
        mt.cand.extend_from_slice(self.queue.candidates(t, usize::MAX));
        // The top level: tasks in no megatask and eligible special tasks
        // (periodic from 0; a subtask whose window ended while nothing ran
        // is skipped).
        mt.top.clear();
        mt.top.extend(mt.cand.iter().filter(|c| mt.of[c.1 as usize] == NONE).copied());
        for (g, sp) in mt.special.iter_mut().enumerate() {
            let Some(sp) = sp else { continue };
            while sp.s.entry(sp.next).d.saturating_add(sp.s.shift(sp.next, 0)) <= tq {
                sp.next = sp.s.after(sp.next);
            }
            if sp.s.release(sp.next, 0) <= tq {
                mt.top.push((key(sp.s.entry(sp.next), sp.s.shift(sp.next, 0)), n + g as u32));
            }
        }
        mt.top.sort_unstable();
        mt.alloc.copy_from_slice(&mt.whole);
        self.picked.clear();
        for &(_, id) in mt.top.iter().take(mt.top_cpus) {
            if id >= n {
                let g = (id - n) as usize;
                mt.alloc[g] += 1;
                let sp = mt.special[g].as_mut().expect("listed");
                sp.next = sp.s.after(sp.next);
            } else {
                self.picked.push(id);
            }
        }
        // Inside each megatask, in priority order (cand is sorted).
        for &(_, task) in &mt.cand {
            let g = mt.of[task as usize];
            if g != NONE && mt.alloc[g as usize] > 0 {
                mt.alloc[g as usize] -= 1;
                self.picked.push(task);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// G7 (notes §9.2, L917-919): 8 CPUs, 1 MB cache; (u, WSS) = (1/2,
    /// 300K) ×2, (2/10, 299K) ×2, (9/10, 298K) ×2, (3/10, 297K): megatasks
    /// of weights 23/10 and 12/10.
    #[test]
    fn golden_g7_greedy_packing() {
        let k = 1000;
        let spec = [(1, 2, 300), (1, 2, 300), (2, 10, 299), (2, 10, 299), (9, 10, 298), (9, 10, 298), (3, 10, 297)];
        let tasks: Vec<PackTask> =
            spec.iter().enumerate().map(|(i, &(e, p, w))| PackTask { e, p, owner: i, wss: w * k }).collect();
        let packed = pack_greedy(&tasks, 1_000_000).unwrap();
        assert_eq!(packed, vec![vec![0, 1, 2, 3, 4], vec![5, 6]]);
        let weights: Vec<(u64, u64)> = spec.iter().map(|&(e, p, _)| (e, p)).collect();
        assert_eq!(split_weight(&weights, &packed[0]), Some((2, Some((3, 10)))));
        assert_eq!(split_weight(&weights, &packed[1]), Some((1, Some((1, 5)))));
        // The tasks of one MTT count their working set once: the same set as
        // one MTT fits any number of them in the cache, and one megatask
        // takes all.
        let one: Vec<PackTask> = tasks.iter().map(|t| PackTask { owner: 0, wss: 300 * k, ..*t }).collect();
        assert_eq!(pack_greedy(&one, 1_000_000).unwrap().len(), 1);
    }

    #[test]
    fn the_weight_of_a_megatask() {
        assert_eq!(split_weight(&[(1, 2), (1, 2)], &[0, 1]), Some((1, None)));
        assert_eq!(split_weight(&[(3, 5), (3, 5), (3, 5)], &[0, 1, 2]), Some((1, Some((4, 5)))));
    }
}
