//! Qwen3-Coder (and Nemotron, Qwen 3.5+): `<tool_call><function=NAME><parameter=KEY>
//! value</parameter></function></tool_call>`, also without the `<tool_call>` wrapper.

use super::{hermes, Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Slot, Text as T},
    THINK,
};
use crate::repairs::Repair;

pub(crate) static XML: XmlSpec = XmlSpec {
    name_open: b"<function=",
    name_close: b">",
    key_open: b"<parameter=",
    key_close: b">",
    value_close: b"</parameter",
    func_close: b"</function>",
    nameless: false,
    value_open: b"",
    framed: true,
    tag_prefix: b"",
    ..XmlSpec::BASE
};

/// The bare form: the opener is the name's own opening tag.
static BARE: XmlSpec = XmlSpec {
    name_open: b"",
    ..XML
};

/// Both wrappers dropped: the call starts at its first parameter; the tool is inferred
/// from the arguments and the declared tools.
static NAMELESS: XmlSpec = XmlSpec {
    name_open: b"",
    nameless: true,
    ..XML
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Qwen3Coder,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<tool_call>",
            body: Body::Sniff(&hermes::BODIES),
            closer: b"</tool_call>",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<function=",
            body: Body::Xml(&BARE),
            closer: b"</tool_call>",
            implies: Some(Repair::MissingOpener),
            anchored: false,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<parameter=",
            body: Body::Xml(&NAMELESS),
            closer: b"</tool_call>",
            implies: Some(Repair::MissingOpener),
            anchored: true,
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"</tool_call>",
        b"</think>",
        b"</function>",
        b"</parameter>",
        b"<|im_end|>",
        b"<|endoftext|>",
    ],
};

/// A parameter: the value framed by one newline on each side.
pub(crate) static PARAMS: Params = Params {
    param: "<parameter=$key>\n$value\n</parameter>\n",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "qwen3_coder",
    note: "Qwen3-Coder, Qwen 3.5/3.6, Nemotron 3, Step-3.5",
    reasoning: THINK,
    text: &[Slot, T("\n")],
    call: "<tool_call>\n<function=$name>\n$args</function>\n</tool_call>",
    args: Args::Params(&PARAMS),
    between: &[T("\n")],
    end_of_turn: "<|im_end|>",
    closing_markup: &["</parameter>", "</function>", "</tool_call>"],
    ..Layout::BASE
}];
