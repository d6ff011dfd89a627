//! Tool definitions: reading them, looking them up, and per-tool schema queries.

use super::cmdline::normalize;
use super::conform::{self, Conformed, ConformedInOrder};
use super::feedback;
use super::raw;
use super::types::{Schema, TypeSet};
use super::validate::{self, ValidationError};
use super::ParamType;
use crate::error::{Category, Error};
use crate::ordered;
use crate::repairs::{Repair, Repairs};
use serde_json::Value;

/// One declared tool.
#[derive(Clone, Debug)]
pub struct Tool {
    name: String,
    parameters: Value,
    schema: Schema,
    /// Whether the schema's properties are known in declaration order (positional
    /// arguments take them in that order).
    in_order: bool,
}

/// The request's declared tools.
#[derive(Clone, Debug, Default)]
pub struct Tools {
    tools: Vec<Tool>,
}

impl Tools {
    /// No tools.
    pub fn new() -> Tools {
        Tools::default()
    }

    /// Read tool definitions from JSON text: an array, or an object with a `tools` array
    /// (see [`Tools::from_value`]). The parameters keep the order the text declares
    /// them in, which positional (Python) arguments are mapped by.
    pub fn from_json(text: &[u8]) -> Result<Tools, Error> {
        match ordered::Value::parse_slice(text) {
            Some(value) => Tools::read(&value, true),
            None => {
                // serde_json says what is wrong.
                serde_json::from_slice::<Value>(text)?;
                Err(Error::new(
                    Category::Syntax,
                    "tool definitions are not JSON",
                ))
            }
        }
    }

    /// Read tool definitions from a parsed JSON value (an array, or `{"tools": [...]}`).
    ///
    /// Each definition may be OpenAI's `{"type": "function", "function": {"name",
    /// "parameters"}}`, a bare `{"name", "parameters"}` or Anthropic's
    /// `{"name", "input_schema"}`.
    ///
    /// The parameters' declaration order is the order `value`'s maps iterate in. That is
    /// the order written only when serde_json's `preserve_order` feature is on in the
    /// build (it sorts keys otherwise), so without it a positional (Python) argument to
    /// a tool of several parameters is not mapped to one (it gets the key `arg0`, ...,
    /// which the schema then reports). [`Tools::from_json`] always knows the order.
    pub fn from_value(value: &Value) -> Result<Tools, Error> {
        Tools::read(&ordered::Value::from(value), serde_maps_keep_order())
    }

    fn read(value: &ordered::Value, in_order: bool) -> Result<Tools, Error> {
        use ordered::Value;
        let list = match value {
            Value::Array(list) => list,
            Value::Object(map) => match map.get("tools") {
                Some(Value::Array(list)) => list,
                _ => {
                    return Err(Error::new(
                        Category::Syntax,
                        "expected an array of tools or an object with a \"tools\" array",
                    ))
                }
            },
            _ => return Err(Error::new(Category::Syntax, "expected an array of tools")),
        };
        let mut tools = Vec::with_capacity(list.len());
        for (i, def) in list.iter().enumerate() {
            let def = match def.get("function") {
                Some(f) if f.is_object() => f,
                _ => def,
            };
            let name = def
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| Error::new(Category::Syntax, format!("tool {i} has no name")))?;
            let parameters = def
                .get("parameters")
                .or_else(|| def.get("input_schema"))
                .cloned()
                .unwrap_or(Value::Null);
            tools.push(Tool::compile(name, parameters, in_order));
        }
        Ok(Tools { tools })
    }

    /// Whether no tool was declared.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The declared tools.
    pub fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter()
    }

    /// The tool named exactly `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The declared tool names, in declaration order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(Tool::name).collect()
    }

    /// The tool a call's `name` means: the exact match, else the only tool whose name
    /// is equal ignoring case and the separators `_`, `-`, `.` and space (repair
    /// [`Repair::ToolNameCase`]).
    pub fn resolve(&self, name: &str) -> Option<(&Tool, Repairs)> {
        if let Some(tool) = self.get(name) {
            return Some((tool, Repairs::NONE));
        }
        let wanted = normalize(name);
        let mut matching = self.tools.iter().filter(|t| normalize(&t.name) == wanted);
        let tool = matching.next()?;
        if matching.next().is_some() {
            return None;
        }
        let mut repairs = Repairs::NONE;
        repairs.insert(Repair::ToolNameCase);
        Some((tool, repairs))
    }

    /// The tool a call without a name means: the only declared tool whose schema the
    /// arguments object fits exactly (every required key present, no undeclared key
    /// where properties are declared). `None` when no tool or several fit.
    pub fn infer(&self, args: &Value) -> Option<&Tool> {
        self.infer_by(args, false)
    }

    /// Like [`infer`](Self::infer), for arguments that came with no name and no
    /// arguments key (a bare call object): only tools that declare their properties
    /// count, every key of the object among them.
    pub(crate) fn infer_declared(&self, args: &Value) -> Option<&Tool> {
        self.infer_by(args, true)
    }

    fn infer_by(&self, args: &Value, declared: bool) -> Option<&Tool> {
        let map = args.as_object()?;
        let mut fitting = self.tools.iter().filter(|t| {
            let root = t.schema.node(t.schema.root());
            root.required.iter().all(|k| map.contains_key(k))
                && match root.properties {
                    None => !declared,
                    Some(_) => map.keys().all(|k| root.property(k).is_some()),
                }
        });
        let tool = fitting.next()?;
        fitting.next().is_none().then_some(tool)
    }

    /// Feedback for a call to an undeclared tool, e.g.
    /// `unknown tool "reed_file"; declared tools: read_file, write_file`.
    pub fn unknown_tool_feedback(&self, name: &str) -> String {
        feedback::unknown_tool(name, &self.names())
    }
}

