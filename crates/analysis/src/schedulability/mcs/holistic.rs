//! The holistic analysis of fixed-priority flows (Tindell & Clark 1994):
//! every step is analysed as an independent sporadic task on its resource
//! whose release jitter is the response time of the step before it, and the
//! per-step response times and the jitters are iterated together to a fixed
//! point.
//!
//! For step τᵢⱼ on resource r, with hpᵢⱼ the other steps on r of priority at
//! or above its own (equal priorities included: FIFO among them, and the
//! flow's own other steps on r as the original analysis counts them), and
//! Bᵢⱼ the longest non-preemptive step of lower priority on r:
//!
//! wᵢⱼ(q) = Bᵢⱼ + (q+1)·Cᵢⱼ + Σ_{τₖₗ ∈ hpᵢⱼ} ⌈(wᵢⱼ(q) + Jₖₗ)/Tₖ⌉·Cₖₗ
//! Rᵢⱼ = max_q (wᵢⱼ(q) − q·Tᵢ + Jᵢⱼ + Φᵢⱼ), for q = 0, 1, … while
//! wᵢⱼ(q) + Jᵢⱼ > (q+1)·Tᵢ (the busy period goes on past the next release).
//!
//! Jitter propagation, [`Jitter::Holistic`] (Tindell & Clark): Φᵢⱼ = 0,
//! Jᵢ₁ = Jᵢ (external) and Jᵢⱼ = Rᵢ,ⱼ₋₁. [`Jitter::BestCase`] (Palencia,
//! Gutiérrez & González Harbour 1998): a step cannot be released before the
//! best-case response of its predecessor, Rbᵢ,ⱼ₋₁ = Σ_{l<j} Cbᵢₗ, so
//! Φᵢⱼ = Rbᵢ,ⱼ₋₁ and Jᵢⱼ = Rᵢ,ⱼ₋₁ − Rbᵢ,ⱼ₋₁: a smaller jitter, hence less
//! interference on the other flows. [`Jitter::Precedence`] adds to it that
//! a flow with Dᵢ ≤ Tᵢ never interferes with itself (its steps are
//! sequential and its jobs do not overlap), which the original counts: the
//! main reason the paper finds HOL far above the offset-based analyses.
//!
//! The iteration starts from jitters below the fixed point (the sums of
//! the predecessors' WCETs) and only grows them, so a response above the
//! flow's deadline at any round proves the fixed point is above it too: the
//! analysis stops there. A non-preemptive step is analysed as a preemptive
//! one plus its blocking (it finishes no later than that, since once started
//! no higher-priority work runs before its end).

use super::flow::{Flow, Resource};
use schedlab_model::exact::Ratio;

/// How the jitter of a step is derived from its predecessor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jitter {
    /// Jᵢⱼ = Rᵢ,ⱼ₋₁ (Tindell & Clark 1994).
    Holistic,
    /// Φᵢⱼ = Rbᵢ,ⱼ₋₁, Jᵢⱼ = Rᵢ,ⱼ₋₁ − Rbᵢ,ⱼ₋₁ (the best-case refinement).
    BestCase,
    /// [`Jitter::BestCase`], and a flow with Dᵢ ≤ Tᵢ does not interfere
    /// with itself: its steps run one after the other, and each job ends
    /// (Rᵢ ≤ Dᵢ ≤ Tᵢ) before the next is released. The argument is the
    /// usual induction on the first job that would exceed its bound: every
    /// earlier job met it, so no earlier step of the flow is pending.
    Precedence,
}

impl Jitter {
    fn best_case(self) -> bool {
        self != Jitter::Holistic
    }
}

/// Jobs of one step examined in one busy period before giving up.
const MAX_JOBS: u128 = 100_000;
/// Fixed-point iterations of one busy window, and global rounds, before
/// giving up.
const MAX_ITERATIONS: u32 = 1_000_000;
const MAX_ROUNDS: u32 = 100_000;

/// What the analysis found for one step (at the last round).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepResult {
    /// Release jitter Jᵢⱼ.
    pub jitter: u64,
    /// Offset Φᵢⱼ (0 in the holistic form).
    pub offset: u64,
    /// Blocking Bᵢⱼ by a lower-priority non-preemptive step.
    pub blocking: u64,
    /// The busy window of the first job, wᵢⱼ(0).
    pub window: u64,
    /// Jobs of the step in its longest busy period.
    pub jobs: u64,
    /// Worst-case response Rᵢⱼ, from the flow's activation.
    pub response: u64,
    /// Best-case response Rbᵢⱼ = Σ_{l≤j} Cbᵢₗ.
    pub best: u64,
}

/// Why the analysis did not prove every flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The steps on a resource demand more than it has (utilisation, exact).
    Overload { resource: Resource, utilisation: Ratio },
    /// Step `step` of flow `flow` can respond at `response`, after the
    /// flow's deadline.
    Miss { flow: usize, step: usize, response: u128 },
    /// An iteration cap was hit.
    Limit { flow: usize, step: usize },
}

/// The outcome of the fixed point: per flow and step, and how many global
/// rounds it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    pub steps: Vec<Vec<StepResult>>,
    pub rounds: u32,
    /// `None`: every flow's end-to-end response is within its deadline.
    pub failure: Option<Failure>,
}

impl Analysis {
    /// Flow `i`'s end-to-end response (its last step's), when computed.
    pub fn end_to_end(&self, i: usize) -> Option<u64> {
        self.steps.get(i)?.last().map(|s| s.response)
    }
}

