//! Kimi K2: `<|tool_calls_section_begin|>` then per call
//! `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>`,
//! then `<|tool_calls_section_end|>`. The id is kept as the call id and the name is
//! taken out of it (also `NAME:IDX` and `functions_NAME_IDX`).

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec};
use crate::render::{Ids, Layout, Piece::Markup as M, THINK_TIGHT};
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

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): the
/// call id is `functions.NAME:INDEX`.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "kimi_k2",
    note: "Kimi K2, K2-Thinking, K2.5+",
    reasoning: THINK_TIGHT,
    calls_open: &[M("<|tool_calls_section_begin|>")],
    call: "<|tool_call_begin|>$id<|tool_call_argument_begin|>$args<|tool_call_end|>",
    ids: Ids::Own {
        default: "functions.$name:$index",
        fits: kimi_id,
    },
    calls_close: &[M("<|tool_calls_section_end|>")],
    end_of_turn: "<|im_end|>",
    closing_markup: &["<|tool_call_end|>", "<|tool_calls_section_end|>"],
    ..Layout::BASE
}];

/// A given id is written when it is Kimi's own for this call (`functions.NAME:7`).
fn kimi_id(id: &str, name: &str) -> bool {
    id.strip_prefix("functions.")
        .and_then(|rest| rest.strip_prefix(name))
        .and_then(|rest| rest.strip_prefix(':'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
