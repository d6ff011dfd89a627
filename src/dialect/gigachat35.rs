//! GigaChat 3.5 "GCML": `<｜GCML｜tool_calls>` around `<｜GCML｜invoke name="NAME">`
//! calls with `<｜GCML｜parameter name="K" string="true|false">V</｜GCML｜parameter>`
//! (`string="false"`: the value is JSON), one per line; reasoning in `<think>`, the
//! message and end-of-turn markers dropped.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};

static XML: XmlSpec = XmlSpec {
    name_close: b">",
    key_open: b"<parameter name=",
    key_close: b">",
    value_close: b"</parameter",
    func_close: b"</invoke>",
    tag_prefix: "｜GCML｜".as_bytes(),
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::GigaChat35,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: "<｜GCML｜invoke name=".as_bytes(),
        body: Body::Xml(&XML),
        ..CallForm::BASE
    }],
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
