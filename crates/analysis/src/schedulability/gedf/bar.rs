//! BAR (Baruah 2007), in integer time. A miss of τₖ's job at t_d, released
//! at t_a = t_d − Dₖ, is preceded by an interval [t_a − Aₖ, t_a) during
//! which all m CPUs are busy; over [t_a − Aₖ, t_d] τₖ's job waits at least
//! Aₖ + Dₖ − Cₖ + 1 time units (it runs at most Cₖ − 1), so with
//! t = Aₖ + Dₖ and x = Aₖ + Dₖ − Cₖ + 1:
//!
//!   I1ᵢ = min(dbf(τᵢ, t), x),   I2ᵢ = min(dbf′(τᵢ, t), x)          (i ≠ k)
//!   I1ₖ = min(dbf(τₖ, t) − Cₖ, Aₖ),  I2ₖ = min(dbf′(τₖ, t) − Cₖ, Aₖ)
//!   dbf′(τᵢ, t) = ⌊t/Tᵢ⌋·Cᵢ + min(Cᵢ, t mod Tᵢ)                      (carry-in)
//!
//! and a miss needs Σ I1 + Σ_{m−1 largest} (I2 − I1) ≥ m·x. The set is
//! schedulable if for every k and every Aₖ checked the left side is below
//! m·x. The paper's form waits "more than Dₖ − Cₖ" and caps at
//! Aₖ + Dₖ − Cₖ; in integer time "at least Dₖ − Cₖ + 1" is the same
//! statement, and the cap and bound move by one accordingly.
//!
//! Aₖ ranges over the paper's bound
//! (Aₖ + Dₖ)·(m − U) ≤ C_Σ + Σᵢ (Tᵢ − Dᵢ)·uᵢ + m·Cₖ (C_Σ the m − 1 largest
//! WCETs), decided exactly per point. Test points: Aₖ = 0 and every Aₖ with
//! Aₖ + Dₖ = Dᵢ + j·Tᵢ (a step of some dbf), as in the paper. At most
//! [`MAX_POINTS`] evaluations per set: beyond that (U close to m makes the
//! range pseudo-polynomially long) the test answers inconclusive and says
//! it was skipped.

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::exact::{cmp_sum, int};
use super::explain::{explained, ns, Explain, Names, Quiet};
#[cfg(test)]
use super::load::dbf;
use super::model::{precheck, Needs};
use super::piecewise::divmod;
use schedlab_model::PolicyName;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

pub const ID: &str = "gedf.bar";

/// Test points evaluated per set at most.
pub const MAX_POINTS: usize = 50_000;

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF, Baruah's busy-interval test (BAR), integer time",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter, constrained deadlines (D ≤ T), U < m, integer time (ns)",
    exactness: Exactness::Sufficient,
    source: "Baruah 2007 (RTSS), Techniques for multiprocessor global schedulability analysis",
};

/// The task model the test needs (checked by `precheck`).
pub const NEEDS: Needs = Needs { constrained: true, min_cpus: 0, u_below_m: true };

/// dbf′(τᵢ, t): demand with a carried-in job.
#[cfg(test)]
fn dbf_carry(ti: &TaskParams, t: u128) -> u128 {
    let (c, p) = (ti.wcet as u128, ti.period as u128);
    (t / p) * c + c.min(t % p)
}

/// The left side Σ I1 + Σ_{m−1 largest} (I2 − I1) at Aₖ = a; `diffs` is
/// scratch. The definition, computed directly (the tests' reference; the
/// search uses [`lhs_at`]).
#[cfg(test)]
fn lhs(tasks: &[TaskParams], m: u32, k: usize, a: u128, diffs: &mut Vec<u128>) -> u128 {
    let tk = &tasks[k];
    let t = a + tk.deadline as u128;
    let x = t - tk.wcet as u128 + 1;
    let mut s1: u128 = 0;
    diffs.clear();
    for (i, ti) in tasks.iter().enumerate() {
        let (i1, i2) = if i == k {
            let c = ti.wcet as u128;
            ((dbf(ti, t) - c).min(a), (dbf_carry(ti, t) - c).min(a))
        } else {
            (dbf(ti, t).min(x), dbf_carry(ti, t).min(x))
        };
        s1 += i1;
        if i2 > i1 {
            diffs.push(i2 - i1);
        }
    }
    let top = (m as usize).saturating_sub(1);
    if diffs.len() > top {
        if top == 0 {
            diffs.clear();
        } else {
            let cut = diffs.len() - top;
            diffs.select_nth_unstable(cut);
            diffs.drain(..cut);
        }
    }
    s1 + diffs.iter().sum::<u128>()
}

