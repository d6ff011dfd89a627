//! Qwen3-Coder (and Nemotron, Qwen 3.5+): `<tool_call><function=NAME><parameter=KEY>
//! value</parameter></function></tool_call>`, also without the `<tool_call>` wrapper.

use super::{hermes, Body, CallForm, Dialect, Spec, XmlSpec};
use crate::repairs::Repair;

pub(crate) static XML: XmlSpec = XmlSpec {
    name_open: b"<function=",
    name_close: b">",
    key_open: b"<parameter=",
    key_close: b">",
    value_close: b"</parameter",
    func_close: b"</function>",
};

/// The bare form: the opener is the name's own opening tag.
static BARE: XmlSpec = XmlSpec {
    name_open: b"",
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
        },
        CallForm {
            opener: b"<function=",
            body: Body::Xml(&BARE),
            closer: b"</tool_call>",
            implies: Some(Repair::MissingOpener),
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
