//! The document tree both front ends (YAML, JSON) produce: plain values with
//! the line and column each came from, so that errors found after parsing
//! (by deserialization or validation) still point into the file.

/// A position in the source text, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub line: usize,
    pub col: usize,
}

/// One value of the document.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Keys in document order; keys are strings with their own position.
    Map(Vec<Entry>),
}

/// A mapping entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_mark: Mark,
    pub value: Node,
}

/// A value and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub mark: Mark,
}

/// Limits that keep any input, however hostile, cheap to read.
pub const MAX_DEPTH: usize = 64;
/// Nodes in one document, counting each expansion of a YAML alias.
pub const MAX_NODES: usize = 2_000_000;

/// One step of a field path such as `tasks[3].period`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Parses `tasks[3].period` into steps. Unparseable pieces end the walk.
pub fn parse_path(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            steps.push(Step::Key(name.to_string()));
        }
        while let Some(close) = rest.find(']') {
            match rest[1..close].parse() {
                Ok(i) => steps.push(Step::Index(i)),
                Err(_) => return steps,
            }
            rest = &rest[close + 1..];
        }
    }
    steps
}

impl Node {
    /// The entry of a map by key.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|e| e.key == key).map(|e| &e.value),
            _ => None,
        }
    }

    /// The position of the deepest node along `path` (`tasks[3].period`) that
    /// exists in the document: the value when present, else its parent.
    pub fn locate(&self, path: &str) -> Mark {
        let mut node = self;
        for step in parse_path(path) {
            let next = match (&node.value, &step) {
                (Value::Map(entries), Step::Key(k)) => entries.iter().find(|e| &e.key == k).map(|e| &e.value),
                (Value::Seq(items), Step::Index(i)) => items.get(*i),
                _ => None,
            };
            match next {
                Some(n) => node = n,
                None => break,
            }
        }
        node.mark
    }

    /// A short description of the value for messages: `the string "abc"`.
    pub fn describe(&self) -> String {
        match &self.value {
            Value::Null => "an empty value".into(),
            Value::Bool(b) => format!("the boolean `{b}`"),
            Value::Int(i) => format!("the number `{i}`"),
            Value::Float(f) => format!("the number `{f}`"),
            Value::Str(s) => format!("the text `{}`", shorten(s)),
            Value::Seq(_) => "a list".into(),
            Value::Map(_) => "a mapping".into(),
        }
    }
}

/// Cuts long text for messages.
pub fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn paths() {
        assert_eq!(
            parse_path("tasks[3].period"),
            vec![Step::Key("tasks".into()), Step::Index(3), Step::Key("period".into())]
        );
        assert_eq!(
            parse_path("platform.clusters[1][0]"),
            vec![Step::Key("platform".into()), Step::Key("clusters".into()), Step::Index(1), Step::Index(0)]
        );
    }
}
