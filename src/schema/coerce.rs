//! Shape repair and scalar coercion of a value against its declared schema.
//!
//! The schema is the prior: nothing happens to a value whose JSON type the schema
//! allows (containers are only walked into). Only where the shape disagrees with the
//! declared type is a repair tried, and only a repair whose result fits is kept; a
//! value that cannot be decided is left as it is.

use super::python;
use super::types::{is_integral, NodeId, Schema, TypeSet};
use super::validate::fits;
use crate::ordered::Value;
use crate::repairs::{Repair, Repairs};
use serde_json::Number;

/// How deep conformance follows nested values.
const MAX_DEPTH: usize = 64;

/// The scalar types: a `null` member declared as one of these (and not null) is dropped.
const SCALARS: TypeSet = TypeSet::STRING
    .with(TypeSet::NUMBER)
    .with(TypeSet::INTEGER)
    .with(TypeSet::BOOLEAN);

/// Conform `value` to node `id` in place. Returns whether it changed.
pub(crate) fn conform(
    schema: &Schema,
    id: NodeId,
    value: &mut Value,
    repairs: &mut Repairs,
) -> bool {
    conform_depth(schema, id, value, repairs, 0)
}

/// Whether a `null` member declared by node `id` should be dropped: the node allows
/// only scalar types, and not null.
pub(crate) fn null_droppable(schema: &Schema, id: NodeId) -> bool {
    let types = schema.effective_types(id);
    !types.is_any() && !types.has(TypeSet::NULL) && SCALARS.has(types)
}

fn conform_depth(
    schema: &Schema,
    id: NodeId,
    value: &mut Value,
    repairs: &mut Repairs,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let node = schema.node(id);
    if node.types.is_any() && !node.any_of.is_empty() {
        return conform_union(schema, id, value, repairs, depth);
    }
    let types = schema.effective_types(id);
    if types.allows(value) {
        return walk(schema, id, value, repairs, depth);
    }
    reshape(schema, id, types, value, repairs, depth)
}

/// `anyOf`/`oneOf`: unchanged when some alternative already fits; otherwise the first
/// alternative the value can be conformed to.
fn conform_union(
    schema: &Schema,
    id: NodeId,
    value: &mut Value,
    repairs: &mut Repairs,
    depth: usize,
) -> bool {
    if fits(schema, id, value) {
        return false;
    }
    for &alt in &schema.node(id).any_of {
        let mut candidate = value.clone();
        let mut found = Repairs::NONE;
        if conform_depth(schema, alt, &mut candidate, &mut found, depth + 1)
            && fits(schema, alt, &candidate)
        {
            *value = candidate;
            *repairs = repairs.union(found);
            return true;
        }
    }
    false
}

/// Walk into a container whose type is allowed, conforming members and items.
fn walk(
    schema: &Schema,
    id: NodeId,
    value: &mut Value,
    repairs: &mut Repairs,
    depth: usize,
) -> bool {
    let node = schema.node(id);
    let mut changed = false;
    match value {
        Value::Object(map) => {
            let mut drop = Vec::new();
            for (key, member) in map.iter_mut() {
                let child = match node.property(key) {
                    Some(prop) => prop,
                    None => match node.additional {
                        super::types::Additional::Schema(extra) => extra,
                        _ => continue,
                    },
                };
                if member.is_null() && null_droppable(schema, child) {
                    drop.push(key.clone());
                    continue;
                }
                changed |= conform_depth(schema, child, member, repairs, depth + 1);
            }
            if !drop.is_empty() {
                map.retain(|k, _| !drop.iter().any(|d| d == k));
                repairs.insert(Repair::NullDropped);
                changed = true;
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.items {
                for element in items {
                    changed |= conform_depth(schema, item, element, repairs, depth + 1);
                }
            }
        }
        _ => {}
    }
    changed
}

/// Decode a string holding an encoded container (JSON first, then a Python literal).
/// Returns the value and whether it was Python.
pub(crate) fn decode_container(text: &str, open: u8) -> Option<(Value, bool)> {
    let t = text.trim();
    if t.as_bytes().first() != Some(&open) && !(open == b'[' && t.starts_with('(')) {
        return None;
    }
    let want = |v: &Value| {
        if open == b'[' {
            v.is_array()
        } else {
            v.is_object()
        }
    };
    if let Some(v) = Value::parse(t) {
        return want(&v).then_some((v, false));
    }
    python::parse(t).filter(want).map(|v| (v, true))
}

fn reshape(
    schema: &Schema,
    id: NodeId,
    types: TypeSet,
    value: &mut Value,
    repairs: &mut Repairs,
    depth: usize,
) -> bool {
    let items = schema.node(id).items;
    // 1. A string holding an encoded array, where an array is declared (before wrapping).
    if let (Value::String(s), true) = (&*value, types.has(TypeSet::ARRAY)) {
        if let Some((decoded, was_python)) = decode_container(s, b'[') {
            return unwrap(
                schema,
                id,
                decoded,
                was_python,
                Repair::StringToArray,
                value,
                repairs,
                depth,
            );
        }
    }
    // 2. A string holding an encoded object, where an object is declared.
    if let (Value::String(s), true) = (&*value, types.has(TypeSet::OBJECT)) {
        if let Some((decoded, was_python)) = decode_container(s, b'{') {
            return unwrap(
                schema,
                id,
                decoded,
                was_python,
                Repair::StringToObject,
                value,
                repairs,
                depth,
            );
        }
    }
    // 3. Scalar coercion.
    if let Some((coerced, repair)) = coerce_scalar(types, value) {
        *value = coerced;
        repairs.insert(repair);
        return true;
    }
    if !types.has(TypeSet::ARRAY) {
        return false;
    }
    // 4. A bare scalar where an array is declared, when it fits the element type.
    //    A string that looks like a broken container cannot be decided.
    if let Value::String(s) = &*value {
        if s.trim_start().starts_with(['[', '{', '(']) {
            return false;
        }
    }
    if matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_)) {
        return wrap(
            schema,
            items,
            value.clone(),
            Repair::ScalarToArray,
            value,
            repairs,
            depth,
        );
    }
    // 5. An object where an array is declared: the object itself when it is an item,
    //    else a one-entry object's value.
    if let Value::Object(map) = &*value {
        let single = (map.len() == 1).then(|| map.values().next().cloned());
        // Only an item schema that names `object` decides for the object itself.
        let allows_object = items.is_some_and(|i| schema.effective_types(i).has(TypeSet::OBJECT));
        if allows_object
            && wrap(
                schema,
                items,
                value.clone(),
                Repair::ObjectToArray,
                value,
                repairs,
                depth,
            )
        {
            return true;
        }
        if let Some(Some(inner)) = single {
            if inner.is_array() {
                let mut candidate = inner;
                let mut found = Repairs::NONE;
                walk(schema, id, &mut candidate, &mut found, depth);
                if fits(schema, id, &candidate) {
                    *value = candidate;
                    repairs.insert(Repair::ObjectToArray);
                    *repairs = repairs.union(found);
                    return true;
                }
                return false;
            }
            return wrap(
                schema,
                items,
                inner,
                Repair::ObjectToArray,
                value,
                repairs,
                depth,
            );
        }
    }
    false
}

