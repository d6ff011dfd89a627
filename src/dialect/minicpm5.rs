//! OpenBMB MiniCPM5: `<function name="NAME"><param name="K">V</param></function>`,
//! calls one per line; a value holding `<`, `&` or a newline is written in
//! `<![CDATA[` ... `]]>`. Values are raw text typed by the schema (non-strings as Python
//! prints them: `True`, `['a']`); reasoning in `<think>`.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};

static XML: XmlSpec = XmlSpec {
    name_close: b">",
    key_open: b"<param name=",
    key_close: b">",
    value_close: b"</param",
    func_close: b"</function>",
    cdata: true,
    python_values: true,
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::MiniCpm5,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<function name=",
        body: Body::Xml(&XML),
        ..CallForm::BASE
    }],
    strip: &[b"</function>", b"</param>", b"</think>", b"<|im_end|>"],
};
