//! MiniMax M1: `<tool_calls>` then one `{"name", "arguments"}` object per line, then
//! `</tool_calls>`; reasoning in `<think>`.

use super::{jamba, Dialect, Spec};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::MinimaxM1,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[jamba::TOOL_CALLS],
    strip: &[b"</tool_calls>", b"</think>"],
};
