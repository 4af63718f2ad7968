//! LITMUS^RT sched_trace: files written by an independent writer (built
//! from the published record layout, not from the crate's encoder) import
//! and validate; schedlab traces convert to sched_trace and back with the
//! same schedule, and sched_trace files written by schedlab re-export byte
//! for byte.

mod common;

use common::{simulate, tmpdir, validate, MS};
use schedlab_interop::sched_trace::{export::Exporter, import};
use schedlab_trace::{Event, Header};
use std::path::PathBuf;

/// An independent sched_trace writer: the 24-byte record of liblitmus'
/// `struct st_event_record` (header: u8 type, u8 cpu, u16 pid, u32 job;
/// then 16 payload bytes), little-endian, written field by field.
struct Raw(Vec<u8>);

impl Raw {
    fn hdr(&mut self, ty: u8, cpu: u8, pid: u16, job: u32) {
        self.0.push(ty);
        self.0.push(cpu);
        self.0.extend_from_slice(&pid.to_le_bytes());
        self.0.extend_from_slice(&job.to_le_bytes());
    }
    fn name(&mut self, cpu: u8, pid: u16, name: &str) {
        self.hdr(1, cpu, pid, 0);
        let mut b = [0u8; 16];
        b[..name.len()].copy_from_slice(name.as_bytes());
        self.0.extend_from_slice(&b);
    }
    fn param(&mut self, cpu: u8, pid: u16, wcet: u32, period: u32, partition: u8) {
        self.hdr(2, cpu, pid, 0);
        self.0.extend_from_slice(&wcet.to_le_bytes());
        self.0.extend_from_slice(&period.to_le_bytes());
        self.0.extend_from_slice(&0u32.to_le_bytes()); // phase
        self.0.push(partition);
        self.0.push(0); // class: hard
        self.0.extend_from_slice(&[0, 0]);
    }
    fn two(&mut self, ty: u8, cpu: u8, pid: u16, job: u32, a: u64, b: u64) {
        self.hdr(ty, cpu, pid, job);
        self.0.extend_from_slice(&a.to_le_bytes());
        self.0.extend_from_slice(&b.to_le_bytes());
    }
    fn release(&mut self, cpu: u8, pid: u16, job: u32, rel: u64, dl: u64) {
        self.two(3, cpu, pid, job, rel, dl)
    }
    fn switch_to(&mut self, cpu: u8, pid: u16, job: u32, when: u64) {
        self.hdr(5, cpu, pid, job);
        self.0.extend_from_slice(&when.to_le_bytes());
        self.0.extend_from_slice(&0u32.to_le_bytes());
        self.0.extend_from_slice(&[0; 4]);
    }
    fn switch_away(&mut self, cpu: u8, pid: u16, job: u32, when: u64, exec: u64) {
        self.two(6, cpu, pid, job, when, exec)
    }
    fn completion(&mut self, cpu: u8, pid: u16, job: u32, when: u64, exec: u64) {
        // forced:1 is bit 0, exec_time:63 the bits above it.
        self.two(7, cpu, pid, job, when, exec << 1)
    }
    fn sys_release(&mut self, cpu: u8, when: u64, rel: u64) {
        self.two(11, cpu, 0, 0, when, rel)
    }
}

const BASE: u64 = 5_000_000_000; // LITMUS^RT times are absolute (litmus_clock)

