//! Sweeps end to end: results independent of threads and chunking, resume
//! after an interruption gives the same file, the rows are the sets of the
//! batch generator with the verdicts of the tests, and bad files are
//! rejected with the field and the fix.

use schedlab_analysis::schedulability::{find, Input};
use schedlab_experiment::evaluate::VERDICTS;
use schedlab_experiment::sweep::{self, checkpoint_path, Output, Plan, Sweep};
use schedlab_experiment::table::Data;
use schedlab_experiment::{load_str, Experiment};
use std::path::Path;

fn exp(chunk: u32, extra: &str) -> String {
    format!(
        "name: t\nseed: 7\nsamples: 30\nchunk: {chunk}\ngenerator:\n  cpus: 4\n  utils: [uni-medium, bimo-heavy(0.1)]\n  periods: short\n  util: {{from: 1.5, to: 3.5, step: 0.5}}\nschedulers:\n  - {{name: G-EDF, test: gedf.any}}\n  - {{name: P-EDF, test: pedf.util}}\n  - {{name: C-EDF, test: cedf.global, cluster_size: 2, cluster_fit: capacity, cluster_tests: [gedf.gfb]}}\n{extra}"
    )
}

fn plan(text: &str) -> Plan {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    Plan::new(load_str(text, None, "t.yaml", &dir).unwrap()).unwrap()
}

fn rows(p: &Plan, threads: usize) -> Vec<schedlab_experiment::table::Column> {
    let (t, s) =
        sweep::run(p, Output::Memory, Sweep { threads: Some(threads), progress: None, stop_after: None }).unwrap();
    assert_eq!(s.rows as usize, t.rows());
    t.columns
}

#[test]
fn rows_do_not_depend_on_threads_or_chunks() {
    let extra = "overheads:\n  - {name: none}\n  - {name: epos, file: overheads/epos-approx.csv, lookup: floor}\ncpmd: [4KiB, 1MiB]\n";
    let a = rows(&plan(&exp(7, extra)), 1);
    let b = rows(&plan(&exp(256, extra)), 3);
    assert_eq!(a, b);
    let n = 2 * 5 * 30 * 3 * 2 * 2;
    assert_eq!(a[0].data.len(), n);
}

