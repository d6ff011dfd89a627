//! The event classes: one small frozen class per kind of `toolsift::Event`, with the
//! fields as attributes, `__eq__`, `__match_args__` and a `__repr__` a person can read.
//!
//! String fields are Python strings made once, when the event is made: reading an
//! attribute costs a reference count, not a copy.

use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyList, PyString, PyTuple};
use toolsift::{Event, OwnedEvent, Repairs};

/// A chunk of model output as Python gives it: `str` or `bytes`.
#[derive(FromPyObject)]
pub(crate) enum Chunk {
    Str(PyBackedStr),
    Bytes(PyBackedBytes),
}

impl Chunk {
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Chunk::Str(s) => s.as_bytes(),
            Chunk::Bytes(b) => b,
        }
    }
}

/// `repr` of a Python string, as Python writes it.
pub(crate) fn py_str_repr(s: &str) -> String {
    Python::attach(|py| {
        PyString::new(py, s)
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| format!("{s:?}"))
    })
}

fn repr_of(s: &Py<PyString>) -> String {
    Python::attach(|py| s.bind(py).repr().map(|r| r.to_string()).unwrap_or_default())
}

/// `repr` of a list of names: `['a', 'b']`.
pub(crate) fn names_repr(names: &[&'static str]) -> String {
    let inner: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("[{}]", inner.join(", "))
}

fn opt_repr(s: &Option<Py<PyString>>) -> String {
    s.as_ref().map_or_else(|| "None".to_owned(), repr_of)
}

fn names(repairs: Repairs) -> Vec<&'static str> {
    repairs.names().collect()
}

fn same(a: &Py<PyString>, b: &Py<PyString>) -> bool {
    Python::attach(|py| a.bind(py).as_any().eq(b.bind(py)).unwrap_or(false))
}

