//! Arguments written as command-line text (`read --file main.go -n 5 extra`) mapped to
//! declared parameters.
//!
//! Flags (`--name value`, `--name=value`, `-n value`, a bare `--flag` for a boolean)
//! match parameters by name, ignoring case, `-` and `_`; a one-letter flag matches the
//! only parameter starting with that letter. Positional words go, in order, to the
//! required parameters still unset, in declaration order (the last one collects the
//! rest when it is an array). A leading word naming the tool is skipped. Values stay
//! strings here; conformance types them afterwards.

use super::types::{NodeId, Schema, TypeSet};
use crate::ordered::{Map, Value};

/// Split text into shell-like words (single and double quotes, backslash escapes).
/// `None` when a quote is left open.
pub(crate) fn tokenize(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('"' | '\\' | '$' | '`') => word.push(c),
                            c => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// Lower-case with `-`, `_`, `.` and spaces removed.
pub(crate) fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// A flag word split into its name and inline value; `None` for non-flags (including
/// negative numbers and a lone `-`/`--`).
fn flag(word: &str) -> Option<(&str, Option<&str>)> {
    let body = word.strip_prefix("--").or_else(|| word.strip_prefix('-'))?;
    if !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    Some(match body.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (body, None),
    })
}

/// The parameter a flag names.
fn param_for<'s>(params: &'s [(String, NodeId)], name: &str) -> Option<&'s (String, NodeId)> {
    let wanted = normalize(name);
    if let Some(p) = params.iter().find(|(k, _)| normalize(k) == wanted) {
        return Some(p);
    }
    if wanted.chars().count() == 1 {
        let mut starting = params
            .iter()
            .filter(|(k, _)| normalize(k).starts_with(&wanted));
        let first = starting.next()?;
        return starting.next().is_none().then_some(first);
    }
    None
}

/// Whether some word of `text` is a flag spelling out a declared parameter's name.
pub(crate) fn has_declared_flag(schema: &Schema, text: &str) -> bool {
    let Some(params) = schema.node(schema.root()).properties.as_ref() else {
        return false;
    };
    tokenize(text).is_some_and(|words| {
        words.iter().filter_map(|w| flag(w)).any(|(name, _)| {
            let name = normalize(name);
            params.iter().any(|(k, _)| normalize(k) == name)
        })
    })
}

/// Map command-line text to an arguments object; `None` when it cannot be decided.
pub(crate) fn map(schema: &Schema, tool: &str, text: &str) -> Option<Map> {
    let root = schema.node(schema.root());
    let params = root.properties.as_ref()?;
    let mut words = tokenize(text)?;
    if let Some(first) = words.first() {
        let tool_words: Vec<String> = tool.split(['_', '-', '.', ' ']).map(normalize).collect();
        let first = normalize(first);
        if flag(&words[0]).is_none() && (first == normalize(tool) || tool_words.contains(&first)) {
            words.remove(0);
        }
    }
    let mut out = Map::new();
    let mut positionals = Vec::new();
    let mut words = words.into_iter().peekable();
    while let Some(word) = words.next() {
        let Some((name, inline)) = flag(&word) else {
            positionals.push(word);
            continue;
        };
        let (key, id) = param_for(params, name)?;
        let types = schema.effective_types(*id);
        let boolean = types.has(TypeSet::BOOLEAN) && !types.has(TypeSet::STRING);
        let value = match inline {
            Some(v) => Value::String(v.to_owned()),
            None if boolean => match words.peek() {
                Some(next) if super::coerce::parse_bool(next, false).is_some() => {
                    Value::String(words.next()?)
                }
                _ => Value::Bool(true),
            },
            None => match words.peek() {
                Some(next) if flag(next).is_none() => Value::String(words.next()?),
                _ => return None,
            },
        };
        add(&mut out, key, value, types)?;
    }
    let remaining: Vec<&(String, NodeId)> = root
        .required
        .iter()
        .filter(|k| !out.contains_key(k))
        .filter_map(|k| params.iter().find(|(p, _)| p == k))
        .collect();
    let mut positionals = positionals.into_iter();
    for (i, (key, id)) in remaining.iter().enumerate() {
        let types = schema.effective_types(*id);
        if i + 1 == remaining.len() && types.has(TypeSet::ARRAY) {
            let rest: Vec<Value> = positionals.by_ref().map(Value::String).collect();
            if !rest.is_empty() {
                out.insert(key.clone(), Value::Array(rest));
            }
            break;
        }
        match positionals.next() {
            Some(word) => {
                out.insert(key.clone(), Value::String(word));
            }
            None => break,
        }
    }
    if positionals.next().is_some() || out.is_empty() {
        return None;
    }
    Some(out)
}

/// Set a parameter; a repeated flag accumulates only for an array parameter.
fn add(out: &mut Map, key: &str, value: Value, types: TypeSet) -> Option<()> {
    match out.get_mut(key) {
        None => {
            out.insert(key.to_owned(), value);
        }
        Some(existing) if types.has(TypeSet::ARRAY) => match existing {
            Value::Array(items) => items.push(value),
            other => *other = Value::Array(vec![other.take(), value]),
        },
        Some(_) => return None,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            ("a b  c", Some(&["a", "b", "c"])),
            ("--msg 'hello world'", Some(&["--msg", "hello world"])),
            (r#"x "a \"q\" b" y\ z"#, Some(&["x", "a \"q\" b", "y z"])),
            ("''", Some(&[""])),
            ("'open", None),
        ];
        for (text, expected) in cases {
            let got = tokenize(text);
            let expected = expected.map(|e| e.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            assert_eq!(got, expected, "{text}");
        }
    }

    #[test]
    fn flags() {
        assert_eq!(flag("--file=a"), Some(("file", Some("a"))));
        assert_eq!(flag("-f"), Some(("f", None)));
        assert_eq!(flag("-5"), None);
        assert_eq!(flag("--"), None);
        assert_eq!(flag("main.go"), None);
    }
}