/// Three tasks on two CPUs under GSN-EDF, over 20 ms: a (2 ms / 5 ms),
/// b (4 ms / 10 ms), c (6 ms / 20 ms). At 0 a and b run; at 2 ms a completes
/// and c starts on CPU 0; at 4 ms b completes; at 5 ms a's second job runs
/// on the idle CPU 1. `violate` instead keeps it waiting until 6 ms while
/// CPU 1 idles: a G-EDF work-conservation violation the validator must
/// report.
fn gsn_edf_files(dir: &std::path::Path, violate: bool) -> Vec<PathBuf> {
    let (a, b, c) = (101u16, 102u16, 103u16);
    let ms = |x: u64| BASE + x * MS;
    let mut f0 = Raw(Vec::new());
    let mut f1 = Raw(Vec::new());
    for (pid, n, w, p) in [(a, "a", 2, 5), (b, "b", 4, 10), (c, "c", 6, 20)] {
        f0.name(0, pid, n);
        f0.param(0, pid, (w * MS) as u32, (p * MS) as u32, 0);
    }
    f0.sys_release(0, ms(0), ms(0));
    f0.release(0, a, 1, ms(0), ms(5));
    f0.release(0, b, 1, ms(0), ms(10));
    f0.release(0, c, 1, ms(0), ms(20));
    f0.switch_to(0, a, 1, ms(0));
    f1.switch_to(1, b, 1, ms(0));
    f0.completion(0, a, 1, ms(2), 2 * MS);
    f0.switch_away(0, a, 1, ms(2), 2 * MS);
    f0.switch_to(0, c, 1, ms(2));
    f1.completion(1, b, 1, ms(4), 4 * MS);
    f1.switch_away(1, b, 1, ms(4), 4 * MS);
    f0.release(0, a, 2, ms(5), ms(10));
    let a2_start = if violate { 6 } else { 5 };
    f1.switch_to(1, a, 2, ms(a2_start));
    f1.completion(1, a, 2, ms(a2_start + 2), 2 * MS);
    f1.switch_away(1, a, 2, ms(a2_start + 2), 2 * MS);
    f0.completion(0, c, 1, ms(8), 6 * MS);
    f0.switch_away(0, c, 1, ms(8), 6 * MS);
    f0.release(0, a, 3, ms(10), ms(15));
    f0.release(0, b, 2, ms(10), ms(20));
    f0.switch_to(0, a, 3, ms(10));
    f1.switch_to(1, b, 2, ms(10));
    f0.completion(0, a, 3, ms(12), 2 * MS);
    f0.switch_away(0, a, 3, ms(12), 2 * MS);
    f1.completion(1, b, 2, ms(14), 4 * MS);
    f1.switch_away(1, b, 2, ms(14), 4 * MS);
    let p0 = dir.join("st-0.bin");
    let p1 = dir.join("st-1.bin");
    std::fs::write(&p0, &f0.0).unwrap();
    std::fs::write(&p1, &f1.0).unwrap();
    vec![p0, p1]
}

fn import_all(files: &[PathBuf], plugin: &str) -> (Header, Vec<Event>, import::Stats) {
    let opts = import::Options { policy: Some(import::plugin_policy(plugin).unwrap()), ..Default::default() };
    let scan = import::scan(files, &opts).expect("scans");
    let mut events = Vec::new();
    let stats = scan
        .events(&mut |e| {
            events.push(e);
            Ok(())
        })
        .expect("imports");
    (scan.header, events, stats)
}

#[test]
fn independent_writer_gsn_edf_imports_and_validates() {
    let dir = tmpdir("st-indep");
    let files = gsn_edf_files(&dir, false);
    assert_eq!(std::fs::metadata(&files[0]).unwrap().len() % 24, 0);
    let (h, events, stats) = import_all(&files, "GSN-EDF");
    assert_eq!(h.spec.platform.cpus, 2);
    assert_eq!(h.spec.policy.as_ref().unwrap().name.name(), "gedf");
    let names: Vec<&str> = h.spec.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(h.spec.tasks[1].wcet.0, 4 * MS);
    assert_eq!(h.spec.tasks[2].period.0, 20 * MS);
    assert_eq!(h.horizon, 14 * MS);
    // Times are shifted to the system release; LITMUS^RT job 1 is job 0.
    assert!(events.contains(&Event::Release { t: 5 * MS, task: 0, job: 1, deadline: 10 * MS }));
    assert!(events.contains(&Event::SwitchTo { t: 5 * MS, cpu: 1, task: 0, job: 1 }));
    // Each completion's switch-away follows from the completion record.
    assert_eq!(stats.redundant, 6);
    let completions = events.iter().filter(|e| matches!(e, Event::Completion { .. })).count();
    assert_eq!(completions, 6);
    let r = validate(&h, &events, 0);
    assert!(r.pass, "{}", r.render());
}

#[test]
fn independent_writer_violation_is_reported() {
    let dir = tmpdir("st-violate");
    let files = gsn_edf_files(&dir, true);
    let (h, events, _) = import_all(&files, "GSN-EDF");
    let r = validate(&h, &events, 0);
    assert!(!r.pass, "a ready job waited 1 ms beside an idle CPU under G-EDF: must fail");
    // With a tolerance above the 1 ms lag the same schedule is accepted.
    let r = validate(&h, &events, 1_100_000);
    assert!(r.pass, "{}", r.render());
}

