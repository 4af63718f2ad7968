//! Reusing `gedf.any` verdicts across variants of one task set that differ
//! only in their WCETs: a sweep decides each generated set without
//! overheads and under overhead models that inflate the WCETs and keep
//! deadlines and periods (EPOS Eq. 2/3), on the whole set (G-EDF) and on
//! the clusters of its packings (C-EDF).
//!
//! Variant A *dominates* variant B when every task has the same deadline,
//! period, offset and jitter and Cᵢ(A) ≥ Cᵢ(B). For a test whose acceptance
//! is monotone in the WCETs ([`combined::MONOTONE`]):
//!
//! - it accepts A ⇒ it accepts B, so `gedf.any` answers schedulable for B;
//! - it does not accept B ⇒ it does not accept A, so on A it need not run
//!   ([`combined::decide_knowing`] takes its verdict, which only decides
//!   between inconclusive and not applicable, from its precheck).
//!
//! RTA is used in the second direction only, when its run on B was exact
//! ([`combined::Cascade::refutes`]).
//!
//! Only the same member list (same tasks, same order) on the same CPU
//! count with the same left-out tests is reused, so every reuse is one of
//! these two implications or an exact repeat (the same variant and
//! cluster, as when FFD and BFD pack a cluster alike).
//!
//! Why each test is or is not monotone (deadlines and periods fixed; WCETs
//! of B no larger; δ = Cₖ(A) − Cₖ(B) ≥ 0):
//!
//! - **GFB**: Σ Cᵢ/D′ᵢ + (m − 1)·δ_max ≤ m; both terms grow with every
//!   Cᵢ; decided exactly. Monotone.
//! - **BCL**: for each k, Σ_{i≠k} min(Iᵢ, X) < m·X (or = with a witness
//!   0 < Iᵢ ≤ X), X = Dₖ − Cₖ, Iᵢ non-decreasing in Cᵢ. From A to B, X grows
//!   by δ and each term by at most δ, and only terms with Iᵢ(A) > X(A) grow;
//!   if A passes there are at most m − 1 of them (m of them make the sum
//!   ≥ m·X without a witness), so the sum grows by ≤ (m − 1)·δ < m·δ; with
//!   δ = 0 the terms and the witness are B's too. Monotone.
//! - **LOAD**: load(τ) grows with every Cᵢ; the bound is non-increasing in
//!   δ_max (within one ⌈μ⌉ both branches fall, and at μ = c both sides
//!   give c − (c − 1)·δ_max); the step points checked (up to L*, a
//!   correctly rounded monotone float expression) and the budget count of
//!   B are at most A's, each point decided exactly. Monotone.
//! - **BAR**: for each (k, Aₖ) the left side is Σ_{i∉S} I1ᵢ + Σ_{i∈S} I2ᵢ
//!   for the best |S| ≤ m − 1; the k term (dbf − Cₖ capped at Aₖ) is
//!   non-decreasing in Cₖ, the others are min(dbf, x) with x =
//!   Aₖ + Dₖ − Cₖ + 1 growing by δ from A to B. Only terms above x(A)
//!   grow, by ≤ δ; m of them would make A's left side ≥ m·x(A), so if A
//!   passes B's side is < m·x(A) + (m − 1)·δ ≤ m·x(B). B's range bound
//!   (float, correctly rounded, monotone), its exact range check, its test
//!   points (a subset of A's, the dbf steps up to the smaller bound) and
//!   its point budget are all within A's. Monotone.
//! - **BAK** (λ fixed at λₖ = Cₖ/D′ₖ): a smaller Cₖ raises the terms
//!   (Cᵢ − λₖ·Tᵢ)/Dₖ of the other tasks, by Tᵢ/Dₖ per unit of λₖ, more than
//!   the bound m − (m − 1)·λₖ rises when Σ Tᵢ/Dₖ > m − 1. Not monotone
//!   (a test below shows a pair).
//! - **RTA**, rejections only: B's bounds are at most A's. By induction
//!   over the computations of the rounds (same order), B's slacks are at
//!   least A's: with Rᴬ A's bound for τₖ and R′ = Rᴬ − δ, each term of
//!   B's fixed-point function at R′ is at most A's at Rᴬ under the same cap
//!   Rᴬ − Cₖᴬ + 1: Jᵢ grows with Cᵢ and falls with Sᵢ; the workload
//!   Wᵢ(R) = Nᵢ·Cᵢ + min(Cᵢ, a − Nᵢ·Tᵢ), a = R + Dᵢ − Cᵢ − Sᵢ, grows with
//!   R, falls with Sᵢ, and one more unit of Cᵢ changes it by Nᵢ − 1, Nᵢ or
//!   Nᵢ + 1 — it falls only with Nᵢ = 0 and Wᵢ = a ≥ R ≥ the cap (Sᵢ ≤ Dᵢ − Cᵢ
//!   and Cₖ ≥ 1), where the capped term stays at the cap. So B's function
//!   at R′ is ≤ R′ and B's least fixed point (≥ Cₖᴮ) is ≤ R′ ≤ Rᴬ. If B
//!   stopped on a failure without a change, continuing would repeat it,
//!   yet the induction gives it A's success by A's last round. This needs
//!   B's bounds to be least fixed points (no search gave up after
//!   `MAX_EVALS` and took Dₖ) and WCETs ≥ 1; A's bounds may be anything
//!   its run proved. Acceptances are not reused (B's run, not made, might
//!   give up).
//! - **FF-DBF**: the σ tried start at B's own δ_max and share one point
//!   budget, so B can spend the budget before the σ that proves A. Not
//!   used.

