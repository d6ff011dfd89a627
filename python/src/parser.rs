//! `toolsift.Parser`: one streaming parser per response.

use crate::choice;
use crate::events::{self, Chunk};
use crate::options::{self, Options};
use crate::DETACH_BYTES;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::sync::{Mutex, MutexGuard, TryLockError};
use toolsift::{OwnedEvent, ParallelCalls, Parser, StopReason, ToolChoice, Tools};

/// A streaming tool-call parser for one response at a time.
///
/// The parser sits behind a lock that is only ever tried, never waited on: a second
/// thread that calls it while the first is inside (with the GIL released on a large
/// chunk) gets a `RuntimeError`, never a wait or a crash.
#[pyclass(module = "toolsift", name = "Parser", frozen)]
pub(crate) struct PyParser {
    inner: Mutex<Parser>,
}

impl PyParser {
    fn lock(&self) -> PyResult<MutexGuard<'_, Parser>> {
        match self.inner.try_lock() {
            Ok(guard) => Ok(guard),
            // A panic inside the engine is a bug; the parser's state is unknown after it.
            Err(TryLockError::Poisoned(_)) => Err(PyRuntimeError::new_err(
                "this Parser failed inside the engine earlier (a bug in toolsift: please report it); make a new one",
            )),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(
                "this Parser is in use by another thread: a Parser reads one response; use one per thread",
            )),
        }
    }
}

/// Pushes `bytes` into `parser` and returns its events: with the GIL released when the
/// chunk is large, the events then copied out before Python objects are made of them.
fn push_events<'py>(
    py: Python<'py>,
    parser: &mut Parser,
    bytes: &[u8],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    if bytes.len() >= DETACH_BYTES {
        let owned: Vec<OwnedEvent> = py.detach(|| {
            parser.push(bytes);
            std::iter::from_fn(|| parser.next_event().map(|e| e.into_owned())).collect()
        });
        for event in &owned {
            list.append(events::owned(py, event)?)?;
        }
    } else {
        parser.push(bytes);
        events::drain(py, parser, &list)?;
    }
    Ok(list)
}

