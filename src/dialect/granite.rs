//! IBM Granite 3.x: `<|tool_call|>` (3.0) or `<tool_call>` (3.1+) followed by a JSON array
//! of calls, no closer; granite-20b-functioncalling: `<function_call> {...}` per call.

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Granite,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<|tool_call|>",
            body: Body::Envelope(&HERMES_ENVELOPE),
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<tool_call>",
            body: Body::Envelope(&HERMES_ENVELOPE),
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<function_call>",
            body: Body::Envelope(&HERMES_ENVELOPE),
            ..CallForm::BASE
        },
    ],
    strip: &[b"</tool_call>", b"</think>", b"<|end_of_text|>"],
};
