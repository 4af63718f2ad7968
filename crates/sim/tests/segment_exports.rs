//! The Perfetto and SVG exports of simulated schedules with segmented jobs
//! show the segment boundaries, the preemption points the policy took and
//! the suspensions: one mark per trace event, on the shipped examples
//! (examples/fpds-camera.yaml under FPDS, examples/segments.yaml with a
//! suspension and subjobs).

use schedlab_model::load_path;
use schedlab_sim::{simulate_collect, SimConfig};
use schedlab_trace::export::perfetto::perfetto_json;
use schedlab_trace::export::svg::{render_svg, SvgOptions};
use schedlab_trace::{Event, Header, PolicyEvent};
use std::path::PathBuf;

fn simulate(example: &str, policy: Option<&str>) -> (Header, Vec<Event>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(example);
    let mut spec = load_path(&path).unwrap().spec;
    if let Some(p) = policy {
        schedlab_model::overrides::apply(&mut spec, Some(p), &[]).unwrap();
    }
    let mut pol = schedlab_policy::build(&spec, None).unwrap();
    let (events, run) = simulate_collect(&spec, pol.as_mut(), &SimConfig::default()).unwrap();
    let mut header = Header::new(spec, schedlab_trace::Source::Simulator, 0, run.horizon);
    header.placement = pol.info().placement.clone();
    (header, events)
}

fn count(ev: &[Event], f: impl Fn(&Event) -> bool) -> usize {
    ev.iter().filter(|e| f(e)).count()
}

fn perfetto(h: &Header, ev: &[Event]) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(&perfetto_json(h, ev)).unwrap();
    v["traceEvents"].as_array().unwrap().clone()
}

fn named<'a>(pf: &'a [serde_json::Value], name: &str, cat: &str) -> Vec<&'a serde_json::Value> {
    pf.iter().filter(|e| e["name"] == name && e["cat"] == cat).collect()
}

#[test]
fn fpds_camera_shows_its_segment_ends_and_the_point_taken() {
    let (h, ev) = simulate("fpds-camera.yaml", None);
    let ends = count(&ev, |e| matches!(e, Event::SegmentEnd { .. }));
    let points = count(&ev, |e| matches!(e, Event::Policy { event: PolicyEvent::PreemptionPoint { .. }, .. }));
    assert!(ends >= 2 && points >= 1, "{ends} segment ends, {points} points taken");
    assert!(points < ends, "a point with nobody waiting is not taken");

    let svg = render_svg(&h, &ev, &SvgOptions::default());
    assert_eq!(svg.matches("class=\"segment-end\"").count(), ends);
    assert_eq!(svg.matches("class=\"preemption-point\"").count(), points);
    assert!(svg.contains("video #0: preempted at the point after segment 0, 2ms"), "{svg}");
    assert!(svg.contains(">segment end</text>") && svg.contains(">preemption point taken</text>"));
    assert!(!svg.contains(">suspended</text>"), "no suspension in this set, none in the legend");

    let pf = perfetto(&h, &ev);
    // Each segment end on the CPU's track and on the task's track.
    assert_eq!(named(&pf, "segment-end", "segment").len(), 2 * ends);
    let taken = named(&pf, "preemption-point", "policy");
    assert_eq!(taken.len(), 2 * points, "on the CPU's track and on the task's");
    assert_eq!(taken[0]["args"], serde_json::json!({"task": 1, "job": 0, "segment": 0}));
    assert_eq!(taken[0]["ts"], serde_json::json!(2000));
}

#[test]
fn segments_example_shows_its_suspensions() {
    let (h, ev) = simulate("segments.yaml", Some("fpds"));
    let blocks = count(&ev, |e| matches!(e, Event::Block { .. }));
    let resumes = count(&ev, |e| matches!(e, Event::Resume { .. }));
    assert!(blocks > 0 && blocks == resumes, "{blocks} blocks, {resumes} resumes");
    let ends = count(&ev, |e| matches!(e, Event::SegmentEnd { .. }));

    let svg = render_svg(&h, &ev, &SvgOptions::default());
    assert_eq!(svg.matches("class=\"suspension\"").count(), blocks);
    assert!(svg.contains("camera #0 suspended: 2.7ms to 3.7ms"), "{svg}");
    assert_eq!(svg.matches("class=\"segment-end\"").count(), ends);

    let pf = perfetto(&h, &ev);
    let slices = named(&pf, "suspended", "suspension");
    assert_eq!(slices.len(), blocks);
    for s in &slices {
        assert_eq!(s["ph"], "X");
        assert_eq!(s["dur"], serde_json::json!(1000), "each suspension lasts its 1 ms segment");
        assert_eq!(s["args"]["resumed"], true);
    }
}
