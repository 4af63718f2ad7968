//! Conformance of priority-driven policies: in every domain, at every
//! settled instant, the running jobs are the highest-priority eligible jobs
//! of the domain under [`Policy::priority`] (the OSPERT 2009 G-EDF decision
//! test T4, generalised to any priority order, any domain, placement
//! restrictions, work conservation, hysteresis and non-preemption).
//!
//! The rule is checked pairwise, which also covers tasks with placement
//! restrictions inside a domain: a waiting eligible job W is *wronged* when
//! some CPU it may run on idles (work-conserving policies) or runs a job R
//! that W outranks (preemptive policies). Ties are interchangeable: only
//! `(major, minor)` are compared, never the deterministic `tie`. With
//! hysteresis h, W outranks R only if `W.major + h < R.major`.
//!
//! A wronged job is a violation when it stays wronged longer than the
//! tolerance (any positive time when the tolerance is 0). Because priorities
//! may change with time alone (LLF's laxity of a waiting job shrinks), the
//! schedule of an instant is evaluated again just before the next instant;
//! a job found wronged only then is wronged from the crossing instant, found
//! by bisection.
//!
//! Non-preemptive policies are not held to the pairwise rule between waiting
//! and running jobs; instead no switch-away may have reason `preempt`, and a
//! CPU that picks a job must pick the highest-priority waiting eligible job
//! of its domain (jobs eligible for less than the tolerance excepted).
//!
//! Deferred-preemption policies (FPDS, G-FPDS; OSPERT 2009, Bergsma et
//! al.) are held to the pairwise rule with an allowance: a waiting job may
//! stay behind a running job it outranks while that job executes up to one
//! subjob (the longest subjob of the domain's tasks) plus the tolerance,
//! the most it executes before its next preemption point (measured in
//! execution, as overheads stretch a subjob in time). In addition, a `preempt` switch-away
//! must come at one of the job's preemption points (`segment-end` events;
//! `point-preemption`), a job that goes on at a point must not leave a
//! higher-priority job waiting for its CPU (`point-decision`), and a CPU
//! that picks a job picks the highest-priority waiting one (`np-decision`).

use crate::check::Check;
use crate::names::time;
use crate::recorder::Detail;
use crate::validator::Validator;
use schedlab_policy::{JobId, JobView, Preemption, Priority};
use schedlab_trace::{JobRef, Time};
use std::collections::HashSet;

/// The priority-driven rules a policy declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Conf {
    pub preemption: Preemption,
    pub work_conserving: bool,
    pub hysteresis: Time,
}

/// A waiting job that should be running.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wrong {
    pub since: Time,
    pub reported: bool,
    pub domain: usize,
    /// Deferred preemption: the running job it waits behind and that job's
    /// execution when the wait behind it began.
    pub behind: Option<(JobRef, Time)>,
}

#[derive(Debug, Clone, Copy)]
enum Reason {
    /// A CPU the job may run on idles.
    Idle(u32),
    /// A CPU the job may run on runs a job it outranks.
    Beats { cpu: u32, running: JobRef },
}

/// Does `w` outrank `r` by more than the hysteresis?
fn beats(w: Priority, r: Priority, h: Time) -> bool {
    if h == 0 {
        (w.major, w.minor) < (r.major, r.minor)
    } else {
        w.major.saturating_add(h as i128) < r.major
    }
}

fn signed(v: i128) -> String {
    if v < 0 {
        format!("-{}", time(v.unsigned_abs() as u64))
    } else {
        time(v as u64)
    }
}

