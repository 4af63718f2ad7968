//! Writing a spec back as text, deterministically: the same spec always gives
//! the same bytes. YAML output is block style at the top and one flow mapping
//! per task, so a generated set of 100 tasks stays readable.

use crate::spec::Spec;
use serde_json::Value;

/// Flow collections longer than this are written in block style.
const FLOW_WIDTH: usize = 120;

/// The spec as pretty JSON, with a final newline.
pub fn to_json(spec: &Spec) -> String {
    let mut s = serde_json::to_string_pretty(spec).expect("a spec always serializes");
    s.push('\n');
    s
}

/// The spec as YAML.
pub fn to_yaml(spec: &Spec) -> String {
    let v = serde_json::to_value(spec).expect("a spec always serializes");
    let mut out = String::new();
    if let Value::Object(map) = &v {
        for (k, val) in map {
            block(&mut out, 0, k, val);
        }
    }
    out
}

/// Writes `key: value` at `indent`, choosing flow style below the top level.
fn block(out: &mut String, indent: usize, key: &str, v: &Value) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(map) if !map.is_empty() && (indent == 0 || flow(v).len() > FLOW_WIDTH) => {
            out.push_str(&format!("{pad}{key}:\n"));
            for (k, val) in map {
                block(out, indent + 2, k, val);
            }
        }
        Value::Array(items) if !items.is_empty() && items.iter().any(|i| i.is_object()) => {
            out.push_str(&format!("{pad}{key}:\n"));
            for item in items {
                let f = flow(item);
                if f.len() <= FLOW_WIDTH {
                    out.push_str(&format!("{pad}  - {f}\n"));
                } else if let Value::Object(map) = item {
                    let mut first = true;
                    for (k, val) in map {
                        let mut sub = String::new();
                        block(&mut sub, indent + 4, k, val);
                        if first {
                            sub.replace_range(indent + 2..indent + 4, "- ");
                            first = false;
                        }
                        out.push_str(&sub);
                    }
                } else {
                    out.push_str(&format!("{pad}  - {f}\n"));
                }
            }
        }
        _ => out.push_str(&format!("{pad}{key}: {}\n", flow(v))),
    }
}

/// A value in YAML flow style.
fn flow(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar(s),
        Value::Array(items) => format!("[{}]", items.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            format!(
                "{{{}}}",
                map.iter().map(|(k, v)| format!("{}: {}", scalar(k), flow(v))).collect::<Vec<_>>().join(", ")
            )
        }
    }
}

/// A string, plain when YAML reads it back as the same string, else quoted.
fn scalar(s: &str) -> String {
    let plain_ok = !s.is_empty()
        && s.trim() == s
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c))
        && !s.contains(|c: char| ":#,[]{}\"'\\".contains(c) || c.is_control())
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "null" | "~" | "true" | "false" | "yes" | "no" | "on" | "off" | ".inf" | "-.inf" | ".nan"
        )
        && s.parse::<f64>().is_err()
        && !s.starts_with("0x")
        && !s.starts_with("0o");
    if plain_ok {
        s.to_string()
    } else {
        serde_json::to_string(s).expect("strings serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn quoting() {
        assert_eq!(scalar("T1"), "T1");
        assert_eq!(scalar("10ms"), "10ms");
        assert_eq!(scalar("0-15"), "0-15");
        assert_eq!(scalar("12"), "\"12\"");
        assert_eq!(scalar("true"), "\"true\"");
        assert_eq!(scalar("a: b"), "\"a: b\"");
        assert_eq!(scalar(""), "\"\"");
        assert_eq!(scalar("- x"), "\"- x\"");
    }
}
