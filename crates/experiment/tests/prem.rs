//! PREM sets in sweeps (`generator.prem`): the sets are `schedlab gen
//! --prem`'s, the rows do not depend on threads or chunks, the per-task
//! columns hold the tests' bounds and the simulations' response times and
//! execution-time jitter, and `mcs` outside PREM sets is refused with the
//! field and the fix.

use schedlab_experiment::evaluate::Scratch;
use schedlab_experiment::load_str;
use schedlab_experiment::sweep::{self, Output, Plan, Sweep};
use schedlab_experiment::table::{Column, Data};
use schedlab_gen::GenParams;
use std::path::Path;

fn text(samples: u32, chunk: u32, sims: &str) -> String {
    format!(
        "name: p\nseed: 11\nsamples: {samples}\nchunk: {chunk}\ngenerator:\n  cpus: 4\n  tasks: 3\n  utils: uunifast-discard\n  util: 0.6\n  wcet_granularity: 1us\n  period_granularity: 1ms\n  wss: [list:200KiB, list:2MiB]\n  prem: \"mode=smp,compute=1GiB/s\"\nschedulers:\n  - {{name: HOL, test: mcs.holistic}}\n  - {{name: precedence, test: mcs.holistic.precedence}}\nsimulations:\n{sims}"
    )
}

const SIMS: &str = "  - {name: Contention, policy: mcs, mps: false, horizon: 300ms, memory: {bandwidth: 1GiB/s}, cache: {size: 1MiB, ways: 16, line: 64B}}\n  - {name: S-MP, policy: mcs, horizon: 300ms, memory: {bandwidth: 1GiB/s}, cache: {size: 1MiB, ways: 16, line: 64B}}\n  - {name: A-MP, policy: mcs, memory_mode: amp, horizon: 300ms, memory: {bandwidth: 1GiB/s}, cache: {size: 1MiB, ways: 16, line: 64B}}\n";

fn plan(t: &str) -> Plan {
    Plan::new(load_str(t, None, "p.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

fn rows(p: &Plan, threads: usize) -> Vec<Column> {
    let (t, _) =
        sweep::run(p, Output::Memory, Sweep { threads: Some(threads), progress: None, stop_after: None }).unwrap();
    t.columns
}

fn f64s<'a>(cols: &'a [Column], name: &str) -> &'a [f64] {
    match &cols.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no column {name}")).data {
        Data::F64(v) => v,
        d => panic!("{name}: {d:?}"),
    }
}

fn strs(cols: &[Column], name: &str) -> Vec<String> {
    match &cols.iter().find(|c| c.name == name).unwrap().data {
        Data::Str(v, d) => v.iter().map(|&i| d[i as usize].clone()).collect(),
        d => panic!("{name}: {d:?}"),
    }
}

#[test]
fn prem_sets_are_those_of_gen() {
    let p = plan(&text(3, 256, SIMS));
    for point in 0..p.grid.points.len() {
        for sample in 0..3 {
            let d = p.draw(point, sample).unwrap();
            let params = &p.grid.points[point].params;
            let spec = schedlab_gen::generate(&GenParams { seed: p.seed(point, sample), ..params.clone() }).unwrap();
            assert_eq!(d.prem.as_ref().unwrap().spec, spec);
            assert_eq!(d.tasks.len(), 3);
            for (t, s) in d.tasks.iter().zip(&spec.tasks) {
                assert_eq!((t.wcet, t.period), (s.wcet.0, s.period.0));
                assert!(s.segments.as_ref().is_some_and(|g| g.len() >= 3), "a PREM task has Sections");
            }
        }
    }
}

#[test]
fn prem_rows_do_not_depend_on_threads_or_chunks() {
    let a = rows(&plan(&text(4, 1, SIMS)), 1);
    let b = rows(&plan(&text(4, 256, SIMS)), 3);
    // (Debug text: NaN cells compare equal there.)
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_eq!(a[0].data.len(), 2 * 4 * 5);
    let names: Vec<&str> = a.iter().map(|c| c.name.as_str()).collect();
    assert!(names.ends_with(&["tau2_wcet_ns", "tau2_response_ns", "tau2_mean_response_ns", "tau2_exec_jitter"]));
}

