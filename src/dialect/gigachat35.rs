//! GigaChat 3.5 "GCML": `<｜GCML｜tool_calls>` around `<｜GCML｜invoke name="NAME">`
//! calls with `<｜GCML｜parameter name="K" string="true|false">V</｜GCML｜parameter>`
//! (`string="false"`: the value is JSON), one per line; reasoning in `<think>`, the
//! message and end-of-turn markers dropped.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot, Text as T},
};

static XML: XmlSpec = XmlSpec {
    tag_prefix: "｜GCML｜".as_bytes(),
    ..XmlSpec::INVOKE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::GigaChat35,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: "<｜GCML｜invoke name=".as_bytes(),
            body: Body::Xml(&XML),
            ..CallForm::BASE
        },
        CallForm::mangled_tag("<｜GCML｜".as_bytes(), &XML),
    ],
    strip: &[
        "<｜GCML｜tool_calls>".as_bytes(),
        "</｜GCML｜tool_calls>".as_bytes(),
        "</｜GCML｜invoke>".as_bytes(),
        "</｜GCML｜parameter>".as_bytes(),
        b"</think>",
        b"<|message_sep|>",
        b"<|role_sep|>",
        b"</s>",
    ],
};

/// `string="true"`: the value is raw text; `"false"`: JSON. One a line.
static PARAMS: Params = Params {
    param: "<｜GCML｜parameter name=\"$key\" string=\"$string\">$value</｜GCML｜parameter>\n",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)), as the
/// chat template joins a turn's blocks (reasoning, text, calls) with blank lines; the
/// prompt opens `<think>` when reasoning is on.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "gigachat35",
    note: "GigaChat 3.5",
    reasoning: &[Slot, M("</think>"), T("\n\n")],
    prompt_opens_reasoning: true,
    text: &[Slot, T("\n\n")],
    calls_open: &[M("<｜GCML｜tool_calls>"), T("\n")],
    call: "<｜GCML｜invoke name=\"$name\">\n$args</｜GCML｜invoke>",
    args: Args::Params(&PARAMS),
    between: &[T("\n")],
    calls_close: &[T("\n"), M("</｜GCML｜tool_calls>")],
    after: &[],
    end_of_turn: "</s>",
    closing_markup: &[
        "</｜GCML｜parameter>",
        "</｜GCML｜invoke>",
        "</｜GCML｜tool_calls>",
    ],
    ..Layout::BASE
}];
