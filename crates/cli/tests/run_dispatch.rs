//! `schedlab run --backend dispatch` as a user runs it (root): the trace it
//! writes is accepted by `schedlab validate --tolerance 2ms`.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
}

#[test]
fn dispatch_run_writes_a_trace_that_validate_accepts() {
    let d = std::env::temp_dir().join(format!("schedlab-cli-dispatch-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let spec = d.join("s.yaml");
    std::fs::write(&spec, "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: b, wcet: 2ms, period: 20ms}\n").unwrap();
    let trace = d.join("t.sltrace");
    // A VM stall of several ms can fail one run's validation: three attempts.
    let mut last = String::new();
    for _ in 0..3 {
        let out = bin()
            .args([
                "run",
                spec.to_str().unwrap(),
                "--backend",
                "dispatch",
                "--duration",
                "1s",
                "--exec",
                "fraction:0.5",
                "--trace",
            ])
            .arg(&trace)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v = bin().args(["validate", trace.to_str().unwrap(), "--tolerance", "2ms"]).output().unwrap();
        last = format!("{}{}", String::from_utf8_lossy(&v.stdout), String::from_utf8_lossy(&v.stderr));
        if v.status.code() == Some(0) {
            let (h, events) = schedlab_trace::read_all(&trace).unwrap();
            assert_eq!(h.source, schedlab_trace::Source::Runtime);
            assert_eq!(
                events.iter().filter(|e| matches!(e, schedlab_trace::Event::Release { task: 0, .. })).count(),
                100
            );
            return;
        }
        eprintln!("attempt failed: {last}");
    }
    panic!("{last}");
}