impl Validator<'_> {
    fn priority(&self, j: JobRef, now: Time) -> Option<Priority> {
        let js = self.state.jobs.get(&j)?;
        let release = js.release?;
        let view = JobView {
            id: JobId { task: j.task, seq: j.job },
            release,
            deadline: js.deadline,
            consumed: self.state.consumed_at(j, now),
            now,
        };
        self.policy.as_deref()?.priority(&view)
    }

    /// The running jobs of domain `d` in CPU order, with their priorities.
    fn running_in(&self, d: usize, now: Time) -> Vec<(u32, JobRef, Option<Priority>)> {
        let mut v = Vec::new();
        for &c in &self.domains[d] {
            for &j in &self.state.cpus[c as usize].jobs {
                v.push((c, j, self.priority(j, now)));
            }
        }
        v
    }

    /// The waiting (eligible, not running) jobs of domain `d`.
    fn waiting_in(&self, d: usize) -> impl Iterator<Item = JobRef> + '_ {
        self.state.eligible[d].iter().copied().filter(move |j| self.state.jobs.get(j).is_some_and(|s| !s.running()))
    }

    /// The wronged waiting jobs of domain `d` at `now`, with their priority and why.
    fn wronged(&self, d: usize, now: Time) -> Vec<(JobRef, Reason)> {
        let Some(conf) = self.conf else { return Vec::new() };
        let running = self.running_in(d, now);
        let idle: Vec<u32> =
            self.domains[d].iter().copied().filter(|&c| self.state.cpus[c as usize].jobs.is_empty()).collect();
        let mut out = Vec::new();
        for w in self.waiting_in(d) {
            let pl = &self.placement[w.task as usize];
            if conf.work_conserving {
                if let Some(&c) = idle.iter().find(|&&c| pl.allows(c)) {
                    out.push((w, Reason::Idle(c)));
                    continue;
                }
            }
            if conf.preemption == Preemption::None {
                continue;
            }
            let Some(pw) = self.priority(w, now) else { continue };
            let worst = running
                .iter()
                .filter_map(|&(c, r, pr)| pr.map(|pr| (c, r, pr)))
                .filter(|&(c, _, pr)| pl.allows(c) && beats(pw, pr, conf.hysteresis))
                .max_by_key(|&(c, r, pr)| (pr.major, pr.minor, std::cmp::Reverse(c), r));
            if let Some((cpu, running, _)) = worst {
                out.push((w, Reason::Beats { cpu, running }));
            }
        }
        out
    }

    /// Drains the open latency events of domain `d`: the assignment conforms at `at`.
    pub(crate) fn conforms(&mut self, d: usize, at: Time) {
        while let Some((t, kind)) = self.open[d].pop_front() {
            self.lat.add(kind, at.saturating_sub(t));
        }
    }

    /// After the events of instant `t`.
    pub(crate) fn conformance_settled(&mut self, t: Time) {
        for d in 0..self.domains.len() {
            let list = self.wronged(d, t);
            let ids: HashSet<JobRef> = list.iter().map(|x| x.0).collect();
            self.wrongs.retain(|j, w| w.domain != d || ids.contains(j));
            let deferred = self.conf.is_some_and(|c| c.preemption == Preemption::AtPoints);
            for &(j, reason) in &list {
                let w = self.wrongs.entry(j).or_insert(Wrong { since: t, reported: false, domain: d, behind: None });
                // Deferred preemption: a job that waited behind a running
                // job (allowed until that job's next point) and now finds a
                // CPU idle (the job left it at its point, and a real
                // dispatcher's switch takes time) waits from now on.
                if deferred && matches!(reason, Reason::Idle(_)) && w.behind.is_some() {
                    w.since = t;
                    w.behind = None;
                }
            }
            if list.is_empty() {
                self.conforms(d, t);
            }
        }
    }

    /// The schedule of instant `t` lasted until `next`.
    pub(crate) fn conformance_elapsed(&mut self, t: Time, next: Time) {
        let tol = self.tol;
        for d in 0..self.domains.len() {
            let list = self.wronged(d, next);
            let ids: HashSet<JobRef> = list.iter().map(|x| x.0).collect();
            self.wrongs.retain(|j, w| w.domain != d || ids.contains(j));
            for &(w, reason) in &list {
                let since = match self.wrongs.get(&w) {
                    Some(x) => x.since,
                    None => {
                        let s = self.crossing(d, w, t, next);
                        self.wrongs.insert(w, Wrong { since: s, reported: false, domain: d, behind: None });
                        s
                    }
                };
                let reported = self.wrongs.get(&w).is_some_and(|x| x.reported);
                if !reported && self.waited(d, w, reason, since.max(t), next).unwrap_or(next - since) > tol {
                    // Describe the wrong at the instant it began (or at the
                    // current schedule's instant, if later).
                    let at = since.max(t);
                    let reason = self.wronged(d, at).into_iter().find(|x| x.0 == w).map(|x| x.1).unwrap_or(reason);
                    self.report_wrong(d, w, reason, since, next, at);
                    if let Some(x) = self.wrongs.get_mut(&w) {
                        x.reported = true;
                    }
                }
            }
            if list.is_empty() {
                self.conforms(d, next);
            }
        }
    }

    /// Deferred preemption: how much longer than one subjob `w` has waited
    /// behind the running job of `reason`, measured in that job's execution
    /// (overheads on its CPU stretch a subjob in time, not in execution);
    /// `None` for the other rules (wall-clock time counts).
    fn waited(&mut self, d: usize, w: JobRef, reason: Reason, from: Time, next: Time) -> Option<Time> {
        let (Some(Preemption::AtPoints), Reason::Beats { running, .. }) = (self.conf.map(|c| c.preemption), reason)
        else {
            return None;
        };
        let now = self.state.consumed_at(running, next);
        let base = match self.wrongs.get(&w).and_then(|x| x.behind) {
            Some((r, c)) if r == running => c,
            _ => {
                let c = self.state.consumed_at(running, from);
                if let Some(x) = self.wrongs.get_mut(&w) {
                    x.behind = Some((running, c));
                }
                c
            }
        };
        Some(now.saturating_sub(base).saturating_sub(self.longest_subjob[d]))
    }

    /// How long beyond the tolerance a job may stay wronged for this reason:
    /// under deferred preemption, a waiting job outranking a running one
    /// waits for its next preemption point, at most one subjob.
    fn allowance(&self, d: usize, reason: Reason) -> Time {
        match (self.conf.map(|c| c.preemption), reason) {
            (Some(Preemption::AtPoints), Reason::Beats { .. }) => self.longest_subjob[d],
            _ => 0,
        }
    }

    /// The first instant in `(lo, hi]` at which `w` is wronged (`hi` is).
    fn crossing(&self, d: usize, w: JobRef, lo: Time, hi: Time) -> Time {
        let (mut lo, mut hi) = (lo, hi);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.wronged(d, mid).iter().any(|x| x.0 == w) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// `T3#4 (deadline 20ms)`.
    fn describe(&self, j: JobRef, now: Time) -> String {
        let name = self.rec.names.job(j);
        let (Some(p), Some(js)) = (self.priority(j, now), self.state.jobs.get(&j)) else { return name };
        if p.major == js.deadline as i128 {
            return format!("{name} (deadline {})", time(js.deadline));
        }
        let wcet = self.params[j.task as usize].wcet as i128;
        let laxity = js.deadline as i128 - now as i128 - (wcet - self.state.consumed_at(j, now) as i128);
        if p.major == laxity {
            return format!("{name} (laxity {})", signed(laxity));
        }
        if p.minor == 0 {
            format!("{name} (priority {})", p.major)
        } else {
            format!("{name} (priority {}/{})", p.major, p.minor)
        }
    }

    fn domain_jobs(&self, d: usize) -> Vec<String> {
        self.domains[d]
            .iter()
            .flat_map(|&c| self.state.cpus[c as usize].jobs.iter().map(|&j| self.rec.names.job(j)))
            .collect()
    }

    fn report_wrong(&mut self, d: usize, w: JobRef, reason: Reason, since: Time, detected: Time, at: Time) {
        let dw = self.describe(w, at);
        let ran = self.domain_jobs(d);
        let listed = if ran.is_empty() { "nothing".to_string() } else { ran.join(", ") };
        let tail =
            if self.tol > 0 { format!(" (for longer than the tolerance {})", time(self.tol)) } else { String::new() };
        let wname = self.rec.names.job(w);
        match reason {
            Reason::Idle(cpu) => {
                let body = format!("cpu {cpu} idles while {dw} waits{tail}; running on domain {d}: {listed}");
                self.rec.violation(Check::WorkConserving, since, detected, Some(cpu), |_| {
                    Detail::new(body).ran(ran).expected(vec![wname])
                });
            }
            Reason::Beats { cpu, running } => {
                let dr = self.describe(running, at);
                let extra = self.allowance(d, reason);
                let tail = if extra > 0 {
                    format!(
                        " (while it executed more than one subjob, {}, plus the tolerance {})",
                        time(extra),
                        time(self.tol)
                    )
                } else {
                    tail
                };
                let body = format!("{dr} runs while {dw} waits{tail}; running on domain {d}: {listed}");
                self.rec.violation(Check::Conformance, since, detected, Some(cpu), |_| {
                    Detail::new(body).ran(ran).expected(vec![wname])
                });
            }
        }
    }

    /// Deferred preemption: the preemption points of instant `t`, checked
    /// once the tolerance has passed ([`Validator::point_decisions`]).
    pub(crate) fn note_points(&mut self, t: Time) {
        if self.conf.is_some_and(|c| c.preemption == Preemption::AtPoints) {
            for i in 0..self.inst.points.len() {
                let (cpu, j) = self.inst.points[i];
                self.point_checks.push((t, cpu, j));
            }
        }
    }

    /// Deferred preemption: a job that reached a preemption point at `p`
    /// and still runs on its CPU at `p + tolerance` (the schedule settled
    /// before `next`) must not leave a higher-priority job that was waiting
    /// at the point waiting for that CPU.
    pub(crate) fn point_decisions(&mut self, next: Time) {
        let Some(conf) = self.conf.filter(|c| c.preemption == Preemption::AtPoints) else { return };
        let tol = self.tol;
        let mut i = 0;
        while i < self.point_checks.len() {
            let (p, cpu, j) = self.point_checks[i];
            if p.saturating_add(tol) >= next {
                i += 1;
                continue;
            }
            self.point_checks.swap_remove(i);
            let at = p.saturating_add(tol);
            if !self.state.cpus[cpu as usize].jobs.contains(&j) {
                continue;
            }
            let (Some(d), Some(pj)) = (self.state.cpus[cpu as usize].domain, self.priority(j, at)) else { continue };
            let best = self
                .waiting_in(d)
                .filter(|w| self.placement[w.task as usize].allows(cpu))
                .filter(|w| self.state.jobs.get(w).is_some_and(|s| s.eligible_since <= p))
                .filter_map(|w| self.priority(w, at).map(|pr| (w, pr)))
                .filter(|&(_, pw)| beats(pw, pj, conf.hysteresis))
                .min_by_key(|&(w, pr)| (pr.major, pr.minor, w));
            if let Some((w, _)) = best {
                let tail = if tol > 0 { format!(" (still {} later)", time(tol)) } else { String::new() };
                let body = format!(
                    "{} goes on at its preemption point on cpu {cpu} while {} waits{tail}",
                    self.describe(j, p),
                    self.describe(w, p)
                );
                let (jn, wn) = (self.rec.names.job(j), self.rec.names.job(w));
                self.rec.violation(Check::PointDecision, p, at, Some(cpu), |_| {
                    Detail::new(body).ran(vec![jn]).expected(vec![wn])
                });
            }
        }
    }

    /// Non-preemptive and deferred-preemption policies: the jobs CPUs
    /// picked at instant `t` must be the highest-priority waiting ones.
    /// With a tolerance, a pick is checked once the tolerance has passed
    /// ([`Validator::pick_decisions`]): a better job that got a CPU of its
    /// own within the tolerance (a real dispatcher's switches of one
    /// decision land on the CPUs one after another) was not passed over.
    pub(crate) fn np_decisions(&mut self, t: Time) {
        if self.conf.is_none_or(|c| c.preemption == Preemption::Full) {
            return;
        }
        let picks = std::mem::take(&mut self.inst.picks);
        for &(cpu, j) in &picks {
            if self.tol == 0 {
                self.pick_decision(t, t, cpu, j);
            } else {
                self.pick_checks.push((t, cpu, j));
            }
        }
        self.inst.picks = picks;
    }

    /// The picks whose tolerance has passed before `next` (the schedule
    /// settled then), checked in the state of that moment.
    pub(crate) fn pick_decisions(&mut self, next: Time) {
        let tol = self.tol;
        let mut i = 0;
        while i < self.pick_checks.len() {
            let (p, cpu, j) = self.pick_checks[i];
            if p.saturating_add(tol) >= next {
                i += 1;
                continue;
            }
            self.pick_checks.swap_remove(i);
            self.pick_decision(p, p.saturating_add(tol), cpu, j);
        }
    }

    /// CPU `cpu` picked `j` at `t`; checked at `at` (`t` plus the
    /// tolerance): if `j` still runs there alone, no job that was eligible
    /// for the tolerance before the pick and still waits at `at` may
    /// outrank it.
    fn pick_decision(&mut self, t: Time, at: Time, cpu: u32, j: JobRef) {
        let Some(conf) = self.conf else { return };
        if self.state.cpus[cpu as usize].jobs.as_slice() != [j] {
            return;
        }
        let (Some(d), Some(pj)) = (self.state.cpus[cpu as usize].domain, self.priority(j, t)) else { return };
        let tol = self.tol;
        let best = self
            .waiting_in(d)
            .filter(|w| self.placement[w.task as usize].allows(cpu))
            .filter(|w| self.state.jobs.get(w).is_some_and(|s| s.eligible_since.saturating_add(tol) <= t))
            .filter_map(|w| self.priority(w, t).map(|p| (w, p)))
            .filter(|&(_, pw)| beats(pw, pj, conf.hysteresis))
            .min_by_key(|&(w, p)| (p.major, p.minor, w));
        if let Some((w, _)) = best {
            let still = if at > t { format!(" (still {} later)", time(at - t)) } else { String::new() };
            let body = format!("cpu {cpu} picks {} while {} waits{still}", self.describe(j, t), self.describe(w, t));
            let (jn, wn) = (self.rec.names.job(j), self.rec.names.job(w));
            self.rec
                .violation(Check::NpDecision, t, at, Some(cpu), |_| Detail::new(body).ran(vec![jn]).expected(vec![wn]));
        }
    }
}
