//! Baidu ERNIE 4.5 Thinking: reasoning ends at `</think>` (the prompt opens it), then
//! `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>` blocks, or a plain
//! answer in `<response>` ... `</response>` (the tags are dropped).

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};
use crate::render::{
    Layout,
    Piece::{Markup as M, Reasoning as R, Slot, Text as T},
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Ernie45,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<tool_call>",
        body: Body::Envelope(&HERMES_ENVELOPE),
        closer: b"</tool_call>",
        ..CallForm::BASE
    }],
    strip: &[b"</tool_call>", b"</think>", b"<response>", b"</response>"],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): the
/// prompt opens the reasoning.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "ernie45",
    note: "ERNIE 4.5 Thinking",
    reasoning: &[Slot, R("\n"), M("</think>"), T("\n\n\n")],
    prompt_opens_reasoning: true,
    text: &[Slot, T("\n\n")],
    call: "<tool_call>\n{\"name\": \"$name\", \"arguments\": $args}\n</tool_call>",
    between: &[T("\n")],
    calls_close: &[T("\n")],
    closing_markup: &["</tool_call>"],
    ..Layout::BASE
}];
