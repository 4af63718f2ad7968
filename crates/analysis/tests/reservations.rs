//! The H-CBS group test over a reservation tree, and interface selection:
//! explanations per group and task, nested servers that do not fit their
//! parent, background tasks, and chosen budgets that are the least the test
//! accepts (one nanosecond less is refused).

use schedlab_analysis::schedulability::reservations::interface::{for_tasks, select};
use schedlab_analysis::schedulability::reservations::{check, GroupParams};
use schedlab_analysis::schedulability::{Data, Input, TaskParams, Verdict};

const MS: u64 = 1_000_000;

fn group(name: &str, path: &str, budgets: Vec<u64>, period: u64, tasks: Vec<usize>) -> GroupParams {
    GroupParams { name: name.into(), path: path.into(), budgets, period, tasks, ..GroupParams::default() }
}

/// Two CPUs; `media` (4ms/5ms, leaf queue 2ms/10ms) holds `video` and the
/// subgroup `sound` (budget given, period 10ms) with `audio` and `mixer`;
/// `control` (1ms/5ms) holds `loop`. A child's period must outlast its
/// parent's blackout 2(P − Q), here 2ms: the child's first budget can be due
/// before the parent has supplied anything.
fn tree(sound_budget: u64) -> Input {
    let tasks = vec![
        TaskParams::implicit(2 * MS, 40 * MS), // video
        TaskParams::implicit(MS / 2, 20 * MS), // audio
        TaskParams::implicit(MS / 2, 40 * MS), // mixer
        TaskParams::implicit(MS, 20 * MS),     // loop
    ];
    let mut input = Input::new(2, tasks);
    input.names = ["video", "audio", "mixer", "loop"].iter().map(|s| s.to_string()).collect();
    let mut media = group("media", "reservations[0]", vec![4 * MS; 2], 5 * MS, vec![0]);
    media.children = vec![1];
    media.leaf = Some((2 * MS, 10 * MS));
    let mut sound = group("sound", "reservations[0].groups[0]", vec![sound_budget; 2], 10 * MS, vec![1, 2]);
    sound.parent = Some(0);
    let control = group("control", "reservations[1]", vec![MS; 2], 5 * MS, vec![3]);
    input.groups = vec![media, sound, control];
    input
}

#[test]
fn every_group_is_explained_and_the_tree_is_accepted() {
    // By hand: audio (0.5ms/20ms, first by RM) on sound 2ms/10ms: Z(20ms) =
    // max(20 − 3·8, 2) = 2ms on each CPU, so L0 = 18ms and C + Ī = 18.5ms.
    let o = check(&tree(2 * MS));
    assert_eq!(o.verdict, Verdict::Schedulable, "{o:#?}");
    assert!(o.reason.starts_with("every group's tasks meet their deadlines"), "{}", o.reason);
    let Some(Data::Groups(groups)) = &o.data else { panic!("{o:?}") };
    assert_eq!(groups.len(), 3);
    // media's own tasks run on its leaf queue's servers, 2ms/10ms.
    assert!(groups[0].outcome.details[0].contains("CPU 0: H-CBS 2ms/10ms"), "{:?}", groups[0].outcome.details);
    // Tasks are named as in the whole set.
    assert!(groups[1].outcome.details.iter().any(|d| d.contains("task mixer (tasks[2])")), "{:?}", groups[1].outcome);
    assert!(o.details.iter().any(|d| d.starts_with("group control (reservations[1]): schedulable")), "{:?}", o.details);
}

#[test]
fn a_subgroup_that_does_not_fit_its_parent_gets_no_supply() {
    // sound at 7ms/10ms inside media's 4ms/5ms with a 2ms/10ms leaf:
    // bandwidth 0.9 > 0.8.
    let o = check(&tree(7 * MS));
    assert_eq!(o.verdict, Verdict::Inconclusive, "{o:#?}");
    let Some(Data::Groups(groups)) = &o.data else { panic!() };
    assert!(
        groups[0].notes.iter().any(|n| n.contains("do not fit by EDF in this group's server 4ms/5ms")),
        "{:?}",
        groups[0].notes
    );
    assert!(
        groups[1].outcome.reason.contains("no server of its tasks has a guaranteed supply"),
        "{:?}",
        groups[1].outcome
    );
    // media's own tasks (its leaf queue) lose their supply too, and decide.
    assert!(o.reason.starts_with("group media (reservations[0]): no server"), "{}", o.reason);
    assert_eq!(groups[0].outcome.verdict, Verdict::Inconclusive);
    assert_eq!(groups[2].outcome.verdict, Verdict::Schedulable);
}

