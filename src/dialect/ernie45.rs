//! Baidu ERNIE 4.5 Thinking: reasoning ends at `</think>` (the prompt opens it), then
//! `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>` blocks, or a plain
//! answer in `<response>` ... `</response>` (the tags are dropped).

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};

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
