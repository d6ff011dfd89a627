//! Tencent Hunyuan-A13B: `<think>...</think>` then `<answer>...</answer>` holding text
//! and `<tool_calls>[...]</tool_calls>`; the answer tags are dropped.

use super::{jamba, Dialect, Spec};
use crate::render::{
    Layout,
    Piece::{Markup as M, Reasoning as R, Slot, Text as T},
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Hunyuan,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[jamba::TOOL_CALLS],
    strip: &[b"</tool_calls>", b"<answer>", b"</answer>", b"</think>"],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): text
/// and calls inside `<answer>`.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "hunyuan",
    note: "Hunyuan-A13B",
    reasoning: &[M("<think>"), R("\n"), Slot, R("\n"), M("</think>"), T("\n")],
    text: &[M("<answer>"), T("\n"), Slot],
    text_always: true,
    calls_open: &[M("<tool_calls>[")],
    call: "{\"name\": \"$name\", \"arguments\": $args}",
    between: &[M(", ")],
    calls_close: &[M("]</tool_calls>")],
    tail: &[T("\n"), M("</answer>")],
    closing_markup: &["</tool_calls>", "</answer>"],
    ..Layout::BASE
}];
