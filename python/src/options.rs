//! A `Parser`'s keyword arguments read into a `toolsift::Config`.

use crate::ToolsError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::PyCFunction;
use toolsift::{
    Config, Dialect, InReasoning, Invalid, Limits, ParallelCalls, ToolChoice, Tools, UnknownTool,
};

/// The dialect `name` stands for, or a `ValueError` listing the names.
pub(crate) fn dialect(name: &str) -> PyResult<Dialect> {
    Dialect::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        PyValueError::new_err(format!(
            "unknown dialect {name:?}: expected 'auto' or one of {}",
            names.join(", ")
        ))
    })
}

fn choice<T: Copy>(what: &str, value: &str, choices: &[(&str, T)]) -> PyResult<T> {
    choices
        .iter()
        .find(|(n, _)| *n == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            PyValueError::new_err(format!(
                "{what} must be one of {}, not {value:?}",
                names.join(", ")
            ))
        })
}

/// The tool definitions: JSON text (str or bytes), or Python data in the OpenAI shape
/// (a list of tools, or an object with a `tools` list); objects with a `model_dump`
/// method (pydantic models, as vLLM's request holds) are dumped first.
pub(crate) fn tools(py: Python<'_>, tools: &Bound<'_, PyAny>) -> PyResult<Tools> {
    let text: Vec<u8> = if let Ok(s) = tools.extract::<PyBackedStr>() {
        s.as_bytes().to_vec()
    } else if let Ok(b) = tools.extract::<PyBackedBytes>() {
        b.to_vec()
    } else {
        let default = PyCFunction::new_closure(py, None, None, |args, _kwargs| {
            let value = args.get_item(0)?;
            match value.getattr("model_dump") {
                Ok(dump) => {
                    let kwargs = pyo3::types::PyDict::new(args.py());
                    kwargs.set_item("exclude_none", true)?;
                    dump.call((), Some(&kwargs)).map(Bound::unbind)
                }
                Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "a tool definition must be JSON data, not {}",
                    value.get_type().name()?
                ))),
            }
        })?;
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("default", default)?;
        let dumped = py
            .import("json")?
            .getattr("dumps")?
            .call((tools,), Some(&kwargs))
            .map_err(|e| ToolsError::new_err(format!("the tools are not JSON data: {e}")))?;
        dumped.extract::<String>()?.into_bytes()
    };
    Tools::from_json(&text).map_err(|e| ToolsError::new_err(e.to_string()))
}

/// Everything a `Parser` takes besides the dialect and tools.
pub(crate) struct Options<'a> {
    pub unknown_tool: &'a str,
    pub invalid: &'a str,
    pub in_reasoning: &'a str,
    pub reasoning_open: bool,
    pub id_prefix: Option<String>,
    pub max_args_bytes: Option<usize>,
    pub max_depth: Option<usize>,
    pub max_held_bytes: Option<usize>,
    pub lookahead: Option<usize>,
    pub max_calls: Option<usize>,
    pub max_name_bytes: Option<usize>,
    pub tool_choice: ToolChoice,
    pub parallel_calls: ParallelCalls,
}

impl Options<'_> {
    pub(crate) fn config(self, dialect: Dialect, tools: Tools) -> PyResult<Config> {
        let defaults = Limits::default();
        let limits = Limits {
            max_args_bytes: self.max_args_bytes.unwrap_or(defaults.max_args_bytes),
            max_depth: self.max_depth.unwrap_or(defaults.max_depth),
            max_held_bytes: self.max_held_bytes.unwrap_or(defaults.max_held_bytes),
            lookahead: self.lookahead.unwrap_or(defaults.lookahead),
            max_calls: self.max_calls.unwrap_or(defaults.max_calls),
            max_name_bytes: self.max_name_bytes.unwrap_or(defaults.max_name_bytes),
        };
        let unknown_tool = choice(
            "unknown_tool",
            self.unknown_tool,
            &[
                ("reject", UnknownTool::Reject),
                ("forward", UnknownTool::Forward),
            ],
        )?;
        let invalid = choice(
            "invalid",
            self.invalid,
            &[("release", Invalid::Release), ("hold", Invalid::HoldBack)],
        )?;
        let in_reasoning = choice(
            "in_reasoning",
            self.in_reasoning,
            &[
                ("ignore", InReasoning::Ignore),
                ("extract", InReasoning::Extract),
            ],
        )?;
        let mut config = Config::new(dialect)
            .tools(tools)
            .limits(limits)
            .unknown_tool(unknown_tool)
            .invalid(invalid)
            .in_reasoning(in_reasoning)
            .reasoning_open(self.reasoning_open)
            .tool_choice(self.tool_choice)
            .parallel_calls(self.parallel_calls);
        if let Some(prefix) = self.id_prefix {
            config = config.id_prefix(prefix);
        }
        Ok(config)
    }
}
