//! Tencent Hy3-preview, plain tags (what servers without the tokenizer's `:opensource`
//! suffix read): `<tool_calls>` around `<tool_call>NAME<tool_sep><arg_key>K</arg_key>
//! <arg_value>V</arg_value></tool_call>`, values typed by the schema; reasoning in
//! `<think>`. The suffixed spelling is `hunyuan3`.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};

static XML: XmlSpec = XmlSpec {
    name_open: b"",
    name_close: b"<tool_sep>",
    key_open: b"<arg_key>",
    key_close: b"</arg_key>",
    value_close: b"</arg_value",
    func_close: b"",
    nameless: false,
    value_open: b"<arg_value>",
    framed: false,
    tag_prefix: b"",
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::HyV3,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<tool_call>",
            body: Body::Xml(&XML),
            closer: b"</tool_call>",
            ..CallForm::BASE
        },
        // The section's opener with the first call's: in `auto` these win over
        // Jamba's `<tool_calls>` (longest marker first) and lock onto this dialect.
        CallForm {
            opener: b"<tool_calls><tool_call>",
            body: Body::Xml(&XML),
            closer: b"</tool_call>",
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<tool_calls>\n<tool_call>",
            body: Body::Xml(&XML),
            closer: b"</tool_call>",
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"<tool_calls>",
        b"</tool_calls>",
        b"</tool_call>",
        b"<tool_sep>",
        b"</arg_key>",
        b"</arg_value>",
        b"</think>",
    ],
};
