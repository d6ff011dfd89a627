//! IBM Granite 3.x: `<|tool_call|>` (3.0) or `<tool_call>` (3.1+) followed by a JSON array
//! of calls, no closer; granite-20b-functioncalling: `<function_call> {...}` per call.

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};
use crate::render::{Layout, Piece::Markup as M, THINK_TIGHT};

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

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "3.1",
        note: "Granite 3.1+",
        reasoning: THINK_TIGHT,
        calls_open: &[M("<tool_call>[")],
        call: "{\"name\": \"$name\", \"arguments\": $args}",
        between: &[M(", ")],
        calls_close: &[M("]")],
        end_of_turn: "<|end_of_text|>",
        closing_markup: &["<|end_of_text|>"],
        ..Layout::BASE
    },
    Layout {
        name: "3.0",
        note: "Granite 3.0",
        reasoning: THINK_TIGHT,
        calls_open: &[M("<|tool_call|>[")],
        call: "{\"name\": \"$name\", \"arguments\": $args}",
        between: &[M(", ")],
        calls_close: &[M("]")],
        end_of_turn: "<|end_of_text|>",
        closing_markup: &["<|end_of_text|>"],
        ..Layout::BASE
    },
    Layout {
        name: "20b",
        note: "granite-20b-functioncalling",
        call: "<function_call> {\"name\": \"$name\", \"arguments\": $args}",
        closing_markup: &["<function_call>"],
        ..Layout::BASE
    },
];
