//! The result rows, one per (set, evaluation), as columns; the CSV writer.
//!
//! Columns: `point`, one column per grid axis (named after the generator
//! option: `utils`, `periods`, `util`, ...), `sample`, `seed`, `tasks` (the
//! set's task count), `utilization` (its Σ C/T as generated), `evaluation`
//! (the scheduler or simulation name), `test`, `overheads`, `cpmd_wss`
//! (bytes; 0: the generated working sets), `verdict`, `schedulable` (1 or
//! 0), and for simulations `jobs`, `misses`, `miss_ratio`,
//! `max_tardiness_ns`, `mean_tardiness_ns`, `preemptions`, `migrations`
//! (empty / NaN on test rows).

use crate::evaluate::{Cell, EvalInfo, VERDICTS};
use crate::grid::{Grid, Value};
use std::io::Write;

/// One set's results.
#[derive(Debug, Clone, PartialEq)]
pub struct SetRow {
    pub point: u32,
    pub sample: u32,
    pub seed: u64,
    pub tasks: u32,
    pub utilization: f64,
    /// One per evaluation.
    pub cells: Vec<Cell>,
    /// PREM sets: per evaluation, per task slot, the per-task metrics
    /// ([`crate::prem::TASK_METRICS`]); empty otherwise.
    pub per_task: Vec<f64>,
}

/// A column's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    I64(Vec<i64>),
    U64(Vec<u64>),
    F64(Vec<f64>),
    /// Codes into `dict`.
    Str(Vec<u32>, Vec<String>),
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::I64(v) => v.len(),
            Data::U64(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::Str(v, _) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn clear(&mut self) {
        match self {
            Data::I64(v) => v.clear(),
            Data::U64(v) => v.clear(),
            Data::F64(v) => v.clear(),
            Data::Str(v, _) => v.clear(),
        }
    }
}

/// A named column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub data: Data,
}

/// Where a column's values come from.
#[derive(Debug, Clone)]
enum Source {
    Point,
    Axis(usize),
    Sample,
    Seed,
    Tasks,
    Utilization,
    Eval,
    CpmdWss,
    Verdict,
    Schedulable,
    Sim(usize),
    MissRatio,
    /// A per-task metric: slot × metrics + metric.
    PerTask(usize),
}

/// The columns of an experiment's results, filled chunk by chunk.
#[derive(Debug, Clone)]
pub struct Table {
    pub columns: Vec<Column>,
    sources: Vec<Source>,
    /// Per axis: the code of each axis value (text axes).
    evals: Vec<EvalInfo>,
    grid_values: Vec<Vec<Value>>,
    /// Per-task values of one evaluation (PREM sets).
    per_eval: usize,
}

fn dict_of(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut d: Vec<String> = Vec::new();
    for n in names {
        if !d.contains(&n) {
            d.push(n);
        }
    }
    d
}

