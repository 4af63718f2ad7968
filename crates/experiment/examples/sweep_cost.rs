//! Per-set cost of a sweep against the bare batch path, on one thread and
//! the same sets (docs/performance.md, "Sweeps"):
//!
//! - generation: the batch generator (`generate::draw`) into one reused set,
//!   the tasks appended to one flat array (what `generate_many` does);
//! - test: `schedlab_analysis::batch::run_flat` of the experiment's tests on
//!   that array (what `analyze_batch` does);
//! - sweep: `sweep::run` on one thread, rows kept in memory (Python's
//!   `schedlab.sweep`), written as CSV and as Parquet (`schedlab sweep`).
//!
//! CPU time of the process (user + sys, /proc/self/stat), best of `--runs`.
//! The experiment must have one grid point and only tests (no overheads,
//! no simulations), so that both paths do the same work.
//!
//! ```sh
//! cargo run --release -p schedlab-experiment --example sweep_cost -- EXP.yaml [--runs 3]
//! ```

use schedlab_analysis::batch;
use schedlab_analysis::schedulability::TaskParams;
use schedlab_experiment::generate::{draw, Drawn};
use schedlab_experiment::sweep::{self, Output, Plan, Sweep};

/// CPU seconds (user + sys) of this process so far.
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    let after = &stat[stat.rfind(')').expect("comm") + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    // Fields 14 and 15 of proc(5), in clock ticks (100 per second on Linux).
    let ticks: u64 = f[11].parse::<u64>().expect("utime") + f[12].parse::<u64>().expect("stime");
    ticks as f64 / 100.0
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let c = cpu_s();
    let t = f();
    (t, cpu_s() - c)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().expect("usage: sweep_cost EXP.yaml [--runs N]");
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .map_or(3, |s| s.parse().expect("--runs N"));
    let loaded = schedlab_experiment::load_path(std::path::Path::new(path)).unwrap_or_else(|e| panic!("{e}"));
    let plan = Plan::new(loaded).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.grid.points.len(), 1, "one grid point");
    assert!(plan.evaluator.evaluations.iter().all(|e| !e.is_sim && e.overheads == "none" && e.cpmd_wss == 0));
    let ids: Vec<&str> = plan.evaluator.evaluations.iter().map(|e| e.test.as_str()).collect();
    let tests = batch::tests(&ids).unwrap();
    let point = &plan.grid.points[0];
    let n = plan.sets() as usize;
    let dir = std::env::temp_dir().join(format!("sweep-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut best = [f64::INFINITY; 5];
    let mut check = (0usize, 0usize);
    for _ in 0..runs {
        let ((tasks, offsets), gen) = timed(|| {
            let mut d = Drawn::default();
            let mut tasks: Vec<TaskParams> = Vec::new();
            let mut offsets = vec![0usize];
            for s in 0..n {
                draw(&point.params, plan.seed(0, s as u32), &mut d).unwrap();
                tasks.extend_from_slice(&d.tasks);
                offsets.push(tasks.len());
            }
            (tasks, offsets)
        });
        let (verdicts, test) = timed(|| batch::run_flat(&tasks, &offsets, point.params.cpus, &tests, Some(1)).unwrap());
        let accepted = verdicts.iter().filter(|v| **v == schedlab_analysis::schedulability::Verdict::Schedulable);
        check.0 = accepted.count();
        let opts = || Sweep { threads: Some(1), progress: None, stop_after: None };
        let ((table, _), mem) = timed(|| sweep::run(&plan, Output::Memory, opts()).unwrap());
        let Some(schedlab_experiment::table::Data::I64(ok)) =
            table.columns.iter().find(|c| c.name == "schedulable").map(|c| &c.data)
        else {
            panic!("schedulable column")
        };
        check.1 = ok.iter().sum::<i64>() as usize;
        assert_eq!(check.0, check.1, "the same sets and verdicts on both paths");
        drop(table);
        let (_, csv) = timed(|| sweep::run(&plan, Output::File(&dir.join("r.csv")), opts()).unwrap());
        let (_, pq) = timed(|| sweep::run(&plan, Output::File(&dir.join("r.parquet")), opts()).unwrap());
        for (b, v) in best.iter_mut().zip([gen, test, mem, csv, pq]) {
            *b = b.min(v);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let us = |s: f64| s / n as f64 * 1e6;
    let [gen, test, mem, csv, pq] = best;
    let bare = gen + test;
    println!("{path}: {n} sets, tests {ids:?}, {} accepted; CPU µs per set, best of {runs}", check.0);
    println!("  batch: generation {:.2} + test {:.2} = {:.2}", us(gen), us(test), us(bare));
    for (what, v) in [("memory", mem), ("csv", csv), ("parquet", pq)] {
        println!(
            "  sweep ({what}): {:.2}  = {:.2}× the batch path (generation + test), {:.1}× the test alone",
            us(v),
            v / bare,
            v / test
        );
    }
}
