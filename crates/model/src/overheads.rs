//! The overhead model: kernel overheads as functions of the task count, and
//! the cache-related preemption / migration delay (CPMD) as a function of a
//! task's working-set size. Read from the overhead CSV a spec references
//! (SchedCAT's conventions: a `TASK-COUNT` column and one column per overhead,
//! in µs; optionally a second table keyed by `WSS`), used by the simulator and
//! by overhead-aware analysis. The format is documented in `docs/overheads.md`.
//!
//! Values are kept in integer nanoseconds; a decimal µs value that is not a
//! whole number of ns is rounded **up** (the safe direction). Each column is
//! made non-decreasing by a running maximum over increasing keys (the EPOS
//! thesis' rule: "when the overhead for 50 tasks is lower than for 25, use
//! the 25-task value").
//!
//! The reader ([`Overheads::parse`], [`Overheads::load`]) and the writer of
//! what `schedlab overheads measure` records ([`write_csv`]) are both here, so
//! that what is written is what analysis and the simulator read.

use crate::error::{Diagnostic, SpecError};
use crate::spec::Spec;
use crate::units::Size;
use std::path::Path;

/// Largest overhead file accepted.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// A kernel overhead, named after SchedCAT's columns and feather-trace's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Overhead {
    /// `RELEASE`: processing one job release.
    Release,
    /// `SCHEDULE`: one scheduling decision.
    Schedule,
    /// `CXS`: one context switch.
    ContextSwitch,
    /// `IPI-LATENCY` (or `IPI`): delay until a remote CPU acts on a reschedule request.
    Ipi,
    /// `TICK`: one periodic timer tick.
    Tick,
    /// `RELEASE-LATENCY`: delay between a release's due time and its handling.
    ReleaseLatency,
}

impl Overhead {
    pub const ALL: [Overhead; 6] = [
        Overhead::Release,
        Overhead::Schedule,
        Overhead::ContextSwitch,
        Overhead::Ipi,
        Overhead::Tick,
        Overhead::ReleaseLatency,
    ];
    /// The CSV column name.
    pub fn column(self) -> &'static str {
        match self {
            Overhead::Release => "RELEASE",
            Overhead::Schedule => "SCHEDULE",
            Overhead::ContextSwitch => "CXS",
            Overhead::Ipi => "IPI-LATENCY",
            Overhead::Tick => "TICK",
            Overhead::ReleaseLatency => "RELEASE-LATENCY",
        }
    }
    fn index(self) -> usize {
        self as usize
    }
}

/// Columns SchedCAT knows that schedlab reads and ignores (locking, syscalls).
const IGNORED_COLUMNS: &[&str] = &["LOCK", "UNLOCK", "READ-LOCK", "READ-UNLOCK", "SYSCALL-IN", "SYSCALL-OUT"];
/// Column names of a CPMD table besides `WSS`.
const CPMD_COLUMNS: &[&str] = &["CPMD", "PREEMPTION", "MIGRATION", "L1", "L2", "L3", "MEM"];

/// How a value is looked up between the measured keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lookup {
    /// The value of the smallest row whose key is ≥ the query (beyond the
    /// last row: the last row for task counts, proportional scaling for WSS).
    #[default]
    Step,
    /// Piece-wise linear interpolation between neighbouring rows (rounded
    /// up), clamped to the first row below it; beyond the last row as `Step`.
    Linear,
    /// The value of the largest row whose key is ≤ the query (below the
    /// first row: the first row; beyond the last as `Step`): the EPOS
    /// thesis' literal rule, "a task set with 20 tasks uses the 15-task
    /// value". Optimistic between rows; `Step` is the safe default.
    Floor,
}

impl std::str::FromStr for Lookup {
    type Err = String;
    fn from_str(s: &str) -> Result<Lookup, String> {
        match s {
            "step" => Ok(Lookup::Step),
            "linear" => Ok(Lookup::Linear),
            "floor" => Ok(Lookup::Floor),
            _ => Err(format!("unknown look-up {s:?}; expected `step`, `linear` or `floor`")),
        }
    }
}

/// Why a job resumes with a cold cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// It resumes on the CPU it was preempted on.
    Preemption,
    /// It resumes on another CPU.
    Migration,
}

/// The kernel overheads in force for one task count, in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Costs {
    pub release: u64,
    pub schedule: u64,
    pub context_switch: u64,
    pub ipi: u64,
    pub tick: u64,
    pub release_latency: u64,
}

