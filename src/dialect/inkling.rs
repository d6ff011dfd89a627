//! Thinking Machines Inkling (role-less messages): `<|content_thinking|>...<|end_message|>`
//! is reasoning, `<|message_model|><|content_text|>...<|end_message|>` is text, and a
//! call is `<|content_invoke_tool_json|>{"name": ..., "args": {...}}<|end_message|>`. The
//! tool name may also be written as text before the opener, after an echoed
//! `<|content_text|>` (`CallForm::name_told`): it is not shown.

use super::{Body, CallForm, Dialect, EnvelopeSpec, Spec};
use crate::render::{
    Layout,
    Piece::{Markup as M, Slot},
};
use crate::repairs::Repair;

static ENVELOPE: EnvelopeSpec = EnvelopeSpec {
    name_keys: &["name"],
    args_keys: &[
        ("args", None),
        ("arguments", None),
        ("parameters", Some(Repair::ParametersKey)),
    ],
    id_keys: &["id"],
    name_is_key: false,
    id_after_arguments: false,
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Inkling,
    reasoning: &[(b"<|content_thinking|>", b"<|end_message|>")],
    calls: &[CallForm {
        opener: b"<|content_invoke_tool_json|>",
        body: Body::Envelope(&ENVELOPE),
        closer: b"<|end_message|>",
        name_told: true,
        ..CallForm::BASE
    }],
    strip: &[
        b"<|message_model|>",
        b"<|content_text|>",
        b"<|end_message|>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "inkling",
    note: "Thinking Machines Inkling",
    reasoning: &[M("<|content_thinking|>"), Slot, M("<|end_message|>")],
    text: &[
        M("<|message_model|><|content_text|>"),
        Slot,
        M("<|end_message|>"),
    ],
    call: "<|content_invoke_tool_json|>{\"name\": \"$name\", \"args\": $args}<|end_message|>",
    after: &[
        M("<|message_model|><|content_text|>"),
        Slot,
        M("<|end_message|>"),
    ],
    closing_markup: &["<|end_message|>"],
    ..Layout::BASE
}];
