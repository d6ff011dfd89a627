//! MiniMax M1: `<tool_calls>` then one `{"name", "arguments"}` object per line, then
//! `</tool_calls>`; reasoning in `<think>`.

use super::{jamba, Dialect, Spec};
use crate::render::{Layout, Piece::Markup as M, THINK_TIGHT};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::MinimaxM1,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[jamba::TOOL_CALLS],
    strip: &[b"</tool_calls>", b"</think>"],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "minimax_m1",
    note: "MiniMax-M1",
    reasoning: THINK_TIGHT,
    calls_open: &[M("<tool_calls>\n")],
    call: "{\"name\": \"$name\", \"arguments\": $args}",
    between: &[M("\n")],
    calls_close: &[M("\n</tool_calls>")],
    closing_markup: &["</tool_calls>"],
    ..Layout::BASE
}];
