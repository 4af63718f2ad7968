//! What every verb shares about its results: exit codes, the one error shape
//! (text on stderr, JSON on stdout under `--json`), and files written
//! atomically and announced.
//!
//! A verb returns `Result<i32, CliError>` from its body and lets
//! [`CliError::report`] print the failure; files go through [`write_file`]
//! (or [`write_out`] when `-` / no path means stdout). Outputs are computed
//! first and written last, so a failed command leaves no partial file and
//! replaces no existing one.

use schedlab_model::{Diagnostic, SpecError};
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// The exit codes of every verb (docs/cli.md has the table per verb).
pub mod exit {
    /// Success; for `analyze`, `partition`: proven schedulable.
    pub const OK: i32 = 0;
    /// A negative outcome: not proven schedulable, validation failed, a hard
    /// deadline missed under `--fail-on-miss`, a run that failed.
    pub const NEGATIVE: i32 = 1;
    /// Bad input (a spec, an option, an unreadable file): nothing written.
    pub const BAD_INPUT: i32 = 2;
    /// Missing privileges (root or CAP_SYS_NICE): nothing touched.
    pub const PRIVILEGES: i32 = 3;
    /// The exit code after signal `n` (the machine was restored first).
    pub const fn signal(n: i32) -> i32 {
        128 + n
    }
}

/// A failure of a verb: an exit code plus where and what, as precisely as the
/// input allows. Printed once, by [`CliError::report`]: as
/// `schedlab VERB: file:line:col: path: message` (and `hint: ...`) on stderr,
/// and with `--json` also as
/// `{"error": {"file", "line", "column", "path", "message", "hint"}}` on
/// stdout (absent parts are `null`; `errors` lists every problem when a spec
/// had several).
///
/// Boxed (one pointer), so that `Result<_, CliError>` stays small; the
/// fields are read through `Deref` (`e.code`, `e.message`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError(Box<ErrorInfo>);

/// What a [`CliError`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    pub code: i32,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Field path (`tasks[3].period`) or the option (`--policy`).
    pub path: Option<String>,
    pub message: String,
    /// What would fix it, when known.
    pub hint: Option<String>,
    /// Further problems of the same input (a spec with several errors).
    pub more: Vec<CliError>,
}

impl std::ops::Deref for CliError {
    type Target = ErrorInfo;
    fn deref(&self) -> &ErrorInfo {
        &self.0
    }
}

impl CliError {
    /// Bad input (exit 2) with a message only.
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError::new(exit::BAD_INPUT, message)
    }
    /// A failure with this exit code.
    pub fn new(code: i32, message: impl Into<String>) -> CliError {
        CliError(Box::new(ErrorInfo {
            code,
            file: None,
            line: None,
            column: None,
            path: None,
            message: message.into(),
            hint: None,
            more: Vec::new(),
        }))
    }
    /// A bad option value: `path` is the option (`--exec`).
    pub fn option(option: &str, message: impl Into<String>) -> CliError {
        CliError::bad_input(message).at(option)
    }
    /// The file the problem is in.
    pub fn in_file(mut self, file: impl AsRef<Path>) -> CliError {
        self.0.file = Some(file.as_ref().display().to_string());
        self
    }
    /// The line of the file the problem is on (1-based).
    pub fn on_line(mut self, line: usize) -> CliError {
        self.0.line = Some(line);
        self
    }
    /// The field path or option.
    pub fn at(mut self, path: impl Into<String>) -> CliError {
        let p = path.into();
        self.0.path = (!p.is_empty()).then_some(p);
        self
    }
    /// What would fix it.
    pub fn hint(mut self, hint: impl Into<String>) -> CliError {
        self.0.hint = Some(hint.into());
        self
    }
    /// A spec that cannot be used (exit 2), every diagnostic kept.
    pub fn spec(e: &SpecError) -> CliError {
        let one = |d: &Diagnostic| {
            let mut c = CliError::bad_input(d.message.clone()).in_file(&e.file).at(d.path.clone());
            c.0.line = d.line;
            c.0.column = d.column;
            c
        };
        let mut first = one(e.first());
        first.0.more = e.diagnostics.iter().skip(1).map(one).collect();
        first
    }

    /// `file:line:col: path: message` (the parts that are known).
    pub fn render(&self) -> String {
        let mut s = String::new();
        if let Some(f) = &self.file {
            s += f;
            if let Some(l) = self.line {
                s += &format!(":{l}");
                if let Some(c) = self.column {
                    s += &format!(":{c}");
                }
            }
            s += ": ";
        }
        if let Some(p) = &self.path {
            s += p;
            s += ": ";
        }
        s + &self.message
    }

    fn body(&self) -> serde_json::Value {
        json!({
            "file": self.file, "line": self.line, "column": self.column,
            "path": self.path, "message": self.message, "hint": self.hint,
        })
    }

    /// The JSON document printed under `--json`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = json!({"error": self.body()});
        if !self.more.is_empty() {
            let all: Vec<_> = std::iter::once(self).chain(self.more.iter()).map(CliError::body).collect();
            v["errors"] = json!(all);
        }
        v
    }

    /// Prints the failure (stderr, and stdout under `--json`) and returns its
    /// exit code.
    pub fn report(&self, verb: &str, as_json: bool) -> i32 {
        if as_json {
            print_json(&self.to_json());
        }
        let who = if verb.is_empty() { "schedlab".to_string() } else { format!("schedlab {verb}") };
        for e in std::iter::once(self).chain(self.more.iter()) {
            eprintln!("{who}: {}", e.render());
        }
        if let Some(h) = &self.hint {
            eprintln!("  hint: {h}");
        }
        self.code
    }
}

