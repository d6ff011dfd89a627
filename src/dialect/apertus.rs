//! Swiss AI Apertus: `<|tools_prefix|>[{"NAME": {...}}, {"NAME": {...}}]<|tools_suffix|>`,
//! each call an object whose one key is the tool's name; reasoning (with internal
//! calls) in `<|inner_prefix|>` ... `<|inner_suffix|>`. Every block is read: a second
//! one is calls too, never text.

use super::{Body, CallForm, Dialect, EnvelopeSpec, Spec};
use crate::render::{
    Layout,
    Piece::{Markup as M, Slot},
};

static ENVELOPE: EnvelopeSpec = EnvelopeSpec {
    name_keys: &[],
    args_keys: &[],
    id_keys: &[],
    name_is_key: true,
    id_after_arguments: false,
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Apertus,
    reasoning: &[(b"<|inner_prefix|>", b"<|inner_suffix|>")],
    calls: &[CallForm {
        opener: b"<|tools_prefix|>",
        body: Body::Envelope(&ENVELOPE),
        closer: b"<|tools_suffix|>",
        repeats: true,
        ..CallForm::BASE
    }],
    strip: &[
        b"<|tools_suffix|>",
        b"<|inner_suffix|>",
        b"<|assistant_end|>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "apertus",
    note: "Apertus 8B / 70B Instruct 2509",
    reasoning: &[M("<|inner_prefix|>"), Slot, M("<|inner_suffix|>")],
    calls_open: &[M("<|tools_prefix|>[")],
    call: "{\"$name\": $args}",
    between: &[M(", ")],
    calls_close: &[M("]<|tools_suffix|>")],
    end_of_turn: "<|assistant_end|>",
    closing_markup: &["<|tools_suffix|>"],
    ..Layout::BASE
}];