/// Replace `value` by the container decoded from it, when that (conformed) fits.
#[allow(clippy::too_many_arguments)]
fn unwrap(
    schema: &Schema,
    id: NodeId,
    mut decoded: Value,
    was_python: bool,
    repair: Repair,
    value: &mut Value,
    repairs: &mut Repairs,
    depth: usize,
) -> bool {
    let mut found = Repairs::NONE;
    walk(schema, id, &mut decoded, &mut found, depth);
    if !fits(schema, id, &decoded) {
        return false;
    }
    *value = decoded;
    found.insert(repair);
    if was_python {
        found.insert(Repair::PythonValue);
    }
    *repairs = repairs.union(found);
    true
}

/// Replace `value` by `[element]` when the conformed element fits the item schema.
fn wrap(
    schema: &Schema,
    items: Option<NodeId>,
    mut element: Value,
    repair: Repair,
    value: &mut Value,
    repairs: &mut Repairs,
    depth: usize,
) -> bool {
    let mut found = Repairs::NONE;
    if let Some(item) = items {
        conform_depth(schema, item, &mut element, &mut found, depth + 1);
        if !fits(schema, item, &element) {
            return false;
        }
    }
    *value = Value::Array(vec![element]);
    repairs.insert(repair);
    *repairs = repairs.union(found);
    true
}

/// A boolean from its usual spellings (case-insensitive); `1`/`0` only when `digits`.
pub(crate) fn parse_bool(text: &str, digits: bool) -> Option<bool> {
    let t = text.trim();
    if ["true", "yes"].iter().any(|w| t.eq_ignore_ascii_case(w)) || (digits && t == "1") {
        Some(true)
    } else if ["false", "no"].iter().any(|w| t.eq_ignore_ascii_case(w)) || (digits && t == "0") {
        Some(false)
    } else {
        None
    }
}

/// A number for a declared integer/number type from text; `None` when it does not
/// parse or (integer only) is not whole.
pub(crate) fn parse_number(text: &str, types: TypeSet) -> Option<Value> {
    let parsed = python::number(text.trim())?;
    let Value::Number(n) = &parsed else {
        return None;
    };
    if types.has(TypeSet::INTEGER) && is_integral(n) && !(n.is_i64() || n.is_u64()) {
        let f = n.as_f64()?;
        if f.abs() < 9.0e15 {
            return Some(Value::from(f as i64));
        }
        return Some(parsed);
    }
    if types.has(TypeSet::NUMBER) || (types.has(TypeSet::INTEGER) && is_integral(n)) {
        return Some(parsed);
    }
    None
}

/// Scalar coercion where the value's type is not allowed but another scalar is.
fn coerce_scalar(types: TypeSet, value: &Value) -> Option<(Value, Repair)> {
    match value {
        Value::String(s) => {
            if types.has(TypeSet::NUMBER) || types.has(TypeSet::INTEGER) {
                if let Some(n) = parse_number(s, types) {
                    return Some((n, Repair::StringToNumber));
                }
            }
            if types.has(TypeSet::BOOLEAN) {
                if let Some(b) = parse_bool(s, false) {
                    return Some((Value::Bool(b), Repair::StringToBoolean));
                }
            }
            None
        }
        Value::Number(n) if types.has(TypeSet::STRING) => {
            Some((Value::String(number_text(n)), Repair::ScalarToString))
        }
        Value::Bool(b) if types.has(TypeSet::STRING) => {
            Some((Value::String(b.to_string()), Repair::ScalarToString))
        }
        _ => None,
    }
}

fn number_text(n: &Number) -> String {
    n.to_string()
}
