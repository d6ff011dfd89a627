//! Tool definitions and their JSON schemas.
//!
//! Accepts OpenAI tool definitions (`{"type": "function", "function": {...}}`), bare
//! function objects (`{"name", "parameters"}`) and Anthropic's `{"name", "input_schema"}`.

use crate::error::{Category, Error};
use serde_json::Value;

/// The declared JSON type of a parameter, as far as the engine needs it while streaming.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// Only strings are allowed.
    String,
    /// Only numbers (or integers) are allowed.
    Number,
    /// Only integers are allowed.
    Integer,
    /// Only booleans are allowed.
    Boolean,
    /// Only arrays are allowed.
    Array,
    /// Only objects are allowed.
    Object,
    /// Anything, a union, or undeclared.
    Any,
}

/// One declared tool.
#[derive(Clone, Debug)]
pub struct Tool {
    name: String,
    parameters: Value,
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

    /// Read tool definitions from JSON text: an array, or an object with a `tools` array.
    pub fn from_json(text: &[u8]) -> Result<Tools, Error> {
        let value: Value = serde_json::from_slice(text)?;
        Tools::from_value(&value)
    }

    /// Read tool definitions from a parsed JSON value (an array, or `{"tools": [...]}`).
    pub fn from_value(value: &Value) -> Result<Tools, Error> {
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
            tools.push(Tool {
                name: name.to_owned(),
                parameters,
            });
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
}

impl Tool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameters schema (`Value::Null` when none was given).
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// Whether the schema declares a top-level parameter `key`; `None` when the schema
    /// allows any key (no `properties`, or `additionalProperties` not false).
    pub fn declares(&self, key: &str) -> Option<bool> {
        let props = self.parameters.get("properties")?.as_object()?;
        Some(props.contains_key(key))
    }

    /// The declared type of the top-level parameter `key`.
    pub fn param_type(&self, key: &str) -> ParamType {
        let Some(schema) = self.parameters.get("properties").and_then(|p| p.get(key)) else {
            return ParamType::Any;
        };
        match schema.get("type").and_then(Value::as_str) {
            Some("string") => ParamType::String,
            Some("number") => ParamType::Number,
            Some("integer") => ParamType::Integer,
            Some("boolean") => ParamType::Boolean,
            Some("array") => ParamType::Array,
            Some("object") => ParamType::Object,
            _ => ParamType::Any,
        }
    }
}
