//! Xiaomi MiMo: Qwen3-Coder's elements written compact, `<tool_call>\n<function=NAME>
//! \n<parameter=K>V</parameter>\n</function>\n</tool_call>`: a value's newlines are its
//! own (no framing newline is removed).

use super::{qwen3_coder, Body, CallForm, Dialect, Spec, XmlSpec};

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
        b"<|im_end|>",
        b"<|endoftext|>",
    ],
};
