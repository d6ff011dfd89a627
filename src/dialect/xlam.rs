//! Salesforce xLAM: a JSON array of `{"name", "arguments"}`, bare at the start of the
//! output, in a `` ```json `` fence, or after `[TOOL_CALLS]` or `<tool_call>`. Opt-in:
//! bare and fenced JSON are calls only when they name a declared tool.

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};
use crate::render::{
    Layout,
    Piece::{Markup as M, Slot, Text as T},
    THINK_TIGHT,
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Xlam,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"[",
            body: Body::Envelope(&HERMES_ENVELOPE),
            anchored: true,
            body_prefix: b"[",
            start_only: true,
            heuristic: true,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"{",
            body: Body::Envelope(&HERMES_ENVELOPE),
            anchored: true,
            body_prefix: b"{",
            start_only: true,
            repeats: true,
            heuristic: true,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"```json",
            body: Body::Envelope(&HERMES_ENVELOPE),
            closer: b"```",
            heuristic: true,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"[TOOL_CALLS]",
            body: Body::Envelope(&HERMES_ENVELOPE),
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<tool_call>",
            body: Body::Envelope(&HERMES_ENVELOPE),
            closer: b"</tool_call>",
            ..CallForm::BASE
        },
    ],
    strip: &[b"</tool_call>", b"</think>"],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "bare",
        note: "xLAM: the array is the whole output",
        reasoning: THINK_TIGHT,
        text: &[],
        calls_open: &[M("[")],
        call: "{\"name\": \"$name\", \"arguments\": $args}",
        between: &[M(", ")],
        calls_close: &[M("]")],
        closing_markup: &["]"],
        ..Layout::BASE
    },
    Layout {
        name: "fenced",
        note: "xLAM, the array in a ```json fence",
        reasoning: THINK_TIGHT,
        text: &[Slot, T("\n")],
        calls_open: &[M("```json\n[")],
        call: "{\"name\": \"$name\", \"arguments\": $args}",
        between: &[M(", ")],
        calls_close: &[M("]\n```")],
        after: &[T("\n"), Slot],
        closing_markup: &["```"],
        ..Layout::BASE
    },
];