impl Costs {
    pub fn get(&self, kind: Overhead) -> u64 {
        match kind {
            Overhead::Release => self.release,
            Overhead::Schedule => self.schedule,
            Overhead::ContextSwitch => self.context_switch,
            Overhead::Ipi => self.ipi,
            Overhead::Tick => self.tick,
            Overhead::ReleaseLatency => self.release_latency,
        }
    }
    fn set(&mut self, kind: Overhead, v: u64) {
        match kind {
            Overhead::Release => self.release = v,
            Overhead::Schedule => self.schedule = v,
            Overhead::ContextSwitch => self.context_switch = v,
            Overhead::Ipi => self.ipi = v,
            Overhead::Tick => self.tick = v,
            Overhead::ReleaseLatency => self.release_latency = v,
        }
    }
}

/// Kernel overheads by task count (`TASK-COUNT` table). Columns absent from
/// the file cost 0.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelTable {
    /// Task counts, strictly increasing.
    pub counts: Vec<u64>,
    /// Per overhead (indexed as [`Overhead::ALL`]): whether the file has the
    /// column, and its non-decreasing values (ns) per row.
    columns: [Option<Vec<u64>>; 6],
}

impl KernelTable {
    /// The same cost for every task count.
    pub fn constant(costs: Costs) -> KernelTable {
        let mut t = KernelTable { counts: vec![1], columns: Default::default() };
        for k in Overhead::ALL {
            t.columns[k.index()] = Some(vec![costs.get(k)]);
        }
        t
    }
    /// Does the file give this overhead?
    pub fn has(&self, kind: Overhead) -> bool {
        self.columns[kind.index()].is_some()
    }
    /// The overhead for `n` tasks, in ns.
    pub fn get(&self, kind: Overhead, n: u64, lookup: Lookup) -> u64 {
        match &self.columns[kind.index()] {
            None => 0,
            Some(v) => lookup_value(&self.counts, v, n, lookup, false),
        }
    }
}

/// CPMD by working-set size (`WSS` table), in ns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpmdTable {
    /// Working-set sizes in bytes, strictly increasing.
    pub wss: Vec<u64>,
    /// Level column names in file order.
    pub levels: Vec<String>,
    /// Delay after a preemption, per row (the `PREEMPTION` column if given,
    /// else the maximum over all level columns), non-decreasing.
    preemption: Vec<u64>,
    /// Delay after a migration, per row (the `MIGRATION` column if given,
    /// else the maximum over all level columns), non-decreasing.
    migration: Vec<u64>,
}

impl CpmdTable {
    pub fn get(&self, wss: u64, resume: Resume, lookup: Lookup) -> u64 {
        let v = match resume {
            Resume::Preemption => &self.preemption,
            Resume::Migration => &self.migration,
        };
        lookup_value(&self.wss, v, wss, lookup, true)
    }
}

/// The CPMD model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cpmd {
    /// No cache-related delay.
    None,
    /// The EPOS thesis' worst-case bound: ⌈WSS / line⌉ × miss cost, the same
    /// for preemptions and migrations. The miss cost is `miss_num / miss_den`
    /// ns per line (EPOS: 200 cycles at 3.4 GHz = 1000/17 ns).
    Bound { line: u64, miss_num: u64, miss_den: u64 },
    /// A measured table.
    Table(CpmdTable),
}

impl Cpmd {
    /// The EPOS default bound for a cache line size: 200 cycles per line at 3.4 GHz.
    pub fn epos_bound(line: u64) -> Cpmd {
        Cpmd::bound_cycles(line, 200, 3_400_000_000)
    }
    /// ⌈WSS / line⌉ × `cycles` cycles at `hz` Hz.
    pub fn bound_cycles(line: u64, cycles: u64, hz: u64) -> Cpmd {
        Cpmd::Bound { line: line.max(1), miss_num: cycles.saturating_mul(1_000_000_000), miss_den: hz.max(1) }
    }
    /// The delay for a job with working-set size `wss` bytes, in ns (rounded up).
    pub fn get(&self, wss: u64, resume: Resume, lookup: Lookup) -> u64 {
        match self {
            Cpmd::None => 0,
            Cpmd::Bound { line, miss_num, miss_den } => {
                let lines = wss.div_ceil(*line) as u128;
                let v = (lines * *miss_num as u128).div_ceil(*miss_den as u128);
                u64::try_from(v).unwrap_or(u64::MAX)
            }
            Cpmd::Table(t) => t.get(wss, resume, lookup),
        }
    }
}

