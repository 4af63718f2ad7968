//! Hand-computed reductions.

use super::*;
use crate::partition::Heuristic;
use schedlab_model::exact::Ratio;
use schedlab_model::Slack;

const MS: u64 = 1_000_000;

fn r(n: u128, d: u128) -> Ratio {
    Ratio::new(n, d)
}

fn ms(v: &[(u64, u64)]) -> Vec<(u64, u64)> {
    v.iter().map(|&(c, p)| (c * MS, p * MS)).collect()
}

fn names(t: &Tree, s: usize) -> Vec<String> {
    match &t.servers[s].children {
        Children::Tasks(ts) => ts.iter().map(|&i| format!("t{i}")).collect(),
        Children::Items(items) => items.iter().map(|i| t.item_name(i)).collect(),
    }
}

/// The thesis's Figure 1.4/1.5 shape (B2.1): six tasks on two CPUs, four
/// level-0 servers (two with two tasks, two with one), three level-1
/// servers, a root at level 2. Worst-fit decreasing never gives this shape
/// for six tasks on two CPUs at U = 2 (three bins always suffice); worst fit
/// in task order, "a simple worst-fit packing policy", does, with
/// utilisations .1, .2, .4, .3, .3, .7:
///
/// - level 0 (2 bins fail, 3 fail, 4 fit): S1 = {t0, t4} = .4, S2 = {t1, t5} = .9,
///   S3 = {t2} = .4, S4 = {t3} = .3;
/// - level 1, duals .6, .1, .6, .7 (2 bins fail): {S1*}, {S2*, S4*}, {S3*}:
///   S5 = .8; the thesis's two single-dual servers collapse (S1** = S1);
/// - level 2: S1 (.4), S5* (.2), S3 (.4) sum to 1: the root S6.
#[test]
fn the_thesis_shape_two_levels() {
    let tasks = ms(&[(2, 20), (1, 5), (4, 10), (3, 10), (6, 20), (7, 10)]);
    let t = reduce(&tasks, 2, Heuristic::WF, Slack::Greedy).unwrap();
    assert_eq!(t.levels, 2);
    assert_eq!(t.used_cpus, 2);
    assert_eq!(t.servers.len(), 6);
    let rates: Vec<Ratio> = t.servers.iter().map(|s| s.rate.clone()).collect();
    assert_eq!(rates, vec![r(2, 5), r(9, 10), r(2, 5), r(3, 10), r(4, 5), r(1, 1)]);
    assert_eq!(names(&t, 0), ["t0", "t4"]);
    assert_eq!(names(&t, 1), ["t1", "t5"]);
    assert_eq!(names(&t, 2), ["t2"]);
    assert_eq!(names(&t, 3), ["t3"]);
    assert_eq!(names(&t, 4), ["S2*", "S4*"]);
    assert_eq!(names(&t, 5), ["S1", "S5*", "S3"]);
    assert_eq!(t.roots, vec![5]);
    let levels: Vec<u32> = t.servers.iter().map(|s| s.level).collect();
    assert_eq!(levels, [0, 0, 0, 0, 1, 2]);
    let parents: Vec<Option<usize>> = t.servers.iter().map(|s| s.parent).collect();
    assert_eq!(parents, [Some(5), Some(4), Some(5), Some(4), Some(5), None]);
    assert_eq!(t.task_server, [0, 1, 2, 3, 0, 1]);
    assert_eq!(t.describe(), "2 levels, root S6, 6 servers");
    // Worst-fit decreasing packs the same set perfectly (.7 + .3, .4 + .3 +
    // .2 + .1): two unit servers, partitioned EDF.
    let t = reduce(&tasks, 2, Heuristic::WFD, Slack::Greedy).unwrap();
    assert_eq!((t.levels, t.roots.len()), (0, 2));
}

/// RUN is partitioned EDF when the first PACK gives m unit servers.
#[test]
fn perfect_packing_is_partitioned_edf() {
    let tasks = ms(&[(6, 10), (4, 10), (5, 10), (1, 2), (3, 4), (1, 4)]);
    let t = reduce(&tasks, 3, Heuristic::WFD, Slack::Greedy).unwrap();
    assert_eq!(t.levels, 0);
    assert!(t.is_partitioned());
    assert_eq!(t.servers.len(), 3);
    assert_eq!(t.roots, vec![0, 1, 2]);
    assert!(t.servers.iter().all(|s| s.is_unit() && s.is_root() && s.level == 0));
    // WFD: .75→0, .6→1, .5→2, .5→2? no: .5 (t2)→2, .5 (t3)→2 (room 0 vs .25, .4: WF takes
    // the most room after placing, 1: .4 > 0: 1 → .6 + .5 > 1 does not fit) ...
    // whatever the bins, every task is in exactly one unit server.
    let mut seen = [false; 6];
    for s in &t.servers {
        if let Children::Tasks(ts) = &s.children {
            for &i in ts {
                assert!(!seen[i]);
                seen[i] = true;
            }
        }
    }
    assert!(seen.iter().all(|&x| x));
}

