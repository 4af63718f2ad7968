//! Distributing spare capacity over the level-0 servers so that their rates
//! sum to the number of CPUs RUN uses (RUN needs full utilisation).

use num_traits::{Signed, Zero};
use schedlab_model::exact::Ratio;
use schedlab_model::Slack;

/// The slack each server gets, given the servers' rates (each ≤ 1) and the
/// total spare capacity (at most Σ (1 − rate)). Exact; the returned shares
/// sum to `spare`.
pub(crate) fn distribute(rates: &[Ratio], spare: &Ratio, policy: Slack) -> Vec<Ratio> {
    match policy {
        Slack::Greedy => greedy(rates, spare),
        Slack::Proportional => proportional(rates, spare),
    }
}

fn one() -> Ratio {
    Ratio::new(1, 1)
}

fn sub(a: &Ratio, b: &Ratio) -> Ratio {
    Ratio(&a.0 - &b.0)
}

fn add(a: &Ratio, b: &Ratio) -> Ratio {
    Ratio(&a.0 + &b.0)
}

/// The RUN tools' rule: in non-increasing order of rate (ties by index),
/// fill each server up to 1 while spare capacity remains; the last one gets
/// what is left.
fn greedy(rates: &[Ratio], spare: &Ratio) -> Vec<Ratio> {
    let mut out = vec![Ratio::zero(); rates.len()];
    let mut order: Vec<usize> = (0..rates.len()).collect();
    order.sort_by(|&a, &b| rates[b].cmp(&rates[a]).then(a.cmp(&b)));
    let mut left = spare.clone();
    for s in order {
        if !left.0.is_positive() {
            break;
        }
        let need = sub(&one(), &rates[s]);
        if need <= left {
            left = sub(&left, &need);
            out[s] = need;
        } else {
            out[s] = left;
            left = Ratio::zero();
        }
    }
    out
}

/// The thesis text's rule: every server not yet at rate 1 gets a share of
/// the remaining spare capacity proportional to its rate (equal shares if
/// all rates are 0), capped at 1; what the caps cut off is shared again
/// among the others, until nothing is left.
fn proportional(rates: &[Ratio], spare: &Ratio) -> Vec<Ratio> {
    let n = rates.len();
    let mut out = vec![Ratio::zero(); n];
    let mut active: Vec<usize> = (0..n).filter(|&s| rates[s] < one()).collect();
    let mut left = spare.clone();
    while left.0.is_positive() && !active.is_empty() {
        let weight: Ratio = active.iter().fold(Ratio::zero(), |acc, &s| add(&acc, &rates[s]));
        let equal = weight.0.is_zero();
        let mut over = Ratio::zero();
        let mut still = Vec::with_capacity(active.len());
        for &s in &active {
            let share = if equal {
                Ratio(&left.0 / num_rational::BigRational::from_integer((active.len() as u64).into()))
            } else {
                Ratio(&left.0 * &rates[s].0 / &weight.0)
            };
            let room = sub(&sub(&one(), &rates[s]), &out[s]);
            if share >= room {
                over = add(&over, &sub(&share, &room));
                out[s] = add(&out[s], &room);
            } else {
                out[s] = add(&out[s], &share);
                still.push(s);
            }
        }
        left = over;
        active = still;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: u128, d: u128) -> Ratio {
        Ratio::new(n, d)
    }

    #[test]
    fn greedy_fills_the_largest_first() {
        let rates = [r(1, 2), r(7, 10), r(3, 10)];
        let s = greedy(&rates, &r(1, 2));
        // .7 → 1 (uses .3), then .5 gets the remaining .2, .3 gets nothing.
        assert_eq!(s, vec![r(1, 5), r(3, 10), r(0, 1)]);
    }

    #[test]
    fn proportional_caps_and_passes_the_rest_on() {
        let rates = [r(9, 10), r(1, 10)];
        // Shares .9·1 and .1·1: the first is capped at .1 (the .8 over goes
        // round again, all to the second, which then reaches .1 + .1 + .8 = 1).
        let s = proportional(&rates, &r(1, 1));
        assert_eq!(s, vec![r(1, 10), r(9, 10)]);
        let rates = [r(1, 2), r(1, 4), r(1, 4)];
        let s = proportional(&rates, &r(1, 2));
        assert_eq!(s, vec![r(1, 4), r(1, 8), r(1, 8)]);
    }
}
