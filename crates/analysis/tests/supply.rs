//! Properties of the H-CBS supply bounds (OSPERT 2009, Eqs. 4–15), over
//! random servers and windows: the linear bound of Eq. 7 is a lower bound of
//! Eq. 4 everywhere (the notes' FLAG: ≥, not the printed ≤), Eq. 4 is
//! nondecreasing in the window and in the budget and never above the window
//! or α·t, and the MαΔ lengths and interference behave as Eq. 13 needs.

use num_bigint::BigInt;
use num_rational::BigRational;
use proptest::prelude::*;
use schedlab_analysis::schedulability::gfp::msf;
use schedlab_analysis::schedulability::{TaskParams, Verdict};
use schedlab_analysis::supply::multi::interference;
use schedlab_analysis::supply::{Platform, Server, Supply};

fn int(v: u64) -> BigRational {
    BigRational::from_integer(BigInt::from(v))
}

fn server() -> impl Strategy<Value = Server> {
    (1u64..=1_000_000).prop_flat_map(|p| (0..=p).prop_map(move |q| Server::new(q, p).unwrap()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn the_linear_bound_is_below_eq4_everywhere(s in server(), t in 0u64..50_000_000) {
        let z = int(s.sbf(t));
        let lin = s.alpha_delta().at(t);
        prop_assert!(lin <= z, "α(t − Δ) = {lin} > Z({t}) = {z} for {s:?}");
        // Nor is Eq. 4 ever above the window itself.
        prop_assert!(s.sbf(t) <= t);
    }

    #[test]
    fn the_linear_bound_touches_eq4_where_it_starts_to_rise(s in server(), k in 0u64..1000) {
        // At t = kP + 2(P − Q), where Eq. 4 starts to rise: Z = kQ = α(t − Δ),
        // so no linear bound with this α can have a smaller Δ (Def. 6).
        prop_assume!(s.budget > 0);
        let t = k * s.period + 2 * (s.period - s.budget);
        prop_assert_eq!(int(s.sbf(t)), s.alpha_delta().at(t));
    }

    #[test]
    fn eq4_is_nondecreasing_in_the_window_and_the_budget(s in server(), t in 0u64..50_000_000, dt in 0u64..3_000_000) {
        prop_assert!(s.sbf(t) <= s.sbf(t + dt));
        if s.budget < s.period {
            let more = Server::new(s.budget + 1, s.period).unwrap();
            prop_assert!(s.sbf(t) <= more.sbf(t));
            prop_assert!(s.alpha_delta().at(t) <= more.alpha_delta().at(t));
        }
    }

    #[test]
    fn lengths_sum_to_the_window_and_interference_grows_with_the_workload(
        ss in proptest::collection::vec(server(), 1..5),
        d in 1u64..20_000_000,
        w in 0u64..40_000_000,
        dw in 0u64..5_000_000,
    ) {
        let p = Platform::new(ss.iter().map(|&s| Supply::Hcbs(s)).collect());
        let l = p.lengths(d);
        prop_assert_eq!(l.len(), ss.len() + 1);
        prop_assert!(l.iter().all(|x| *x >= int(0)));
        prop_assert_eq!(l.iter().sum::<BigRational>(), int(d));
        let a = interference(&l, &int(w));
        let b = interference(&l, &int(w + dw));
        prop_assert!(a <= b);
        prop_assert!(b <= int(d));
        // The linear abstraction gives less supply, hence no less interference.
        let lm = p.mad().lengths(d);
        prop_assert!(interference(&lm, &int(w)) >= a);
    }

    #[test]
    fn the_group_test_is_monotone_in_every_budget(
        tasks in proptest::collection::vec((1u64..20, 0u64..20, 20u64..200), 1..6),
        budgets in proptest::collection::vec(0u64..=100, 1..4),
        which in 0usize..4,
    ) {
        // Tasks (C, D − C slack, T) in µs-like units; servers with P = 100.
        let ts: Vec<TaskParams> = tasks
            .iter()
            .map(|&(c, s, t)| TaskParams::constrained(c, (c + s).min(t), t))
            .collect();
        let mut order: Vec<usize> = (0..ts.len()).collect();
        order.sort_by_key(|&i| (ts[i].deadline, i));
        let at = |b: &[u64]| Platform::new(b.iter().map(|&q| Supply::Hcbs(Server::new(q, 100).unwrap())).collect());
        let before = msf::decide(&ts, &order, &at(&budgets));
        let mut more = budgets.clone();
        let j = which % more.len();
        more[j] = (more[j] + 7).min(100);
        let after = msf::decide(&ts, &order, &at(&more));
        prop_assert!(before != Verdict::Schedulable || after == Verdict::Schedulable,
            "accepted with {budgets:?}, not with {more:?}");
        let lin = msf::decide(&ts, &order, &at(&budgets).mad());
        prop_assert!(lin != Verdict::Schedulable || before == Verdict::Schedulable);
    }
}