#[test]
fn rows_are_the_generated_sets_with_the_tests_verdicts() {
    let p = plan(&exp(11, ""));
    let cols = rows(&p, 2);
    let col = |name: &str| &cols.iter().find(|c| c.name == name).unwrap().data;
    let (Data::I64(point), Data::I64(sample), Data::Str(verdict, vd), Data::Str(test, td), Data::I64(tasks)) =
        (col("point"), col("sample"), col("verdict"), col("test"), col("tasks"))
    else {
        panic!("column types")
    };
    assert_eq!(vd, &VERDICTS.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let mut schedulable = 0;
    for r in (0..point.len()).step_by(7) {
        let d = p.draw(point[r] as usize, sample[r] as u32).unwrap();
        assert_eq!(d.tasks.len() as i64, tasks[r]);
        let id = &td[test[r] as usize];
        let mut input = Input::new(4, d.tasks.clone());
        if id == "cedf.global" {
            input.clusters = Some(vec![vec![0, 1], vec![2, 3]]);
            input.options.cluster_tests = vec!["gedf.gfb".into()];
            input.options.cluster_fit = schedlab_analysis::schedulability::ClusterFit::Capacity;
        }
        let v = (find(id).unwrap().run)(&input).verdict;
        assert_eq!(VERDICTS[verdict[r] as usize], v.to_string(), "row {r} {id}");
        schedulable += (verdict[r] == 0) as usize;
    }
    assert!(schedulable > 0 && schedulable < point.len() / 7, "both outcomes occur: {schedulable}");
}

#[test]
fn an_interrupted_sweep_resumes_to_the_same_file() {
    let dir = std::env::temp_dir().join(format!("schedlab-sweep-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = plan(&exp(4, ""));
    for name in ["whole.parquet", "whole.csv"] {
        let whole = dir.join(name);
        sweep::run(&p, Output::File(&whole), Sweep { threads: Some(2), progress: None, stop_after: None }).unwrap();
        assert!(!checkpoint_path(&whole).exists());
        let part = dir.join(format!("part-{name}"));
        let err = sweep::run(&p, Output::File(&part), Sweep { threads: Some(2), progress: None, stop_after: Some(9) })
            .unwrap_err();
        assert!(err.contains("stopped"), "{err}");
        assert!(!part.exists(), "nothing written before the end");
        // Tear the last record, as a kill in the middle of a write would.
        let ck = checkpoint_path(&part);
        let len = std::fs::metadata(&ck).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&ck).unwrap().set_len(len - 5).unwrap();
        let mut seen = Vec::new();
        let mut progress = |d: u64, _t: u64| seen.push(d);
        let (_, s) = sweep::run(
            &p,
            Output::File(&part),
            Sweep { threads: Some(1), progress: Some(&mut progress), stop_after: None },
        )
        .unwrap();
        assert_eq!(s.resumed_chunks, 8, "the torn record is run again");
        assert!(seen[0] > 0 && *seen.last().unwrap() == p.sets());
        assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&part).unwrap(), "{name}");
        assert!(!ck.exists());
    }
    let csv = std::fs::read_to_string(dir.join("whole.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert_eq!(
        header,
        "point,utils,util,sample,seed,tasks,utilization,evaluation,test,overheads,cpmd_wss,verdict,schedulable"
    );
    assert_eq!(csv.lines().count(), 1 + p.rows() as usize);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulations_keep_their_metrics() {
    let text = "name: s\nseed: 3\nsamples: 6\ngenerator:\n  cpus: 2\n  utils: uunifast-discard\n  tasks: 4\n  periods: list:10ms,20ms,40ms\n  util: [1.2, 1.9]\nsimulations:\n  - {name: gedf, policy: gedf, horizon: 200ms}\n  - {name: run, policy: run, horizon: 200ms, metrics: [misses]}\n";
    let p = plan(text);
    let cols = rows(&p, 2);
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    assert!(
        names.ends_with(&[
            "jobs",
            "misses",
            "miss_ratio",
            "max_tardiness_ns",
            "mean_tardiness_ns",
            "preemptions",
            "migrations"
        ]),
        "{names:?}"
    );
    let col = |name: &str| &cols.iter().find(|c| c.name == name).unwrap().data;
    let (Data::F64(jobs), Data::F64(misses), Data::Str(test, td)) = (col("jobs"), col("misses"), col("test")) else {
        panic!()
    };
    assert!(
        jobs.iter().all(|&j| j >= 20.0),
        "4 tasks of period ≤ 40 ms over 200 ms release at least 20 jobs: {jobs:?}"
    );
    for (r, &m) in misses.iter().enumerate() {
        if td[test[r] as usize] == "sim.run" {
            assert_eq!(m, 0.0, "RUN is optimal: U ≤ m never misses");
        }
    }
    assert!(misses.iter().any(|&m| m > 0.0), "G-EDF at U = 1.9 on 2 CPUs misses sometimes");
}

#[test]
fn bad_files_name_the_field_and_the_fix() {
    let dir = Path::new(".");
    let cases = [
        (exp(4, "").replace("gedf.any", "gedf.nope"), "schedulers[0].test", "gedf.nope"),
        (exp(4, "").replace("uni-medium", "uni-mediun"), "generator.utils", "uni-mediun"),
        (exp(4, "").replace("cluster_size: 2, ", ""), "schedulers[2].cluster_size", "clustered"),
        (exp(4, "overheads:\n  - {name: x, file: nowhere.csv}\n"), "overheads[0].file", "does not exist"),
        (exp(4, "").replace("samples: 30", "samples: 0"), "samples", "at least 1"),
        (
            exp(4, "simulations:\n  - {name: ca, policy: ca-gedf}\n"),
            "simulations[0].policy",
            "a shared cache and working sets, which a sweep's generated sets do not have",
        ),
        (exp(4, "").replace("seed: 7", "seed: 7\nsed: 1"), "sed", "sed"),
        (
            exp(4, "").replace("heuristics", "x").replace("test: pedf.util", "test: pedf.util, heuristics: [ffz]"),
            "schedulers[1].heuristics[0]",
            "ffz",
        ),
    ];
    for (text, path, word) in cases {
        let e = load_str(&text, None, "exp.yaml", dir).unwrap_err();
        let d = &e.diagnostics[0];
        assert_eq!(d.path, path, "{e}");
        assert!(d.message.contains(word) && d.line.is_some(), "{e}");
        assert!(e.to_string().contains("exp.yaml"), "{e}");
    }
    let ok: Experiment = load_str(&exp(4, ""), None, "exp.yaml", dir).unwrap().experiment;
    assert_eq!(ok.samples, 30);
}

#[test]
fn the_shipped_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/experiment.schema.json");
    let shipped = std::fs::read_to_string(&path).unwrap_or_default();
    if std::env::var_os("SCHEDLAB_BLESS").is_some() {
        std::fs::write(&path, schedlab_experiment::file::schema_json()).unwrap();
        return;
    }
    assert_eq!(
        shipped,
        schedlab_experiment::file::schema_json(),
        "run with SCHEDLAB_BLESS=1 to update docs/experiment.schema.json"
    );
}

#[test]
fn every_shipped_experiment_loads_and_plans() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "yaml") {
            let l = schedlab_experiment::load_path(&p).unwrap_or_else(|e| panic!("{e}"));
            let plan = Plan::new(l).unwrap();
            assert!(plan.sets() > 0);
            plan.draw(0, 0).unwrap();
            n += 1;
        }
    }
    assert!(n >= 1);
}

