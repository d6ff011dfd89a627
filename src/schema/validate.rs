//! Validation of a (repaired) value against a compiled schema.

use super::types::{type_name, Additional, NodeId, Schema};
use crate::ordered::Value;
use std::fmt;

/// How deep validation follows nested values before it stops looking.
const MAX_DEPTH: usize = 64;

/// One way a call's arguments do not fit the tool's schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// Where, as a JSON pointer into the arguments (`/edits/0/path`); empty for the
    /// arguments object itself.
    pub path: String,
    /// What is wrong, lower-case (`expected string, got number`).
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ValidationError {}

/// Append `key` to a JSON pointer, escaping `~` and `/`.
pub(crate) fn push_path(path: &str, key: &str) -> String {
    let mut out = String::with_capacity(path.len() + key.len() + 1);
    out.push_str(path);
    out.push('/');
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// Validate `value` against node `id`, appending errors.
pub(crate) fn validate(
    schema: &Schema,
    id: NodeId,
    value: &Value,
    path: &str,
    errors: &mut Vec<ValidationError>,
) {
    validate_depth(schema, id, value, path, errors, 0);
}

/// Whether `value` fits node `id` without any error.
pub(crate) fn fits(schema: &Schema, id: NodeId, value: &Value) -> bool {
    let mut errors = Vec::new();
    validate(schema, id, value, "", &mut errors);
    errors.is_empty()
}

fn error(errors: &mut Vec<ValidationError>, path: &str, message: String) {
    errors.push(ValidationError {
        path: path.to_owned(),
        message,
    });
}

fn validate_depth(
    schema: &Schema,
    id: NodeId,
    value: &Value,
    path: &str,
    errors: &mut Vec<ValidationError>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = schema.node(id);
    if !node.types.allows(value) {
        let message = format!(
            "expected {}, got {}",
            node.types.describe(),
            type_name(value)
        );
        error(errors, path, message);
        return;
    }
    if !node.any_of.is_empty() {
        let mut matched = false;
        for &alt in &node.any_of {
            let mut alt_errors = Vec::new();
            validate_depth(schema, alt, value, path, &mut alt_errors, depth + 1);
            if alt_errors.is_empty() {
                matched = true;
                break;
            }
        }
        if !matched {
            let types = schema.effective_types(id);
            let message = if types.allows(value) || types.is_any() {
                "does not match any of the allowed schemas".to_owned()
            } else {
                format!("expected {}, got {}", types.describe(), type_name(value))
            };
            error(errors, path, message);
            return;
        }
    }
    if let Some(allowed) = &node.enumeration {
        if !allowed.iter().any(|a| equal(a, value)) {
            let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
            error(errors, path, format!("expected one of {}", list.join(", ")));
            return;
        }
    }
    match value {
        Value::Object(map) => {
            for key in &node.required {
                if !map.contains_key(key) {
                    let what = if path.is_empty() { "parameter" } else { "key" };
                    error(errors, path, format!("missing required {what} \"{key}\""));
                }
            }
            for (key, member) in map {
                let child = push_path(path, key);
                match node.property(key) {
                    Some(prop) => validate_depth(schema, prop, member, &child, errors, depth + 1),
                    None => match node.additional {
                        Additional::Any => {}
                        Additional::Forbidden => {
                            let what = if path.is_empty() { "parameter" } else { "key" };
                            error(errors, path, format!("unexpected {what} \"{key}\""));
                        }
                        Additional::Schema(extra) => {
                            validate_depth(schema, extra, member, &child, errors, depth + 1)
                        }
                    },
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.items {
                for (i, element) in items.iter().enumerate() {
                    let child = push_path(path, &i.to_string());
                    validate_depth(schema, item, element, &child, errors, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// JSON equality where `1` equals `1.0`.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}