/// The overhead model of a spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overheads {
    /// The file it was read from (`<built-in>` when constructed in code).
    pub file: String,
    pub kernel: KernelTable,
    pub cpmd: Cpmd,
    /// How task counts and WSS are looked up.
    pub lookup: Lookup,
}

impl Overheads {
    /// Constant kernel costs and no CPMD (for tests and experiments).
    pub fn constant(costs: Costs) -> Overheads {
        Overheads {
            file: "<built-in>".into(),
            kernel: KernelTable::constant(costs),
            cpmd: Cpmd::None,
            lookup: Lookup::Step,
        }
    }
    /// The kernel overheads in force for `n` tasks.
    pub fn costs(&self, n: u64) -> Costs {
        let mut c = Costs::default();
        for k in Overhead::ALL {
            c.set(k, self.kernel.get(k, n, self.lookup));
        }
        c
    }
    /// One overhead for `n` tasks, in ns.
    pub fn get(&self, kind: Overhead, n: u64) -> u64 {
        self.kernel.get(kind, n, self.lookup)
    }
    /// The CPMD for a working-set size in bytes, in ns.
    pub fn cpmd(&self, wss: u64, resume: Resume) -> u64 {
        self.cpmd.get(wss, resume, self.lookup)
    }

    /// Parses an overhead file's text. `line` is the cache line size used for
    /// the default CPMD bound when the file has no `WSS` table.
    pub fn parse(text: &str, file: &str, line: u64) -> Result<Overheads, SpecError> {
        parse(text, file, line)
    }

    /// Reads an overhead file.
    pub fn load(path: &Path, line: u64) -> Result<Overheads, SpecError> {
        let file = path.display().to_string();
        let whole = |m: String| SpecError::one(&file, Diagnostic::new("", m));
        let meta = std::fs::metadata(path).map_err(|e| whole(format!("cannot read the overhead file: {e}")))?;
        if meta.is_dir() {
            return Err(whole("is a folder; give the path of an overhead CSV".into()));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(whole(format!(
                "the file has {} bytes; an overhead file may have at most {MAX_FILE_BYTES}",
                meta.len()
            )));
        }
        let bytes = std::fs::read(path).map_err(|e| whole(format!("cannot read the overhead file: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            whole(format!("the file is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
        })?;
        parse(&text, &file, line)
    }

    /// Loads the overhead file `spec.overheads` names, relative to `spec_dir`
    /// (the spec file's folder), with the spec's cache line size (default
    /// 64 B) for the default CPMD bound. `Ok(None)` when the spec has none.
    pub fn for_spec(spec: &Spec, spec_dir: &Path) -> Result<Option<Overheads>, SpecError> {
        match &spec.overheads {
            None => Ok(None),
            Some(p) => Overheads::load(&spec_dir.join(p), line_size(spec)).map(Some),
        }
    }
}

/// The spec's cache line size in bytes (64 when no cache is described).
pub fn line_size(spec: &Spec) -> u64 {
    spec.platform.cache.as_ref().map(|c| c.line.0).filter(|&l| l > 0).unwrap_or(64)
}

/// Looks `x` up in `keys` (strictly increasing, non-empty) / `vals`
/// (non-decreasing). `scale_beyond`: beyond the last key, scale the last
/// value proportionally (rounded up) instead of holding it.
fn lookup_value(keys: &[u64], vals: &[u64], x: u64, lookup: Lookup, scale_beyond: bool) -> u64 {
    let last = keys.len() - 1;
    if x > keys[last] {
        if scale_beyond && keys[last] > 0 {
            let v = (vals[last] as u128 * x as u128).div_ceil(keys[last] as u128);
            return u64::try_from(v).unwrap_or(u64::MAX);
        }
        return vals[last];
    }
    let i = keys.partition_point(|&k| k < x); // smallest row with key >= x
    if lookup == Lookup::Step || i == 0 || keys[i] == x {
        return vals[i];
    }
    if lookup == Lookup::Floor {
        return vals[i - 1];
    }
    let (x0, x1, y0, y1) = (keys[i - 1] as u128, keys[i] as u128, vals[i - 1] as u128, vals[i] as u128);
    let v = y0 + ((y1 - y0) * (x as u128 - x0)).div_ceil(x1 - x0);
    v as u64
}

/// One row of a measured kernel-overhead table: a task count and, per
/// overhead in the order of [`Overhead::ALL`], the value in ns, or `None`
/// when it was not measured (a column measured in no row is left out, so
/// that a reader does not take "not measured" for "costs nothing").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasuredRow {
    pub tasks: u64,
    pub ns: [Option<u64>; 6],
}

