//! JSON values whose objects keep their members in the order they were written.
//!
//! serde_json's `Map` sorts its keys unless its `preserve_order` feature is on, and a
//! library must not turn that on: cargo would unify it into every user's build. The
//! engine writes values it built or repaired (a coerced member, parameters gathered into
//! an object, a Python dict, an SSE chunk), and the model's key order must survive that
//! (invariant 1). These types keep the order, and write JSON exactly as serde_json's
//! compact writer does. `serde_json::Value` stays the type of the public API; these
//! convert from and to it at the edges.

use serde_json::value::RawValue;
use serde_json::Number;
use std::collections::HashMap;
use std::fmt;

/// A JSON value; objects keep their members in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map),
}

/// An object's members in order. A key is looked up by a scan while the object is
/// small and through an index once it grows, so building an object stays linear.
#[derive(Clone, Default)]
pub(crate) struct Map {
    entries: Vec<(String, Value)>,
    /// Key → position, kept once there are more than [`SCAN_UP_TO`] members.
    index: Option<HashMap<String, usize>>,
}

/// Objects up to this many members are searched by a scan.
const SCAN_UP_TO: usize = 16;

impl Map {
    pub(crate) fn new() -> Map {
        Map::default()
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k == key),
        }
    }

    fn reindex(&mut self) {
        self.index = (self.entries.len() > SCAN_UP_TO).then(|| {
            let pairs = self.entries.iter().enumerate();
            pairs.map(|(i, (k, _))| (k.clone(), i)).collect()
        });
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }

    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Set `key`: a key already present keeps its place (as serde_json's
    /// order-keeping map does), a new one goes last. Returns the value replaced.
    pub(crate) fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        if let Some(i) = self.position(&key) {
            return Some(std::mem::replace(&mut self.entries[i].1, value));
        }
        if let Some(index) = &mut self.index {
            index.insert(key.clone(), self.entries.len());
        }
        self.entries.push((key, value));
        if self.index.is_none() && self.entries.len() > SCAN_UP_TO {
            self.reindex();
        }
        None
    }

    /// Remove `key`, keeping the order of the others.
    pub(crate) fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.position(key)?;
        let (_, value) = self.entries.remove(i);
        self.reindex();
        Some(value)
    }

    /// Keep only the members `keep` accepts, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&str, &Value) -> bool) {
        self.entries.retain(|(k, v)| keep(k, v));
        self.reindex();
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|(_, v)| v)
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Objects are equal when they hold the same members, in any order (as in JSON).
impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        let mut map = Map::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (String, Value)>, MemberRef>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

type MemberRef = for<'a> fn(&'a (String, Value)) -> (&'a String, &'a Value);

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl Value {
    /// Parse strict JSON text (what `serde_json::from_str::<serde_json::Value>` accepts,
    /// surrounding blanks allowed); objects keep their members in the order written, a
    /// repeated key keeps its first place and its last value. `None` when it is not JSON.
    pub(crate) fn parse(text: &str) -> Option<Value> {
        // serde_json decides what is JSON (grammar, nesting limit, escapes).
        serde_json::from_str::<&RawValue>(text).ok()?;
        Reader { text, pos: 0 }.value()
    }

    /// [`Value::parse`] of bytes, which must be UTF-8.
    pub(crate) fn parse_slice(bytes: &[u8]) -> Option<Value> {
        Value::parse(std::str::from_utf8(bytes).ok()?)
    }

    /// An object from members in order (the SSE encoder's chunks).
    #[cfg_attr(not(feature = "codec"), allow(dead_code))]
    pub(crate) fn object<K: Into<String>>(members: impl IntoIterator<Item = (K, Value)>) -> Value {
        Value::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub(crate) fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub(crate) fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    pub(crate) fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// An object's member `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    /// The value, leaving `null` in its place.
    pub(crate) fn take(&mut self) -> Value {
        std::mem::take(self)
    }

    /// The value a JSON pointer (`/a/0/b`) names.
    pub(crate) fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut target = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            target = match target {
                Value::Object(map) => map.get(&token)?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(target)
    }

    /// The same value as a `serde_json::Value` (whose maps may sort their keys).
    pub(crate) fn to_serde(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::Value::Number(n.clone()),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(Value::to_serde).collect())
            }
            Value::Object(map) => serde_json::Value::Object(
                map.iter().map(|(k, v)| (k.clone(), v.to_serde())).collect(),
            ),
        }
    }

    /// Write the value as compact JSON (as `serde_json::to_writer` does).
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        match self {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(true) => out.extend_from_slice(b"true"),
            Value::Bool(false) => out.extend_from_slice(b"false"),
            // Writing into memory cannot fail.
            Value::Number(n) => serde_json::to_writer(out, n).expect("write json into memory"),
            Value::String(s) => write_str(s, out),
            Value::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write(out);
                }
                out.push(b']');
            }
            Value::Object(map) => {
                out.push(b'{');
                for (i, (key, value)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_str(key, out);
                    out.push(b':');
                    value.write(out);
                }
                out.push(b'}');
            }
        }
    }
}

/// A string as a JSON string literal.
pub(crate) fn write_str(s: &str, out: &mut Vec<u8>) {
    serde_json::to_writer(out, s).expect("write json into memory");
}

/// Compact JSON text, as `serde_json::Value`'s `Display` writes it.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        self.write(&mut out);
        // The writer only writes UTF-8.
        f.write_str(std::str::from_utf8(&out).map_err(|_| fmt::Error)?)
    }
}