#[test]
fn a_task_in_no_group_leaves_it_inconclusive() {
    let mut input = tree(2 * MS);
    input.tasks.push(TaskParams::implicit(MS, 100 * MS));
    input.names.push("batch".into());
    let o = check(&input);
    assert_eq!(o.verdict, Verdict::Inconclusive);
    assert_eq!(o.task, Some(4));
    assert!(o.reason.contains("task batch (tasks[4]) is in no group"), "{}", o.reason);
}

#[test]
fn chosen_budgets_are_the_least_the_test_accepts() {
    let input = tree(2 * MS);
    let order: Vec<usize> = vec![1, 3, 0, 2]; // RM, ties to the lower index
    let (choices, misfit) = select(&input.tasks, &order, &input.groups, 2);
    assert_eq!(misfit, None);
    // Leaf groups: the test accepts at the budget and not 1 ns below.
    for (g, members) in [(1usize, vec![1usize, 2]), (2, vec![3])] {
        let q = choices[g].budget.expect("a budget");
        assert!(q > 0 && q < input.groups[g].period);
        assert_eq!(for_tasks(&input.tasks, &members, 2, input.groups[g].period), Some(q));
        let mut at = input.clone();
        at.groups[g].budgets = vec![q; 2];
        // Alone on the CPUs: media whole for sound, or nothing for control.
        at.groups[0].leaf = Some((0, 10 * MS));
        if g == 1 {
            at.groups[0].budgets = vec![5 * MS; 2];
            at.groups[2].budgets = vec![0; 2];
        } else {
            at.groups[0].budgets = vec![0; 2];
        }
        let mut below = at.clone();
        below.groups[g].budgets = vec![q - 1; 2];
        let verdict = |i: &Input| {
            let Some(Data::Groups(gs)) = check(i).data else { panic!() };
            gs[g].outcome.verdict
        };
        assert_eq!(verdict(&at), Verdict::Schedulable, "group {g} at {q}");
        assert_ne!(verdict(&below), Verdict::Schedulable, "group {g} at {}", q - 1);
    }
    // The parent hosts its subgroup and its leaf queue, and just so.
    let media = &choices[0];
    let (leaf, _) = media.leaf.expect("a leaf");
    assert!(leaf.is_some());
    let q = media.budget.expect("a budget");
    let mut at = input.clone();
    at.groups[0].budgets = vec![q; 2];
    at.groups[0].leaf = Some((leaf.unwrap(), 10 * MS));
    at.groups[1].budgets = vec![choices[1].budget.unwrap(); 2];
    at.groups[2].budgets = vec![choices[2].budget.unwrap(); 2];
    assert_eq!(check(&at).verdict, Verdict::Schedulable, "{:#?}", check(&at));
    at.groups[0].budgets = vec![q - 1; 2];
    assert_ne!(check(&at).verdict, Verdict::Schedulable);
}

#[test]
fn a_group_no_budget_can_serve_has_none() {
    let tasks = vec![TaskParams::implicit(9 * MS, 10 * MS), TaskParams::implicit(9 * MS, 10 * MS)];
    assert_eq!(for_tasks(&tasks, &[0, 1], 1, 10 * MS), None, "two tasks of 0.9 on one CPU");
    // One of them with P = 20ms: Z(10ms) = 10 − 2(20 − Q) for Q ≥ 15ms, and
    // 9 + (10 − Z) ≤ 10 needs Z ≥ 9ms: Q = 19.5ms.
    assert_eq!(for_tasks(&tasks, &[0], 1, 20 * MS), Some(19_500_000));
}

#[test]
fn sections_and_suspensions_are_outside_the_analysis() {
    let spec = |segments: &str| {
        let yaml = format!(
            "platform: {{cpus: 1}}\npolicy: {{name: hcbs}}\ntasks:\n  - {{name: a, period: 10ms, segments: [{segments}]}}\n  - {{name: b, wcet: 1ms, period: 20ms}}\nreservations:\n  - {{name: g, budget: 4ms, period: 5ms, tasks: [a, b]}}\n"
        );
        schedlab_model::load_str(&yaml, None, "t.yaml").expect("spec").spec
    };
    // Preemptible segments alone are one job of their total.
    let o = check(&Input::from_spec(&spec("{exec: 1ms}, {exec: 1ms}")));
    assert_eq!(o.verdict, Verdict::Schedulable, "{o:?}");
    let o = check(&Input::from_spec(&spec("{exec: 1ms}, {exec: 1ms, preemptible: false}")));
    assert_eq!(o.verdict, Verdict::NotApplicable);
    assert!(o.reason.starts_with("task a (tasks[0]) has a non-preemptive section"), "{}", o.reason);
    let o = check(&Input::from_spec(&spec("{exec: 1ms}, {suspend: 1ms}, {exec: 1ms}")));
    assert_eq!(o.verdict, Verdict::NotApplicable);
    assert!(o.reason.contains("suspends itself"), "{}", o.reason);
}