impl Tool {
    /// A tool from its name and parameters schema (`Value::Null` for none). The
    /// parameters' declaration order is the order the schema's maps iterate in (see
    /// [`Tools::from_value`]).
    pub fn new(name: impl Into<String>, parameters: Value) -> Tool {
        let ordered = ordered::Value::from(&parameters);
        Tool::compile(name, ordered, serde_maps_keep_order())
    }

    fn compile(name: impl Into<String>, parameters: ordered::Value, in_order: bool) -> Tool {
        let schema = Schema::compile(&parameters);
        Tool {
            name: name.into(),
            parameters: parameters.to_serde(),
            schema,
            in_order,
        }
    }

    /// The declared top-level parameters, in declaration order when that is known
    /// (the flag); `None` when the schema declares no `properties`.
    pub(crate) fn params(&self) -> Option<(impl Iterator<Item = &str>, bool)> {
        let params = self.schema.node(self.schema.root()).properties.as_ref()?;
        let in_order = self.in_order || params.len() < 2;
        Some((params.iter().map(|(k, _)| k.as_str()), in_order))
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameters schema (`Value::Null` when none was given).
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// Whether the schema declares a top-level parameter `key`; `None` when the schema
    /// declares no `properties` (any key is allowed).
    pub fn declares(&self, key: &str) -> Option<bool> {
        let root = self.schema.node(self.schema.root());
        root.properties.as_ref()?;
        Some(root.property(key).is_some())
    }

    /// The declared type of the top-level parameter `key`, looking through `$ref`,
    /// `anyOf`/`oneOf` and nullable unions: a type is reported only when every non-null
    /// alternative has it (`integer` and `number` together read as `Number`).
    pub fn param_type(&self, key: &str) -> ParamType {
        let root = self.schema.node(self.schema.root());
        let Some(id) = root.property(key) else {
            return ParamType::Any;
        };
        let types = self.schema.effective_types(id).without(TypeSet::NULL);
        let number = TypeSet::NUMBER.with(TypeSet::INTEGER);
        match types {
            t if t == TypeSet::STRING => ParamType::String,
            t if t == TypeSet::INTEGER => ParamType::Integer,
            t if t == TypeSet::NUMBER || t == number => ParamType::Number,
            t if t == TypeSet::BOOLEAN => ParamType::Boolean,
            t if t == TypeSet::ARRAY => ParamType::Array,
            t if t == TypeSet::OBJECT => ParamType::Object,
            _ => ParamType::Any,
        }
    }

    /// The declared `default` of the top-level parameter `key`.
    pub fn param_default(&self, key: &str) -> Option<&Value> {
        let root = self.schema.node(self.schema.root());
        self.schema.node(root.property(key)?).default.as_ref()
    }

    /// Convert the raw text of parameter `key`'s value (an XML parameter body, already
    /// stripped of framing newlines) into JSON text by its declared type.
    ///
    /// A declared string stays the text as is. Numbers, booleans (`true`, `False`,
    /// `yes`, `0`...), `null`/`None`, JSON or Python containers (`['a', 'b']`, tuples)
    /// are typed; a bare scalar where an array is declared is wrapped. Undeclared
    /// values are JSON when they parse as a non-string JSON value. Text that cannot be
    /// decided stays a string. [`Repair::TypedValue`] is reported when a non-string
    /// was produced.
    pub fn type_raw_value(&self, key: &str, raw: &str) -> (String, Repairs) {
        let (value, repairs) = self.type_raw(key, raw);
        (value.to_string(), repairs)
    }

    /// [`Tool::type_raw_value`] as a value.
    pub(crate) fn type_raw(&self, key: &str, raw: &str) -> (ordered::Value, Repairs) {
        let root = self.schema.node(self.schema.root());
        raw::type_raw(&self.schema, root.property(key), raw)
    }

    /// Type the text leaves of `members` by the schema, as [`Tool::type_raw_value`]
    /// types a parameter's text, at every depth; a leaf no schema reaches by what it
    /// reads as (see `raw::type_raw_leaves`).
    pub(crate) fn type_raw_members(&self, members: &mut ordered::Map) -> Repairs {
        let root = self.schema.node(self.schema.root());
        let mut repairs = Repairs::NONE;
        for (key, value) in members.iter_mut() {
            raw::type_raw_leaves(&self.schema, root.property(key), value, &mut repairs);
        }
        repairs
    }

    /// Repair a finished call's arguments against the schema and validate them.
    pub fn conform(&self, args: &Value) -> Conformed {
        self.conform_in_order(&ordered::Value::from(args)).into()
    }

    /// [`Tool::conform`] keeping the members' order.
    pub(crate) fn conform_in_order(&self, args: &ordered::Value) -> ConformedInOrder {
        conform::conform_call(&self.schema, &self.name, args)
    }

    /// Validate arguments against the schema without repairing them.
    pub fn validate(&self, args: &Value) -> Vec<ValidationError> {
        self.validate_in_order(&ordered::Value::from(args))
    }

    /// [`Tool::validate`], reporting members in their order.
    pub(crate) fn validate_in_order(&self, args: &ordered::Value) -> Vec<ValidationError> {
        let mut errors = Vec::new();
        validate::validate(&self.schema, self.schema.root(), args, "", &mut errors);
        errors
    }
}

/// Whether `serde_json::Map` keeps insertion order in this build: its `preserve_order`
/// feature is on (some crate in the build turned it on); otherwise it sorts keys.
fn serde_maps_keep_order() -> bool {
    let map: serde_json::Map<String, Value> = [("b", Value::Null), ("a", Value::Null)]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    map.keys().next().is_some_and(|k| k == "b")
}
