//! Seed-OSS: the Qwen3-Coder body in `<seed:tool_call>` ... `</seed:tool_call>`,
//! reasoning in `<seed:think>` ... `</seed:think>`.

use super::{qwen3_coder, Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout,
    Piece::{Markup as M, Slot, Text as T},
};

/// Qwen3-Coder's grammar, as Seed-OSS's own (so `auto` locks onto Seed-OSS).
static XML: XmlSpec = XmlSpec { ..qwen3_coder::XML };

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::SeedOss,
    reasoning: &[(b"<seed:think>", b"</seed:think>")],
    calls: &[CallForm {
        opener: b"<seed:tool_call>",
        body: Body::Xml(&XML),
        closer: b"</seed:tool_call>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[
        b"</seed:tool_call>",
        b"</seed:think>",
        b"</function>",
        b"</parameter>",
        b"<seed:eos>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "seed_oss",
    note: "ByteDance Seed-OSS",
    reasoning: &[M("<seed:think>"), Slot, M("</seed:think>")],
    text: &[Slot, T("\n")],
    call: "<seed:tool_call>\n<function=$name>\n$args</function>\n</seed:tool_call>",
    args: Args::Params(&qwen3_coder::PARAMS),
    between: &[T("\n")],
    end_of_turn: "<seed:eos>",
    closing_markup: &["</parameter>", "</function>", "</seed:tool_call>"],
    ..Layout::BASE
}];
