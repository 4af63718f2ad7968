//! `SCHEDLAB_DISPATCH_PHASES`: a real dispatch run (root) writes one row per
//! decision, and the rows describe the decisions the run's `schedule`
//! overheads measured: as many, the phases adding up to the window, the
//! switches' system calls counted and timed inside `apply`. (Own test
//! binary: the variable is read from the process's environment.) ~3 s.

mod common;
use common::*;
use schedlab_rt::{run, BackendKind, Execution, RunConfig, WorkloadSpec};
use schedlab_trace::{Event, OverheadKind};

#[test]
fn each_decision_is_split_into_its_phases_and_system_calls() {
    require_root();
    let _s = serial();
    let path = std::env::temp_dir().join(format!("schedlab-dispatch-phases-{}.csv", std::process::id()));
    std::env::set_var("SCHEDLAB_DISPATCH_PHASES", &path);
    let spec = spec(
        "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:
  - {name: a, wcet: 1ms, period: 5ms}
  - {name: b, wcet: 2ms, period: 10ms}
  - {name: c, wcet: 3ms, period: 20ms}
  - {name: d, wcet: 1ms, period: 4ms}
",
    );
    let cfg = RunConfig {
        backend: BackendKind::Dispatch,
        duration: 1_000_000_000,
        execution: Execution::Fraction(0.5),
        workload: WorkloadSpec::SpinCpu,
        ..RunConfig::default()
    };
    let o = run(&spec, &cfg).unwrap_or_else(|e| panic!("{e}"));
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (notes: {:?})", path.display(), o.notes));
    assert!(
        o.notes.iter().any(|n| n.contains(&path.display().to_string())),
        "a run note names the file: {:?}",
        o.notes
    );
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}: {head:?}"));
    let rows: Vec<Vec<u64>> = lines.map(|l| l.split(',').map(|x| x.parse().unwrap()).collect()).collect();
    let decisions =
        o.events.iter().filter(|e| matches!(e, Event::Overhead { kind: OverheadKind::Schedule, .. })).count();
    eprintln!("{} rows, {decisions} schedule overheads", rows.len());
    assert_eq!(rows.len(), decisions, "one row per decision the run measured");
    assert!(decisions > 100, "too few decisions ({decisions})");
    let (wall, inputs, instant, apply, rest) =
        (col("wall_ns"), col("inputs_ns"), col("instant_ns"), col("apply_ns"), col("rest_ns"));
    let (wakes, wake_ns, aff, aff_ns, sig, sig_ns) = (
        col("futex_wakes"),
        col("futex_wake_ns"),
        col("affinity"),
        col("affinity_ns"),
        col("signals"),
        col("signal_ns"),
    );
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(
            r[inputs] + r[instant] + r[apply] + r[rest],
            r[wall],
            "row {k}: the phases add up to the window: {r:?}"
        );
        assert!(r[wake_ns] + r[aff_ns] + r[sig_ns] <= r[apply], "row {k}: the switches' calls are inside apply: {r:?}");
        assert_eq!(r[wakes] == 0, r[wake_ns] == 0, "row {k}: wakes counted iff timed: {r:?}");
        assert_eq!(r[aff] == 0, r[aff_ns] == 0, "row {k}: affinity changes counted iff timed: {r:?}");
        assert_eq!(r[sig] == 0, r[sig_ns] == 0, "row {k}: signals counted iff timed: {r:?}");
    }
    // Each job is dispatched once at least: a futex wake of its worker's gate.
    let jobs = o.events.iter().filter(|e| matches!(e, Event::Release { .. })).count() as u64;
    let total_wakes: u64 = rows.iter().map(|r| r[wakes]).sum();
    assert!(total_wakes >= jobs, "{total_wakes} futex wakes for {jobs} jobs");
    let cpu: u64 = rows.iter().map(|r| r[col("cpu_ns")]).sum();
    assert!(cpu > 0, "the dispatcher's CPU time was read");
    let _ = std::fs::remove_file(&path);
}