#[pymethods]
impl PyParser {
    #[new]
    #[pyo3(signature = (
        dialect = "auto",
        tools = None,
        *,
        unknown_tool = "reject",
        invalid = "release",
        in_reasoning = "ignore",
        reasoning_open = false,
        id_prefix = None,
        max_args_bytes = None,
        max_depth = None,
        max_held_bytes = None,
        lookahead = None,
        max_calls = None,
        max_name_bytes = None,
        tool_choice = None,
        parallel_tool_calls = true,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        dialect: &str,
        tools: Option<&Bound<'_, PyAny>>,
        unknown_tool: &str,
        invalid: &str,
        in_reasoning: &str,
        reasoning_open: bool,
        id_prefix: Option<String>,
        max_args_bytes: Option<usize>,
        max_depth: Option<usize>,
        max_held_bytes: Option<usize>,
        lookahead: Option<usize>,
        max_calls: Option<usize>,
        max_name_bytes: Option<usize>,
        tool_choice: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = choice::parallel_tool_calls)] parallel_tool_calls: bool,
    ) -> PyResult<PyParser> {
        let dialect = options::dialect(dialect)?;
        let tools = match tools {
            Some(t) if !t.is_none() => options::tools(py, t)?,
            _ => Tools::new(),
        };
        let choice = choice::tool_choice(tool_choice, &tools)?;
        let parallel_calls = if !parallel_tool_calls || choice.one_call {
            ParallelCalls::FirstOnly
        } else {
            ParallelCalls::Allowed
        };
        for (name, value) in [
            ("max_args_bytes", max_args_bytes),
            ("max_depth", max_depth),
            ("max_held_bytes", max_held_bytes),
            ("lookahead", lookahead),
            ("max_calls", max_calls),
            ("max_name_bytes", max_name_bytes),
        ] {
            if value == Some(0) {
                return Err(PyValueError::new_err(format!("{name} must be at least 1")));
            }
        }
        let config = Options {
            unknown_tool,
            invalid,
            in_reasoning,
            reasoning_open,
            id_prefix,
            max_args_bytes,
            max_depth,
            max_held_bytes,
            lookahead,
            max_calls,
            max_name_bytes,
            tool_choice: choice.tool_choice,
            parallel_calls,
        }
        .config(dialect, tools)?;
        Ok(PyParser {
            inner: Mutex::new(Parser::with_config(config)),
        })
    }

    /// Push the next chunk of model output (`str` or `bytes`, split anywhere) and return
    /// the events it decided.
    fn push<'py>(&self, py: Python<'py>, text: Chunk) -> PyResult<Bound<'py, PyList>> {
        let mut parser = self.lock()?;
        push_events(py, &mut parser, text.as_bytes())
    }

    /// End the response: `stop` is how generation ended (`stop`, `length`,
    /// `disconnected`). Returns the last events, `End` last.
    #[pyo3(signature = (stop = "stop"))]
    fn finish<'py>(&self, py: Python<'py>, stop: &str) -> PyResult<Bound<'py, PyList>> {
        let reason = StopReason::from_name(stop).ok_or_else(|| {
            PyValueError::new_err(format!(
                "stop must be 'stop', 'length' or 'disconnected', not {stop:?}"
            ))
        })?;
        let mut parser = self.lock()?;
        parser.finish(reason);
        let list = PyList::empty(py);
        events::drain(py, &mut parser, &list)?;
        Ok(list)
    }

    /// Start over for a new response (the counters are kept).
    fn reset(&self) -> PyResult<()> {
        self.lock()?.reset();
        Ok(())
    }

    /// The dialect in force: the configured one, or the one `auto` locked onto.
    #[getter]
    fn dialect(&self) -> PyResult<&'static str> {
        Ok(self.lock()?.dialect().name())
    }

    /// The names of the declared tools.
    #[getter]
    fn tools(&self) -> PyResult<Vec<String>> {
        let parser = self.lock()?;
        Ok(parser
            .config()
            .tools
            .names()
            .into_iter()
            .map(str::to_owned)
            .collect())
    }

    /// The request's `tool_choice` in force: `"auto"`, `"none"`, `"required"`, or
    /// `{"type": "function", "function": {"name": ...}}`.
    #[getter]
    fn tool_choice<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let parser = self.lock()?;
        Ok(match &parser.config().tool_choice {
            ToolChoice::Auto => PyString::new(py, "auto").into_any(),
            ToolChoice::None => PyString::new(py, "none").into_any(),
            ToolChoice::Required => PyString::new(py, "required").into_any(),
            ToolChoice::Function(name) => {
                let function = PyDict::new(py);
                function.set_item("name", &**name)?;
                let choice = PyDict::new(py);
                choice.set_item("type", "function")?;
                choice.set_item("function", function)?;
                choice.into_any()
            }
        })
    }

    /// Whether a response may release more than one call (`parallel_tool_calls`).
    #[getter]
    fn parallel_tool_calls(&self) -> PyResult<bool> {
        Ok(self.lock()?.config().parallel_calls == ParallelCalls::Allowed)
    }

    /// The counters since the parser was made: bytes read, calls released (clean,
    /// repaired, with schema errors), calls not released by reason, and each repair.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let parser = self.lock()?;
        let s = parser.stats();
        let d = PyDict::new(py);
        d.set_item("bytes", s.bytes)?;
        d.set_item("released_clean", s.released_clean)?;
        d.set_item("released_repaired", s.released_repaired)?;
        d.set_item("released_invalid", s.released_invalid)?;
        d.set_item("truncated", s.truncated)?;
        d.set_item("rejected", s.rejected)?;
        d.set_item("unknown_tool", s.unknown_tool)?;
        d.set_item("limit_exceeded", s.limit_exceeded)?;
        d.set_item("schema_violation", s.schema_violation)?;
        d.set_item("tool_choice", s.tool_choice)?;
        d.set_item("parallel_calls", s.parallel_calls)?;
        d.set_item("tool_choice_unmet", s.tool_choice_unmet)?;
        d.set_item("markup_stripped", s.markup_stripped)?;
        d.set_item("calls_in_reasoning", s.calls_in_reasoning)?;
        let repairs = PyDict::new(py);
        for repair in toolsift::Repair::ALL {
            let n = s.repair_count(*repair);
            if n > 0 {
                repairs.set_item(repair.name(), n)?;
            }
        }
        d.set_item("repairs", repairs)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        match self.inner.try_lock() {
            Ok(p) => format!("Parser(dialect='{}')", p.dialect().name()),
            Err(_) => "Parser(<in use>)".to_owned(),
        }
    }
}
