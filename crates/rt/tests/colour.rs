//! Page colouring on this machine (root): the colour-aware allocator's
//! frames read back, and a run that colours says what it did and whether it
//! partitions anything here (in a VM it does not).

mod common;
use common::*;
use schedlab_model::ColorSet;
use schedlab_rt::colour::{ColouredBuffer, Geometry, Virtualisation};
use schedlab_rt::{run, RunConfig, WorkloadSpec};
use schedlab_trace::Event;

/// This machine's last-level cache, or the spec example's 8 MiB / 16 ways.
fn geometry() -> Geometry {
    Geometry::of_machine().unwrap_or_else(|| {
        Geometry::of_spec(&schedlab_model::Cache {
            size: schedlab_model::Size(8 << 20),
            ways: 16,
            line: schedlab_model::Size(64),
            page: None,
            colors: None,
            shared_by: None,
            private: None,
        })
    })
}

#[test]
fn every_page_of_a_coloured_buffer_has_a_wanted_colour() {
    require_root();
    let g = geometry();
    assert!(g.colours >= 16, "{g:?}");
    // 4 colours of the first half, 4 of the second (two ranges).
    let c = g.colours as u32;
    let wanted = ColorSet::from_ranges(vec![(1, 2), (5, 6), (c / 2, c / 2 + 3)]);
    let mut b = ColouredBuffer::allocate(256 * 1024 + 1, &wanted, &g).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.pages(), 65);
    let v = b.verify(&wanted, &g).unwrap();
    log(&format!(
        "coloured buffer: {} pages in colours {:?} ({} others given back) by {}",
        v.pages,
        v.colours,
        b.scanned,
        g.describe()
    ));
    assert_eq!(v.pages, 65);
    assert!(v.wrong.is_empty(), "pages of unwanted colours: {:?}", v.wrong);
    assert!(v.colours.iter().all(|&x| wanted.contains(x)), "{:?}", v.colours);
    // Distinct frames, and the buffer is usable memory (zeroed, writable).
    let mut f = b.frames().unwrap();
    f.sort_unstable();
    f.dedup();
    assert_eq!(f.len(), 65);
    let w = b.words();
    assert!(w.iter().all(|&x| x == 0));
    for (i, x) in w.iter_mut().enumerate() {
        *x = i as u64;
    }
    assert_eq!(w[w.len() - 1], w.len() as u64 - 1);

    // The check can fail: a second buffer verified against colours it was
    // not allocated in has wrong pages.
    let other = ColorSet::from_ranges(vec![(c / 4, c / 4 + 1)]);
    let b2 = ColouredBuffer::allocate(64 * 1024, &wanted, &g).unwrap();
    let v2 = b2.verify(&other, &g).unwrap();
    assert_eq!(v2.wrong.len(), 16, "{v2:?}");

    // A larger working set in a quarter of the colours: its cost, printed.
    let quarter = ColorSet::from_ranges(vec![(0, c / 4 - 1)]);
    let t = std::time::Instant::now();
    let b3 = ColouredBuffer::allocate(4 << 20, &quarter, &g).unwrap_or_else(|e| panic!("{e}"));
    let took = t.elapsed();
    let v3 = b3.verify(&quarter, &g).unwrap();
    assert!(v3.wrong.is_empty() && v3.pages == 1024, "{} wrong of {}", v3.wrong.len(), v3.pages);
    log(&format!(
        "coloured buffer: 4 MiB in {} of {c} colours in {:.1} ms ({} other pages given back)",
        c / 4,
        took.as_secs_f64() * 1e3,
        b3.scanned
    ));
}

#[test]
fn a_colour_nobody_can_supply_and_working_sets_beyond_the_limits_are_refused() {
    require_root();
    let g = geometry();
    let none = ColorSet::from_ranges(vec![(g.colours as u32 + 5, g.colours as u32 + 6)]);
    let e = ColouredBuffer::allocate(4096, &none, &g).err().expect("no colour of the cache");
    assert!(e.to_string().contains("no colour"), "{e}");
    let e = ColouredBuffer::allocate(1 << 30, &ColorSet::from_ranges(vec![(0, 1)]), &g).err().expect("too large");
    assert!(e.to_string().contains("limit"), "{e}");
    // 128 MiB in one colour of hundreds: a pool of many GiB, refused before it is mapped.
    let e = ColouredBuffer::allocate(128 << 20, &ColorSet::from_ranges(vec![(0, 0)]), &g).err().expect("too much");
    assert!(e.to_string().contains("more than half"), "{e}");
}

/// A memwalk task with colours: the run's working set is verified in its
/// colours, and the report and the trace say whether that partitions this
/// machine's cache (not in a VM).
#[test]
fn a_run_reports_its_colouring_and_whether_it_is_effective() {
    require_root();
    let _s = serial();
    let m = Geometry::of_machine();
    let cache = match m {
        Some(g) => format!("{{size: {}B, ways: {}, line: {}B}}", g.size, g.ways, g.line),
        None => "{size: 8MiB, ways: 16, line: 64B}".into(),
    };
    let s = spec(&format!(
        "platform: {{cpus: 1, cache: {cache}}}\npolicy: {{name: pfp}}\ntasks:\n  - {{name: walker, wcet: 1ms, period: 20ms, wss: 128KiB, colors: [0-7], cpu: 0}}\n  - {{name: plain, wcet: 1ms, period: 20ms, cpu: 0}}\n"
    ));
    let cfg = RunConfig {
        duration: 100_000_000,
        workload: WorkloadSpec::Spin,
        workloads: vec![(0, "memwalk:random".parse().unwrap())],
        start_margin: 200_000_000,
        kernel_trace: false,
        wait: true,
        ..RunConfig::default()
    };
    let before = state();
    let o = run(&s, &cfg).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state(), before, "the machine was restored");
    for n in &o.notes {
        log(&format!("note: {n}"));
    }
    let note = o
        .events
        .iter()
        .find_map(|e| match e {
            Event::Note { t: 0, name, data, .. } if name == "page-colouring" => Some(data.clone()),
            _ => None,
        })
        .expect("a page-colouring note at time 0");
    let vm = Virtualisation::detect().is_vm();
    assert_eq!(note["virtual_machine"], vm);
    assert_eq!(note["tasks"][0]["task"], 0);
    assert_eq!(note["tasks"][0]["pages"], 32);
    assert_eq!(note["tasks"][0]["wrong_pages"], 0);
    assert!(note["tasks"][0]["frame_colours"].as_array().unwrap().iter().all(|c| c.as_u64().unwrap() < 8));
    assert_eq!(note["tasks"].as_array().unwrap().len(), 1, "the spin task has no colours: nothing to colour");
    let effective = note["effective"].as_bool().unwrap();
    assert_eq!(effective, !vm && m.is_some(), "{note}");
    let said = o.notes.iter().any(|n| n.starts_with("NOT EFFECTIVE") && n.contains("virtual machine"));
    assert_eq!(said, vm, "{:?}", o.notes);
    assert!(o.notes.iter().any(|n| n.starts_with("cache allocation (resctrl)") || n.starts_with("resctrl")));
    assert!(count(&o.events, |e| matches!(e, Event::Completion { task: 0, .. })) >= 3);
}
