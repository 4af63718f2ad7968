//! Writing results: to stdout or to a file, never a partial file.

use std::io::Write;
use std::path::Path;

/// Writes `text` to `path` atomically (a temporary file renamed into place),
/// or to stdout when `path` is `None` or `-`.
pub fn write_out(path: Option<&Path>, text: &str) -> std::io::Result<()> {
    match path {
        None => print_stdout(text),
        Some(p) if p.as_os_str() == "-" => print_stdout(text),
        Some(p) => {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
            let result = std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, p));
            if result.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            result
        }
    }
}

fn print_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Prints a JSON value on stdout with a final newline.
pub fn print_json(v: &serde_json::Value) {
    let mut s = serde_json::to_string_pretty(v).expect("json values serialize");
    s.push('\n');
    let _ = print_stdout(&s);
}
