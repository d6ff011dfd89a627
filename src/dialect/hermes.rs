//! Hermes / Qwen 2.5 / Qwen 3: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
//!
//! The same wrapper also carries Qwen3-Coder's XML body in practice, so the body is
//! chosen by how it begins.

use super::{qwen3_coder, Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};

pub(super) static BODIES: [Body; 2] = [
    Body::Envelope(&HERMES_ENVELOPE),
    Body::Xml(&qwen3_coder::XML),
];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Hermes,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<tool_call>",
        body: Body::Sniff(&BODIES),
        closer: b"</tool_call>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[
        b"</tool_call>",
        b"</think>",
        b"<|im_end|>",
        b"<|endoftext|>",
    ],
};