impl From<SpecError> for CliError {
    fn from(e: SpecError) -> CliError {
        CliError::spec(&e)
    }
}

/// Writes `bytes` to `path` atomically: parent folders are created, the text
/// goes to a temporary file in the same folder that is then renamed into
/// place, and `wrote PATH` is printed on stderr. On failure nothing is left
/// behind and an existing file is untouched; the error (exit 1, naming the
/// file) says why.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    write_file_with(path, |f| f.write_all(bytes))
}

/// Like [`write_file`], with a writer: `fill` writes the content into the
/// temporary file (for encoders that stream).
pub fn write_file_with(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), CliError> {
    let fail = |e: std::io::Error| {
        CliError::new(exit::NEGATIVE, format!("cannot write: {e}"))
            .in_file(path)
            .hint("check that the folder is writable")
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::File::create(&tmp).and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    });
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// A file being written: the content goes to a temporary file beside `path`
/// (parent folders created), [`PendingFile::commit`] renames it into place and
/// prints `wrote PATH`; dropped without a commit (an error, a panic), the
/// temporary file is removed and `path` is untouched. For outputs that stream
/// (a trace written while simulating).
pub struct PendingFile {
    path: std::path::PathBuf,
    tmp: std::path::PathBuf,
    done: bool,
}

impl PendingFile {
    /// Creates the temporary file and returns it with the guard.
    pub fn create(path: &Path) -> Result<(PendingFile, std::fs::File), CliError> {
        let fail = |e: std::io::Error| CliError::new(exit::BAD_INPUT, format!("cannot write: {e}")).in_file(path);
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(fail)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let f = std::fs::File::create(&tmp).map_err(fail)?;
        Ok((PendingFile { path: path.to_path_buf(), tmp, done: false }, f))
    }
    /// Renames the finished file into place and announces it.
    pub fn commit(mut self) -> Result<(), CliError> {
        std::fs::rename(&self.tmp, &self.path)
            .map_err(|e| CliError::new(exit::NEGATIVE, format!("cannot write: {e}")).in_file(&self.path))?;
        self.done = true;
        eprintln!("wrote {}", self.path.display());
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `text` to `path` with [`write_file`], or to stdout when `path` is
/// `None` or `-`.
pub fn write_out(path: Option<&Path>, text: &str) -> Result<(), CliError> {
    match path {
        None => print_stdout(text).map_err(|e| CliError::new(exit::NEGATIVE, format!("cannot write stdout: {e}"))),
        Some(p) if p.as_os_str() == "-" => {
            print_stdout(text).map_err(|e| CliError::new(exit::NEGATIVE, format!("cannot write stdout: {e}")))
        }
        Some(p) => write_file(p, text.as_bytes()),
    }
}

/// A verb's text output under `--json`: written to `output` when a file is
/// given (returned in `written`), else returned as `text` for the JSON
/// document, so that stdout carries one document. Without `--json`, as
/// [`write_out`].
pub fn write_or_embed(
    output: Option<&Path>,
    text: String,
    as_json: bool,
) -> Result<(Vec<std::path::PathBuf>, Option<String>), CliError> {
    let file = output.filter(|p| p.as_os_str() != "-");
    if file.is_some() || !as_json {
        write_out(file, &text)?;
    }
    Ok(match file {
        Some(p) => (vec![p.to_path_buf()], None),
        None => (Vec::new(), Some(text)),
    })
}

/// Writes every `(path, content)` pair with [`write_file`], in order; the
/// contents are all computed before the first write.
pub fn write_files(outputs: Vec<(std::path::PathBuf, String)>) -> Result<(), CliError> {
    for (p, text) in outputs {
        write_file(&p, text.as_bytes())?;
    }
    Ok(())
}

fn print_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Prints a JSON value on stdout with a final newline.
pub fn print_json<T: serde::Serialize + ?Sized>(v: &T) {
    let mut s = serde_json::to_string_pretty(v).expect("json values serialize");
    s.push('\n');
    let _ = print_stdout(&s);
}

/// Loads a spec, or the error for it (exit 2).
pub fn load_spec(path: &Path) -> Result<schedlab_model::Loaded, CliError> {
    schedlab_model::load_path(path).map_err(CliError::from)
}
