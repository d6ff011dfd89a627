//! Conformance of a finished call: arguments that are not an object, shape repair and
//! coercion, hoisting, then validation.

use super::cmdline;
use super::coerce::{conform, decode_container};
use super::types::{NodeId, Schema, TypeSet};
use super::validate::{fits, validate, ValidationError};
use crate::ordered::{Map, Value};
use crate::repairs::{Repair, Repairs};

/// The outcome of [`Tool::conform`](super::Tool::conform).
#[derive(Clone, Debug, PartialEq)]
pub struct Conformed {
    /// The repaired arguments; `None` when they are unchanged.
    pub value: Option<serde_json::Value>,
    /// The repairs applied.
    pub repairs: Repairs,
    /// What still does not fit the schema after repair (empty when valid).
    pub errors: Vec<ValidationError>,
}

/// A [`Conformed`] whose objects keep their members in order: what the engine writes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ConformedInOrder {
    pub value: Option<Value>,
    pub repairs: Repairs,
    pub errors: Vec<ValidationError>,
}

impl From<ConformedInOrder> for Conformed {
    fn from(c: ConformedInOrder) -> Conformed {
        Conformed {
            value: c.value.as_ref().map(Value::to_serde),
            repairs: c.repairs,
            errors: c.errors,
        }
    }
}

pub(crate) fn conform_call(schema: &Schema, tool: &str, args: &Value) -> ConformedInOrder {
    let mut repairs = Repairs::NONE;
    let mut value = args.clone();
    let mut changed = false;
    if !value.is_object() {
        if let Some(object) = from_non_object(schema, tool, &value, &mut repairs) {
            value = Value::Object(object);
            changed = true;
        }
    }
    changed |= conform(schema, schema.root(), &mut value, &mut repairs);
    if let Value::Object(map) = &mut value {
        changed |= hoist(schema, map, &mut repairs);
    }
    let mut errors = Vec::new();
    validate(schema, schema.root(), &value, "", &mut errors);
    ConformedInOrder {
        value: changed.then_some(value),
        repairs,
        errors,
    }
}

/// `{param: value}` for a bare value, when the value (conformed) fits the parameter.
fn wrap_bare(schema: &Schema, value: &Value, repairs: &mut Repairs) -> Option<Map> {
    let key = bare_target(schema)?;
    let id = schema.node(schema.root()).property(key)?;
    let mut candidate = value.clone();
    let mut found = Repairs::NONE;
    conform(schema, id, &mut candidate, &mut found);
    if !fits(schema, id, &candidate) {
        return None;
    }
    repairs.insert(Repair::BareArguments);
    Some(Map::from_iter([(key.to_owned(), value.clone())]))
}

/// The parameter a bare value belongs to: the only parameter, or the only required
/// parameter when it is a string.
fn bare_target(schema: &Schema) -> Option<&str> {
    let root = schema.node(schema.root());
    let params = root.properties.as_ref()?;
    if let [(key, _)] = params.as_slice() {
        return Some(key);
    }
    if let [key] = root.required.as_slice() {
        let id = root.property(key)?;
        let types = schema.effective_types(id);
        if types.has(TypeSet::STRING) {
            return Some(key);
        }
    }
    None
}

/// An arguments object from arguments that are not one.
fn from_non_object(
    schema: &Schema,
    tool: &str,
    args: &Value,
    repairs: &mut Repairs,
) -> Option<Map> {
    if args.is_null() {
        return None;
    }
    if let Value::String(text) = args {
        if let Some((Value::Object(map), python)) = decode_container(text, b'{') {
            repairs.insert(Repair::StringToObject);
            if python {
                repairs.insert(Repair::PythonValue);
            }
            return Some(map);
        }
        // Flags spelling out a parameter's name decide for command-line text; otherwise
        // the bare value comes first. Either way the other reading is the fallback.
        let flags = cmdline::has_declared_flag(schema, text);
        if !flags {
            if let Some(map) = wrap_bare(schema, args, repairs) {
                return Some(map);
            }
        }
        if let Some(map) = cmdline::map(schema, tool, text) {
            repairs.insert(Repair::CommandLineArguments);
            return Some(map);
        }
        return if flags {
            wrap_bare(schema, args, repairs)
        } else {
            None
        };
    }
    wrap_bare(schema, args, repairs)
}

/// Hoist required top-level parameters found only inside the items of an array
/// member whose item schema declares properties but not that key, when every item
/// carries the same scalar value.
fn hoist(schema: &Schema, map: &mut Map, repairs: &mut Repairs) -> bool {
    let root = schema.node(schema.root());
    let mut changed = false;
    for key in &root.required {
        if map.contains_key(key) {
            continue;
        }
        let Some(member) = map
            .iter()
            .find(|(k, v)| hoistable_from(schema, root.property(k), v, key).is_some())
            .map(|(k, _)| k.clone())
        else {
            continue;
        };
        let value = map
            .get(&member)
            .and_then(|m| hoistable_from(schema, root.property(&member), m, key))
            .cloned()
            .unwrap_or(Value::Null);
        if let Some(Value::Array(items)) = map.get_mut(&member) {
            for item in items {
                if let Value::Object(item) = item {
                    item.remove(key);
                }
            }
        }
        let mut value = value;
        if let Some(id) = root.property(key) {
            conform(schema, id, &mut value, repairs);
        }
        map.insert(key.clone(), value);
        repairs.insert(Repair::HoistedParameter);
        changed = true;
    }
    changed
}

/// The value of `key` shared by every item of `member`, when it may be hoisted.
fn hoistable_from<'v>(
    schema: &Schema,
    member_schema: Option<NodeId>,
    member: &'v Value,
    key: &str,
) -> Option<&'v Value> {
    let item_schema = schema.node(schema.node(member_schema?).items?);
    item_schema.properties.as_ref()?;
    if item_schema.property(key).is_some() {
        return None;
    }
    let items = member.as_array()?;
    let mut shared: Option<&Value> = None;
    for item in items {
        let value = item.as_object()?.get(key)?;
        if !matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_)) {
            return None;
        }
        match shared {
            Some(s) if s != value => return None,
            _ => shared = Some(value),
        }
    }
    shared
}
