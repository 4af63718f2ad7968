//! The exporters on the hand-written trace.

mod common;

use common::MS;
use schedlab_trace::export::csv::jobs_csv;
use schedlab_trace::export::perfetto::perfetto_json;
use schedlab_trace::export::stats::{render_stats, stats_json};
use schedlab_trace::export::svg::{render_svg, SvgOptions};
use schedlab_trace::metrics::compute;
use serde_json::Value;

fn perfetto() -> Value {
    serde_json::from_str(&perfetto_json(&common::header(), common::events())).expect("valid JSON")
}

fn events_of(v: &Value) -> &Vec<Value> {
    v["traceEvents"].as_array().unwrap()
}

#[test]
fn perfetto_has_named_ordered_tracks() {
    let v = perfetto();
    assert_eq!(v["displayTimeUnit"], "ns");
    let evs = events_of(&v);
    let meta = |name: &str| -> Vec<(u64, u64, String)> {
        evs.iter()
            .filter(|e| e["ph"] == "M" && e["name"] == name)
            .map(|e| {
                (
                    e["pid"].as_u64().unwrap(),
                    e["tid"].as_u64().unwrap_or(0),
                    e["args"]["name"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    assert_eq!(meta("process_name"), [(1, 0, "CPUs".to_string()), (2, 0, "Tasks".to_string())]);
    let threads = meta("thread_name");
    let names: Vec<&str> = threads.iter().map(|t| t.2.as_str()).collect();
    assert_eq!(names, ["CPU 0", "CPU 0 overheads", "CPU 1", "CPU 1 overheads", "A", "B", "C <&\"q\">, x"]);
    let tids: Vec<u64> = threads.iter().map(|t| t.1).collect();
    assert_eq!(tids, [1, 2, 3, 4, 5, 6, 7], "unique across processes");
    assert_eq!(evs.iter().filter(|e| e["name"] == "thread_sort_index").count(), 7);
    assert_eq!(evs.iter().filter(|e| e["name"] == "process_sort_index").count(), 2);
}

#[test]
fn perfetto_slices_instants_and_times() {
    let v = perfetto();
    let evs = events_of(&v);
    for e in evs {
        for key in ["ts", "dur"] {
            if let Some(x) = e.get(key) {
                assert!(x.as_f64().unwrap() >= 0.0, "{e}");
            }
        }
    }
    let jobs: Vec<&Value> = evs.iter().filter(|e| e["ph"] == "X" && e["cat"] == "job").collect();
    assert_eq!(jobs.len(), 10, "5 execution intervals, each on its CPU and on its task");
    let overheads: Vec<&Value> = evs.iter().filter(|e| e["ph"] == "X" && e["cat"] == "overhead").collect();
    assert_eq!(overheads.len(), 4);
    assert!(overheads.iter().all(|e| e["pid"] == 1 && [2, 4].contains(&e["tid"].as_u64().unwrap())));

    // B #0 runs on CPU 0 (tid 1) from 2000 us for 3000 us, preempted.
    let b0 = jobs.iter().find(|e| e["name"] == "B #0" && e["tid"] == 1).unwrap();
    assert_eq!((b0["ts"].as_f64(), b0["dur"].as_f64()), (Some(2000.0), Some(3000.0)));
    assert_eq!(b0["args"]["end"], "preempt");
    assert_eq!(b0["args"]["missed"], false);
    // C's job missed: flagged on both its slices, and one MISS instant at 7 ms.
    let c0: Vec<&&Value> = jobs.iter().filter(|e| e["args"]["task_index"] == 2).collect();
    assert_eq!(c0.len(), 2);
    assert!(c0.iter().all(|e| e["args"]["missed"] == true));
    let misses: Vec<&Value> = evs.iter().filter(|e| e["name"] == "MISS").collect();
    assert_eq!(misses.len(), 1);
    assert_eq!(
        (misses[0]["ph"].as_str(), misses[0]["ts"].as_f64(), misses[0]["tid"].as_u64()),
        (Some("i"), Some(7000.0), Some(7))
    );

    let count = |name: &str| evs.iter().filter(|e| e["ph"] == "i" && e["name"] == name).count();
    assert_eq!(count("release"), 5);
    assert_eq!(count("deadline"), 4, "A#2's deadline (15 ms) is past the end");
    assert_eq!(count("decision"), 1, "the policy event");
    // Fractional microseconds keep nanoseconds.
    let h = common::header();
    let evs2 = vec![schedlab_trace::Event::Overhead {
        t: 1_234_567,
        cpu: 0,
        kind: schedlab_trace::OverheadKind::Tick,
        dur: 1,
    }];
    let s = perfetto_json(&h, &evs2);
    assert!(s.contains("\"ts\":1234.567,\"dur\":0.001"), "{s}");
}

/// Count start and end tags; fail on a close that does not match.
fn check_balanced(svg: &str) -> usize {
    let mut stack: Vec<String> = Vec::new();
    let mut elements = 0;
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("unterminated tag");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name.trim()), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_string());
            elements += 1;
        } else {
            elements += 1;
        }
        assert!(!tag.contains('<'), "'<' inside a tag: {tag}");
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    elements
}

#[test]
fn svg_is_well_formed_and_shows_names_and_misses() {
    let h = common::header();
    let svg = render_svg(&h, common::events(), &SvgOptions::default());
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(check_balanced(&svg) > 30);
    for name in [">A</text>", ">B</text>", ">C &lt;&amp;&quot;q&quot;&gt;, x</text>"] {
        assert!(svg.contains(name), "{name}");
    }
    assert!(!svg.contains("C <&"), "names are escaped");
    assert_eq!(svg.matches("class=\"miss\"").count(), 1, "one missed deadline");
    assert!(svg.contains("stroke=\"red\""));
    assert_eq!(
        svg.matches("<rect x=").count() - svg.matches("fill=\"#f4f4f4\"").count() - 1 - 2 - 1,
        5,
        "5 execution boxes besides background, legend"
    );
    assert!(svg.contains(">CPU 0</text>") && svg.contains(">CPU 1</text>"), "legend");
    assert!(svg.contains(">5ms</text>") && svg.contains(">10ms</text>"), "axis labels");
    // Deterministic.
    assert_eq!(svg, render_svg(&h, common::events(), &SvgOptions::default()));
}

#[test]
fn svg_window_and_width() {
    let h = common::header();
    let opts = SvgOptions {
        start: Some(4 * MS),
        end: Some(6 * MS),
        width: 600,
        title: Some("a <window>".into()),
        ..SvgOptions::default()
    };
    let svg = render_svg(&h, common::events(), &opts);
    check_balanced(&svg);
    assert!(svg.contains("width=\"600\""));
    assert!(svg.contains("a &lt;window&gt;"));
    // In [4, 6] ms: B#0 (2-5) and A#1 (5-7) on CPU 0, C#0 on CPU 1; one preemption mark at 5 ms.
    assert_eq!(svg.matches("<title>").count() - svg.matches("missed its deadline").count(), 3);
    assert_eq!(
        svg.matches("<path d=\"M").count(),
        3 + 1 + 2,
        "legend arrows and mark, 1 preemption, A#1 release and A#0 deadline at 5 ms"
    );
}

#[test]
fn svg_draws_a_server_lane_per_cpu_from_server_events() {
    use schedlab_trace::Event;
    let h = common::header();
    let mut events = common::events();
    let server = |t, cpu, s: Option<&str>| Event::Policy {
        t,
        cpu: Some(cpu),
        event: schedlab_trace::PolicyEvent::Server { server: s.map(str::to_string) },
    };
    // CPU 0: S1 from 0 to 4 ms, then S2 to the end; CPU 1: S3 from 0 to 6 ms, then none.
    let at = events.iter().position(|e| e.t() > 0).unwrap();
    events.insert(at, server(0, 1, Some("S3")));
    events.insert(at, server(0, 0, Some("S1")));
    let at = events.iter().position(|e| e.t() > 4 * MS).unwrap();
    events.insert(at, server(4 * MS, 0, Some("S2")));
    let at = events.iter().position(|e| e.t() > 6 * MS).unwrap();
    events.insert(at, server(6 * MS, 1, None));
    let svg = render_svg(&h, events.iter(), &SvgOptions::default());
    check_balanced(&svg);
    assert!(svg.contains(">CPU 0 server</text>") && svg.contains(">CPU 1 server</text>"), "one lane per CPU");
    assert!(svg.contains("<title>S1 on CPU 0: 0ns to 4ms</title>"), "{svg}");
    assert!(svg.contains("<title>S3 on CPU 1: 0ns to 6ms</title>"), "{svg}");
    assert_eq!(svg.matches(" on CPU 0: 4ms to ").count(), 1, "S2 holds CPU 0 from 4 ms to the end");
    assert_eq!(svg.matches(" on CPU 1: 6ms").count(), 0, "CPU 1 has no server after 6 ms");
    // Without server events there are no lanes.
    assert!(!render_svg(&h, common::events(), &SvgOptions::default()).contains(" server</text>"));
}

#[test]
fn csv_has_one_row_per_job() {
    let csv = jobs_csv(&common::header(), common::events());
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "task,task_index,job,release,deadline,start,finish,response,tardiness,missed,preemptions,migrations,exec,status");
    assert_eq!(
        &lines[1..],
        [
            "A,0,0,0,5000000,0,2000000,2000000,0,false,0,0,1990000,completed",
            "A,0,1,5000000,10000000,5000000,7000000,2000000,0,false,0,0,1997000,completed",
            "A,0,2,10000000,15000000,,,,0,false,0,0,0,unfinished",
            "B,1,0,0,10000000,2000000,9000000,9000000,0,false,1,1,3990000,completed",
            "\"C <&\"\"q\"\">, x\",2,0,0,7000000,0,8000000,8000000,1000000,true,0,0,8000000,completed",
        ]
    );
}

#[test]
fn stats_text_and_json() {
    let r = compute(&common::header(), &common::events());
    let text = render_stats(&r);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("task "), "{text}");
    let row = |first: &str| {
        lines.iter().find(|l| l.starts_with(first)).map(|l| l.split_whitespace().collect::<Vec<_>>()).unwrap()
    };
    assert_eq!(row("A "), ["A", "3", "2", "0", "1", "0", "0.0%", "2ms", "2ms", "0ns", "0", "0"]);
    assert_eq!(row("B "), ["B", "1", "1", "0", "0", "0", "0.0%", "9ms", "9ms", "0ns", "1", "1"]);
    assert_eq!(row("all "), ["all", "5", "4", "0", "1", "1", "20.0%", "9ms", "1ms", "1", "1"]);
    assert_eq!(row("0 "), ["0", "6.982ms", "69.8%", "3", "18us"]);
    assert_eq!(row("1 "), ["1", "8.995ms", "90.0%", "2", "5us"]);
    assert_eq!(row("context-switch"), ["context-switch", "2", "10us", "5us", "5us"]);
    assert!(text.ends_with("horizon 10ms, 26 events\n"), "{text}");
    assert!(text.lines().all(|l| l == l.trim_end()));

    let json: Value = serde_json::from_str(&stats_json(&r)).unwrap();
    assert_eq!(json["tasks"][2]["misses"], 1);
    // (6.982 + 8.995) ms of job execution (overhead stalls excluded) over 10 ms.
    assert_eq!(json["totals"]["utilization"], 1.5977);
}

