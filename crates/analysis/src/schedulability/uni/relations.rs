//! Relations between the uniprocessor tests on random sets: a weaker test
//! never accepts what a stronger (or exact) one for the same model rejects,
//! and lowering a WCET never turns an accepting test into a rejecting one
//! (sustainability).

use super::super::input::{Input, TaskParams};
use super::super::outcome::Verdict;
use super::{edf_density, edf_util, fp_hyperbolic, fp_ll, fp_rta, qpa};
use schedlab_model::rng::Rng;

const PERIODS: [u64; 9] = [40, 50, 60, 80, 100, 120, 150, 200, 300];

fn random(r: &mut Rng, constrained: bool, jitter: bool) -> Input {
    let n = r.range_u64(1, 7) as usize;
    let u = r.uniform(0.4, 1.1);
    let tasks = (0..n)
        .map(|_| {
            let p = PERIODS[r.below(PERIODS.len() as u64) as usize] * 1000;
            let c = ((u / n as f64 * r.uniform(0.3, 1.7) * p as f64) as u64).clamp(1, p);
            let d = if constrained { r.range_u64(c, p) } else { p };
            let j = if jitter && r.below(3) == 0 { r.range_u64(0, (d - c) / 2) } else { 0 };
            TaskParams { wcet: c, deadline: d, period: p, offset: 0, jitter: j }
        })
        .collect();
    Input::new(1, tasks)
}

fn yes(v: Verdict) -> bool {
    v == Verdict::Schedulable
}

#[test]
fn liu_layland_within_hyperbolic_within_rta() {
    let mut r = Rng::new(7);
    let (mut ll, mut hyp, mut rta) = (0, 0, 0);
    for _ in 0..4000 {
        let i = random(&mut r, false, false);
        let (a, b, c) =
            (yes(fp_ll::check(&i).verdict), yes(fp_hyperbolic::check(&i).verdict), yes(fp_rta::check(&i).verdict));
        assert!(!a || b, "LL accepts, hyperbolic not: {i:?}");
        assert!(!b || c, "hyperbolic accepts, RTA not: {i:?}");
        (ll, hyp, rta) = (ll + a as u32, hyp + b as u32, rta + c as u32);
    }
    assert!(ll < hyp && hyp < rta, "the inclusions are strict on some sets: {ll} {hyp} {rta}");
}

#[test]
fn utilisation_and_density_within_qpa() {
    let mut r = Rng::new(8);
    let (mut util, mut dens, mut exact) = (0, 0, 0);
    for k in 0..4000 {
        let i = random(&mut r, k % 2 == 0, k % 4 == 0);
        let q = yes(qpa::check(&i).verdict);
        let u = yes(edf_util::check(&i).verdict);
        let d = yes(edf_density::check(&i).verdict);
        assert!(!u || q, "util accepts, QPA not: {i:?}");
        assert!(!d || q, "density accepts, QPA not: {i:?}");
        // On implicit deadlines without jitter both exact tests agree.
        if edf_util::applies(&i).is_ok() {
            assert_eq!(u, q, "{i:?}");
        }
        (util, dens, exact) = (util + u as u32, dens + d as u32, exact + q as u32);
    }
    assert!(dens < exact && util > 0, "{util} {dens} {exact}");
}

/// A named uniprocessor test, as the relation tests list them.
type NamedTest = (&'static str, fn(&Input) -> super::super::Outcome);

#[test]
fn lowering_a_wcet_never_turns_accept_into_reject() {
    let mut r = Rng::new(9);
    let tests: [NamedTest; 6] = [
        ("qpa", qpa::check),
        ("rta", fp_rta::check),
        ("density", edf_density::check),
        ("util", edf_util::check),
        ("ll", fp_ll::check),
        ("hyperbolic", fp_hyperbolic::check),
    ];
    let mut accepted = 0;
    for k in 0..3000 {
        let i = random(&mut r, k % 2 == 0, k % 3 == 0);
        let t = r.below(i.tasks.len() as u64) as usize;
        let mut lower = i.clone();
        lower.tasks[t].wcet = r.range_u64(1, i.tasks[t].wcet);
        for (name, test) in tests {
            if yes(test(&i).verdict) {
                accepted += 1;
                assert!(
                    yes(test(&lower).verdict),
                    "{name}: accepts {i:?} but not with tasks[{t}].wcet lowered: {lower:?}"
                );
            }
        }
    }
    assert!(accepted > 3000, "{accepted}");
}