/// `skip` leaves tests out of `gedf.any` for the listed distribution only:
/// for the other distribution the verdicts are the full test's; for the
/// listed one only GFB is tried (every acceptance is GFB's, and some sets
/// the full test accepts are then inconclusive).
#[test]
fn skip_leaves_tests_out_for_the_listed_distribution_only() {
    let text = "name: t\nseed: 3\nsamples: 40\ngenerator:\n  cpus: 4\n  utils: [uni-medium, bimo-heavy(0.1)]\n  periods: short\n  util: {from: 1.5, to: 3.5, step: 0.5}\nschedulers:\n  - {name: all, test: gedf.any}\n  - name: gfb\n    test: gedf.any\n    skip: [{test: gedf.bcl, utils: [bimo-heavy(0.1)]}, {test: gedf.bak, utils: [bimo-heavy(0.1)]}, {test: gedf.load, utils: [bimo-heavy(0.1)]}, {test: gedf.rta, utils: [bimo-heavy(0.1)]}, {test: gedf.bar, utils: [bimo-heavy(0.1)]}, {test: gedf.ffdbf, utils: [bimo-heavy(0.1)]}]\n";
    let p = plan(text);
    let cols = rows(&p, 2);
    let col = |name: &str| &cols.iter().find(|c| c.name == name).unwrap().data;
    let (Data::I64(point), Data::I64(sample), Data::Str(utils, ud), Data::Str(eval, ed), Data::Str(verdict, _)) =
        (col("point"), col("sample"), col("utils"), col("evaluation"), col("verdict"))
    else {
        panic!("column types")
    };
    let mut by_set = std::collections::BTreeMap::new();
    for r in 0..point.len() {
        let e = by_set.entry((point[r], sample[r])).or_insert((String::new(), 0u32, 0u32));
        e.0 = ud[utils[r] as usize].clone();
        if ed[eval[r] as usize] == "all" {
            e.1 = verdict[r];
        } else {
            e.2 = verdict[r];
        }
    }
    let (mut lost, mut same) = (0, 0);
    for (&(pt, s), (u, all, gfb)) in &by_set {
        if u == "uni-medium" {
            assert_eq!(all, gfb, "point {pt} sample {s}: {u}");
            same += 1;
            continue;
        }
        let d = p.draw(pt as usize, s as u32).unwrap();
        let gfb_alone = (find("gedf.gfb").unwrap().run)(&Input::new(4, d.tasks.clone())).verdict;
        if *gfb == 0 {
            assert_eq!(gfb_alone, schedlab_analysis::schedulability::Verdict::Schedulable);
        }
        lost += (*all == 0 && *gfb != 0) as usize;
    }
    assert!(same > 0 && lost > 0, "uni-medium sets {same}, bimo-heavy sets the skip made undecided {lost}");
}

#[test]
fn a_skip_names_a_test_of_gedf_any_and_a_distribution() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let e = load_str(
        &exp(8, "").replace("test: gedf.any}", "test: gedf.any, skip: [{test: gedf.nope, utils: [uni-nope]}]}"),
        None,
        "t.yaml",
        &dir,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("schedulers[0].skip[0].test: `gedf.nope` is not a test of gedf.any"), "{e}");
    assert!(e.contains("schedulers[0].skip[0].utils[0]"), "{e}");
}

/// Every row's columns hold its set's values: the grid point's axis values,
/// the set's sample, seed, size and utilisation, and the evaluation's name,
/// test, overhead model and CPMD value, in the evaluations' order.
#[test]
fn every_row_names_its_point_set_and_evaluation() {
    let extra = "overheads:\n  - {name: none}\n  - {name: epos, file: overheads/epos-approx.csv, lookup: floor}\ncpmd: [4KiB, 1MiB]\n";
    let p = plan(&exp(7, extra).replace("periods: short", "periods: [short, long]"));
    let cols = rows(&p, 2);
    let evals = &p.evaluator.evaluations;
    let n = cols[0].data.len();
    assert_eq!(n as u64, p.sets() * evals.len() as u64);
    let text = |name: &str, r: usize| match &cols.iter().find(|c| c.name == name).unwrap().data {
        Data::Str(v, d) => d[v[r] as usize].clone(),
        Data::I64(v) => v[r].to_string(),
        Data::U64(v) => v[r].to_string(),
        Data::F64(v) => v[r].to_string(),
    };
    for r in 0..n {
        let (set, e) = (r / evals.len(), r % evals.len());
        let point = text("point", r).parse::<usize>().unwrap();
        let sample = text("sample", r).parse::<u32>().unwrap();
        assert_eq!((point, sample), (set / 30, (set % 30) as u32), "row {r}");
        for (a, axis) in p.grid.axes.iter().enumerate() {
            assert_eq!(text(axis.name, r), p.grid.points[point].values[a].to_string(), "row {r} {}", axis.name);
        }
        let d = p.draw(point, sample).unwrap();
        assert_eq!(text("seed", r), p.seed(point, sample).to_string());
        assert_eq!(text("tasks", r), d.tasks.len().to_string());
        assert_eq!(text("utilization", r), d.utilization.to_string());
        let info = &evals[e];
        assert_eq!(
            [text("evaluation", r), text("test", r), text("overheads", r), text("cpmd_wss", r)],
            [info.name.clone(), info.test.clone(), info.overheads.clone(), info.cpmd_wss.to_string()],
            "row {r}"
        );
        assert_eq!(text("schedulable", r), ((text("verdict", r) == "schedulable") as i64).to_string());
    }
}