use super::super::input::TaskParams;
use super::super::outcome::Verdict;
use super::combined::{decide_knowing, Cascade, MONOTONE};
use std::ops::Range;

/// Does `a` dominate `b` (same tasks but for WCETs no smaller)?
pub fn dominates(a: &[TaskParams], b: &[TaskParams]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.wcet >= y.wcet
                && x.deadline == y.deadline
                && x.period == y.period
                && x.offset == y.offset
                && x.jitter == y.jitter
        })
}

struct Entry {
    variant: usize,
    m: u32,
    skip: u32,
    /// The member list in `Memo::keys` (`None`: the whole set).
    key: Option<Range<usize>>,
    cascade: Cascade,
}

/// The `gedf.any` results of one family of variants, reused by dominance.
#[derive(Default)]
pub struct Memo {
    variants: usize,
    /// `dom[a * variants + b]`: variant a dominates variant b.
    dom: Vec<bool>,
    entries: Vec<Entry>,
    keys: Vec<usize>,
    /// Decisions reused, and decided with some tests known not to accept
    /// (statistics for tests and benchmarks).
    pub reused: u64,
    pub narrowed: u64,
}

impl Memo {
    /// Starts a family: the variants' tasks (`None`: a variant without
    /// tasks, never asked about).
    pub fn reset(&mut self, variants: &[Option<&[TaskParams]>]) {
        let v = variants.len();
        self.variants = v;
        self.dom.clear();
        for a in variants {
            for b in variants {
                self.dom.push(matches!((a, b), (Some(a), Some(b)) if dominates(a, b)));
            }
        }
        self.entries.clear();
        self.keys.clear();
    }

    /// `gedf.any`'s verdict on `tasks`, variant `variant`'s tasks `members`
    /// (`None`: all of them, in order) on `m` CPUs, without the tests of the
    /// bit mask `skip` ([`super::combined::skip_mask`]).
    pub fn decide(
        &mut self,
        variant: usize,
        members: Option<&[usize]>,
        tasks: &[TaskParams],
        m: u32,
        skip: u32,
    ) -> Cascade {
        let mut known = 0;
        for e in &self.entries {
            if e.m != m || e.skip != skip {
                continue;
            }
            let same = match (&e.key, members) {
                (None, None) => true,
                (Some(r), Some(mem)) => self.keys[r.clone()] == *mem,
                _ => false,
            };
            if !same {
                continue;
            }
            if e.variant == variant {
                self.reused += 1;
                return e.cascade;
            }
            if let Some(i) = e.cascade.accepted {
                if MONOTONE & 1 << i != 0 && self.dom[e.variant * self.variants + variant] {
                    self.reused += 1;
                    return Cascade { verdict: Verdict::Schedulable, accepted: Some(i), rejected: 0, refutes: 0 };
                }
            }
            if self.dom[variant * self.variants + e.variant] {
                known |= e.cascade.refutes;
            }
        }
        if known != 0 {
            self.narrowed += 1;
        }
        let cascade = decide_knowing(tasks, m, skip, known);
        let key = members.map(|mem| {
            let start = self.keys.len();
            self.keys.extend_from_slice(mem);
            start..self.keys.len()
        });
        self.entries.push(Entry { variant, m, skip, key, cascade });
        cascade
    }
}

