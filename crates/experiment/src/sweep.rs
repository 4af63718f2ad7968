//! Running a sweep. The sets of the grid are cut into chunks (up to
//! `chunk` samples of one point each); a chunk is the unit of work on a
//! thread, of a checkpoint record and of a Ray task. Chunks run on all cores
//! (an atomic counter hands them out), their results are written to the
//! checkpoint as they finish and to the output in chunk order, so the output
//! depends only on the experiment file.
//!
//! Checkpoint: `OUTPUT.ckpt`, a header line naming the experiment's
//! fingerprint, then one record per finished chunk (`#chunk ID LEN HASH`
//! and LEN bytes of encoded results). A resumed sweep keeps the records
//! whose hash checks (a record torn by a kill is dropped and rerun), runs
//! the rest, and writes the same output an uninterrupted sweep writes.

use crate::evaluate::{Cell, Evaluator, Scratch};
use crate::file::Loaded;
use crate::generate::{draw, Drawn};
use crate::grid::{expand, Grid};
use crate::seed::{fnv1a, point_seed, set_seed};
use crate::table::{CsvWriter, SetRow, Table};
use std::collections::BTreeMap;
use std::io::{BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Sets per chunk by default.
pub const DEFAULT_CHUNK: u32 = 256;

/// One chunk: samples `from..to` of point `point`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub point: usize,
    pub from: u32,
    pub to: u32,
}

/// An experiment ready to run: its grid, evaluations and chunks.
pub struct Plan {
    pub loaded: Loaded,
    pub grid: Grid,
    pub evaluator: Evaluator,
    pub chunks: Vec<Chunk>,
    point_seeds: Vec<u64>,
    /// Identifies the experiment (its text and the tool version) in checkpoints.
    pub fingerprint: u64,
}

impl Plan {
    pub fn new(loaded: Loaded) -> Result<Plan, String> {
        let grid = expand(&loaded.experiment.generator).map_err(|(f, m)| format!("generator.{f}: {m}"))?;
        let evaluator = Evaluator::new(&loaded)?;
        let k = loaded.experiment.chunk.unwrap_or(DEFAULT_CHUNK).max(1);
        let samples = loaded.experiment.samples;
        let mut chunks = Vec::new();
        for p in 0..grid.points.len() {
            let mut from = 0;
            while from < samples {
                let to = (from + k).min(samples);
                chunks.push(Chunk { point: p, from, to });
                from = to;
            }
        }
        let point_seeds = grid.points.iter().map(|p| point_seed(loaded.experiment.seed, &p.key)).collect();
        // The text and the samples (which `--samples` may override).
        let fingerprint = fnv1a(format!("{}\n{}\n{samples}", schedlab_model::TOOL, loaded.text).as_bytes());
        Ok(Plan { loaded, grid, evaluator, chunks, point_seeds, fingerprint })
    }

    /// Sets in the whole sweep.
    pub fn sets(&self) -> u64 {
        self.grid.points.len() as u64 * self.loaded.experiment.samples as u64
    }

    /// Rows (set × evaluation) in the whole sweep.
    pub fn rows(&self) -> u64 {
        self.sets() * self.evaluator.evaluations.len() as u64
    }

    /// The seed of a set.
    pub fn seed(&self, point: usize, sample: u32) -> u64 {
        set_seed(self.point_seeds[point], sample as u64)
    }

    /// The set of (point, sample), as generated for the sweep.
    pub fn draw(&self, point: usize, sample: u32) -> Result<Drawn, String> {
        let mut d = Drawn::default();
        draw(&self.grid.points[point].params, self.seed(point, sample), &mut d)
            .map_err(|e| self.gen_error(point, e))?;
        Ok(d)
    }

    fn gen_error(&self, point: usize, e: schedlab_gen::GenError) -> String {
        format!("point {point} ({}): {e}", self.grid.points[point].key)
    }

    /// Runs one chunk.
    pub fn run_chunk(&self, id: usize, scratch: &mut Scratch) -> Result<Vec<SetRow>, String> {
        let c = self.chunks[id];
        let p = &self.grid.points[c.point];
        let mut d = Drawn::default();
        let mut out = Vec::with_capacity((c.to - c.from) as usize);
        for sample in c.from..c.to {
            let seed = self.seed(c.point, sample);
            draw(&p.params, seed, &mut d).map_err(|e| self.gen_error(c.point, e))?;
            let mut cells = Vec::with_capacity(self.evaluator.evaluations.len());
            self.evaluator.evaluate(&d, &p.params, scratch, &mut cells);
            out.push(SetRow {
                point: c.point as u32,
                sample,
                seed,
                tasks: d.tasks.len() as u32,
                utilization: d.utilization,
                cells,
                per_task: std::mem::take(&mut scratch.per_task),
            });
        }
        Ok(out)
    }

