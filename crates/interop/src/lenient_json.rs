//! A JSON reader as lenient as rt-app's (json-c): `//` and `/* */`
//! comments, trailing commas, and repeated keys (kept, in order) are
//! accepted. Every value keeps its byte offset, for error messages. Nesting
//! is bounded, so no input can exhaust the stack.

use crate::error::{At, InteropError};

const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Node>),
    /// Keys in file order, repeats kept.
    Object(Vec<(String, Node)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub at: u64,
    pub value: Value,
}

impl Node {
    pub fn describe(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    file: &'a str,
}

impl P<'_> {
    fn err(&self, at: usize, msg: impl Into<String>) -> InteropError {
        InteropError::at(self.file, At::Byte(at as u64), msg)
    }
    fn ws(&mut self) -> Result<(), InteropError> {
        loop {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
            if self.s[self.i..].starts_with(b"//") {
                while self.i < self.s.len() && self.s[self.i] != b'\n' {
                    self.i += 1;
                }
            } else if self.s[self.i..].starts_with(b"/*") {
                let start = self.i;
                match self.s[self.i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(p) => self.i += 2 + p + 2,
                    None => return Err(self.err(start, "a `/*` comment is never closed")),
                }
            } else {
                return Ok(());
            }
        }
    }
    fn value(&mut self, depth: usize) -> Result<Node, InteropError> {
        self.ws()?;
        let at = self.i;
        if depth > MAX_DEPTH {
            return Err(self.err(at, format!("nested deeper than {MAX_DEPTH} levels")));
        }
        let Some(&c) = self.s.get(self.i) else {
            return Err(self.err(at, "the file ends where a value was expected: it is truncated"));
        };
        let value = match c {
            b'{' => {
                self.i += 1;
                let mut m = Vec::new();
                loop {
                    self.ws()?;
                    match self.s.get(self.i) {
                        Some(b'}') => {
                            self.i += 1;
                            break;
                        }
                        Some(b'"') => {}
                        Some(_) => return Err(self.err(self.i, "expected a key in double quotes or `}`")),
                        None => return Err(self.err(self.i, "the file ends inside an object: it is truncated")),
                    }
                    let k = self.string()?;
                    self.ws()?;
                    if self.s.get(self.i) != Some(&b':') {
                        return Err(self.err(self.i, format!("expected `:` after the key \"{k}\"")));
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    m.push((k, v));
                    self.ws()?;
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {}
                        Some(_) => return Err(self.err(self.i, "expected `,` or `}` after a value in an object")),
                        None => return Err(self.err(self.i, "the file ends inside an object: it is truncated")),
                    }
                }
                Value::Object(m)
            }
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                loop {
                    self.ws()?;
                    match self.s.get(self.i) {
                        Some(b']') => {
                            self.i += 1;
                            break;
                        }
                        None => return Err(self.err(self.i, "the file ends inside an array: it is truncated")),
                        _ => {}
                    }
                    a.push(self.value(depth + 1)?);
                    self.ws()?;
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {}
                        Some(_) => return Err(self.err(self.i, "expected `,` or `]` after a value in an array")),
                        None => return Err(self.err(self.i, "the file ends inside an array: it is truncated")),
                    }
                }
                Value::Array(a)
            }
            b'"' => Value::String(self.string()?),
            b't' | b'f' | b'n' => {
                let words: [(&[u8], Value); 3] =
                    [(b"true", Value::Bool(true)), (b"false", Value::Bool(false)), (b"null", Value::Null)];
                match words.into_iter().find(|(w, _)| self.s[self.i..].starts_with(w)) {
                    Some((w, v)) => {
                        self.i += w.len();
                        v
                    }
                    None => return Err(self.err(at, "not a JSON value (expected true, false or null)")),
                }
            }
            b'-' | b'0'..=b'9' => {
                while self.i < self.s.len() && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    self.i += 1;
                }
                let txt = std::str::from_utf8(&self.s[at..self.i]).unwrap_or("");
                match txt.parse::<f64>() {
                    Ok(x) if x.is_finite() => Value::Number(x),
                    _ => return Err(self.err(at, format!("`{txt}` is not a number"))),
                }
            }
            _ => return Err(self.err(at, format!("unexpected `{}`: not a JSON value", c as char))),
        };
        Ok(Node { at: at as u64, value })
    }
    fn string(&mut self) -> Result<String, InteropError> {
        let start = self.i;
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return Err(self.err(start, "a string is never closed: the file is truncated"));
            };
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return Err(self.err(start, "a string is never closed: the file is truncated"));
                    };
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = self.s.get(self.i..self.i + 4).and_then(|h| std::str::from_utf8(h).ok());
                            let cp = hex.and_then(|h| u32::from_str_radix(h, 16).ok());
                            let Some(ch) = cp.and_then(char::from_u32) else {
                                return Err(self.err(self.i - 2, "bad `\\u` escape in a string"));
                            };
                            self.i += 4;
                            let mut b = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.err(start, "a string is not valid UTF-8"))
    }
}

/// Parse a whole document.
pub fn parse(text: &[u8], file: &str) -> Result<Node, InteropError> {
    let mut p = P { s: text, i: 0, file };
    let v = p.value(0)?;
    p.ws()?;
    if p.i < text.len() {
        return Err(p.err(p.i, "more text after the JSON value"));
    }
    Ok(v)
}
