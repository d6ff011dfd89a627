//! Thinking Machines Inkling (role-less messages): `<|content_thinking|>...<|end_message|>`
//! is reasoning, `<|message_model|><|content_text|>...<|end_message|>` is text, and a
//! call is `<|content_invoke_tool_json|>{"name": ..., "args": {...}}<|end_message|>`. The
//! tool name may also be written as text before the opener, after an echoed
//! `<|content_text|>` (`CallForm::name_told`): it is not shown.

use super::{Body, CallForm, Dialect, EnvelopeSpec, Spec};
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
