//! Experiments from Python (`schedlab.sweep`, `schedlab.generate_many`): an
//! [`Experiment`] object holds a planned sweep; its chunks run here on all
//! cores (`sweep`) or one at a time (`run_chunk`, what a Ray task calls), and
//! chunk results (bytes) become columns or a results file in chunk order, so
//! local and Ray sweeps give the same rows.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use schedlab_experiment::sweep::{self, Output, Plan, Sweep};
use schedlab_experiment::table::{Data, Table};
use std::path::PathBuf;

fn spec_error(e: schedlab_model::SpecError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A planned experiment.
#[pyclass(module = "schedlab._native", frozen)]
pub struct Experiment {
    plan: Plan,
}

/// The columns of a table as (name, kind, bytes, categories) tuples:
/// kind `i8` (int64), `u8` (uint64), `f8` (float64) or `cat` (uint32 codes).
fn columns<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for c in &t.columns {
        let (kind, bytes, cats): (&str, Vec<u8>, Vec<String>) = match &c.data {
            Data::I64(v) => ("i8", v.iter().flat_map(|x| x.to_le_bytes()).collect(), vec![]),
            Data::U64(v) => ("u8", v.iter().flat_map(|x| x.to_le_bytes()).collect(), vec![]),
            Data::F64(v) => ("f8", v.iter().flat_map(|x| x.to_le_bytes()).collect(), vec![]),
            Data::Str(v, d) => ("cat", v.iter().flat_map(|x| x.to_le_bytes()).collect(), d.clone()),
        };
        out.append((c.name.clone(), kind, PyBytes::new(py, &bytes), cats))?;
    }
    Ok(out)
}

#[pymethods]
impl Experiment {
    /// Experiment(path=None, text=None, base=".", samples=None)
    #[new]
    #[pyo3(signature = (path=None, text=None, base=None, samples=None))]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        text: Option<String>,
        base: Option<PathBuf>,
        samples: Option<u32>,
    ) -> PyResult<Experiment> {
        let mut loaded = match (path, text) {
            (Some(p), None) => py.detach(|| schedlab_experiment::load_path(&p)).map_err(spec_error)?,
            (None, Some(t)) => {
                let base = base.unwrap_or_else(|| PathBuf::from("."));
                schedlab_experiment::load_str(&t, None, "<experiment>", &base).map_err(spec_error)?
            }
            _ => return Err(PyValueError::new_err("give the experiment as a path or as text")),
        };
        if let Some(n) = samples {
            if n == 0 {
                return Err(PyValueError::new_err("samples: must be at least 1"));
            }
            loaded.experiment.samples = n;
        }
        let plan = Plan::new(loaded).map_err(PyValueError::new_err)?;
        Ok(Experiment { plan })
    }

    /// Number of chunks (the unit of work and of Ray tasks).
    fn chunks(&self) -> usize {
        self.plan.chunks.len()
    }

    /// Sizes: points, sets, evaluations, rows, chunks.
    fn size(&self) -> (usize, u64, usize, u64, usize) {
        let p = &self.plan;
        (p.grid.points.len(), p.sets(), p.evaluator.evaluations.len(), p.rows(), p.chunks.len())
    }

    /// The sets in each chunk.
    fn chunk_sets(&self) -> Vec<u32> {
        self.plan.chunks.iter().map(|c| c.to - c.from).collect()
    }

    /// The experiment file's text.
    fn text(&self) -> String {
        self.plan.loaded.text.clone()
    }

    /// The folder relative paths start from (absolute).
    fn base(&self) -> PathBuf {
        std::path::absolute(&self.plan.loaded.base).unwrap_or_else(|_| self.plan.loaded.base.clone())
    }

    /// Samples per point (after any override).
    fn samples(&self) -> u32 {
        self.plan.loaded.experiment.samples
    }

    /// Runs one chunk; its results as bytes (for `assemble` / `write`).
    fn run_chunk<'py>(&self, py: Python<'py>, id: usize) -> PyResult<Bound<'py, PyBytes>> {
        if id >= self.plan.chunks.len() {
            return Err(PyValueError::new_err(format!("chunk {id}: the experiment has {}", self.plan.chunks.len())));
        }
        let bytes = py
            .detach(|| {
                let mut scratch = schedlab_experiment::evaluate::Scratch::default();
                self.plan.run_chunk(id, &mut scratch).map(|r| sweep::encode(&r))
            })
            .map_err(PyRuntimeError::new_err)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The columns of every chunk's results (a list of bytes, in chunk order).
    fn assemble<'py>(&self, py: Python<'py>, results: Vec<Vec<u8>>) -> PyResult<Bound<'py, PyList>> {
        let t = self.table_of(&results)?;
        columns(py, &t)
    }

    /// Writes chunk results (in chunk order) to a `.parquet` or `.csv` file, atomically.
    fn write(&self, py: Python<'_>, results: Vec<Vec<u8>>, path: PathBuf) -> PyResult<()> {
        py.detach(|| sweep::write_chunks(&self.plan, &results, &path)).map_err(PyRuntimeError::new_err)
    }

    /// Runs the whole sweep on `threads` workers (None: every core) and returns
    /// the columns; `progress(done, total)` is called as chunks finish. With
    /// `output`, writes that file instead (resumable) and returns an empty list.
    #[pyo3(signature = (threads=None, progress=None, output=None))]
    fn sweep<'py>(
        &self,
        py: Python<'py>,
        threads: Option<usize>,
        progress: Option<Py<PyAny>>,
        output: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyList>> {
        let result = py.detach(|| {
            let mut cb = |done: u64, total: u64| {
                if let Some(p) = &progress {
                    Python::attach(|py| {
                        let _ = p.call1(py, (done, total));
                    });
                }
            };
            let out = match &output {
                Some(p) => Output::File(p),
                None => Output::Memory,
            };
            sweep::run(&self.plan, out, Sweep { threads, progress: Some(&mut cb), stop_after: None })
        });
        let (t, _) = result.map_err(PyRuntimeError::new_err)?;
        columns(py, &t)
    }
}

