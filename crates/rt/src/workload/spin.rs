//! The calibrated CPU spin: a dependent chain of multiply-adds (an LCG step)
//! that the compiler cannot remove or vectorise, so one iteration costs the
//! same on every call on a given core.

use crate::job::{JobCtx, JobError};
use crate::workload::JobBody;

/// Runs `n` iterations of the spin kernel.
#[inline(never)]
pub fn kernel(n: u64) -> u64 {
    let mut x = std::hint::black_box(0x2545_f491_4f6c_dd1du64);
    for _ in 0..n {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    }
    std::hint::black_box(x)
}

/// `spin`: the job's execution time by the calibrated loop, segment by
/// segment when the task declares segments ([`JobCtx::run_segments`]).
pub struct Spin;

impl JobBody for Spin {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        ctx.run_segments(|ctx, ns, _| ctx.spin(ns))
    }
}

/// `spin-cpu`: the job's execution time measured on the thread CPU clock,
/// segment by segment as `spin`.
pub struct SpinCpu;

impl JobBody for SpinCpu {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        ctx.run_segments(|ctx, ns, _| ctx.spin_cpu(ns))
    }
}
