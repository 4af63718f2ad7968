//! YAML front end: yaml-rust2's event parser, built into a [`Node`] tree
//! without recursion, with the core-schema (YAML 1.2) resolution of plain
//! scalars, and with limits on nesting and alias expansion.

use super::node::{Entry, Mark, Node, Value, MAX_DEPTH, MAX_NODES};
use super::SyntaxError;
use std::collections::HashMap;
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

fn mark(m: &Marker) -> Mark {
    Mark { line: m.line(), col: m.col() + 1 }
}

/// A container being built.
enum Frame {
    Seq { items: Vec<Node>, mark: Mark, anchor: usize },
    Map { entries: Vec<Entry>, key: Option<(String, Mark)>, mark: Mark, anchor: usize },
}

/// Resolves a plain scalar as the YAML 1.2 core schema does.
fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return match s.parse::<i128>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Float(s.parse().unwrap_or(f64::INFINITY)),
        };
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8)] {
        if let Some(h) = s.strip_prefix(prefix) {
            if let Ok(i) = i128::from_str_radix(h, radix) {
                return Value::Int(i);
            }
        }
    }
    let float_like = {
        let (mantissa, exp) = match digits.find(['e', 'E']) {
            Some(i) => (&digits[..i], Some(&digits[i + 1..])),
            None => (digits, None),
        };
        let m_ok = mantissa.contains(|c: char| c.is_ascii_digit())
            && mantissa.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && mantissa.matches('.').count() <= 1;
        let e_ok = exp.is_none_or(|e| {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
        });
        m_ok && e_ok && (mantissa.contains('.') || exp.is_some())
    };
    if float_like {
        if let Ok(f) = s.parse::<f64>() {
            return Value::Float(f);
        }
    }
    Value::Str(s.to_string())
}

/// Parses one YAML document into a tree.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: HashMap<usize, (Node, usize)> = HashMap::new();
    let mut nodes = 0usize;
    let mut root: Option<Node> = None;
    let mut documents = 0usize;
    loop {
        let (event, m) = parser.next_token().map_err(|e| SyntaxError {
            mark: Some(mark(e.marker())),
            message: format!("this is not valid YAML: {}", e.info()),
        })?;
        let here = mark(&m);
        let (done, anchor) = match event {
            Event::StreamEnd => break,
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => continue,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(SyntaxError {
                        mark: Some(here),
                        message: "the file holds more than one YAML document; a spec is exactly one document (remove the extra `---`)".into(),
                    });
                }
                continue;
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(SyntaxError {
                        mark: Some(here),
                        message: format!(
                            "the document is nested more than {MAX_DEPTH} levels deep; a spec needs at most a few"
                        ),
                    });
                }
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Frame::Seq { items: Vec::new(), mark: here, anchor }
                } else {
                    Frame::Map { entries: Vec::new(), key: None, mark: here, anchor }
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq { items, mark, anchor }) => (Node { value: Value::Seq(items), mark }, anchor),
                Some(Frame::Map { entries, mark, anchor, .. }) => {
                    // A block mapping's start event comes late; its first key is where it starts.
                    let mark = entries.first().map_or(mark, |e| e.key_mark);
                    (Node { value: Value::Map(entries), mark }, anchor)
                }
                None => continue,
            },
            Event::Scalar(s, style, anchor, _) => {
                let value = if style == TScalarStyle::Plain { resolve_plain(&s) } else { Value::Str(s) };
                (Node { value, mark: here }, anchor)
            }
            Event::Alias(id) => {
                let Some((node, size)) = anchors.get(&id) else {
                    return Err(SyntaxError { mark: Some(here), message: "this alias names an unknown anchor".into() });
                };
                nodes = nodes.saturating_add(*size);
                if nodes > MAX_NODES {
                    return Err(SyntaxError {
                        mark: Some(here),
                        message: format!("the document expands to more than {MAX_NODES} values (through its aliases); a spec is far smaller"),
                    });
                }
                (Node { value: node.value.clone(), mark: here }, 0)
            }
        };
        nodes += 1;
        if nodes > MAX_NODES {
            return Err(SyntaxError {
                mark: Some(here),
                message: format!("the document holds more than {MAX_NODES} values; a spec is far smaller"),
            });
        }
        if anchor != 0 {
            anchors.insert(anchor, (done.clone(), count(&done)));
        }
        match stack.last_mut() {
            None => root = Some(done),
            Some(Frame::Seq { items, .. }) => items.push(done),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => {
                    let name = match done.value {
                        Value::Str(s) => s,
                        Value::Int(i) => i.to_string(),
                        Value::Bool(b) => b.to_string(),
                        Value::Null => String::new(),
                        Value::Float(f) => f.to_string(),
                        _ => {
                            return Err(SyntaxError {
                                mark: Some(done.mark),
                                message: "a mapping key must be a plain name, not a list or mapping".into(),
                            })
                        }
                    };
                    if entries.iter().any(|e| e.key == name) {
                        return Err(SyntaxError {
                            mark: Some(done.mark),
                            message: format!("the key `{name}` appears twice in the same mapping; keep one"),
                        });
                    }
                    *key = Some((name, done.mark));
                }
                Some((k, key_mark)) => entries.push(Entry { key: k, key_mark, value: done }),
            },
        }
    }
    root.ok_or_else(|| SyntaxError {
        mark: None,
        message: "the file is empty; a spec needs at least `platform` and `tasks`".into(),
    })
}