/// n < m: reduced as on n CPUs; every task gets a unit server of its own.
#[test]
fn fewer_tasks_than_cpus() {
    let tasks = ms(&[(1, 10), (9, 10)]);
    for slack in [Slack::Greedy, Slack::Proportional] {
        let t = reduce(&tasks, 4, Heuristic::WFD, slack).unwrap();
        assert_eq!(t.used_cpus, 2);
        assert_eq!(t.levels, 0);
        assert_eq!(t.servers.len(), 2);
        assert!(t.servers.iter().all(|s| s.is_unit()));
        assert_eq!(t.slack, r(1, 1));
    }
    // First fit packs both tasks into one server: RUN uses one CPU.
    let t = reduce(&tasks, 4, Heuristic::FF, Slack::Greedy).unwrap();
    assert_eq!((t.used_cpus, t.levels, t.servers.len()), (1, 0, 1));
    assert_eq!(t.slack, r(0, 1));
}

/// U < m: the two slack policies.
#[test]
fn slack_policies() {
    // Three tasks of .6 on 2 CPUs: U = 1.8; 2 bins fail, 3 servers of .6, spare .2.
    let tasks = ms(&[(6, 10), (6, 10), (6, 10)]);
    let g = reduce(&tasks, 2, Heuristic::WFD, Slack::Greedy).unwrap();
    assert_eq!(g.slack, r(1, 5));
    let rates: Vec<Ratio> = g.level0().map(|s| s.rate.clone()).collect();
    assert_eq!(rates, vec![r(4, 5), r(3, 5), r(3, 5)], "greedy: the first of the largest gets it all");
    assert_eq!(g.servers[0].slack, r(1, 5));
    assert_eq!(g.levels, 1);
    assert_eq!(names(&g, 3), ["S1*", "S2*", "S3*"]);
    let p = reduce(&tasks, 2, Heuristic::WFD, Slack::Proportional).unwrap();
    let rates: Vec<Ratio> = p.level0().map(|s| s.rate.clone()).collect();
    assert_eq!(rates, vec![r(2, 3), r(2, 3), r(2, 3)], "proportional: 1/15 each");
    assert_eq!(p.levels, 1);

    // Greedy makes unit servers: .7 and .5 on 2 CPUs plus .4: U = 1.6.
    // WFD: .7→0, .5→1, .4→1 (.9): two servers, spare .4: .9 → 1 (uses .1), .7 → 1 (.3): P-EDF.
    let tasks = ms(&[(7, 10), (5, 10), (4, 10)]);
    let g = reduce(&tasks, 2, Heuristic::WFD, Slack::Greedy).unwrap();
    assert_eq!((g.levels, g.roots.len()), (0, 2));
}

/// U = m exactly: three tasks of 2/3 on two CPUs (every partitioning fails).
#[test]
fn full_utilisation() {
    let tasks = ms(&[(2, 3), (2, 3), (2, 3)]);
    for h in [
        Heuristic::WFD,
        Heuristic::FFD,
        Heuristic::BFD,
        Heuristic::NFD,
        Heuristic::FF,
        Heuristic::BF,
        Heuristic::WF,
        Heuristic::NF,
    ] {
        let t = reduce(&tasks, 2, h, Slack::Greedy).unwrap();
        assert_eq!(t.slack, r(0, 1));
        assert_eq!(t.levels, 1, "{}", h.name());
        assert_eq!(t.servers.len(), 4);
        assert_eq!(t.servers[3].rate, r(1, 1));
        assert_eq!(names(&t, 3), ["S1*", "S2*", "S3*"]);
        for s in 0..3 {
            assert_eq!(t.servers[s].dual_rate(), r(1, 3));
        }
    }
}

/// The JSON form names every server and child.
#[test]
fn json() {
    let tasks = ms(&[(2, 3), (2, 3), (2, 3)]);
    let t = reduce(&tasks, 2, Heuristic::WFD, Slack::Greedy).unwrap();
    let j = t.to_json();
    assert_eq!(j["levels"], 1);
    assert_eq!(j["roots"][0], "S4");
    assert_eq!(j["servers"][3]["children"][0]["name"], "S1*");
    assert_eq!(j["servers"][3]["children"][0]["rate"], "1/3");
    assert_eq!(j["servers"][0]["children"][0]["task"], 0);
    assert_eq!(j["servers"][0]["dual_rate"], "1/3");
    assert_eq!(j["servers"][0]["parent"], "S4");
    assert_eq!(j["slack_policy"], "greedy");
    assert_eq!(j["packing"], "wfd");
}

