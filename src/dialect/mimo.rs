//! Xiaomi MiMo: Qwen3-Coder's elements written compact, `<tool_call>\n<function=NAME>
//! \n<parameter=K>V</parameter>\n</function>\n</tool_call>`: a value's newlines are its
//! own (no framing newline is removed).

use super::{qwen3_coder, Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Slot, Text as T},
    THINK,
};

static XML: XmlSpec = XmlSpec {
    framed: false,
    ..qwen3_coder::XML
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::MiMo,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<tool_call>",
        body: Body::Xml(&XML),
        closer: b"</tool_call>",
        ..CallForm::BASE
    }],
    strip: &[
        b"</tool_call>",
        b"</think>",
        b"</function>",
        b"</parameter>",
        b"<|im_end|>",
        b"<|endoftext|>",
    ],
};

/// Strings raw (their newlines their own), other values as JSON.
static PARAMS: Params = Params {
    param: "<parameter=$key>$value</parameter>",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): compact,
/// as xgrammar's `mimo` structural tag lays them out.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "mimo",
    note: "MiMo-V2.6",
    reasoning: THINK,
    text: &[Slot, T("\n")],
    call: "<tool_call><function=$name>$args</function></tool_call>",
    args: Args::Params(&PARAMS),
    between: &[T("\n")],
    end_of_turn: "<|im_end|>",
    closing_markup: &["</parameter>", "</function>", "</tool_call>"],
    ..Layout::BASE
}];
