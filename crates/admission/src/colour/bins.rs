//! The CPUs while groups are being placed, and the choice of a CPU for a
//! group by a bin-packing rule (first, best, worst or next fit, ties to the
//! lower CPU) among the CPUs allowed and where the group fits.

use super::fit::{fits, room};
use super::problem::ColourProblem;
use crate::partition::Rule;

pub(crate) struct Cpus {
    /// The tasks of each CPU, in the order they were placed.
    pub placed: Vec<Vec<usize>>,
    /// Next fit's open CPU.
    current: usize,
}

impl Cpus {
    pub fn new(m: usize) -> Cpus {
        Cpus { placed: vec![Vec::new(); m], current: 0 }
    }

    fn with(&self, c: usize, group: &[usize]) -> Vec<usize> {
        let mut all = self.placed[c].clone();
        all.extend_from_slice(group);
        all
    }

    /// The CPU `rule` picks for `group` among `allowed`, if it fits one.
    pub fn choose(
        &mut self,
        p: &ColourProblem,
        rule: Rule,
        group: &[usize],
        allowed: &dyn Fn(usize) -> bool,
    ) -> Option<usize> {
        let m = self.placed.len();
        let ok = |c: usize| allowed(c) && fits(p, &self.with(c, group));
        let chosen = match rule {
            Rule::FirstFit => (0..m).find(|&c| ok(c)),
            Rule::NextFit => (self.current..m).find(|&c| ok(c)),
            Rule::BestFit | Rule::WorstFit => {
                let mut best: Option<(usize, num_rational::BigRational)> = None;
                for c in (0..m).filter(|&c| ok(c)) {
                    let r = room(p, &self.with(c, group));
                    let better = match &best {
                        None => true,
                        Some((_, b)) => {
                            if rule == Rule::BestFit {
                                r < *b
                            } else {
                                r > *b
                            }
                        }
                    };
                    if better {
                        best = Some((c, r));
                    }
                }
                best.map(|(c, _)| c)
            }
        };
        if let Some(c) = chosen {
            if rule == Rule::NextFit {
                self.current = c;
            }
            self.placed[c].extend_from_slice(group);
        }
        chosen
    }

    pub fn loads_text(&self, p: &ColourProblem) -> String {
        let v: Vec<String> = self
            .placed
            .iter()
            .enumerate()
            .map(|(c, ts)| format!("CPU {c}: {}", super::fit::shown(&super::fit::load(p, ts.iter().copied()))))
            .collect();
        v.join(", ")
    }
}
