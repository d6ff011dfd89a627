//! Kimi K2: `<|tool_calls_section_begin|>` then per call
//! `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>`,
//! then `<|tool_calls_section_end|>`. The id is kept as the call id and the name is
//! taken out of it (also `NAME:IDX` and `functions_NAME_IDX`).

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec};
use crate::repairs::Repair;

static CALL: NameArgsSpec = NameArgsSpec {
    separator: b"<|tool_call_argument_begin|>",
    name_is_id: true,
    ..NameArgsSpec::BASE
};

const CLOSER: &[u8] = b"<|tool_call_end|>";

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::KimiK2,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<|tool_call_begin|>",
            body: Body::NameArgs(&CALL),
            closer: CLOSER,
            ..CallForm::BASE
        },
        // The call opener dropped: a line that starts with the call id.
        CallForm {
            opener: b"functions.",
            body: Body::NameArgs(&CALL),
            closer: CLOSER,
            implies: Some(Repair::MissingOpener),
            anchored: true,
            body_prefix: b"functions.",
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"<|tool_calls_section_begin|>",
        b"<|tool_call_section_begin|>",
        b"<|tool_calls_section_end|>",
        b"<|tool_call_section_end|>",
        CLOSER,
        b"<|tool_call_argument_begin|>",
        b"</think>",
        b"<|im_end|>",
    ],
};