/// Writes a kernel-overhead CSV that [`Overheads::parse`] reads back: each
/// comment line prefixed with `# `, the header `TASK-COUNT,RELEASE,...` (the
/// columns of [`Overhead::ALL`]), then one line per row with the values in
/// µs to three decimals, which is exactly the ns measured. A column that no
/// row measured is left out. The rows are written as given; the reader makes
/// each column non-decreasing.
pub fn write_csv(comments: &[String], rows: &[MeasuredRow]) -> String {
    let present: Vec<bool> =
        (0..Overhead::ALL.len()).map(|i| rows.is_empty() || rows.iter().any(|r| r.ns[i].is_some())).collect();
    let mut csv = String::new();
    for c in comments {
        for l in c.lines() {
            csv.push_str("# ");
            csv.push_str(l);
            csv.push('\n');
        }
    }
    csv.push_str("TASK-COUNT");
    for (o, _) in Overhead::ALL.iter().zip(&present).filter(|(_, p)| **p) {
        csv.push(',');
        csv.push_str(o.column());
    }
    csv.push('\n');
    for r in rows {
        csv.push_str(&r.tasks.to_string());
        for (v, _) in r.ns.iter().zip(&present).filter(|(_, p)| **p) {
            csv.push(',');
            match v {
                None => csv.push('0'),
                Some(ns) => csv.push_str(&format!("{}.{:03}", ns / 1000, ns % 1000)),
            }
        }
        csv.push('\n');
    }
    csv
}

/// One CSV cell: its text and 1-based column.
struct Cell<'a> {
    text: &'a str,
    col: usize,
}

fn cells(line: &str) -> Vec<Cell<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for part in line.split(',') {
        let lead = part.len() - part.trim_start().len();
        let mut text = part.trim();
        if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
            text = text[1..text.len() - 1].trim();
        }
        out.push(Cell { text, col: line[..start + lead].chars().count() + 1 });
        start += part.len() + 1;
    }
    out
}

/// A `µs` value, exactly, rounded up to ns. Accepts `12`, `0.35`, `1.5e-1`, `2E+3`.
fn parse_us(s: &str) -> Result<u64, String> {
    let bad = || format!("`{s}` is not a number of µs; write a non-negative decimal, e.g. `1.25`");
    if s.is_empty() {
        return Err("is empty; every cell needs a value (µs, e.g. `0` or `1.25`)".into());
    }
    if s.starts_with('-') {
        return Err(format!("`{s}` is negative; an overhead is 0 or more µs"));
    }
    let s2 = s.strip_prefix('+').unwrap_or(s);
    let (mant, exp) = match s2.find(['e', 'E']) {
        Some(i) => (&s2[..i], s2[i + 1..].parse::<i32>().map_err(|_| bad())?),
        None => (s2, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 36 {
        return Err(format!("`{s}` has too many digits"));
    }
    let num: u128 = if digits.is_empty() { 0 } else { digits.parse().map_err(|_| bad())? };
    // value_ns = num × 10^(3 + exp − frac.len())
    let shift = 3i64 + exp as i64 - frac.len() as i64;
    let too_large = || format!("`{s}` µs is too large (at most {} ns)", u64::MAX);
    let v: u128 = if num == 0 {
        0
    } else if shift >= 0 {
        let p = 10u128.checked_pow(u32::try_from(shift).map_err(|_| too_large())?).ok_or_else(too_large)?;
        num.checked_mul(p).ok_or_else(too_large)?
    } else if -shift > 38 {
        1 // a positive amount below 1 ns rounds up to 1 ns
    } else {
        num.div_ceil(10u128.pow((-shift) as u32))
    };
    u64::try_from(v).map_err(|_| too_large())
}

fn parse_count(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        Ok(_) => Err("must be 1 or more (a number of tasks)".into()),
        Err(_) => Err(format!("`{s}` is not a task count; write a whole number of tasks, e.g. `25`")),
    }
}

fn parse_wss(s: &str) -> Result<u64, String> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<u64>().map_err(|_| format!("`{s}` bytes is too large"));
    }
    s.parse::<Size>().map(|z| z.0).map_err(|e| e.0)
}

struct Table<'a> {
    line: usize,
    header: Vec<Cell<'a>>,
    rows: Vec<(usize, Vec<Cell<'a>>)>,
}

