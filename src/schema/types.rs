//! The JSON Schema subset tool definitions use, compiled into a small graph of nodes.
//!
//! Supported keywords: `type` (a name or an array of names, `"null"` included),
//! `nullable`, `properties`, `required`, `items`, `enum`, `const`, `anyOf`/`oneOf`,
//! `$ref` (local pointers such as `#/$defs/X` and `#/definitions/X`), `default` and
//! `additionalProperties`. Everything else is ignored. `$ref` cycles become cycles in
//! the graph; every walk over it is driven by a finite value or bounded in depth.

use crate::ordered::Value;
use std::collections::HashMap;

/// Index of a node in a [`Schema`].
pub(crate) type NodeId = usize;

/// How many `$ref` hops (or nested unions) are followed before giving up.
const MAX_HOPS: usize = 32;

/// A set of JSON types. The empty set means "any type".
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TypeSet(u8);

impl TypeSet {
    pub(crate) const NULL: TypeSet = TypeSet(1);
    pub(crate) const BOOLEAN: TypeSet = TypeSet(2);
    pub(crate) const INTEGER: TypeSet = TypeSet(4);
    pub(crate) const NUMBER: TypeSet = TypeSet(8);
    pub(crate) const STRING: TypeSet = TypeSet(16);
    pub(crate) const ARRAY: TypeSet = TypeSet(32);
    pub(crate) const OBJECT: TypeSet = TypeSet(64);
    /// Every JSON type, spelled out.
    pub(crate) const ALL: TypeSet = TypeSet(127);

    const NAMES: [(TypeSet, &'static str); 7] = [
        (TypeSet::STRING, "string"),
        (TypeSet::NUMBER, "number"),
        (TypeSet::INTEGER, "integer"),
        (TypeSet::BOOLEAN, "boolean"),
        (TypeSet::ARRAY, "array"),
        (TypeSet::OBJECT, "object"),
        (TypeSet::NULL, "null"),
    ];

    fn from_name(name: &str) -> Option<TypeSet> {
        TypeSet::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(t, _)| *t)
    }

    /// Whether no type is named (any type is allowed).
    pub(crate) fn is_any(self) -> bool {
        self.0 == 0
    }

    /// Whether every type in `other` is in the set.
    pub(crate) fn has(self, other: TypeSet) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    /// The union.
    pub(crate) const fn with(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0)
    }

    /// The set without `other`.
    pub(crate) fn without(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 & !other.0)
    }

    /// Whether `value` has one of the types (an integral number is an integer; any
    /// number is a number). The empty set allows everything.
    pub(crate) fn allows(self, value: &Value) -> bool {
        if self.is_any() {
            return true;
        }
        match value {
            Value::Null => self.has(TypeSet::NULL),
            Value::Bool(_) => self.has(TypeSet::BOOLEAN),
            Value::Number(n) => {
                self.has(TypeSet::NUMBER) || (self.has(TypeSet::INTEGER) && is_integral(n))
            }
            Value::String(_) => self.has(TypeSet::STRING),
            Value::Array(_) => self.has(TypeSet::ARRAY),
            Value::Object(_) => self.has(TypeSet::OBJECT),
        }
    }

    /// The type names in the set, e.g. `string or null`.
    pub(crate) fn describe(self) -> String {
        if self.is_any() {
            return "any value".to_owned();
        }
        let names: Vec<&str> = TypeSet::NAMES
            .iter()
            .filter(|(t, _)| self.has(*t))
            .map(|(_, n)| *n)
            .collect();
        names.join(" or ")
    }
}

/// Whether a JSON number has an integral value (`5`, `5.0`).
pub(crate) fn is_integral(n: &serde_json::Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// The JSON type name of a value, for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// What an object allows besides its declared properties.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Additional {
    /// Anything (the default).
    #[default]
    Any,
    /// Nothing (`additionalProperties: false`).
    Forbidden,
    /// Values fitting a schema.
    Schema(NodeId),
}

