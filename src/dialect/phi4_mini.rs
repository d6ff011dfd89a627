//! Phi-4-mini (and Firefunction v2): `functools[{"name", "arguments"}, ...]`, no closer.

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};
use crate::render::{Layout, Piece::Markup as M};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Phi4Mini,
    reasoning: &[],
    calls: &[CallForm {
        opener: b"functools[",
        body: Body::Envelope(&HERMES_ENVELOPE),
        body_prefix: b"[",
        ..CallForm::BASE
    }],
    strip: &[b"<|end|>"],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "phi4_mini",
    note: "Phi-4-mini, Firefunction v2",
    calls_open: &[M("functools[")],
    call: "{\"name\": \"$name\", \"arguments\": $args}",
    between: &[M(", ")],
    calls_close: &[M("]")],
    end_of_turn: "<|end|>",
    closing_markup: &["<|end|>"],
    ..Layout::BASE
}];
