//! JSON front end (RFC 8259): a small recursive-descent parser that keeps the
//! line and column of every value. Depth is bounded, so the recursion is too.

use super::node::{Entry, Mark, Node, Value, MAX_DEPTH};
use super::SyntaxError;

struct P<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    line: usize,
    line_start: usize,
}

impl<'a> P<'a> {
    fn mark(&self) -> Mark {
        // Columns count characters, not bytes: count the bytes that start a
        // character (the index may sit inside a multi-byte character).
        let end = self.i.min(self.s.len());
        let col = self.s[self.line_start.min(end)..end].iter().filter(|&&b| b & 0xC0 != 0x80).count() + 1;
        Mark { line: self.line, col }
    }
    fn err<T>(&self, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError { mark: Some(self.mark()), message: format!("this is not valid JSON: {}", message.into()) })
    }
    fn ws(&mut self) {
        while let Some(&c) = self.s.get(self.i) {
            match c {
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                _ => break,
            }
        }
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn expect_word(&mut self, w: &str, v: Value) -> Result<Value, SyntaxError> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            self.err("unexpected text; expected a value (object, array, string, number, true, false or null)")
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        self.ws();
        let mark = self.mark();
        if depth > MAX_DEPTH {
            return self
                .err(format!("the document is nested more than {MAX_DEPTH} levels deep; a spec needs at most a few"));
        }
        let value = match self.peek() {
            None => return self.err("the text ends where a value was expected (truncated file?)"),
            Some(b'{') => {
                self.i += 1;
                let mut entries: Vec<Entry> = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        let key_mark = self.mark();
                        if self.peek() != Some(b'"') {
                            return self.err("expected a quoted key");
                        }
                        let key = self.string()?;
                        if entries.iter().any(|e| e.key == key) {
                            return Err(SyntaxError {
                                mark: Some(key_mark),
                                message: format!("the key `{key}` appears twice in the same object; keep one"),
                            });
                        }
                        self.ws();
                        if self.peek() != Some(b':') {
                            return self.err("expected `:` after the key");
                        }
                        self.i += 1;
                        let value = self.value(depth + 1)?;
                        entries.push(Entry { key, key_mark, value });
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            None => return self.err("the text ends inside an object (truncated file?)"),
                            _ => return self.err("expected `,` or `}`"),
                        }
                    }
                }
                Value::Map(entries)
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            None => return self.err("the text ends inside an array (truncated file?)"),
                            _ => return self.err("expected `,` or `]`"),
                        }
                    }
                }
                Value::Seq(items)
            }
            Some(b'"') => Value::Str(self.string()?),
            Some(b't') => self.expect_word("true", Value::Bool(true))?,
            Some(b'f') => self.expect_word("false", Value::Bool(false))?,
            Some(b'n') => self.expect_word("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return self.err("unexpected character; expected a value"),
        };
        Ok(Node { value, mark })
    }

    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let digits = |p: &mut P| {
            let s = p.i;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.i += 1;
            }
            p.i - s
        };
        let int_start = self.i;
        if digits(self) == 0 {
            return self.err("a number needs digits");
        }
        if self.s[int_start] == b'0' && self.i - int_start > 1 {
            return self.err("a number may not start with 0");
        }
        let mut is_float = false;
        if self.peek() == Some(b'.') {
            self.i += 1;
            is_float = true;
            if digits(self) == 0 {
                return self.err("a decimal point needs digits after it");
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            is_float = true;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return self.err("an exponent needs digits");
            }
        }
        let text = &self.text[start..self.i];
        if !is_float {
            if let Ok(i) = text.parse::<i128>() {
                return Ok(Value::Int(i));
            }
        }
        Ok(Value::Float(text.parse().unwrap_or(f64::INFINITY)))
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let h = self.s.get(self.i..self.i + 4).and_then(|b| std::str::from_utf8(b).ok());
        match h.and_then(|h| u32::from_str_radix(h, 16).ok()) {
            Some(v) => {
                self.i += 4;
                Ok(v)
            }
            None => self.err("`\\u` needs four hex digits"),
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.i += 1; // opening quote
        let mut out = String::new();
        loop {
            let run_start = self.i;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[run_start..self.i]);
            match self.peek() {
                None => return self.err("the text ends inside a string (truncated file?)"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.peek();
                    self.i += 1;
                    match c {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp) && self.s[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return self.err("a UTF-16 high surrogate must be followed by a low surrogate");
                                }
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            }
                            match char::from_u32(cp) {
                                Some(ch) => out.push(ch),
                                None => return self.err("`\\u` escape is not a valid character"),
                            }
                        }
                        _ => return self.err("unknown escape in string"),
                    }
                }
                Some(_) => return self.err("control characters must be escaped in strings"),
            }
        }
    }
}

/// Parses one JSON document into a tree.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut p = P { s: text.as_bytes(), text, i: 0, line: 1, line_start: 0 };
    // A byte-order mark is tolerated.
    if text.starts_with('\u{feff}') {
        p.i = 3;
        p.line_start = 3;
    }
    p.ws();
    if p.peek().is_none() {
        return Err(SyntaxError {
            mark: None,
            message: "the file is empty; a spec needs at least `platform` and `tasks`".into(),
        });
    }
    let node = p.value(0)?;
    p.ws();
    if p.peek().is_some() {
        return p.err("unexpected text after the end of the document");
    }
    Ok(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses_with_positions() {
        let n = parse("{\n  \"platform\": {\"cpus\": 4},\n  \"tasks\": [{\"name\": \"a\\u00e9\\ud83d\\ude00\"}]\n}")
            .unwrap();
        assert_eq!(n.locate("platform.cpus"), Mark { line: 2, col: 24 });
        assert_eq!(n.locate("tasks[0].name").line, 3);
        assert_eq!(
            n.get("tasks").unwrap().value,
            Value::Seq(vec![Node {
                value: Value::Map(vec![Entry {
                    key: "name".into(),
                    key_mark: Mark { line: 3, col: 14 },
                    value: Node { value: Value::Str("aé😀".into()), mark: Mark { line: 3, col: 22 } }
                }]),
                mark: Mark { line: 3, col: 13 }
            }])
        );
    }
    #[test]
    fn errors() {
        for bad in [
            "{",
            "[1,",
            "{\"a\":}",
            "01",
            "\"abc",
            "{\"a\":1}x",
            "[1,]",
            "{\"a\":1,\"a\":2}",
            "nul",
            "1.",
            "-",
            "\"\\x\"",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse(&"[".repeat(100_000)).is_err());
        // An error right after a multi-byte character must not slice inside it.
        assert!(parse("{\"a\": \"x\\é\"}").is_err());
        assert!(parse("[\"é\" é]").is_err());
        assert_eq!(parse("123456789012345678901234567890").unwrap().value, Value::Int(123456789012345678901234567890));
    }
}