/// Is Aₖ = a within the paper's range (exactly)?
fn in_range(tasks: &[TaskParams], m: u32, k: usize, a: u128, c_sigma: u128) -> bool {
    // Σᵢ Cᵢ·(a + Dₖ + Tᵢ − Dᵢ)/Tᵢ ≥ m·(a + Dₖ) − C_Σ − m·Cₖ.
    let tk = &tasks[k];
    let w = a + tk.deadline as u128;
    let rhs = (m as i128) * (w as i128) - c_sigma as i128 - m as i128 * tk.wcet as i128;
    let n = tasks.len();
    cmp_sum(
        n,
        |i| {
            (
                tasks[i].wcet as i128 * (w + tasks[i].period as u128 - tasks[i].deadline as u128) as i128,
                tasks[i].period as u128,
            )
        },
        (rhs, 1),
    ) != Ordering::Less
}

#[derive(Debug, PartialEq, Eq)]
enum Found {
    Pass { points: usize },
    Miss { k: usize, a: u128, value: u128, bound: u128 },
    Skipped { points: usize },
}

/// One task's demand position at window length t: ⌊t/Tᵢ⌋·Cᵢ and t mod Tᵢ,
/// moved forward by subtraction as t grows (the candidates of one k are
/// visited in increasing order), so the dbfs need no division:
/// dbf(τᵢ, t) = (⌊t/Tᵢ⌋ + [t mod Tᵢ ≥ Dᵢ])·Cᵢ (Dᵢ ≤ Tᵢ), dbf′(τᵢ, t) = ⌊t/Tᵢ⌋·Cᵢ + min(Cᵢ, t mod Tᵢ).
#[derive(Clone, Copy)]
struct Pos {
    c: u64,
    d: u64,
    t: u64,
    qc: u64,
    r: u64,
    /// 1/Tᵢ, for a long move (skipped points).
    inv: f64,
}

/// Moves a position forward by `delta`.
#[inline]
fn advance(p: &mut Pos, delta: u64) {
    p.r += delta;
    if p.r >= p.t {
        if p.r < 2 * p.t {
            p.r -= p.t;
            p.qc += p.c;
        } else {
            // Positions stay below 2⁵⁸ (steps below 2⁵⁷, plus one period).
            let (q, r) = divmod(p.r as i64, p.t as i64, p.inv);
            p.r = r as u64;
            p.qc += q as u64 * p.c;
        }
    }
}

/// The left side (Σ I1 + Σ_{m−1 largest} (I2 − I1)) from the positions, moved forward by `delta` to t = a + Dₖ
/// here (same value), and the number of tasks whose I1 is capped (by x,
/// or by Aₖ for τₖ). With a small `top` (`top.len()` is min(m − 1, n),
/// at most 8) the largest differences are kept in it, sorted, largest
/// first (zeroed here); otherwise `diffs` collects them.
fn lhs_at(
    pos: &mut [Pos],
    delta: u64,
    k: usize,
    a: u64,
    x: u64,
    top: &mut [u64],
    diffs: &mut Vec<u128>,
) -> (u128, u32) {
    let small = top.len() <= 8;
    top.fill(0);
    diffs.clear();
    let (mut s1, mut capped): (u128, u32) = (0, 0);
    for (i, p) in pos.iter_mut().enumerate() {
        advance(p, delta);
        let dbf = p.qc + if p.r >= p.d { p.c } else { 0 };
        let carry = p.qc + p.c.min(p.r);
        let (dbf, carry, cap) = if i == k { (dbf - p.c, carry - p.c, a) } else { (dbf, carry, x) };
        let (i1, i2) = (dbf.min(cap), carry.min(cap));
        capped += u32::from(dbf > cap);
        s1 += i1 as u128;
        if i2 > i1 {
            let mut v = i2 - i1;
            if small {
                // Insert into the sorted top (the smallest falls off).
                for slot in top.iter_mut() {
                    if v > *slot {
                        std::mem::swap(slot, &mut v);
                    }
                }
            } else {
                diffs.push(v as u128);
            }
        }
    }
    if small {
        return (s1 + top.iter().map(|&v| v as u128).sum::<u128>(), capped);
    }
    if diffs.len() > top.len() {
        let cut = diffs.len() - top.len();
        diffs.select_nth_unstable(cut);
        diffs.drain(..cut);
    }
    (s1 + diffs.iter().sum::<u128>(), capped)
}

