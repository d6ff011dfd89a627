//! Tool definitions and their JSON schemas.
//!
//! Accepts OpenAI tool definitions (`{"type": "function", "function": {...}}`), bare
//! function objects (`{"name", "parameters"}`) and Anthropic's `{"name", "input_schema"}`,
//! compiles the JSON Schema subset tool definitions use, and offers what the engine
//! needs at the value level: tool name matching and inference, typing raw parameter
//! text while streaming, repairing and validating finished calls, and feedback.

mod cmdline;
mod coerce;
mod conform;
mod feedback;
mod python;
mod raw;
mod tools;
mod types;
mod validate;

pub use conform::Conformed;
pub(crate) use conform::ConformedInOrder;
pub use feedback::feedback_for_errors;
pub(crate) use raw::type_untyped;
pub use tools::{Tool, Tools};
pub use validate::ValidationError;

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
