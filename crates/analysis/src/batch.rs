//! Many task sets at once: a test (by registry ID) or several over a batch
//! of task sets on all cores, returning the verdicts (the tests' fast paths,
//! [`Test::verdict`]: no explanation built) or, on request, the explained
//! outcomes.
//!
//! The sets are split into small chunks handed out to
//! `std::thread::scope` workers by an atomic counter (sets differ a lot in
//! cost: a chunk per worker would leave cores idle), and every result goes
//! to its set's slot, so the output order and values do not depend on the
//! number of threads.
//!
//! ```
//! use schedlab_analysis::batch;
//! use schedlab_analysis::schedulability::{Input, TaskParams, Verdict};
//! let sets = vec![Input::new(2, vec![TaskParams::implicit(1, 10); 3])];
//! let v = batch::verdicts(&sets, &["gedf.gfb", "pedf.qpa"], None).unwrap();
//! assert_eq!(v, vec![Verdict::Schedulable, Verdict::Schedulable]);
//! ```

use crate::schedulability::{find, Input, Outcome, TaskParams, Test, Verdict};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Sets handed to a worker at a time.
const CHUNK: usize = 64;

/// The tests with these IDs, or the first unknown ID.
pub fn tests(ids: &[&str]) -> Result<Vec<&'static Test>, String> {
    ids.iter().map(|id| find(id).ok_or_else(|| format!("no test `{id}` (`schedlab tests` lists them)"))).collect()
}