/// One compiled schema.
#[derive(Clone, Debug, Default)]
pub(crate) struct Node {
    /// `$ref` target: the node is an alias of another.
    pub(crate) alias: Option<NodeId>,
    /// Allowed types; empty for any.
    pub(crate) types: TypeSet,
    /// Declared properties, in declaration order; `None` when `properties` is absent.
    pub(crate) properties: Option<Vec<(String, NodeId)>>,
    /// Required keys.
    pub(crate) required: Vec<String>,
    /// Schema of array items.
    pub(crate) items: Option<NodeId>,
    /// Allowed values (`enum`, or `const` as a one-value enum).
    pub(crate) enumeration: Option<Vec<Value>>,
    /// `anyOf`/`oneOf` alternatives.
    pub(crate) any_of: Vec<NodeId>,
    /// `additionalProperties`.
    pub(crate) additional: Additional,
    /// `default`.
    pub(crate) default: Option<serde_json::Value>,
}

impl Node {
    /// The schema of property `key`, if declared.
    pub(crate) fn property(&self, key: &str) -> Option<NodeId> {
        self.properties
            .as_ref()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, id)| *id)
    }
}

/// A compiled schema graph. Node 0 is the root.
#[derive(Clone, Debug)]
pub(crate) struct Schema {
    nodes: Vec<Node>,
}

static ANY: Node = Node {
    alias: None,
    types: TypeSet(0),
    properties: None,
    required: Vec::new(),
    items: None,
    enumeration: None,
    any_of: Vec::new(),
    additional: Additional::Any,
    default: None,
};

impl Schema {
    /// Compile a schema (`Value::Null` or a non-object compiles to "anything").
    pub(crate) fn compile(root: &Value) -> Schema {
        let mut compiler = Compiler {
            root,
            nodes: Vec::new(),
            refs: HashMap::new(),
        };
        compiler.compile(root);
        Schema {
            nodes: compiler.nodes,
        }
    }

    /// The root node id.
    pub(crate) fn root(&self) -> NodeId {
        0
    }

    /// The node `id`, with `$ref` aliases followed (a runaway chain reads as "any").
    pub(crate) fn node(&self, mut id: NodeId) -> &Node {
        for _ in 0..MAX_HOPS {
            let node = &self.nodes[id];
            match node.alias {
                Some(next) => id = next,
                None => return node,
            }
        }
        &ANY
    }

    /// The types a node allows, looking through `anyOf`/`oneOf` when it names none
    /// itself. Empty means any.
    pub(crate) fn effective_types(&self, id: NodeId) -> TypeSet {
        self.effective_types_depth(id, 0)
    }

    fn effective_types_depth(&self, id: NodeId, depth: usize) -> TypeSet {
        let node = self.node(id);
        if !node.types.is_any() || node.any_of.is_empty() {
            if node.types.is_any() {
                if let Some(values) = &node.enumeration {
                    return values
                        .iter()
                        .fold(TypeSet::default(), |t, v| t.with(value_type(v)));
                }
            }
            return node.types;
        }
        if depth >= MAX_HOPS {
            return TypeSet::default();
        }
        let mut set = TypeSet::default();
        for &alt in &node.any_of {
            let t = self.effective_types_depth(alt, depth + 1);
            if t.is_any() {
                return TypeSet::default();
            }
            set = set.with(t);
        }
        set
    }
}

/// The single type of a value (a whole number counts as integer and number).
fn value_type(value: &Value) -> TypeSet {
    match value {
        Value::Null => TypeSet::NULL,
        Value::Bool(_) => TypeSet::BOOLEAN,
        Value::Number(n) if is_integral(n) => TypeSet::INTEGER.with(TypeSet::NUMBER),
        Value::Number(_) => TypeSet::NUMBER,
        Value::String(_) => TypeSet::STRING,
        Value::Array(_) => TypeSet::ARRAY,
        Value::Object(_) => TypeSet::OBJECT,
    }
}

struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    refs: HashMap<String, NodeId>,
}

impl<'a> Compiler<'a> {
    fn alloc(&mut self) -> NodeId {
        self.nodes.push(Node::default());
        self.nodes.len() - 1
    }

    fn compile(&mut self, schema: &'a Value) -> NodeId {
        let id = self.alloc();
        self.fill(id, schema);
        id
    }