fn parse(text: &str, file: &str, line_bytes: u64) -> Result<Overheads, SpecError> {
    let err = |line: usize, col: usize, path: &str, message: String| {
        SpecError::one(file, Diagnostic { path: path.to_string(), line: Some(line), column: Some(col), message })
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Split into tables: a line whose first cell is not numeric starts one.
    let mut tables: Vec<Table> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let l = raw.trim_end_matches('\r');
        if l.trim().is_empty() || l.trim_start().starts_with('#') {
            continue;
        }
        let cs = cells(l);
        let first = cs[0].text;
        let is_header =
            first.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !first.eq_ignore_ascii_case("inf");
        if is_header {
            tables.push(Table { line: ln, header: cs, rows: Vec::new() });
        } else {
            match tables.last_mut() {
                Some(t) => t.rows.push((ln, cs)),
                None => {
                    return Err(err(
                        ln,
                        1,
                        "",
                        "a data row comes before any header; the file starts with a header line such as `TASK-COUNT,RELEASE,SCHEDULE,CXS,IPI-LATENCY,TICK`".into(),
                    ))
                }
            }
        }
    }
    if tables.is_empty() {
        return Err(SpecError::one(
            file,
            Diagnostic::new("", "the overhead file has no table; it needs a header line such as `TASK-COUNT,RELEASE,SCHEDULE,CXS,IPI-LATENCY,TICK` and one row per task count"),
        ));
    }
    let mut kernel: Option<KernelTable> = None;
    let mut cpmd: Option<CpmdTable> = None;
    for t in &tables {
        let key = t.header[0].text.to_ascii_uppercase();
        let first_col = t.header[0].col;
        // Duplicate and empty header cells.
        for (j, c) in t.header.iter().enumerate() {
            if c.text.is_empty() {
                return Err(err(t.line, c.col, "", "a header cell is empty; name every column".into()));
            }
            let canon = canonical(c.text);
            if t.header[..j].iter().any(|d| canonical(d.text) == canon) {
                return Err(err(t.line, c.col, c.text, format!("column `{}` appears twice", c.text)));
            }
        }
        if t.rows.is_empty() {
            return Err(err(
                t.line,
                first_col,
                &key,
                "the table has a header but no rows; add at least one row of values".into(),
            ));
        }
        for (ln, r) in &t.rows {
            if r.len() != t.header.len() {
                let col = r.last().map(|c| c.col).unwrap_or(1);
                return Err(err(
                    *ln,
                    col,
                    "",
                    format!("the row has {} cells but the header has {} columns", r.len(), t.header.len()),
                ));
            }
        }
        match key.as_str() {
            "TASK-COUNT" => {
                if kernel.is_some() {
                    return Err(err(
                        t.line,
                        first_col,
                        "TASK-COUNT",
                        "a second `TASK-COUNT` table; give the kernel overheads once".into(),
                    ));
                }
                let mut cols: Vec<Option<Overhead>> = vec![None];
                for c in &t.header[1..] {
                    let canon = canonical(c.text);
                    if let Some(k) = Overhead::ALL.iter().find(|k| k.column() == canon) {
                        cols.push(Some(*k));
                    } else if IGNORED_COLUMNS.contains(&canon.as_str()) {
                        cols.push(None);
                    } else {
                        let known: Vec<&str> = Overhead::ALL
                            .iter()
                            .map(|k| k.column())
                            .chain(["IPI"])
                            .chain(IGNORED_COLUMNS.iter().copied())
                            .collect();
                        return Err(err(t.line, c.col, c.text, unknown_column(c.text, &known)));
                    }
                }
                let mut table = KernelTable { counts: Vec::with_capacity(t.rows.len()), columns: Default::default() };
                for k in cols.iter().flatten() {
                    table.columns[k.index()] = Some(Vec::with_capacity(t.rows.len()));
                }
                for (ln, r) in &t.rows {
                    let n = parse_count(r[0].text).map_err(|m| err(*ln, r[0].col, "TASK-COUNT", m))?;
                    if let Some(&prev) = table.counts.last() {
                        if n <= prev {
                            return Err(err(
                                *ln,
                                r[0].col,
                                "TASK-COUNT",
                                format!("{n} does not follow {prev}; list task counts in increasing order, each once"),
                            ));
                        }
                    }
                    table.counts.push(n);
                    for (j, k) in cols.iter().enumerate().skip(1) {
                        let v = parse_us(r[j].text).map_err(|m| err(*ln, r[j].col, t.header[j].text, m))?;
                        if let Some(k) = k {
                            let col = table.columns[k.index()].as_mut().expect("column allocated");
                            let v = col.last().map_or(v, |&p: &u64| p.max(v));
                            col.push(v);
                        }
                    }
                }
                kernel = Some(table);
            }
            "WSS" => {
                if cpmd.is_some() {
                    return Err(err(t.line, first_col, "WSS", "a second `WSS` table; give the CPMD table once".into()));
                }
                if t.header.len() < 2 {
                    return Err(err(t.line, first_col, "WSS", "the CPMD table needs at least one delay column: `CPMD`, or `PREEMPTION`/`MIGRATION`, or levels `L1`, `L2`, `L3`, `MEM`".into()));
                }
                let mut levels = Vec::new();
                for c in &t.header[1..] {
                    let canon = canonical(c.text);
                    if !CPMD_COLUMNS.contains(&canon.as_str()) {
                        return Err(err(t.line, c.col, c.text, unknown_column(c.text, CPMD_COLUMNS)));
                    }
                    levels.push(canon);
                }
                let pre_col = levels.iter().position(|l| l == "PREEMPTION");
                let mig_col = levels.iter().position(|l| l == "MIGRATION");
                let mut table = CpmdTable { wss: Vec::new(), levels, preemption: Vec::new(), migration: Vec::new() };
                for (ln, r) in &t.rows {
                    let w = parse_wss(r[0].text).map_err(|m| err(*ln, r[0].col, "WSS", m))?;
                    if let Some(&prev) = table.wss.last() {
                        if w <= prev {
                            return Err(err(*ln, r[0].col, "WSS", format!("{w} bytes does not follow {prev} bytes; list working-set sizes in increasing order, each once")));
                        }
                    }
                    table.wss.push(w);
                    let mut vals = Vec::with_capacity(r.len() - 1);
                    for (c, h) in r.iter().zip(&t.header).skip(1) {
                        vals.push(parse_us(c.text).map_err(|m| err(*ln, c.col, h.text, m))?);
                    }
                    let max = vals.iter().copied().max().unwrap_or(0);
                    let pre = pre_col.map_or(max, |c| vals[c]);
                    let mig = mig_col.map_or(max, |c| vals[c]);
                    let pre = table.preemption.last().map_or(pre, |&p: &u64| p.max(pre));
                    let mig = table.migration.last().map_or(mig, |&p: &u64| p.max(mig));
                    table.preemption.push(pre);
                    table.migration.push(mig);
                }
                cpmd = Some(table);
            }
            _ => {
                return Err(err(
                    t.line,
                    first_col,
                    t.header[0].text,
                    format!(
                        "a table starts with `TASK-COUNT` (kernel overheads) or `WSS` (CPMD), found `{}`",
                        t.header[0].text
                    ),
                ))
            }
        }
    }
    let kernel = kernel.unwrap_or_default();
    let kernel =
        if kernel.counts.is_empty() { KernelTable { counts: vec![1], columns: Default::default() } } else { kernel };
    Ok(Overheads {
        file: file.to_string(),
        kernel,
        cpmd: match cpmd {
            Some(t) => Cpmd::Table(t),
            None => Cpmd::epos_bound(line_bytes),
        },
        lookup: Lookup::Step,
    })
}

