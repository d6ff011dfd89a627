//! A request's `tool_choice` and `parallel_tool_calls`, in every shape the OpenAI and
//! Anthropic requests write them, read into the `Config`'s [`ToolChoice`] and
//! `ParallelCalls`.

use crate::ToolChoiceError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping, PyString};
use toolsift::{ToolChoice, Tools};

/// The shapes `tool_choice` takes, said in every error.
const SHAPES: &str = "\"auto\", \"none\", \"required\", {\"type\": \"function\", \"function\": {\"name\": ...}}, \
     or Anthropic's {\"type\": \"auto\" | \"any\" | \"none\"} / {\"type\": \"tool\", \"name\": ...}";

/// What the request's `tool_choice` allows, and whether it also says one call per
/// response (Anthropic's `disable_parallel_tool_use`, which lives inside `tool_choice`).
pub(crate) struct Choice {
    pub tool_choice: ToolChoice,
    pub one_call: bool,
}

/// `repr(value)`, for an error.
fn shown(value: &Bound<'_, PyAny>) -> String {
    value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".to_owned())
}

fn bad(value: &Bound<'_, PyAny>, why: &str) -> PyErr {
    ToolChoiceError::new_err(format!(
        "tool_choice {}: {why}; expected {SHAPES}",
        shown(value)
    ))
}

/// `key` of `map`, `None` when absent or `None`.
fn field<'py>(map: &Bound<'py, PyMapping>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    if !map.contains(key)? {
        return Ok(None);
    }
    let value = map.get_item(key)?;
    Ok((!value.is_none()).then_some(value))
}

/// A tool name: a non-empty string.
fn name(value: Option<Bound<'_, PyAny>>, whole: &Bound<'_, PyAny>) -> PyResult<Box<str>> {
    match value {
        Some(v) => match v.cast::<PyString>() {
            Ok(s) => {
                let s = s.to_cow()?;
                if s.is_empty() {
                    Err(bad(whole, "the tool name is empty"))
                } else {
                    Ok(s.into())
                }
            }
            Err(_) => Err(bad(whole, "the tool name is not a string")),
        },
        None => Err(bad(whole, "it names no tool")),
    }
}

/// The request's `tool_choice`: `None` (the model decides), one of the strings, a
/// mapping in the OpenAI or Anthropic shape, or an object with `model_dump` (a pydantic
/// model, as vLLM's request holds). A named tool must be among `tools` when any were
/// declared.
pub(crate) fn tool_choice(value: Option<&Bound<'_, PyAny>>, tools: &Tools) -> PyResult<Choice> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(Choice {
            tool_choice: ToolChoice::Auto,
            one_call: false,
        });
    };
    let choice = read(value)?;
    if let ToolChoice::Function(only) = &choice.tool_choice {
        let names = tools.names();
        if !names.is_empty() && !names.contains(&&**only) {
            return Err(ToolChoiceError::new_err(format!(
                "tool_choice names {only:?}, which is not a declared tool: {}",
                names.join(", ")
            )));
        }
    }
    Ok(choice)
}

fn read(value: &Bound<'_, PyAny>) -> PyResult<Choice> {
    let plain = |tool_choice| Choice {
        tool_choice,
        one_call: false,
    };
    if let Ok(s) = value.cast::<PyString>() {
        return match &*s.to_cow()? {
            "auto" => Ok(plain(ToolChoice::Auto)),
            "none" => Ok(plain(ToolChoice::None)),
            "required" => Ok(plain(ToolChoice::Required)),
            _ => Err(bad(value, "not a choice")),
        };
    }
    let map = if let Ok(map) = value.cast::<PyMapping>() {
        map.clone()
    } else if value.hasattr("model_dump")? {
        let dumped = value.call_method0("model_dump")?;
        match dumped.cast::<PyDict>() {
            Ok(d) => d.as_mapping().clone(),
            Err(_) => return Err(bad(value, "its model_dump() is not a dict")),
        }
    } else {
        return Err(bad(value, "not a string or a mapping"));
    };
    let kind = match field(&map, "type")? {
        Some(t) => t.cast::<PyString>().ok().map(|s| s.to_string()),
        None => None,
    };
    let one_call = match field(&map, "disable_parallel_tool_use")? {
        None => false,
        Some(v) => v
            .extract::<bool>()
            .map_err(|_| bad(value, "disable_parallel_tool_use is not a bool"))?,
    };
    let tool_choice = match kind.as_deref() {
        // OpenAI's chat form names the tool in `function`; the Responses form beside `type`.
        Some("function") => match field(&map, "function")? {
            Some(function) => {
                let function = function
                    .cast::<PyMapping>()
                    .map_err(|_| bad(value, "its function is not a mapping"))?;
                ToolChoice::Function(name(field(function, "name")?, value)?)
            }
            None => ToolChoice::Function(name(field(&map, "name")?, value)?),
        },
        Some("tool") => ToolChoice::Function(name(field(&map, "name")?, value)?),
        Some("auto") => ToolChoice::Auto,
        Some("none") => ToolChoice::None,
        Some("any") => ToolChoice::Required,
        Some(_) => return Err(bad(value, "not a type of choice")),
        None => return Err(bad(value, "no string \"type\"")),
    };
    Ok(Choice {
        tool_choice,
        one_call,
    })
}

/// The request's `parallel_tool_calls`: `None`, as a request may hold, is the default
/// (any number of calls).
pub(crate) fn parallel_tool_calls(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    if value.is_none() {
        return Ok(true);
    }
    value.extract::<bool>().map_err(|_| {
        PyValueError::new_err(format!(
            "parallel_tool_calls must be True, False or None, not {}",
            shown(value)
        ))
    })
}
