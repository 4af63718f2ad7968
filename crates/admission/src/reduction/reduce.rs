//! REDUCE = DUAL ∘ PACK, from the tasks to the unit root servers.

use super::error::ReductionError;
use super::slack::distribute;
use super::tree::{one_minus, server_name, Children, Item, Server, Tree};
use crate::partition::{pack, pack_exact, Heuristic, PackErrorKind, PinnedCheck, Problem, Share};
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};
use schedlab_model::exact::Ratio;
use schedlab_model::{Packing, PolicyName, Slack, Spec};

/// The PACK rule when `policy.partitioning` is absent: worst-fit decreasing,
/// as in the RUN tools and the thesis.
pub const DEFAULT_RUN_PACKING: Packing = Packing::Wfd;

/// Reduces a spec's tasks on its CPUs with the spec's `policy.partitioning`
/// and `policy.slack` when the policy is `run`, the defaults (`wfd`,
/// `greedy`) otherwise. Refuses constrained or arbitrary deadlines.
pub fn reduce_spec(spec: &Spec) -> Result<Tree, ReductionError> {
    let run = spec.policy.as_ref().filter(|p| p.name == PolicyName::Run);
    let packing = run.and_then(|p| p.partitioning).unwrap_or(DEFAULT_RUN_PACKING);
    let slack = run.and_then(|p| p.slack).unwrap_or_default();
    let heuristic =
        Heuristic::from_packing(packing).map_err(|e| ReductionError::new("policy.partitioning", None, e.message))?;
    for (i, t) in spec.tasks.iter().enumerate() {
        if t.deadline() != t.period {
            return Err(ReductionError::new(
                format!("tasks[{i}].deadline"),
                Some(i),
                format!(
                    "`{}` has deadline {} ≠ period {}: RUN needs implicit deadlines (deadline = period); remove `deadline` or use another policy",
                    t.name,
                    t.deadline(),
                    t.period
                ),
            ));
        }
    }
    let tasks: Vec<(u64, u64)> = spec.tasks.iter().map(|t| (t.wcet.0, t.period.0)).collect();
    let mut tree = reduce(&tasks, spec.platform.cpus, heuristic, slack).map_err(|mut e| {
        if let Some(i) = e.task {
            e.message = e.message.replacen(&format!("tasks[{i}]"), &format!("tasks[{i}] `{}`", spec.tasks[i].name), 1);
        }
        e
    })?;
    tree.names = spec.tasks.iter().map(|t| t.name.clone()).collect();
    Ok(tree)
}

/// One entry of the list being reduced: an item with its rate.
#[derive(Debug, Clone)]
struct Entry {
    item: Item,
    rate: Ratio,
}

struct Builder {
    servers: Vec<Server>,
    roots: Vec<usize>,
    heuristic: Heuristic,
}

impl Builder {
    fn push(&mut self, level: u32, rate: Ratio, slack: Ratio, children: Children) -> usize {
        let id = self.servers.len();
        if let Children::Items(items) = &children {
            for it in items {
                self.servers[it.server].parent = Some(id);
            }
        }
        self.servers.push(Server { id, level, rate, slack, children, parent: None });
        id
    }
}

/// The complement of an item: the dual of a dual is the server itself.
fn complement(e: &Entry) -> Entry {
    Entry { item: Item { server: e.item.server, dual: !e.item.dual }, rate: one_minus(&e.rate) }
}

/// PACK with bin escalation, as the RUN tools code it: start with `bins`
/// bins and add one while an item does not fit. Returns the bins' members.
fn pack_escalating(sizes: &[Ratio], bins: usize, heuristic: Heuristic) -> Vec<Vec<usize>> {
    // Rates that fit in 64-bit fractions go through the partition module's
    // scaled-integer path (much faster than rationals); others stay exact.
    let shares: Option<Vec<Share>> =
        sizes.iter().map(|r| Some(Share::new(r.0.numer().to_u64()?, r.0.denom().to_u64()?))).collect();
    let mut k = bins.max(1);
    loop {
        let packed = match &shares {
            Some(sh) => pack(&Problem::uniform(sh.clone(), k), heuristic, PinnedCheck::Check),
            None => pack_exact(sizes, k, heuristic),
        };
        match packed {
            Ok(a) => return a.members().into_iter().filter(|m| !m.is_empty()).collect(),
            // Every size is at most 1, so one bin per item always fits.
            Err(e) if e.kind == PackErrorKind::NoFit && k < sizes.len() => k += 1,
            Err(e) => unreachable!("packing {} items of size ≤ 1 into {k} bins: {e}", sizes.len()),
        }
    }
}

