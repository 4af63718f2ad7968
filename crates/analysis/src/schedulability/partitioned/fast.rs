//! The verdict of a partitioned test without its explanation (batches):
//! the same packing as [`super::analyze`] — same heuristics in the same
//! order, same task order, same capacity test on the same sizes, the same
//! admission predicate ([`Fit`]) — on task indices and integers, with no
//! sub-input copies, names, per-CPU outcomes or strings.
//!
//! - Test-driven packing: a packing that succeeds is schedulable by
//!   construction (every admission ran the CPU's test on the CPU's tasks
//!   with the newcomer), which is what the explained path's per-CPU
//!   re-check finds; sizes are the packer's own (utilisation or density
//!   rounded down to multiples of 2⁻⁶²), sums in u128.
//! - Capacity then test (`pfp.util-rta`): exact utilisations. The packer's
//!   comparisons (size order, Σ ≤ 1, rooms for best / worst fit) are made
//!   exactly without its big rationals: fractions by 128-bit cross
//!   products, sums by 64.64 fixed-point intervals (the rational sum only
//!   when an interval straddles the bound); then [`Fit::holds`] per CPU.
//!
//! Inputs with pinned tasks take the explained path (its verdict).

use super::super::gedf::exact::cmp_sum;
use super::super::gedf::model::cmp_util;
use super::super::input::Input;
use super::super::outcome::Verdict;
use super::super::uni::load::{cmp_one, fixed, ONE};
use super::super::uni::order::ranks;
use super::admission::{Admission, Family, Fit};
use super::{alone_fails, analyze, heuristics, Driver};
use schedlab_admission::partition::{Heuristic, Metric, Pin, Rule, Target};
use std::cmp::Ordering;

/// `analyze(id, input, admission, driver, metric).verdict`, fast.
pub fn decide(id: &'static str, input: &Input, admission: Admission, driver: Driver, metric: Metric) -> Verdict {
    let m = input.cpus as usize;
    let n = input.tasks.len();
    let pinned = (0..n).any(|i| input.pin(i, Target::Cpus) != Pin::Free);
    if pinned || input.colour.is_some() || (driver == Driver::CapacityThenTest && admission != Admission::FpRta) {
        return analyze(id, input, admission, driver, metric).verdict;
    }
    if m == 0 || input.tasks.iter().any(|t| t.period == 0) || admission.model(input).is_err() {
        return Verdict::NotApplicable;
    }
    let ranks = match admission.family() {
        Family::Edf => Vec::new(),
        _ => match ranks(input) {
            Ok(r) => r,
            Err(_) => return Verdict::NotApplicable,
        },
    };
    // Exact sizes num/den, as the explained path's.
    let exact: Vec<(u64, u64)> = input
        .tasks
        .iter()
        .map(|t| match metric {
            Metric::Utilization => (t.wcet, t.period),
            Metric::Density => (t.wcet, super::super::uni::edf_density::window(t).max(1)),
        })
        .collect();
    let fit = Fit::new(input, admission, ranks);
    let mut s = Scratch::new(n, m);
    // Rounded-down sizes in units of 2⁻⁶², as the packer sees them.
    let sizes: Vec<u128> = match driver {
        Driver::TestDriven => exact
            .iter()
            .map(|&(a, b)| u64::try_from(((a as u128) << 62) / b as u128).unwrap_or(u64::MAX) as u128)
            .collect(),
        Driver::CapacityThenTest => Vec::new(),
    };
    for h in heuristics(input) {
        let ok = match driver {
            Driver::TestDriven => pack(&mut s, &Integer { sizes: &sizes, unit: 1 << 62 }, h, |mem, t| fit.fits(mem, t)),
            Driver::CapacityThenTest => {
                let q = Exact::new(&exact);
                pack(&mut s, &q, h, |_, _| true) && s.members.iter().all(|mem| fit.holds(mem))
            }
        };
        if ok {
            return Verdict::Schedulable;
        }
    }
    if cmp_util(&input.tasks, input.cpus) == Ordering::Greater || alone_fails(input, admission, &fit).is_some() {
        Verdict::Unschedulable
    } else {
        Verdict::Inconclusive
    }
}

/// Per-bin state reused across heuristics (one `Scratch` packs one set of
/// sizes, whatever the heuristic).
struct Scratch {
    n: usize,
    members: Vec<Vec<usize>>,
    /// Each bin's [`Sizes::bounds`] summed (saturating), kept as tasks join.
    loads: Vec<(u128, u128)>,
    order: Vec<usize>,
    /// `order` holds the decreasing-size order (sorted by an earlier
    /// decreasing heuristic: FFD, BFD and WFD share it).
    decreasing: bool,
}