fn canonical(name: &str) -> String {
    let up = name.trim().to_ascii_uppercase().replace('_', "-");
    if up == "IPI" {
        "IPI-LATENCY".into()
    } else {
        up
    }
}

fn unknown_column(name: &str, known: &[&str]) -> String {
    let best = known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&name.to_ascii_uppercase(), k), *k))
        .min()
        .filter(|(d, _)| *d <= 3)
        .map(|(_, k)| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    format!("unknown column `{name}`{best}; known columns: {}", known.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
# measured on host x, worst case, µs
TASK-COUNT,RELEASE,SCHEDULE,CXS,IPI-LATENCY,TICK,RELEASE-LATENCY
5,1.0,2.0,0.5,0.3,0.25,3
15,1.5,1.8,0.6,0.3,0.25,3
25,2.0005,2.5,0.7,0.4,0.25,3.5e0
";

    #[test]
    fn written_csv_reads_back_exactly() {
        let rows = vec![
            MeasuredRow { tasks: 2, ns: [Some(1_234), Some(5_000), Some(999), Some(1), None, Some(42_001)] },
            MeasuredRow { tasks: 8, ns: [Some(1_000), Some(7_250), Some(1_500), Some(3), None, Some(40_000)] },
        ];
        let csv = write_csv(&["measured on host x".into(), "two\nlines".into()], &rows);
        assert_eq!(
            csv,
            "# measured on host x\n# two\n# lines\nTASK-COUNT,RELEASE,SCHEDULE,CXS,IPI-LATENCY,RELEASE-LATENCY\n\
             2,1.234,5.000,0.999,0.001,42.001\n8,1.000,7.250,1.500,0.003,40.000\n"
        );
        // TICK, measured in no row, is left out: the reader knows it is not given.
        assert!(!Overheads::parse(&csv, "<written>", 64).unwrap().kernel.has(Overhead::Tick));
        let o = Overheads::parse(&csv, "<written>", 64).unwrap();
        for (i, kind) in Overhead::ALL.into_iter().enumerate() {
            // Each column is made non-decreasing by the reader (running maximum).
            let first = rows[0].ns[i].unwrap_or(0);
            let second = rows[1].ns[i].unwrap_or(0).max(first);
            assert_eq!(o.get(kind, 2), first, "{kind:?} at 2 tasks");
            assert_eq!(o.get(kind, 8), second, "{kind:?} at 8 tasks");
        }
    }

    #[test]
    fn values_are_exact_ns_rounded_up() {
        assert_eq!(parse_us("0.3").unwrap(), 300);
        assert_eq!(parse_us("1.2345").unwrap(), 1235);
        assert_eq!(parse_us("12").unwrap(), 12_000);
        assert_eq!(parse_us("1.5e-1").unwrap(), 150);
        assert_eq!(parse_us("2E+3").unwrap(), 2_000_000);
        assert_eq!(parse_us("0.0000001").unwrap(), 1);
        assert_eq!(parse_us("0.000").unwrap(), 0);
        assert_eq!(parse_us("1e-60").unwrap(), 1);
        assert!(parse_us("-1").is_err());
        assert!(parse_us("abc").is_err());
        assert!(parse_us("1e400").is_err());
        assert!(parse_us("").is_err());
    }

    #[test]
    fn step_lookup_is_non_decreasing_and_safe() {
        let o = Overheads::parse(FILE, "oh.csv", 64).unwrap();
        // Smallest row >= n; the SCHEDULE dip at 15 (1.8 < 2.0) is lifted to 2.0.
        assert_eq!(o.get(Overhead::Schedule, 1), 2000);
        assert_eq!(o.get(Overhead::Schedule, 5), 2000);
        assert_eq!(o.get(Overhead::Schedule, 6), 2000);
        assert_eq!(o.get(Overhead::Schedule, 25), 2500);
        assert_eq!(o.get(Overhead::Release, 16), 2001); // 2.0005 µs rounds up
        assert_eq!(o.get(Overhead::Release, 1000), 2001); // beyond the last row: last row
        assert_eq!(o.get(Overhead::ReleaseLatency, 20), 3500);
        let c = o.costs(10);
        assert_eq!((c.release, c.schedule, c.context_switch, c.ipi, c.tick), (1500, 2000, 600, 300, 250));
    }

    #[test]
    fn linear_lookup_interpolates_upwards() {
        let mut o = Overheads::parse(FILE, "oh.csv", 64).unwrap();
        o.lookup = Lookup::Linear;
        assert_eq!(o.get(Overhead::Release, 10), 1250);
        assert_eq!(o.get(Overhead::ContextSwitch, 6), 510);
        assert_eq!(o.get(Overhead::Release, 1), 1000);
        assert_eq!(o.get(Overhead::Release, 99), 2001);
        // 1000 + ceil(500 * 1 / 10)
        assert_eq!(o.get(Overhead::Release, 6), 1050);
    }

    #[test]
    fn floor_lookup_is_the_thesis_rule() {
        let mut o = Overheads::parse(FILE, "oh.csv", 64).unwrap();
        o.lookup = Lookup::Floor;
        // 20 tasks use the 15-task row; below the first row, the first row.
        assert_eq!(o.get(Overhead::Release, 20), 1500);
        assert_eq!(o.get(Overhead::Release, 15), 1500);
        assert_eq!(o.get(Overhead::Release, 2), 1000);
        assert_eq!(o.get(Overhead::Release, 99), 2001);
        // Still non-decreasing: the SCHEDULE dip at 15 is lifted.
        assert_eq!(o.get(Overhead::Schedule, 20), 2000);
    }

    #[test]
    fn missing_columns_cost_nothing_and_ipi_alias() {
        let o = Overheads::parse("TASK-COUNT,IPI\n1,2\n", "f", 64).unwrap();
        assert_eq!(o.get(Overhead::Ipi, 3), 2000);
        assert_eq!(o.get(Overhead::Tick, 3), 0);
        assert!(!o.kernel.has(Overhead::Tick));
        let o = Overheads::parse("TASK-COUNT,LOCK,TICK\n1,5,2\n", "f", 64).unwrap();
        assert_eq!(o.get(Overhead::Tick, 1), 2000);
    }

    #[test]
    fn cpmd_default_bound_is_epos() {
        let o = Overheads::parse(FILE, "oh.csv", 64).unwrap();
        // 4 KiB = 64 lines × 200 cycles / 3.4 GHz = 3764.7 ns -> 3765.
        assert_eq!(o.cpmd(4096, Resume::Preemption), 3765);
        assert_eq!(o.cpmd(0, Resume::Migration), 0);
        assert_eq!(o.cpmd(1, Resume::Migration), 59);
    }

    #[test]
    fn cpmd_table() {
        let text = format!("{FILE}\nWSS,L1,L2,L3,MEM\n4KiB,1,2,3,4\n64KiB,2,3,9,8\n1048576,5,5,5,50\n");
        let o = Overheads::parse(&text, "oh.csv", 64).unwrap();
        assert_eq!(o.cpmd(100, Resume::Preemption), 4000);
        assert_eq!(o.cpmd(4096, Resume::Migration), 4000);
        assert_eq!(o.cpmd(5000, Resume::Migration), 9000);
        assert_eq!(o.cpmd(2 << 20, Resume::Migration), 100_000); // beyond: proportional
        let o = Overheads::parse("WSS,PREEMPTION,MIGRATION\n4KiB,1,2\n", "c.csv", 64).unwrap();
        assert_eq!(o.cpmd(10, Resume::Preemption), 1000);
        assert_eq!(o.cpmd(10, Resume::Migration), 2000);
        assert_eq!(o.get(Overhead::Schedule, 10), 0);
    }

    fn error(text: &str) -> Diagnostic {
        let e = Overheads::parse(text, "oh.csv", 64).unwrap_err();
        assert_eq!(e.file, "oh.csv");
        e.first().clone()
    }

    #[test]
    fn errors_name_line_column_and_problem() {
        let d = error("TASK-COUNT,RELEASE,SCHEDUEL\n1,2,3\n");
        assert_eq!((d.line, d.column), (Some(1), Some(20)));
        assert!(d.message.contains("did you mean `SCHEDULE`"), "{}", d.message);
        let d = error("TASK-COUNT,RELEASE\n1,2\n2,-3\n");
        assert_eq!((d.line, d.column, d.path.as_str()), (Some(3), Some(3), "RELEASE"));
        assert!(d.message.contains("negative"));
        let d = error("TASK-COUNT,RELEASE\n5,2\n3,1\n");
        assert_eq!((d.line, d.column), (Some(3), Some(1)));
        assert!(d.message.contains("increasing"));
        let d = error("TASK-COUNT,RELEASE\n5,2,4\n");
        assert!(d.message.contains("3 cells"), "{}", d.message);
        let d = error("TASK-COUNT,RELEASE\n1, x\n");
        assert_eq!((d.line, d.column), (Some(2), Some(4)));
        let d = error("1,2\n");
        assert!(d.message.contains("before any header"));
        let d = error("# nothing\n");
        assert!(d.message.contains("no table"));
        let d = error("TASK-COUNT,IPI,IPI-LATENCY\n1,2,3\n");
        assert!(d.message.contains("twice"));
        let d = error("FOO,BAR\n1,2\n");
        assert!(d.message.contains("`TASK-COUNT`"));
        let d = error("TASK-COUNT,RELEASE\n");
        assert!(d.message.contains("no rows"));
        let d = error("TASK-COUNT,RELEASE\n0,1\n");
        assert!(d.message.contains("1 or more"));
        let d = error("WSS,CPMD\n4KB,1\n");
        assert!(d.message.contains("KiB"), "{}", d.message);
        let r = Overheads::parse("TASK-COUNT,X\n1,2\n", "oh.csv", 64).unwrap_err().to_string();
        assert!(r.starts_with("oh.csv:1:12: X: unknown column"), "{r}");
    }

    #[test]
    fn load_reports_missing_file() {
        let e = Overheads::load(Path::new("/nonexistent/oh.csv"), 64).unwrap_err();
        assert!(e.to_string().contains("cannot read"));
    }
}
