//! The supply of a nested group from its parent's.
//!
//! Inside a group's virtual processor on one CPU, the servers of its child
//! groups (and the server of its own tasks' leaf queue) are scheduled by EDF
//! on their deadlines, exactly as the top-level servers are on the CPU. A
//! hard CBS never demands more than a sporadic task with WCET Q and period
//! (= deadline) P, so the children all receive their budget in every one of
//! their server periods when that demand fits the parent's supply (EDF on a
//! supply bound function, Shin & Lee 2003):
//!
//!   ∀t > 0:  Σ_c ⌊t/P_c⌋·Q_c ≤ Z_parent(t).
//!
//! A child served that way receives Q_c somewhere in each of its periods,
//! which is all Eq. 4 assumes, so its virtual processor has Eq. 4's supply,
//! as if it were alone on a CPU. On a whole CPU the condition is Σ Q_c/P_c
//! ≤ 1 (Eq. 17). Otherwise it needs checking only at the steps of the
//! demand up to the point where the children's bandwidth U stays under the
//! parent's linear bound: t* = α·Δ/(α − U); at U ≥ α it fails (Eq. 4 stays
//! below α·t at every multiple of P, so the demand overtakes it).

use super::function::Supply;
use super::hcbs::Server;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

/// The most demand steps checked before giving up (a bandwidth just under
/// the parent's makes t* huge).
pub const MAX_POINTS: u64 = 2_000_000;

/// Why the children's servers do not fit their parent's supply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Misfit {
    /// Σ Q_c/P_c exceeds the parent's bandwidth (or equals it on a partial
    /// supply).
    Bandwidth { children: BigRational, parent: BigRational, whole: bool },
    /// At window `t` the servers demand more than the parent supplies.
    Demand { t: u64, demand: u64, supply: BigRational },
    /// The check would need more than [`MAX_POINTS`] steps (up to `horizon`).
    TooLong { horizon: u64 },
}

impl std::fmt::Display for Misfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Misfit::Bandwidth { children, parent, whole } => {
                let (c, p) = (children, parent);
                if *whole {
                    write!(f, "the servers' bandwidth {}/{} exceeds the supply's {}/{}", c.numer(), c.denom(), p.numer(), p.denom())
                } else {
                    write!(
                        f,
                        "the servers' bandwidth {}/{} is not below the supply's {}/{} (a supply with a blackout needs some bandwidth spare)",
                        c.numer(),
                        c.denom(),
                        p.numer(),
                        p.denom()
                    )
                }
            }
            Misfit::Demand { t, demand, supply } => write!(
                f,
                "in a window of {t} ns the servers can demand {demand} ns but the supply guarantees only {}/{} ns",
                supply.numer(),
                supply.denom()
            ),
            Misfit::TooLong { horizon } => write!(
                f,
                "the EDF check would need more than {MAX_POINTS} steps (up to {horizon} ns): the servers' bandwidth is too close to the supply's"
            ),
        }
    }
}

/// The EDF demand of the servers in a window of length `t`.
pub fn demand(servers: &[Server], t: u64) -> u64 {
    servers.iter().map(|s| (t / s.period) * s.budget).sum()
}

/// Do the `servers`, scheduled by EDF inside `parent`, each receive their
/// budget in every period? When they do, each one's supply is
/// `Supply::Hcbs(server)`.
pub fn fits(parent: &Supply, servers: &[Server]) -> Result<(), Box<Misfit>> {
    let servers: Vec<Server> = servers.iter().copied().filter(|s| s.budget > 0).collect();
    if servers.is_empty() {
        return Ok(());
    }
    let u: BigRational = servers
        .iter()
        .map(|s| BigRational::new(BigInt::from(s.budget), BigInt::from(s.period)))
        .fold(BigRational::zero(), |a, b| a + b);
    let ad = parent.alpha_delta();
    let alpha = ad.alpha();
    if *parent == Supply::Full || (ad.delta == 0 && matches!(parent, Supply::Hcbs(_) | Supply::Linear(_))) {
        // A whole CPU (or a full-bandwidth server): Eq. 17.
        if u > alpha {
            return Err(Box::new(Misfit::Bandwidth { children: u, parent: alpha, whole: true }));
        }
        return Ok(());
    }
    if u >= alpha {
        return Err(Box::new(Misfit::Bandwidth { children: u, parent: alpha, whole: false }));
    }
    // Beyond t* = αΔ/(α − U): U·t ≤ α(t − Δ) ≤ Z(t).
    let t_star = &alpha * BigRational::from_integer(BigInt::from(ad.delta)) / (&alpha - &u);
    let horizon = t_star.ceil().to_integer().to_u64().unwrap_or(u64::MAX);
    let points: u64 = servers.iter().map(|s| horizon / s.period).sum();
    if points > MAX_POINTS {
        return Err(Box::new(Misfit::TooLong { horizon }));
    }
    let mut steps: Vec<u64> =
        servers.iter().flat_map(|s| (1..=horizon / s.period).map(move |k| k * s.period)).collect();
    steps.sort_unstable();
    steps.dedup();
    for t in steps {
        let d = demand(&servers, t);
        let z = parent.at(t);
        if BigRational::from_integer(BigInt::from(d)) > z {
            return Err(Box::new(Misfit::Demand { t, demand: d, supply: z }));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn srv(q: u64, p: u64) -> Server {
        Server::new(q, p).unwrap()
    }

    #[test]
    fn on_a_whole_cpu_it_is_eq17() {
        assert_eq!(fits(&Supply::Full, &[srv(1, 2), srv(1, 3), srv(1, 6)]), Ok(()));
        assert!(
            matches!(fits(&Supply::Full, &[srv(1, 2), srv(1, 3), srv(1, 5)]), Err(b) if matches!(*b, Misfit::Bandwidth { .. }))
        );
    }

    #[test]
    fn a_child_fits_a_parent_that_serves_it_in_time() {
        // Parent 6/10 (blackout 8, 6 by 14, flat until 18, 12 by 24, ...).
        let parent = Supply::Hcbs(srv(6, 10));
        // A child 2/20: demand 2 at 20 (Z(20) = 8), 4 at 40 (Z = 20): fits.
        assert_eq!(fits(&parent, &[srv(2, 20)]), Ok(()));
        // A child 3/10 has U = 0.3 < 0.6, but at t = 10 demands 3 while the
        // parent guarantees Z(10) = 2: it can miss in the parent's blackout.
        assert_eq!(parent.at(10), BigRational::from_integer(2.into()));
        assert_eq!(
            fits(&parent, &[srv(3, 10)]),
            Err(Box::new(Misfit::Demand { t: 10, demand: 3, supply: BigRational::from_integer(2.into()) }))
        );
        // Equal bandwidth on a partial supply never fits.
        assert!(matches!(fits(&parent, &[srv(6, 10)]), Err(b) if matches!(*b, Misfit::Bandwidth { .. })));
    }

    #[test]
    fn fitting_is_monotone_in_the_parents_budget() {
        let children = [srv(1, 20), srv(2, 30)];
        let mut fitted = false;
        for q in 0..=10 {
            let ok = fits(&Supply::Hcbs(srv(q, 10)), &children).is_ok();
            assert!(!fitted || ok, "fits at a smaller budget but not at {q}");
            fitted |= ok;
        }
        assert!(fitted);
    }
}
