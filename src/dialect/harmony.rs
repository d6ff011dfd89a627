//! gpt-oss harmony: messages `<|start|>assistant<|channel|>CHANNEL<|message|>...<|end|>`.
//! Output usually starts at `<|channel|>` (the first `<|start|>assistant` was in the
//! prompt). `analysis` is reasoning, `final` and `commentary` without a recipient are
//! text, and a recipient (`to=functions.NAME`, in the role part or the channel part,
//! on any channel) makes the message a call whose content is its JSON arguments.

use super::{Body, CallForm, Dialect, HarmonySpec, Spec};
use crate::render::{
    Layout,
    Piece::{Markup as M, Slot},
};

static HEADER: HarmonySpec = HarmonySpec {
    json_args: true,
    reasoning_close: b"<|end|>",
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Harmony,
    reasoning: &[(b"<|channel|>analysis<|message|>", b"<|end|>")],
    calls: &[
        CallForm {
            opener: b"<|channel|>",
            body: Body::Harmony(&HEADER),
            closer: b"",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<|start|>",
            body: Body::Harmony(&HEADER),
            closer: b"",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"<|end|>",
        b"<|call|>",
        b"<|return|>",
        b"<|message|>",
        b"<|constrain|>",
        b"<|endoftext|>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): one
/// message each, the first `<|start|>assistant` in the prompt. gpt-oss stops at
/// `<|call|>`, so calls after the first and text after them are later turns' output,
/// written here as the same stream.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "harmony",
    note: "gpt-oss-20b, gpt-oss-120b",
    reasoning: &[
        M("<|channel|>analysis<|message|>"),
        Slot,
        M("<|end|><|start|>assistant"),
    ],
    text: &[
        M("<|channel|>commentary<|message|>"),
        Slot,
        M("<|end|><|start|>assistant"),
    ],
    call: "<|channel|>commentary to=functions.$name <|constrain|>json<|message|>$args<|call|>",
    between: &[M("<|start|>assistant")],
    after: &[M("<|start|>assistant<|channel|>final<|message|>"), Slot],
    end_of_turn: "<|return|>",
    closing_markup: &["<|call|>", "<|end|>"],
    ..Layout::BASE
}];