#[test]
fn errors() {
    let e = reduce(&ms(&[(11, 10)]), 2, Heuristic::WFD, Slack::Greedy).unwrap_err();
    assert_eq!(e.path, "tasks[0].wcet");
    assert!(e.message.contains("above 1"), "{e}");
    let e = reduce(&ms(&[(2, 3), (2, 3), (2, 3), (1, 1000)]), 2, Heuristic::WFD, Slack::Greedy).unwrap_err();
    assert_eq!(e.path, "tasks");
    assert!(e.message.contains("exceeds the 2 CPUs"), "{e}");
    let e = reduce(&ms(&[(1, 2)]), 0, Heuristic::WFD, Slack::Greedy).unwrap_err();
    assert_eq!(e.path, "platform.cpus");

    let yaml = "platform: {cpus: 2}\npolicy: {name: run}\ntasks:\n- {name: a, wcet: 1ms, period: 4ms}\n- {name: b, wcet: 1ms, period: 4ms, deadline: 3ms}\n";
    let spec = schedlab_model::load_str(yaml, None, "t.yaml").unwrap().spec;
    let e = reduce_spec(&spec).unwrap_err();
    assert_eq!(e.path, "tasks[1].deadline");
    assert!(e.message.contains("`b`") && e.message.contains("implicit deadlines"), "{e}");

    let yaml = "platform: {cpus: 1}\ntasks:\n- {name: a, wcet: 5ms, period: 4ms}\n";
    let spec = schedlab_model::load_str(yaml, None, "t.yaml").unwrap().spec;
    let e = reduce_spec(&spec).unwrap_err();
    assert_eq!(e.path, "tasks[0].wcet");
    assert!(e.message.starts_with("tasks[0] `a` has utilisation"), "{e}");
}

/// A spec's own partitioning and slack are used when the policy is RUN,
/// the defaults otherwise.
#[test]
fn spec_parameters() {
    let base = "platform: {cpus: 2}\ntasks:\n- {name: a, wcet: 2ms, period: 20ms}\n- {name: b, wcet: 1ms, period: 5ms}\n- {name: c, wcet: 4ms, period: 10ms}\n- {name: d, wcet: 3ms, period: 10ms}\n- {name: e, wcet: 6ms, period: 20ms}\n- {name: f, wcet: 7ms, period: 10ms}\n";
    let load = |policy: &str| schedlab_model::load_str(&format!("{policy}{base}"), None, "t.yaml").unwrap().spec;
    let t = reduce_spec(&load("policy: {name: run, partitioning: wf, slack: proportional}\n")).unwrap();
    assert_eq!((t.levels, t.heuristic, t.slack_policy), (2, Heuristic::WF, Slack::Proportional));
    assert_eq!(t.names[5], "f");
    let t = reduce_spec(&load("policy: {name: gedf}\n")).unwrap();
    assert_eq!((t.levels, t.heuristic, t.slack_policy), (0, Heuristic::WFD, Slack::Greedy));
    let t = reduce_spec(&load("")).unwrap();
    assert_eq!(t.heuristic, Heuristic::WFD);
}

/// A level where no two items fit together: the two smallest items'
/// servers are merged, and the reduction goes on to a single root.
#[test]
fn no_progress_merges_two_servers() {
    // Level-0 servers .45, .45, .45, .45, .2 (sum 2): their duals .55 ×4
    // and .8 pairwise exceed 1, so no PACK can pair them.
    let rates = [r(9, 20), r(9, 20), r(9, 20), r(9, 20), r(1, 5)];
    let mut b = super::reduce::testing::builder(Heuristic::WFD);
    let entries = super::reduce::testing::level0(&mut b, &rates);
    super::reduce::testing::run(&mut b, entries);
    let (servers, roots) = super::reduce::testing::finish(b);
    // S6 merges S1 and S2 (rate .9, its dual .1); then .8 | .55 + .1 | .55:
    // S7 = {S6*, S3*} (.65); S5 and S4 pass through; root S8 = {S5, S7*, S4}.
    assert_eq!(servers.len(), 8);
    assert_eq!(servers[5].rate, r(9, 10));
    assert!(
        matches!(&servers[5].children, Children::Items(i) if i == &[Item { server: 0, dual: false }, Item { server: 1, dual: false }])
    );
    assert_eq!(servers[5].level, 0);
    assert_eq!(servers[6].rate, r(13, 20));
    assert_eq!(roots, vec![7]);
    assert_eq!(servers[7].rate, r(1, 1));
    assert!(
        matches!(&servers[7].children, Children::Items(i) if i == &[Item { server: 4, dual: false }, Item { server: 6, dual: true }, Item { server: 3, dual: false }])
    );
}