    /// An empty table with this sweep's columns.
    pub fn table(&self) -> Table {
        Table::new(&self.grid, &self.evaluator.evaluations, &self.evaluator.sim_metrics)
    }

    /// Key/value metadata recorded in outputs.
    pub fn metadata(&self) -> Vec<(String, String)> {
        vec![
            ("schedlab.tool".into(), schedlab_model::TOOL.into()),
            ("schedlab.experiment".into(), self.loaded.text.clone()),
            ("schedlab.seed".into(), self.loaded.experiment.seed.to_string()),
        ]
    }
}

/// Encodes a chunk's results (checkpoint records, Ray results).
pub fn encode(rows: &[SetRow]) -> Vec<u8> {
    let mut b = Vec::with_capacity(rows.len() * 40);
    b.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    for r in rows {
        b.extend_from_slice(&r.point.to_le_bytes());
        b.extend_from_slice(&r.sample.to_le_bytes());
        b.extend_from_slice(&r.seed.to_le_bytes());
        b.extend_from_slice(&r.tasks.to_le_bytes());
        b.extend_from_slice(&r.utilization.to_le_bytes());
        b.extend_from_slice(&(r.cells.len() as u32).to_le_bytes());
        for c in &r.cells {
            b.push(c.verdict);
            let sim = !c.sim[0].is_nan();
            b.push(sim as u8);
            if sim {
                for v in c.sim {
                    b.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        b.extend_from_slice(&(r.per_task.len() as u32).to_le_bytes());
        for v in &r.per_task {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    b
}

/// Decodes [`encode`]'s bytes.
pub fn decode(b: &[u8]) -> Result<Vec<SetRow>, String> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = b.get(at..at + n).ok_or("truncated chunk record")?;
        at += n;
        Ok(s)
    };
    let u32_ = |s: &[u8]| u32::from_le_bytes(s.try_into().expect("4 bytes"));
    let u64_ = |s: &[u8]| u64::from_le_bytes(s.try_into().expect("8 bytes"));
    let n = u32_(take(4)?);
    let mut rows = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let point = u32_(take(4)?);
        let sample = u32_(take(4)?);
        let seed = u64_(take(8)?);
        let tasks = u32_(take(4)?);
        let utilization = f64::from_bits(u64_(take(8)?));
        let k = u32_(take(4)?);
        let mut cells = Vec::with_capacity(k as usize);
        for _ in 0..k {
            let h = take(2)?;
            let mut c = Cell { verdict: h[0], sim: [f64::NAN; 6] };
            if h[1] == 1 {
                for v in c.sim.iter_mut() {
                    *v = f64::from_bits(u64_(take(8)?));
                }
            }
            cells.push(c);
        }
        let k = u32_(take(4)?);
        let mut per_task = Vec::with_capacity(k as usize);
        for _ in 0..k {
            per_task.push(f64::from_bits(u64_(take(8)?)));
        }
        rows.push(SetRow { point, sample, seed, tasks, utilization, cells, per_task });
    }
    Ok(rows)
}

/// The output format, from the file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutFormat {
    Csv,
    Parquet,
}

impl OutFormat {
    pub fn from_path(p: &Path) -> Result<OutFormat, String> {
        match p.extension().and_then(|e| e.to_str()) {
            Some("csv") => Ok(OutFormat::Csv),
            Some("parquet") => Ok(OutFormat::Parquet),
            _ => Err(format!("{}: write `.parquet` or `.csv`", p.display())),
        }
    }
}

/// What a sweep reports when it ends.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub sets: u64,
    pub rows: u64,
    /// Chunks taken from the checkpoint.
    pub resumed_chunks: usize,
    pub chunks: usize,
    pub wall_s: f64,
}

/// Options of a local sweep.
pub struct Sweep<'a> {
    pub threads: Option<usize>,
    /// Called on the coordinating thread with (sets done, sets in total).
    pub progress: Option<&'a mut dyn FnMut(u64, u64)>,
    /// Stop after this many chunks have been run in this call (tests of resume).
    pub stop_after: Option<usize>,
}

