//! BCL-iterative (Bertogna, Cirinei & Lipari 2009, discrete time): slack
//! lower bounds Sᵢ (initially 0) tighten the carry-in of each interfering
//! task, and are recomputed until none changes:
//!
//!   Jᵢ(Dₖ) = ⌊Dₖ/Tᵢ⌋·Cᵢ + min(Cᵢ, max(0, Dₖ mod Tᵢ − Sᵢ)),
//!   Sₖ ← Dₖ − Cₖ − ⌊(1/m)·Σ_{i≠k} min(Jᵢ(Dₖ), Dₖ − Cₖ + 1)⌋.
//!
//! Every task is schedulable once every computed Sₖ ≥ 0. Decisions made
//! here: a negative Sₖ is not fed back (the task keeps its last proven
//! slack, at least 0, which the first-miss argument covers); tasks are
//! updated in index order within a round, each using the slacks already
//! updated (slacks only grow, so every value used is a proven bound); at
//! most [`MAX_ROUNDS`] rounds (the test stops early once every Sₖ ≥ 0).

use super::super::input::{Input, TaskParams};
use super::super::outcome::{Exactness, Outcome, Verdict};
use super::super::registry::TestInfo;
use super::exact::int;
use super::explain::{explained, ns, Explain, Names, Quiet};
use super::model::{precheck, Needs};
use super::piecewise::divmod;
use schedlab_model::PolicyName;

pub const ID: &str = "gedf.bcl-iterative";

/// Rounds of slack updates before giving up (shared with `gedf.rta`, so
/// that RTA, whose slacks are never smaller, accepts whatever this accepts).
pub const MAX_ROUNDS: usize = 64;

pub const INFO: TestInfo = TestInfo {
    id: ID,
    title: "G-EDF, BCL with iterative slack (BCL-iterative)",
    policies: &[PolicyName::Gedf],
    assumes: "sporadic tasks without jitter, constrained deadlines (D ≤ T), integer time (ns), m ≥ 1",
    exactness: Exactness::Sufficient,
    source: "Bertogna, Cirinei & Lipari 2009 (IEEE TPDS), slack-based iterative test",
};

/// Jᵢ(L): the EDF interference bound of τᵢ in a window of length L whose
/// end is a deadline of the interfered job, with τᵢ's slack sᵢ.
#[inline]
pub(crate) fn edf_interference(ti: &TaskParams, l: i64, s: i64) -> i64 {
    let (c, t) = (ti.wcet as i64, ti.period as i64);
    (l / t) * c + c.min((l % t - s).max(0))
}

/// The new slack of task k (may be negative) given the current slacks.
#[inline]
fn slack_k(tasks: &[TaskParams], m: u32, k: usize, slack: &[i128]) -> (i128, i128) {
    let tk = &tasks[k];
    let (dk, x) = (tk.deadline as i64, tk.deadline as i64 - tk.wcet as i64);
    let mut s = 0i64;
    for (i, ti) in tasks.iter().enumerate() {
        if i != k {
            s += edf_interference(ti, dk, slack[i] as i64).min(x + 1);
        }
    }
    ((x - s / m as i64) as i128, s as i128)
}

/// What the iteration found: proven slacks, the last failing task, rounds.
pub(crate) struct Slacks {
    pub slack: Vec<i128>,
    pub failed: Option<usize>,
    pub rounds: usize,
}

/// Per pair (k, i): ⌊Dₖ/Tᵢ⌋·Cᵢ and Dₖ mod Tᵢ, so that
/// Jᵢ(Dₖ) = ⌊Dₖ/Tᵢ⌋·Cᵢ + min(Cᵢ, max(0, Dₖ mod Tᵢ − Sᵢ)) needs no
/// division. The diagonal (k = i) holds zeros: its term is 0.
#[derive(Clone, Copy, Default)]
struct Pair {
    base: i64,
    rem: i64,
}

/// Buffers reused by the iterations of one thread (a batch runs millions).
#[derive(Default)]
struct Scratch {
    /// n × n by column: `pairs[i·n + k]` is the pair (k, i), so that the
    /// terms a change of Sᵢ affects are contiguous.
    pairs: Vec<Pair>,
    /// Per task k: Dₖ − Cₖ + 1 (the cap of its terms), the sum of its row's
    /// capped terms at the current slacks, m·(Dₖ − Cₖ + 1) and
    /// m·(Dₖ − Cₖ − Sₖ) (saturated: compared with sums only).
    cap: Vec<i64>,
    sum: Vec<i64>,
    fail_at: Vec<i64>,
    grow_below: Vec<i64>,
    slack: Vec<i64>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The slack iteration; `keep`: return the slacks (for explanations).
pub(crate) fn iterate(tasks: &[TaskParams], m: u32, keep: bool) -> Slacks {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => iterate_in(&mut s, tasks, m, keep),
        Err(_) => iterate_in(&mut Scratch::default(), tasks, m, keep),
    })
}