/// The worker count for `threads` (None or 0: every core).
pub fn workers(threads: Option<usize>) -> usize {
    match threads {
        Some(t) if t > 0 => t,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// `f(from, to, out)` for consecutive chunks of the set indices below `n`,
/// on `threads` workers, each call appending its sets' results to `out`;
/// the results of all chunks in set order.
fn chunked<T: Send, F: Fn(usize, usize, &mut Vec<T>) + Sync>(n: usize, threads: Option<usize>, f: F) -> Vec<T> {
    let workers = workers(threads).min(n.div_ceil(CHUNK)).max(1);
    if workers == 1 {
        let mut out = Vec::new();
        f(0, n, &mut out);
        return out;
    }
    let next = AtomicUsize::new(0);
    let parts: Vec<Vec<(usize, Vec<T>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let from = next.fetch_add(CHUNK, Ordering::Relaxed);
                        if from >= n {
                            return done;
                        }
                        let mut out = Vec::new();
                        f(from, (from + CHUNK).min(n), &mut out);
                        done.push((from, out));
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a batch worker panicked")).collect()
    });
    let mut chunks: Vec<(usize, Vec<T>)> = parts.into_iter().flatten().collect();
    chunks.sort_unstable_by_key(|c| c.0);
    chunks.into_iter().flat_map(|c| c.1).collect()
}

/// `f(set)` for every set index below `n`, on `threads` workers; results in
/// set order.
pub fn map<T: Send, F: Fn(usize) -> T + Sync>(n: usize, threads: Option<usize>, f: F) -> Vec<T> {
    chunked(n, threads, |from, to, out| out.extend((from..to).map(&f)))
}

/// The verdict of every test on every set, row-major: `out[s * tests.len() + t]`.
pub fn run(sets: &[Input], tests: &[&Test], threads: Option<usize>) -> Vec<Verdict> {
    chunked(sets.len(), threads, |from, to, out| {
        out.reserve((to - from) * tests.len());
        for set in &sets[from..to] {
            out.extend(tests.iter().map(|t| t.verdict(set)));
        }
    })
}

/// [`run`] with tests by ID.
pub fn verdicts(sets: &[Input], ids: &[&str], threads: Option<usize>) -> Result<Vec<Verdict>, String> {
    Ok(run(sets, &tests(ids)?, threads))
}

/// The explained outcome of every test on every set, row-major.
pub fn outcomes(sets: &[Input], tests: &[&Test], threads: Option<usize>) -> Vec<Outcome> {
    chunked(sets.len(), threads, |from, to, out| {
        for set in &sets[from..to] {
            out.extend(tests.iter().map(|t| (t.run)(set)));
        }
    })
}

/// [`run`] on task sets in one flat array (as from Python / numpy): set `s`
/// is `tasks[offsets[s]..offsets[s + 1]]` on `cpus` CPUs. Each worker
/// reuses one [`Input`] (no allocation per set).
pub fn run_flat(
    tasks: &[TaskParams],
    offsets: &[usize],
    cpus: u32,
    tests: &[&Test],
    threads: Option<usize>,
) -> Result<Vec<Verdict>, String> {
    check_offsets(offsets, tasks.len())?;
    let n = offsets.len().saturating_sub(1);
    Ok(chunked(n, threads, |from, to, out| {
        out.reserve((to - from) * tests.len());
        let mut input = Input::new(cpus, Vec::new());
        for s in from..to {
            input.tasks.clear();
            input.tasks.extend_from_slice(&tasks[offsets[s]..offsets[s + 1]]);
            out.extend(tests.iter().map(|t| t.verdict(&input)));
        }
    }))
}

fn check_offsets(offsets: &[usize], tasks: usize) -> Result<(), String> {
    if offsets.first().is_some_and(|&o| o != 0) || offsets.last().is_some_and(|&o| o != tasks) {
        return Err(format!("offsets must start at 0 and end at the task count {tasks}"));
    }
    match offsets.windows(2).position(|w| w[1] < w[0]) {
        Some(s) => Err(format!("set {s}: offsets decrease ({} then {})", offsets[s], offsets[s + 1])),
        None => Ok(()),
    }
}

/// Task sets in one flat array (as from Python / numpy): set `s` is
/// `tasks[offsets[s]..offsets[s + 1]]`, each task (wcet, deadline, period)
/// in ns, on `cpus` CPUs. Errors name the first bad set.
pub fn inputs(tasks: &[[u64; 3]], offsets: &[usize], cpus: u32) -> Result<Vec<Input>, String> {
    check_offsets(offsets, tasks.len())?;
    Ok(offsets
        .windows(2)
        .map(|w| {
            Input::new(cpus, tasks[w[0]..w[1]].iter().map(|&[c, d, p]| TaskParams::constrained(c, d, p)).collect())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_model::rng::Rng;

    fn random_sets(n: usize) -> Vec<Input> {
        let mut r = Rng::new(99);
        (0..n)
            .map(|_| {
                let m = r.range_u64(1, 5) as u32;
                let tasks = (0..r.range_u64(1, 10))
                    .map(|_| {
                        let p = r.range_u64(10, 100) * 1000;
                        let c = r.range_u64(1, p / 2);
                        TaskParams::constrained(c, r.range_u64(c, p), p)
                    })
                    .collect();
                Input::new(m, tasks)
            })
            .collect()
    }

    #[test]
    fn every_thread_count_gives_the_verdicts_of_the_tests() {
        let sets = random_sets(700);
        let ids = ["gedf.any", "gedf.rta", "pedf.qpa", "pfp.util-rta", "cedf.global"];
        let ids: Vec<&str> = ids.into_iter().filter(|id| find(id).is_some()).collect();
        let one = verdicts(&sets, &ids, Some(1)).unwrap();
        for threads in [Some(2), Some(3), None] {
            assert_eq!(verdicts(&sets, &ids, threads).unwrap(), one);
        }
        let tests = tests(&ids).unwrap();
        for (s, set) in sets.iter().enumerate() {
            for (t, test) in tests.iter().enumerate() {
                assert_eq!(one[s * ids.len() + t], (test.run)(set).verdict);
            }
        }
        let flat: Vec<TaskParams> = sets.iter().flat_map(|s| s.tasks.iter().copied()).collect();
        let mut offsets = vec![0];
        for s in &sets {
            offsets.push(offsets.last().unwrap() + s.tasks.len());
        }
        let same_cpus: Vec<Input> = sets.iter().map(|s| Input::new(3, s.tasks.clone())).collect();
        assert_eq!(run_flat(&flat, &offsets, 3, &tests, Some(2)).unwrap(), run(&same_cpus, &tests, Some(1)));
        let o = outcomes(&sets[..50], &tests, Some(2));
        assert_eq!(o.len(), 50 * ids.len());
        assert!(o.iter().zip(&one).all(|(o, v)| o.verdict == *v));
    }

    #[test]
    fn bad_ids_and_offsets_are_reported() {
        assert!(verdicts(&[], &["gedf.nope"], None).unwrap_err().contains("gedf.nope"));
        assert!(inputs(&[[1, 2, 2]], &[0, 2], 1).is_err());
        assert!(inputs(&[[1, 2, 2], [1, 2, 2]], &[0, 2, 1, 2], 1).is_err());
        let sets = inputs(&[[1, 2, 2], [1, 4, 4], [3, 5, 6]], &[0, 2, 2, 3], 2).unwrap();
        assert_eq!(sets.len(), 3);
        assert_eq!(sets[1].tasks.len(), 0);
        assert_eq!(sets[2].tasks[0], TaskParams::constrained(3, 5, 6));
        assert!(verdicts(&[], &["gedf.gfb"], None).unwrap().is_empty());
    }
}
