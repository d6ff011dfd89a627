//! rednote dots.llm: `<dots_function_call>` around `<invoke name="NAME"><parameter
//! name="K">V</parameter></invoke>` calls (MiniMax M2's elements, several invokes per
//! block), or one JSON call object `{"name": ..., "arguments": {...}}` as the block.
//! Values are raw text, typed by the schema (without one, by what they read as).

use super::{Body, CallForm, Dialect, Spec, XmlSpec, HERMES_ENVELOPE};

static XML: XmlSpec = XmlSpec {
    name_close: b">",
    key_open: b"<parameter name=",
    key_close: b">",
    value_close: b"</parameter",
    func_close: b"</invoke>",
    ..XmlSpec::BASE
};

/// The block holding a call object rather than invokes.
const fn json_block(opener: &'static [u8]) -> CallForm {
    CallForm {
        opener,
        body: Body::Envelope(&HERMES_ENVELOPE),
        body_prefix: b"{",
        closer: b"</dots_function_call>",
        ..CallForm::BASE
    }
}

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Dots,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<invoke name=",
            body: Body::Xml(&XML),
            ..CallForm::BASE
        },
        json_block(b"<dots_function_call>{"),
        json_block(b"<dots_function_call>\n{"),
    ],
    strip: &[
        b"<dots_function_call>",
        b"</dots_function_call>",
        b"</invoke>",
        b"</parameter>",
        b"</think>",
    ],
};
