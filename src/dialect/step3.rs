//! StepFun Step 3: `<｜tool_calls_begin｜>` around calls `<｜tool_call_begin｜>function
//! <｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter name="K">V
//! </steptml:parameter></steptml:invoke><｜tool_call_end｜>`. The bars are U+FF5C and
//! the word separator an ASCII underscore. Values are raw text typed by the schema;
//! reasoning runs from the first byte to `</think>` (the prompt opens it).

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot, Text as T},
};

static XML: XmlSpec = XmlSpec {
    name_open: "function<｜tool_sep｜><steptml:invoke name=".as_bytes(),
    name_close: b">",
    key_open: b"<steptml:parameter name=",
    key_close: b">",
    value_close: b"</steptml:parameter",
    func_close: b"</steptml:invoke>",
    nameless: false,
    value_open: b"",
    framed: false,
    tag_prefix: b"",
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Step3,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: "<｜tool_call_begin｜>".as_bytes(),
        body: Body::Xml(&XML),
        closer: "<｜tool_call_end｜>".as_bytes(),
        ..CallForm::BASE
    }],
    strip: &[
        "<｜tool_calls_begin｜>".as_bytes(),
        "<｜tool_calls_end｜>".as_bytes(),
        "<｜tool_call_end｜>".as_bytes(),
        "<｜tool_sep｜>".as_bytes(),
        b"</steptml:invoke>",
        b"</steptml:parameter>",
        b"</think>",
    ],
};

static PARAMS: Params = Params {
    param: "<steptml:parameter name=\"$key\">$value</steptml:parameter>",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): the
/// prompt opens the reasoning.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "step3",
    note: "Step 3",
    reasoning: &[Slot, M("</think>")],
    prompt_opens_reasoning: true,
    calls_open: &[M("<｜tool_calls_begin｜>"), T("\n")],
    call: "<｜tool_call_begin｜>\nfunction<｜tool_sep｜><steptml:invoke name=\"$name\">$args\
           </steptml:invoke><｜tool_call_end｜>",
    args: Args::Params(&PARAMS),
    between: &[T("\n")],
    calls_close: &[T("\n"), M("<｜tool_calls_end｜>")],
    closing_markup: &[
        "</steptml:parameter>",
        "</steptml:invoke>",
        "<｜tool_call_end｜>",
    ],
    ..Layout::BASE
}];