impl Experiment {
    fn table_of(&self, results: &[Vec<u8>]) -> PyResult<Table> {
        if results.len() != self.plan.chunks.len() {
            return Err(PyValueError::new_err(format!(
                "{} chunk results for {} chunks",
                results.len(),
                self.plan.chunks.len()
            )));
        }
        let mut t = self.plan.table();
        for r in results {
            t.extend(&sweep::decode(r).map_err(PyValueError::new_err)?);
        }
        Ok(t)
    }
}

/// Four byte buffers (the numpy arrays `generate_many` builds in Python).
type Buffers<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

/// generate_many(options_json, count, seed, threads) -> (tasks bytes, offsets bytes, wss bytes, utilization bytes)
///
/// `count` sets of the generator options, set i from the sweep's seed of
/// sample i at that point; tasks as (wcet, deadline, period) u64 triples.
#[pyfunction]
#[pyo3(signature = (options_json, count, threads=None))]
pub fn generate_many<'py>(
    py: Python<'py>,
    options_json: &str,
    count: usize,
    threads: Option<usize>,
) -> PyResult<Buffers<'py>> {
    let opts: schedlab_gen::GenOptions =
        serde_json::from_str(options_json).map_err(|e| PyValueError::new_err(format!("generator options: {e}")))?;
    let params = opts.into_params().map_err(PyValueError::new_err)?;
    let sets = py
        .detach(|| schedlab_experiment::generate::generate_many(&params, count, threads))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let (mut tasks, mut offsets, mut wss, mut util) = (Vec::new(), vec![0u8; 8], Vec::new(), Vec::new());
    let mut n = 0u64;
    for s in &sets {
        for (t, w) in s.tasks.iter().zip(&s.wss) {
            tasks.extend(t.wcet.to_le_bytes());
            tasks.extend(t.deadline.to_le_bytes());
            tasks.extend(t.period.to_le_bytes());
            wss.extend(w.to_le_bytes());
        }
        n += s.tasks.len() as u64;
        offsets.extend(n.to_le_bytes());
        util.extend(s.utilization.to_le_bytes());
    }
    Ok((PyBytes::new(py, &tasks), PyBytes::new(py, &offsets), PyBytes::new(py, &wss), PyBytes::new(py, &util)))
}
