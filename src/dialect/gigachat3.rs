//! Sber GigaChat 3 / 3.1: one call per turn, a call object with no closer. 3.0 ends
//! the assistant message and writes the call as a `function call` message,
//! `TEXT<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": ..., "arguments":
//! {...}}`; 3.1 writes it inline, `TEXT<|function_call|>{...}`. The message separator
//! and the end token `</s>` are dropped.

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};
use crate::render::{Layout, Piece::Markup as M};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::GigaChat3,
    reasoning: &[],
    calls: &[
        CallForm {
            opener: b"function call<|role_sep|>",
            body: Body::Envelope(&HERMES_ENVELOPE),
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<|function_call|>",
            body: Body::Envelope(&HERMES_ENVELOPE),
            ..CallForm::BASE
        },
    ],
    // The longer `<|message_sep|>\n\n` wins: the blank lines are the frame's.
    strip: &[
        b"<|message_sep|>\n\n",
        b"<|message_sep|>",
        b"<|role_sep|>",
        b"</s>",
    ],
};

/// How the model writes its call ([`Dialect::render`](crate::Dialect::render)): one per
/// turn, nothing after it.
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "3.0",
        note: "GigaChat 3 (a `function call` message after the assistant's)",
        calls_open: &[M("<|message_sep|>\n\n")],
        call: "function call<|role_sep|>\n{\"name\": \"$name\", \"arguments\": $args}",
        parallel: false,
        after: &[],
        end_of_turn: "</s>",
        closing_markup: &["<|message_sep|>", "</s>"],
        ..Layout::BASE
    },
    Layout {
        name: "3.1",
        note: "GigaChat 3.1 (inline)",
        call: "<|function_call|>{\"name\": \"$name\", \"arguments\": $args}",
        parallel: false,
        after: &[],
        end_of_turn: "</s>",
        closing_markup: &["<|message_sep|>", "</s>"],
        ..Layout::BASE
    },
];
