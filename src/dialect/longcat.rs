//! Meituan LongCat. Flash-Chat writes a call object, `<longcat_tool_call>\n{"name":
//! ..., "arguments": {...}}\n</longcat_tool_call>`; Flash-Thinking-2601 and Flash-Lite
//! write key/value tags, `<longcat_tool_call>NAME\n<longcat_arg_key>K</longcat_arg_key>
//! \n<longcat_arg_value>V</longcat_arg_value>\n</longcat_tool_call>` (GLM's grammar,
//! values typed by the schema). Parallel calls are blocks back to back; reasoning is
//! `<longcat_think>` ... `</longcat_think>`.

use super::{Body, CallForm, Dialect, Spec, XmlSpec, HERMES_ENVELOPE};

static XML: XmlSpec = XmlSpec {
    name_open: b"",
    name_close: b"",
    key_open: b"<longcat_arg_key>",
    key_close: b"</longcat_arg_key>",
    value_close: b"</longcat_arg_value",
    func_close: b"",
    nameless: false,
    value_open: b"<longcat_arg_value>",
    framed: false,
    tag_prefix: b"",
    ..XmlSpec::BASE
};

/// `{`/`[` begins the call object, a name the key/value tags.
static BODIES: [Body; 2] = [Body::Envelope(&HERMES_ENVELOPE), Body::Xml(&XML)];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::LongCat,
    reasoning: &[(b"<longcat_think>", b"</longcat_think>")],
    calls: &[CallForm {
        opener: b"<longcat_tool_call>",
        body: Body::Sniff(&BODIES),
        closer: b"</longcat_tool_call>",
        ..CallForm::BASE
    }],
    strip: &[
        b"</longcat_tool_call>",
        b"</longcat_think>",
        b"</longcat_arg_key>",
        b"</longcat_arg_value>",
        b"</longcat_s>",
    ],
};