/// The term of a pair with slack `s` of the interfering task (WCET `c`)
/// and the interfered task's cap.
#[inline(always)]
fn term(p: Pair, c: i64, s: i64, cap: i64) -> i64 {
    (p.base + c.min((p.rem - s).max(0))).min(cap)
}

/// The rounds of [`slack_k`] in index order, each task using the slacks
/// already updated. Every row's sum is kept up to date instead of being
/// recomputed: when Sᵢ grows, column i's terms are updated in every row
/// (the same sums, so the same slacks, failing task and rounds as the
/// plain rounds). A round then costs n comparisons of a sum with two
/// thresholds (Sₖ < 0 iff sum ≥ m·(Dₖ − Cₖ + 1); Sₖ grows iff
/// sum < m·(Dₖ − Cₖ − Sₖ)), plus a division and n terms per slack that
/// grows.
fn iterate_in(sc: &mut Scratch, tasks: &[TaskParams], m: u32, keep: bool) -> Slacks {
    let n = tasks.len();
    let Scratch { pairs, cap, sum, fail_at, grow_below, slack } = sc;
    let mi = m as i64;
    cap.clear();
    cap.extend(tasks.iter().map(|t| t.deadline as i64 - t.wcet as i64 + 1));
    fail_at.clear();
    fail_at.extend(cap.iter().map(|&c| mi.saturating_mul(c)));
    grow_below.clear();
    grow_below.extend(cap.iter().map(|&c| mi.saturating_mul(c - 1)));
    sum.clear();
    sum.resize(n, 0);
    pairs.clear();
    pairs.resize(n * n, Pair::default());
    for (i, (ti, col)) in tasks.iter().zip(pairs.chunks_exact_mut(n.max(1))).enumerate() {
        let (c, t) = (ti.wcet as i64, ti.period as i64);
        let inv = 1.0 / t as f64;
        for ((tk, p), (s, &capk)) in tasks.iter().zip(col.iter_mut()).zip(sum.iter_mut().zip(cap.iter())) {
            let dk = tk.deadline as i64;
            let (q, rem) = divmod(dk, t, inv);
            *p = Pair { base: q * c, rem };
            *s += term(*p, c, 0, capk);
        }
        // The diagonal: no term.
        sum[i] -= term(col[i], c, 0, cap[i]);
        col[i] = Pair::default();
    }
    let inv_m = 1.0 / m as f64;
    slack.clear();
    slack.resize(n, 0);
    let mut rounds = 0;
    loop {
        rounds += 1;
        let (mut changed, mut failed) = (false, None);
        for k in 0..n {
            if sum[k] >= fail_at[k] {
                failed.get_or_insert(k);
            } else if sum[k] < grow_below[k] {
                let s = cap[k] - 1 - divmod(sum[k], mi, inv_m).0;
                let (old, ck) = (slack[k], tasks[k].wcet as i64);
                slack[k] = s;
                grow_below[k] = mi.saturating_mul(cap[k] - 1 - s);
                changed = true;
                let col = &pairs[k * n..(k + 1) * n];
                for ((p, sj), &capj) in col.iter().zip(sum.iter_mut()).zip(cap.iter()) {
                    *sj += term(*p, ck, s, capj) - term(*p, ck, old, capj);
                }
            }
        }
        if failed.is_none() || !changed || rounds >= MAX_ROUNDS {
            let slack = if keep { slack.iter().map(|&s| i128::from(s)).collect() } else { Vec::new() };
            return Slacks { slack, failed, rounds };
        }
    }
}