impl Scratch {
    fn new(n: usize, m: usize) -> Scratch {
        Scratch {
            n,
            members: vec![Vec::with_capacity(n); m],
            loads: vec![(0, 0); m],
            order: Vec::with_capacity(n),
            decreasing: false,
        }
    }
}

/// The packer's exact arithmetic on sizes, as the operations it needs.
trait Sizes {
    /// sizes[a] vs sizes[b].
    fn cmp_size(&self, a: usize, b: usize) -> Ordering;
    /// Bounds on task t's size kept summed per bin (`load` below).
    fn bounds(&self, t: usize) -> (u128, u128);
    /// Whether task t fits a bin holding `members`, whose bounds sum to `load`.
    fn fits(&self, members: &[usize], load: (u128, u128), t: usize) -> bool;
    /// load(a) vs load(b) for two bins' members and their summed bounds
    /// (rooms compare the other way).
    fn cmp_load(&self, a: &[usize], la: (u128, u128), b: &[usize], lb: (u128, u128)) -> Ordering;
}

/// Common-denominator integer sizes (the test-driven packing's).
struct Integer<'a> {
    sizes: &'a [u128],
    unit: u128,
}

impl Integer<'_> {
    fn load(&self, members: &[usize]) -> u128 {
        members.iter().map(|&i| self.sizes[i]).sum()
    }
}

impl Sizes for Integer<'_> {
    fn cmp_size(&self, a: usize, b: usize) -> Ordering {
        self.sizes[a].cmp(&self.sizes[b])
    }
    fn bounds(&self, _: usize) -> (u128, u128) {
        (0, 0)
    }
    fn fits(&self, members: &[usize], _: (u128, u128), t: usize) -> bool {
        self.sizes[t] <= self.unit && self.load(members) + self.sizes[t] <= self.unit
    }
    fn cmp_load(&self, a: &[usize], _: (u128, u128), b: &[usize], _: (u128, u128)) -> Ordering {
        self.load(a).cmp(&self.load(b))
    }
}

/// Exact fractions num/den with unrelated denominators, packed into bins
/// of one capacity (1: CPUs; k: clusters of k CPUs).
struct Exact<'a> {
    parts: &'a [(u64, u64)],
    /// ⌊size·2⁶⁴⌋ and ⌈size·2⁶⁴⌉ per task.
    fixed: Vec<(u128, u128)>,
    cap: u32,
}

impl<'a> Exact<'a> {
    fn new(parts: &'a [(u64, u64)]) -> Exact<'a> {
        Exact::with_capacity(parts, 1)
    }
    fn with_capacity(parts: &'a [(u64, u64)], cap: u32) -> Exact<'a> {
        let fixed = parts
            .iter()
            .map(|&(a, b)| {
                let (q, r) = fixed(a, b);
                (q, q + r as u128)
            })
            .collect();
        Exact { parts, fixed, cap }
    }
}

impl Sizes for Exact<'_> {
    fn cmp_size(&self, a: usize, b: usize) -> Ordering {
        let ((na, da), (nb, db)) = (self.parts[a], self.parts[b]);
        (na as u128 * db as u128).cmp(&(nb as u128 * da as u128))
    }
    /// ⌊size·2⁶⁴⌋ and ⌈size·2⁶⁴⌉: a bin's sums bound its load (sums of
    /// non-negative terms saturate alike in any order).
    fn bounds(&self, t: usize) -> (u128, u128) {
        self.fixed[t]
    }
    fn fits(&self, members: &[usize], load: (u128, u128), t: usize) -> bool {
        let (num, den) = self.parts[t];
        if num > den {
            return false;
        }
        let lo = self.fixed[t].0.saturating_add(load.0);
        let hi = self.fixed[t].1.saturating_add(load.1);
        let cap = self.cap as u128 * ONE;
        if hi <= cap {
            true
        } else if lo > cap {
            false
        } else if self.cap == 1 {
            cmp_one(members.iter().chain([&t]).map(|&i| self.parts[i])) != Ordering::Greater
        } else {
            let term = |k: usize| {
                let (x, y) = self.parts[if k < members.len() { members[k] } else { t }];
                (x as i128, y as u128)
            };
            cmp_sum(members.len() + 1, term, (self.cap as i128, 1)) != Ordering::Greater
        }
    }
    fn cmp_load(&self, a: &[usize], la: (u128, u128), b: &[usize], lb: (u128, u128)) -> Ordering {
        // The fixed-point intervals first (each load lies in [lo, hi]·2⁻⁶⁴);
        // the exact sum only when they overlap.
        let ((lo_a, hi_a), (lo_b, hi_b)) = (la, lb);
        if hi_a < lo_b {
            return Ordering::Less;
        }
        if lo_a > hi_b {
            return Ordering::Greater;
        }
        let term = |k: usize| {
            if k < a.len() {
                let (x, y) = self.parts[a[k]];
                (x as i128, y as u128)
            } else {
                let (x, y) = self.parts[b[k - a.len()]];
                (-(x as i128), y as u128)
            }
        };
        cmp_sum(a.len() + b.len(), term, (0, 1))
    }
}

/// Clusters of `cap` CPUs each, packed by exact utilisation alone (the
/// clustered tests' `capacity` fit), as
/// [`schedlab_admission::partition::pack_with`] packs them without pins:
/// the members of each cluster (in task order), or `None` when a task fits
/// no cluster. With bins of equal capacity, comparing rooms (best and
/// worst fit) is comparing loads, which [`Exact`] does without big
/// rationals.
pub(crate) struct EqualBins<'a> {
    s: Scratch,
    q: Exact<'a>,
}