fn ceil_int(r: &Ratio) -> usize {
    let (q, rem) = r.0.numer().div_rem(r.0.denom());
    let q = q.to_usize().unwrap_or(usize::MAX);
    if rem.is_zero() {
        q
    } else {
        q + 1
    }
}

/// Reduces tasks given as (wcet, period) in ns, implicit deadlines, on `cpus`
/// CPUs: PACK the tasks into level-0 servers with `heuristic` (bins:
/// min(n, m), escalated), give the spare capacity to the level-0 servers by
/// `slack`, then DUAL and PACK again (bins: the total rate, escalated) until
/// every server is a unit server. All arithmetic is exact.
///
/// - A unit server is the root of its subsystem and leaves the reduction
///   (its dual has rate 0 and would never run).
/// - A bin holding one item is not made a server: the item's complement
///   goes on to the next level (chains with branching 1 are collapsed).
/// - Should a PACK leave every item alone in its bin (no progress; possible
///   for some rules after escalation), the step is repacked with first-fit
///   decreasing, and if that cannot pair anything either (every two items
///   then sum above 1), the two smallest items' servers are merged into one
///   server (their primal rates sum below 1), whose dual replaces them.
///
/// Errors: no CPU, a zero period, a utilisation above 1, a total above `cpus`.
pub fn reduce(tasks: &[(u64, u64)], cpus: u32, heuristic: Heuristic, slack: Slack) -> Result<Tree, ReductionError> {
    if cpus == 0 {
        return Err(ReductionError::new("platform.cpus", None, "must be at least 1"));
    }
    for (i, &(c, p)) in tasks.iter().enumerate() {
        if p == 0 {
            return Err(ReductionError::new(
                format!("tasks[{i}].period"),
                Some(i),
                format!("tasks[{i}] has period 0; give a positive period"),
            ));
        }
        if c > p {
            return Err(ReductionError::new(
                format!("tasks[{i}].wcet"),
                Some(i),
                format!("tasks[{i}] has utilisation {c}/{p} above 1: no CPU can run it; lower its wcet to at most its period"),
            ));
        }
    }
    let rates: Vec<Ratio> = tasks.iter().map(|&(c, p)| Ratio::new(c as u128, p as u128)).collect();
    let utilisation = Ratio::sum(tasks.iter().map(|&(c, p)| (c as u128, p as u128)));
    if utilisation.gt_int(cpus as u128) {
        return Err(ReductionError::new(
            "tasks",
            None,
            format!(
                "total utilisation {} ({:.6}) exceeds the {cpus} CPUs: no schedule exists; remove tasks, lower WCETs or add CPUs",
                utilisation.to_fraction(),
                utilisation.to_f64()
            ),
        ));
    }
    let mut b = Builder { servers: Vec::new(), roots: Vec::new(), heuristic };
    let n = tasks.len();
    let mut task_server = vec![usize::MAX; n];

    // Level 0: PACK the tasks, as if there were min(n, m) CPUs.
    let bins0 = if n == 0 { Vec::new() } else { pack_escalating(&rates, n.min(cpus as usize), heuristic) };
    let loads: Vec<Ratio> =
        bins0.iter().map(|m| m.iter().fold(Ratio::zero(), |acc, &t| Ratio(&acc.0 + &rates[t].0))).collect();
    let used = bins0.len().min(cpus as usize);
    let spare = Ratio(Ratio::new(used as u128, 1).0 - &utilisation.0);
    let shares = distribute(&loads, &spare, slack);
    let mut entries = Vec::new();
    for ((members, load), share) in bins0.into_iter().zip(loads).zip(shares) {
        let rate = Ratio(&load.0 + &share.0);
        for &t in &members {
            task_server[t] = b.servers.len();
        }
        let id = b.push(0, rate.clone(), share, Children::Tasks(members));
        if b.servers[id].is_unit() {
            b.roots.push(id);
        } else {
            entries.push(Entry { item: Item { server: id, dual: true }, rate: one_minus(&rate) });
        }
    }

    reduce_levels(&mut b, entries);

    let levels = b.roots.iter().map(|&r| b.servers[r].level).max().unwrap_or(0);
    debug_assert!(b.roots.iter().all(|&r| b.servers[r].is_unit()));
    Ok(Tree {
        cpus,
        used_cpus: used as u32,
        heuristic,
        slack_policy: slack,
        tasks: tasks.to_vec(),
        names: Vec::new(),
        utilisation,
        slack: spare,
        servers: b.servers,
        roots: b.roots,
        levels,
        task_server,
    })
}

