//! Hermes / Qwen 2.5 / Qwen 3: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
//!
//! The same wrapper also carries Qwen3-Coder's XML body and GLM's argument tags in
//! practice, so the body is chosen by how it begins.

use super::{glm, qwen3_coder, tool_elements, Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};
use crate::render::{
    Layout,
    Piece::{Slot, Text as T},
    THINK,
};

/// `{`/`[` begins the JSON envelope, `<function=` Qwen3-Coder's XML, a name GLM's
/// argument tags.
pub(super) static BODIES: [Body; 3] = [
    Body::Envelope(&HERMES_ENVELOPE),
    Body::Xml(&qwen3_coder::XML),
    Body::Xml(&glm::XML),
];

/// The `<tool_call>` wrapper around the sniffed bodies.
const TOOL_CALL: CallForm = CallForm {
    opener: b"<tool_call>",
    body: Body::Sniff(&BODIES),
    closer: b"</tool_call>",
    ..CallForm::BASE
};

const STRIP: &[&[u8]] = &[
    b"</tool_call>",
    b"</think>",
    b"<|im_end|>",
    b"<|endoftext|>",
];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Hermes,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[TOOL_CALL],
    strip: STRIP,
};

/// In `auto`, also the drift of a call written as one self-closing tag (a weak opener:
/// named, Hermes keeps a table without one, which reads prose a byte at a time).
pub(crate) static AUTO_SPEC: Spec = Spec {
    dialect: Dialect::Hermes,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[TOOL_CALL, tool_elements::ATTRIBUTE_CALL],
    strip: STRIP,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "hermes",
    note: "Hermes 2/3, Qwen 2.5/3, QwQ (the Qwen chat template)",
    reasoning: THINK,
    text: &[Slot, T("\n")],
    call: "<tool_call>\n{\"name\": \"$name\", \"arguments\": $args}\n</tool_call>",
    between: &[T("\n")],
    end_of_turn: "<|im_end|>",
    closing_markup: &["</tool_call>"],
    ..Layout::BASE
}];
