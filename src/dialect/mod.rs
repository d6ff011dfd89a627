//! Dialects: marker sets and argument grammars over one engine.

/// A tool-call dialect.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Lock onto whichever dialect's marker appears first.
    #[default]
    Auto,
    /// Hermes / Qwen `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
    Hermes,
    /// Qwen3-Coder `<tool_call><function=NAME><parameter=KEY>value</parameter>...`.
    Qwen3Coder,
}