/// The run-information file beside an output: `OUTPUT.run.json`.
pub fn run_info_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".run.json");
    PathBuf::from(s)
}

/// JSON: the run's wall time, sets, rows, chunks resumed, threads, machine and tool.
pub fn run_info(s: &Summary, threads: Option<usize>) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let v = serde_json::json!({
        "tool": schedlab_model::TOOL,
        "wall_s": s.wall_s,
        "sets": s.sets,
        "rows": s.rows,
        "chunks": s.chunks,
        "resumed_chunks": s.resumed_chunks,
        "threads": schedlab_analysis::batch::workers(threads),
        "host": host.trim(),
        "cpu": model,
        "cpus": std::thread::available_parallelism().map_or(1, |n| n.get()),
    });
    serde_json::to_string_pretty(&v).expect("json") + "\n"
}

/// The checkpoint path of an output.
pub fn checkpoint_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".ckpt");
    PathBuf::from(s)
}

/// Reads the finished chunks of a checkpoint (none if absent or of another experiment).
pub fn read_checkpoint(path: &Path, fingerprint: u64, chunks: usize) -> BTreeMap<usize, Vec<u8>> {
    let mut done = BTreeMap::new();
    let Ok(f) = std::fs::File::open(path) else { return done };
    let mut r = std::io::BufReader::new(f);
    let mut line = String::new();
    if r.read_line(&mut line).is_err() || line.trim_end() != format!("schedlab-sweep-checkpoint {fingerprint:016x}") {
        return done;
    }
    loop {
        line.clear();
        match r.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let parts: Vec<&str> = line.trim_end().split(' ').collect();
        let [_, id, len, hash] = parts[..] else { break };
        let (Ok(id), Ok(len), Ok(hash)) = (id.parse::<usize>(), len.parse::<usize>(), u64::from_str_radix(hash, 16))
        else {
            break;
        };
        let mut buf = vec![0; len];
        if r.read_exact(&mut buf).is_err() || fnv1a(&buf) != hash || id >= chunks {
            break;
        }
        done.insert(id, buf);
    }
    done
}

/// Appends chunk records to a checkpoint.
struct Checkpoint {
    out: BufWriter<std::fs::File>,
}

impl Checkpoint {
    fn open(path: &Path, fingerprint: u64, done: &BTreeMap<usize, Vec<u8>>) -> std::io::Result<Checkpoint> {
        // Rewritten with the valid records only, so a torn tail is gone.
        let mut out = BufWriter::new(std::fs::File::create(path)?);
        writeln!(out, "schedlab-sweep-checkpoint {fingerprint:016x}")?;
        let mut c = Checkpoint { out };
        for (id, b) in done {
            c.record(*id, b)?;
        }
        c.out.flush()?;
        Ok(c)
    }
    fn record(&mut self, id: usize, b: &[u8]) -> std::io::Result<()> {
        writeln!(self.out, "#chunk {id} {} {:016x}", b.len(), fnv1a(b))?;
        self.out.write_all(b)
    }
}

/// Writes the output in chunk order as chunks arrive.
enum Writer {
    Csv(CsvWriter<BufWriter<std::fs::File>>),
    Parquet(Box<crate::parquet::ParquetWriter<BufWriter<std::fs::File>>>),
    Memory,
}

/// Rows buffered before a Parquet row group / CSV flush.
const FLUSH_ROWS: usize = 1 << 20;

/// Where the rows go.
pub enum Output<'a> {
    /// A file (`.csv` or `.parquet`), written atomically, with a checkpoint beside it.
    File(&'a Path),
    /// All rows in memory (Python), no checkpoint.
    Memory,
}