/// The dbf steps Dᵢ + j·Tᵢ (j ≥ 0) of a set in increasing order without
/// duplicates, generated lazily by a k-way merge of the tasks'
/// progressions and shared by every k: task k's test points are the steps
/// in (Dₖ, Dₖ + hi] shifted by −Dₖ. Only the steps a search reaches are
/// generated (a set that fails usually fails at one of the first points;
/// sorting every candidate up front was half of BAR's cost), and each once
/// per set, not once per task. Steps stay below 2⁵⁷ (count ≤ MAX_POINTS
/// bounds hi by MAX_POINTS·Tᵢ + Dᵢ).
struct Steps {
    steps: Vec<u64>,
    /// `jumps[j]`: Σᵢ Cᵢ·(number of steps of τᵢ at or below `steps[j]`),
    /// i.e. Σᵢ dbf(τᵢ, steps[j]) (the demand's jumps, summed).
    jumps: Vec<u128>,
    /// The next step of each task, smallest first.
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl Steps {
    fn new(tasks: &[TaskParams]) -> Steps {
        Steps {
            steps: Vec::new(),
            jumps: Vec::new(),
            heap: tasks.iter().enumerate().map(|(i, t)| Reverse((t.deadline, i))).collect(),
        }
    }

    /// Generates the next distinct step (with every task's step there);
    /// false when there is none (no tasks).
    fn grow(&mut self, tasks: &[TaskParams]) -> bool {
        let Some(&Reverse((t, _))) = self.heap.peek() else { return false };
        let mut jump = self.jumps.last().copied().unwrap_or(0);
        while let Some(mut top) = self.heap.peek_mut() {
            let Reverse((s, i)) = *top;
            if s != t {
                break;
            }
            jump += tasks[i].wcet as u128;
            *top = Reverse((s + tasks[i].period, i));
        }
        self.steps.push(t);
        self.jumps.push(jump);
        true
    }

    /// The index of the first step above `lo`.
    fn first_above(&mut self, tasks: &[TaskParams], lo: u64) -> usize {
        while self.steps.last().is_none_or(|&l| l <= lo) {
            if !self.grow(tasks) {
                return self.steps.len();
            }
        }
        self.steps.partition_point(|&t| t <= lo)
    }

    /// Step `j`, if it is at most `hi` (generating up to it).
    fn get(&mut self, tasks: &[TaskParams], j: usize, hi: u64) -> Option<u64> {
        while self.steps.len() <= j {
            if self.steps.last().is_some_and(|&l| l > hi) || !self.grow(tasks) {
                return None;
            }
        }
        Some(self.steps[j]).filter(|&t| t <= hi)
    }
}

/// The search, skipping the evaluation of points that provably cannot
/// violate (`SKIP`; `false` evaluates every point, for the tests). Between
/// an evaluated point t₀ (left side v₀ < m·x₀, margin σ = m·x₀ − v₀) and a
/// later point t = t₀ + Δ: every I2 is 1-Lipschitz in t (dbf′ and the caps
/// are), an I1 below its cap at t₀ grows only by its dbf's jumps in
/// (t₀, t] and a capped one by at most Δ; the left side is the maximum over
/// sets S of at most min(m − 1, n) tasks of Σ_{i∉S} I1 + Σ_{i∈S} I2, so it
/// grows by at most J + (capped + min(m − 1, n))·Δ, J the sum of every
/// task's jumps in (t₀, t] (from [`Steps::jumps`]). The bound m·x grows by
/// m·Δ: t cannot violate while J + (capped + min(m − 1, n) − m)·Δ < σ, and
/// is not evaluated then. Every point is still counted and range-checked,
/// so the verdict, the point count and the first violation are those of
/// the plain search.
fn search(tasks: &[TaskParams], m: u32) -> Found {
    search_with::<true>(tasks, m)
}

fn search_with<const SKIP: bool>(tasks: &[TaskParams], m: u32) -> Found {
    let n = tasks.len();
    let mut wcets: Vec<u128> = tasks.iter().map(|t| t.wcet as u128).collect();
    wcets.sort_unstable_by(|a, b| b.cmp(a));
    let c_sigma: u128 = wcets.iter().take(m as usize - 1).sum();
    // The range as a float first (only to size the loops; membership is exact).
    let u: f64 = tasks.iter().map(|t| t.wcet as f64 / t.period as f64).sum();
    let v: f64 = tasks.iter().map(|t| (t.period - t.deadline) as f64 * t.wcet as f64 / t.period as f64).sum();
    let gap = m as f64 - u;
    let inv: Vec<f64> = tasks.iter().map(|t| 1.0 / t.period as f64).collect();
    let mut points = 0usize;
    let mut diffs = Vec::with_capacity(n);
    let mut steps = Steps::new(tasks);
    let mut pos: Vec<Pos> = Vec::with_capacity(n);
    // The m − 1 largest differences: a small sorted array when m is small.
    let mut top = vec![0u64; (m as usize).saturating_sub(1).min(n)];
    // The skip rule's growth rate per unit of Δ, less the capped count.
    let slope = top.len() as i128 - m as i128;
    for k in 0..n {
        let tk = &tasks[k];
        let dk = tk.deadline as u128;
        let hi_f = (c_sigma as f64 + v + m as f64 * tk.wcet as f64) / gap - dk as f64;
        if hi_f > 1e30 {
            return Found::Skipped { points };
        }
        // Generous upper end; points near it are checked exactly.
        let hi = if hi_f < 0.0 { 0 } else { (hi_f * (1.0 + 1e-9)).ceil() as u128 + 1 };
        let jobs = |ti: &TaskParams, i: usize| -> u128 {
            let span = (hi + dk).saturating_sub(ti.deadline as u128);
            match i64::try_from(span) {
                Ok(s) => divmod(s, ti.period as i64, inv[i]).0 as u128,
                Err(_) => span / ti.period as u128,
            }
        };
        let count: u128 = 1 + tasks.iter().enumerate().map(|(i, ti)| jobs(ti, i) + 1).sum::<u128>();
        if count + points as u128 > MAX_POINTS as u128 {
            return Found::Skipped { points };
        }
        // Aₖ = 0, then every Aₖ = Dᵢ + j·Tᵢ − Dₖ > 0 up to hi, increasing.
        let top_t = (dk + hi) as u64;
        let mut next = steps.first_above(tasks, tk.deadline);
        let mut first = true;
        let near = hi_f * (1.0 - 1e-9) - 2.0;
        // Positions in u64, sums in u128.
        pos.clear();
        for (i, ti) in tasks.iter().enumerate() {
            let (c, t) = (ti.wcet as i64, ti.period as i64);
            let (q, r) = divmod(dk as i64, t, inv[i]);
            pos.push(Pos { c: c as u64, d: ti.deadline, t: t as u64, qc: (q * c) as u64, r: r as u64, inv: inv[i] });
        }
        // Where the positions are, and the last evaluated point: Aₖ, the
        // jumps up to it, its margin σ and capped count.
        let mut at = 0u64;
        let (mut a0, mut jumps0, mut margin, mut capped) = (0u64, 0u128, 0i128, 0u32);
        loop {
            let (a64, jumps) = if first {
                first = false;
                // Aₖ = 0 is the step Dₖ itself, just below `next`.
                (0, if next > 0 { steps.jumps[next - 1] } else { 0 })
            } else {
                let Some(t) = steps.get(tasks, next, top_t) else { break };
                next += 1;
                (t - tk.deadline, steps.jumps[next - 1])
            };
            let a = a64 as u128;
            if (a as f64) > near && !in_range(tasks, m, k, a, c_sigma) {
                break;
            }
            points += 1;
            if SKIP && margin > 0 {
                let d = (a64 - a0) as i128;
                if ((jumps - jumps0) as i128) + (capped as i128 + slope) * d < margin {
                    continue;
                }
            }
            let delta = a64 - at;
            at = a64;
            let x = a64 + tk.deadline - tk.wcet + 1;
            let (value, c) = lhs_at(&mut pos, delta, k, a64, x, &mut top, &mut diffs);
            let bound = m as u128 * (a + dk - tk.wcet as u128 + 1);
            if value >= bound {
                return Found::Miss { k, a, value, bound };
            }
            (a0, jumps0, margin, capped) = (a64, jumps, (bound - value) as i128, c);
        }
    }
    Found::Pass { points }
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    if let Err(v) = precheck(tasks, m, NEEDS, ex) {
        return v;
    }
    let found = search(tasks, m);
    if let Some((o, names)) = ex.out() {
        match &found {
            Found::Pass { points } => {
                o.reason = format!("no busy interval can make a task miss: {points} test points (k, Aₖ) checked");
            }
            Found::Miss { k, a, value, bound } => {
                o.reason = format!(
                    "for {} with Aₖ = {}: the interference Σ I1 + Σ_(m−1 largest) (I2 − I1) = {} reaches m·(Aₖ + Dₖ − Cₖ + 1) = {}; the test cannot prove it",
                    names.label(*k),
                    ns(*a as i128),
                    ns(*value as i128),
                    ns(*bound as i128)
                );
                o.task = Some(*k);
                o.value = Some(int(*value as i128));
                o.bound = Some(int(*bound as i128));
            }
            Found::Skipped { points } => {
                o.reason = format!(
                    "skipped: the range of Aₖ needs more than {MAX_POINTS} test points (U close to m makes it pseudo-polynomially long); {points} were checked without a violation"
                );
            }
        }
    }
    match found {
        Found::Pass { .. } => Verdict::Schedulable,
        _ => Verdict::Inconclusive,
    }
}

pub fn decide(tasks: &[TaskParams], m: u32) -> Verdict {
    core(tasks, m, &mut Quiet)
}

pub fn check(tasks: &[TaskParams], m: u32) -> Outcome {
    explained(ID, Names::NONE, |ex| core(tasks, m, ex))
}

pub fn check_input(input: &Input) -> Outcome {
    explained(ID, Names::of(input), |ex| core(&input.tasks, input.cpus, ex))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_light_set_passes_and_an_overloaded_window_fails() {
        let t = vec![TaskParams::implicit(2, 10); 3];
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
        let t = vec![TaskParams::implicit(6, 10); 3];
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        assert_eq!(o.task, Some(0));
        assert!(o.value >= o.bound);
    }

    #[test]
    fn utilisation_equal_to_m_is_not_applicable() {
        let t = vec![TaskParams::implicit(5, 10); 4];
        assert_eq!(decide(&t, 2), Verdict::NotApplicable);
    }
}

/// The shared lazy steps give each task the candidates of a per-task list
/// (the earlier construction: every Dᵢ + j·Tᵢ ≥ Dₖ up to Dₖ + hi, sorted,
/// deduplicated), whatever order the ranges grow and shrink in.
#[cfg(test)]
mod shared_steps {
    use super::*;
    use schedlab_model::rng::Rng;

