//! Keys given twice in one object of a call's arguments.
//!
//! `{"file": "a", "file": "b"}` is JSON, but which value it holds depends on who reads
//! it: Python's `json` and serde_json keep the last, others keep the first or refuse.
//! A call whose arguments give one key two different values is not released: what the
//! model meant cannot be told. The same key twice with the same value means one thing
//! to every reader: released, with the `duplicate_key` repair named. The rule is the
//! release gate's (`Sink::end`), so it holds for every dialect: JSON arguments as the
//! model wrote them, and the arguments the engine writes from XML parameters, Python
//! keywords or any other form.
//!
//! The scan is one pass over the strict arguments with an explicit stack (no recursion:
//! nesting is bounded only by the arguments limit). It keeps a 64-bit hash per key of
//! the objects still open, in one buffer: eight bytes a key, a few allocations a call.
//! When an object closes its hashes are sorted; only an object where two are equal is
//! read again, member by member, to compare the keys (decoded) and their values.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// What the scan found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Duplicates {
    /// Every key once per object.
    None,
    /// A key given twice, each time with the same value.
    Same,
    /// A key given twice with different values: the first such key, decoded.
    Differ(String),
}

/// One open object or array.
struct Frame {
    object: bool,
    /// The next string is a key.
    expect_key: bool,
    /// Where the object's key hashes begin in the shared buffer.
    hashes: usize,
    /// Where the object begins (its `{`).
    open: usize,
}

/// Scan strict JSON `json` for keys given twice in one object.
pub(crate) fn find(json: &[u8]) -> Duplicates {
    let mut stack: Vec<Frame> = Vec::new();
    let mut hashes: Vec<u64> = Vec::new();
    let mut found = Duplicates::None;
    let mut at = 0;
    while at < json.len() {
        match json[at] {
            b'"' => {
                let end = string_end(json, at);
                if let Some(top) = stack.last_mut().filter(|f| f.object && f.expect_key) {
                    hashes.push(hash(&decode_key(&json[at..end])));
                    top.expect_key = false;
                }
                at = end;
                continue;
            }
            b'{' | b'[' => stack.push(Frame {
                object: json[at] == b'{',
                expect_key: json[at] == b'{',
                hashes: hashes.len(),
                open: at,
            }),
            b',' => {
                if let Some(top) = stack.last_mut().filter(|f| f.object) {
                    top.expect_key = true;
                }
            }
            b'}' | b']' => {
                if let Some(top) = stack.pop() {
                    let keys = &mut hashes[top.hashes..];
                    keys.sort_unstable();
                    if top.object && keys.windows(2).any(|w| w[0] == w[1]) {
                        match compare_members(json, top.open) {
                            Duplicates::None => {}
                            Duplicates::Same => found = Duplicates::Same,
                            differ => return differ,
                        }
                    }
                    hashes.truncate(top.hashes);
                }
            }
            _ => {}
        }
        at += 1;
    }
    found
}

/// The object that begins at `open`, read member by member: whether a key comes twice,
/// and with which values.
fn compare_members(json: &[u8], open: usize) -> Duplicates {
    let mut members: Vec<(Cow<'_, [u8]>, Range<usize>)> = Vec::new();
    let mut found = Duplicates::None;
    let (mut depth, mut at) = (0usize, open);
    let mut key: Option<Cow<'_, [u8]>> = None;
    let mut value_start = 0;
    let mut expect_key = false;
    while at < json.len() {
        match json[at] {
            b'"' => {
                let end = string_end(json, at);
                if depth == 1 && expect_key {
                    key = Some(decode_key(&json[at..end]));
                    expect_key = false;
                }
                at = end;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 {
                    expect_key = true;
                }
            }
            b':' if depth == 1 => value_start = at + 1,
            c @ (b',' | b'}' | b']') if depth == 1 || c != b',' => {
                if depth == 1 {
                    if let Some(k) = key.take() {
                        let value = &json[value_start..at];
                        match members.iter().find(|(m, _)| *m == k) {
                            Some((_, first)) if same_value(&json[first.clone()], value) => {
                                found = Duplicates::Same;
                            }
                            Some(_) => {
                                return Duplicates::Differ(String::from_utf8_lossy(&k).into_owned())
                            }
                            None => members.push((k, value_start..at)),
                        }
                    }
                    expect_key = c == b',';
                }
                if c != b',' {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            _ => {}
        }
        at += 1;
    }
    found
}

/// A key's hash.
fn hash(key: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// Whether two values, as written, are the same value.
fn same_value(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (a.trim_ascii(), b.trim_ascii());
    a == b
        || matches!(
            (
                serde_json::from_slice::<serde_json::Value>(a),
                serde_json::from_slice::<serde_json::Value>(b),
            ),
            (Ok(x), Ok(y)) if x == y
        )
}

/// Just past the string that begins at `start` (its opening quote).
fn string_end(json: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while let Some(i) = memchr::memchr2(b'"', b'\\', &json[at..]) {
        at += i;
        if json[at] == b'\\' {
            at += 2;
        } else {
            return at + 1;
        }
    }
    json.len()
}

/// A key's text (`"a"` with its quotes): as written, or decoded when it holds escapes
/// (`"\u0061"` is `a`).
fn decode_key(quoted: &[u8]) -> Cow<'_, [u8]> {
    let inner = &quoted[1..quoted.len().saturating_sub(1).max(1)];
    if !inner.contains(&b'\\') {
        return Cow::Borrowed(inner);
    }
    match serde_json::from_slice::<String>(quoted) {
        Ok(s) => Cow::Owned(s.into_bytes()),
        Err(_) => Cow::Borrowed(inner),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let cases: &[(&str, Duplicates)] = &[
            (r#"{}"#, Duplicates::None),
            (r#"{"a": 1, "b": 1}"#, Duplicates::None),
            (r#"{"a": "x", "a": "x"}"#, Duplicates::Same),
            (
                r#"{"a": {"k": [1, 2]}, "a": {"k": [1,2]}}"#,
                Duplicates::Same,
            ),
            (
                r#"{"file": "a", "file": "b"}"#,
                Duplicates::Differ("file".into()),
            ),
            (r#"{"a": 1, "\u0061": 2}"#, Duplicates::Differ("a".into())),
            (r#"{"o": {"k": 1, "k": 2}}"#, Duplicates::Differ("k".into())),
            (r#"{"l": [{"k": 1}, {"k": 2}]}"#, Duplicates::None),
            (r#"{"s": "a\"b, \"s\": 2", "t": 1}"#, Duplicates::None),
            (r#"{"a": [1, {"a": 1}], "b": {"a": 2}}"#, Duplicates::None),
            (r#"[{"a": 1}, {"a": 1}]"#, Duplicates::None),
        ];
        for (json, want) in cases {
            assert_eq!(find(json.as_bytes()), *want, "{json}");
        }
    }

    #[test]
    fn many_keys_are_hashed_then_compared() {
        let mut json = String::from("{");
        for i in 0..200 {
            json.push_str(&format!("\"k{i}\": {i}, "));
        }
        json.push_str("\"k7\": 8}");
        assert_eq!(find(json.as_bytes()), Duplicates::Differ("k7".into()));
        let same = json.replace("\"k7\": 8}", "\"k150\": 150}");
        assert_eq!(find(same.as_bytes()), Duplicates::Same);
    }
}
