//! Olmo 3: `<function_calls>` with one Python call per line, `</function_calls>`;
//! reasoning in `<think>` ... `</think>`.

use super::{Body, CallForm, Dialect, PythonicSpec, Spec};
use crate::render::{
    Args, Layout,
    Piece::{Markup as M, Slot, Text as T},
    THINK_TIGHT,
};

static CALLS: PythonicSpec = PythonicSpec {
    in_list: false,
    markerless: false,
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Olmo3,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<function_calls>",
        body: Body::Pythonic(&CALLS),
        closer: b"</function_calls>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[
        b"</function_calls>",
        b"</think>",
        b"<|im_end|>",
        b"<|endoftext|>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): JSON's
/// literals, as the chat template writes them.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "olmo3",
    note: "Olmo 3",
    reasoning: THINK_TIGHT,
    text: &[Slot, T("\n")],
    calls_open: &[M("<function_calls>\n")],
    call: "$name($args)",
    args: Args::Python {
        json_literals: true,
    },
    between: &[M("\n")],
    calls_close: &[M("\n</function_calls>")],
    end_of_turn: "<|im_end|>",
    closing_markup: &["</function_calls>"],
    ..Layout::BASE
}];
