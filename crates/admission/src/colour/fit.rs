//! A CPU's fit test under colour-aware partitioning, decided exactly:
//! Σ u ≤ c for a constant capacity c, or Σ u ≤ n(2^{1/n} − 1) (Liu &
//! Layland 1973, with n the HRT and SRT tasks on the CPU), decided as
//! (1 + U/n)ⁿ ≤ 2 in rationals. BE tasks weigh 0 and do not count in n.
//!
//! Best and worst fit rank CPUs by the room left (capacity − load). Under a
//! constant it is exact; under `ll` the bound is irrational and the room is
//! ranked on its nearest double (the fit itself stays exact).

use super::problem::ColourProblem;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{FromPrimitive, One, Zero};
use schedlab_model::Capacity;

/// Σ weight of the tasks.
pub fn load(p: &ColourProblem, tasks: impl IntoIterator<Item = usize>) -> BigRational {
    tasks.into_iter().fold(BigRational::zero(), |acc, t| acc + p.tasks[t].weight())
}

fn real_time(p: &ColourProblem, tasks: &[usize]) -> usize {
    tasks.iter().filter(|&&t| p.tasks[t].real_time()).count()
}

/// Whether the tasks together pass the CPU's capacity.
pub fn fits(p: &ColourProblem, tasks: &[usize]) -> bool {
    let u = load(p, tasks.iter().copied());
    match p.capacity {
        Capacity::Constant { num, den } => u <= BigRational::new(BigInt::from(num), BigInt::from(den)),
        Capacity::Ll => {
            let n = real_time(p, tasks);
            if n == 0 {
                return true;
            }
            let nn = BigRational::from_integer(BigInt::from(n));
            let x = BigRational::one() + u / nn;
            num_traits::pow::pow(x, n) <= BigRational::from_integer(BigInt::from(2))
        }
    }
}

/// The capacity the tasks are held to, for ranking rooms and for messages.
pub fn bound(p: &ColourProblem, tasks: &[usize]) -> BigRational {
    match p.capacity {
        Capacity::Constant { num, den } => BigRational::new(BigInt::from(num), BigInt::from(den)),
        Capacity::Ll => {
            let n = real_time(p, tasks).max(1) as f64;
            BigRational::from_f64(n * (2f64.powf(1.0 / n) - 1.0)).unwrap_or_else(BigRational::one)
        }
    }
}

/// The room the tasks leave: bound − load.
pub fn room(p: &ColourProblem, tasks: &[usize]) -> BigRational {
    bound(p, tasks) - load(p, tasks.iter().copied())
}

/// A load or bound for people (`0.985`).
pub fn shown(r: &BigRational) -> String {
    use num_traits::ToPrimitive;
    let s = format!("{:.4}", r.to_f64().unwrap_or(f64::NAN));
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