#[test]
fn perfetto_draws_counter_samples_as_a_counter_track_per_cpu() {
    use schedlab_trace::{Event, PolicyEvent};
    let h = common::header();
    let mut events = common::events();
    let sample = |t, cpu, n: u64| Event::Policy {
        t,
        cpu: Some(cpu),
        event: PolicyEvent::CounterSample(Box::new(schedlab_model::CounterReading {
            task: Some(0),
            job: Some(0),
            instructions: Some(n),
            cache_misses: Some(n / 100),
            ..Default::default()
        })),
    };
    let at = events.iter().position(|e| e.t() > MS).unwrap();
    events.insert(at, sample(MS, 0, 1_000));
    events.insert(at, sample(MS, 1, 7_000));
    let v: Value = serde_json::from_str(&perfetto_json(&h, &events)).unwrap();
    let counters: Vec<&Value> = events_of(&v).iter().filter(|e| e["ph"] == "C").collect();
    assert_eq!(counters.len(), 2);
    assert_eq!(counters[0]["name"], "CPU 1 counters");
    assert_eq!(counters[1]["name"], "CPU 0 counters");
    assert_eq!(counters[1]["args"], serde_json::json!({"instructions": 1000, "cache_misses": 10}));
    assert_eq!(counters[1]["ts"], serde_json::json!(1000));
    assert!(!events_of(&v).iter().any(|e| e["name"] == "counter-sample"), "no instant besides the counter");
}