/// Runs the sweep; returns the table (for [`Output::Memory`]; empty for files) and a summary.
/// With `stop_after`, returns `Err("stopped")` after that many chunks, the checkpoint kept.
pub fn run(plan: &Plan, output: Output<'_>, mut opts: Sweep<'_>) -> Result<(Table, Summary), String> {
    let start = std::time::Instant::now();
    let n = plan.chunks.len();
    let (done, ckpt_path) = match output {
        Output::File(p) => {
            OutFormat::from_path(p)?;
            let c = checkpoint_path(p);
            (read_checkpoint(&c, plan.fingerprint, n), Some(c))
        }
        Output::Memory => (BTreeMap::new(), None),
    };
    let resumed = done.len();
    let mut ckpt = match &ckpt_path {
        Some(c) => Some(Checkpoint::open(c, plan.fingerprint, &done).map_err(|e| format!("{}: {e}", c.display()))?),
        None => None,
    };
    let mut table = plan.table();
    let tmp = match output {
        Output::File(p) => {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let name = p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            Some((dir.join(format!(".{name}.{}.tmp", std::process::id())), p))
        }
        Output::Memory => None,
    };
    let mut writer = match &tmp {
        Some((t, p)) => {
            let f = BufWriter::new(std::fs::File::create(t).map_err(|e| format!("{}: {e}", t.display()))?);
            match OutFormat::from_path(p)? {
                OutFormat::Csv => Writer::Csv(CsvWriter::new(f)),
                OutFormat::Parquet => Writer::Parquet(Box::new(
                    crate::parquet::ParquetWriter::new(f, &table, &plan.metadata()).map_err(|e| e.to_string())?,
                )),
            }
        }
        None => Writer::Memory,
    };
    let result = run_chunks(plan, done, &mut ckpt, &mut table, &mut writer, &mut opts);
    let finish = |writer: Writer, table: &mut Table| -> std::io::Result<()> {
        match writer {
            Writer::Csv(mut w) => {
                w.write(table)?;
                table.clear();
                w.finish()?.flush()
            }
            Writer::Parquet(mut w) => {
                w.write(table)?;
                table.clear();
                w.finish()?.flush()
            }
            Writer::Memory => Ok(()),
        }
    };
    match result {
        Ok(()) => {
            finish(writer, &mut table).map_err(|e| e.to_string())?;
            if let Some((t, p)) = &tmp {
                std::fs::rename(t, p).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            drop(ckpt);
            if let Some(c) = &ckpt_path {
                let _ = std::fs::remove_file(c);
            }
            let summary = Summary {
                sets: plan.sets(),
                rows: plan.rows(),
                resumed_chunks: resumed,
                chunks: n,
                wall_s: start.elapsed().as_secs_f64(),
            };
            if let Some((_, p)) = &tmp {
                // How this run went, beside the (deterministic) results file.
                let _ = std::fs::write(run_info_path(p), run_info(&summary, opts.threads));
            }
            Ok((table, summary))
        }
        Err(e) => {
            drop(writer);
            if let Some((t, _)) = &tmp {
                let _ = std::fs::remove_file(t);
            }
            Err(e)
        }
    }
}

fn run_chunks(
    plan: &Plan,
    mut done: BTreeMap<usize, Vec<u8>>,
    ckpt: &mut Option<Checkpoint>,
    table: &mut Table,
    writer: &mut Writer,
    opts: &mut Sweep<'_>,
) -> Result<(), String> {
    let n = plan.chunks.len();
    let total = plan.sets();
    let size = |id: usize| (plan.chunks[id].to - plan.chunks[id].from) as u64;
    let mut sets_done: u64 = done.keys().map(|&id| size(id)).sum();
    if let Some(p) = opts.progress.as_mut() {
        p(sets_done, total);
    }
    let todo: Vec<usize> = (0..n).filter(|id| !done.contains_key(id)).collect();
    let workers = schedlab_analysis::batch::workers(opts.threads).min(todo.len()).max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let limit = opts.stop_after.unwrap_or(usize::MAX);
    let (tx, rx) = mpsc::channel::<(usize, Result<Vec<u8>, String>)>();
    let mut flush_from = 0usize;
    let mut error = None;
    let mut ran = 0usize;
    std::thread::scope(|s| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, stop, todo) = (&next, &stop, &todo);
            s.spawn(move || {
                let mut scratch = Scratch::default();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= todo.len() || k >= limit {
                        return;
                    }
                    let id = todo[k];
                    let r = plan.run_chunk(id, &mut scratch).map(|rows| encode(&rows));
                    if tx.send((id, r)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        // Flush what is already contiguous (resumed chunks).
        let mut pending = std::mem::take(&mut done);
        if let Err(e) = flush(plan, &mut pending, &mut flush_from, table, writer) {
            error = Some(e);
            stop.store(true, Ordering::Relaxed);
        }
        for (id, r) in rx {
            if error.is_some() {
                continue;
            }
            match r {
                Ok(bytes) => {
                    if let Some(c) = ckpt.as_mut() {
                        if let Err(e) = c.record(id, &bytes).and_then(|_| c.out.flush()) {
                            error = Some(format!("checkpoint: {e}"));
                            stop.store(true, Ordering::Relaxed);
                            continue;
                        }
                    }
                    sets_done += size(id);
                    ran += 1;
                    pending.insert(id, bytes);
                    if let Err(e) = flush(plan, &mut pending, &mut flush_from, table, writer) {
                        error = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                    if let Some(p) = opts.progress.as_mut() {
                        p(sets_done, total);
                    }
                }
                Err(e) => {
                    error = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    if flush_from < n {
        return Err(format!("stopped after {ran} chunks; the checkpoint keeps them"));
    }
    Ok(())
}

/// Moves the contiguous prefix of `pending` into the table, writing when it is large.
fn flush(
    plan: &Plan,
    pending: &mut BTreeMap<usize, Vec<u8>>,
    from: &mut usize,
    table: &mut Table,
    writer: &mut Writer,
) -> Result<(), String> {
    while let Some(bytes) = pending.remove(from) {
        table.extend(&decode(&bytes)?);
        *from += 1;
        if table.rows() >= FLUSH_ROWS {
            let r = match writer {
                Writer::Csv(w) => w.write(table),
                Writer::Parquet(w) => w.write(table),
                Writer::Memory => Ok(()),
            };
            r.map_err(|e| e.to_string())?;
            if !matches!(writer, Writer::Memory) {
                table.clear();
            }
        }
    }
    let _ = plan;
    Ok(())
}

/// A dry run: the sweep's size and a time estimate from evaluating a
/// sample of sets spread over the grid (CPU time per set on this machine).
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub points: usize,
    pub sets: u64,
    pub evaluations: usize,
    pub rows: u64,
    pub chunks: usize,
    /// Sets evaluated to estimate.
    pub probe_sets: usize,
    /// Mean seconds of one thread per set.
    pub per_set_s: f64,
    pub threads: usize,
    /// Estimated wall time on `threads` threads.
    pub wall_s: f64,
}

pub fn estimate(plan: &Plan, threads: Option<usize>, probe: usize) -> Result<Estimate, String> {
    let points = plan.grid.points.len();
    let probe = probe.max(1).min(points * plan.loaded.experiment.samples as usize);
    let mut scratch = Scratch::default();
    let t0 = std::time::Instant::now();
    let mut cells = Vec::new();
    for i in 0..probe {
        let point = i * points / probe;
        let sample = (i / points.max(1)) as u32 % plan.loaded.experiment.samples;
        let d = plan.draw(point, sample)?;
        cells.clear();
        plan.evaluator.evaluate(&d, &plan.grid.points[point].params, &mut scratch, &mut cells);
    }
    let per_set_s = t0.elapsed().as_secs_f64() / probe as f64;
    let threads = schedlab_analysis::batch::workers(threads);
    Ok(Estimate {
        points,
        sets: plan.sets(),
        evaluations: plan.evaluator.evaluations.len(),
        rows: plan.rows(),
        chunks: plan.chunks.len(),
        probe_sets: probe,
        per_set_s,
        threads,
        wall_s: per_set_s * plan.sets() as f64 / threads as f64,
    })
}

/// Writes chunk results (encoded, in chunk order: a Ray sweep's) to a
/// `.parquet` or `.csv` file, atomically.
pub fn write_chunks(plan: &Plan, results: &[Vec<u8>], path: &Path) -> Result<(), String> {
    let format = OutFormat::from_path(path)?;
    if results.len() != plan.chunks.len() {
        return Err(format!("{} chunk results for {} chunks", results.len(), plan.chunks.len()));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let write = || -> Result<(), String> {
        let f = BufWriter::new(std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?);
        let mut table = plan.table();
        let mut writer = match format {
            OutFormat::Csv => Writer::Csv(CsvWriter::new(f)),
            OutFormat::Parquet => Writer::Parquet(Box::new(
                crate::parquet::ParquetWriter::new(f, &table, &plan.metadata()).map_err(|e| e.to_string())?,
            )),
        };
        let mut pending: BTreeMap<usize, Vec<u8>> = results.iter().cloned().enumerate().collect();
        let mut from = 0;
        flush(plan, &mut pending, &mut from, &mut table, &mut writer)?;
        let r = match writer {
            Writer::Csv(mut w) => w.write(&table).and_then(|_| w.finish()).and_then(|mut f| f.flush()),
            Writer::Parquet(mut w) => w.write(&table).and_then(|_| w.finish()).and_then(|mut f| f.flush()),
            Writer::Memory => Ok(()),
        };
        r.map_err(|e| e.to_string())?;
        std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let r = write();
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}
