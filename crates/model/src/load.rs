//! Loading a spec: read the file (bounded), parse it, deserialize it with
//! field paths, validate it, and locate every finding in the file.

use crate::error::{Diagnostic, SpecError};
use crate::source::{self, Format, Node};
use crate::spec::Spec;
use crate::validate::{validate, Severity};
use std::path::Path;

/// Largest spec file accepted.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// At most this many diagnostics are reported at once.
const MAX_DIAGNOSTICS: usize = 20;

/// A valid spec, with the warnings found in it.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub spec: Spec,
    pub warnings: Vec<Diagnostic>,
    /// The file name as given (`<string>` for text).
    pub file: String,
}

fn locate(tree: &Node, mut d: Diagnostic) -> Diagnostic {
    let m = tree.locate(&d.path);
    d.line = Some(m.line);
    d.column = Some(m.col);
    d
}

/// Parses YAML or JSON text (the format sniffed when not given) into a
/// positioned tree; a syntax error names `file`, its line and column. The
/// spec and the experiment file both read their text through it.
pub fn parse_positioned(text: &str, format: Option<Format>, file: &str) -> Result<Node, SpecError> {
    let format = format.unwrap_or_else(|| Format::sniff(text));
    source::parse(text, format).map_err(|e| {
        SpecError::one(
            file,
            Diagnostic {
                path: String::new(),
                line: e.mark.map(|m| m.line),
                column: e.mark.map(|m| m.col),
                message: e.message,
            },
        )
    })
}

/// A task may leave `wcet` out when it gives `segments` or `subjobs`: it is
/// then their CPU total (a sum beyond the largest duration is left for
/// validation to report). Without them, `wcet` is required.
fn derive_wcets(spec: &mut Spec, tree: &Node) -> Result<(), Diagnostic> {
    let tasks = match tree.get("tasks").map(|t| &t.value) {
        Some(source::Value::Seq(items)) => &items[..],
        _ => &[],
    };
    for (i, t) in spec.tasks.iter_mut().enumerate() {
        if tasks.get(i).is_some_and(|n| n.get("wcet").is_some()) {
            continue;
        }
        match t.segments_cpu() {
            Some(cpu) => t.wcet = crate::units::Duration(u64::try_from(cpu).unwrap_or(u64::MAX)),
            None => {
                return Err(Diagnostic::new(
                    format!("tasks[{i}]"),
                    "the required key `wcet` is missing; add it (or give the task's `segments` or `subjobs`, whose CPU total it then is)",
                ))
            }
        }
    }
    Ok(())
}

/// Loads a spec from text. `file` names it in messages; the format is sniffed
/// when not given.
pub fn load_str(text: &str, format: Option<Format>, file: &str) -> Result<Loaded, SpecError> {
    let tree = parse_positioned(text, format, file)?;
    if !matches!(tree.value, source::Value::Map(_)) {
        return Err(SpecError::one(
            file,
            Diagnostic {
                path: String::new(),
                line: Some(tree.mark.line),
                column: Some(tree.mark.col),
                message: format!("a spec is a mapping with `platform` and `tasks`, found {}", tree.describe()),
            },
        ));
    }
    let mut spec: Spec = source::deserialize(&tree).map_err(|(path, e)| {
        let mark = e.mark.unwrap_or_else(|| tree.locate(&path));
        SpecError::one(file, Diagnostic { path, line: Some(mark.line), column: Some(mark.col), message: e.message })
    })?;
    derive_wcets(&mut spec, &tree).map_err(|d| SpecError::one(file, locate(&tree, d)))?;
    crate::overrides::resolve_priorities(&mut spec);
    let issues = validate(&spec);
    let (errors, warnings): (Vec<_>, Vec<_>) = issues.into_iter().partition(|i| i.severity == Severity::Error);
    if !errors.is_empty() {
        return Err(SpecError {
            file: file.to_string(),
            diagnostics: errors
                .into_iter()
                .take(MAX_DIAGNOSTICS)
                .map(|i| locate(&tree, Diagnostic::new(i.path, i.message)))
                .collect(),
        });
    }
    let warnings = warnings.into_iter().map(|i| locate(&tree, Diagnostic::new(i.path, i.message))).collect();
    Ok(Loaded { spec, warnings, file: file.to_string() })
}

/// Loads a spec file (`.json` is JSON, anything else YAML). A referenced
/// overhead file must exist, relative to the spec's folder.
pub fn load_path(path: &Path) -> Result<Loaded, SpecError> {
    let file = path.display().to_string();
    let whole = |message: String| SpecError::one(&file, Diagnostic::new("", message));
    let meta = std::fs::metadata(path).map_err(|e| whole(format!("cannot read the file: {e}")))?;
    if meta.is_dir() {
        return Err(whole("is a folder; give the path of a spec file (.yaml or .json)".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(whole(format!("the file has {} bytes; a spec may have at most {MAX_FILE_BYTES}", meta.len())));
    }
    let bytes = std::fs::read(path).map_err(|e| whole(format!("cannot read the file: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        whole(format!(
            "the file is not UTF-8 text (invalid byte at offset {}); a spec is YAML or JSON text",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let loaded = load_str(&text, Some(Format::from_path(path)), &file)?;
    if let Some(o) = &loaded.spec.overheads {
        let base = path.parent().unwrap_or(Path::new("."));
        let target = base.join(o);
        if !target.is_file() {
            let tree = source::parse(&text, Format::from_path(path)).ok();
            let mut d = Diagnostic::new(
                "overheads",
                format!(
                    "the overhead file `{}` does not exist; give a path relative to the spec's folder",
                    target.display()
                ),
            );
            if let Some(t) = tree {
                d = locate(&t, d);
            }
            return Err(SpecError::one(&file, d));
        }
    }
    Ok(loaded)
}
