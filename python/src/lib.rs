//! `toolsift._native`: the Python extension module over the toolsift crate.
//!
//! The Python package (`python/toolsift/`) re-exports what is here and adds what is
//! better said in Python (the `Message` fold of `parse`, the vLLM and SGLang plugins).
//! There is no second parser: every byte goes through `toolsift::Parser`.

#![forbid(unsafe_code)]

mod choice;
mod events;
mod options;
mod parser;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use toolsift::Dialect;

create_exception!(
    toolsift,
    Error,
    PyValueError,
    "The base of toolsift's errors (a `ValueError`)."
);
create_exception!(
    toolsift,
    RepairError,
    Error,
    "`repair` found no JSON value it can make strict (no value, or nesting past 128)."
);
create_exception!(
    toolsift,
    ToolsError,
    Error,
    "The tool definitions given to a `Parser` cannot be read."
);
create_exception!(
    toolsift,
    ToolChoiceError,
    Error,
    "The `tool_choice` given to a `Parser` is not one it reads, or names an undeclared tool."
);

/// Chunks at least this long are worked on with the GIL released: below it, releasing
/// and taking the GIL back costs more than it frees.
const DETACH_BYTES: usize = 8 * 1024;

/// The result of [`repair`]: strict JSON text and the names of the repairs applied.
#[pyclass(module = "toolsift", name = "Repaired", frozen)]
struct Repaired {
    #[pyo3(get)]
    json: String,
    repairs: Vec<&'static str>,
}

#[pymethods]
impl Repaired {
    /// The repairs applied, by name, in the order of `docs/repairs.md`.
    #[getter]
    fn repairs(&self) -> Vec<&'static str> {
        self.repairs.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Repaired(json={}, repairs={})",
            events::py_str_repr(&self.json),
            events::names_repr(&self.repairs)
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Repaired>()
            .is_ok_and(|o| o.get().json == self.json && o.get().repairs == self.repairs)
    }
}

/// Repair one possibly malformed JSON text into strict JSON.
#[pyfunction]
fn repair(py: Python<'_>, text: events::Chunk) -> PyResult<Repaired> {
    let bytes = text.as_bytes();
    let result = if bytes.len() >= DETACH_BYTES {
        py.detach(|| toolsift::repair(bytes))
    } else {
        toolsift::repair(bytes)
    };
    match result {
        Ok(fixed) => Ok(Repaired {
            json: fixed.json,
            repairs: fixed.repairs.names().collect(),
        }),
        Err(e) => Err(RepairError::new_err(e.to_string())),
    }
}

/// The dialect names a `Parser` takes: `auto`, then every dialect.
#[pyfunction]
fn dialects() -> Vec<&'static str> {
    std::iter::once(Dialect::Auto)
        .chain(Dialect::ALL.iter().copied())
        .map(Dialect::name)
        .collect()
}

/// The stable name of the dialect `name` stands for (an alias such as `qwen` or
/// `gpt_oss` gives `hermes` or `harmony`); `None` when it names none.
#[pyfunction]
fn dialect_name(name: &str) -> Option<&'static str> {
    Dialect::from_name(name).map(Dialect::name)
}

/// The other names the dialect answers to: every vLLM and SGLang tool-parser name that
/// writes its format among them (`qwen3_json` for `hermes`, `hf` for `auto`).
#[pyfunction]
fn aliases(dialect: &str) -> PyResult<Vec<&'static str>> {
    Ok(options::dialect(dialect)?.aliases().to_vec())
}

/// Every marker of the dialect (call openers and closers, reasoning markers, stripped
/// special tokens): none of them ever reaches visible text.
#[pyfunction]
fn markers(dialect: &str) -> PyResult<Vec<String>> {
    let d = options::dialect(dialect)?;
    Ok(d.markers()
        .into_iter()
        .map(|m| String::from_utf8_lossy(m).into_owned())
        .collect())
}

/// The names of the repairs `repair` and a `Parser` report, in a fixed order.
#[pyfunction]
fn repair_names() -> Vec<&'static str> {
    toolsift::Repair::ALL.iter().map(|r| r.name()).collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("RepairError", py.get_type::<RepairError>())?;
    m.add("ToolsError", py.get_type::<ToolsError>())?;
    m.add("ToolChoiceError", py.get_type::<ToolChoiceError>())?;
    m.add_class::<parser::PyParser>()?;
    m.add_class::<Repaired>()?;
    events::register(m)?;
    m.add_function(wrap_pyfunction!(repair, m)?)?;
    m.add_function(wrap_pyfunction!(dialects, m)?)?;
    m.add_function(wrap_pyfunction!(dialect_name, m)?)?;
    m.add_function(wrap_pyfunction!(aliases, m)?)?;
    m.add_function(wrap_pyfunction!(markers, m)?)?;
    m.add_function(wrap_pyfunction!(repair_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