#[cfg(test)]
mod tests {
    use super::super::combined::{self, ORDER};
    use super::super::{bak, bar, bcl, gfb, load, rta};
    use super::*;
    use schedlab_model::rng::Rng;

    /// A random set: n tasks, periods in [10, 200), utilisations up to
    /// about 0.9, deadlines implicit or constrained.
    fn random_set(r: &mut Rng, n: usize, constrained: bool) -> Vec<TaskParams> {
        (0..n)
            .map(|_| {
                let t = r.range_u64(10, 200);
                let d = if constrained { r.range_u64(t / 2, t) } else { t };
                TaskParams::constrained(r.range_u64(1, d * 9 / 10 + 2).min(d), d, t)
            })
            .collect()
    }

    /// `b` with some WCETs raised (up to the deadline).
    fn inflate(r: &mut Rng, b: &[TaskParams]) -> Vec<TaskParams> {
        b.iter()
            .map(|t| {
                let extra = if r.range_u64(0, 3) == 0 { 0 } else { r.range_u64(0, t.deadline / 8 + 2) };
                TaskParams { wcet: (t.wcet + extra).min(t.deadline), ..*t }
            })
            .collect()
    }

    /// Property: for every test of MONOTONE, accepting a set means
    /// accepting every set it dominates, on random pairs where the tests
    /// are near their limits (both verdicts occur for every test).
    #[test]
    fn monotone_tests_accept_every_dominated_set() {
        let mut r = Rng::new(2026);
        type Decide = fn(&[TaskParams], u32) -> Verdict;
        let tests: [(usize, Decide); 4] = [(0, gfb::decide), (1, bcl::decide), (3, load::decide), (5, bar::decide)];
        for (i, _) in tests {
            assert!(MONOTONE & 1 << i != 0, "{}", ORDER[i]);
        }
        let mut seen = [[0usize; 2]; 4];
        for _ in 0..20_000 {
            let m = r.range_u64(1, 5) as u32;
            let n = r.range_u64(1, 4 * m as u64 + 2) as usize;
            let constrained = r.range_u64(0, 2) == 0;
            let b = random_set(&mut r, n, constrained);
            let a = inflate(&mut r, &b);
            assert!(dominates(&a, &b));
            for (j, &(i, decide)) in tests.iter().enumerate() {
                let (va, vb) = (decide(&a, m), decide(&b, m));
                if va == Verdict::Schedulable {
                    assert_eq!(vb, Verdict::Schedulable, "{} accepts A = {a:?} but not B = {b:?} (m = {m})", ORDER[i]);
                    seen[j][0] += 1;
                } else if vb == Verdict::Schedulable {
                    seen[j][1] += 1;
                }
            }
        }
        // Each test accepted some A and accepted some B without its A.
        for (j, s) in seen.iter().enumerate() {
            assert!(s[0] > 100 && s[1] > 100, "{}: {s:?}", ORDER[tests[j].0]);
        }
    }

    /// Property: an exact RTA rejection (no search gave up) carries over to
    /// every set that dominates the rejected one.
    #[test]
    fn exact_rta_rejections_carry_over_to_dominating_sets() {
        let mut r = Rng::new(2007);
        let (mut carried, mut both_pass) = (0usize, 0usize);
        for _ in 0..200_000 {
            let m = r.range_u64(1, 4) as u32;
            let n = r.range_u64(2, 3 * m as u64 + 1) as usize;
            let b: Vec<TaskParams> = (0..n)
                .map(|_| {
                    let t = r.range_u64(2, 30);
                    let d = if r.range_u64(0, 1) == 0 { t } else { r.range_u64(1, t) };
                    TaskParams::constrained(r.range_u64(1, d), d, t)
                })
                .collect();
            let a: Vec<TaskParams> =
                b.iter().map(|t| TaskParams { wcet: (t.wcet + r.range_u64(0, 3)).min(t.deadline), ..*t }).collect();
            let (vb, exact) = rta::decide_exact(&b, m);
            let va = rta::decide(&a, m);
            if vb != Verdict::Schedulable && exact {
                assert_ne!(va, Verdict::Schedulable, "RTA rejects B = {b:?} but accepts A = {a:?} (m = {m})");
                carried += 1;
            } else if va == Verdict::Schedulable {
                both_pass += 1;
            }
        }
        assert!(carried > 10_000 && both_pass > 10_000, "{carried} carried, {both_pass} both accepted");
    }