fn export_to(dir: &std::path::Path, h: &Header, events: &[Event]) -> Vec<PathBuf> {
    let files: Vec<PathBuf> = (0..h.spec.platform.cpus).map(|c| dir.join(format!("st-{c}.bin"))).collect();
    let outs = files.iter().map(|p| std::fs::File::create(p).unwrap()).collect();
    let mut x = Exporter::new(h, outs).unwrap();
    for e in events {
        x.push(e.clone()).unwrap();
    }
    x.finish().unwrap();
    files
}

/// Events of a schedule as a comparable list: sorted within each instant
/// (the order of simultaneous events on different CPUs is not kept).
fn canonical(events: &[Event]) -> Vec<String> {
    let mut v: Vec<(u64, String)> = events.iter().map(|e| (e.t(), serde_json::to_string(e).unwrap())).collect();
    v.sort();
    v.into_iter().map(|x| x.1).collect()
}

fn round_trip(yaml: &str, plugin: &str, ms: u64) {
    let (h, events) = simulate(yaml, ms);
    assert!(validate(&h, &events, 0).pass);
    let d1 = tmpdir(&format!("st-rt1-{plugin}"));
    let files = export_to(&d1, &h, &events);
    let (h1, ev1, _) = import_all(&files, plugin);
    // The same tasks and the same schedule.
    assert_eq!(h1.spec.tasks.len(), h.spec.tasks.len());
    for (a, b) in h1.spec.tasks.iter().zip(&h.spec.tasks) {
        assert_eq!((&a.name, a.wcet, a.period, a.deadline()), (&b.name, b.wcet, b.period, b.deadline()));
        assert_eq!(a.cpu, h.placement[h1.spec.tasks.iter().position(|t| t.name == a.name).unwrap()].clone().cpu());
    }
    let kept: Vec<Event> = events.iter().filter(|e| !matches!(e, Event::DeadlineMiss { .. })).cloned().collect();
    assert_eq!(canonical(&ev1), canonical(&kept));
    let r = validate(&h1, &ev1, 0);
    assert!(r.pass, "{}", r.render());
    // sched_trace → schedlab → sched_trace: byte for byte.
    let d2 = tmpdir(&format!("st-rt2-{plugin}"));
    let files2 = export_to(&d2, &h1, &ev1);
    for (a, b) in files.iter().zip(&files2) {
        let (x, y) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
        assert!(x.len() > 24 * 4);
        assert_eq!(x, y, "{} and {} differ", a.display(), b.display());
    }
}

trait CpuOf {
    fn cpu(self) -> Option<u32>;
}
impl CpuOf for schedlab_model::Placement {
    fn cpu(self) -> Option<u32> {
        match self {
            schedlab_model::Placement::Cpu { cpu } => Some(cpu),
            _ => None,
        }
    }
}

#[test]
fn gedf_round_trip() {
    round_trip(
        "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 2ms, period: 5ms}\n  - {name: b, wcet: 3ms, period: 7ms}\n  - {name: c, wcet: 4ms, period: 11ms, deadline: 9ms}\n  - {name: d, wcet: 1ms, period: 4ms}\n",
        "GSN-EDF",
        300,
    );
}

#[test]
fn pedf_round_trip() {
    round_trip(
        "platform: {cpus: 2}\npolicy: {name: pedf}\ntasks:\n  - {name: a, wcet: 2ms, period: 5ms}\n  - {name: b, wcet: 3ms, period: 7ms}\n  - {name: c, wcet: 4ms, period: 11ms}\n  - {name: d, wcet: 1ms, period: 4ms}\n",
        "PSN-EDF",
        300,
    );
}

#[test]
fn unknown_plugin_is_refused_with_the_list() {
    let e = import::plugin_policy("GSN-FOO").unwrap_err().to_string();
    assert!(e.contains("GSN-EDF (gedf)") && e.contains("PFAIR (pd2)"), "{e}");
    assert_eq!(import::plugin_policy("pfair").unwrap().name.name(), "pd2");
    assert_eq!(import::plugin_policy("C-EDF").unwrap().name.name(), "cedf");
    assert_eq!(import::plugin_policy("P-FP").unwrap().name.name(), "pfp");
}