impl Table {
    pub fn new(grid: &Grid, evals: &[EvalInfo], sim_metrics: &[bool]) -> Table {
        let mut columns = Vec::new();
        let mut sources = Vec::new();
        let mut push = |name: &str, data: Data, src: Source| {
            columns.push(Column { name: name.to_string(), data });
            sources.push(src);
        };
        push("point", Data::I64(vec![]), Source::Point);
        for (a, axis) in grid.axes.iter().enumerate() {
            let data = match axis.values[0] {
                Value::Int(_) => Data::I64(vec![]),
                Value::Num(_) => Data::F64(vec![]),
                Value::Text(_) | Value::Bool(_) => {
                    Data::Str(vec![], dict_of(axis.values.iter().map(|v| v.to_string())))
                }
            };
            push(axis.name, data, Source::Axis(a));
        }
        push("sample", Data::I64(vec![]), Source::Sample);
        push("seed", Data::U64(vec![]), Source::Seed);
        push("tasks", Data::I64(vec![]), Source::Tasks);
        push("utilization", Data::F64(vec![]), Source::Utilization);
        push("evaluation", Data::Str(vec![], dict_of(evals.iter().map(|e| e.name.clone()))), Source::Eval);
        push("test", Data::Str(vec![], dict_of(evals.iter().map(|e| e.test.clone()))), Source::Eval);
        push("overheads", Data::Str(vec![], dict_of(evals.iter().map(|e| e.overheads.clone()))), Source::Eval);
        push("cpmd_wss", Data::I64(vec![]), Source::CpmdWss);
        push("verdict", Data::Str(vec![], VERDICTS.iter().map(|s| s.to_string()).collect()), Source::Verdict);
        push("schedulable", Data::I64(vec![]), Source::Schedulable);
        if evals.iter().any(|e| e.is_sim) {
            let keep = |k: usize| sim_metrics.get(k).copied().unwrap_or(true);
            push("jobs", Data::F64(vec![]), Source::Sim(0));
            if keep(0) {
                push("misses", Data::F64(vec![]), Source::Sim(1));
            }
            if keep(1) {
                push("miss_ratio", Data::F64(vec![]), Source::MissRatio);
            }
            if keep(2) {
                push("max_tardiness_ns", Data::F64(vec![]), Source::Sim(2));
                push("mean_tardiness_ns", Data::F64(vec![]), Source::Sim(3));
            }
            if keep(3) {
                push("preemptions", Data::F64(vec![]), Source::Sim(4));
            }
            if keep(4) {
                push("migrations", Data::F64(vec![]), Source::Sim(5));
            }
        }
        let slots = crate::prem::slots(grid);
        let metrics = crate::prem::TASK_METRICS;
        for i in 0..slots {
            for (k, m) in metrics.iter().enumerate() {
                push(&format!("tau{i}_{m}"), Data::F64(vec![]), Source::PerTask(i * metrics.len() + k));
            }
        }
        Table {
            columns,
            sources,
            evals: evals.to_vec(),
            grid_values: grid.points.iter().map(|p| p.values.clone()).collect(),
            per_eval: slots * metrics.len(),
        }
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.data.len())
    }

    /// Empties the columns (keeping dictionaries).
    pub fn clear(&mut self) {
        for c in &mut self.columns {
            c.data.clear();
        }
    }

    /// Appends the rows of `sets`.
    pub fn extend(&mut self, sets: &[SetRow]) {
        for (col, src) in self.columns.iter_mut().zip(&self.sources) {
            for s in sets {
                for (e, cell) in s.cells.iter().enumerate() {
                    let info = &self.evals[e];
                    match (&mut col.data, src) {
                        (Data::I64(v), Source::Point) => v.push(s.point as i64),
                        (Data::I64(v), Source::Sample) => v.push(s.sample as i64),
                        (Data::U64(v), Source::Seed) => v.push(s.seed),
                        (Data::I64(v), Source::Tasks) => v.push(s.tasks as i64),
                        (Data::F64(v), Source::Utilization) => v.push(s.utilization),
                        (Data::I64(v), Source::CpmdWss) => v.push(info.cpmd_wss as i64),
                        (Data::Str(v, _), Source::Verdict) => v.push(cell.verdict as u32),
                        (Data::I64(v), Source::Schedulable) => v.push((cell.verdict == 0) as i64),
                        (Data::F64(v), Source::Sim(k)) => v.push(cell.sim[*k]),
                        (Data::F64(v), Source::PerTask(k)) => {
                            v.push(s.per_task.get(e * self.per_eval + k).copied().unwrap_or(f64::NAN))
                        }
                        (Data::F64(v), Source::MissRatio) => v.push(if cell.sim[0] > 0.0 {
                            cell.sim[1] / cell.sim[0]
                        } else if cell.sim[0] == 0.0 {
                            0.0
                        } else {
                            f64::NAN
                        }),
                        (Data::Str(v, dict), Source::Eval) => {
                            let name = match col.name.as_str() {
                                "evaluation" => &info.name,
                                "test" => &info.test,
                                _ => &info.overheads,
                            };
                            v.push(dict.iter().position(|d| d == name).unwrap_or(0) as u32);
                        }
                        (data, Source::Axis(a)) => {
                            let val = &self.grid_values[s.point as usize][*a];
                            match (data, val) {
                                (Data::I64(v), Value::Int(x)) => v.push(*x as i64),
                                (Data::F64(v), Value::Num(x)) => v.push(*x),
                                (Data::Str(v, dict), x) => {
                                    let t = x.to_string();
                                    v.push(dict.iter().position(|d| *d == t).unwrap_or(0) as u32)
                                }
                                _ => unreachable!("axis column types follow the axis values"),
                            }
                        }
                        _ => unreachable!("column types follow their sources"),
                    }
                }
            }
        }
    }
}

fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn fmt_f64(x: f64) -> String {
    if x.is_nan() {
        String::new()
    } else {
        // Shortest representation that reads back to the same value.
        format!("{x}")
    }
}

/// Writes CSV: a header line, then the rows.
pub struct CsvWriter<W: Write> {
    out: W,
    header: bool,
}

impl<W: Write> CsvWriter<W> {
    pub fn new(out: W) -> CsvWriter<W> {
        CsvWriter { out, header: false }
    }
    pub fn write(&mut self, t: &Table) -> std::io::Result<()> {
        if !self.header {
            let names: Vec<String> = t.columns.iter().map(|c| csv_text(&c.name)).collect();
            writeln!(self.out, "{}", names.join(","))?;
            self.header = true;
        }
        let mut line = String::new();
        for r in 0..t.rows() {
            line.clear();
            for (i, c) in t.columns.iter().enumerate() {
                if i > 0 {
                    line.push(',');
                }
                match &c.data {
                    Data::I64(v) => line.push_str(&v[r].to_string()),
                    Data::U64(v) => line.push_str(&v[r].to_string()),
                    Data::F64(v) => line.push_str(&fmt_f64(v[r])),
                    Data::Str(v, d) => line.push_str(&csv_text(&d[v[r] as usize])),
                }
            }
            line.push('\n');
            self.out.write_all(line.as_bytes())?;
        }
        Ok(())
    }
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}
