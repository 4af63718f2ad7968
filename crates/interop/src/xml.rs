//! A small XML reader for configuration files: elements with attributes,
//! text ignored, comments, declarations and processing instructions
//! skipped, the five predefined entities and numeric character references
//! decoded. Nesting is bounded. Errors carry the byte offset.

use crate::error::{At, InteropError};

const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub name: String,
    pub at: u64,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
}

impl Element {
    pub fn attr(&self, k: &str) -> Option<&str> {
        self.attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str())
    }
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

fn unescape(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find(';')? + i;
        let ent = &rest[i + 1..end];
        let c = match ent {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ if ent.starts_with("#x") => char::from_u32(u32::from_str_radix(&ent[2..], 16).ok()?)?,
            _ if ent.starts_with('#') => char::from_u32(ent[1..].parse().ok()?)?,
            _ => return None,
        };
        out.push(c);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

struct P<'a> {
    s: &'a str,
    i: usize,
    file: &'a str,
}

impl P<'_> {
    fn err(&self, at: usize, m: impl Into<String>) -> InteropError {
        InteropError::at(self.file, At::Byte(at as u64), m)
    }
    fn skip_misc(&mut self) -> Result<(), InteropError> {
        loop {
            let r = &self.s[self.i..];
            let trimmed = r.trim_start();
            self.i += r.len() - trimmed.len();
            let r = &self.s[self.i..];
            let close = if r.starts_with("<!--") {
                "-->"
            } else if r.starts_with("<?") {
                "?>"
            } else if r.starts_with("<!") {
                ">"
            } else {
                return Ok(());
            };
            match r.find(close) {
                Some(p) => self.i += p + close.len(),
                None => return Err(self.err(self.i, "a comment or declaration is never closed: the file is truncated")),
            }
        }
    }
    fn element(&mut self, depth: usize) -> Result<Element, InteropError> {
        let at = self.i;
        if depth > MAX_DEPTH {
            return Err(self.err(at, format!("elements nested deeper than {MAX_DEPTH}")));
        }
        if !self.s[self.i..].starts_with('<') {
            return Err(self.err(at, "expected an element `<...>`"));
        }
        self.i += 1;
        let name_len = self.s[self.i..]
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .ok_or_else(|| self.err(at, "the file ends inside a tag: it is truncated"))?;
        let name = self.s[self.i..self.i + name_len].to_string();
        if name.is_empty() {
            return Err(self.err(at, "an element without a name"));
        }
        self.i += name_len;
        let mut e = Element { name, at: at as u64, attrs: Vec::new(), children: Vec::new() };
        loop {
            let r = &self.s[self.i..];
            let t = r.trim_start();
            self.i += r.len() - t.len();
            if t.is_empty() {
                return Err(self.err(at, format!("the file ends inside the tag `<{}`: it is truncated", e.name)));
            }
            if t.starts_with("/>") {
                self.i += 2;
                return Ok(e);
            }
            if t.starts_with('>') {
                self.i += 1;
                break;
            }
            let eq = t.find('=').ok_or_else(|| self.err(self.i, "an attribute without `=`"))?;
            let key = t[..eq].trim().to_string();
            let a_at = self.i;
            self.i += eq + 1;
            let r = &self.s[self.i..];
            let t = r.trim_start();
            self.i += r.len() - t.len();
            let q = t
                .chars()
                .next()
                .filter(|c| *c == '"' || *c == '\'')
                .ok_or_else(|| self.err(self.i, format!("the value of `{key}` must be quoted")))?;
            let end = t[1..].find(q).ok_or_else(|| self.err(a_at, format!("the value of `{key}` is never closed")))?;
            let v = unescape(&t[1..1 + end])
                .ok_or_else(|| self.err(a_at, format!("a bad `&...;` reference in `{key}`")))?;
            e.attrs.push((key, v));
            self.i += end + 2;
        }
        // Content.
        loop {
            let next = self.s[self.i..]
                .find('<')
                .ok_or_else(|| self.err(at, format!("`<{}>` is never closed: the file is truncated", e.name)))?;
            self.i += next;
            let r = &self.s[self.i..];
            if r.starts_with("</") {
                let end = r.find('>').ok_or_else(|| self.err(self.i, "the file ends inside a closing tag"))?;
                let n = r[2..end].trim();
                if n != e.name {
                    return Err(self.err(self.i, format!("`</{n}>` closes `<{}>`", e.name)));
                }
                self.i += end + 1;
                return Ok(e);
            }
            if r.starts_with("<!--") || r.starts_with("<?") || r.starts_with("<!") {
                self.skip_misc()?;
                continue;
            }
            let c = self.element(depth + 1)?;
            e.children.push(c);
        }
    }
}

pub fn parse(text: &str, file: &str) -> Result<Element, InteropError> {
    let mut p = P { s: text, i: 0, file };
    p.skip_misc()?;
    let root = p.element(0)?;
    p.skip_misc()?;
    if p.i < text.len() {
        return Err(p.err(p.i, "more content after the root element"));
    }
    Ok(root)
}