/// DUAL and PACK, level after level, until nothing is left to reduce.
fn reduce_levels(b: &mut Builder, mut entries: Vec<Entry>) {
    let mut level = 1u32;
    while !entries.is_empty() {
        let total = entries.iter().fold(Ratio::zero(), |acc, e| Ratio(&acc.0 + &e.rate.0));
        debug_assert!(
            total.0.is_integer() && total.0 >= num_rational::BigRational::one(),
            "the items' total rate is a positive integer: {}",
            total.to_fraction()
        );
        let sizes: Vec<Ratio> = entries.iter().map(|e| e.rate.clone()).collect();
        let mut bins = pack_escalating(&sizes, ceil_int(&total), b.heuristic);
        if bins.len() == entries.len() && entries.len() > 1 {
            bins = pack_escalating(&sizes, ceil_int(&total), Heuristic::FFD);
            if bins.len() == entries.len() {
                // No two items fit together: merge the servers of the two
                // smallest (their primal rates sum below 1).
                let mut order: Vec<usize> = (0..entries.len()).collect();
                order.sort_by(|&x, &y| entries[x].rate.cmp(&entries[y].rate).then(x.cmp(&y)));
                let (x, y) = (order[0].min(order[1]), order[0].max(order[1]));
                let (cx, cy) = (complement(&entries[x]), complement(&entries[y]));
                let rate = Ratio(&cx.rate.0 + &cy.rate.0);
                let merged_level = [cx.item, cy.item].iter().map(|i| b.servers[i.server].level).max().unwrap_or(0);
                let id = b.push(merged_level, rate.clone(), Ratio::zero(), Children::Items(vec![cx.item, cy.item]));
                entries.remove(y);
                entries[x] = Entry { item: Item { server: id, dual: true }, rate: one_minus(&rate) };
                continue;
            }
        }
        let mut next = Vec::with_capacity(bins.len());
        for members in bins {
            if let [only] = members[..] {
                next.push(complement(&entries[only]));
                continue;
            }
            let items: Vec<Item> = members.iter().map(|&i| entries[i].item).collect();
            let rate = members.iter().fold(Ratio::zero(), |acc, &i| Ratio(&acc.0 + &entries[i].rate.0));
            let id = b.push(level, rate.clone(), Ratio::zero(), Children::Items(items));
            if b.servers[id].is_unit() {
                b.roots.push(id);
            } else {
                next.push(Entry { item: Item { server: id, dual: true }, rate: one_minus(&rate) });
            }
        }
        entries = next;
        level += 1;
    }
}

impl Tree {
    /// A one-line description, e.g. `2 levels, root S8, 8 servers`.
    pub fn describe(&self) -> String {
        let roots: Vec<String> = self.roots.iter().map(|&r| server_name(r)).collect();
        format!(
            "{} level{}, root{} {}, {} server{}",
            self.levels,
            if self.levels == 1 { "" } else { "s" },
            if roots.len() == 1 { "" } else { "s" },
            roots.join(", "),
            self.servers.len(),
            if self.servers.len() == 1 { "" } else { "s" }
        )
    }
}

/// Hooks for tests that start the reduction from given level-0 rates.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    pub struct B(super::Builder);
    pub struct E(Vec<super::Entry>);

    pub fn builder(heuristic: Heuristic) -> B {
        B(Builder { servers: Vec::new(), roots: Vec::new(), heuristic })
    }
    /// Level-0 servers (without tasks) of the given rates, none a unit server.
    pub fn level0(b: &mut B, rates: &[Ratio]) -> E {
        E(rates
            .iter()
            .map(|r| {
                let id = b.0.push(0, r.clone(), Ratio::zero(), Children::Tasks(Vec::new()));
                Entry { item: Item { server: id, dual: true }, rate: one_minus(r) }
            })
            .collect())
    }
    pub fn run(b: &mut B, entries: E) {
        reduce_levels(&mut b.0, entries.0);
    }
    pub fn finish(b: B) -> (Vec<Server>, Vec<usize>) {
        (b.0.servers, b.0.roots)
    }
}
