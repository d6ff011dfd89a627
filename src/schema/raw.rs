//! Typing the raw text of a parameter value (XML, pythonic and Gemma dialects) by its
//! declared schema.

use super::coerce::{conform, decode_container, parse_bool, parse_number};
use super::types::{NodeId, Schema, TypeSet};
use crate::ordered::Value;
use crate::repairs::{Repair, Repairs};

/// Type `raw` by node `id` (`None`: undeclared). Returns the value and its repairs.
///
/// Where a string is allowed the text stays a string. Otherwise the first reading that
/// fits wins: `null`/`None`, a boolean word, a number, a JSON or Python container (or a
/// bare scalar wrapped where an array is declared). Undecidable text stays a string.
pub(crate) fn type_raw(schema: &Schema, id: Option<NodeId>, raw: &str) -> (Value, Repairs) {
    let keep = || (Value::String(raw.to_owned()), Repairs::NONE);
    let types = id.map_or(TypeSet::default(), |id| schema.effective_types(id));
    let t = raw.trim();
    if types.is_any() {
        return match Value::parse(t) {
            Some(Value::String(_)) | None => keep(),
            Some(mut value) => {
                let mut repairs = Repairs::NONE;
                if let Some(id) = id {
                    conform(schema, id, &mut value, &mut repairs);
                }
                repairs.insert(Repair::TypedValue);
                (value, repairs)
            }
        };
    }
    if types.has(TypeSet::STRING) {
        return keep();
    }
    let typed = |value: Value| {
        let mut repairs = Repairs::NONE;
        repairs.insert(Repair::TypedValue);
        (value, repairs)
    };
    if types.has(TypeSet::NULL) && (t == "null" || t == "None") {
        return typed(Value::Null);
    }
    if types.has(TypeSet::BOOLEAN) {
        if let Some(b) = parse_bool(t, false) {
            return typed(Value::Bool(b));
        }
    }
    if types.has(TypeSet::INTEGER) || types.has(TypeSet::NUMBER) {
        if let Some(n) = parse_number(t, types) {
            return typed(n);
        }
    }
    if types.has(TypeSet::BOOLEAN) {
        if let Some(b) = parse_bool(t, true) {
            return typed(Value::Bool(b));
        }
    }
    let Some(id) = id else {
        return keep();
    };
    if types.has(TypeSet::ARRAY) || types.has(TypeSet::OBJECT) {
        let mut repairs = Repairs::NONE;
        let mut value = if let Some((v, python)) =
            decode_container(t, b'[').or_else(|| decode_container(t, b'{'))
        {
            if python {
                repairs.insert(Repair::PythonValue);
            }
            v
        } else if let Some(v) = double_escaped(t) {
            // `[{\"id\": 1}]`: the container as the body of a JSON string (the model
            // escaped it once more), decoded as such a string would be.
            repairs.insert(match v {
                Value::Array(_) => Repair::StringToArray,
                _ => Repair::StringToObject,
            });
            v
        } else if t.starts_with(['[', '{', '(']) {
            // Looks like a container but is not one: cannot decide.
            return keep();
        } else {
            Value::String(raw.to_owned())
        };
        conform(schema, id, &mut value, &mut repairs);
        if value.is_string() || !schema.effective_types(id).allows(&value) {
            return keep();
        }
        repairs.insert(Repair::TypedValue);
        return (value, repairs);
    }
    keep()
}

/// Type the text leaves of a value whose structure is already read (MiniMax M3's
/// elements: objects and lists as child elements, every leaf text) as [`type_raw`]
/// types one parameter's text, each by the schema node it stands at (`None`: no schema
/// reaches it, and it is typed by what it reads as, [`type_untyped`]).
pub(crate) fn type_raw_leaves(
    schema: &Schema,
    id: Option<NodeId>,
    value: &mut Value,
    repairs: &mut Repairs,
) {
    let Some(id) = id else {
        type_untyped(value);
        return;
    };
    match value {
        Value::String(text) => {
            let (typed, found) = type_raw(schema, Some(id), text);
            *value = typed;
            *repairs = repairs.union(found);
        }
        Value::Object(map) => {
            let node = schema.node(id);
            for (key, member) in map.iter_mut() {
                let child = match (node.property(key), &node.additional) {
                    (Some(child), _) => Some(child),
                    (None, super::types::Additional::Schema(child)) => Some(*child),
                    _ => None,
                };
                type_raw_leaves(schema, child, member, repairs);
            }
        }
        Value::Array(items) => {
            let item = schema.node(id).items;
            for element in items {
                type_raw_leaves(schema, item, element, repairs);
            }
        }
        _ => {}
    }
}

/// The leaves of a value no schema types, typed by what they read as (as an XML
/// parameter's value is): text that parses strictly as JSON other than a string is that
/// JSON. An integer too large for a JSON number's range of exact values stays text.
pub(crate) fn type_untyped(value: &mut Value) {
    match value {
        Value::String(text) => {
            let t = text.trim();
            let exact = |v: &Value| match v {
                Value::Number(n) => !n.is_f64() || t.contains(['.', 'e', 'E']),
                _ => true,
            };
            if let Some(v) = Value::parse(t).filter(|v| !v.is_string() && exact(v)) {
                *value = v;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(type_untyped),
        Value::Object(map) => map.iter_mut().for_each(|(_, v)| type_untyped(v)),
        _ => {}
    }
}

/// A JSON container written with its quotes escaped (`[{\"a\": 1}]`): decoded as the
/// body of a JSON string, then parsed. Only text that holds such escapes qualifies.
fn double_escaped(t: &str) -> Option<Value> {
    if !t.starts_with(['[', '{']) || !t.contains("\\\"") {
        return None;
    }
    let text: String = serde_json::from_str(&format!("\"{t}\"")).ok()?;
    match Value::parse(&text)? {
        v @ (Value::Array(_) | Value::Object(_)) => Some(v),
        _ => None,
    }
}