/// From a `serde_json::Value`: objects take the order its maps iterate in.
impl From<&serde_json::Value> for Value {
    fn from(value: &serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Number(n.clone()),
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(items) => {
                Value::Array(items.iter().map(Value::from).collect())
            }
            serde_json::Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Value::from(v)))
                    .collect(),
            ),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(n.into())
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Number(n.into())
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Value {
        Value::Number(n.into())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Value {
        value.map_or(Value::Null, Into::into)
    }
}

/// Reads text serde_json has already accepted as JSON.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn blanks(&mut self) {
        let bytes = self.text.as_bytes();
        while bytes.get(self.pos).is_some_and(|b| b" \t\n\r".contains(b)) {
            self.pos += 1;
        }
    }

    /// Step over `byte` after blanks (the text is valid: it is there when expected).
    fn eat(&mut self, byte: u8) -> bool {
        self.blanks();
        let found = self.text.as_bytes().get(self.pos) == Some(&byte);
        self.pos += usize::from(found);
        found
    }

    fn value(&mut self) -> Option<Value> {
        self.blanks();
        let rest = &self.text[self.pos..];
        match rest.as_bytes().first()? {
            b'{' => {
                self.pos += 1;
                let mut map = Map::new();
                if self.eat(b'}') {
                    return Some(Value::Object(map));
                }
                loop {
                    self.blanks();
                    let key = self.string()?;
                    self.eat(b':').then_some(())?;
                    map.insert(key, self.value()?);
                    if !self.eat(b',') {
                        self.eat(b'}').then_some(())?;
                        return Some(Value::Object(map));
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Value::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    if !self.eat(b',') {
                        self.eat(b']').then_some(())?;
                        return Some(Value::Array(items));
                    }
                }
            }
            b'"' => self.string().map(Value::String),
            _ => {
                for (word, value) in [("true", true), ("false", false)] {
                    if rest.starts_with(word) {
                        self.pos += word.len();
                        return Some(Value::Bool(value));
                    }
                }
                if rest.starts_with("null") {
                    self.pos += 4;
                    return Some(Value::Null);
                }
                let len = rest
                    .find(|c: char| !matches!(c, '0'..='9' | '-' | '+' | '.' | 'e' | 'E'))
                    .unwrap_or(rest.len());
                self.pos += len;
                // Out of range (`1e400`) is not JSON to serde_json either.
                serde_json::from_str::<Number>(&rest[..len])
                    .ok()
                    .map(Value::Number)
            }
        }
    }

    /// The string literal at the position, decoded.
    fn string(&mut self) -> Option<String> {
        let bytes = self.text.as_bytes();
        if bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos;
        let mut at = start + 1;
        let mut escaped = false;
        loop {
            match bytes.get(at)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    at += 2;
                }
                _ => at += 1,
            }
        }
        self.pos = at + 1;
        if !escaped {
            return Some(self.text[start + 1..at].to_owned());
        }
        serde_json::from_str(&self.text[start..=at]).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_their_order_through_parse_and_write() {
        for (text, written) in [
            (
                r#"{"z": 1, "a": [{"y": null, "b": "\u00e9\"x"}], "m": {"k2": true, "k1": -0.5e3}}"#,
                r#"{"z":1,"a":[{"y":null,"b":"é\"x"}],"m":{"k2":true,"k1":-500.0}}"#,
            ),
            (
                r#"[1,"two",{"b":{},"a":[]}]"#,
                r#"[1,"two",{"b":{},"a":[]}]"#,
            ),
            (r#""\ud83d\ude00 \n\u0001""#, r#""😀 \n\u0001""#),
            ("12345678901234567890", "12345678901234567890"),
            (" -0 ", "-0.0"),
            ("1.5", "1.5"),
        ] {
            let value = Value::parse(text).unwrap();
            let expected = serde_json::from_str::<serde_json::Value>(text).unwrap();
            assert_eq!(value.to_serde(), expected, "{text}");
            assert_eq!(value.to_string(), written, "{text}");
            assert_eq!(Value::from(&expected).to_serde(), expected, "{text}");
        }
    }

    #[test]
    fn not_json_is_none() {
        for text in [
            "",
            "{",
            "[1,]",
            "{'a': 1}",
            "1e400",
            r#""\ud800""#,
            "[1] x",
            "nul",
        ] {
            assert_eq!(Value::parse(text), None, "{text}");
        }
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_its_last_value() {
        let value = Value::parse(r#"{"b": 1, "a": 2, "b": 3}"#).unwrap();
        assert_eq!(value.to_string(), r#"{"b":3,"a":2}"#);
    }

    #[test]
    fn large_objects_are_indexed_and_keep_order() {
        let mut map = Map::new();
        for i in (0..100).rev() {
            map.insert(format!("k{i}"), Value::from(i as u64));
        }
        assert_eq!(map.get("k7"), Some(&Value::from(7u64)));
        map.remove("k50");
        map.retain(|k, _| k != "k3");
        assert_eq!(map.len(), 98);
        assert_eq!(map.get("k2"), Some(&Value::from(2u64)));
        assert_eq!(map.keys().next().unwrap(), "k99");
        assert!(!map.contains_key("k50") && !map.contains_key("k3"));
        map.insert("k99".into(), Value::Null);
        assert_eq!(map.iter().next(), Some((&"k99".to_owned(), &Value::Null)));
    }

    #[test]
    fn objects_compare_as_sets_of_members() {
        let a = Value::parse(r#"{"x": 1, "y": [1, 2]}"#).unwrap();
        let b = Value::parse(r#"{"y": [1, 2], "x": 1}"#).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, Value::parse(r#"{"x": 1, "y": [2, 1]}"#).unwrap());
    }
}