pub fn core<E: Explain>(tasks: &[TaskParams], m: u32, ex: &mut E) -> Verdict {
    let needs = Needs { constrained: true, ..Needs::default() };
    if let Err(v) = precheck(tasks, m, needs, ex) {
        return v;
    }
    let r = iterate(tasks, m, ex.out().is_some());
    if let Some((o, names)) = ex.out() {
        let k = r.failed.unwrap_or_else(|| (0..tasks.len()).min_by_key(|&k| r.slack[k]).unwrap_or(0));
        let (s, sum) = slack_k(tasks, m, k, &r.slack);
        let x = tasks[k].deadline as i128 - tasks[k].wcet as i128;
        let interference = sum / m as i128;
        o.reason = match r.failed {
            Some(_) if r.rounds >= MAX_ROUNDS => format!(
                "for {}: no slack bound proves it after the maximum of {MAX_ROUNDS} rounds (interference ⌊Σ/m⌋ = {} > D − C = {})",
                names.label(k),
                ns(interference),
                ns(x)
            ),
            Some(_) => format!(
                "for {}: the interference ⌊Σ/m⌋ = {} exceeds D − C = {} at the fixed point of the slacks ({} rounds); the test cannot prove it",
                names.label(k),
                ns(interference),
                ns(x),
                r.rounds
            ),
            None => format!("every task has a slack ≥ 0 after {} round(s); tightest {} with slack {}", r.rounds, names.label(k), ns(s)),
        };
        o.task = Some(k);
        o.value = Some(int(interference));
        o.bound = Some(int(x));
        o.details.push("value: ⌊(1/m)·Σ min(Jᵢ, D − C + 1)⌋ in ns; bound: D − C".into());
        o.details.push(format!(
            "slack bounds: {}",
            r.slack
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{} {}", names.label(i), ns(*s)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if r.failed.is_none() {
        Verdict::Schedulable
    } else {
        Verdict::Inconclusive
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
    fn proves_what_bcl_misses_at_zero_laxity() {
        // A zero-laxity task and a light one on 2 CPUs: BCL needs a witness
        // with 0 < I ≤ D − C = 0 and fails; the discrete form passes.
        let t = vec![TaskParams::implicit(2, 2), TaskParams::implicit(1, 4)];
        assert_eq!(super::super::bcl::decide(&t, 2), Verdict::Inconclusive);
        let o = check(&t, 2);
        assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
    }

    /// The definition's rounds, plainly: every task recomputed from
    /// [`slack_k`] in index order each round.
    fn plain(tasks: &[TaskParams], m: u32) -> Slacks {
        let mut slack = vec![0i128; tasks.len()];
        let mut rounds = 0;
        loop {
            rounds += 1;
            let (mut changed, mut failed) = (false, None);
            for k in 0..tasks.len() {
                let s = slack_k(tasks, m, k, &slack).0;
                if s < 0 {
                    failed.get_or_insert(k);
                } else if s > slack[k] {
                    slack[k] = s;
                    changed = true;
                }
            }
            if failed.is_none() || !changed || rounds >= MAX_ROUNDS {
                return Slacks { slack, failed, rounds };
            }
        }
    }

    /// The iteration against the plain rounds on random sets: the same
    /// slacks, failing task and rounds when kept (explanations), the same
    /// verdict without.
    #[test]
    fn equals_the_plain_rounds() {
        let mut r = schedlab_model::rng::Rng::new(2009);
        let (mut pass, mut fail) = (0, 0);
        for set in 0..20_000 {
            let m = [1, 2, 3, 4, 8][set % 5];
            let n = r.range_u64(1, 3 * m as u64 + 3) as usize;
            let load = r.uniform(0.3, 1.1) * m as f64 / n as f64;
            let tiny = set % 3 == 0;
            let tasks: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let t = if tiny { r.range_u64(1, 40) } else { r.range_u64(10_000, 100_000) * 1000 };
                    let c = ((r.uniform(0.2, 1.8) * load).min(1.0) * t as f64).max(1.0) as u64;
                    let d = if set % 2 == 0 { t } else { r.range_u64(c, t) };
                    TaskParams::constrained(c, d, t)
                })
                .collect();
            let want = plain(&tasks, m);
            let got = iterate(&tasks, m, true);
            assert_eq!(
                (&got.slack, got.failed, got.rounds),
                (&want.slack, want.failed, want.rounds),
                "m = {m}: {tasks:?}"
            );
            assert_eq!(iterate(&tasks, m, false).failed.is_none(), want.failed.is_none(), "m = {m}: {tasks:?}");
            if want.failed.is_none() {
                pass += 1;
            } else {
                fail += 1;
            }
        }
        assert!(pass > 2000 && fail > 2000, "both verdicts occur: {pass} pass, {fail} fail");
    }

    #[test]
    fn three_full_tasks_on_two_cpus_fail() {
        let t = vec![TaskParams::implicit(6, 10); 3];
        let o = check(&t, 2);
        // U = 1.8 ≤ 2 but each task sees 2·6 of interference in its window of 10 with D − C = 4.
        assert_eq!(o.verdict, Verdict::Inconclusive, "{o:?}");
        assert!(o.details.iter().any(|d| d.starts_with("slack bounds")));
    }
}
