//! Colour-aware partitioning of the EPOS thesis (Gracioli 2014): CAP
//! (Ch.7, Algorithms 1–4) and CAP-GS (Ch.8, Algorithms 5–6).
//!
//! Tasks that share a cache colour, directly or through other tasks, form a
//! *colour group* ([`groups`]: the connected components of the
//! colour-sharing graph, Def. 7.1.3). CAP places whole groups on CPUs, so
//! tasks that share colours never run in parallel and never disturb each
//! other through the cache; CAP-GS gives each HRT task a CPU by FFD, then
//! places the SRT and BE groups by BFD, splitting a group that fits no CPU
//! by taking out its task of smallest utilisation until it fits.
//!
//! Every decision the thesis leaves open is taken here and written in
//! `docs/policies.md` ("Colour-aware partitioning"):
//! - a BE task weighs 0 (Def. 8.1.1), and `ll` counts HRT and SRT tasks only;
//! - a CPU's capacity is a constant (`1`, `0.75`, …) or Liu & Layland's
//!   n(2^{1/n} − 1) ([`fit`]), decided exactly;
//! - CAP-GS Phase A handles only groups holding an HRT task, and such a
//!   group of more than one task is an error (HRT tasks never share colours);
//! - the task split off a group is the one of smallest utilisation, ties to
//!   the last in task order (Table 15 splits T8, not T6);
//! - SRT and BE groups go to CPUs without HRT tasks unless
//!   `srt_on_hrt_cores: true` (Table 15 puts T8 on the third CPU);
//! - the memory constraints (Eq. 7.1, 7.4) are checked only when the policy
//!   gives `memory_total` (the thesis' M_total is main memory, which the
//!   spec does not describe otherwise).
//!
//! The result ([`ColourPartition`]) holds the groups, the CPU of every task
//! and the colours of every CPU; an error ([`ColourError`]) names the field,
//! the tasks and the fix.

mod bins;
mod cap;
mod cap_gs;
mod constraints;
mod error;
pub mod fit;
pub mod groups;
mod outcome;
mod problem;
mod spec;

pub use error::{ColourError, ColourErrorKind};
pub use outcome::{colours_text, ColourPartition};
pub use problem::{ColourProblem, ColourTask, Scheme};
pub use spec::{colour_partition, problem_of};

/// Runs the problem's scheme (CAP or CAP-GS).
pub fn partition(p: &ColourProblem) -> Result<ColourPartition, ColourError> {
    constraints::check(p)?;
    match p.scheme {
        Scheme::Cap => cap::cap(p),
        Scheme::CapGs => cap_gs::cap_gs(p),
    }
}

/// The placement the tasks' pins give, after the constraints (and, under
/// CAP-GS, the rule that HRT tasks do not share colours) are checked.
pub fn given(p: &ColourProblem, cpus: Vec<usize>) -> Result<ColourPartition, ColourError> {
    constraints::check(p)?;
    let colors: Vec<_> = p.tasks.iter().map(|t| &t.colors).collect();
    let groups = groups::colour_groups(&colors);
    if p.scheme == Scheme::CapGs {
        cap_gs::hrt_alone(p, &groups)?;
    }
    let mut placed = vec![Vec::new(); p.cpus];
    for (t, &c) in cpus.iter().enumerate() {
        if c >= p.cpus {
            return Err(ColourError {
                kind: ColourErrorKind::Constraint,
                path: format!("tasks[{t}].cpu"),
                tasks: vec![t],
                message: format!("CPU {c} does not exist; the platform has CPUs 0 to {}", p.cpus.saturating_sub(1)),
            });
        }
        placed[c].push(t);
    }
    let order = (0..groups.len()).collect();
    Ok(ColourPartition::finish(p, groups, order, Vec::new(), placed))
}

#[cfg(test)]
mod tests;