    fn fill(&mut self, id: NodeId, schema: &'a Value) {
        let Some(map) = schema.as_object() else {
            // `true`, `false`, garbage: treat as "anything"; `false` is rare in tools.
            return;
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let target = self.reference(reference);
            self.nodes[id].alias = Some(target);
            return;
        }
        let mut types = match map.get("type") {
            Some(Value::String(name)) => TypeSet::from_name(name).unwrap_or(TypeSet::ALL),
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(Value::as_str)
                .map(|n| TypeSet::from_name(n).unwrap_or(TypeSet::ALL))
                .fold(TypeSet::default(), TypeSet::with),
            _ => TypeSet::default(),
        };
        if types == TypeSet::ALL {
            types = TypeSet::default();
        }
        if map.get("nullable") == Some(&Value::Bool(true)) && !types.is_any() {
            types = types.with(TypeSet::NULL);
        }
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(k, v)| (k.clone(), self.compile(v)))
                    .collect::<Vec<_>>()
            });
        let required = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let items = match map.get("items") {
            Some(items @ Value::Object(_)) => Some(self.compile(items)),
            // Tuple form: use the first item's schema only when all are alike is too
            // clever; treat as any.
            _ => None,
        };
        let enumeration = match (map.get("enum"), map.get("const")) {
            (Some(Value::Array(values)), _) => Some(values.clone()),
            (_, Some(value)) => Some(vec![value.clone()]),
            _ => None,
        };
        let mut any_of = Vec::new();
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alts)) = map.get(key) {
                for alt in alts {
                    let alt_id = self.compile(alt);
                    any_of.push(alt_id);
                }
            }
        }
        let additional = match map.get("additionalProperties") {
            Some(Value::Bool(false)) => Additional::Forbidden,
            Some(extra @ Value::Object(_)) => Additional::Schema(self.compile(extra)),
            _ => Additional::Any,
        };
        // A bare `{"nullable": true, "anyOf": [...]}` keeps its alternatives and adds null.
        if map.get("nullable") == Some(&Value::Bool(true)) && types.is_any() && !any_of.is_empty() {
            let null = self.alloc();
            self.nodes[null].types = TypeSet::NULL;
            any_of.push(null);
        }
        self.nodes[id] = Node {
            alias: None,
            types,
            properties,
            required,
            items,
            enumeration,
            any_of,
            additional,
            default: map.get("default").map(Value::to_serde),
        };
    }

    fn reference(&mut self, reference: &str) -> NodeId {
        if let Some(&id) = self.refs.get(reference) {
            return id;
        }
        let id = self.alloc();
        self.refs.insert(reference.to_owned(), id);
        let target = reference.strip_prefix('#').and_then(|pointer| {
            if pointer.is_empty() {
                Some(self.root)
            } else {
                self.root.pointer(pointer)
            }
        });
        if let Some(target) = target {
            self.fill(id, target);
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compile(schema: serde_json::Value) -> Schema {
        Schema::compile(&Value::from(&schema))
    }

    #[test]
    fn type_unions_and_nullable() {
        let s = compile(json!({"type": ["string", "null"]}));
        assert_eq!(s.effective_types(0), TypeSet::STRING.with(TypeSet::NULL));
        let s = compile(json!({"type": "integer", "nullable": true}));
        assert_eq!(s.effective_types(0), TypeSet::INTEGER.with(TypeSet::NULL));
        let s = compile(json!({"anyOf": [{"type": "string"}, {"type": "null"}]}));
        assert_eq!(s.effective_types(0), TypeSet::STRING.with(TypeSet::NULL));
        let s = compile(json!({"anyOf": [{"type": "string"}, {}]}));
        assert!(s.effective_types(0).is_any());
        let s = compile(json!({"enum": ["a", "b"]}));
        assert_eq!(s.effective_types(0), TypeSet::STRING);
    }

    #[test]
    fn ref_cycles_terminate() {
        let schema = json!({
            "$ref": "#/$defs/a",
            "$defs": {
                "a": {"$ref": "#/$defs/b"},
                "b": {"$ref": "#/$defs/a"},
                "tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}
            }
        });
        let s = compile(schema);
        assert!(s.effective_types(0).is_any());
        let s = compile(json!({"$ref": "#/definitions/tree", "definitions": {
            "tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/definitions/tree"}}}}
        }}));
        let root = s.node(0);
        let kids = root.property("kids").unwrap();
        let items = s.node(kids).items.unwrap();
        assert_eq!(s.effective_types(items), TypeSet::OBJECT);
        let self_loop = compile(json!({"anyOf": [{"$ref": "#"}]}));
        assert!(self_loop.effective_types(0).is_any());
    }
}