/// The paper's mechanism on every set: under S-MP τ0 never waits for memory
/// (its WOET is its C, no jitter); Contention stretches τ0 and its
/// execution times vary; every accepted set's bounds cover the simulated
/// WOETs, HOL's at least the precedence form's; A-MP simulates the set of
/// the same seed drawn with `mode=amp`.
#[test]
fn per_task_columns_hold_bounds_responses_and_jitter() {
    let p = plan(&text(5, 256, SIMS));
    let cols = rows(&p, 2);
    let ev = strs(&cols, "evaluation");
    let verdict = strs(&cols, "verdict");
    let point: Vec<i64> = match &cols[0].data {
        Data::I64(v) => v.clone(),
        _ => panic!(),
    };
    let sample = match &cols.iter().find(|c| c.name == "sample").unwrap().data {
        Data::I64(v) => v.clone(),
        _ => panic!(),
    };
    let (c, r, j) = (0..3)
        .map(|i| {
            (
                f64s(&cols, &format!("tau{i}_wcet_ns")),
                f64s(&cols, &format!("tau{i}_response_ns")),
                f64s(&cols, &format!("tau{i}_exec_jitter")),
            )
        })
        .fold((vec![], vec![], vec![]), |mut acc, (c, r, j)| {
            acc.0.push(c);
            acc.1.push(r);
            acc.2.push(j);
            acc
        });
    let per_set = 5;
    let (mut inflated, mut varied, mut covered) = (0, 0, 0);
    for set in 0..cols[0].data.len() / per_set {
        let row = |name: &str| set * per_set + ev[set * per_set..].iter().position(|e| e == name).unwrap();
        let (hol, prec, cont, smp, amp) = (row("HOL"), row("precedence"), row("Contention"), row("S-MP"), row("A-MP"));
        assert_eq!(r[0][smp], c[0][smp], "set {set}: τ0 under S-MP runs as alone");
        assert!(r[0][cont] >= c[0][cont]);
        inflated += (r[0][cont] > c[0][cont]) as usize;
        for t in 0..3 {
            assert_eq!(j[t][smp], 0.0, "set {set} τ{t}: S-MP has no execution-time jitter");
            assert_eq!(j[t][amp], 0.0, "set {set} τ{t}: nor A-MP");
            varied += (j[t][cont] > 0.0) as usize;
            if verdict[hol] == "schedulable" {
                assert!(r[t][hol] >= r[t][prec], "set {set} τ{t}: HOL is the looser bound");
            }
            if verdict[prec] == "schedulable" && verdict[smp] == "schedulable" {
                assert!(r[t][prec] >= r[t][smp], "set {set} τ{t}: the bound covers the WOET");
                covered += 1;
            }
        }
        let k = point[smp] as usize;
        let mut params = p.grid.points[k].params.clone();
        params.seed = p.seed(k, sample[smp] as u32);
        params.prem.as_mut().unwrap().mode = schedlab_gen::prem::PremMode::Amp;
        let amp_set = schedlab_gen::generate(&params).unwrap();
        assert_eq!(c[0][amp], amp_set.tasks[0].wcet.0 as f64, "set {set}: A-MP runs the amp set of the same seed");
        assert_ne!(c[0][amp], c[0][smp]);
    }
    assert!(inflated > 0 && varied > 0 && covered > 0, "{inflated} {varied} {covered}");
}

#[test]
fn prem_results_survive_encoding() {
    let p = plan(&text(2, 256, SIMS));
    let rows = p.run_chunk(0, &mut Scratch::default()).unwrap();
    assert_eq!(rows[0].per_task.len(), 5 * 3 * 4);
    assert_eq!(sweep::decode(&sweep::encode(&rows)).unwrap().len(), rows.len());
    let back = sweep::decode(&sweep::encode(&rows)).unwrap();
    for (a, b) in rows.iter().zip(&back) {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.per_task), bits(&b.per_task));
    }
}

#[test]
fn mcs_outside_prem_sets_names_the_field_and_the_fix() {
    let bare = "name: b\nseed: 1\nsamples: 2\ngenerator:\n  cpus: 4\n  utils: uunifast-discard\n  tasks: 3\n  util: 1.0\nsimulations:\n";
    let cases = [
        (format!("{bare}  - {{name: m, policy: mcs}}\n"), "simulations[0].policy", "generator.prem"),
        (format!("{bare}  - {{name: g, policy: gedf, mps: false}}\n"), "simulations[0].mps", "generator.prem"),
        (
            bare.replace("simulations:\n", "schedulers:\n  - {name: HOL, test: mcs.holistic}\n"),
            "schedulers[0].test",
            "generator.prem",
        ),
        (text(2, 2, "  - {name: m, policy: mcs, memory_mode: xmp}\n"), "simulations[0].memory_mode", "smp"),
        (text(2, 2, "  - {name: g, policy: gedf}\n"), "simulations[0].policy", "under `mcs`"),
        (text(2, 2, SIMS).replace("tasks: 3", "tasks: 5"), "generator.prem", "--tasks must be between 1 and 4"),
        (text(2, 2, SIMS) + "cpmd: [4KiB]\n", "cpmd", "remove `cpmd`"),
        (
            text(2, 2, "  - {name: m, policy: mcs, memory: {bandwidth: 1GiB/s}}\n"),
            "simulations[0].cache",
            "needs a `cache`",
        ),
    ];
    for (t, path, word) in cases {
        let e = load_str(&t, None, "exp.yaml", Path::new(".")).unwrap_err();
        let d = &e.diagnostics[0];
        assert_eq!(d.path, path, "{e}");
        assert!(d.message.contains(word), "{e}");
    }
}
