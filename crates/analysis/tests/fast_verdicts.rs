//! The registry's fast paths (`Test::verdict`, used by batches) give the
//! explained outcome's verdict (`(test.run)(input).verdict`) for every test
//! that has one, on thousands of random sets (fixed seed): partitioned
//! tests under every heuristic, implicit, constrained and arbitrary
//! deadlines, jitter, blocking terms, admission options, tiny integer
//! periods (ties) and loads near the CPU count.

use schedlab_admission::partition::Heuristic;
use schedlab_analysis::schedulability::{registry, Input, TaskParams, Verdict};
use schedlab_model::rng::Rng;

const HEURISTICS: [Heuristic; 8] = [
    Heuristic::FF,
    Heuristic::BF,
    Heuristic::WF,
    Heuristic::NF,
    Heuristic::FFD,
    Heuristic::BFD,
    Heuristic::WFD,
    Heuristic::NFD,
];

fn random_input(r: &mut Rng) -> Input {
    let m = r.range_u64(1, 6) as u32;
    let n = r.range_u64(1, 12) as usize;
    let target = r.uniform(0.2, 1.1) * m as f64;
    let tiny = r.below(4) == 0;
    let kind = r.below(6);
    let mut w: Vec<f64> = (0..n).map(|_| r.uniform(0.05, 1.0)).collect();
    let s: f64 = w.iter().sum();
    w.iter_mut().for_each(|x| *x = (*x / s * target).min(1.0));
    let tasks = w
        .iter()
        .map(|&u| {
            let t = if tiny { r.range_u64(2, 30) } else { r.range_u64(10_000, 100_000) * 1000 };
            let c = ((u * t as f64).round() as u64).clamp(1, t);
            let mut p = match kind {
                0..=2 => TaskParams::implicit(c, t),
                3 => TaskParams::constrained(c, r.range_u64(c, t), t),
                _ => TaskParams::constrained(c, r.range_u64(c, 2 * t), t),
            };
            if kind == 5 && r.below(3) == 0 {
                p.jitter = r.below(p.deadline / 2 + 1);
            }
            p
        })
        .collect();
    let mut input = Input::new(m, tasks);
    input.options.heuristics = match r.below(3) {
        0 => Vec::new(),
        1 => vec![HEURISTICS[r.below(8) as usize]],
        _ => (0..r.range_u64(2, 4)).map(|_| HEURISTICS[r.below(8) as usize]).collect(),
    };
    if r.below(8) == 0 {
        input.options.blocking = (0..n).map(|_| if r.below(2) == 0 { r.below(3) } else { 0 }).collect();
    }
    if r.below(6) == 0 {
        input.options.admission = Some(
            ["uni.edf.util", "uni.edf.density", "uni.fp.ll", "uni.fp.hyperbolic", "uni.fpds.rta", "uni.edf.qpa"]
                [r.below(6) as usize]
                .into(),
        );
    }
    input
}

#[test]
fn fast_verdicts_equal_explained_verdicts() {
    let tests: Vec<_> = registry().iter().filter(|t| t.decide.is_some()).collect();
    assert!(tests.iter().any(|t| t.info.id == "pedf.qpa") && tests.iter().any(|t| t.info.id == "gedf.rta"));
    let mut r = Rng::new(0x0ba7_c4e5);
    let mut differ = Vec::new();
    let mut seen = std::collections::HashMap::<(&str, String), usize>::new();
    for k in 0..2000 {
        let input = random_input(&mut r);
        // The global tests' agreement is also checked in global_relations.rs;
        // they and FPDS (slow in debug builds) run on every 10th set.
        let heavy = |id: &str| id.starts_with("gedf.") || id == "pfpds.rta";
        for t in tests.iter().filter(|t| k % 10 == 0 || !heavy(t.info.id)) {
            let (fast, full) = (t.verdict(&input), (t.run)(&input).verdict);
            *seen.entry((t.info.id, full.to_string())).or_default() += 1;
            if fast != full {
                differ.push(format!("{}: fast {fast}, explained {full}: {input:?}", t.info.id));
            }
        }
    }
    assert!(differ.is_empty(), "{} differ; the first: {}", differ.len(), differ[0]);
    // The sets exercise both answers of every partitioned test.
    for id in ["pedf.qpa", "pedf.util", "pedf.density", "pfp.rta", "pfp.util-rta", "pfp.hyperbolic"] {
        for v in [Verdict::Schedulable, Verdict::Inconclusive] {
            assert!(seen.get(&(id, v.to_string())).copied().unwrap_or(0) > 10, "{id} {v}: {seen:?}");
        }
    }
}
