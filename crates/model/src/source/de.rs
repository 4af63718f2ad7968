//! A serde `Deserializer` over the positioned tree: the spec types derive
//! `Deserialize` (one source of truth, shared with the JSON Schema), and every
//! error carries the position of the value it is about.

use super::node::{shorten, Mark, Node, Value};
use serde::de::{self, Error as _, IntoDeserializer, Visitor};
use std::fmt;

/// A deserialization error and where in the file it is.
#[derive(Debug, Clone, PartialEq)]
pub struct DeError {
    pub message: String,
    pub mark: Option<Mark>,
}

impl DeError {
    fn at(mut self, mark: Mark) -> Self {
        self.mark.get_or_insert(mark);
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for DeError {}

/// The closest of `candidates` to `word`, if close enough to be a likely typo.
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let w = word.to_lowercase();
    // An abbreviation (`prio` for `priority`) beats a small edit distance.
    if w.len() >= 3 {
        if let Some(c) = candidates.iter().filter(|c| c.to_lowercase().starts_with(&w)).min_by_key(|c| c.len()) {
            return Some(c);
        }
    }
    candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&word.to_lowercase(), &c.to_lowercase()), *c))
        .filter(|&(d, c)| d <= 2.max(c.len() / 3))
        .min()
        .map(|(_, c)| c)
}

fn one_of(expected: &[&str]) -> String {
    expected.iter().map(|e| format!("`{e}`")).collect::<Vec<_>>().join(", ")
}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError { message: msg.to_string(), mark: None }
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        let hint = match did_you_mean(field, expected) {
            Some(s) => format!("did you mean `{s}`? "),
            None => String::new(),
        };
        DeError::custom(format!("unknown key `{}`; {hint}valid keys here: {}", shorten(field), one_of(expected)))
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let hint = match did_you_mean(variant, expected) {
            Some(s) => format!("did you mean `{s}`? "),
            None => String::new(),
        };
        DeError::custom(format!("unknown value `{}`; {hint}valid values: {}", shorten(variant), one_of(expected)))
    }
    fn missing_field(field: &'static str) -> Self {
        DeError::custom(format!("the required key `{field}` is missing; add it"))
    }
    fn invalid_type(unexp: de::Unexpected, exp: &dyn de::Expected) -> Self {
        DeError::custom(format!("expected {exp}, found {}", describe_unexpected(unexp)))
    }
    fn invalid_value(unexp: de::Unexpected, exp: &dyn de::Expected) -> Self {
        DeError::custom(format!("{} is out of range; expected {exp}", describe_unexpected(unexp)))
    }
    fn invalid_length(len: usize, exp: &dyn de::Expected) -> Self {
        DeError::custom(format!("found {len} elements; expected {exp}"))
    }
}

fn describe_unexpected(u: de::Unexpected) -> String {
    use de::Unexpected as U;
    match u {
        U::Bool(b) => format!("the boolean `{b}`"),
        U::Unsigned(i) => format!("the number `{i}`"),
        U::Signed(i) => format!("the number `{i}`"),
        U::Float(f) => format!("the number `{f}`"),
        U::Str(s) => format!("the text `{}`", shorten(s)),
        U::Seq => "a list".into(),
        U::Map => "a mapping".into(),
        U::Unit | U::Option => "an empty value".into(),
        other => other.to_string(),
    }
}

/// Deserializes from a node.
pub struct NodeDe<'a>(pub &'a Node);

impl<'a> NodeDe<'a> {
    fn scalar_text(&self) -> Option<String> {
        match &self.0.value {
            Value::Str(s) => Some(s.clone()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

macro_rules! forward_to_any {
    ($($m:ident)*) => { $(
        fn $m<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> { self.deserialize_any(v) }
    )* };
}

impl<'de, 'a> de::Deserializer<'de> for NodeDe<'a> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        let mark = self.0.mark;
        let r = match &self.0.value {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(*b),
            Value::Int(i) => {
                if let Ok(u) = u64::try_from(*i) {
                    v.visit_u64(u)
                } else if let Ok(s) = i64::try_from(*i) {
                    v.visit_i64(s)
                } else {
                    return Err(DeError::custom(format!("the number `{i}` is too large")).at(mark));
                }
            }
            Value::Float(f) => v.visit_f64(*f),
            Value::Str(s) => v.visit_str(s),
            Value::Seq(items) => v.visit_seq(SeqDe { iter: items.iter() }),
            Value::Map(entries) => v.visit_map(MapDe { iter: entries.iter(), value: None }),
        };
        r.map_err(|e| e.at(mark))
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.0.value {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        // Any scalar can stand for text (a task named `1` in YAML is fine).
        match self.scalar_text() {
            Some(s) => v.visit_string(s).map_err(|e: DeError| e.at(self.0.mark)),
            None => self.deserialize_any(v),
        }
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_str(v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        let mark = self.0.mark;
        match &self.0.value {
            Value::Str(s) => v.visit_enum(s.as_str().into_deserializer()).map_err(|e: DeError| e.at(mark)),
            _ => Err(DeError::custom(format!("expected a name, found {}", self.0.describe())).at(mark)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value, DeError> {
        v.visit_newtype_struct(self)
    }

    forward_to_any! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes deserialize_byte_buf
        deserialize_unit deserialize_seq deserialize_map deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Result<V::Value, DeError> {
        self.deserialize_any(v)
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, DeError> {
        self.deserialize_any(v)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, _: usize, v: V) -> Result<V::Value, DeError> {
        self.deserialize_any(v)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        match self.0.value {
            Value::Map(_) => self.deserialize_any(v),
            _ => {
                Err(DeError::custom(format!("expected a mapping of keys, found {}", self.0.describe())).at(self.0.mark))
            }
        }
    }
}

struct SeqDe<'a> {
    iter: std::slice::Iter<'a, Node>,
}

impl<'de, 'a> de::SeqAccess<'de> for SeqDe<'a> {
    type Error = DeError;
    fn next_element_seed<T: de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, DeError> {
        match self.iter.next() {
            Some(n) => seed.deserialize(NodeDe(n)).map(Some).map_err(|e| e.at(n.mark)),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct MapDe<'a> {
    iter: std::slice::Iter<'a, super::node::Entry>,
    value: Option<&'a Node>,
}

impl<'de, 'a> de::MapAccess<'de> for MapDe<'a> {
    type Error = DeError;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DeError> {
        match self.iter.next() {
            Some(e) => {
                self.value = Some(&e.value);
                let key: de::value::StrDeserializer<DeError> = e.key.as_str().into_deserializer();
                seed.deserialize(key).map(Some).map_err(|err| err.at(e.key_mark))
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let n = self.value.take().expect("value after key");
        seed.deserialize(NodeDe(n)).map_err(|e| e.at(n.mark))
    }
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;
    #[test]
    fn hints() {
        let keys = ["name", "wcet", "period", "deadline", "priority", "cpu"];
        assert_eq!(did_you_mean("prio", &keys), Some("priority"));
        assert_eq!(did_you_mean("perod", &keys), Some("period"));
        assert_eq!(did_you_mean("Period", &keys), Some("period"));
        assert_eq!(did_you_mean("zzzzzz", &keys), None);
    }
}