    #[test]
    fn equal_the_per_task_candidates() {
        let mut r = Rng::new(57);
        for _ in 0..2000 {
            let n = r.range_u64(1, 9) as usize;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let t = r.range_u64(2, 60);
                    TaskParams::constrained(1, r.range_u64(1, t + 1), t)
                })
                .collect();
            let mut steps = Steps::new(&tasks);
            for _ in 0..6 {
                let k = r.range_u64(0, n as u64 - 1) as usize;
                let dk = tasks[k].deadline;
                let hi = r.range_u64(0, 300);
                let mut per_task = vec![0u64];
                for ti in &tasks {
                    let (di, p) = (ti.deadline, ti.period);
                    let mut t = if di >= dk { di } else { di + (dk - di).div_ceil(p) * p };
                    while t - dk <= hi {
                        per_task.push(t - dk);
                        t += p;
                    }
                }
                per_task.sort_unstable();
                per_task.dedup();
                let mut shared = vec![0u64];
                let mut j = steps.first_above(&tasks, dk);
                while let Some(t) = steps.get(&tasks, j, dk + hi) {
                    shared.push(t - dk);
                    j += 1;
                }
                assert_eq!(shared, per_task, "k = {k}, hi = {hi}: {tasks:?}");
            }
        }
    }
}

