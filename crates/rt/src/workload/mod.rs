//! Workloads: what a job does. Chosen per task (`--workload [TASK=]KIND`);
//! the default is `spin`.
//!
//! | kind | what |
//! |---|---|
//! | `spin` | the calibrated CPU loop, for the job's execution time |
//! | `spin-cpu` | spin until the thread CPU clock advanced by the execution time |
//! | `memwalk[:seq\|random\|strided[:BYTES]]` | walk the task's `wss`, every cache line per pass (in the task's `colors`: [`crate::colour`]) |
//! | `prem` | PREM phases on real memory: prefetches copy the task's Section into a private buffer, write-backs copy it back, executions compute on it ([`prem`]) |
//! | `c:LIB:SYMBOL[:ARG]` | a C-ABI function from a shared library ([`dynlib`]) |
//! | `cmd:PROGRAM ARGS...` | an external command (needs `--allow-command`) |
//! | Rust | any [`JobBody`] through the library API ([`WorkloadSpec::Rust`]) |

pub mod activity;
pub mod command;
pub mod dynlib;
pub mod memwalk;
pub mod pages;
pub mod prem;
pub mod spin;

use crate::job::{JobCtx, JobError};
use std::sync::Arc;

/// A job body: called once per job, on the task's thread.
pub trait JobBody: Send {
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError>;
    /// The task's part of a policy's own activity ([`activity`]), shared
    /// with the thread that runs it; default none.
    fn activity_work(&self) -> Option<Arc<dyn activity::ActivityWork>> {
        None
    }
}

impl<F> JobBody for F
where
    F: FnMut(&mut JobCtx) -> Result<(), JobError> + Send,
{
    fn run(&mut self, ctx: &mut JobCtx) -> Result<(), JobError> {
        self(ctx)
    }
}

/// Makes a task's Rust job body (called once per task, before the run).
pub type RustFactory = Arc<dyn Fn(u32) -> Box<dyn JobBody> + Send + Sync>;

/// A workload as configured.
#[derive(Clone)]
pub enum WorkloadSpec {
    Spin,
    SpinCpu,
    MemWalk(memwalk::Pattern),
    Prem,
    CFunction { library: String, symbol: String, arg: Option<String> },
    Command { argv: Vec<String> },
    Rust { name: String, make: RustFactory },
}

impl std::fmt::Debug for WorkloadSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.describe())
    }
}

impl WorkloadSpec {
    pub fn describe(&self) -> String {
        match self {
            WorkloadSpec::Spin => "spin".into(),
            WorkloadSpec::SpinCpu => "spin-cpu".into(),
            WorkloadSpec::MemWalk(memwalk::Pattern::Sequential) => "memwalk:seq".into(),
            WorkloadSpec::MemWalk(memwalk::Pattern::Random) => "memwalk:random".into(),
            WorkloadSpec::MemWalk(memwalk::Pattern::Strided { stride }) => format!("memwalk:strided:{stride}"),
            WorkloadSpec::Prem => "prem".into(),
            WorkloadSpec::CFunction { library, symbol, .. } => format!("c:{library}:{symbol}"),
            WorkloadSpec::Command { argv } => format!("cmd:{}", argv.join(" ")),
            WorkloadSpec::Rust { name, .. } => format!("rust:{name}"),
        }
    }
    /// A Rust job body built per task.
    pub fn rust(
        name: impl Into<String>,
        make: impl Fn(u32) -> Box<dyn JobBody> + Send + Sync + 'static,
    ) -> WorkloadSpec {
        WorkloadSpec::Rust { name: name.into(), make: Arc::new(make) }
    }
}

impl std::str::FromStr for WorkloadSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<WorkloadSpec, String> {
        let (kind, rest) = s.split_once(':').map_or((s, None), |(a, b)| (a, Some(b)));
        match (kind, rest) {
            ("spin", None) => Ok(WorkloadSpec::Spin),
            ("spin-cpu", None) => Ok(WorkloadSpec::SpinCpu),
            ("prem", None) => Ok(WorkloadSpec::Prem),
            ("memwalk", None) | ("memwalk", Some("seq")) => Ok(WorkloadSpec::MemWalk(memwalk::Pattern::Sequential)),
            ("memwalk", Some("random")) => Ok(WorkloadSpec::MemWalk(memwalk::Pattern::Random)),
            ("memwalk", Some(p)) if p == "strided" || p.starts_with("strided:") => {
                let stride = match p.strip_prefix("strided:") {
                    None => 4096,
                    Some(b) => b.parse::<schedlab_model::Size>().map_err(|e| format!("memwalk stride `{b}`: {e}"))?.0,
                };
                if stride == 0 {
                    return Err("memwalk stride must be positive".into());
                }
                Ok(WorkloadSpec::MemWalk(memwalk::Pattern::Strided { stride }))
            }
            ("c", Some(r)) => {
                let mut it = r.splitn(3, ':');
                let (lib, sym, arg) = (it.next().unwrap_or(""), it.next().unwrap_or(""), it.next());
                if lib.is_empty() || sym.is_empty() {
                    return Err(format!("`{s}`: expected c:LIBRARY:SYMBOL[:ARG]"));
                }
                Ok(WorkloadSpec::CFunction { library: lib.into(), symbol: sym.into(), arg: arg.map(String::from) })
            }
            ("cmd", Some(r)) => {
                let argv: Vec<String> = r.split_whitespace().map(String::from).collect();
                if argv.is_empty() {
                    return Err("cmd: needs a program".into());
                }
                Ok(WorkloadSpec::Command { argv })
            }
            _ => Err(format!("unknown workload `{s}`; expected spin, spin-cpu, memwalk[:seq|random|strided[:BYTES]], prem, c:LIB:SYMBOL[:ARG] or cmd:PROGRAM ARGS")),
        }
    }
}
