//! The A-MP model's assumption, checked: the paper models an A-MP task as
//! its first prefetch and then its E phases back to back, which holds only
//! if "E-Phases [are] long enough to completely cover the execution
//! time-span of the background memory phases" [S2:L312]. While a job runs
//! E_k, the memory-phase worker serves the write-back of Section k−1 and
//! the prefetch of Section k+1; the job goes on to E_{k+1} only when both
//! are done.
//!
//! A bound on that span, from the release of the two requests: the
//! worker's own demand (W_{k−1} + P_{k+1}), the requests of the other A-MP
//! tasks that can be ahead of them in its FIFO (each such task has at most
//! one pair outstanding: it asks for the next only after both finished),
//! and every task's own memory phase on `Mem`, all of higher memory
//! priority than the worker's:
//!
//! w = D_k + Σ_{other A-MP tasks} max_j (W_{j−1} + P_{j+1}) + Σ_{τₖₗ on Mem} ⌈(w + Jₖₗ)/Tₖ⌉·Cₖₗ.
//!
//! Covered when w ≤ the best case of E_k. The final write-back W_K is
//! queued when the job completes, and the task's next job waits for it
//! before its own first prefetch (docs/policies.md, `mcs`): covered when
//! the job's bound R plus the same span for W_K is at most the period (the
//! next job arrives no earlier).

use super::flow::{Flow, Resource};
use super::holistic::Analysis;
use super::prem::{Mode, PremTask};

/// Iterations of one fixed point before giving up.
const MAX_ITERATIONS: u32 = 1_000_000;

/// What is not covered: the worker's phases during E_k may outlast it, or
/// the final write-back may outlast the period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uncovered {
    /// (task, Section k from 1, the bound w, E_k's best case).
    Exec { task: usize, section: usize, span: u128, exec: u64 },
    /// (task, the job's bound R, the final write-back's span w, the period).
    Final { task: usize, response: u64, span: u128, period: u64 },
}

/// The first A-MP task whose E phases or period may not cover the worker's
/// phases.
pub fn uncovered(tasks: &[PremTask], flows: &[Flow], a: &Analysis) -> Option<Uncovered> {
    // The worker's demand while E_k runs, per A-MP task and Section, then
    // the final write-back after the last E.
    let pairs = |t: &PremTask| -> Vec<u64> {
        let s = &t.sections;
        (0..=s.len())
            .map(|k| {
                let w = if k > 0 { s[k - 1].writeback } else { 0 };
                let p = s.get(k + 1).map_or(0, |x| x.prefetch);
                w.saturating_add(p)
            })
            .collect()
    };
    // (C, T, J) of every memory phase the tasks run themselves.
    let mut hp: Vec<(u128, u128, u128)> = Vec::new();
    for (i, f) in flows.iter().enumerate().filter(|(_, f)| !f.background) {
        for (j, s) in f.steps.iter().enumerate() {
            if s.resource == Resource::Mem {
                hp.push((s.wcet as u128, f.period as u128, a.steps[i][j].jitter as u128));
            }
        }
    }
    let amp: Vec<&PremTask> = tasks.iter().filter(|t| t.mode == Mode::Amp).collect();
    for t in &amp {
        let ahead: u128 =
            amp.iter().filter(|o| o.task != t.task).map(|o| pairs(o).into_iter().max().unwrap_or(0) as u128).sum();
        let response = a.end_to_end(tasks.iter().position(|x| x.task == t.task).unwrap_or(0)).unwrap_or(0);
        let k_last = t.sections.len();
        for (k, demand) in pairs(t).into_iter().enumerate() {
            if demand == 0 {
                continue;
            }
            // The room: E_k's best case, or after the job the rest of the period.
            let room = if k < k_last {
                let e = t.sections[k].exec;
                (e as u128 * t.best.0 as u128 / t.best.1.max(1) as u128).min(e as u128) as u64
            } else {
                t.period.saturating_sub(response)
            };
            let base = demand as u128 + ahead;
            let mut w = base;
            let mut n = 0;
            loop {
                let rhs = base + hp.iter().map(|&(c, p, j)| (w + j).div_ceil(p) * c).sum::<u128>();
                if rhs > room as u128 || n > MAX_ITERATIONS {
                    return Some(if k < k_last {
                        Uncovered::Exec { task: t.task, section: k + 1, span: rhs, exec: room }
                    } else {
                        Uncovered::Final { task: t.task, response, span: rhs, period: t.period }
                    });
                }
                if rhs == w {
                    break;
                }
                w = rhs;
                n += 1;
            }
        }
    }
    None
}