/// The test points against every integer Aₖ of the range (small sets):
/// does checking only the dbf steps miss a violation between them?
#[cfg(test)]
mod brute_force {
    use super::*;
    use schedlab_model::rng::Rng;

    fn brute(tasks: &[TaskParams], m: u32) -> bool {
        let mut wcets: Vec<u128> = tasks.iter().map(|t| t.wcet as u128).collect();
        wcets.sort_unstable_by(|a, b| b.cmp(a));
        let c_sigma: u128 = wcets.iter().take(m as usize - 1).sum();
        let mut diffs = Vec::new();
        for k in 0..tasks.len() {
            let mut a = 0u128;
            while in_range(tasks, m, k, a, c_sigma) {
                if lhs(tasks, m, k, a, &mut diffs)
                    >= m as u128 * (a + tasks[k].deadline as u128 - tasks[k].wcet as u128 + 1)
                {
                    return false;
                }
                a += 1;
            }
        }
        true
    }

    #[test]
    fn step_points_agree_with_every_integer() {
        let mut r = Rng::new(2007);
        let (mut sets, mut pass, mut differ) = (0, 0, Vec::new());
        while sets < 3000 {
            let m = r.range_u64(2, 5) as u32;
            let n = r.range_u64(2, 8) as usize;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let t = r.range_u64(4, 40);
                    let c = r.range_u64(1, t / 2 + 1);
                    TaskParams::constrained(c, r.range_u64(c, t), t)
                })
                .collect();
            if decide(&tasks, m) == Verdict::NotApplicable || super::super::model::cmp_util(&tasks, m) != Ordering::Less
            {
                continue;
            }
            if tasks.iter().any(|t| t.wcet > t.deadline) {
                continue;
            }
            sets += 1;
            let fast = matches!(search(&tasks, m), Found::Pass { .. });
            pass += usize::from(fast);
            if fast != brute(&tasks, m) {
                differ.push(format!("m = {m}: {tasks:?}"));
            }
        }
        println!("BAR: {sets} sets, {pass} pass, {} differ", differ.len());
        assert!(pass > 300 && pass < sets - 300, "both verdicts occur: {pass} of {sets}");
        assert!(differ.is_empty(), "{} of {sets} differ; the first: {}", differ.len(), differ[0]);
    }
}

