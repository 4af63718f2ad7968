//! `schedlab overheads measure` (as root on CI): the CSV it writes is the one
//! `analyze --overheads` reads; bad options are exit 2 before any run.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
}

#[test]
fn bad_options_exit_2() {
    for extra in [
        &["--sizes", "4,2"][..],
        &["--sizes", "0"],
        &["--backend", "bogus"],
        &["--percentile", "101"],
        &["--utilization", "9"],
        &["--policy", "nope"],
    ] {
        let out = bin().args(["overheads", "measure"]).args(extra).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn measures_growing_sets_and_writes_a_csv_analyze_reads() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-overheads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("oh.csv");
    for backend in ["dispatch", "kernel"] {
        let out = bin()
            .args([
                "overheads",
                "measure",
                "--sizes",
                "2,4",
                "--duration",
                "300ms",
                "--percentile",
                "99",
                "--backend",
                backend,
                "-o",
            ])
            .arg(&csv)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&csv).unwrap();
        assert!(text.starts_with("# Overheads measured by `schedlab overheads measure` on "), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        // TICK is not measured, so it is not written (a 0 would read as "free").
        assert_eq!(rows[0], "TASK-COUNT,RELEASE,SCHEDULE,CXS,IPI-LATENCY,RELEASE-LATENCY");
        assert_eq!(rows.len(), 3, "{text}");
        assert!(rows[1].starts_with("2,") && rows[2].starts_with("4,"), "{text}");
        // The release latency was measured (a positive number of µs).
        let rl: f64 = rows[1].rsplit(',').next().unwrap().parse().unwrap();
        assert!(rl > 0.0, "{text}");
        let o = schedlab_model::overheads::Overheads::parse(&text, "oh.csv", 64).unwrap();
        assert!(o.get(schedlab_model::overheads::Overhead::ReleaseLatency, 3) > 0);
        let spec = dir.join("set.yaml");
        std::fs::write(&spec, "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: b, wcet: 2ms, period: 20ms}\n").unwrap();
        let out = bin()
            .args(["analyze"])
            .arg(&spec)
            .arg("--overheads")
            .arg(&csv)
            .args(["--accounting", "per-task-release"])
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("the tick term is missing"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