/// Each resource's utilisation Σ Cₖₗ/Tₖ, exactly, in resource order.
pub fn utilisations(flows: &[Flow]) -> Vec<(Resource, Ratio)> {
    let mut res: Vec<Resource> = flows.iter().flat_map(|f| f.steps.iter().map(|s| s.resource)).collect();
    res.sort();
    res.dedup();
    res.into_iter()
        .map(|r| {
            let u = Ratio::sum(flows.iter().flat_map(|f| {
                f.steps.iter().filter(move |s| s.resource == r).map(move |s| (s.wcet as u128, f.period as u128))
            }));
            (r, u)
        })
        .collect()
}

/// Runs the fixed point over `flows`.
pub fn analyse(flows: &[Flow], mode: Jitter) -> Analysis {
    let mut out = Analysis {
        steps: flows.iter().map(|f| vec![StepResult::default(); f.steps.len()]).collect(),
        rounds: 0,
        failure: None,
    };
    if let Some((resource, utilisation)) = utilisations(flows).into_iter().find(|(_, u)| u.gt_int(1)) {
        out.failure = Some(Failure::Overload { resource, utilisation });
        return out;
    }
    // Offsets and initial jitters: below the fixed point.
    for (i, f) in flows.iter().enumerate() {
        let (mut worst, mut best) = (f.jitter as u128, 0u128);
        for (j, s) in f.steps.iter().enumerate() {
            let r = &mut out.steps[i][j];
            let (jit, off) = if mode.best_case() { (worst - best, best) } else { (worst, 0) };
            r.jitter = sat(jit);
            r.offset = sat(off);
            worst += s.wcet as u128;
            best += s.bcet.min(s.wcet) as u128;
            r.best = sat(best);
        }
    }
    loop {
        out.rounds += 1;
        if out.rounds > MAX_ROUNDS {
            out.failure = Some(Failure::Limit { flow: 0, step: 0 });
            return out;
        }
        // Every step's response from this round's jitters.
        for i in 0..flows.len() {
            if flows[i].background {
                continue;
            }
            for j in 0..flows[i].steps.len() {
                match step_response(flows, &out.steps, i, j, mode) {
                    Ok((r, window, blocking, jobs)) => {
                        let s = &mut out.steps[i][j];
                        s.response = sat(r);
                        s.window = sat(window);
                        s.blocking = blocking;
                        s.jobs = jobs;
                    }
                    Err(f) => {
                        out.failure = Some(f);
                        return out;
                    }
                }
            }
        }
        // The next round's jitters.
        let mut changed = false;
        for (i, f) in flows.iter().enumerate().filter(|(_, f)| !f.background) {
            for j in 1..f.steps.len() {
                let prev = out.steps[i][j - 1];
                let jit = if mode.best_case() { prev.response - prev.best.min(prev.response) } else { prev.response };
                if jit != out.steps[i][j].jitter {
                    out.steps[i][j].jitter = jit;
                    changed = true;
                }
            }
        }
        if !changed {
            return out;
        }
    }
}

fn sat(v: u128) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// Rᵢⱼ, wᵢⱼ(0), Bᵢⱼ and the jobs in the busy period, from the current jitters.
fn step_response(
    flows: &[Flow],
    state: &[Vec<StepResult>],
    i: usize,
    j: usize,
    mode: Jitter,
) -> Result<(u128, u128, u64, u64), Failure> {
    let flow = &flows[i];
    let me = &flow.steps[j];
    let (c, t, d) = (me.wcet as u128, flow.period as u128, flow.deadline as u128);
    let own = state[i][j];
    let (jit, off) = (own.jitter as u128, own.offset as u128);
    let mut blocking = 0u64;
    // (C, T, J) of every interfering step.
    let mut hp: Vec<(u128, u128, u128)> = Vec::new();
    let alone = mode == Jitter::Precedence && flow.deadline <= flow.period;
    for (k, g) in flows.iter().enumerate() {
        if alone && k == i {
            continue;
        }
        for (l, s) in g.steps.iter().enumerate() {
            if (k, l) == (i, j) || s.resource != me.resource {
                continue;
            }
            if s.priority <= me.priority {
                hp.push((s.wcet as u128, g.period as u128, state[k][l].jitter as u128));
            } else if !s.preemptive {
                blocking = blocking.max(s.wcet);
            }
        }
    }
    let b = blocking as u128;
    let (mut worst, mut w, mut first) = (0u128, 0u128, 0u128);
    let mut iterations = 0u32;
    for q in 0..MAX_JOBS {
        let base = b + c * (q + 1);
        w = if q == 0 { base } else { w + c };
        loop {
            let mut rhs = base;
            for &(ck, tk, jk) in &hp {
                rhs = rhs.saturating_add((w + jk).div_ceil(tk).saturating_mul(ck));
            }
            let r = (rhs + jit + off).saturating_sub(q * t);
            if r > d {
                return Err(Failure::Miss { flow: i, step: j, response: r });
            }
            if rhs == w {
                break;
            }
            w = rhs;
            iterations += 1;
            if iterations > MAX_ITERATIONS {
                return Err(Failure::Limit { flow: i, step: j });
            }
        }
        if q == 0 {
            first = w;
        }
        worst = worst.max((w + jit + off).saturating_sub(q * t));
        if w + jit <= (q + 1) * t {
            return Ok((worst, first, blocking, q as u64 + 1));
        }
    }
    Err(Failure::Limit { flow: i, step: j })
}