/// The skipping search against the plain one (every point evaluated) on
/// random sets: the same verdict, point count and first violation.
#[cfg(test)]
mod skipping {
    use super::*;
    use schedlab_model::rng::Rng;

    #[test]
    fn equals_the_plain_search() {
        let mut r = Rng::new(2026);
        let (mut pass, mut miss, mut skipped) = (0, 0, 0);
        for set in 0..20_000 {
            let m = [1, 2, 3, 4, 8, 12, 16][set % 7];
            let n = r.range_u64(1, 3 * m as u64 + 4) as usize;
            let tiny = set % 3 == 0;
            let load = r.uniform(0.3, 0.99) * m as f64 / n as f64;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let t = if tiny { r.range_u64(2, 50) } else { r.range_u64(10_000, 100_000) * 1000 };
                    let c = ((r.uniform(0.2, 1.8) * load).min(1.0) * t as f64).max(1.0) as u64;
                    let d = if set % 2 == 0 { t } else { r.range_u64(c, t) };
                    TaskParams::constrained(c, d, t)
                })
                .collect();
            if precheck(&tasks, m, NEEDS, &mut Quiet).is_err() {
                continue;
            }
            let plain = search_with::<false>(&tasks, m);
            match plain {
                Found::Pass { .. } => pass += 1,
                Found::Miss { .. } => miss += 1,
                Found::Skipped { .. } => skipped += 1,
            }
            assert_eq!(search_with::<true>(&tasks, m), plain, "m = {m}: {tasks:?}");
        }
        println!("BAR skipping: {pass} pass, {miss} miss, {skipped} skipped");
        assert!(pass > 1000 && miss > 1000, "both verdicts occur: {pass} pass, {miss} miss");
    }
}