/// Number of nodes in a tree (for the alias-expansion budget); iterative.
fn count(node: &Node) -> usize {
    let mut n = 0;
    let mut todo = vec![node];
    while let Some(x) = todo.pop() {
        n += 1;
        match &x.value {
            Value::Seq(items) => todo.extend(items.iter()),
            Value::Map(entries) => todo.extend(entries.iter().map(|e| &e.value)),
            _ => {}
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_resolve_like_yaml_1_2() {
        assert_eq!(resolve_plain("10"), Value::Int(10));
        assert_eq!(resolve_plain("-3"), Value::Int(-3));
        assert_eq!(resolve_plain("2.5"), Value::Float(2.5));
        assert_eq!(resolve_plain("1e3"), Value::Float(1000.0));
        assert_eq!(resolve_plain("2.5ms"), Value::Str("2.5ms".into()));
        assert_eq!(resolve_plain("0-15"), Value::Str("0-15".into()));
        assert_eq!(resolve_plain("yes"), Value::Str("yes".into()));
        assert_eq!(resolve_plain("~"), Value::Null);
        assert!(matches!(resolve_plain("99999999999999999999999999999999999999999"), Value::Float(_)));
    }

    #[test]
    fn positions() {
        let n = parse("platform:\n  cpus: 4\ntasks:\n  - name: a\n    period: 10ms\n").unwrap();
        assert_eq!(n.locate("platform.cpus"), Mark { line: 2, col: 9 });
        assert_eq!(n.locate("tasks[0].period"), Mark { line: 5, col: 13 });
        // A missing field points at its parent.
        assert_eq!(n.locate("tasks[0].wcet"), Mark { line: 4, col: 5 });
    }

    #[test]
    fn rejects_duplicates_depth_and_bombs() {
        assert!(parse("a: 1\na: 2\n").unwrap_err().message.contains("twice"));
        let deep = "[".repeat(10_000);
        assert!(parse(&deep).is_err());
        // "Billion laughs": each level refers ten times to the one before.
        let mut bomb = String::from("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            bomb += &format!("l{i}: &l{i} [{}]\n", vec![format!("*l{}", i - 1); 10].join(", "));
        }
        assert!(parse(&bomb).unwrap_err().message.contains("aliases"));
        assert!(parse("").is_err());
        assert!(parse("a: 1\n---\nb: 2\n").is_err());
    }
}