fn same_opt(a: &Option<Py<PyString>>, b: &Option<Py<PyString>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Defines an event class: its fields, getters, `__match_args__`, `__repr__`, `__eq__`.
macro_rules! event_class {
    (
        $(#[doc = $doc:literal])*
        $rust:ident = $py:literal {
            $( $field:ident : $ty:ty => $repr:expr, $eq:expr ),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[pyclass(module = "toolsift", name = $py, frozen, freelist = 64)]
        pub(crate) struct $rust {
            $( #[pyo3(get)] pub(crate) $field: $ty, )*
        }

        #[pymethods]
        impl $rust {
            #[classattr]
            fn __match_args__(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
                PyTuple::new(py, [$(stringify!($field)),*])
            }

            fn __repr__(&self) -> String {
                let fields: Vec<String> = vec![
                    $( format!(concat!(stringify!($field), "={}"), ($repr)(&self.$field)) ),*
                ];
                format!(concat!($py, "({})"), fields.join(", "))
            }

            fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                match other.cast::<$rust>() {
                    Ok(o) => {
                        let o = o.get();
                        true $( && ($eq)(&self.$field, &o.$field) )*
                    }
                    Err(_) => false,
                }
            }
        }
    };
}

fn repr_display<T: std::fmt::Display>(v: &T) -> String {
    v.to_string()
}

fn repr_bool(v: &bool) -> String {
    if *v { "True" } else { "False" }.to_owned()
}

fn repr_str(v: &&'static str) -> String {
    format!("'{v}'")
}

fn repr_names(v: &Vec<&'static str>) -> String {
    names_repr(v)
}

fn eq<T: PartialEq>(a: &T, b: &T) -> bool {
    a == b
}

event_class! {
    /// Visible text. Never holds any part of a marker; always whole characters.
    Text = "Text" { text: Py<PyString> => repr_of, same }
}

event_class! {
    /// Reasoning text (`<think>`, harmony's analysis channel, ...), markers removed.
    Reasoning = "Reasoning" { text: Py<PyString> => repr_of, same }
}

event_class! {
    /// A call began: sent as soon as its name is complete.
    CallStarted = "CallStarted" {
        index: u32 => repr_display, eq,
        id: Py<PyString> => repr_of, same,
        name: Py<PyString> => repr_of, same,
    }
}

event_class! {
    /// The next fragment of a call's arguments. Fragments only grow: joined, they are
    /// the `arguments` of the call's `CallFinished`, byte for byte.
    ArgsDelta = "ArgsDelta" {
        index: u32 => repr_display, eq,
        fragment: Py<PyString> => repr_of, same,
    }
}

event_class! {
    /// A call is complete and its arguments passed the strict re-parse: strict JSON text
    /// of an object. `repairs` names the repairs applied; `validation` holds the schema
    /// errors left after repair, or `None`.
    CallFinished = "CallFinished" {
        index: u32 => repr_display, eq,
        id: Py<PyString> => repr_of, same,
        name: Py<PyString> => repr_of, same,
        arguments: Py<PyString> => repr_of, same,
        repairs: Vec<&'static str> => repr_names, eq,
        validation: Option<Py<PyString>> => opt_repr, same_opt,
    }
}

event_class! {
    /// A call was not released. `reason` is `truncated`, `invalid`, `limit_exceeded`,
    /// `unknown_tool`, `schema_violation`, `not_a_call`, `tool_choice` (the request's
    /// `tool_choice` does not allow it) or `parallel_calls` (a call after the first, with
    /// `parallel_tool_calls` false); `feedback` is a short message
    /// to send back to the model; `completed` is the completed top-level members as a
    /// strict JSON object.
    CallNotReleased = "CallNotReleased" {
        index: u32 => repr_display, eq,
        name: Option<Py<PyString>> => opt_repr, same_opt,
        reason: &'static str => repr_str, eq,
        feedback: Py<PyString> => repr_of, same,
        completed: Py<PyString> => repr_of, same,
        repairs: Vec<&'static str> => repr_names, eq,
    }
}

event_class! {
    /// The request's `tool_choice` required a call (`"required"` or a named function) and
    /// the response released none. `feedback` says what was required, for the model.
    /// Just before `End`.
    ToolChoiceUnmet = "ToolChoiceUnmet" { feedback: Py<PyString> => repr_of, same }
}

event_class! {
    /// The stream ended (always the last event of `finish`). `stop` is how generation
    /// ended (`stop`, `length` or `disconnected`); `truncated` whether a call was open.
    End = "End" {
        stop: &'static str => repr_str, eq,
        truncated: bool => repr_bool, eq,
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Text>()?;
    m.add_class::<Reasoning>()?;
    m.add_class::<CallStarted>()?;
    m.add_class::<ArgsDelta>()?;
    m.add_class::<CallFinished>()?;
    m.add_class::<CallNotReleased>()?;
    m.add_class::<ToolChoiceUnmet>()?;
    m.add_class::<End>()?;
    Ok(())
}

fn s(py: Python<'_>, text: &str) -> Py<PyString> {
    PyString::new(py, text).unbind()
}

/// A borrowed event as a Python object.
pub(crate) fn borrowed<'py>(py: Python<'py>, event: Event<'_>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match event {
        Event::Text(t) => Bound::new(py, Text { text: s(py, t) })?.into_any(),
        Event::Reasoning(t) => Bound::new(py, Reasoning { text: s(py, t) })?.into_any(),
        Event::CallStarted { index, id, name } => Bound::new(
            py,
            CallStarted {
                index: index.0,
                id: s(py, id),
                name: s(py, name),
            },
        )?
        .into_any(),
        Event::ArgsDelta { index, fragment } => Bound::new(
            py,
            ArgsDelta {
                index: index.0,
                fragment: s(py, fragment),
            },
        )?
        .into_any(),
        Event::CallFinished {
            index,
            id,
            name,
            arguments,
            repairs,
            validation,
        } => Bound::new(
            py,
            CallFinished {
                index: index.0,
                id: s(py, id),
                name: s(py, name),
                arguments: s(py, arguments),
                repairs: names(repairs),
                validation: validation.map(|v| s(py, v)),
            },
        )?
        .into_any(),
        Event::CallNotReleased {
            index,
            name,
            reason,
            feedback,
            completed,
            repairs,
        } => Bound::new(
            py,
            CallNotReleased {
                index: index.0,
                name: name.map(|n| s(py, n)),
                reason: reason.as_str(),
                feedback: s(py, feedback),
                completed: s(py, completed),
                repairs: names(repairs),
            },
        )?
        .into_any(),
        Event::ToolChoiceUnmet { feedback } => Bound::new(
            py,
            ToolChoiceUnmet {
                feedback: s(py, feedback),
            },
        )?
        .into_any(),
        Event::End { stop, truncated } => Bound::new(
            py,
            End {
                stop: stop.as_str(),
                truncated,
            },
        )?
        .into_any(),
        // An event kind added to the crate and not to these bindings: a bug, said loudly.
        // (Made into `Text` it would put the engine's own words in the visible text, as
        // `ToolChoiceUnmet` once did.)
        other => {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "toolsift's Python bindings do not know this event (a bug in toolsift: please report it): {other:?}"
            )))
        }
    })
}

/// An owned event (made with the GIL released) as a Python object.
pub(crate) fn owned<'py>(py: Python<'py>, event: &OwnedEvent) -> PyResult<Bound<'py, PyAny>> {
    borrowed(py, event.as_event())
}

/// Appends every event queued in `parser` to `list`.
pub(crate) fn drain(
    py: Python<'_>,
    parser: &mut toolsift::Parser,
    list: &Bound<'_, PyList>,
) -> PyResult<()> {
    while let Some(event) = parser.next_event() {
        list.append(borrowed(py, event)?)?;
    }
    Ok(())
}
