//! What colour-aware partitioning reads: per task its utilisation, class,
//! colours and memory; the CPUs, the colours and the memory of the platform;
//! the options.

use crate::partition::Heuristic;
use num_bigint::BigInt;
use num_rational::BigRational;
use schedlab_model::{Capacity, Class, ColorSet};

/// CAP (Ch.7) or CAP-GS (Ch.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    Cap,
    CapGs,
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Cap => "cap",
            Scheme::CapGs => "cap-gs",
        }
    }
}

/// One task as CAP sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColourTask {
    pub name: String,
    /// wcet / period.
    pub wcet: u64,
    pub period: u64,
    pub class: Class,
    /// NC_i.
    pub colors: ColorSet,
    /// M_req^i in bytes (the task's `wss`), when known.
    pub memory: Option<u64>,
}

impl ColourTask {
    /// The utilisation CAP packs: wcet/period, 0 for a BE task (Def. 8.1.1).
    pub fn weight(&self) -> BigRational {
        if self.class == Class::Be {
            BigRational::from_integer(BigInt::from(0))
        } else {
            BigRational::new(BigInt::from(self.wcet), BigInt::from(self.period))
        }
    }
    /// Whether it counts in Liu & Layland's n (HRT or SRT).
    pub fn real_time(&self) -> bool {
        self.class != Class::Be
    }
}

/// A colour-aware partitioning problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColourProblem {
    pub scheme: Scheme,
    pub tasks: Vec<ColourTask>,
    pub cpus: usize,
    /// N_c, the number of colours.
    pub colours: u64,
    /// M_total in bytes; `None`: the memory constraints are not checked.
    pub memory_total: Option<u64>,
    pub capacity: Capacity,
    /// CAP: the heuristic over the groups (CAP WFD by default).
    pub group_packing: Heuristic,
    /// CAP-GS: SRT and BE groups may go to CPUs holding HRT tasks.
    pub srt_on_hrt_cores: bool,
}

impl ColourProblem {
    pub(crate) fn label(&self, t: usize) -> String {
        format!("tasks[{t}] `{}`", self.tasks[t].name)
    }
    pub(crate) fn names(&self, ts: &[usize]) -> String {
        let names: Vec<&str> = ts.iter().map(|&t| self.tasks[t].name.as_str()).collect();
        format!("{{{}}}", names.join(", "))
    }
}
