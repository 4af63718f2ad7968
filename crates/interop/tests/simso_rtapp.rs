//! SimSo XML and rt-app JSON: specs go out and come back the same; what the
//! model cannot express is refused with the byte offset.

use schedlab_interop::{rtapp, simso};

#[test]
fn simso_round_trip() {
    let yaml = "platform: {cpus: 4}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 1.5ms, period: 5ms}\n  - {name: b, wcet: 2ms, period: 8ms, deadline: 7ms, offset: 1ms}\n";
    let spec = schedlab_model::load_str(yaml, None, "<t>").unwrap().spec;
    let x = simso::export(&spec, 1_000_000_000).unwrap();
    assert!(
        x.contains("class=\"simso.schedulers.EDF\"")
            && x.contains("WCET=\"1.5\"")
            && x.contains("duration=\"999999999\""),
        "{x}"
    );
    let (back, _) = simso::import_str(&x, "x.xml").unwrap();
    assert_eq!(back.platform.cpus, 4);
    assert_eq!(back.policy.unwrap().name.name(), "gedf");
    for (a, b) in back.tasks.iter().zip(&spec.tasks) {
        assert_eq!(
            (&a.name, a.wcet, a.period, a.deadline(), a.offset),
            (&b.name, b.wcet, b.period, b.deadline(), b.offset)
        );
    }
    // 1.229 ms is written as the float that SimSo truncates back to 1229000 cycles.
    let odd = spec.tasks[0].clone();
    let mut s2 = spec.clone();
    s2.tasks = vec![schedlab_model::Task { wcet: schedlab_model::Duration(1_229_000), ..odd }];
    let x2 = simso::export(&s2, 1_000_000_000).unwrap();
    let w: f64 = x2.split("WCET=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    assert_eq!((w * 1e6) as u64, 1_229_000, "{x2}");
    let e = simso::import_str("<simulation><sched class=\"simso.schedulers.Foo\"/></simulation>", "x.xml")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.xml: byte 12: scheduler `simso.schedulers.Foo` has no schedlab policy"), "{e}");
    let e = simso::import_str("<simulation><sched ", "x.xml").unwrap_err().to_string();
    assert!(e.contains("byte 12") && e.contains("truncated"), "{e}");
}

#[test]
fn rtapp_import_refuses_what_the_model_cannot_express() {
    let ok = br#"{ /* a comment */ "tasks": { "t": { "policy": "SCHED_FIFO", "priority": 80, "cpus": [1], "run": 1000, "timer": {"ref": "x", "period": 10000}, }, }, "global": {"duration": 2} }"#;
    let (spec, notes) = rtapp::import_bytes(ok, "w.json", &Default::default()).unwrap();
    assert_eq!(spec.platform.cpus, 2);
    assert_eq!(spec.policy.unwrap().name.name(), "pfp");
    assert_eq!(
        (spec.tasks[0].wcet.0, spec.tasks[0].period.0, spec.tasks[0].priority, spec.tasks[0].cpu),
        (1_000_000, 10_000_000, Some(20), Some(1))
    );
    assert!(notes.notes.iter().any(|n| n.contains("duration")));
    let bad = br#"{"tasks": {"t": {"policy": "SCHED_FIFO", "cpus": [0], "run": 1000, "lock": "m", "timer": {"ref": "x", "period": 10000}}}}"#;
    let e = rtapp::import_bytes(bad, "w.json", &Default::default()).unwrap_err().to_string();
    assert!(e.starts_with("w.json: byte 75: thread `t`: the event `lock` (lock) cannot be expressed"), "{e}");
    let e = rtapp::import_bytes(b"{\"tasks\": {\"t\": {\"run\": 10", "w.json", &Default::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    let sleepy = br#"{"tasks": {"t": {"policy": "SCHED_DEADLINE", "run": 1000, "sleep": 4000, "dl-runtime": 1500, "dl-period": 5000, "dl-deadline": 5000}}}"#;
    let (s, _) = rtapp::import_bytes(sleepy, "w.json", &rtapp::ImportOptions { cpus: Some(2) }).unwrap();
    assert_eq!((s.tasks[0].period.0, s.policy.unwrap().name.name()), (5_000_000, "gedf"));
}
