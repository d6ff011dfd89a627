//! Tencent Hunyuan: Hunyuan-A13B writes `<think>...</think>` then `<answer>...</answer>`
//! holding text and `<tool_calls>[...]</tool_calls>` (the answer tags are dropped).
//! Named explicitly, the dialect also reads the tag format of Hy3 and Hy4 in plain tags
//! (SGLang's `hunyuan`, vLLM's `hy_v4`): `<tool_calls><tool_call>NAME<arg_key>K
//! </arg_key><arg_value>V</arg_value></tool_call></tool_calls>`, Hy3 with `<tool_sep>`
//! after the name, values typed by the schema. Checkpoints whose tokens carry a
//! per-checkpoint suffix (`<tool_call:6124c78e>`) are not read: the suffix is in the
//! tokenizer's vocabulary, not in the output's format.

use super::{glm, jamba, Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};
use crate::render::{
    Args, InAuto, Layout,
    Piece::{Markup as M, Reasoning as R, Slot, Text as T},
};

/// A call object or the tag grammar (GLM's, whose name may be followed by `<tool_sep>`).
static TAG_BODIES: [Body; 2] = [Body::Envelope(&HERMES_ENVELOPE), Body::Xml(&glm::XML)];

const fn tag_form(opener: &'static [u8]) -> CallForm {
    CallForm {
        opener,
        body: Body::Sniff(&TAG_BODIES),
        closer: b"</tool_call>",
        ..CallForm::BASE
    }
}

const STRIP: &[&[u8]] = &[b"</tool_calls>", b"<answer>", b"</answer>", b"</think>"];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Hunyuan,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        jamba::TOOL_CALLS,
        // The section's opener with the first call's outranks the A13B array's.
        tag_form(b"<tool_calls><tool_call>"),
        tag_form(b"<tool_calls>\n<tool_call>"),
        tag_form(b"<tool_call>"),
    ],
    strip: &[
        b"</tool_calls>",
        b"<answer>",
        b"</answer>",
        b"</think>",
        b"</tool_call>",
        b"<tool_sep>",
        b"<arg_key>",
        b"</arg_key>",
        b"<arg_value>",
        b"</arg_value>",
    ],
};

/// In `auto`, only A13B's array: the tag format's `<tool_call>` belongs to the dialects
/// listed before (Hermes, GLM) and `<tool_calls><tool_call>` to Hunyuan 3.
pub(crate) static AUTO_SPEC: Spec = Spec {
    dialect: Dialect::Hunyuan,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[jamba::TOOL_CALLS],
    strip: STRIP,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): text
/// and calls inside `<answer>`.
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "hunyuan",
        note: "Hunyuan-A13B",
        reasoning: &[M("<think>"), R("\n"), Slot, R("\n"), M("</think>"), T("\n")],
        text: &[M("<answer>"), T("\n"), Slot],
        text_always: true,
        calls_open: &[M("<tool_calls>[")],
        call: "{\"name\": \"$name\", \"arguments\": $args}",
        between: &[M(", ")],
        calls_close: &[M("]</tool_calls>")],
        tail: &[T("\n"), M("</answer>")],
        closing_markup: &["</tool_calls>", "</answer>"],
        ..Layout::BASE
    },
    // vLLM's `hy_v4` structural tag: calls back to back, values raw (strings as
    // written, other values as JSON), the prompt opening the reasoning.
    Layout {
        name: "hy_v4",
        note: "Hy4 (plain tags)",
        reasoning: &[Slot, M("</think>")],
        prompt_opens_reasoning: true,
        calls_open: &[M("<tool_calls>")],
        call: "<tool_call>$name$args</tool_call>",
        args: Args::Params(&glm::TIGHT),
        calls_close: &[M("</tool_calls>")],
        closing_markup: &["</arg_value>", "</tool_call>", "</tool_calls>"],
        // In `auto` the plain tags are GLM's and Hunyuan 3's.
        auto: InAuto::No,
        ..Layout::BASE
    },
];