impl<'a> EqualBins<'a> {
    pub(crate) fn new(parts: &'a [(u64, u64)], bins: usize, cap: u32) -> EqualBins<'a> {
        EqualBins { s: Scratch::new(parts.len(), bins), q: Exact::with_capacity(parts, cap) }
    }
    pub(crate) fn pack(&mut self, h: Heuristic) -> Option<&[Vec<usize>]> {
        pack(&mut self.s, &self.q, h, |_, _| true).then_some(&self.s.members[..])
    }
}

/// The packer's loop ([`schedlab_admission::partition::pack_with`] without pins):
/// whether every task found a bin; `s.members` holds the bins.
fn pack(s: &mut Scratch, sizes: &impl Sizes, h: Heuristic, admit: impl Fn(&[usize], usize) -> bool) -> bool {
    let m = s.members.len();
    let n = s.n;
    for b in &mut s.members {
        b.clear();
    }
    s.loads.fill((0, 0));
    if !(h.decreasing && s.decreasing) {
        s.order.clear();
        s.order.extend(0..n);
        if h.decreasing {
            // Largest first, ties by index: a total order, so an unstable
            // sort gives the stable sort's order; sorted once per set of sizes.
            s.order.sort_unstable_by(|&a, &b| sizes.cmp_size(b, a).then(a.cmp(&b)));
        }
        s.decreasing = h.decreasing;
    }
    let mut current = 0usize;
    for k in 0..s.order.len() {
        let t = s.order[k];
        let (members, loads) = (&s.members, &s.loads);
        let fits = |b: usize| sizes.fits(&members[b], loads[b], t) && admit(&members[b], t);
        let chosen = match h.rule {
            Rule::FirstFit => (0..m).find(|&b| fits(b)),
            Rule::NextFit => {
                let b = (current..m).find(|&b| fits(b));
                if let Some(b) = b {
                    current = b;
                }
                b
            }
            Rule::BestFit | Rule::WorstFit => {
                // Room = 1 − load − size: best fit takes the largest load,
                // worst fit the smallest; ties the lower bin.
                let mut best: Option<usize> = None;
                for b in (0..m).filter(|&b| fits(b)) {
                    let better = match best {
                        None => true,
                        Some(c) => {
                            let o = sizes.cmp_load(&members[b], loads[b], &members[c], loads[c]);
                            if h.rule == Rule::BestFit {
                                o == Ordering::Greater
                            } else {
                                o == Ordering::Less
                            }
                        }
                    };
                    if better {
                        best = Some(b);
                    }
                }
                best
            }
        };
        let Some(b) = chosen else {
            return false;
        };
        let bin = &mut s.members[b];
        let at = bin.binary_search(&t).unwrap_or_else(|e| e);
        bin.insert(at, t);
        let (lo, hi) = sizes.bounds(t);
        s.loads[b] = (s.loads[b].0.saturating_add(lo), s.loads[b].1.saturating_add(hi));
    }
    true
}