    /// BAK is left out of MONOTONE for a reason: a smaller WCET can lose
    /// its acceptance.
    #[test]
    fn bak_is_not_monotone() {
        let mut r = Rng::new(3);
        let mut found = None;
        for _ in 0..200_000 {
            let m = r.range_u64(2, 4) as u32;
            let n = r.range_u64(2, 6) as usize;
            let b = random_set(&mut r, n, false);
            let a = inflate(&mut r, &b);
            if bak::decide(&a, m) == Verdict::Schedulable && bak::decide(&b, m) != Verdict::Schedulable {
                found = Some((a, b, m));
                break;
            }
        }
        assert!(found.is_some(), "no pair where BAK accepts a set and rejects a set it dominates");
        assert_eq!(MONOTONE & 1 << 2, 0);
    }

    /// The memo answers exactly what `gedf.any` answers on each variant,
    /// whatever the order of the questions, on families of a set and two
    /// inflations of it, asked about the whole set and random member lists.
    #[test]
    fn memo_verdicts_are_the_direct_verdicts() {
        let mut r = Rng::new(14);
        let mut memo = Memo::default();
        let (mut asked, mut per_verdict) = (0usize, [0usize; 4]);
        for _ in 0..3000 {
            let m = r.range_u64(2, 5) as u32;
            let n = r.range_u64(2, 3 * m as u64 + 3) as usize;
            let constrained = r.range_u64(0, 2) == 0;
            let base = random_set(&mut r, n, constrained);
            let one = inflate(&mut r, &base);
            let two = if r.range_u64(0, 2) == 0 { inflate(&mut r, &one) } else { inflate(&mut r, &base) };
            let variants = [base, one, two];
            memo.reset(&[Some(&variants[0]), Some(&variants[1]), Some(&variants[2])]);
            let skip = if r.range_u64(0, 3) == 0 { 1 << r.range_u64(0, ORDER.len() as u64 - 1) } else { 0 };
            let lists: Vec<Vec<usize>> = (0..2)
                .map(|_| (0..n).filter(|_| r.range_u64(0, 2) == 0).collect::<Vec<usize>>())
                .filter(|l| !l.is_empty())
                .collect();
            for _ in 0..8 {
                let v = r.range_u64(0, 2) as usize;
                let pick = r.range_u64(0, lists.len() as u64) as usize;
                let (members, tasks, cpus): (Option<&[usize]>, Vec<TaskParams>, u32) = if pick == lists.len() {
                    (None, variants[v].clone(), m)
                } else {
                    let l = &lists[pick];
                    (Some(l), l.iter().map(|&i| variants[v][i]).collect(), (m / 2).max(1))
                };
                let mut input = crate::schedulability::Input::new(cpus, tasks.clone());
                input.options.skip =
                    (0..ORDER.len()).filter(|i| skip & 1 << i != 0).map(|i| ORDER[i].to_string()).collect();
                let direct = combined::decide_input(&input);
                let got = memo.decide(v, members, &tasks, cpus, skip);
                assert_eq!(got.verdict, direct, "variant {v} {members:?} of {variants:?}, skip {skip:b}");
                asked += 1;
                per_verdict[match direct {
                    Verdict::Schedulable => 0,
                    Verdict::Unschedulable => 1,
                    Verdict::Inconclusive => 2,
                    Verdict::NotApplicable => 3,
                }] += 1;
            }
        }
        println!("{asked} asked: {per_verdict:?}, {} reused, {} narrowed", memo.reused, memo.narrowed);
        assert!(per_verdict[0] > 1000 && per_verdict[2] > 1000, "{per_verdict:?}");
        assert!(memo.reused > 1000 && memo.narrowed > 500, "{} reused, {} narrowed", memo.reused, memo.narrowed);
    }
}
